"""The analysis of your rounds (the key A at a table, issue 45): for each decision of
a round, its turn, every card (or row, or place) with its expected bullheads to the
end of the round and their 95% interval, the one you played (▶) and the best (✓),
your loss against the best and its mark (docs/ANALYSIS.md); and the score sheet's
turning point of each round. Lines from the model's
:class:`~nimmt.client.round_analysis.AnalysedRound`, no screen needed: the layout
shows a window of them (↑/↓ scroll), ←/→ or the round's number choose the round."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..round_analysis import AnalysedRound, turning_point_line

__all__ = ["AnalysisView", "analysis_lines", "analysis_title", "analysis_foot",
           "sheet_turning_points", "ANALYSIS_KEY"]

#: The key that opens (and closes) the analysis.
ANALYSIS_KEY: Final = "A"
_DID: Final = {"card": "played", "row": "took", "tie": "placed at"}
_WHAT: Final = {"card": "card", "row": "row", "tie": "place"}
LEGEND: Final = ("▶ you played, ✓ the best; expected bullheads to the end of the round "
                 "± 95% interval; loss: how many more than the best (docs/ANALYSIS.md).")


def _wrap(text: str, width: int, more: str = "   ") -> list[str]:
    return textwrap.wrap(text, max(10, width), initial_indent=" ", subsequent_indent=more,
                         break_on_hyphens=False) or [""]


@dataclass(slots=True)
class AnalysisView:
    """The screen's state: the round shown (None: the latest analysed), the first
    line shown, the round number being typed."""

    round: int | None = None
    scroll: int = 0
    typed: str = ""

    def shown(self, analysed: Mapping[int, AnalysedRound]) -> AnalysedRound | None:
        if self.round is not None and self.round in analysed:
            return analysed[self.round]
        return analysed[max(analysed)] if analysed else None

    def move(self, delta: int, analysed: Mapping[int, AnalysedRound]) -> None:
        """←/→: the round before or after (stays at the first and the last)."""
        now = self.shown(analysed)
        if now is None:
            return
        rounds = sorted(analysed)
        i = max(0, min(rounds.index(now.round) + delta, len(rounds) - 1))
        self._go(rounds[i])

    def digit(self, d: str, analysed: Mapping[int, AnalysedRound]) -> bool:
        """A digit: that round (two digits typed one after the other: round 12);
        False when there is no such round."""
        for typed in (self.typed + d, d):
            if typed.isdigit() and int(typed) in analysed:
                self._go(int(typed))
                self.typed = typed
                return True
        self.typed = d
        return False

    def _go(self, number: int) -> None:
        if number != self.round:
            self.scroll = 0
        self.round = number
        self.typed = ""


def _decision_lines(d: dict[str, Any], width: int) -> list[str]:
    did, chosen = _DID.get(d["kind"], "chose"), d["chosen"]
    choices: list[dict[str, Any]] = d["choices"]
    head = f"Turn {d['turn']}: you {did} {chosen}"
    if len(choices) <= 1:
        head += f" · the only {_WHAT.get(d['kind'], 'choice')}"
    elif chosen == d["best"]:
        head += f" · the best {_WHAT.get(d['kind'], 'choice')}"
    else:
        head += f" · loss {d['loss']:.2f} ±{d['loss_ci95']:.2f}"
        if d["mark"]:
            head += f" · {d['mark'].upper()}"
    out = _wrap(head, width)
    label_w = max(3, max((len(c["choice"]) for c in choices), default=3))
    align = ">" if all(c["choice"].isdigit() for c in choices) else "<"  # cards: by units
    for c in choices:
        mark = ("▶" if c["choice"] == chosen else " ") + ("✓" if c["choice"] == d["best"] else " ")
        line = f"  {mark} {c['choice']:{align}{label_w}} {c['expected']:6.2f} ±{c['ci95']:.2f}"
        if c["choice"] != d["best"]:
            line += f"  loss {c['loss']:5.2f}"
        out.append(line[:width])
    return out


def analysis_lines(entry: AnalysedRound | None, width: int) -> list[str]:
    """The round's analysis in lines of at most ``width`` columns: its summary (what
    you took, the loss of your choices in all, the turning point, what the marks and
    numbers are), then each decision of yours with every choice, best first."""
    if entry is None:
        return _wrap("No round of yours has been analysed yet: each round is, once it is "
                     "over (a few seconds later).", width, " ")
    if entry.running:
        return _wrap(f"Round {entry.round} is being analysed: this page fills in when it is "
                     "ready (a few seconds; the game goes on meanwhile).", width, " ")
    rnd = entry.seat_round
    if rnd is None:
        return _wrap(entry.why or "", width, " ")
    assert entry.analysis is not None
    took = rnd.get("bullheads")
    heads = f"{rnd['expected_loss']:.2f}"
    summary = f"Round {entry.round}:"
    if took is not None:
        summary += f" you took {took} bullhead{'' if took == 1 else 's'};"
    summary += f" your choices gave away {heads} on average against the best ones."
    out = _wrap(summary, width, " ")
    line = turning_point_line(entry.round, entry.analysis)
    out += _wrap("Turning point: " + line.split(" turning point: ", 1)[1]
                 if rnd["worst"] is not None else line.split(": ", 1)[1].capitalize(),
                 width, " ")
    marks = ", ".join(f"{name} from {loss:g}" for name, loss in
                      entry.analysis.get("thresholds", {}).items())
    out += _wrap(LEGEND + (f" Marks: {marks}." if marks else ""), width, " ")
    for d in rnd["decisions"]:
        out.append("")
        out += _decision_lines(d, width)
    return out


def analysis_title(analysed: Mapping[int, AnalysedRound], view: AnalysisView) -> str:
    entry = view.shown(analysed)
    if entry is None:
        return "Analysis"
    rounds = sorted(analysed)
    where = f" of {rounds[0]}–{rounds[-1]}" if len(rounds) > 1 else ""
    return f"Analysis · round {entry.round}{where}"


def analysis_foot(analysed: Mapping[int, AnalysedRound], view: AnalysisView,
                  lines: int, height: int) -> str:
    """The keys, and where the window stands when the lines do not all fit."""
    keys = " ←/→ round · Esc closes" if len(analysed) > 1 else " Esc or A closes"
    if lines <= height:
        return keys
    first = view.scroll + 1
    return f"{keys} · ↑/↓ PgUp/PgDn: {first}–{first + height - 1} of {lines}"


def _short(entry: AnalysedRound) -> str | None:
    rnd = entry.seat_round
    if entry.running:
        return "analysing…"
    if rnd is None:
        return None
    worst = rnd["worst"]
    if worst is None:
        return "none of your decisions cost anything"
    mark = next((d["mark"] for d in rnd["decisions"]
                 if d["turn"] == worst["turn"] and d["kind"] == worst["kind"]), None)
    return (f"your {worst['chosen']} on turn {worst['turn']} cost {worst['loss']:.1f}; "
            f"{worst['best']} was best" + (f" ({mark})" if mark else ""))


def sheet_turning_points(analysed: Mapping[int, AnalysedRound], rounds: Sequence[int],
                         width: int) -> list[str]:
    """The score sheet's lines under the scores: the turning point of each of
    ``rounds`` (the newest first), "analysing…" while it runs, nothing for a round
    not analysed (the log says why); [] when there is none."""
    shown = [(n, _short(analysed[n])) for n in sorted(rounds, reverse=True) if n in analysed]
    shown = [(n, text) for n, text in shown if text is not None]
    if not shown:
        return []
    out = _wrap(f"Turning points ({ANALYSIS_KEY}: the whole round):", width, " ")
    for n, text in shown:
        out += _wrap(f"R{n:<3}{text}", width, "     ")
    return out
