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
    """A decision the rules do not allow now. Subclasses say why."""


class WrongPhase(IllegalDecision):
    """The game is not waiting for this kind of decision (or is over)."""


class NotYourDecision(IllegalDecision):
    """The seat is not the one (or not one of those) who must decide now."""


class CardNotInHand(IllegalDecision):
    """The card committed or picked is not in that seat's hand (or the draft pool)."""


class IllegalRow(IllegalDecision):
    """The row number is not 0..3."""


class IllegalPlace(IllegalDecision):
    """The place chosen is not one of the tied places offered."""


class StaleTurn(IllegalDecision):
    """A commit tagged for another round or turn than the one being played."""
