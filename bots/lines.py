"""The JSON lines a program speaks with ``nimmt-bot --exec`` and ``nimmt-arena``.

A *question* (:func:`question`) is one JSON object a line: what the seat sees and
what it is asked, with an ``id``. An *answer* (:func:`read_answer`) is one JSON
object a line: ``{"card": 42}`` or ``{"row": 2}``, which may echo the question's
``id``. docs/BOTS.md describes both for bot authors.
"""

from __future__ import annotations

import json
from typing import Any, Final

from nimmt.engine import ChooseRow, ChooseTie, Commit, Decision, DraftPick, Phase, View, row_bullheads

from .players import Ask

__all__ = ["ASK_KINDS", "GarbageLine", "question", "parse_line", "read_answer", "answer_decision"]

#: The ``ask`` of a question for each phase that asks something.
ASK_KINDS: Final = {Phase.COMMIT: "commit", Phase.ROW_CHOICE: "row", Phase.TIE_CHOICE: "tie",
                    Phase.DRAFT: "draft"}


class GarbageLine(ValueError):
    """An answer line that is not a JSON object."""


def _legal_json(decision: Decision) -> Any:
    if isinstance(decision, ChooseRow):
        return decision.row
    if isinstance(decision, ChooseTie):
        return {"row": decision.place.row, "end": decision.place.end.value}
    assert isinstance(decision, Commit | DraftPick)
    return decision.card


def question(ask: Ask, qid: int | None = None) -> dict[str, Any]:
    """The JSON object (one line) that asks the program for ``ask``'s decision;
    ``qid``: the question's ``id`` (the answer may echo it)."""
    view = ask.view
    seconds = ask.seconds_left()
    opts = view.options
    out: dict[str, Any] = {}
    if qid is not None:
        out["id"] = qid
    out.update({
        "ask": ASK_KINDS[view.phase],
        "legal": [_legal_json(d) for d in view.legal],
        "seconds_left": None if seconds is None else round(seconds, 3),
        "seat": view.seat,
        "names": list(ask.names),
        "round": view.round,
        "turn": view.turn,
        "hand": list(view.hand),
        "rows": [list(r) for r in view.rows],
        "row_bullheads": [row_bullheads(r) for r in view.rows],
        "totals": list(view.totals),
        "penalties": list(view.penalties),
        "committed": sorted(view.committed),
        "revealed": [list(p) for p in view.revealed],
        "unresolved": [list(p) for p in view.unresolved],
        "plays": [list(p) for p in view.plays],
        "seen": list(view.seen),
        "draft_pool": list(view.draft_pool),
        "draft_picks": [list(p) for p in view.draft_picks],
        "options": {"players": opts.players, "tactic_deck": opts.tactic_deck, "draft": opts.draft,
                    "professional": opts.professional, "point_limit": opts.point_limit,
                    "rounds": opts.rounds, "deck": [opts.deck[0], opts.deck[-1]]},
    })
    if view.phase in (Phase.ROW_CHOICE, Phase.TIE_CHOICE):
        out["card"] = getattr(view.pending, "card", None)
    return out


def parse_line(line: str) -> dict[str, Any]:
    """The JSON object on ``line``; raises :class:`GarbageLine` if it is not one."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        raise GarbageLine(f"not JSON: {clip(line)}") from None
    if not isinstance(data, dict):
        raise GarbageLine(f"not a JSON object: {clip(line)}")
    return data


def read_answer(view: View, line: str) -> Decision:
    """The decision an answer line stands for. Raises ``ValueError`` saying what is wrong:
    ``GarbageLine`` for a line that is not a JSON object, plain ``ValueError`` otherwise."""
    return answer_decision(view, parse_line(line), line)


def answer_decision(view: View, data: dict[str, Any], line: str = "") -> Decision:
    """The decision the answer object ``data`` (read from ``line``) stands for."""
    phase, seat = view.phase, view.seat if view.seat is not None else 0
    key = "row" if phase in (Phase.ROW_CHOICE, Phase.TIE_CHOICE) else "card"
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f'a {ASK_KINDS[phase]} is answered with {{"{key}": NUMBER}}, '
                         f"not {clip(line or json.dumps(data))}")
    decision: Decision
    if phase is Phase.TIE_CHOICE:
        places = [d for d in view.legal if isinstance(d, ChooseTie) and d.place.row == value
                  and data.get("end", d.place.end.value) == d.place.end.value]
        if not places:
            raise ValueError(f"row {value} is not one of the tied places {_legal(view)}")
        return places[0]
    if phase is Phase.ROW_CHOICE:
        decision = ChooseRow(seat, value)
    elif phase is Phase.DRAFT:
        decision = DraftPick(seat, value)
    else:
        decision = Commit(seat, value)
    if decision not in view.legal:
        raise ValueError(f"{key} {value} is not legal now: legal are {_legal(view)}")
    return decision


def _legal(view: View) -> str:
    return json.dumps([_legal_json(d) for d in view.legal])


def clip(line: str, size: int = 80) -> str:
    """``line`` quoted for a message, cut at ``size`` characters."""
    line = line.rstrip("\n")
    return repr(line if len(line) <= size else line[:size] + "...")
