"""Telling a replayed record: readable lines (``Narrator``, ``step_lines``) and
JSON lines (``event_to_json``, ``position_set_json``, ``record_stopped_json``).
Pure: the ``nimmt-replay`` command (``nimmt.server.records.replay``) does the
reading and the printing. The JSON lines are documented in docs/RECORD.md.

>>> narrator = Narrator(["Ann", "Bob"])
>>> events = [RowsDealt((12, 37, 43, 58)), TurnStarted(1, 1), CardsRevealed(((1, 14), (0, 44))),
...           CardPlaced(1, 14, 0), CardPlaced(0, 44, 2), TurnStarted(1, 2)]
>>> for event in events:
...     for line in narrator.lines_for(event):
...         print(line)
  rows: 12 | 37 | 43 | 58
Turn 1: Ann 44, Bob 14
  Bob's 14 goes after 12 in row 0
  Ann's 44 goes after 43 in row 2
  rows: 12 14 | 37 | 43 44 | 58
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from enum import Enum
from typing import Any

from ..events import (
    CardPlaced,
    CardsRevealed,
    CommitAccepted,
    DraftOpened,
    DraftPicked,
    Event,
    GameOver,
    GameResult,
    HandDealt,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    TieChoiceNeeded,
    TurnStarted,
)
from ..moves import End, Place
from ..pending import AwaitingCommits, AwaitingDeal, AwaitingDraftPick, AwaitingRowChoice
from .format import Start, TableFacts
from .replay import Replay, Step
from .rows import follow_rows

__all__ = ["Narrator", "step_lines", "table_line", "event_to_json", "position_set_json", "record_stopped_json"]


# ----------------------------------------------------------------- readable text


def _heads(n: int) -> str:
    return f"{n} bullhead" if n == 1 else f"{n} bullheads"


def _cards(cards: Sequence[int]) -> str:
    return " ".join(map(str, cards))


def _rows(rows: Sequence[Sequence[int]]) -> str:
    return " | ".join(_cards(r) for r in rows)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class Narrator:
    """Turns events into lines of text, following the rows as they change."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.rows: list[list[int]] = [[] for _ in range(4)]
        self.turn: int | None = None
        self._revealed = False  # a turn's cards are revealed and being resolved
        self._choosing: str | None = None  # "row" or "tie" while a choice is awaited
        self._taken: RowTaken | None = None  # a row taken, told with the card that starts it

    def name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def start_lines(self, start: Start, turn: int) -> list[str]:
        """The lines for a record's hand-made starting position."""
        self.rows = [list(r) for r in start.rows]
        lines = [
            f"Start (a hand-made position): round {start.round}, turn {turn}",
            f"  rows: {_rows(self.rows)}",
        ]
        lines += [f"  {self.name(s)} holds {_cards(sorted(h))}" for s, h in enumerate(start.hands)]
        if start.totals is not None and any(start.totals):
            lines.append(
                "  totals: " + ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(start.totals))
            )
        if start.penalties is not None and any(start.penalties):
            lines.append(
                "  this round so far: "
                + ", ".join(f"{self.name(s)} {p}" for s, p in enumerate(start.penalties))
            )
        return lines

    def _end_of_turn(self) -> list[str]:
        if not self._revealed:
            return []
        self._revealed = False
        return [f"  rows: {_rows(self.rows)}"]

    def lines_for(self, event: Event) -> list[str]:
        """The lines that tell ``event`` (often none: commits are told at the reveal)."""
        lines = self._lines(event)
        follow_rows(self.rows, event)
        return lines

    def _lines(self, e: Event) -> list[str]:
        name = self.name
        if isinstance(e, RoundStarted):
            return [f"Round {e.round}"]
        if isinstance(e, HandDealt):
            return [f"  {name(e.seat)} holds {_cards(e.hand)}"]
        if isinstance(e, DraftOpened):
            return [f"  draft: {len(e.pool)} cards lie face up; {name(e.first_picker)} picks first"]
        if isinstance(e, DraftPicked):
            return [f"  {name(e.seat)} picks {e.card}"]
        if isinstance(e, RowsDealt):
            return [f"  rows: {' | '.join(map(str, e.rows))}"]
        if isinstance(e, TurnStarted):
            lines = self._end_of_turn()
            self.turn = e.turn
            return lines
        if isinstance(e, (CommitAccepted, SeatCommitted)):
            return []
        if isinstance(e, CardsRevealed):
            self._revealed = True
            plays = ", ".join(f"{name(s)} {c}" for s, c in sorted(e.plays))
            return [f"Turn {self.turn if self.turn is not None else '?'}: {plays}"]
        if isinstance(e, RowChoiceNeeded):
            self._choosing = "row"
            return [
                f"  {name(e.seat)}'s {e.card} is lower than the last card of every row: {name(e.seat)} chooses a row to take"
            ]
        if isinstance(e, TieChoiceNeeded):
            self._choosing = "tie"
            where = " and ".join(self._place_words(p) for p in e.places)
            return [
                f"  {name(e.seat)}'s {e.card} fits {where} equally well: {name(e.seat)} chooses"
            ]
        if isinstance(e, RowTaken):
            self._taken = e
            return []
        if isinstance(e, CardPlaced):
            return [self._placed(e)]
        if isinstance(e, RoundScored):
            lines = self._end_of_turn()
            lines.append(
                f"Round {e.round} bullheads: "
                + ", ".join(f"{name(s)} {p}" for s, p in enumerate(e.penalties))
            )
            lines.append("Totals: " + ", ".join(f"{name(s)} {t}" for s, t in enumerate(e.totals)))
            return lines
        if isinstance(e, GameOver):
            return self._result(e.result)
        return [f"  {type(e).__name__}"]  # pragma: no cover - an event this narrator does not know

    def _place_words(self, place: Place) -> str:
        row = self.rows[place.row]
        if place.end is End.LEFT:
            return f"before {row[0]} in row {place.row}"
        return f"after {row[-1]} in row {place.row}"

    def _placed(self, e: CardPlaced) -> str:
        who = self.name(e.seat)
        choosing, self._choosing = self._choosing, None
        taken, self._taken = self._taken, None
        end = "left end" if e.end is End.LEFT else "right end"
        if taken is not None:
            took = f"takes {_cards(taken.cards)} ({_heads(taken.bullheads)}); {e.card} starts row {e.row}"
            if choosing == "row":
                return f"  {who} chooses row {e.row} and {took}"
            prefix = f"{who} chooses the {end} of row {e.row}: " if choosing == "tie" else ""
            beside = f"before {taken.cards[0]}" if e.end is End.LEFT else f"after {taken.cards[-1]}"
            return f"  {prefix}{who}'s {e.card} would be the sixth card of row {e.row} ({beside}): {who} {took}"
        where = self._place_words(Place(e.row, e.end))
        if choosing == "tie":
            return f"  {who} chooses the {end} of row {e.row}: {e.card} goes {where}"
        return f"  {who}'s {e.card} goes {where}"

    def _result(self, result: GameResult) -> list[str]:
        order = sorted(range(len(result.totals)), key=lambda s: (result.places[s], s))
        winners = " and ".join(self.name(s) for s in result.winners)
        verb = "wins" if len(result.winners) == 1 else "win"
        places = ", ".join(
            f"{_ordinal(result.places[s])} {self.name(s)} ({_heads(result.totals[s])})"
            for s in order
        )
        return [f"Game over: {winners} {verb}. {places}"]


