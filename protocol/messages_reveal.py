"""Commit, then reveal (protocol version 3): a seat's contribution to the deals is
sent as a hash when it sits down (``join.entropy_hash``, ``queue.entropy_hash``) and
revealed once the game's seats and seed are fixed (docs/PROTOCOL.md, "Verifiable
deals")."""

from __future__ import annotations

from typing import Final

from .base import F, Message, message
from .states import Role
from .structs import DEADLINE, ENTROPY, HASH_HEX, REMAINING

__all__ = ["RevealRequest", "Reveal", "RevealAccepted"]

C: Final = Role.CLIENT
S: Final = Role.SERVER


@message("reveal_request", S, since=3)
class RevealRequest(Message):
    """The game's seats are fixed: reveal the entropy whose hash you sent (answer with reveal)."""

    commitment: str = F(HASH_HEX, "the commitment of the seed the game will be dealt from: "
                        "the one your seated showed (check it before you reveal)")
    deadline: float = F(DEADLINE, "absolute deadline, Unix seconds, server clock: a reveal "
                        "not made by then is withheld (your contribution is empty)")
    remaining: float = F(REMAINING, "seconds left until the deadline")


@message("reveal", C, since=3)
class Reveal(Message):
    """Your entropy, whose SHA-256 you sent as entropy_hash (answered with reveal_accepted)."""

    entropy: str = F(ENTROPY, "the entropy itself: its SHA-256 must be your entropy_hash")


@message("reveal_accepted", S, since=3)
class RevealAccepted(Message):
    """Your reveal matches your hash: it is your contribution to the game's deals."""
