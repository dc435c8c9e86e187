"""The lobby: sessions, tables, and the requests that are not a table's own.

Everything here is synchronous and quick: a request for a table is handed to
that table's task through its channel (``Table.request``), so one connection's
request never waits for another table.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import replace
from typing import Any

import trio

from nimmt import protocol as P
from nimmt.protocol.states import CLIENT_GAME

from ..config import CoachAtRated, ConfigError, ServerConfig, TableSettings, UnusableStrategy
from ..ladder.claims import name_key
from ..ladder.desk import LadderDesk
from .chat import chat, session_address
from .seating import QueueDesk
from ..sessions.limits import AddressMeters
from ..ladder.ratings import ordinal, withheld_last
from ..tables.restore import RestoreError, restore_match, skip_on_restore
from ..sessions.session import Link, Session
from ..storage import AsyncStore, StorageWriteError
from ..storage.ladder import RatingChange
from ..tables.table import Table, storage_notice
from ..thinking.pool import SERVER_GROUP
from .table_ids import new_table_id, table_id_prefix
from .welcome import SERVER_SOFTWARE, Greeter

__all__ = ["Lobby", "SERVER_SOFTWARE"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode

#: The lobby hears of each table at most this often (seconds).
LOBBY_FEED_INTERVAL = 1.0
#: what ``Lobby.enter`` returns when the table refused the request at once (the table
#: told the session why: it is closed, or too many requests wait)
REFUSED_BY_TABLE = "refused by the table"
UNCLAIMED_AT_RATED = ("this table is rated: only players who claimed their name may sit "
                      "(connect with protocol 2 and a key: hello.key); watch it, or play "
                      "at a table that is not rated")
NAME_SEATED = ("{!r} has a seat at this table already, from another session: a name holds "
               "one seat (play from that session: resume it with its token, or leave there "
               "first)")


class Lobby(Greeter):
    """Every session and table of one server (``hello`` and resume: ``Greeter``)."""

    def __init__(self, config: ServerConfig, nursery: trio.Nursery) -> None:
        self.config = config
        self.nursery = nursery
        self.tables: dict[str, Table] = {}
        self.sessions: dict[str, Session] = {}
        self._in_lobby: set[Session] = set()  # connected, at no table (lazily cleaned)
        self._dirty: dict[str, Table | None] = {}  # tables the lobby must hear of (None: closed)
        self._feed_wakeup = trio.Event()
        self._expiry: deque[tuple[float, Session]] = deque()
        self._table_ids = 0
        self._table_id_prefix = table_id_prefix()
        #: who caused each table still open: the sessions and addresses it counts
        #: against (its creator; every player of a ladder table) (stale entries are
        #: pruned by ``_creation_refused``)
        self._creators: dict[str, list[tuple[Session | None, str | None]]] = {}
        #: sessions of claimed names on their way to a seat (``join``, ``create_table``),
        #: by sid: with the seats, what ``_name_seated`` looks at
        self._sitting_down: dict[int, tuple[Session, Table]] = {}
        #: the chat meter every session of one address shares
        self._address_chat = AddressMeters(config.chat_address_rate, config.chat_address_burst)
        #: the claim meter of each address (``hello.key`` for a new name)
        self._address_claims = AddressMeters(1.0 / config.claim_interval, config.claim_burst)
        self._session_ids = 0
        self.bot_table: Table | None = None
        self.shutting_down = False
        #: chance: ``dealer(options, pending, view, rng) -> Deal``; None: shuffled deals.
        #: (A seam for tests and reproducible benchmarks.)
        self.dealer: Any = None
        #: the database (None: nothing is kept); set by the server before it serves
        self.store: AsyncStore | None = None
        #: claimed names and ratings (server/ladder/desk.py), kept in ``store`` if any
        self.ladder = LadderDesk()
        #: the ladder queue (server/lobby/seating.py): players waiting for a rated table
        self.ladder_queue = QueueDesk(self)
        #: sessions of restored seats, by their token's hash, until their client says hello
        self._restored: dict[str, Session] = {}
        #: the worker processes searching bots think in (None: in the table's task)
        self.thinker: Any = None
        self.limits = P.Limits(
            max_frame_size=config.max_frame_size,
            hello_timeout=config.hello_timeout,
            ping_interval=config.ping_interval,
            pong_timeout=config.pong_timeout,
            reconnect_grace=config.reconnect_grace,
            rate_limit=config.rate_limit,
        )

    # ------------------------------------------------------------------ tables
    def open_table(self, name: str, settings: Any, *, persistent: bool = False,
                   autostart: bool = False, bots: int = 0, seed: int | None = None,
                   bot_level: str | None = None, group: Any = None) -> Table:
        """A new table; ``group``: the client its bots' thinking counts for in the think
        pool (the address that caused it; None: the table alone)."""
        if self.store is not None:
            table_id = self.store.new_table_id()  # never one of an earlier run
        else:
            self._table_ids += 1
            table_id = new_table_id(self._table_id_prefix, self._table_ids)
        table = Table(self, table_id, name, settings, persistent=persistent,
                      autostart=autostart, seed=seed,
                      max_spectators=self.config.max_spectators,
                      spectator_grace=self.config.reconnect_grace, group=group)
        for i in range(bots):
            table.place_bot(len(table.seats) - bots + i, bot_level or self.config.bot_level,
                            None)
        self.tables[table.id] = table
        self.nursery.start_soon(table.run, name=f"table {table.id}")
        self.table_changed(table)
        self.ladder_queue.changed()  # those waiting may have to hear the server is full
        return table

    def open_bot_table(self) -> Table:
        """The ``--bots N`` table: N built-in bots and one free seat, starting when taken.

        The standing table: there is one waiting at a time (``bot_table``). When it
        starts, the next one opens, if the server has room for it (``max_tables``
        counts the standing tables too); else as soon as a table closes. Its game
        closes once its player has left (``match_seats``): the bots never play on
        for nobody."""
        n = self.config.bots
        settings = replace(self.config.table, seats=n + 1)
        name = f"You against {n} bot{'s' if n > 1 else ''}"
        self.bot_table = self.open_table(name, settings, persistent=True, autostart=True, bots=n,
                                         group=SERVER_GROUP)
        return self.bot_table

    async def restore(self) -> list[Table]:
        """Bring back every table open in the database (``restore``); a table that
        cannot be rebuilt is logged and left out (its row stays for a later version)."""
        store = self.store
        if store is None:
            return []
        await self.ladder.load(store)
        now = trio.current_time()
        restored = []
        for stored in await store.open_tables():
            if skip_on_restore(stored):
                await store.close_table(stored.id)
                continue
            wanted = len(stored.seats) + len(stored.spectators)
            members = list(range(self._session_ids + 1, self._session_ids + 1 + wanted))
            try:
                match, people = restore_match(stored, now=now, members=members,
                                              dealer=self.dealer)
            except RestoreError as e:
                log.error("not restored: %s", e)
                continue
            self._session_ids += wanted
            sessions = {}
            for p in people:
                session = Session(p.member, "", p.name, p.kind)
                session.claimed = self.ladder.claims.is_claimed(p.name)
                session.seat, session.lost_at = p.seat, now
                session.restored_hash = p.token_hash
                sessions[p.member] = session
                self._restored[p.token_hash] = session
            table = Table(self, stored.id, stored.name, match.settings, match=match,
                          sessions=sessions, max_spectators=self.config.max_spectators,
                          spectator_grace=self.config.reconnect_grace)
            for session in sessions.values():
                session.table = table
            self.tables[table.id] = table
            self.nursery.start_soon(table.run, name=f"table {table.id}")
            self.table_changed(table)
            restored.append(table)
            players = sum(p.seat is not None for p in people)
            watchers = len(people) - players
            log.info("table=%s restored: %s, %d player seat%s waiting%s", table.id, match.status,
                     players, "" if players == 1 else "s",
                     f", {watchers} spectator{'' if watchers == 1 else 's'}" if watchers else "")
        return restored

    def rate_game(self, table: Table, done: Any) -> list[RatingChange]:
        """A game of the rated ``table`` ended (``done``: its ``Finished``): rate it in
        memory; the changes, for the table to keep with the game (one transaction,
        before its players hear the game is over)."""
        record = done.record
        result = record.result
        if result is None or result.places is None:  # pragma: no cover - a finished game has them
            return []
        n = record.options.players
        seats = table.seats
        strategies = [s.strategy if s is not None else None for s in seats[:n]]
        withheld = record.fair_deal.withheld if record.fair_deal is not None else ()
        changes = self.ladder.rate([record.name(i) for i in range(n)],
                                   withheld_last(result.places, withheld), done.kinds, strategies)
        for c in changes:
            log.info("table=%s rated: %s now %.2f (%d games)", table.id, c.name,
                     ordinal(c.mu, c.sigma), c.games)
        return changes

    def storage_health(self, error: StorageWriteError | None) -> None:
        """The database stopped (``error``) or started again (None) taking writes: every
        table's players are told (the store has logged it), with what it dropped if it
        gave up on unsaved writes."""
        dropped = self.store.dropped if self.store is not None else None
        msg = storage_notice(error, dropped.describe() if dropped is not None else None)
        for table in list(self.tables.values()):
            table.notify_all(msg)
        self.to_lobby(msg)

    @property
    def stopping(self) -> bool:
        return self.shutting_down or self.nursery.cancel_scope.cancel_called

    def table_started(self, table: Table) -> None:
        if table is self.bot_table:
            self.bot_table = None
            self._reopen_bot_table()

    def _reopen_bot_table(self) -> None:
        """Open the next standing ``--bots`` table if there is none waiting and the
        server has room for one more table."""
        if (self.config.bots and self.bot_table is None and not self.stopping
                and sum(not t.closed for t in self.tables.values()) < self.config.max_tables):
            self.open_bot_table()

    def table_closed(self, table: Table) -> None:
        if self._restored:  # restored seats nobody came back to are gone with it
            for token_hash, session in list(self._restored.items()):
                if session.table is None or session.table is table:
                    del self._restored[token_hash]
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            self._dirty[table.id] = None
            self._wake_feed()
        if table is self.bot_table:
            self.bot_table = None
        self._reopen_bot_table()  # there may be room for it now
        self.ladder_queue.changed()  # and for a table the queue waits to form

    # ------------------------------------------------------------------ the lobby feed
    def table_changed(self, table: Table) -> None:
        """``table`` looks different: the lobby will hear of it (coalesced, see ``feed``)."""
        if table.id not in self._dirty:
            self._dirty[table.id] = table
            self._wake_feed()

    def _wake_feed(self) -> None:
        if not self._feed_wakeup.is_set():
            self._feed_wakeup.set()

    @property
    def feed_budget(self) -> int:
        """Feed messages a lobby client receives a second, at most: a quarter of its
        send queue, so a client that reads them (and a few replies) is never dropped."""
        return max(1, self.config.send_queue // 4)

    async def feed(self) -> None:
        """Send the lobby ``table_updated`` / ``table_closed`` for the tables that changed.

        At most one message per table every ``LOBBY_FEED_INTERVAL`` seconds (the latest
        state), however often it changes, and at most ``feed_budget`` messages in all:
        when more tables changed, the others wait for the next interval (oldest change
        first; they are sent as they are then). What a lobby client receives is bounded
        by ``feed_budget`` a second, not by the number of tables or what happens at
        them. The task sleeps on an event while nothing changes.
        """
        while True:
            await self._feed_wakeup.wait()
            self._feed_wakeup = trio.Event()
            self.feed_once()
            await trio.sleep(LOBBY_FEED_INTERVAL)

    def feed_once(self) -> None:
        """One interval's messages: up to ``feed_budget`` of the changed tables."""
        budget = self.feed_budget
        dirty = self._dirty
        ready = list(dirty.items())[:budget]
        for table_id, _ in ready:
            del dirty[table_id]
        if dirty:
            self._wake_feed()  # the rest go out after the next interval
        for table_id, table in ready:
            if table is None:
                self.to_lobby(P.TableClosed(table_id=table_id))
            elif not table.closed:
                self.to_lobby(P.TableUpdated(table=table.info()))

    # ------------------------------------------------------------------ sending
    def to_lobby(self, msg: Any) -> None:
        """To every connected session that is at no table."""
        stale = []
        for session in self._in_lobby:
            if session.client is None or session.table is not None:
                stale.append(session)
            else:
                session.send(msg)
        for session in stale:
            self._in_lobby.discard(session)

    def after_leave(self, session: Session) -> None:
        """``session`` is at no table any more."""
        if session.client is not None:
            self._in_lobby.add(session)
        else:
            self._expire_later(session)

    # ------------------------------------------------------------------ requests
    def request(self, client: Link, msg: P.Message) -> None:
        """A message from a welcomed client (not ping, pong or goodbye)."""
        session = client.session
        if session is None:  # pragma: no cover - replaced in the meantime
            return
        if isinstance(msg, (P.CreateTable, P.Join, P.Watch)) and \
                self.ladder_queue.queued(session):
            client.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                message="you wait in the ladder queue: send leave_queue "
                                "first"))
            return
        match msg:
            case (P.Leave() | P.AddBot() | P.RemoveBot() | P.Start() | P.Commit()
                  | P.ChooseRow() | P.ChooseTie() | P.DraftPick() | P.Pause() | P.Resume()
                  | P.Reveal()):
                # the session's own table decides
                if session.table is None:
                    client.send(P.Error(code=E.NOT_ALLOWED, message="you are at no table",
                                        request=msg.TYPE, re=msg.id))
                    if msg.TYPE in CLIENT_GAME:
                        client.charge()  # a wasted decision counts against the rate
                else:
                    session.table.request(session, msg)
            case P.Chat():
                chat(session, msg, self.config, self._address_chat, self.to_lobby,
                     trio.current_time())
            case P.Leaderboard():  # from memory: costs no database read
                client.send(self.ladder.page(msg))
            case P.ListTables():
                # newest first (the dict keeps creation order)
                tables = [t for t in reversed(self.tables.values()) if not t.closed]
                tables = tables[:P.MAX_TABLES_LISTED]
                client.send(P.TableList(tables=tuple(t.info() for t in tables), re=msg.id))
            case P.CreateTable():
                self._create(session, msg)
            case P.Queue():
                self.ladder_queue.request(session, msg)
            case P.LeaveQueue():
                self.ladder_queue.leave(session, msg)
            case P.Join() | P.Watch():
                table = self.tables.get(msg.table_id)
                if table is None or table.closed:
                    client.send(P.Error(code=E.NO_SUCH_TABLE, field="table_id",
                                        request=msg.TYPE, re=msg.id,
                                        message=f"no table {msg.table_id!r}"))
                else:
                    self.enter(session, table, msg)
            case _:  # pragma: no cover - the protocol's state table lets nothing else through
                client.send(P.Error(code=E.NOT_ALLOWED, message=f"{msg.TYPE} is not handled here",
                                    request=msg.TYPE, re=msg.id))

    def enter(self, session: Session, table: Table, msg: P.Message) -> str | None:
        """The one way a session comes to a table: its ``join`` or ``watch``, its
        ``create_table`` (``table`` just opened for it), or the ladder queue's ``join``
        for it. Returns why it was refused at once (the session was told; it is at
        no table, unless it was at this one already), or None: ``table`` has the request.

        A session is linked to at most one table (``session.table``): from here on it
        belongs to ``table`` (its connection's end reaches the table, and every other
        entry is refused) until the table releases it or refuses it (``Table._unlink``:
        then it is in the lobby again)."""
        if (isinstance(msg, (P.Join, P.CreateTable)) and table.match.settings.rated
                and not session.claimed):  # a spectator sitting down too
            return self._refuse_entry(session, msg, UNCLAIMED_AT_RATED)
        if session.table is table:  # a spectator sitting down, or a repeat
            return None if table.request(session, msg) else REFUSED_BY_TABLE
        if session.table is not None:  # at a table, or on the way to one
            return self._refuse_entry(session, msg, "you are already at a table: leave it first")
        if isinstance(msg, (P.Join, P.CreateTable)) and session.claimed:
            if self._name_seated(session, table):
                return self._refuse_entry(session, msg, NAME_SEATED.format(session.name))
            self._sitting_down[session.sid] = (session, table)
        session.table = table
        self._in_lobby.discard(session)
        if table.request(session, msg):
            return None
        session.table = None
        self.after_leave(session)
        return REFUSED_BY_TABLE

    def _name_seated(self, session: Session, table: Table) -> bool:
        """Whether another session of ``session``'s claimed name has a seat at ``table``
        or is on its way to one (a name is one player: two of its seats would make
        the second "Ann (2)", unclaimed, and the game unrated)."""
        key = name_key(session.name)
        for seat in table.seats:
            if seat is not None and not seat.builtin and name_key(seat.name) == key:
                return True
        for sid, (other, where) in list(self._sitting_down.items()):
            if other.table is not where or other.seat is not None:
                del self._sitting_down[sid]  # seated (the seats say so), or gone
            elif where is table and other is not session and name_key(other.name) == key:
                return True
        return False

    def _refuse_entry(self, session: Session, msg: P.Message, why: str) -> str:
        session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id, message=why))
        return why

    def _create(self, session: Session, msg: P.CreateTable) -> None:
        if session.table is not None:  # (no table is opened for it: see ``enter``)
            self._refuse_entry(session, msg, "you are already at a table: leave it first")
            return
        if len([t for t in self.tables.values() if not t.closed]) >= self.config.max_tables:
            session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                 message="the server has as many tables as it allows"))
            return
        address = session_address(session)
        refused = self._creation_refused(session, address)
        if refused:
            session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                 message=refused))
            return
        try:
            settings = TableSettings.from_wire(msg.options, self.config.table)
        except CoachAtRated as e:
            session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                 field="options.coach", message=str(e)))
            return
        except UnusableStrategy as e:  # the fallback (the wire carries names only)
            session.send(P.Error(code=E.UNKNOWN_STRATEGY, request=msg.TYPE, re=msg.id,
                                 field="options", message=f"fallback: {e.reason}"[:500]))
            return
        except ConfigError as e:
            session.send(P.Error(code=E.OUT_OF_RANGE, request=msg.TYPE, re=msg.id,
                                 field="options", message=str(e)[:500]))
            return
        if settings.rated and not session.claimed:
            session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                 field="options.rated", message=UNCLAIMED_AT_RATED))
            return
        name = msg.name or f"{session.name}'s table"
        table = self.open_table(name[:40], settings, group=address)
        self._creators[table.id] = [(session, address)]
        log.info("session %s (%s) creates table %s", session.sid, session.name, table.id)
        self.enter(session, table, msg)

    def creation_refused(self, session: Session, *, by_session: bool = True) -> str:
        """Why no more tables may be opened for ``session`` ("": they may); see
        ``_creation_refused`` (``by_session`` False: its address's cap only)."""
        return self._creation_refused(session, session_address(session), by_session)

    def created_for(self, table: Table, session: Session, *, filled: bool) -> None:
        """``table`` counts as one ``session``'s address caused (a ladder queue's table,
        for each of its players: ``tables_per_address``), and as one ``session``
        created if it was ``filled`` with bots for it (``tables_per_session`` too)."""
        self._creators.setdefault(table.id, []).append(
            (session if filled else None, session_address(session)))

    def _creation_refused(self, session: Session, address: str | None,
                          by_session_too: bool = True) -> str:
        """Why ``session`` (from ``address``) may not cause one more table ("": it may):
        one client must not take every table of the server. A table counts once
        against each session and address that caused it, and each ladder queue entry
        of another session from ``address`` as a table to come."""
        by_session = by_address = 0
        for table_id, creators in list(self._creators.items()):
            table = self.tables.get(table_id)
            if table is None or table.closed:
                del self._creators[table_id]
                continue
            by_session += any(creator is session for creator, _ in creators)
            by_address += address is not None and any(where == address for _, where in creators)
        queued = self.ladder_queue.queued_from(address, session) if address is not None else 0
        config = self.config
        if by_session_too and by_session >= config.tables_per_session:
            return (f"you created {by_session} tables that are still open (at most "
                    f"{config.tables_per_session}): join one, or wait until one closes")
        if by_address + queued >= config.tables_per_address:
            waiting = f" and {queued} of its players wait in the ladder queue" if queued else ""
            return (f"{by_address} tables caused from your address are open{waiting} (at most "
                    f"{config.tables_per_address} in all, ladder tables included): join a "
                    "table, or wait until one closes")
        return ""
