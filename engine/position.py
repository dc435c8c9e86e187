"""Hand-made positions: rows and hands at the commit step of a turn.

>>> from nimmt.engine import Options
>>> Position(rows=((12,), (37,), (43,), (58,)), hands=((14,), (15,))).first_turn
10
>>> Position(rows=((1,), (2,), (3,), (4,)), hands=((5,), (5,))).check(Options(players=2))
Traceback (most recent call last):
...
nimmt.engine.errors.InvalidPosition: card 5 appears twice in the position
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import BULLHEADS
from .errors import InvalidPosition
from .options import HAND_SIZE, ROW_LIMIT, ROWS, Options

__all__ = ["Position", "most_bullheads_in_a_round"]


def _ints(values: Sequence[int] | None) -> tuple[int, ...] | None:
    return None if values is None else tuple(values)


@dataclass(frozen=True, slots=True)
class Position:
    """Where a hand-made game starts: the commit step of ``turn`` in ``round``.

    ``turn`` None means ``11 - hand size``; ``totals`` (before this round) and
    ``penalties`` (taken this round so far) default to zeros.

    ``check`` refuses what no game can reach: besides malformed rows and hands,
    totals above 0 in round 1, a total that had already reached the point limit
    (the game would have ended after the round before: "66 or more"), more
    bullheads in the totals than the rounds before could hand out, rows holding
    more cards than have been played, and more bullheads taken this round than
    the cards gone from play carry.
    """

    rows: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...] | None = None
    penalties: tuple[int, ...] | None = None
    round: int = 1
    turn: int | None = None

    @classmethod
    def of(
        cls,
        rows: Sequence[Sequence[int]],
        hands: Sequence[Sequence[int]],
        totals: Sequence[int] | None = None,
        penalties: Sequence[int] | None = None,
        round: int = 1,
        turn: int | None = None,
    ) -> Position:
        """A position from any sequences (lists from JSON, say)."""
        return cls(
            tuple(tuple(r) for r in rows),
            tuple(tuple(h) for h in hands),
            _ints(totals),
            _ints(penalties),
            round,
            turn,
        )

    @property
    def first_turn(self) -> int:
        if self.turn is not None:
            return self.turn
        return HAND_SIZE - (len(self.hands[0]) if self.hands else 0) + 1

    def check(self, options: Options) -> None:
        """Raise ``InvalidPosition`` unless this position can occur under ``options``."""
        n = options.players
        if len(self.hands) != n:
            raise InvalidPosition(f"{n} players need {n} hands, got {len(self.hands)}")
        if len(self.rows) != ROWS:
            raise InvalidPosition(f"there are {ROWS} rows, got {len(self.rows)}")
        sizes = {len(h) for h in self.hands}
        if len(sizes) != 1 or not 1 <= min(sizes) <= HAND_SIZE:
            raise InvalidPosition(f"hands must all hold the same number of cards (1 to {HAND_SIZE})")
        for index, row in enumerate(self.rows):
            if not 1 <= len(row) <= ROW_LIMIT:
                raise InvalidPosition(f"row {index} holds {len(row)} cards; a row holds 1 to {ROW_LIMIT}")
        deck = set(options.deck)
        cards = [c for h in self.hands for c in h] + [c for r in self.rows for c in r]
        seen: set[int] = set()
        for card in cards:
            if type(card) is not int or card not in deck:
                raise InvalidPosition(f"card {card!r} is not in the deck in use (1 to {len(deck)})")
            if card in seen:
                raise InvalidPosition(f"card {card} appears twice in the position")
            seen.add(card)
        for index, row in enumerate(self.rows):
            if any(a >= b for a, b in zip(row, row[1:], strict=False)):
                raise InvalidPosition(f"row {index} {list(row)} is not ascending")
        if type(self.round) is not int or not 1 <= self.round <= (options.rounds or 1000):
            raise InvalidPosition(f"round must be 1 to {options.rounds or 1000}, not {self.round!r}")
        hand_size = len(self.hands[0])
        last_turn = HAND_SIZE - hand_size + 1
        if self.turn is not None and (type(self.turn) is not int or not 1 <= self.turn <= last_turn):
            raise InvalidPosition(
                f"with {hand_size} cards in hand the turn is 1 to {last_turn}, not {self.turn!r}"
            )
        for name in ("totals", "penalties"):
            values = getattr(self, name)
            if values is None:
                continue
            if len(values) != n or any(type(v) is not int or v < 0 for v in values):
                raise InvalidPosition(f"{name} needs one whole number of bullheads (0 or more) per seat ({n})")
        self._check_scores(options, set(seen))

    def _check_scores(self, options: Options, in_position: set[int]) -> None:
        totals = self.totals or ()
        if self.round == 1 and any(totals):
            raise InvalidPosition(
                f"totals {list(totals)} in round 1: totals count earlier rounds, so they are 0 in round 1 "
                "(give round 2 or later, or put this round's bullheads in penalties)"
            )
        limit = options.point_limit
        if limit is not None and totals and max(totals) >= limit:
            raise InvalidPosition(
                f"a total of {max(totals)} had reached the point limit ({limit}), so the game ended "
                f"after round {self.round - 1}: totals at the start of a round are below the limit"
            )
        per_round = most_bullheads_in_a_round(options)
        if sum(totals) > per_round * (self.round - 1):
            raise InvalidPosition(
                f"totals {list(totals)} add up to {sum(totals)} bullheads, but {self.round - 1} round(s) "
                f"hand out at most {per_round * (self.round - 1)} ({per_round} a round)"
            )
        played = ROWS + options.players * (self.first_turn - 1)
        on_rows = sum(len(row) for row in self.rows)
        if on_rows > played:
            raise InvalidPosition(
                f"the rows hold {on_rows} cards, but at the start of turn {self.first_turn} only "
                f"{played} have reached the table (the {ROWS} that start the rows and "
                f"{options.players} a turn before it)"
            )
        taken = played - on_rows
        gone = sorted((BULLHEADS[c] for c in options.deck if c not in in_position), reverse=True)
        most = sum(gone[:taken])
        penalties = self.penalties or ()
        if sum(penalties) > most:
            raise InvalidPosition(
                f"penalties {list(penalties)} add up to {sum(penalties)} bullheads, but the {taken} "
                f"card(s) taken so far this round carry at most {most}"
            )


def most_bullheads_in_a_round(options: Options) -> int:
    """The most bullheads one round can hand out under ``options``.

    Of the ``10 * players + 4`` cards in play, at least one per row stays on the
    table, so at most the ``10 * players`` heaviest cards of the deck are taken.

    >>> most_bullheads_in_a_round(Options(players=10))  # all 104 cards carry 171
    167
    >>> most_bullheads_in_a_round(Options(players=2))
    79
    """
    heaviest = sorted((BULLHEADS[c] for c in options.deck), reverse=True)
    return sum(heaviest[: options.players * HAND_SIZE])