def step_lines(narrator: Narrator, step: Step) -> list[str]:
    """The lines that tell one replayed step."""
    if isinstance(step.action, Start):
        narrator.turn = step.turn
        return narrator.start_lines(step.action, step.turn if step.turn is not None else 0)
    return [line for event in step.events for line in narrator.lines_for(event)]


# ----------------------------------------------------------------- JSON lines


def table_line(table: TableFacts) -> str:
    """The table a record was played at, in one line (``nimmt-replay show`` prints it first).

    >>> print(table_line(TableFacts("Friday", True, 30.0, 20.0, 15.0, 60.0)))
    Table “Friday”: rated · 30 s a turn, 20 s a row or tie choice, 15 s a draft pick · a time bank of 60 s
    >>> print(table_line(TableFacts(turn_time=45.5)))
    Table: not rated · 45.5 s a turn
    """
    clock = [f"{t:g} s {what}" for t, what in ((table.turn_time, "a turn"),
                                               (table.choice_time, "a row or tie choice"),
                                               (table.draft_time, "a draft pick")) if t is not None]
    parts = ["rated" if table.rated else "not rated"]
    if clock:
        parts.append(", ".join(clock))
    if table.time_bank > 0:
        parts.append(f"a time bank of {table.time_bank:g} s")
    name = f" “{table.name}”" if table.name else ""
    return f"Table{name}: " + " · ".join(parts)


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def _jsonable(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return value


def event_to_json(event: Event) -> dict[str, Any]:
    """An engine event as a JSON object: ``{"event": "card_placed", "seat": 0, ...}``.

    >>> event_to_json(CardPlaced(0, 14, 0))
    {'event': 'card_placed', 'seat': 0, 'card': 14, 'row': 0, 'end': 'right'}
    """
    out: dict[str, Any] = {"event": _snake(type(event).__name__)}
    out.update(_jsonable(event))
    return out


def position_set_json(start: Start, turn: int | None) -> dict[str, Any]:
    """The ``position_set`` JSON line for a record's hand-made start."""
    n = len(start.hands)
    return {
        "event": "position_set",
        "round": start.round,
        "turn": turn,
        "rows": [list(r) for r in start.rows],
        "hands": [sorted(h) for h in start.hands],
        "totals": list(start.totals) if start.totals is not None else [0] * n,
        "penalties": list(start.penalties) if start.penalties is not None else [0] * n,
    }


def record_stopped_json(run: Replay) -> dict[str, Any]:
    """The ``record_stopped`` JSON line for a replay that stopped part-way."""
    game = run.game
    assert game is not None
    pending = game.pending
    out: dict[str, Any] = {"event": "record_stopped", "round": game.round, "turn": None}
    if isinstance(pending, AwaitingDeal):
        out["waiting"] = "deal"
    elif isinstance(pending, AwaitingDraftPick):
        out["waiting"] = "draft_pick"
    else:
        out["turn"] = game.turn
        if isinstance(pending, AwaitingCommits):
            out["waiting"] = "commits"
        elif isinstance(pending, AwaitingRowChoice):
            out["waiting"] = "row_choice"
        else:
            out["waiting"] = "tie_choice"
    out["seats"] = sorted(pending.seats) if pending is not None else []
    return out
