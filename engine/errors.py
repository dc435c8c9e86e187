"""The engine's exceptions: all are ``ValueError`` subclasses, each narrow.

An exception raised by ``Game.apply`` always leaves the game unchanged.
"""

from __future__ import annotations

__all__ = [
    "NimmtError",
    "InvalidOptions",
    "InvalidDeal",
    "InvalidPosition",
    "IllegalDecision",
    "WrongPhase",
    "NotYourDecision",
    "CardNotInHand",
    "IllegalRow",
    "IllegalPlace",
    "StaleTurn",
]


class NimmtError(ValueError):
    """Base class of every error the engine raises on bad input."""


class InvalidOptions(NimmtError):
    """Table options that break the rules (e.g. 11 players, no end condition)."""


class InvalidDeal(NimmtError):
    """A deal that is not possible with the deck in use (duplicates, wrong sizes)."""


class InvalidPosition(NimmtError):
    """A hand-made position that cannot occur (duplicate cards, a row of 6, ...)."""


class IllegalDecision(NimmtError):
    """A decision the rules do not allow now. Subclasses say why.

    ``code`` is the error code a server sends for it (docs/PROTOCOL.md); a plain
    string, so the engine needs nothing of the protocol.
    """

    code: str = "not_allowed"


class WrongPhase(IllegalDecision):
    """The game is not waiting for this kind of decision (or is over)."""

    code = "not_your_turn"


class NotYourDecision(IllegalDecision):
    """The seat is not the one (or not one of those) who must decide now."""

    code = "not_your_turn"


class CardNotInHand(IllegalDecision):
    """The card committed or picked is not in that seat's hand (or the draft pool)."""

    code = "illegal_card"


class IllegalRow(IllegalDecision):
    """The row number is not 0..3."""

    code = "illegal_choice"


class IllegalPlace(IllegalDecision):
    """The place chosen is not one of the tied places offered."""

    code = "illegal_choice"


class StaleTurn(IllegalDecision):
    """A commit tagged for another round or turn than the one being played."""

    code = "stale_turn"
