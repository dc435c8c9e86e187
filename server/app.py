"""The server: listeners, connections, the lobby, shutdown.

In-process use (tests, benchmarks)::

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, ServerConfig(port=0))
        ...                       # connect to 127.0.0.1:port
        await server.shutdown()   # goodbye to every client; serve() returns
"""

from __future__ import annotations

import gc
import logging
import math
import signal
import sys
from typing import Any

import trio

from nimmt import protocol as P

from .net.addresses import every_interface, join_hint, lan_addresses
from .net.announce import Announcer, Summary, announce_addresses, default_server_name
from .net.connection import ClientConnection, peer_address
from .config import ServerConfig
from .sessions.limits import Admission, LogLimiter, flooding_text, left_out
from .lobby.lobby import Lobby
from .storage import MEMORY, AsyncStore
from .thinking.pool import ThinkPool

__all__ = ["Server", "start_server", "run_server"]

log = logging.getLogger("nimmt.server")


def _refusal(code: str, text: str) -> bytes:
    """``error`` and ``goodbye`` of ``code``, the first two messages of a connection."""
    conn = P.Connection(P.SERVER)
    return conn.send(P.Error(code=code, message=text)) + conn.send(P.Goodbye(reason=code, message=text))


class Server:
    """A nimmt server: ``serve(listeners)`` runs until ``shutdown()``."""

    def __init__(self, config: ServerConfig | None = None, *, dealer: Any = None,
                 store: AsyncStore | None = None) -> None:
        """``dealer(options, pending, view, rng) -> Deal``: how tables deal (None:
        shuffled); a seam for tests and reproducible benchmarks. ``store``: the open
        database (None: tables live in memory only); its open tables are brought back
        before the server listens. The caller closes it."""
        self.config = (config or ServerConfig()).validate()
        self.dealer = dealer
        self.store = store
        self.clients: set[ClientConnection] = set()
        config = self.config
        self.admission = Admission(config.max_connections, config.max_per_address,
                                   config.max_unwelcomed, config.max_unwelcomed_per_address,
                                   config.flood_address_cooldown,
                                   int(config.max_connections * config.reserved_share),
                                   spare=self._spare)
        #: lines logged for what a flood repeats (refusals, closes): a few a second
        self.log_limit = LogLimiter()
        self._lobby: Lobby | None = None
        self._cids = 0
        self._flood_refusals: dict[int, bytes] = {}
        self._nursery: trio.Nursery | None = None
        self._accepting: trio.CancelScope | None = None
        self._all_gone = trio.Event()
        self._all_gone.set()
        self.stopping = False
        #: the worker processes of the bots that search (started at their first turn)
        self.thinker = ThinkPool(config.bot_workers)

    @property
    def lobby(self) -> Lobby:
        if self._lobby is None:
            raise RuntimeError("the server is not serving")
        return self._lobby

    async def serve(self, listeners: list[trio.SocketListener] | None = None, *,
                    task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Serve ``listeners`` (none: only ``handle_stream``) until ``shutdown()``."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self._lobby = Lobby(self.config, nursery)
            self._lobby.dealer = self.dealer
            await nursery.start(self.thinker.run)  # stopped, its workers too, with the nursery
            self._lobby.thinker = self.thinker
            if self.store is not None:
                self._lobby.store = self.store
                self.store.on_health = self._lobby.storage_health
                nursery.start_soon(self.store.keep_up)  # folds and checkpoints beside the writes
                await self._lobby.restore()
            nursery.start_soon(self._lobby.feed)
            if self.config.bots:
                self._lobby.open_bot_table()
            if listeners:
                self._accepting = trio.CancelScope()
                nursery.start_soon(self._accept, listeners)
            task_status.started(self)
            await trio.sleep_forever()  # until shutdown() cancels the nursery

    async def _accept(self, listeners: list[trio.SocketListener]) -> None:
        assert self._accepting is not None
        with self._accepting:
            await trio.serve_listeners(self.handle_stream, listeners,
                                       handler_nursery=self._nursery)

    async def handle_stream(self, stream: trio.abc.Stream) -> None:
        """Serve one connection (a socket, or any trio stream in tests) until it ends."""
        if self.stopping:
            await trio.aclose_forcefully(stream)
            return
        wait = self.admission.cooling(peer_address(stream), trio.current_time())
        if wait > 0:  # a flooder's address, cooling down: refused as cheaply as can be
            await self._refuse(stream, self._flood_refusal(math.ceil(wait)))
            return
        self._cids += 1
        client = ClientConnection(self, stream, self._cids)
        now = trio.current_time()
        admitted = self.admission.admit(client, client.address, now)
        for old in admitted.evict:
            assert isinstance(old, ClientConnection)
            skipped = self.log_limit.allow("evicted", now)
            if skipped is not None:
                log.info("conn=%s closed to make room for conn=%s from %s%s", old.cid,
                         client.cid, client.peer, left_out(skipped))
            if old.welcomed:
                old.close(P.ErrorCode.SERVER_FULL, "the server is full and your address holds "
                          "many connections: this one, at no table, made room for a newcomer")
            else:
                old.close(P.ErrorCode.SERVER_FULL, "no hello yet, and the server needs room "
                          "for connections that say hello")
        if admitted.refused is not None:
            skipped = self.log_limit.allow("refused", now)
            if skipped is not None:
                log.warning("conn=%s from %s refused: %s (%d connections)%s", self._cids,
                            client.peer, admitted.refused, len(self.clients), left_out(skipped))
            await self._refuse(stream, _refusal(P.ErrorCode.SERVER_FULL, admitted.refused))
            return
        self.clients.add(client)
        self._all_gone = trio.Event() if self._all_gone.is_set() else self._all_gone
        try:
            await client.run()
        except Exception:
            # a bug in one connection's handling must not take the server down
            log.exception("conn=%s internal error", client.cid)
            self.forget(client)

    @staticmethod
    def _spare(conn: object) -> float | None:
        """For ``Admission``: seconds a welcomed connection has made no request if it
        may be closed to make room for a newcomer (it is at no table), else None."""
        assert isinstance(conn, ClientConnection)
        session = conn.session
        if conn.closing or (session is not None and session.table is not None):
            return None
        return trio.current_time() - conn.last_request

    def _flood_refusal(self, seconds: int) -> bytes:
        """The refusal of a connection from an address that may connect again in
        ``seconds`` (the same bytes every time: kept)."""
        refusal = self._flood_refusals.get(seconds)
        if refusal is None:
            refusal = _refusal(P.ErrorCode.RATE_LIMITED, flooding_text(seconds))
            self._flood_refusals[seconds] = refusal
        return refusal

    @staticmethod
    async def _refuse(stream: trio.abc.Stream, refusal: bytes) -> None:
        """Send ``refusal`` (for a moment at most) and close ``stream``."""
        with trio.move_on_after(1.0):
            try:
                await stream.send_all(refusal)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        await trio.aclose_forcefully(stream)

    def summary(self) -> Summary:
        """The lobby as the LAN announcement shows it: tables waiting, players online."""
        tables = self._lobby.tables.values() if self._lobby is not None else ()
        waiting = sum(1 for t in tables if t.status == "waiting" and not t.closed)
        return Summary(tables_waiting=waiting,
                       players=sum(1 for c in self.clients if c.welcomed))

    def forget(self, client: ClientConnection) -> None:
        self.clients.discard(client)
        self.admission.gone(client)
        if not self.clients:
            self._all_gone.set()

    async def shutdown(self, reason: str = "server_shutdown",
                       text: str = "the server is shutting down") -> None:
        """Stop accepting, say goodbye to every client, end every table, return."""
        if self.stopping:
            return
        self.stopping = True
        log.info("shutting down: %d connections, %d tables", len(self.clients),
                 len(self._lobby.tables) if self._lobby else 0)
        if self._accepting is not None:
            self._accepting.cancel()
        if self._lobby is not None:
            self._lobby.shutting_down = True
        # without a database the games end with the server
        kept = self.store is not None if reason == "server_shutdown" else None
        for client in list(self.clients):
            client.close(reason, text, kept=kept)
        with trio.move_on_after(self.config.shutdown_flush + 1.0):
            await self._all_gone.wait()
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()


async def start_server(nursery: trio.Nursery, config: ServerConfig | None = None, *,
                       host: str = "127.0.0.1", port: int = 0, dealer: Any = None,
                       store: AsyncStore | None = None) -> tuple[Server, int]:
    """Start a server on ``host:port`` (port 0: any free one) in ``nursery``; return it
    and the port it listens on. ``store``: a database (None: memory only)."""
    listeners = await trio.open_tcp_listeners(port, host=host)
    server = Server(config, dealer=dealer, store=store)
    await nursery.start(server.serve, listeners)
    bound = listeners[0].socket.getsockname()[1]
    return server, bound


#: Net allocations of collectable objects between two young collections (Python's
#: default: 700). A busy server keeps many objects alive for seconds (tasks, games'
#: histories) and frees most others at once; with the default it spent about a tenth
#: of its CPU in the garbage collector, in pauses of up to 200 ms (the held-load
#: benchmark's reveal p99 of 100-260 ms was those pauses). benchmarks/README.md, 2026-12-03.
YOUNG_COLLECTION_THRESHOLD = 50_000


def tune_garbage_collector() -> None:
    """For a server process (not a test's): what was made at start-up (modules,
    classes, the configuration) is never garbage, so the collector stops looking at
    it (``gc.freeze``), and young collections come less often. Objects are still
    freed as soon as nothing refers to them; only cycles wait for a collection."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, middle, old)


def raise_file_limit(wanted: int) -> None:
    """Allow ``wanted`` open files if the hard limit lets us (each connection is one)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not a Unix
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):  # pragma: no cover
            log.warning("could not raise the open files limit from %d", soft)
            return
        log.info("open files limit raised from %d to %d", soft, target)


