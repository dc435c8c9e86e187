"""The lobby's side of the ladder queue: the ``queue`` and ``leave_queue`` requests,
and the task that opens the tables ``ladder_queue.LadderQueue`` forms.

The decisions are the sans-IO ``LadderQueue``'s; this module checks requests,
answers them, and seats the players of a formed table exactly as if each had
sent ``join`` (the table is rated and starts as soon as its last seat is taken).
Its one task sleeps until the next entry's wait runs out or something changes
(an entry queued, a table closed); it never polls.

Decided here (docs/PROTOCOL.md, "The ladder queue"):

* a second ``queue`` while queued replaces the first (``queue_left`` "replaced",
  then ``queued``): the player moves to the end of the new kind's line;
* one entry per name: a name is one rating, so a claimed name queued from one
  connection cannot queue from another at the same time;
* every ladder table counts as a table caused from each of its players' addresses
  (``tables_per_address``), filled with bots or not, and each entry waiting as a
  table to come from its address; a table filled with bots for an entry also
  counts as one its player created (``tables_per_session``): a ``queue`` is
  refused while its player or address has that many (else a few addresses
  queueing against each other took every table of the server);
* a server at ``max_tables`` keeps the queue waiting (``queued.server_full``
  says so) and forms the next table when one closes;
* a queue entry belongs to the connection that made it: a dropped connection,
  one replaced by a resume, or ``leave_queue`` removes it, leaving nothing;
* those who wait are sent ``queued`` again when their place, the number waiting
  for their game or ``server_full`` changed (``LadderQueue.refresh``), at most
  once every ``QUEUED_EVERY`` seconds each: a crowd coming and going costs each
  waiting player one message a second at most, never one per arrival.
"""

from __future__ import annotations

import logging
import math
from dataclasses import replace
from typing import Any, Protocol

import trio

from nimmt import protocol as P
from nimmt.bots import StrategyError, parse_strategy

from ..ladder.claims import name_key
from ..config import ConfigError, ServerConfig, TableSettings, UnusableStrategy
from ..ladder.desk import LadderDesk
from ..ladder.queue import Entry, Formed, LadderQueue
from ..sessions.session import Session

