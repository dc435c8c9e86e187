"""What a table does with each input in each of its statuses: THE table (the only one),
as ``protocol/states.py`` is for a connection.

A table is ``waiting`` (for players, before its first game), ``revealing`` (its
seats are fixed and the game starts once the seats that sent a hash of their entropy
revealed it, or their time is up: docs/PROTOCOL.md, "Verifiable deals"; the wire
shows it as waiting), ``playing``, ``over`` (a game ended: players may come, go and
start again) or ``closed`` (it takes nothing more). An input is a request (by its
protocol type) or one of the actor's own: ``disconnected``, ``reconnected`` (a
member's connection), ``bot_decided`` (a strategy's answer). ``RULES[status,
input]`` is what the status makes of it:

* ``TAKEN``: carried out, unless the request itself is wrong (a seat taken, a card
  not in the hand, not the host...: the error then says that);
* ``IGNORED``: nothing happens, nobody is told (a closed table; a bot's answer when
  no game runs);
* ``Refused(code, text)``: refused with that error, whatever else the request says.

What moves the status: ``start`` (and a table filled when it starts by itself) from
``waiting`` or ``over`` to ``playing``, or to ``revealing`` when a seat's reveal is
awaited, and from there to ``playing`` once the reveals are in or their time is up;
the game's end to ``over``; everyone leaving a table that is not playing, nobody
connected for ``abandon_after`` (``keep_finished`` once over), a bug or the
server's end to ``closed`` (``NEXT`` lists them).
The match asks ``refusal`` where the status decides; tests/test_table_rules.py
enumerates the table against a ``Match``.

>>> refusal("playing", "join").code
'already_started'
>>> refusal("waiting", "commit").code
'not_allowed'
>>> RULES["closed", "leave"] is IGNORED
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["STATUSES", "INPUTS", "TAKEN", "IGNORED", "Refused", "RULES", "NEXT", "refusal"]

STATUSES: Final = ("waiting", "revealing", "playing", "over", "closed")

#: the requests a table takes (by protocol type), then the actor's own inputs
REQUESTS: Final = ("create_table", "join", "watch", "leave", "add_bot", "remove_bot", "start",
                   "chat", "commit", "choose_row", "choose_tie", "draft_pick", "pause", "resume",
                   "reveal")
INPUTS: Final = REQUESTS + ("disconnected", "reconnected", "bot_decided")

TAKEN: Final = "taken"
IGNORED: Final = "ignored"


@dataclass(frozen=True, slots=True)
class Refused:
    """Refused for the table's status: the error's code and message."""

    code: str
    text: str


STARTED: Final = Refused("already_started", "the game has started: watch it instead")
RUNNING: Final = Refused("already_started", "the game has started")
NO_GAME: Final = Refused("not_allowed", "you are not playing at this table")
NO_CLOCK: Final = Refused("not_allowed", "no game is being played: there is no clock to pause")
STARTING: Final = Refused("already_started", "the game is starting: its seats are fixed")
SEATS_FIXED: Final = Refused("not_allowed", "the game is starting: the seats stay as they are "
                             "while the reveals are made (leave once it has started)")
NO_REVEAL: Final = Refused("not_allowed", "no reveal is asked for now (the game has started, "
                           "or not every seat is taken yet)")

_DECISIONS = ("commit", "choose_row", "choose_tie", "draft_pick")
_HOST = ("add_bot", "remove_bot", "start")


def _rules() -> dict[tuple[str, str], str | Refused]:
    rules: dict[tuple[str, str], str | Refused] = {}
    for status in STATUSES:
        for name in INPUTS:
            if status == "closed":
                rules[status, name] = IGNORED
            elif name == "reveal":
                rules[status, name] = TAKEN if status == "revealing" else NO_REVEAL
            elif status == "revealing" and name in ("create_table", "join", *_HOST):
                rules[status, name] = STARTING
            elif status == "revealing" and name == "leave":
                rules[status, name] = SEATS_FIXED
            elif name in ("create_table", "join"):
                rules[status, name] = STARTED if status == "playing" else TAKEN
            elif name in _HOST:
                rules[status, name] = RUNNING if status == "playing" else TAKEN
            elif name in _DECISIONS:
                rules[status, name] = TAKEN if status == "playing" else NO_GAME
            elif name == "pause":
                rules[status, name] = TAKEN if status == "playing" else NO_CLOCK
            elif name == "bot_decided":
                rules[status, name] = TAKEN if status == "playing" else IGNORED
            else:  # watch, leave, chat, resume, a connection's coming and going: always
                rules[status, name] = TAKEN
    return rules


#: status x input -> what the table does with it
RULES: Final = _rules()

#: the statuses a table may move to from each (besides staying)
NEXT: Final = {
    "waiting": ("revealing", "playing", "closed"),
    "revealing": ("playing", "closed"),
    "playing": ("over", "closed"),
    "over": ("revealing", "playing", "closed"),
    "closed": (),
}


def refusal(status: str, name: str) -> Refused | None:
    """The error ``name`` gets for the table's ``status`` alone (None: it may go on)."""
    rule = RULES.get((status, name), IGNORED)
    return rule if isinstance(rule, Refused) else None
