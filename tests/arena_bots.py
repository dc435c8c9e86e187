"""Bots for the arena tests: Python functions seated by ``py:tests/arena_bots.py:NAME``,
and a program in Python speaking the JSON lines (run as a script)."""

from __future__ import annotations

import json
import sys


def lowest(view):
    """The lowest legal answer: a card, a row, a place (deterministic)."""
    return view.legal[0]


def fails_on_draws(view):
    """Raises on every row choice: the arena counts it and the fallback decides."""
    if view.phase.value == "row_choice":
        raise RuntimeError("no idea which row")
    return view.legal[-1]


if __name__ == "__main__":  # the same as ``lowest``, over JSON lines
    for line in sys.stdin:
        q = json.loads(line)
        choice = q["legal"][0]
        key = "row" if q["ask"] in ("row", "tie") else "card"
        print(json.dumps({"id": q["id"], key: choice["row"] if isinstance(choice, dict) else choice}),
              flush=True)
