"""Phases and pending decisions: whose decision the game is waiting for.

Like OpenSpiel's ``current_player``: ``Game.pending`` is one of these values
(or ``None`` once the game is over). All of them are public information.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .moves import Place

__all__ = [
    "Phase",
    "AwaitingDeal",
    "AwaitingCommits",
    "AwaitingRowChoice",
    "AwaitingTieChoice",
    "AwaitingDraftPick",
    "Pending",
]


class Phase(str, Enum):
    DEAL = "deal"  # chance: a round's hands and rows (or, after a draft, the rows)
    DRAFT = "draft"
    COMMIT = "commit"
    ROW_CHOICE = "row_choice"
    TIE_CHOICE = "tie_choice"
    OVER = "over"

    def __repr__(self) -> str:
        return f"Phase.{self.name}"


@dataclass(frozen=True, slots=True)
class AwaitingDeal:
    """Chance decides: pass a ``Deal`` to ``Game.deal`` (or let the game's rng do it).
    ``rows_only``: after a draft, only the 4 row cards remain to be drawn."""

    round: int
    rows_only: bool

    @property
    def seats(self) -> frozenset[int]:
        return frozenset()


@dataclass(frozen=True, slots=True)
class AwaitingCommits:
    """Simultaneous move: every seat in ``waiting`` must commit a card."""

    round: int
    turn: int
    waiting: frozenset[int]
    committed: frozenset[int]

    @property
    def seats(self) -> frozenset[int]:
        return self.waiting


@dataclass(frozen=True, slots=True)
class AwaitingRowChoice:
    """``card`` fits no row: ``seat`` chooses a row (0..3) to take."""

    seat: int
    card: int

    @property
    def seats(self) -> frozenset[int]:
        return frozenset((self.seat,))


@dataclass(frozen=True, slots=True)
class AwaitingTieChoice:
    """Professional rows: ``card`` fits ``places`` equally well; ``seat`` chooses."""

    seat: int
    card: int
    places: tuple[Place, ...]

    @property
    def seats(self) -> frozenset[int]:
        return frozenset((self.seat,))


@dataclass(frozen=True, slots=True)
class AwaitingDraftPick:
    """Draft: ``seat`` takes one card of the pool (pick ``pick`` of the round, from 1)."""

    seat: int
    round: int
    pick: int

    @property
    def seats(self) -> frozenset[int]:
        return frozenset((self.seat,))


Pending = AwaitingDeal | AwaitingCommits | AwaitingRowChoice | AwaitingTieChoice | AwaitingDraftPick
