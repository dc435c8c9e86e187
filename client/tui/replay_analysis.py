"""The analysis panel of a replay (``nimmt-client --replay GAME --analyse``): under the
board (beside it when the log has its own column), above the event log.

At a step where the analysed seat decided: the choices it had, each with its
expected bullheads to the end of the round and their ± (95%) interval, the one
played (▶) and the best (✓), the loss and its mark (docs/ANALYSIS.md). At other
steps the seat's last decision, so labelled; while the analysis runs, how far it
is; if it failed, why and what to do. ``a`` hides and shows it.
"""

from __future__ import annotations

import textwrap
from typing import Any, Final

from prompt_toolkit.utils import get_cwidth

from ..replay_analysis import AnalysedDecision, ReplayAnalysis
from .frags import Frags

__all__ = ["panel_lines", "analysis_of", "toggle_panel"]

_WHAT: Final = {"card": "the card", "row": "the row to take", "tie": "the tied place"}
_DONE: Final = {"card": "played", "row": "took", "tie": "placed at"}
_MARK_STYLE: Final = {"inaccuracy": "class:cost.warm", "mistake": "class:cost.hot",
                      "blunder": "class:cost.hot"}
_GAP: Final = "   "


def analysis_of(c: Any) -> ReplayAnalysis | None:
    """The analysis beside the replay controller ``c`` shows, if any."""
    replay = getattr(c, "replay", None)
    return getattr(replay, "analysis", None) if replay is not None else None


def toggle_panel(c: Any) -> None:
    """``a`` in a replay: hide or show the panel (the log gets its lines back)."""
    a = analysis_of(c)
    if a is None:
        c.status("No analysis in this replay: run nimmt-client --replay GAME --analyse.",
                 "info")
        return
    a.shown = not a.shown
    c.status("The analysis panel: shown (a hides it)." if a.shown
             else "The analysis panel: hidden (a shows it).", "info")


def _rule(text: str, width: int) -> Frags:
    head = f"─ {text} "
    return [("class:log.title", head + "─" * max(0, width - get_cwidth(head)))]


def _title(a: ReplayAnalysis, step: int, width: int) -> Frags:
    who_long = f"{a.name} (seat {a.seat + 1}" + (", the first human seat)" if a.default else ")")
    who = f"{a.name} (seat {a.seat + 1})"
    if a.state != "done":
        where = [""]
    else:
        d, here = a.at(step)
        if here and d is not None:
            where = [f" · round {d.round}, turn {d.turn}: {_WHAT[d.kind]}",
                     f" · r{d.round} turn {d.turn}: {_WHAT[d.kind]}"]
        elif d is not None:
            where = [f" · no decision at this step (last: round {d.round}, turn {d.turn})",
                     f" · no decision here; last: round {d.round}, turn {d.turn}",
                     f" · not here, last: r{d.round} t{d.turn}"]
        else:
            where = [" · no decision at this step"]
    candidates = [f"Analysis of {w}{p}" for p in where for w in (who_long, who)] + [
        f"{a.name}{where[-1]}"]
    fit = next((t for t in candidates if get_cwidth(t) + 3 <= width), candidates[-1])
    return _rule(fit, width)


def _summary(d: AnalysedDecision, width: int) -> Frags:
    """The decision in one line: the first of its wordings that fits ``width`` (with a
    column to spare, as the legend)."""
    width -= 1
    made = d.made
    did = f" {_DONE[d.kind]} {made.label}"
    if len(d.choices) == 1:
        return [("", _fitting(width, (
            f"{did}, the only choice: {made.expected:.2f} ±{made.ci95:.2f} "
            "bullheads expected to the round's end",
            f"{did}, the only choice: {made.expected:.2f} ±{made.ci95:.2f} expected",
            f"{did}, the only choice")))]
    if made.label == d.best:
        return [("", _fitting(width, (f"{did}, the best · loss 0", f"{did}: best")))]
    mark = f": {d.mark.upper()}" if d.mark else ""
    head = _fitting(width - get_cwidth(mark), (
        f"{did} · best {d.best} · loss {d.loss:.2f} ±{d.loss_ci95:.2f}",
        f"{did} · best {d.best} · loss {d.loss:.2f}",
        f"{did} · loss {d.loss:.2f}"))
    out: Frags = [("", head)]
    if d.mark:
        out += [("", ": "), (_MARK_STYLE.get(d.mark, ""), d.mark.upper())]
    return out


def _fitting(width: int, wordings: tuple[str, ...]) -> str:
    """The first of ``wordings`` (longest first) that fits in ``width`` columns, else
    the last (the panel is never narrower than the shortest)."""
    return next((w for w in wordings if get_cwidth(w) <= width), wordings[-1])


def _grid(d: AnalysedDecision, width: int) -> list[str]:
    label_w = max(get_cwidth(c.label) for c in d.choices)
    cells = [("▶" if c.label == d.chosen else "✓" if c.label == d.best else " ")
             + f"{c.label:>{label_w}} {c.expected:5.2f} ±{c.ci95:.2f}" for c in d.choices]
    cell_w = max(get_cwidth(cell) for cell in cells)
    per_line = max(1, (width - 1 + len(_GAP)) // (cell_w + len(_GAP)))
    return [" " + _GAP.join(cell.ljust(cell_w) for cell in cells[i:i + per_line]).rstrip()
            for i in range(0, len(cells), per_line)]


def _decision(d: AnalysedDecision, width: int, room: int) -> Frags:
    out = _summary(d, width)
    if len(d.choices) > 1:
        grid = _grid(d, width)
        legend = _fitting(width - 1, (
            " expected bullheads to the round's end, ±95% (▶ played, ✓ best):",
            " expected bullheads, ± (▶ played, ✓ best):",
            " ▶ played, ✓ best:"))
        if 3 + len(grid) <= room:  # (the title, the summary, the legend: else the grid first)
            out += [("", "\n"), ("class:dim", legend)]
        for line in grid:
            out += [("", "\n"), ("", line)]
    return out


def _wrapped(text: str, width: int, style: str = "") -> Frags:
    lines = textwrap.wrap(text, max(10, width - 1))
    return [(style, "\n".join(" " + line for line in lines))]


def panel_lines(a: ReplayAnalysis, step: int, width: int, room: int = 99) -> Frags:
    """The panel at replay step ``step`` (0 the first), ``width`` columns wide; in
    fewer than ``room`` lines, the choices' legend is left out."""
    out = _title(a, step, width) + [("", "\n")]
    if a.state == "running":
        text = a.progress_text()
        meanwhile = text + " (the replay goes on meanwhile)"
        return out + _wrapped(meanwhile if get_cwidth(meanwhile) < width else text, width,
                              "class:dim")
    if a.state == "failed":
        return out + _wrapped(f"The analysis failed: {a.error}", width, "class:log.error") + [
            ("", "\n")] + _wrapped(f"The replay goes on without it. {a.advice}", width)
    d, here = a.at(step)
    if d is None:
        return out + [("class:dim", f" {a.name} has not decided anything yet.")]
    body = _decision(d, width, room)
    if here:
        return out + body
    return out + [(("class:dim" if not style else style), text) for style, text, *_ in body]
