"""Decisions (what a seat does) and deals (what chance does), as plain values.

Their reprs are valid Python:

>>> Commit(seat=0, card=42)
Commit(seat=0, card=42)
>>> ChooseTie(seat=1, place=Place(row=2, end=End.LEFT))
ChooseTie(seat=1, place=Place(row=2, end=End.LEFT))
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .errors import InvalidDeal
from .options import ROWS

__all__ = [
    "End",
    "Place",
    "Commit",
    "ChooseRow",
    "ChooseTie",
    "DraftPick",
    "Decision",
    "Deal",
]


class End(str, Enum):
    """Which end of a row a card goes to. Only Professional rows use LEFT."""

    LEFT = "left"
    RIGHT = "right"

    def __repr__(self) -> str:
        return f"End.{self.name}"


@dataclass(frozen=True, slots=True)
class Place:
    """One end of one row (rows are numbered 0..3)."""

    row: int
    end: End = End.RIGHT


@dataclass(frozen=True, slots=True)
class Commit:
    """Put ``card`` face down for this turn; may be replaced until the reveal.

    ``round``/``turn``, when given, must match the turn being played, so a
    late commit for an earlier turn is refused instead of being played now.
    """

    seat: int
    card: int
    round: int | None = None
    turn: int | None = None

    def __repr__(self) -> str:
        tag = "" if self.round is None and self.turn is None else f", round={self.round}, turn={self.turn}"
        return f"Commit(seat={self.seat}, card={self.card}{tag})"


@dataclass(frozen=True, slots=True)
class ChooseRow:
    """Take ``row`` (0..3) with a card that fits no row."""

    seat: int
    row: int


@dataclass(frozen=True, slots=True)
class ChooseTie:
    """Professional rows: put the card at ``place``, one of the tied places."""

    seat: int
    place: Place


@dataclass(frozen=True, slots=True)
class DraftPick:
    """Draft: take ``card`` from the face-up pool into the hand."""

    seat: int
    card: int


Decision = Commit | ChooseRow | ChooseTie | DraftPick


@dataclass(frozen=True, slots=True)
class Deal:
    """What chance decides at the start of a round.

    ``hands``: one tuple of cards per seat (None in a Draft round, where hands
    are picked); ``rows``: the 4 cards that start the rows, in row order. Any
    iterables are copied once into tuples, so an iterator is read only here:

    >>> Deal(rows=iter([5, 6, 7, 8]), hands=[range(10, 20), range(20, 30)]).rows
    (5, 6, 7, 8)
    """

    rows: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...] | None = None

    def __post_init__(self) -> None:
        try:
            rows = tuple(self.rows)
        except TypeError:
            raise InvalidDeal(f"rows must be the {ROWS} cards that start the rows, not {self.rows!r}") from None
        object.__setattr__(self, "rows", rows)
        if self.hands is not None:
            try:
                hands = tuple(tuple(hand) for hand in self.hands)
            except TypeError:
                raise InvalidDeal(f"hands must be one list of cards per seat, not {self.hands!r}") from None
            object.__setattr__(self, "hands", hands)
