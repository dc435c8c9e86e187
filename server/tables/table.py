"""A table's actor: one trio task that feeds its ``Match`` and carries out what it says.

The game flow itself (seats, the private ``Game``, deadlines, pacing) is the
sans-IO ``match.Match``; this task only moves things in and out of it:

* every input goes into one queue, in the order it came, and the match is fed in
  that order (docs/SERVER.md, "The ordering rule"): requests (``Table.request``:
  at most ``INBOX_SIZE`` waiting in all and ``QUEUE_PER_CONNECTION`` from one
  connection; more: refused with ``rate_limited`` and counted against that
  connection's rate, so a flood from one client costs the others nothing), a
  linked session's connection dropping or coming back (never refused), and the
  bots' answers;
* the task waits for the next input or for ``match.next_wake()`` with
  ``trio.move_on_at``: no polling, and never a sleep in the middle of a request;
  one turn (``step``) feeds one input and then wakes the match if its time came;
* each call's ``Effects`` are carried out in order: the sessions seated link to
  this table (before anything is awaited), the facts are written to the database
  (the latest accepted decision is on disk before anyone hears of its effects:
  while more inputs wait, effects that only write facts and send messages are
  held while the task takes them, and delivered after one wait for all their writes,
  ``deliver_held``), then messages go into each connection's bounded queue
  (``Session.send``, which never blocks), then the rest; a built-in bot's
  ``Think`` is answered and fed back as a ``BotDecided``: at once for the cheap
  strategies, and for the timed ones (``nimmt.bots.TIMED``: search, mcs) by a
  worker process of the lobby's ``ThinkPool`` (``thinking``), awaited in a task
  of this table's own: the table, its clock and every other table go on
  meanwhile. A worker that fails or is late gets the decision made by a cheap
  strategy instead.

A bot's strategy lives with the table (``bots.TableBots``), whichever way it
decides; it is not persisted: a table restored after a restart starts its bots
afresh.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any, Protocol

import trio

from nimmt import protocol as P

from ..config import TableSettings
from ..game.match import MAX_SPECTATORS, SPECTATOR_GRACE, Dealer, Match
from ..game.io import BotDecided, Disconnected, Effects, Input, Reconnected, Request, Think, Who
from ..game.room import SeatState
from ..ladder.desk import LadderDesk
from ..sessions.session import Session
from ..storage import AsyncStore, PendingWrite, options_to_json
from ..storage.ladder import RatingChange
from ..thinking.pool import ThinkPool
from .bots import TableBots, timed
from .effects import (
    hand_in_writes,
    link_sessions,
    show_new_ratings,
    storage_notice,
    stored_settings,
)
from .held import ACK_WAIT, HeldOutput

# (storage_notice: effects.py's, named here too for lobby.py, which imports it from here)
__all__ = ["Table", "LobbyHooks", "INBOX_SIZE", "QUEUE_PER_CONNECTION", "ACK_WAIT",
           "storage_notice"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode

#: requests of one connection waiting for its table; more: refused with rate_limited
QUEUE_PER_CONNECTION = 16
#: requests waiting for one table in all; more: refused with rate_limited. A safety
#: net: every member's full share fits ((10 seats + 100 spectators) x 16 = 1,760).
INBOX_SIZE = 4096
#: inputs the task takes one after the other before it lets other tasks run
BATCH = 64
#: a bot at a table: (seat, strategy, seed), as its ``Think`` names it


class LobbyHooks(Protocol):
    """What a table tells its lobby (``server.lobby.Lobby``)."""

    dealer: Dealer | None
    store: AsyncStore | None
    thinker: ThinkPool | None  # None: every strategy decides in the table's task
    ladder: LadderDesk  # the claimed names and the ratings its seats show

    @property
    def stopping(self) -> bool: ...
    def table_changed(self, table: Table) -> None: ...
    def table_started(self, table: Table) -> None: ...
    def table_closed(self, table: Table) -> None: ...
    def after_leave(self, session: Session) -> None: ...
    def rate_game(self, table: Table, done: Any) -> list[RatingChange]: ...


class Table:
    """One table: the actor around a ``Match``."""

    def __init__(self, lobby: LobbyHooks, table_id: str, name: str, settings: TableSettings,
                 *, persistent: bool = False, autostart: bool = False,
                 seed: int | None = None, max_spectators: int = MAX_SPECTATORS,
                 spectator_grace: float = SPECTATOR_GRACE, match: Match | None = None,
                 sessions: dict[int, Session] | None = None,
                 group: Hashable = None) -> None:
        """``match``, ``sessions``: a table brought back from the database (``restore``).
        ``group``: the client its bots' thinking counts for in the think pool (the
        address that caused it, or ``thinking.pool.SERVER_GROUP``; None: the table alone, by its id)."""
        self.lobby = lobby
        self.id = table_id
        self.match = match or Match(table_id, name, settings, now=trio.current_time(),
                                    persistent=persistent, autostart=autostart, seed=seed,
                                    dealer=lobby.dealer)
        self.match.max_spectators = max_spectators
        self.match.spectator_grace = spectator_grace
        self.match.claimed_names = lobby.ladder.claims.names
        self.match.seat_ratings = lobby.ladder.seat_ratings
        self.store = lobby.store
        self._stored = match is not None  # its row is in the database already
        # sid -> session, for the members
        self._sessions: dict[int, Session] = dict(sessions or {})
        # every input in the order it came: (the session, its request or its
        # connection's coming or going), (None, a bot's answer). (Not the connection:
        # a closed one, and what it had read, must not be kept alive by its requests.)
        self._inputs: deque[tuple[Session | None, Input]] = deque()
        self._waiting = 0  # requests in _inputs
        self._queued: dict[int, int] = {}  # requests in _inputs, per connection number
        self._wakeup = trio.Event()  # set when an input comes
        # what the match said, its writes handed to the store, not yet delivered: the
        # task goes on with the next input meanwhile, and delivers it in order once
        # the last of its writes is on disk (``deliver_held``)
        self._held: HeldOutput[PendingWrite] = HeldOutput(self._wake)
        # the sessions seen watching (their spectator row is in the database)
        self._watchers: set[int] = {sid for sid, s in self._sessions.items() if s.seat is None}
        # the built-in bots' strategies and their workers' states
        self.bots = TableBots(self.id, self.match, group)
        self._thinks: deque[Think] = deque()
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

    def bot_state(self, seat: int) -> bytes | None:
        """The pickled strategy state kept for ``seat``'s next timed decision (its
        bot's, or the fallback's at a player's seat) as a worker last answered; None:
        nothing kept (the strategy starts afresh)."""
        return self.bots.state(seat)

    def place_bot(self, index: int, strategy: str, name: str | None) -> None:
        """Seat a built-in bot before the table runs (the caller checked the seat is free)."""
        self.match.place_bot(index, strategy, name)

    # ------------------------------------------------------------------ inputs
    def request(self, session: Session, msg: P.Message) -> bool:
        """Hand ``session``'s request to the table's task (never blocks); False: refused
        at once (the table is closed, or too many requests wait), with an error sent."""
        if self.closed:
            session.send(P.Error(code=E.NO_SUCH_TABLE, message="the table is closed",
                                 request=msg.TYPE, re=msg.id))
            return False
        client = session.client  # the connection that asks
        who = _who(session)
        queued = self._queued.get(who.conn, 0)
        if queued >= QUEUE_PER_CONNECTION:
            # counted against the sender's rate: answered while the rate allows, then
            # dropped like any message over it (and at last goodbye rate_limited)
            if client is None or client.count():
                session.send(P.Error(code=E.RATE_LIMITED, request=msg.TYPE, re=msg.id,
                                     message=f"{QUEUE_PER_CONNECTION} of your requests "
                                     "wait for this table already: send fewer"))
            return False
        if self._waiting >= INBOX_SIZE:
            session.send(P.Error(code=E.RATE_LIMITED, request=msg.TYPE, re=msg.id,
                                 message="the table has too many requests waiting: "
                                 "send fewer"))
            return False
        self._queued[who.conn] = queued + 1
        self._waiting += 1
        self._put(session, Request(who, msg))
        return True

    def resumed(self, session: Session) -> None:
        """``session`` (linked to this table) has a new connection."""
        self._put(session, Reconnected(session.sid))

    def disconnected(self, session: Session) -> None:
        """``session`` (linked to this table) lost its connection."""
        at = session.lost_at if session.lost_at is not None else trio.current_time()
        self._put(session, Disconnected(session.sid, at))

    def _put(self, session: Session | None, item: Input) -> None:
        """An input, behind every one before it (a connection's coming and going is
        never refused: each connection makes at most two)."""
        if self.closed:
            return
        self._inputs.append((session, item))
        self._wakeup.set()

    def _wake(self) -> None:
        """The task, waiting for its next input, looks again (its held write is tried)."""
        self._wakeup.set()

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
            if self.store is not None and not self._stored:
                await self.store.create_table(
                    self.id, match.name, options_to_json(match.settings.game_options()),
                    stored_settings(match))
            # at once, a first wake: the bots placed before the task ran, or a
            # restored table's first moves
            wake, first = -math.inf, True
            taken = 0  # inputs taken since the last time the task waited
            while not match.closed:
                if taken >= BATCH:  # let the other tasks run now and then
                    taken = 0
                    await self.deliver_held()
                    await trio.lowlevel.checkpoint()
                if not self._inputs:
                    taken = 0
                    # the inputs taken: one wait on the disk for them all
                    if self._held.ready(trio.current_time()):
                        await self.deliver_held()
                        continue
                    self._wakeup = trio.Event()
                    with trio.move_on_at(min(wake, self._held.deadline)):
                        await self._wakeup.wait()
                item = self.next_input()
                session = item[0] if item is not None else None
                taken += item is not None
                try:
                    await self.step(item, wake=first)
                    first = False
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
                    await self._carry_out(match.close("internal error",
                                                      trio.current_time(), time.time()))
        finally:
            if not match.closed:
                # kept in the database: a server started again brings the table back
                why = "server shutdown" if self.lobby.stopping else "stopped"
                self._deliver(match.close(why, trio.current_time(), time.time(),
                                          notify=False))

    def next_input(self) -> tuple[Session | None, Input] | None:
        """The oldest input waiting (None: none)."""
        if not self._inputs:
            return None
        item = self._inputs.popleft()
        if isinstance(item[1], Request):
            self._dequeued(item[1].who.conn)
        return item

    async def step(self, item: tuple[Session | None, Input] | None, *,
                   wake: bool = False) -> None:
        """One turn of the actor: feed ``item`` (None: none) to the match, then wake it
        if its time has come (``wake``: in any case)."""
        match = self.match
        if item is not None and not match.closed:
            await self._feed(*item)
        now = trio.current_time()
        if not match.closed and (wake or now >= match.next_wake()):
            await self._carry_out(match.wake(now, time.time()))

    def _dequeued(self, conn: int) -> None:
        self._waiting -= 1
        left = self._queued.get(conn, 0) - 1
        if left > 0:
            self._queued[conn] = left
        else:
            self._queued.pop(conn, None)

    async def _feed(self, session: Session | None, item: Input) -> None:
        if session is None:  # a bot's answer
            await self._carry_out(self.match.handle(item, trio.current_time(), time.time()))
            return
        if isinstance(item, Request):
            # the session may have moved since it asked
            elsewhere = session.table is not None and session.table is not self
            who = item.who
            if who.elsewhere != elsewhere:
                item = Request(Who(who.id, who.name, who.kind, elsewhere, who.conn), item.msg)
            self._sessions.setdefault(session.sid, session)
        await self._carry_out(self.match.handle(item, trio.current_time(), time.time()))
        if session.sid not in self.match.members and not self.match.has_deferred(session.sid):
            await self.deliver_held()  # what it must still hear goes to its session
            self._sessions.pop(session.sid, None)

    async def _think(self) -> None:
        """Answer the strategies' turns (each its own loop turn: a table of bots does
        not hog the server)."""
        match = self.match
        while self._thinks and not match.closed:
            think = self._thinks.popleft()
            spec = think.strategy if think.strategy is not None else self.match.settings.fallback
            pool = getattr(self.lobby, "thinker", None)
            if pool is not None and self._think_tasks is not None and timed(spec):
                self._think_tasks.start_soon(self._think_away, pool, think, spec)
                continue
            decision = self.bots.strategy(think).decide(think.view)
            await self._carry_out(match.handle(BotDecided(think.seat, think.key, decision),
                                               trio.current_time(), time.time()))
            await trio.lowlevel.checkpoint()

    async def _think_away(self, pool: ThinkPool, think: Think, spec: str) -> None:
        """``think`` answered by a worker process (by the heuristic if that fails),
        fed back through the table's inputs."""
        decision = await self.bots.decide_away(pool, think, spec, lambda: self.closed)
        self._put(None, BotDecided(think.seat, think.key, decision))

    async def _carry_out(self, effects: Effects) -> None:
        """Do what the match said, in order: link the sessions it seated (before
        anything is awaited: their connection's end reaches this table whatever
        happens meanwhile), persist, then deliver. While more inputs wait, effects
        that only write facts and send messages are held (``HeldOutput``) and the
        task goes on: the writes of the inputs it takes in a row go to disk together.
        A decision's acknowledgement alone is held too, for at most ``ACK_WAIT``:
        its write goes in a transaction that others make meanwhile, if one comes."""
        store = self.store
        watch, unwatch = link_sessions(self, self.match, effects, self._sessions,
                                       self._watchers)
        if store is not None and self._held.may_hold(effects, inputs_waiting=bool(self._inputs)):
            write = store.writes().append(self.id, effects.facts) if effects.facts else None
            self._held.hold(effects, write, trio.current_time())
            return
        await self.deliver_held()
        ratings: list[RatingChange] = []
        if effects.finished is not None and self.match.settings.rated:
            # rated in memory now, written with the game below (one transaction), and
            # shown by the table_updated that follows its game_over
            ratings = self.lobby.rate_game(self, effects.finished)
            if ratings:
                show_new_ratings(effects, self.info())
        if store is not None and (effects.facts or effects.finished is not None
                                  or effects.closed is not None or effects.started
                                  or watch or unwatch):
            await self._persist(effects, watch, unwatch, ratings)
        self._deliver(effects)
        if store is not None and effects.entered and store.failing is not None:
            # the database was failing before they came: they are told too
            notice = storage_notice(store.failing)
            for sid, _ in effects.entered:
                session = self._sessions.get(sid)
                if session is not None:
                    session.send(notice)

    async def _persist(self, effects: Effects, watch: list[Session],
                       unwatch: list[Session], ratings: Sequence[RatingChange] = ()) -> None:
        """Write the facts (seats with their session's token, hashed), the finished
        game with its ``ratings`` (a rated game's: never kept without them) and the
        table's end: all handed to the store, then one wait. A storage
        fault is not raised: the store queues the writes and the lobby tells everyone
        (``Lobby.storage_health``)."""
        store = self.store
        assert store is not None
        writes = store.writes()
        hand_in_writes(writes, self.id, self.match, effects, self._sessions, watch, unwatch,
                       ratings)
        await writes.written()

    async def deliver_held(self) -> None:
        """Deliver the held effects, in order, once their writes are on disk (or failed:
        then they stay queued in the store, and the games go on in memory)."""
        write, held = self._held.take()
        if write is not None:
            assert self.store is not None
            await self.store.written(write)
        for effects in held:
            self._deliver(effects)

    def notify_all(self, msg: P.Message) -> None:
        """Send ``msg`` to everyone at the table (a server notice)."""
        for session in self._sessions.values():
            session.send(msg)

    def _deliver(self, effects: Effects) -> None:
        sessions = self._sessions
        for sid, msg in effects.sends:
            session = sessions.get(sid)
            if session is not None:
                session.send(msg)
        for sid, conn in effects.charges:
            # a wasted decision counts against the rate of the connection that sent
            # it; one that has been closed (or replaced) since is charged nothing
            session = sessions.get(sid)
            client = session.client if session is not None else None
            if client is not None and client.cid == conn:
                client.charge()
        for sid in (*effects.released, *effects.refused):
            if sid not in self.match.members:  # (not: left, and came back in the same call)
                self._unlink(sessions.pop(sid, None))
        if effects.thinks:
            self._thinks.extend(effects.thinks)
        if effects.started:
            self.lobby.table_started(self)
        if effects.changed:
            self.lobby.table_changed(self)
            self.bots.forget_gone(self.closed)
        if effects.closed is not None:
            self._thinks.clear()
            self.bots.forget_gone(self.closed)
            # the requests never handled get their answer; every session linked here
            # (asking to come in when the table closed) is at no table again
            for session, item in self._inputs:
                if isinstance(item, Request) and session is not None:
                    session.send(P.Error(code=E.NO_SUCH_TABLE, message="the table is closed",
                                         request=item.msg.TYPE, re=item.msg.id))
                    self._unlink(session)
            self._inputs.clear()
            for session in list(sessions.values()):
                self._unlink(session)
            sessions.clear()
            self.lobby.table_closed(self)
            self._closed.set()

    def _unlink(self, session: Session | None) -> None:
        """``session`` is at no table any more (unless it is at another one now)."""
        if session is not None and session.table is self:
            session.table, session.seat = None, None
            self.lobby.after_leave(session)

    async def wait_closed(self) -> None:
        await self._closed.wait()


def _who(session: Session) -> Who:
    client = session.client
    return Who(session.sid, session.name, session.kind, conn=client.cid if client else 0)
