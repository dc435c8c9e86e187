"""A finished round, as a one-round game record (docs/RECORD.md), built from what
a player saw: once a round is over every card of it is public (each seat played
all ten of its cards), so the rows dealt, the cards revealed turn by turn and the
choices made are the whole round. The client hands it to ``nimmt-replay analyse``
(a subprocess: :mod:`.round_analysis`) for the round's turning point (issue 45).

Not for a Draft round (its record holds the picks), nor a round joined part-way
(a reconnection in the middle of it): :meth:`RoundTrail.record` gives None then.
"""

from __future__ import annotations

from typing import Any

from nimmt import protocol as P

__all__ = ["RoundTrail"]


class RoundTrail:
    """The round so far, from the messages every player receives."""

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.turns: list[dict[int, int]] = []  # each turn: seat -> card
        self.choices: list[list[dict[str, Any]]] = []
        self.whole = True  # seen from the rows dealt on, nothing missed
        self._choosing: dict[int, str] = {}  # seat -> "row" or "tie"

    def broken(self) -> None:
        """Part of the round was not seen (a snapshot in the middle of it)."""
        self.whole = False

    def dealt(self, rows: tuple[tuple[int, ...], ...]) -> None:
        self.rows = [r[0] for r in rows if r]

    def revealed(self, plays: tuple[tuple[int, int], ...]) -> None:
        self.turns.append(dict(plays))
        self.choices.append([])

    def must_choose(self, seat: int, kind: str) -> None:
        self._choosing[seat] = kind

    def taken(self, m: P.RowTaken) -> None:
        if self._choosing.get(m.seat) == "row" and self.choices:
            del self._choosing[m.seat]
            self.choices[-1].append({"seat": m.seat, "row": m.row})

    def placed(self, m: P.Placed) -> None:
        if self._choosing.get(m.seat) == "tie" and self.choices:
            del self._choosing[m.seat]
            self.choices[-1].append({"seat": m.seat, "place": {"row": m.row, "end": m.end}})

    def record(self, opts: P.TableOptions, names: list[str]) -> dict[str, Any] | None:
        """The round as a record of a one-round game, or None when it cannot be one."""
        seats = len(names)
        if not self.whole or opts.draft or len(self.rows) != 4 or len(self.turns) != 10 \
                or any(sorted(t) != list(range(seats)) for t in self.turns):
            return None
        hands = [sorted(t[s] for t in self.turns) for s in range(seats)]
        turns: list[dict[str, Any]] = []
        for plays, choices in zip(self.turns, self.choices):
            turn: dict[str, Any] = {"commits": [plays[s] for s in range(seats)]}
            if choices:
                turn["choices"] = choices
            turns.append(turn)
        return {"format": "nimmt-record", "version": 1,
                "options": {"players": seats, "tactic_deck": opts.tactic_deck,
                            "professional": opts.professional, "point_limit": None,
                            "rounds": 1},
                "seats": names, "rounds": [{"hands": hands, "rows": self.rows, "turns": turns}]}
