"""The seed a table's next game is dealt from, and the contributions that count for it.

docs/PROTOCOL.md, "Verifiable deals": a table draws a secret seed and shows its
commitment (SHA-256) at once; a player who joins adds entropy for the game dealt
from the commitment shown then; the game is dealt from the seed and every
seat's contribution (``seal``, a ``FairDeal``); once it ends a new seed is drawn
(``renew``) and the contributions made for the old one count no more.

``DealCommitment`` is that value, whole: frozen, no I/O, written and read back
as one unit (``to_data``/``from_data``; also the payload of its fact, which lets
a restarted server deal the next game from the seed its players saw).

>>> first = DealCommitment(bytes(32))
>>> first.commitment
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> joined = first.contribute(1, bytes.fromhex("b0b0"))
>>> joined.seal(3).contributions
(b'', b'\\xb0\\xb0', b'')
>>> next_game = joined.renew(random.Random(1))
>>> next_game.commitment != first.commitment, next_game.seal(3).contributions
(True, (b'', b'', b''))
>>> DealCommitment.from_data(joined.to_data()) == joined
True
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from typing import Any

from nimmt.engine import FairDeal, commitment_of
from nimmt.engine.fair_deal import MAX_CONTRIBUTION, SEED_BYTES

from ..storage.facts import Fact

__all__ = ["DealCommitment", "FACT_KIND"]

#: the kind of the fact that keeps the value (``fact``), written each time it changes
FACT_KIND = "deal_commitment"


@dataclass(frozen=True, slots=True)
class DealCommitment:
    """A secret ``seed`` (32 bytes) and the seats' ``contributions`` made after its
    commitment was shown: ``(seat, bytes)`` pairs in seat order, none empty."""

    seed: bytes
    contributions: tuple[tuple[int, bytes], ...] = ()

    def __post_init__(self) -> None:
        if len(self.seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes, not {len(self.seed)}")
        seats = [seat for seat, _ in self.contributions]
        if seats != sorted(set(seats)) or any(s < 0 for s in seats):
            raise ValueError(f"contributions by seat, in order, once each: {seats}")
        for seat, c in self.contributions:
            if not 0 < len(c) <= MAX_CONTRIBUTION:
                raise ValueError(f"seat {seat}'s contribution is 1 to {MAX_CONTRIBUTION} "
                                 f"bytes, not {len(c)}")

    @classmethod
    def draw(cls, stream: random.Random | None = None) -> DealCommitment:
        """A new secret seed (from ``stream`` when given: a seeded, reproducible match;
        otherwise unpredictable), no contributions yet."""
        if stream is not None:
            return cls(stream.randbytes(SEED_BYTES))
        return cls(secrets.token_bytes(SEED_BYTES))

    @property
    def commitment(self) -> str:
        """SHA-256 of the seed, lowercase hex: what the table shows."""
        return commitment_of(self.seed)

    def contribute(self, seat: int, entropy: bytes) -> DealCommitment:
        """``seat``'s contribution (made now: after this commitment was shown), in
        place of any it had; empty: it has none."""
        others = tuple((s, c) for s, c in self.contributions if s != seat)
        if not entropy:
            return DealCommitment(self.seed, others)
        return DealCommitment(self.seed, tuple(sorted((*others, (seat, entropy)))))

    def withdraw(self, seat: int) -> DealCommitment:
        """The seat is free: whoever sits there next has contributed nothing."""
        return self.contribute(seat, b"")

    def contribution(self, seat: int) -> bytes:
        return next((c for s, c in self.contributions if s == seat), b"")

    def seal(self, seats: int) -> FairDeal:
        """What a game of ``seats`` seats is dealt from: the seed and each seat's
        contribution (empty for a seat that made none)."""
        return FairDeal(self.seed, tuple(self.contribution(s) for s in range(seats)))

    def renew(self, stream: random.Random | None = None) -> DealCommitment:
        """The next game's: a new seed (this one is revealed), no contributions (those
        were made for this commitment)."""
        return DealCommitment.draw(stream)

    @classmethod
    def of_game(cls, fair: FairDeal) -> DealCommitment:
        """The value a game in progress was sealed from (its ``game_started`` fact)."""
        return cls(fair.seed, tuple((s, c) for s, c in enumerate(fair.contributions) if c))

    # ------------------------------------------------------------------ as data
    def to_data(self) -> dict[str, Any]:
        """Plain data (hex strings): the seed and ``[seat, contribution]`` pairs."""
        return {"seed": self.seed.hex(),
                "contributions": [[seat, c.hex()] for seat, c in self.contributions]}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> DealCommitment:
        """Raises ``ValueError`` (or ``KeyError``, ``TypeError``) for data ``to_data``
        did not write."""
        return cls(bytes.fromhex(data["seed"]),
                   tuple((int(seat), bytes.fromhex(c)) for seat, c in data["contributions"]))

    def fact(self) -> Fact:
        """The fact that keeps this value (a table's facts are never shown to clients:
        the seed stays secret until the game dealt from it is over)."""
        return Fact(FACT_KIND, self.to_data())