async def open_database(db: str, durability: str = "normal") -> AsyncStore | None:
    """The server's database (``db``: "" the default file, ":memory:" none). Raises
    ``StorageError`` (locked, corrupt, too new, not ours): the server must not start."""
    if db == MEMORY:
        return None
    store = await AsyncStore.open(db or None, durability=durability)
    where = store.store.path
    if store.failing is not None:
        log.error("the database %s cannot be written (%s): games are kept in memory only "
                  "until it can", where, store.failing)
        print(f"WARNING: the database {where} cannot be written: games are kept in memory "
              "only until it can", file=sys.stderr, flush=True)
    else:
        log.info("database: %s", where)
    return store


async def run_server(config: ServerConfig) -> None:
    """``nimmt-server``: open the database, bring its tables back, serve until SIGINT
    or SIGTERM, then shut down gracefully (the tables stay in the database)."""
    raise_file_limit(config.max_connections + 64)
    store = await open_database(config.db, config.durability)
    try:
        await _serve(config, store)
    finally:
        if store is not None:
            with trio.CancelScope(shield=True):
                await store.aclose()


async def _serve(config: ServerConfig, store: AsyncStore | None) -> None:
    host = None if config.host in ("", "*") else config.host
    listeners = await trio.open_tcp_listeners(config.port, host=host)
    port = listeners[0].socket.getsockname()[1]
    server = Server(config, store=store)
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve, listeners)
            print(join_hint(config.host, port), flush=True)
            if config.bots:
                print(f"A table with {config.bots} bot{'s' if config.bots > 1 else ''} "
                      "is waiting for you.", flush=True)
            log.info("listening on %s:%d", config.host, port)
            announcer = await _announcer(config, port, server)
            if announcer is not None:
                await nursery.start(announcer.run)
                print(f"Announcing on the LAN as {announcer.name!r}: players on this network "
                      "find it with nimmt-client alone.", flush=True)
            async for signum in signals:
                name = signal.Signals(signum).name
                log.info("%s received", name)
                print(f"\n{name}: telling everyone goodbye...", file=sys.stderr, flush=True)
                break
            if announcer is not None:  # first: nobody finds a server that is going
                await announcer.withdraw()
            await server.shutdown()
    log.info("stopped")


async def _announcer(config: ServerConfig, port: int, server: Server) -> Announcer | None:
    """The LAN announcement of a server listening on ``config.host:port``, or None:
    turned off, or on loopback only (nobody else could connect)."""
    if not config.announce:
        log.info("not announced on the LAN (announce = false)")
        return None
    resolved: list[str] = []
    if not every_interface(config.host):
        try:
            infos = await trio.socket.getaddrinfo(config.host, None, trio.socket.AF_INET)
        except OSError:
            infos = []
        resolved = [str(info[4][0]) for info in infos]
    lan = await trio.to_thread.run_sync(lan_addresses)
    addresses = announce_addresses(config.host, resolved, lan)
    if not addresses:
        log.info("not announced on the LAN: %s is not reachable from another machine",
                 config.host)
        return None
    return Announcer(config.name or default_server_name(), port, addresses,
                     P.SUPPORTED_VERSIONS, server.summary)
