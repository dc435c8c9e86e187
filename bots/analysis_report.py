"""The coach's analysis in words and as JSON (``nimmt-replay analyse``).

``analysis_json`` is the ``--json`` output (docs/ANALYSIS.md describes every
field); ``analysis_lines`` the text, a seat at a time: each decision with the
choice made, its expected bullheads, the best choice and the loss, a mark;
the choices in order; then per round the expected loss in all, the decision
that cost most, and what the cards really cost (hindsight, labelled so). A
Draft round's picks come first, each marked "not analysed", with the reason.
"""

from __future__ import annotations

from typing import Any

from .analysis import (
    THRESHOLDS,
    Choice,
    DecisionAnalysis,
    GameAnalysis,
    PickNotAnalysed,
    RoundAnalysis,
)

__all__ = ["analysis_json", "analysis_lines", "turning_point"]

FORMAT = "nimmt-analysis"
VERSION = 1


def _r(x: float) -> float:
    return round(x, 2)


def _choice_json(c: Choice) -> dict[str, Any]:
    return {"choice": c.label, "expected": _r(c.expected), "ci95": _r(c.ci95),
            "loss": _r(c.loss), "loss_ci95": _r(c.loss_ci95), "hindsight": c.hindsight}


def _decision_json(d: DecisionAnalysis) -> dict[str, Any]:
    made = d.made
    return {"round": d.round, "turn": d.turn, "kind": d.kind, "samples": d.samples,
            "chosen": made.label, "best": d.best.label, "loss": _r(made.loss),
            "loss_ci95": _r(made.loss_ci95), "mark": d.mark,
            "choices": [_choice_json(c) for c in d.options]}


def _pick_json(p: PickNotAnalysed) -> dict[str, Any]:
    return {"kind": "pick", "pick": p.pick, "chosen": str(p.chosen), "choices": p.choices,
            "kept": list(p.kept), "reason": p.reason}


def _round_json(r: RoundAnalysis) -> dict[str, Any]:
    worst = r.worst
    return {"round": r.round, "expected_loss": _r(r.expected_loss), "bullheads": r.bullheads,
            "worst": None if worst is None else {"turn": worst.turn, "kind": worst.kind,
                                                 "chosen": worst.made.label,
                                                 "best": worst.best.label,
                                                 "loss": _r(worst.loss)},
            "decisions": [_decision_json(d) for d in r.decisions],
            "not_analysed": [_pick_json(p) for p in r.not_analysed]}


def analysis_json(analysis: GameAnalysis) -> dict[str, Any]:
    """The analysis as one JSON object (bullheads rounded to 0.01)."""
    return {"format": FORMAT, "version": VERSION, "samples": analysis.samples,
            "seed": analysis.seed, "thresholds": dict(THRESHOLDS),
            "seats": [{"seat": s.seat, "name": s.name,
                       "rounds": [_round_json(r) for r in s.rounds]} for s in analysis.seats]}


def _heads(x: float) -> str:
    return f"{x:.1f} bullhead" + ("" if f"{x:.1f}" == "1.0" else "s")


def turning_point(r: RoundAnalysis, you: str = "Your") -> str:
    """The round's costliest decision in one sentence ("Your 86 on turn 8 cost 4.2
    bullheads on average; 94 was the best card.")."""
    worst = r.worst
    if worst is None:
        return f"Round {r.round}: no decision cost anything on average."
    what = {"card": "card", "row": "row to take", "tie": "place"}[worst.kind]
    chosen = worst.made.label
    return (f"{you} {chosen} on turn {worst.turn} cost {_heads(worst.loss)} on average; "
            f"{worst.best.label} was the best {what}.")


def _hindsight_line(r: RoundAnalysis) -> str | None:
    if r.bullheads is None:
        return None
    line = f"  hindsight (the others' real cards, public now): you took {r.bullheads} bullhead{'' if r.bullheads == 1 else 's'} this round"
    worst = r.worst
    if worst is not None and worst.made.hindsight is not None:
        best_real = min(worst.options, key=lambda c: (c.hindsight if c.hindsight is not None
                                                       else 1 << 30))
        line += (f"; your {worst.made.label} on turn {worst.turn} really cost "
                 f"{worst.made.hindsight}, {worst.best.label} would have cost "
                 f"{worst.best.hindsight}")
        if best_real.hindsight is not None and best_real.hindsight < (worst.best.hindsight or 0):
            line += f" ({best_real.label}: {best_real.hindsight}, a guess nobody could make)"
    return line + "."


def _decision_lines(d: DecisionAnalysis) -> list[str]:
    made = d.made
    what = {"card": "played", "row": "took", "tie": "placed at"}[d.kind]
    head = f"  turn {d.turn:>2}  {what} {made.label:<11} expected {made.expected:5.2f} ±{made.ci95:.2f}"
    if len(d.options) == 1:
        return [head + "   (the only choice)" + (f" [{made.hindsight}]" if made.hindsight
                                                  is not None else "")]
    if made is d.best:
        head += "   best"
    else:
        head += (f"   best {d.best.label} ({d.best.expected:.2f})   loss {made.loss:.2f} "
                 f"±{made.loss_ci95:.2f}")
    if d.mark:
        head += f"   {d.mark.upper()}"
    choices = "  ".join(f"{c.label} {c.expected:.1f}±{c.ci95:.1f}" + (
        f" [{c.hindsight}]" if c.hindsight is not None else "") for c in d.options)
    return [head, f"           choices: {choices}"]


def analysis_lines(analysis: GameAnalysis) -> list[str]:
    """The analysis as text."""
    marks = ", ".join(f"{name} from {threshold:g}" for name, threshold in THRESHOLDS)
    out = [f"Analysis: {analysis.samples} deals a choice at first (seed {analysis.seed}); "
           "expected bullheads to the end of the round from the seat's view at the time, "
           "±: 95% interval; [n]: hindsight, what it really cost against the cards the others "
           f"held. Marks by the loss against the best choice: {marks} bullheads "
           "(docs/ANALYSIS.md)."]
    for seat in analysis.seats:
        for r in seat.rounds:
            out.append("")
            out.append(f"{seat.name} (seat {seat.seat}), round {r.round}")
            for p in r.not_analysed:
                out.append(f"  pick {p.pick:>2}  picked {p.chosen:<4} from {p.choices:>3} cards"
                           "   not analysed")
            if r.not_analysed:
                out.append(f"  picks not analysed: {r.not_analysed[0].reason} (docs/ANALYSIS.md)")
            for d in r.decisions:
                out.extend(_decision_lines(d))
            picks = " (the picks not counted)" if r.not_analysed else ""
            out.append(f"  expected loss this round{picks}: {_heads(r.expected_loss)}. "
                       + turning_point(r))
            hind = _hindsight_line(r)
            if hind is not None:
                out.append(hind)
    return out
