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

from nimmt import protocol as P
from nimmt.protocol import Place, TableOptions

__all__ = ["Words", "cards_text", "rows_text", "place_text", "error_hint", "ERROR_HINTS",
           "queue_words", "deadline_warning_text", "extra_time_text", "rules_words", "code_words",
           "CODE_WORDS", "BOT_LEVELS",
           "DEFAULT_BOT_LEVEL", "LEVEL_WORDS"]

#: The levels of the server's built-in bots, weakest first (protocol strings: add_bot's
#: ``strategy``, ``nimmt-server --bot-level``; docs/PROTOCOL.md).
BOT_LEVELS: Final = ("easy", "normal", "hard")
DEFAULT_BOT_LEVEL: Final = "hard"
LEVEL_WORDS: Final[dict[str, str]] = {
    "easy": "easy: plays the card least likely to take a row now",
    "normal": "normal: thinks ahead, 30 ms a card",
    "hard": "hard: thinks ahead, 100 ms a card",
}

#: Error codes in words, for when there is no message from the server to show.
CODE_WORDS: Final[dict[str, str]] = {
    "frame_too_large": "a message was larger than the protocol allows",
    "truncated": "a message was cut off",
    "bad_msgpack": "a message could not be decoded",
    "not_a_map": "a message had the wrong shape",
    "unknown_type": "a message of an unknown kind",
    "missing_field": "a message lacked a field",
    "extra_field": "a message had an unknown field",
    "wrong_type": "a message had a field of the wrong type",
    "out_of_range": "a message had a value out of range",
    "unexpected_message": "a message came at the wrong moment",
    "unsupported_version": "the protocol versions differ",
    "bad_sequence": "messages arrived out of order",
    "bad_token": "the session is unknown to the server",
    "timeout": "no answer in time",
    "rate_limited": "too many messages too fast",
    "server_full": "the server is full",
    "not_allowed": "not allowed from where you are",
    "no_such_table": "no such table",
    "table_full": "the table is full",
    "seat_taken": "that seat is taken",
    "no_such_seat": "no such seat",
    "not_host": "only the host may do that",
    "not_enough_players": "every seat must be taken first",
    "already_started": "the game has already started",
    "unknown_strategy": "no bot strategy of that name",
    "not_your_turn": "it is not your decision",
    "stale_turn": "that decision was already made",
    "illegal_card": "that card is not yours to play",
    "illegal_choice": "that choice is not offered",
    "internal_error": "the server had an internal error",
}


def code_words(code: str) -> str:
    """An error code in words (the code itself if it is unknown).

    >>> code_words("frame_too_large")
    'a message was larger than the protocol allows'
    """
    return CODE_WORDS.get(code, code.replace("_", " "))

#: What to do after each error code (shown after the server's message).
ERROR_HINTS: Final[dict[str, str]] = {
    "illegal_card": "Pick a card from your hand.",
    "illegal_choice": "Choose one of the offered options.",
    "stale_turn": "Too late: that decision was already made (perhaps by the autopilot).",
    "not_your_turn": "Nothing is asked of you right now.",
    "not_host": "Only the table's host may do that.",
    "not_enough_players": "Press a to add a bot.",
    "table_full": "Press w to watch the table instead.",
    "seat_taken": "Someone took that seat: try another.",
    "already_started": "Press w to watch it instead.",
    "no_such_table": "Press r to refresh the list.",
    "no_such_seat": "There is no such seat (or no bot in it).",
    "not_allowed": "You cannot do that from where you are.",
    "rate_limited": "Slow down a little.",
    "unknown_strategy": "Choose a bot level: easy, normal or hard (b at the table).",
    "bad_token": "The server no longer knows your earlier session: you start a new one.",
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


def extra_time_text(kind: str, remaining: float) -> str:
    """The log line of a ``deadline_warning`` that starts your extra time (time bank).

    >>> extra_time_text("commit", 40.2)
    'Your time is up: 40 seconds of extra time (your time bank) to play a card.'
    """
    what, _ = _WARNINGS.get(kind, ("to decide", "decides"))
    n = max(0, round(remaining))
    return f"Your time is up: {n} second{'' if n == 1 else 's'} of extra time (your time bank) {what}."


def rules_words(o: TableOptions) -> list[str]:
    """The rules in force, in short, as the title shows them.

    >>> rules_words(TableOptions(professional=True, tactic_deck=True))
    ['pro', 'tactic', '66 pts']
    >>> rules_words(TableOptions(draft=True, point_limit=None, rounds=3))
    ['draft', '3 rounds']
    >>> rules_words(TableOptions(rated=True))
    ['rated', '66 pts']
    >>> rules_words(TableOptions(countdown=True, point_limit=50))
    ['50 pts left']

    (with countdown the scores are the points left: "66" is not bullheads taken)
    """
    out = [word for word, on in (("rated", o.rated), ("pro", o.professional),
                                 ("tactic", o.tactic_deck), ("draft", o.draft)) if on]
    if o.countdown:
        out.append(f"{o.point_limit or 66} pts left")
    elif o.point_limit:
        out.append(f"{o.point_limit} pts")
    if o.rounds:
        out.append(f"{o.rounds} round{'' if o.rounds == 1 else 's'}")
    return out


def queue_words(q: P.Queued, waited: float = 0.0) -> str:
    """Where a player stands in the ladder queue, ``waited`` seconds after ``q`` came.

    >>> queue_words(P.Queued(seats=4, position=2, waiting=3, fill_in=30.0), 5.0)
    'rated game of 4 · 2nd of 3 waiting · bots in 25 s'
    >>> queue_words(P.Queued(seats=2, position=1, waiting=1, fill_in=None, server_full=True))
    'rated game of 2 · 1st of 1 waiting · the server is full: a table forms when one closes'
    """
    n = q.position
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    out = [f"rated game of {q.seats}", f"{n}{suffix} of {q.waiting} waiting"]
    if q.server_full:
        out.append("the server is full: a table forms when one closes")
    elif q.fill_in is not None:
        out.append(f"bots in {max(0, round(q.fill_in - waited))} s")
    return " · ".join(out)


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
