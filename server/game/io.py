"""What goes into a ``Match`` and what comes out of it: plain, typed values.

Inputs are a protocol request from a member (``Request``), a member's
connection coming and going (``Disconnected``, ``Reconnected``) and the answer
to a bot's turn to think (``BotDecided``); the current time comes with every
call. The output of one call is an ``Effects``: the facts to persist first
(``storage.facts.Fact``), then the messages to send, and what the actor must do for the
match (charge a connection's rate, let a bot think, tell the lobby).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nimmt import protocol as P
from nimmt.engine import Decision, Record, View

from ..storage.facts import Fact

__all__ = [
    "Who",
    "Request",
    "Disconnected",
    "Reconnected",
    "BotDecided",
    "Greet",
    "Input",
    "Think",
    "Finished",
    "Effects",
]


@dataclass(frozen=True, slots=True)
class Who:
    """The session a request comes from, as the match needs to know it.

    ``id``: the session's number (stable while the session lives); ``kind``:
    ``"human"``, ``"bot"`` (a bot client) or ``"spectator"``; ``elsewhere``: the
    session is at another table; ``conn``: the number of the connection that sent
    the request (0: not known), so that what it wastes is charged to that
    connection, not to a later one of the same session.
    """

    id: int
    name: str
    kind: str
    elsewhere: bool = False
    conn: int = 0


@dataclass(frozen=True, slots=True)
class Request:
    """A protocol request for this table (``join``, ``commit``, ``create_table``...)."""

    who: Who
    msg: P.Message


@dataclass(frozen=True, slots=True)
class Disconnected:
    """A member's connection dropped at ``at`` (its grace runs from then)."""

    member: int
    at: float


@dataclass(frozen=True, slots=True)
class Reconnected:
    """A member is back on a new connection: it gets the table and a snapshot."""

    member: int


@dataclass(frozen=True, slots=True)
class BotDecided:
    """The answer to a ``Think``: ``decision`` for the decision ``key`` awaited."""

    seat: int
    key: tuple[Any, ...]
    decision: Decision


@dataclass(frozen=True, slots=True)
class Greet:
    """The match's own input, never the actor's: a member who came back while paced
    steps were being sent is greeted (``seated``/``watching``, a snapshot) once they
    are out. Until then it is connected but hears nothing (it would see steps of a
    turn its snapshot shows as done)."""

    member: int


Input = Request | Disconnected | Reconnected | BotDecided | Greet


@dataclass(frozen=True, slots=True)
class Think:
    """A strategy must decide for ``seat`` from ``view`` (that seat's view only).

    ``strategy``: a built-in bot's strategy name and ``seed``; None for the
    table's fallback strategy (the autopilot of a player whose time ran out or
    who is away). The actor answers with ``BotDecided(seat, key, decision)``,
    at once or later: every Think due is asked at once, the match goes on with
    the other seats meanwhile, and an answer for a decision no longer awaited
    is ignored.
    """

    seat: int
    key: tuple[Any, ...]
    view: View
    strategy: str | None
    seed: int | None


@dataclass(frozen=True, slots=True)
class Finished:
    """A game just ended: what to keep of it (its record names every seat and
    claims the result; ``kinds``: each seat's "human", "bot" or "builtin";
    ``started``, ``ended``: Unix times)."""

    game_no: int
    record: Record
    kinds: tuple[str, ...]
    started: float
    ended: float


@dataclass(slots=True)
class Effects:
    """The output of one call into a ``Match``, in the order to carry it out:
    persist ``facts`` (and ``finished``), then send ``sends`` (member id, message),
    then the rest. The facts are the storage's (``storage.facts``): seat changes,
    game starts, deals, every accepted decision (a replaced commit included), a
    player leaving mid-game; they are never sent to anyone."""

    facts: list[Fact] = field(default_factory=list)
    finished: Finished | None = None
    sends: list[tuple[int, P.Message]] = field(default_factory=list)
    # (member, connection) that wasted a decision: charged to that connection's rate
    charges: list[tuple[int, int]] = field(default_factory=list)
    thinks: list[Think] = field(default_factory=list)
    # (member, seat) of those who sat down or started watching (seat None)
    entered: list[tuple[int, int | None]] = field(default_factory=list)
    released: list[int] = field(default_factory=list)  # members now at no table
    # sessions whose create_table/join/watch was refused (or never handled: the table
    # closed): at no table, though never a member
    refused: list[int] = field(default_factory=list)
    changed: bool = False  # the table's public info changed (the lobby hears of it)
    started: bool = False  # a game started
    closed: str | None = None  # the table is closed (why)
