"""A seat's view: exactly what one player (or a spectator) may know.

A ``View`` is built by ``Game.view(seat)`` from public facts plus that seat's
own hand and commit; it holds no reference to the game, so passing it to a bot
or over the network cannot leak anything else.
"""

from __future__ import annotations

from dataclasses import dataclass

from .events import GameResult
from .moves import Decision
from .options import Options
from .pending import Pending, Phase

__all__ = ["View"]


@dataclass(frozen=True, slots=True)
class View:
    seat: int | None  # None: a spectator
    options: Options
    round: int
    turn: int
    phase: Phase
    hand: tuple[int, ...]  # own hand, ascending; () for a spectator
    own_commit: int | None  # own face-down card this turn, if any
    rows: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]  # bullheads per seat before this round
    penalties: tuple[int, ...]  # bullheads per seat taken this round so far
    committed: frozenset[int]  # seats with a card face down this turn
    revealed: tuple[tuple[int, int], ...]  # this turn's (seat, card), lowest card first
    unresolved: tuple[tuple[int, int], ...]  # revealed (seat, card) not placed yet
    seen: tuple[int, ...]  # every card seen face up this round, in order seen
    draft_pool: tuple[int, ...]  # Draft: the cards still to pick
    draft_picks: tuple[tuple[int, int], ...]  # Draft: (seat, card) picks this round
    pending: Pending | None
    legal: tuple[Decision, ...]  # what this seat may decide now; () if nothing
    result: GameResult | None
    # every card revealed this round, (seat, card), turn by turn (each turn
    # lowest card first): who played what is public at the table
    plays: tuple[tuple[int, int], ...] = ()

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def my_turn(self) -> bool:
        """Whether this seat has a decision to make now."""
        return bool(self.legal)