__all__ = ["QueueDesk", "QUEUED_EVERY", "UNCLAIMED_IN_QUEUE"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode

UNCLAIMED_IN_QUEUE = ("the ladder queue is for rated games: only players who claimed their "
                      "name may queue (connect with protocol 2 and a key: hello.key, e.g. "
                      "nimmt-bot --claim); play at a table that is not rated instead")


#: Seconds between two refreshed ``queued`` (the changes meanwhile are told at once).
QUEUED_EVERY = 1.0


class LobbyTables(Protocol):
    """What the queue uses of the lobby (``server.lobby.Lobby``)."""

    config: ServerConfig
    nursery: trio.Nursery
    ladder: LadderDesk
    tables: dict[str, Any]

    @property
    def stopping(self) -> bool: ...
    def open_table(self, name: str, settings: Any, *, persistent: bool = False,
                   autostart: bool = False, bots: int = 0, seed: int | None = None,
                   bot_level: str | None = None, group: Any = None) -> Any: ...
    def enter(self, session: Session, table: Any, msg: P.Message) -> str | None: ...
    def creation_refused(self, session: Session, *, by_session: bool = True) -> str: ...
    def created_for(self, table: Any, session: Session, *, filled: bool) -> None: ...


class QueueDesk:
    """The queue of one server: its entries, their sessions, and its task."""

    def __init__(self, lobby: LobbyTables) -> None:
        self.lobby = lobby
        self.queue = LadderQueue()
        self._sessions: dict[int, Session] = {}  # the sessions of the entries, by sid
        # their contribution, by sid: (entropy, entropy_hash), as a join would carry it
        self._entropy: dict[int, tuple[str | None, str | None]] = {}
        self._addresses: dict[int, str | None] = {}  # their connections' addresses, by sid
        self._wakeup = trio.Event()
        self._running = False
        self._tell_at = -math.inf  # the next refreshed queued not before this

    def queued(self, session: Session) -> bool:
        return session.sid in self.queue

    # ------------------------------------------------------------------ requests
    def request(self, session: Session, msg: P.Queue) -> None:
        """Answer a ``queue`` request: queued (or an error saying what to do)."""
        refused = self._refusal(session)
        if refused:
            session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                 message=refused))
            return
        lobby = self.lobby
        try:
            # a ladder game is rated and has no coach, whatever the options say
            options = replace(msg.options, seats=msg.seats, rated=True, coach=None)
            settings = TableSettings.from_wire(options, lobby.config.table)
            # bots that queue ask for no pause: fifty of their tables played flat out
            # left the people's tables waiting for the server's loop (benchmarks/README.md,
            # "200 ladder bots"), so the server paces them, watched or not
            least = lobby.config.ladder_step_delay
            settings = replace(settings, step_delay=max(settings.step_delay, least),
                               unwatched_step_delay=least)
        except UnusableStrategy as e:
            session.send(P.Error(code=E.UNKNOWN_STRATEGY, request=msg.TYPE, re=msg.id,
                                 field="options", message=f"fallback: {e.reason}"[:500]))
            return
        except (ConfigError, P.LocalProtocolError) as e:
            session.send(P.Error(code=E.OUT_OF_RANGE, request=msg.TYPE, re=msg.id,
                                 field="options", message=str(e)[:500]))
            return
        level = msg.bot_level or lobby.config.bot_level
        try:
            parse_strategy(level)
        except StrategyError as e:
            session.send(P.Error(code=E.UNKNOWN_STRATEGY, request=msg.TYPE, re=msg.id,
                                 field="bot_level", message=str(e)[:500]))
            return
        now = trio.current_time()
        entry = Entry(session.sid, name_key(session.name), settings, msg.seats,
                      lobby.ladder.ladder.get(session.name).ordinal, now, msg.fill_after, level)
        # a ladder table is one the server opens for its players: it counts as one
        # caused from each of their addresses (or a few addresses queueing against
        # each other could take every table), and a table filled with bots for this
        # player alone as one they created (or a player who leaves each at once
        # could have the server's bots play table after table for nobody)
        filled = msg.fill_after is not None
        refused = lobby.creation_refused(session, by_session=filled)
        if refused:
            more = ("; a ladder table filled with bots for you counts as one you created "
                    "(queue with fill_after nil to wait for players)" if filled else
                    "; a ladder table counts as one caused from each of its players' "
                    "addresses")
            session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                 field="fill_after" if filled else None,
                                 message=f"{refused}{more}"[:500]))
            return
        if self.queue.add(entry) is not None:
            session.send(P.QueueLeft(reason="replaced"))
        self._sessions[session.sid] = session
        self._entropy[session.sid] = (msg.entropy, msg.entropy_hash)
        self._addresses[session.sid] = session.client.address if session.client else None
        position, waiting = self.queue.position(session.sid)
        full = self._room() <= 0
        session.send(P.Queued(seats=msg.seats, position=position, waiting=waiting,
                              fill_in=msg.fill_after, server_full=full, re=msg.id))
        self.queue.told(session.sid, full)
        log.info("session %s (%s) queues for %d seats (rating %.2f, %d waiting)", session.sid,
                 session.name, msg.seats, entry.rating, waiting)
        self._wake()
        if not self._running:
            self._running = True
            lobby.nursery.start_soon(self.run, name="ladder queue")

    def _refusal(self, session: Session) -> str:
        if not session.claimed:
            return UNCLAIMED_IN_QUEUE
        if session.kind == "spectator":
            return "a spectator cannot play: connect as a human or a bot to queue"
        if session.table is not None:
            return "you are at a table: leave it first, then queue"
        other = self.queue.by_name(name_key(session.name))
        if other is not None and other.who != session.sid:
            return (f"{session.name!r} waits in the queue already, from another connection: "
                    "a name queues once (leave_queue there, or wait for its game)")
        return ""

    def queued_from(self, address: str, session: Session) -> int:
        """How many entries of sessions other than ``session`` wait from ``address``."""
        return sum(where == address and sid != session.sid
                   for sid, where in self._addresses.items())

    def leave(self, session: Session, msg: P.LeaveQueue) -> None:
        """Answer a ``leave_queue`` request."""
        if self.remove(session) is None:
            session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                 message="you are not in the queue (if your table was formed "
                                 "meanwhile, you are seated: leave the table instead)"))
            return
        session.send(P.QueueLeft(reason="left", re=msg.id))
        log.info("session %s (%s) leaves the queue", session.sid, session.name)

    def remove(self, session: Session) -> Entry | None:
        """Take ``session`` out of the queue (its connection is gone, or replaced)."""
        self._sessions.pop(session.sid, None)
        self._entropy.pop(session.sid, None)
        self._addresses.pop(session.sid, None)
        entry = self.queue.remove(session.sid)
        if entry is not None:
            self.changed()  # the others behind it moved up
        return entry

    # ------------------------------------------------------------------ the task
    def changed(self) -> None:
        """Something the queue waits for happened (a table opened or closed, an entry
        left)."""
        if self._running:
            self._wake()

    def _wake(self) -> None:
        if not self._wakeup.is_set():
            self._wakeup.set()

    def _room(self) -> int:
        """How many more tables the server may open now."""
        lobby = self.lobby
        if lobby.stopping:
            return 0
        return lobby.config.max_tables - sum(not t.closed for t in lobby.tables.values())

    async def run(self) -> None:
        """Open the tables the queue forms and tell those still waiting where they
        stand, then sleep until the next entry's wait runs out, an entry comes or
        goes, a table opens or closes (a full server: not the first), or the next
        refresh is due."""
        while True:
            self._wakeup = trio.Event()
            room = self._room()
            formed = self.queue.form(trio.current_time(), room) if room > 0 else []
            for table in formed:
                try:
                    self._open(table)
                except Exception:  # a bug must not take the queue (or the server) down
                    log.exception("ladder queue: a table could not be opened")
            full = self._room() <= 0
            if self.queue.stale(full) and trio.current_time() >= self._tell_at:
                self._tell(full)
            wake = self.queue.next_fill() if len(formed) < room else math.inf
            if self.queue.stale(full):
                wake = min(wake, self._tell_at)
            with trio.move_on_at(wake):
                await self._wakeup.wait()

    def _tell(self, full: bool) -> None:
        """Send ``queued`` to each entry whose standing changed since it was told."""
        now = trio.current_time()
        standings = self.queue.refresh(full)
        for s in standings:
            entry = s.entry
            fill_in = None if entry.fill_after is None else max(0.0, entry.fill_at - now)
            self._sessions[entry.who].send(P.Queued(
                seats=entry.seats, position=s.position, waiting=s.waiting, fill_in=fill_in,
                server_full=s.server_full))
        if standings:
            self._tell_at = now + QUEUED_EVERY

    def _open(self, formed: Formed) -> None:
        """Open ``formed``'s rated table with its bots, and seat its players as if each
        had joined (the last one to sit down starts the game)."""
        sessions = [self._sessions.pop(e.who) for e in formed.players]
        entropy = [self._entropy.pop(e.who, (None, None)) for e in formed.players]
        addresses = {e.who: self._addresses.pop(e.who, None) for e in formed.players}
        # the bots' thinking counts for the address of the player they were filled in
        # for (else the first player's): one address with many bot-filled tables has
        # one turn of the think pool, not one a table (server/thinking/queue.py)
        group = addresses.get(formed.filled_for if formed.filled_for is not None
                              else formed.players[0].who)
        settings: TableSettings = formed.kind  # type: ignore[assignment]
        try:
            table = self.lobby.open_table(f"Ladder, {formed.seats} seats", settings,
                                          autostart=True, bots=formed.bots,
                                          bot_level=formed.bot_level or None,
                                          group=group)
        except Exception:
            for session in sessions:  # out of the queue already: they are told
                session.send(P.Error(code=E.INTERNAL_ERROR, request="queue",
                                     message="a bug in the server: your ladder table could "
                                     "not be opened; queue again"))
            raise
        for entry, session in zip(formed.players, sessions):
            self.lobby.created_for(table, session, filled=entry.who == formed.filled_for)
        log.info("ladder queue: table %s for %s%s", table.id,
                 ", ".join(s.name for s in sessions),
                 f" and {formed.bots} bot(s) ({formed.bot_level})" if formed.bots else "")
        # a hash's reveal is asked for once the last seat is taken (game/reveals.py): each
        # player is sent its seated, with the table's commitment, before that
        for session, (plain, digest) in zip(sessions, entropy):
            self.lobby.enter(session, table, P.Join(table_id=table.id, entropy=plain,
                                                    entropy_hash=digest))
