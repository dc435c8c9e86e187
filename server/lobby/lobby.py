"""The lobby: sessions, tables, and the requests that are not a table's own.

Everything here is synchronous and quick: a request for a table is handed to
that table's task through its channel (``Table.request``), so one connection's
request never waits for another table.
"""

from __future__ import annotations

import logging
import math
import secrets
import unicodedata
from collections import deque
from dataclasses import replace
from typing import Any

import trio

from nimmt import protocol as P
from nimmt.protocol.states import CLIENT_GAME

from ..ladder.claims import Claim, Verdict, name_key
from ..config import ConfigError, ServerConfig, TableSettings, UnusableStrategy
from ..ladder.desk import LadderDesk
from .seating import QueueDesk
from ..sessions.limits import AddressMeters, TokenBucket, resuming_text
from ..ladder.ratings import ordinal
from ..tables.restore import RestoreError, restore_match, skip_on_restore
from ..sessions.session import Link, Session, new_token
from ..storage import AsyncStore, StorageWriteError, hash_token
from ..tables.table import Table, storage_notice

__all__ = ["Lobby", "SERVER_SOFTWARE"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode

SERVER_SOFTWARE = "nimmt-server 0.1.0"

#: The lobby hears of each table at most this often (seconds).
LOBBY_FEED_INTERVAL = 1.0
#: what ``Lobby.enter`` returns when the table refused the request at once (the table
#: told the session why: it is closed, or too many requests wait)
REFUSED_BY_TABLE = "refused by the table"
UNCLAIMED_AT_RATED = ("this table is rated: only players who claimed their name may sit "
                      "(connect with protocol 2 and a key: hello.key); watch it, or play "
                      "at a table that is not rated")


class Lobby:
    """Every session and table of one server."""

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
        #: who created each table still open: its session and address (stale entries
        #: are pruned by ``_created_by``)
        self._creators: dict[str, tuple[Session, str | None]] = {}
        #: the chat meter every session of one address shares
        self._address_chat = AddressMeters(config.chat_address_rate, config.chat_address_burst)
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
                   bot_level: str | None = None) -> Table:
        if self.store is not None:
            table_id = self.store.new_table_id()  # never one of an earlier run
        else:
            self._table_ids += 1
            table_id = new_table_id(self._table_id_prefix, self._table_ids)
        table = Table(self, table_id, name, settings, persistent=persistent,
                      autostart=autostart, seed=seed,
                      max_spectators=self.config.max_spectators,
                      spectator_grace=self.config.reconnect_grace)
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
        self.bot_table = self.open_table(name, settings, persistent=True, autostart=True, bots=n)
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

    async def rate_game(self, table: Table, done: Any, game_id: int | None) -> bool:
        """A game of the rated ``table`` ended (``done``: its ``Finished``): rate it
        (and save the ratings before its players hear the game is over); whether
        any rating changed."""
        record = done.record
        result = record.result
        if result is None or result.places is None:  # pragma: no cover - a finished game has them
            return False
        n = record.options.players
        seats = table.seats
        strategies = [s.strategy if s is not None else None for s in seats[:n]]
        changes = await self.ladder.game_finished(
            [record.name(i) for i in range(n)], result.places, done.kinds, strategies, game_id)
        for c in changes:
            log.info("table=%s rated: %s now %.2f (%d games)", table.id, c.name,
                     ordinal(c.mu, c.sigma), c.games)
        return bool(changes)

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

    # ------------------------------------------------------------------ sessions
    def _expire_later(self, session: Session) -> None:
        lost = session.lost_at if session.lost_at is not None else trio.current_time()
        self._expiry.append((lost + self.config.reconnect_grace, session))

    def _prune(self) -> None:
        """Forget sessions that nobody can resume any more (amortized, no timer)."""
        now = trio.current_time()
        queue = self._expiry
        while queue and queue[0][0] <= now:
            _, session = queue.popleft()
            if not self._resumable(session, now) and self.sessions.get(session.token) is session:
                del self.sessions[session.token]

    def _resumable(self, session: Session, now: float) -> bool:
        if session.client is not None or session.table is not None:
            return True
        return session.lost_at is not None and now < session.lost_at + self.config.reconnect_grace

    def hello(self, client: Link, msg: P.Hello) -> Session | None:
        """Answer a ``hello``: a new session, or the one its token names."""
        self._prune()
        name = _clean_name(msg.name)
        if msg.token is not None:
            session = self.sessions.get(msg.token)
            if session is None and self._restored:
                # a seat brought back from the database: the token is known by its hash
                session = self._restored.pop(hash_token(msg.token), None)
                if session is not None:
                    session.token = msg.token
                    self.sessions[msg.token] = session
            if session is None or not self._resumable(session, trio.current_time()):
                # docs/PROTOCOL.md: error bad_token, then a fresh session
                client.send(P.Error(code=E.BAD_TOKEN, request="hello", re=msg.id, field="token",
                                    message="unknown or expired session token: "
                                    "here is a new session"))
                log.info("conn=%s unknown or expired token", client.cid)
                return self._new_session(client, msg, name)
            if self._resume_refused(client, msg, session):
                return None
            old = session.client
            if old is not None:
                self.ladder_queue.remove(session)  # it belonged to the old connection
                old.session = None
                old.close("replaced", "this session connected again from elsewhere")
                log.info("session %s: connection %s replaced by %s", session.sid, old.cid,
                         client.cid)
            session.client = client
            session.lost_at = None
            client.session = session
            client.send(P.Welcome(protocol=msg.protocol, server=SERVER_SOFTWARE,
                                  name=session.name, token=session.token, resumed=True,
                                  limits=self.limits, claimed=session.claimed, re=msg.id))
            log.info("conn=%s session %s (%s) resumed", client.cid, session.sid, session.name)
            if session.table is not None:
                session.table.resumed(session)
            else:
                self._in_lobby.add(session)
            return session
        return self._new_session(client, msg, name)

    def _resume_refused(self, client: Link, msg: P.Hello, session: Session) -> bool:
        """Whether ``session`` may not resume now (then ``client`` was told why and is
        closed): each resume costs its table a snapshot, so a session resumes at most
        ``resume_burst`` times at once and ``resume_rate`` a second, and not at all
        for a while after one of its connections was closed for flooding. The meter
        is the session's, so a new address does not refill it, and nobody else waits."""
        config, now = self.config, trio.current_time()
        meter = session.resumes(config.resume_rate, config.resume_burst, now)
        wait = meter.wait(now)
        if not wait:
            return False
        text = resuming_text(max(1, math.ceil(wait)), flooded=now < meter.until)
        client.send(P.Error(code=E.RATE_LIMITED, request="hello", re=msg.id, field="token",
                            message=text))
        client.close(E.RATE_LIMITED, text)
        # (the connection's "closed" line says why; a flood of these must not add more)
        log.debug("conn=%s session %s may not resume yet: %s", client.cid, session.sid, text)
        return True

    def _claim_refused(self, client: Link, msg: P.Hello, name: str) -> Verdict | None:
        """Check the name's claim: None if refused (``client`` was told and is closed),
        else the verdict (whether the session's name is claimed, a new claim)."""
        key = name_key(name)
        in_use = msg.key is not None and not self.ladder.claims.is_claimed(name) and any(
            name_key(s.name) == key and not s.claimed for s in self.sessions.values())
        verdict = self.ladder.hello(name, msg.key, in_use)
        if not verdict.refused:
            return verdict
        client.send(P.Error(code=E.NAME_CLAIMED, request="hello", re=msg.id, field="name",
                            message=verdict.refused))
        client.close(E.NAME_CLAIMED, verdict.refused)
        log.info("conn=%s hello as %r refused: %s", client.cid, name, verdict.refused)
        return None

    def _new_session(self, client: Link, msg: P.Hello, name: str) -> Session | None:
        if reserved_name(name):  # or a player could chat as the server's notices do
            client.send(P.Error(code=E.OUT_OF_RANGE, request="hello", re=msg.id, field="name",
                                message=f"no player may be called {name!r}: the server's own "
                                "notices go by that name. You are called 'player' here; "
                                "to choose your name, connect again with another one"))
            name = "player"
        verdict = self._claim_refused(client, msg, name)
        if verdict is None:
            return None
        self._session_ids += 1
        session = Session(self._session_ids, new_token(), name, msg.kind)
        session.claimed = verdict.claimed
        self.sessions[session.token] = session
        session.client = client
        client.session = session
        welcome = P.Welcome(protocol=msg.protocol, server=SERVER_SOFTWARE, name=name,
                            token=session.token, resumed=False, limits=self.limits,
                            claimed=verdict.claimed, re=msg.id)
        if verdict.new is not None and self.store is not None:
            self.nursery.start_soon(self._welcome_once_kept, client, session, welcome,
                                    verdict.new)
        else:
            self._welcome(client, session, welcome)
        log.info("conn=%s session %s: %s (%s) says hello", client.cid, session.sid, name,
                 msg.kind)
        return session

    def _welcome(self, client: Link, session: Session, welcome: P.Welcome) -> None:
        client.send(welcome)
        if session.table is None:
            self._in_lobby.add(session)

    async def _welcome_once_kept(self, client: Link, session: Session, welcome: P.Welcome,
                                 claim: Claim) -> None:
        """A new claim is on disk before its client is welcomed with it."""
        await self.ladder.keep_claim(claim)
        if session.client is client:  # (gone meanwhile: nothing to tell)
            self._welcome(client, session, welcome)

    def disconnected(self, client: Link) -> None:
        """``client``'s connection is over; its session (if still its own) is away."""
        session = client.session
        client.session = None
        if session is None or session.client is not client:
            return
        session.client = None
        session.lost_at = trio.current_time()
        self._in_lobby.discard(session)
        self.ladder_queue.remove(session)
        if session.table is not None:
            session.table.disconnected(session)
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
                  | P.ChooseRow() | P.ChooseTie() | P.DraftPick() | P.Pause() | P.Resume()):
                # the session's own table decides
                if session.table is None:
                    client.send(P.Error(code=E.NOT_ALLOWED, message="you are at no table",
                                        request=msg.TYPE, re=msg.id))
                    if msg.TYPE in CLIENT_GAME:
                        client.charge()  # a wasted decision counts against the rate
                else:
                    session.table.request(session, msg)
            case P.Chat():
                self._chat(session, msg)
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
        session.table = table
        self._in_lobby.discard(session)
        if table.request(session, msg):
            return None
        session.table = None
        self.after_leave(session)
        return REFUSED_BY_TABLE

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
        address = _address(session)
        refused = self._creation_refused(session, address)
        if refused:
            session.send(P.Error(code=E.NOT_ALLOWED, request=msg.TYPE, re=msg.id,
                                 message=refused))
            return
        try:
            settings = TableSettings.from_wire(msg.options, self.config.table)
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
        table = self.open_table(name[:40], settings)
        self._creators[table.id] = (session, address)
        log.info("session %s (%s) creates table %s", session.sid, session.name, table.id)
        self.enter(session, table, msg)

    def creation_refused(self, session: Session) -> str:
        """Why no more tables may be opened for ``session`` ("": they may); see
        ``_creation_refused``."""
        return self._creation_refused(session, _address(session))

    def created_for(self, table: Table, session: Session) -> None:
        """``table`` counts as one ``session`` created (the ladder queue's tables filled
        with bots for it): against ``tables_per_session`` and ``tables_per_address``."""
        self._creators[table.id] = (session, _address(session))

    def _creation_refused(self, session: Session, address: str | None) -> str:
        """Why ``session`` (from ``address``) may not create one more table ("": it may):
        one client must not take every table of the server."""
        by_session = by_address = 0
        for table_id, (creator, where) in list(self._creators.items()):
            table = self.tables.get(table_id)
            if table is None or table.closed:
                del self._creators[table_id]
                continue
            by_session += creator is session
            by_address += address is not None and where == address
        config = self.config
        if by_session >= config.tables_per_session:
            return (f"you created {by_session} tables that are still open (at most "
                    f"{config.tables_per_session}): join one, or wait until one closes")
        if by_address >= config.tables_per_address:
            return (f"{by_address} tables created from your address are still open (at most "
                    f"{config.tables_per_address})")
        return ""

    def _chat(self, session: Session, msg: P.Chat) -> None:
        text = msg.text
        if len(text) > self.config.chat_max:
            session.send(P.Error(code=E.OUT_OF_RANGE, request="chat", re=msg.id, field="text",
                                 message=f"a chat line holds at most {self.config.chat_max} "
                                 "characters"))
            return
        if not text.strip():
            return
        refusal = self._chat_refusal(session)
        if refusal:
            session.send(P.Error(code=E.RATE_LIMITED, request="chat", re=msg.id,
                                 message=refusal))
            return
        if session.table is not None:
            session.table.request(session, msg)
        else:
            self.to_lobby(P.ChatMessage(name=session.name, seat=None, text=text))

    def _chat_refusal(self, session: Session) -> str:
        """Why ``session`` may not say one more line now ("" if it may): a line goes to
        everyone in the lobby or at the table, so one client's chat is metered by
        itself (per session: a new connection does not refill it), and all the
        sessions of one address share a meter too (many connections from one
        address do not multiply it)."""
        config, now = self.config, trio.current_time()
        if session.chat_bucket is None:
            session.chat_bucket = TokenBucket(config.chat_rate, config.chat_burst, now)
        wait = session.chat_bucket.wait(now)
        if wait:
            return (f"you chat too fast: {config.chat_burst} lines at once and "
                    f"{config.chat_rate:g} a second on average; this line was not sent "
                    f"(try again in {max(1, math.ceil(wait))} s)")
        address = _address(session)
        if address is None:
            return ""
        wait = self._address_chat.wait(address, now)
        if not wait:
            return ""
        session.chat_bucket.give_back()
        return (f"your address chats too fast: all its connections together may say "
                f"{config.chat_address_burst} lines at once and {config.chat_address_rate:g} "
                f"a second on average; this line was not sent "
                f"(try again in {max(1, math.ceil(wait))} s)")


