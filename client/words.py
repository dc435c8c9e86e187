"""How the client says things: names, cards, rows, places, error hints.

Rows are shown to people as 1..4 (the wire numbers them 0..3).

>>> cards_text([12, 14, 15])
'12 14 15'
>>> rows_text([[10], [37, 40], [], [55]])
'1: 10 | 2: 37 40 | 3: – | 4: 55'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from nimmt.protocol import Place

__all__ = ["Words", "cards_text", "rows_text", "place_text", "error_hint", "ERROR_HINTS",
           "deadline_warning_text"]

#: What to do after each error code (shown after the server's message).
ERROR_HINTS: Final[dict[str, str]] = {
    "illegal_card": "Pick a card from your hand.",
    "illegal_choice": "Choose one of the offered options.",
    "stale_turn": "Too late: that decision was already made (perhaps by the autopilot).",
    "not_your_turn": "Nothing is asked of you right now.",
    "not_host": "Only the table's host may do that.",
    "not_enough_players": "Fill the empty seats first (a: add a bot).",
    "table_full": "Every seat is taken: watch the table instead (w).",
    "seat_taken": "Someone took that seat: try another.",
    "already_started": "The game is running: watch it instead (w).",
    "no_such_table": "That table is gone: refresh the list (r).",
    "no_such_seat": "There is no such seat (or no bot in it).",
    "not_allowed": "You cannot do that from where you are.",
    "rate_limited": "Slow down a little.",
    "unknown_strategy": "Choose another bot strategy.",
    "bad_token": "Your old session had expired: you start a new one.",
    "unexpected_message": "That is not possible at this moment.",
}


#: deadline_warning.kind -> (what you must do, what the autopilot does after the deadline).
_WARNINGS: Final[dict[str, tuple[str, str]]] = {
    "commit": ("to play a card", "plays one"),
    "row": ("to choose the row you take", "takes the cheapest row"),
    "tie": ("to choose where your card goes", "chooses"),
    "draft": ("to pick a card", "picks one"),
}


def deadline_warning_text(kind: str, remaining: float) -> str:
    """The log line of a ``deadline_warning``.

    >>> deadline_warning_text("commit", 4.97)
    '5 seconds left to play a card — the autopilot plays one for you after that.'
    >>> deadline_warning_text("draft", 1.2)
    '1 second left to pick a card — the autopilot picks one for you after that.'
    """
    what, autopilot = _WARNINGS.get(kind, ("to decide", "decides"))
    n = max(0, round(remaining))
    return (f"{n} second{'' if n == 1 else 's'} left {what} — the autopilot {autopilot} "
            "for you after that.")


def error_hint(code: str) -> str:
    return ERROR_HINTS.get(code, "")


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(str(c) for c in cards)


def rows_text(rows: Sequence[Sequence[int]]) -> str:
    return " | ".join(f"{i + 1}: {cards_text(r) if r else '–'}" for i, r in enumerate(rows))


def place_text(place: Place, rows: Sequence[Sequence[int]]) -> str:
    """``"after 32 in row 1"`` / ``"before 36 in row 3"`` for a place (wire row)."""
    row = rows[place.row] if place.row < len(rows) else []
    n = place.row + 1
    if not row:
        return f"to row {n}"
    if place.end == "left":
        return f"before {row[0]} in row {n}"
    return f"after {row[-1]} in row {n}"


@dataclass(frozen=True, slots=True)
class Words:
    """Names seats from the reader's point of view: "You take" / "Ann takes"."""

    name_of: Callable[[int], str]
    me: int | None

    def subject(self, seat: int, *, mid: bool = False) -> str:
        """The seat as a sentence's subject; ``mid``: not at the start of the sentence."""
        if seat == self.me:
            return "you" if mid else "You"
        return self.name_of(seat)

    def possessive(self, seat: int) -> str:
        if seat == self.me:
            return "Your"
        name = self.name_of(seat)
        return f"{name}'" if name.endswith("s") else f"{name}'s"

    def verb(self, seat: int, third: str, second: str) -> str:
        return second if seat == self.me else third
