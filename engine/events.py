"""Events: what applying a decision caused, one per visible step, in order.

Every event says who may see it: ``visible_to`` is None for everyone, or the
one seat allowed to see it (a dealt hand, the card a seat committed). Use
``event.visible(seat)`` or ``events_for(events, seat)`` before showing events
to anybody; ``seat=None`` is a spectator.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable

from .moves import End, Place

__all__ = [
    "Event",
    "RoundStarted",
    "HandDealt",
    "DraftOpened",
    "DraftPicked",
    "RowsDealt",
    "TurnStarted",
    "CommitAccepted",
    "SeatCommitted",
    "CardsRevealed",
    "RowTaken",
    "CardPlaced",
    "RowChoiceNeeded",
    "TieChoiceNeeded",
    "RoundScored",
    "GameOver",
    "GameResult",
    "events_for",
]


class _Public:
    __slots__ = ()

    @property
    def visible_to(self) -> int | None:
        return None

    def visible(self, seat: int | None) -> bool:
        return True


class _Private:
    __slots__ = ()
    seat: int

    @property
    def visible_to(self) -> int | None:
        return self.seat

    def visible(self, seat: int | None) -> bool:
        return seat == self.seat


@dataclass(frozen=True, slots=True)
class RoundStarted(_Public):
    round: int


@dataclass(frozen=True, slots=True)
class HandDealt(_Private):
    """Private: the cards dealt to ``seat``."""

    seat: int
    hand: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DraftOpened(_Public):
    """Draft: the cards in use lie face up; seats pick in turn from ``first_picker`` on."""

    pool: tuple[int, ...]
    first_picker: int


@dataclass(frozen=True, slots=True)
class DraftPicked(_Public):
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class RowsDealt(_Public):
    """The 4 cards that start the rows, in row order."""

    rows: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TurnStarted(_Public):
    round: int
    turn: int


@dataclass(frozen=True, slots=True)
class CommitAccepted(_Private):
    """Private: ``seat``'s face-down card is now ``card`` (first commit or a replacement)."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class SeatCommitted(_Public):
    """``seat`` has a card face down. Sent once per turn; replacements are not shown."""

    seat: int


@dataclass(frozen=True, slots=True)
class CardsRevealed(_Public):
    """All commits, as (seat, card), lowest card first: the order of resolution."""

    plays: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class RowTaken(_Public):
    """``seat`` takes ``cards`` of ``row`` into their penalty pile; the row is empty
    until the next ``CardPlaced`` starts it anew."""

    seat: int
    row: int
    cards: tuple[int, ...]
    bullheads: int


@dataclass(frozen=True, slots=True)
class CardPlaced(_Public):
    seat: int
    card: int
    row: int
    end: End = End.RIGHT


@dataclass(frozen=True, slots=True)
class RowChoiceNeeded(_Public):
    """``card`` fits no row: resolution waits for ``seat`` to choose a row to take."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class TieChoiceNeeded(_Public):
    """Professional rows: ``card`` fits ``places`` equally well; ``seat`` chooses."""

    seat: int
    card: int
    places: tuple[Place, ...]


@dataclass(frozen=True, slots=True)
class RoundScored(_Public):
    round: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameResult:
    """Final totals, 1-based places (equal totals share a place) and the winners."""

    totals: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]

    @classmethod
    def from_totals(cls, totals: tuple[int, ...]) -> GameResult:
        """
        >>> GameResult.from_totals((10, 3, 10, 3))
        GameResult(totals=(10, 3, 10, 3), places=(3, 1, 3, 1), winners=(1, 3))
        """
        places = tuple(1 + sum(1 for other in totals if other < t) for t in totals)
        winners = tuple(s for s, p in enumerate(places) if p == 1)
        return cls(tuple(totals), places, winners)


@dataclass(frozen=True, slots=True)
class GameOver(_Public):
    result: GameResult


Event = (
    RoundStarted
    | HandDealt
    | DraftOpened
    | DraftPicked
    | RowsDealt
    | TurnStarted
    | CommitAccepted
    | SeatCommitted
    | CardsRevealed
    | RowTaken
    | CardPlaced
    | RowChoiceNeeded
    | TieChoiceNeeded
    | RoundScored
    | GameOver
)


def events_for(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see (``None``: a spectator, who sees public ones)."""
    return [e for e in events if e.visible(seat)]