#: letters of a table id's prefix: lowercase, none that reads like a digit (l, o)
_PREFIX_LETTERS = "abcdefghijkmnpqrstuvwxyz"


def table_id_prefix() -> str:
    """A fresh prefix at each server start, so that an id of an earlier run (kept by a
    client or a bot across a restart) names no table of this one: 4 random letters
    (24**4 = 331,776 prefixes), then the table's number. Nothing is stored."""
    return "".join(secrets.choice(_PREFIX_LETTERS) for _ in range(4))


def new_table_id(prefix: str, number: int) -> str:
    """The id of this run's ``number``-th table, e.g. ``kqzd1``: short, typeable, and
    within the protocol's ``table_id`` (1..32 of A-Z a-z 0-9 _ -).

    >>> new_table_id("kqzd", 12)
    'kqzd12'
    """
    return f"{prefix}{number}"


def _address(session: Session) -> str | None:
    client = session.client
    return client.address if client is not None else None


def _clean_name(name: str) -> str:
    cleaned = "".join(ch for ch in name if ch.isprintable()).strip()
    return cleaned[:32] or "player"


#: names no player may take: the server signs its own chat notices with "server"
RESERVED_NAMES = frozenset({"server"})
#: letters and digits that read like the Latin letters of a reserved name
_LOOKALIKES = str.maketrans({
    "\u0455": "s", "\u0435": "e", "\u0454": "e", "\u0433": "r",
    "\u0280": "r", "\u1d26": "r", "\u03bd": "v", "\u0475": "v", "\u1d20": "v",
    "5": "s", "$": "s", "3": "e", "\u20ac": "e",
})


def reserved_name(name: str) -> bool:
    """Whether ``name`` reads as a name no player may take (``RESERVED_NAMES``),
    whatever its case, spacing, punctuation, width or lookalike letters.

    >>> [reserved_name(n) for n in ("server", "Server ", "S E R V E R", "\u0455erver",
    ...                             "ＳＥＲＶＥＲ", "s3rver", "[server]", "Servera", "Sever")]
    [True, True, True, True, True, True, True, False, False]
    """
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_LOOKALIKES)
    return "".join(ch for ch in folded if ch.isalnum()) in RESERVED_NAMES
