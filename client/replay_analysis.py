"""The coach's analysis beside a replay (``nimmt-client --replay GAME --analyse``).

Sans-IO: which seat is analysed, at which step of the replay each of its
decisions was made, and the analysis as it arrives (the progress of ``nimmt-replay
analyse``, then its ``--json``; :mod:`.replay_analyser` runs the command).

A decision belongs to the step where it shows on the board, matched by round and
turn: a card of turn *t* to the step that reveals turn *t*'s cards (the seat's card
among them), a row to take to the step that asks the seat for it, a tied place
likewise. The steps after it show it as the seat's last decision.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from nimmt import protocol as P
from nimmt.protocol import Message

__all__ = ["AnalysisChoice", "AnalysedDecision", "ReplayAnalysis", "decision_steps",
           "first_human_seat", "read_decisions", "AnalysisFormatError"]

#: What ``nimmt-replay analyse --json`` writes (docs/ANALYSIS.md, "The JSON").
FORMAT: Final = "nimmt-analysis"
VERSION: Final = 1
#: The progress bar the command draws: ``analysing [###...] 12/40 decisions``.
_PROGRESS: Final = re.compile(r"(\d+)/(\d+) decisions")
_ROW: Final = re.compile(r"row (\d)( left| right)?")

Key = tuple[int, int, str]  # (round, turn, kind)


class AnalysisFormatError(ValueError):
    """The analysis JSON is not what ``nimmt-replay analyse --json`` writes."""


@dataclass(frozen=True, slots=True)
class AnalysisChoice:
    """One legal choice: a card ``"86"``, ``"row 2"``, ``"row 1 left"``."""

    label: str
    expected: float
    ci95: float
    loss: float
    hindsight: int | None


@dataclass(frozen=True, slots=True)
class AnalysedDecision:
    """One decision of the seat, its choices best first."""

    round: int
    turn: int
    kind: str  # "card", "row" or "tie"
    chosen: str
    best: str
    loss: float
    loss_ci95: float
    mark: str | None
    choices: tuple[AnalysisChoice, ...]

    @property
    def key(self) -> Key:
        return (self.round, self.turn, self.kind)

    @property
    def made(self) -> AnalysisChoice:
        return next(c for c in self.choices if c.label == self.chosen)


def client_label(label: str) -> str:
    """A choice as the client says it: the JSON numbers rows 0 to 3 (as ``nimmt-replay
    show`` does), the board 1 to 4: ``"row 0"`` is ``"row 1"``, ``"row 3 left"``
    ``"row 4 left"``; a card stays as it is."""
    m = _ROW.fullmatch(label)
    return f"row {int(m.group(1)) + 1}{m.group(2) or ''}" if m else label


def read_decisions(data: Any, seat: int) -> list[AnalysedDecision]:
    """The decisions of ``seat`` in an analysis JSON object, in game order (rows
    numbered as the board numbers them: :func:`client_label`)."""
    try:
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise AnalysisFormatError(
                f"not a {FORMAT} version {VERSION} object (format {data.get('format')!r}, "
                f"version {data.get('version')!r})")
        seats = [s for s in data["seats"] if s["seat"] == seat]
        if not seats:
            raise AnalysisFormatError(f"the analysis has no seat {seat}")
        out = []
        for rnd in seats[0]["rounds"]:
            for d in rnd["decisions"]:
                choices = tuple(AnalysisChoice(client_label(str(c["choice"])), float(c["expected"]),
                                               float(c["ci95"]), float(c["loss"]),
                                               c["hindsight"]) for c in d["choices"])
                decision = AnalysedDecision(int(d["round"]), int(d["turn"]), str(d["kind"]),
                                            client_label(str(d["chosen"])),
                                            client_label(str(d["best"])), float(d["loss"]),
                                            float(d["loss_ci95"]), d["mark"], choices)
                if decision.chosen not in {c.label for c in choices}:
                    raise AnalysisFormatError(f"round {decision.round}, turn {decision.turn}: "
                                              f"the choice made ({decision.chosen}) is not listed")
                out.append(decision)
        return out
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, AnalysisFormatError):
            raise
        raise AnalysisFormatError(f"the analysis JSON lacks or garbles {exc}") from None


def decision_steps(messages: Sequence[Message], steps: Sequence[int], seat: int) -> dict[Key, int]:
    """Where each decision of ``seat`` shows in a replay of ``messages`` whose step
    ``k`` ends before message ``steps[k]`` (:class:`~nimmt.client.replay.ReplayPlayer`):
    (round, turn, kind) to the step."""
    out: dict[Key, int] = {}
    rnd = turn = 0
    for i, msg in enumerate(messages):
        kind = None
        if isinstance(msg, P.RoundStarted):
            rnd, turn = msg.round, 0
        elif isinstance(msg, (P.TurnStarted, P.Snapshot)):
            rnd, turn = msg.round, msg.turn
        elif isinstance(msg, P.Revealed) and any(s == seat for s, _ in msg.plays):
            kind = "card"
        elif isinstance(msg, P.RowChoiceNeeded) and msg.seat == seat:
            kind = "row"
        elif isinstance(msg, P.TieChoiceNeeded) and msg.seat == seat:
            kind = "tie"
        if kind is not None:
            out[(rnd, turn, kind)] = bisect.bisect_right(steps, i)
    return out


def _table_seats(messages: Sequence[Message]) -> Sequence[Any]:
    table = getattr(messages[0], "table", None) if messages else None
    return table.seats if table is not None else ()


def first_human_seat(messages: Sequence[Message]) -> int:
    """The first seat a person played (a game a server kept knows its bots; a record
    file does not: every seat counts as a person there); seat 0 if all were bots."""
    return next((s for s, info in enumerate(_table_seats(messages)) if info.kind == "human"), 0)


def seat_count(messages: Sequence[Message]) -> int:
    return len(_table_seats(messages))


class ReplayAnalysis:
    """The analysis of ``seat`` beside a replay: running (with its progress), done
    (each step's decision) or failed (``error`` says why). ``default``: the seat was
    not asked for (the first human seat), which the panel says."""

    def __init__(self, messages: Sequence[Message], steps: Sequence[int], seat: int,
                 default: bool = False) -> None:
        self.seat = seat
        seats = _table_seats(messages)
        self.name = seats[seat].name if seat < len(seats) else f"seat {seat + 1}"
        self.default = default
        self.step_of = decision_steps(messages, steps, seat)
        #: the decisions' keys in the order the command analyses them (game order)
        self.order = sorted(self.step_of, key=lambda k: (self.step_of[k], k))
        self.rounds = sorted({k[0] for k in self.order})
        self.state = "running"
        self.done = 0
        self.total: int | None = None
        self.error: str | None = None
        #: each step with a decision: that decision (once the analysis is done)
        self.at_step: dict[int, AnalysedDecision] = {}
        self._steps_with: list[int] = []
        #: whether the panel shows (a key hides it to give the log its room back)
        self.shown = True
        #: what to do when the analysis fails (the command to run by hand)
        self.advice = (f"To see the whole error, run: nimmt-replay analyse GAME --seat {seat}")

    def progress(self, text: str) -> bool:
        """Take what the command wrote on its terminal; True if the progress moved."""
        found = _PROGRESS.findall(text)
        if not found or self.state != "running":
            return False
        done, total = (int(x) for x in found[-1])
        if (done, total) == (self.done, self.total):
            return False
        self.done, self.total = done, total
        return True

    def finish(self, data: Any) -> None:
        """The command's JSON: each decision put at its step. A decision the replay
        does not show is an error (the record and the replay would disagree)."""
        try:
            decisions = read_decisions(data, self.seat)
        except AnalysisFormatError as exc:
            self.fail(str(exc))
            return
        missing = [d for d in decisions if d.key not in self.step_of]
        if missing:
            d = missing[0]
            self.fail(f"its round {d.round}, turn {d.turn} ({d.kind}) is at no step of the "
                      "replay")
            return
        self.at_step = {self.step_of[d.key]: d for d in decisions}
        self._steps_with = sorted(self.at_step)
        self.state = "done"

    def fail(self, why: str) -> None:
        self.state, self.error = "failed", why

    def at(self, step: int) -> tuple[AnalysedDecision | None, bool]:
        """The decision made at ``step`` (and True), else the seat's last one before it
        (and False), else (None, False)."""
        if step in self.at_step:
            return self.at_step[step], True
        i = bisect.bisect_left(self._steps_with, step)
        return (self.at_step[self._steps_with[i - 1]] if i else None), False

    def progress_text(self) -> str:
        """Where the running analysis is: its round and decisions so far."""
        who = f"{self.name} (seat {self.seat + 1})"
        if self.total is None:
            return f"analysing {who}'s decisions…"
        count = f"{self.done} of {self.total} decisions"
        if self.total == len(self.order) and self.rounds:
            rnd = self.order[min(self.done, self.total - 1)][0]
            return f"analysing {who}: round {rnd} of {self.rounds[-1]}, {count}…"
        return f"analysing {who}: {count}…"
