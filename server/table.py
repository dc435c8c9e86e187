"""A table's actor: one trio task that feeds its ``Match`` and carries out what it says.

The game flow itself (seats, the private ``Game``, deadlines, pacing) is the
sans-IO ``match.Match``; this task only moves things in and out of it:

* requests come through a bounded inbox (``Table.request``); a connection's
  comings and goings through a short queue that is never refused;
* the task waits for the next input or for ``match.next_wake()`` with
  ``trio.move_on_at``: no polling, and never a sleep in the middle of a request;
* each call's ``Effects`` are carried out in order: facts, then messages into
  each connection's bounded queue (``Session.send``, which never blocks), then
  the rest; a built-in bot's ``Think`` is answered and fed back as a
  ``BotDecided``: at once for the cheap strategies, and for the timed ones
  (``nimmt.bots.TIMED``: search, mcs) by a worker process of the lobby's
  ``ThinkPool`` (``thinking``), awaited in a task of this table's own: the
  table, its clock and every other table go on meanwhile. A worker that fails
  or is late gets the decision made by a cheap strategy instead.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Protocol

import trio

from nimmt import protocol as P
from nimmt.bots import TIMED, HeuristicStrategy, Strategy, make_strategy, parse_strategy

from .config import TableSettings
from .match import Dealer, Match
from .match_io import BotDecided, Disconnected, Effects, Input, Reconnected, Request, Think, Who
from .room import SeatState
from .session import Session
from .thinking import ThinkFailed, ThinkPool

__all__ = ["Table", "LobbyHooks", "INBOX_SIZE"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode

#: requests waiting for one table; more: refused (the sender is flooding it)
INBOX_SIZE = 1024


class LobbyHooks(Protocol):
    """What a table tells its lobby (``server.lobby.Lobby``)."""

    dealer: Dealer | None
    thinker: ThinkPool | None  # None: every strategy decides in the table's task

    @property
    def stopping(self) -> bool: ...
    def table_changed(self, table: Table) -> None: ...
    def table_started(self, table: Table) -> None: ...
    def table_closed(self, table: Table) -> None: ...
    def after_leave(self, session: Session) -> None: ...


class Table:
    """One table: the actor around a ``Match``."""

    def __init__(self, lobby: LobbyHooks, table_id: str, name: str, settings: TableSettings,
                 *, persistent: bool = False, autostart: bool = False,
                 seed: int | None = None) -> None:
        self.lobby = lobby
        self.id = table_id
        self.match = Match(table_id, name, settings, now=trio.current_time(),
                           persistent=persistent, autostart=autostart, seed=seed,
                           dealer=lobby.dealer)
        self._sessions: dict[int, Session] = {}  # sid -> session, for the members
        self._inbox_send, self._inbox = trio.open_memory_channel[
            tuple[Session, Input] | None](INBOX_SIZE)
        self._notices: deque[tuple[Session, Input]] = deque()
        # (seat, strategy, seed) -> the built-in bot, made at its first turn
        self._bots: dict[tuple[int, str, int | None], Strategy] = {}
        self._thinks: deque[Think] = deque()
        self._answers: deque[BotDecided] = deque()  # from the workers, not fed yet
        self._fallback = make_strategy(settings.fallback)
        self._think_tasks: trio.Nursery | None = None
        self._closed = trio.Event()

    def __repr__(self) -> str:
        return f"<Table {self.id} {self.match.status}>"

    # ------------------------------------------------------------------ queries
    @property
    def closed(self) -> bool:
        return self.match.closed

    @property
    def status(self) -> str:
        return self.match.status

    @property
    def seats(self) -> list[SeatState | None]:
        return self.match.seats

    def info(self) -> P.TableInfo:
        return self.match.info()

    def place_bot(self, index: int, strategy: str, name: str | None) -> None:
        """Seat a built-in bot before the table runs (the caller checked the seat is free)."""
        self.match.place_bot(index, strategy, name)

    # ------------------------------------------------------------------ inputs
    def request(self, session: Session, msg: P.Message) -> None:
        """Hand ``session``'s request to the table's task (never blocks)."""
        if self.closed:
            session.send(P.Error(code=E.NO_SUCH_TABLE, message="the table is closed",
                                 request=msg.TYPE, re=msg.id))
            return
        try:
            self._inbox_send.send_nowait((session, Request(_who(session), msg)))
        except trio.WouldBlock:
            session.send(P.Error(code=E.RATE_LIMITED, request=msg.TYPE, re=msg.id,
                                 message="the table has too many requests waiting: "
                                 "send fewer"))
        except trio.ClosedResourceError:  # pragma: no cover - closed meanwhile
            pass

    def resumed(self, session: Session) -> None:
        """``session`` (a member) has a new connection."""
        self._notice(session, Reconnected(session.sid))

    def disconnected(self, session: Session) -> None:
        """``session`` (a member) lost its connection."""
        at = session.lost_at if session.lost_at is not None else trio.current_time()
        self._notice(session, Disconnected(session.sid, at))

    def _notice(self, session: Session, item: Input) -> None:
        if self.closed:
            return
        self._notices.append((session, item))
        try:
            self._inbox_send.send_nowait(None)  # wake the task
        except (trio.WouldBlock, trio.ClosedResourceError):
            pass  # it has inputs waiting anyway: it reads the notices first

    # ------------------------------------------------------------------ the task
    async def run(self) -> None:
        """The table's actor: inputs and timers, until the table is closed."""
        async with trio.open_nursery() as self._think_tasks:  # the bots thinking away
            await self._run()
            self._think_tasks.cancel_scope.cancel()  # late answers are not awaited
        self._think_tasks = None

    async def _run(self) -> None:
        match = self.match
        log.info("table=%s opened: %r, %s seats, options %s", self.id, match.name,
                 len(match.seats), match.describe_options())
        try:
            wake = match.next_wake()
            while not match.closed:
                item = None
                with trio.move_on_at(wake):
                    item = await self._inbox.receive()
                session = item[0] if item is not None else None
                try:
                    while self._notices and not match.closed:
                        self._feed(*self._notices.popleft())
                    while self._answers and not match.closed:
                        self._carry_out(match.handle(self._answers.popleft(),
                                                     trio.current_time(), time.time()))
                    if item is not None and not match.closed:
                        self._feed(*item)
                    now = trio.current_time()
                    if not match.closed and now >= match.next_wake():
                        self._carry_out(match.wake(now, time.time()))
                    await self._think()
                    wake = match.next_wake()
                except Exception:
                    # A bug must not take the server (or any other table) down.
                    log.exception("table=%s internal error", self.id)
                    if item is not None and isinstance(item[1], Request):
                        msg = item[1].msg
                        assert session is not None
                        session.send(P.Error(code=E.INTERNAL_ERROR, request=msg.TYPE,
                                             re=msg.id, message="a bug in the server: "
                                             "the table is closed"))
                    self._carry_out(match.close("internal error", trio.current_time(),
                                                time.time()))
        finally:
            if not match.closed:
                why = "server shutdown" if self.lobby.stopping else "stopped"
                self._carry_out(match.close(why, trio.current_time(), time.time(),
                                            notify=False))

    def _feed(self, session: Session, item: Input) -> None:
        if isinstance(item, Request):
            # the session may have moved since it asked
            elsewhere = session.table is not None and session.table is not self
            who = item.who
            if who.elsewhere != elsewhere:
                item = Request(Who(who.id, who.name, who.kind, elsewhere), item.msg)
            self._sessions.setdefault(session.sid, session)
        self._carry_out(self.match.handle(item, trio.current_time(), time.time()))
        if session.sid not in self.match.members and not self.match.has_deferred(session.sid):
            self._sessions.pop(session.sid, None)

    async def _think(self) -> None:
        """Answer the strategies' turns (each its own loop turn: a table of bots does
        not hog the server)."""
        match = self.match
        while self._thinks and not match.closed:
            think = self._thinks.popleft()
            spec = think.strategy if think.strategy is not None else self.match.settings.fallback
            pool = getattr(self.lobby, "thinker", None)
            if pool is not None and self._think_tasks is not None and _timed(spec):
                self._think_tasks.start_soon(self._think_away, pool, think, spec)
                continue
            decision = self._strategy(think).decide(think.view)
            self._carry_out(match.handle(BotDecided(think.seat, think.key, decision),
                                         trio.current_time(), time.time()))
            await trio.lowlevel.checkpoint()

    async def _think_away(self, pool: ThinkPool, think: Think, spec: str) -> None:
        """``think`` answered by a worker process; by the heuristic if that fails."""
        try:
            decision = await pool.decide(spec, think.seed, think.view, self._think_time(think))
        except ThinkFailed as e:
            log.warning("table=%s seat=%d: %s; the heuristic decides", self.id, think.seat, e)
            decision = _EMERGENCY.decide(think.view)
        self._answers.append(BotDecided(think.seat, think.key, decision))
        try:
            self._inbox_send.send_nowait(None)  # wake the task
        except (trio.WouldBlock, trio.ClosedResourceError):
            pass  # it has inputs waiting anyway (or is closed): it reads the answers first

    def _think_time(self, think: Think) -> float:
        """As long as a person would have for this decision."""
        settings = self.match.settings
        kind = think.key[0] if think.key else "commit"
        return {"choice": settings.choice_time, "draft": settings.draft_time}.get(
            kind, settings.turn_time)

    def _strategy(self, think: Think) -> Strategy:
        if think.strategy is None:
            return self._fallback
        key = (think.seat, think.strategy, think.seed)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = make_strategy(think.strategy, think.seed)
        return bot

    def _carry_out(self, effects: Effects) -> None:
        """Do what the match said, in order."""
        # effects.facts: issue 9 writes them to disk here, before anything is sent
        sessions = self._sessions
        for sid, seat in effects.joined:
            session = sessions.get(sid)
            if session is not None:
                session.table, session.seat = self, seat
        for sid, msg in effects.sends:
            session = sessions.get(sid)
            if session is not None:
                session.send(msg)
        for sid in effects.charges:
            session = sessions.get(sid)
            if session is not None and session.client is not None:
                session.client.charge()  # a wasted decision counts against the rate
        for sid in effects.released:
            session = sessions.pop(sid, None)
            if session is not None and session.table is self:
                session.table, session.seat = None, None
                self.lobby.after_leave(session)
        if effects.thinks:
            self._thinks.extend(effects.thinks)
        if effects.started:
            self.lobby.table_started(self)
        if effects.changed:
            self.lobby.table_changed(self)
        if effects.closed is not None:
            self._thinks.clear()
            self._inbox_send.close()
            self.lobby.table_closed(self)
            self._closed.set()

    async def wait_closed(self) -> None:
        await self._closed.wait()


_EMERGENCY = HeuristicStrategy()


def _timed(spec: str) -> bool:
    """Whether ``spec`` (a level or a strategy) thinks for a while."""
    return parse_strategy(spec)[0] in TIMED


def _who(session: Session) -> Who:
    return Who(session.sid, session.name, session.kind)
