"""The client side of the network: asyncio streams over ``nimmt.protocol.Connection``.

This is the only module of the client that does I/O on the network. It is meant
for every kind of client: the terminal UI, network bots, tests. ::

    conn = await connect("192.168.1.20", 6066, "Ann", "bot")
    await conn.send(P.CreateTable(options=P.TableOptions(seats=2)))
    async for msg in conn.events():          # messages, plus LinkLost/LinkRestored
        ...                                  # pings are answered for you
    await conn.close()

What it does for you:

* the handshake (``hello`` → ``welcome``), with timeouts;
* ``ping`` → ``pong``, automatically, while you read (pings are not handed out);
* ``seq`` checking (by the sans-IO ``Connection``): a gap or repeat drops the
  connection, like any other fatal protocol error;
* request ids: :meth:`ClientConnection.send` numbers each request (``id``) and
  returns the number, which the server echoes as ``re`` in its reply;
* resuming after a drop: :meth:`ClientConnection.reconnect` (by hand) or
  :meth:`ClientConnection.events` (automatically) connect again with the
  session token; the server answers ``welcome(resumed)``, then ``seated`` or
  ``watching``, then a ``snapshot`` if a game is running.

Every failure is a :class:`ClientError` whose ``str()`` is one line for a person.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import math
import secrets
import socket
import time
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Final

from nimmt import protocol as P
from nimmt.protocol import (
    CONNECTION_CLOSED,
    NEED_DATA,
    ConnState,
    Error,
    Goodbye,
    LocalProtocolError,
    Message,
    Ping,
    Pong,
    RemoteProtocolError,
    Welcome,
)

from .link import LinkEvent, LinkLost, LinkRestored
from .words import code_words

__all__ = [
    "DEFAULT_PORT",
    "SOFTWARE",
    "ClientError",
    "ConnectFailed",
    "HandshakeFailed",
    "ConnectionLost",
    "SendFailed",
    "JOIN_ENTROPY_BYTES",
    "ClientConnection",
    "connect",
    "format_address",
    "parse_address",
]

log = logging.getLogger("nimmt.client")

#: The port of ``nimmt-server`` unless told otherwise.
DEFAULT_PORT: Final = 6066
#: What the client says it is in ``hello.software``.
SOFTWARE: Final = "nimmt-client 0.1"
#: Random bytes each ``join`` and ``queue`` add to the deals (``entropy``).
JOIN_ENTROPY_BYTES: Final = 16
_READ_SIZE: Final = 65536
#: Waits between reconnection attempts (the last one repeats).
_BACKOFF: Final = (0.0, 0.25, 0.5, 1.0, 2.0)
#: Goodbye reasons after which resuming makes no sense (a server stopping as we come
#: back is not one: it keeps the seats, and may be started again)
_FINAL_GOODBYES: Final = frozenset({"quit", "replaced", "kicked",
                                    "unsupported_version", "server_full"})


class ClientError(Exception):
    """Base of the client's errors; ``str(exc)`` is one line for a person."""


class ConnectFailed(ClientError):
    """Could not open a TCP connection to the server (refused, unreachable, timeout)."""


class HandshakeFailed(ClientError):
    """Connected, but the server did not welcome us (wrong version, full, not nimmt)."""

    def __init__(self, text: str, error: Error | None = None,
                 goodbye: Goodbye | None = None) -> None:
        super().__init__(text)
        self.error = error
        self.goodbye = goodbye


class ConnectionLost(ClientError):
    """The connection ended without a goodbye (or broke the protocol).

    ``resumable`` is true when connecting again with the token may resume the
    session (the usual case after a network drop).
    """

    def __init__(self, text: str, *, resumable: bool = True) -> None:
        super().__init__(text)
        self.resumable = resumable


class SendFailed(ClientError):
    """A message could not be sent: not allowed in the connection's state, or no link."""


def format_address(host: str, port: int) -> str:
    """``host:port``, with brackets around an IPv6 address."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_address(text: str) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``:PORT``, ``[IPv6]:PORT`` → (host, port)."""
    text = text.strip()
    host, port = text, DEFAULT_PORT
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ValueError(f"missing ']' in {text!r}")
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"cannot read {text!r}: expected [ADDRESS]:PORT")
            port = _port(rest[1:])
    elif text.count(":") == 1:
        host, p = text.split(":")
        port = _port(p)
    host = host or "localhost"
    return host, port


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(f"{text!r} is not a port number (1-65535)")
    return int(text)


def _connect_error(host: str, port: int, exc: BaseException) -> ConnectFailed:
    addr = format_address(host, port)
    if isinstance(exc, ConnectionRefusedError):
        return ConnectFailed(f"no nimmt server at {addr} — is nimmt-server running there? "
                             "start one with: nimmt-server")
    if isinstance(exc, socket.gaierror):
        return ConnectFailed(f"cannot find the host {host!r} — check the name, "
                             "or use the server's IP address")
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return ConnectFailed(f"no answer from {addr} — check the address, and that the "
                             "server's machine lets the port through its firewall")
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return ConnectFailed(f"cannot connect to {addr}: {text}")


class ClientConnection:
    """One client session with a nimmt server, over one TCP connection at a time.

    Create it with :func:`connect` (or construct, then ``await open()``). Public
    attributes:

    * ``host``, ``port``, ``name`` (asked for), ``kind`` (``"human"``, ``"bot"``,
      ``"spectator"``);
    * ``welcome``: the last :class:`~nimmt.protocol.Welcome` (``welcome.name`` is
      the name the server shows), ``token``: the session token (secret);
    * ``handshake_errors``: ``error`` messages received before the last welcome
      (e.g. ``bad_token`` when a resume failed and a fresh session began);
    * ``goodbye``: the server's :class:`~nimmt.protocol.Goodbye`, once received;
    * ``closed``: true after :meth:`close` or the server's goodbye;
    * ``warnings``: frames the server sent that were invalid but not fatal
      (dropped; one line each).

    Reading: iterate (``async for msg in conn``) or call :meth:`receive`. Pings
    are answered only while someone reads, so keep a task reading.
    """

    def __init__(self, host: str, port: int, name: str, kind: str = "human", *,
                 token: str | None = None, software: str | None = SOFTWARE,
                 connect_timeout: float = 5.0, handshake_timeout: float = 10.0,
                 key: str | None = None) -> None:
        self.host = host
        self.key = key  # the name's secret key (claims it; required once claimed)
        #: every ``join`` and ``queue`` adds 16 random bytes to the deals of the table's
        #: next game (unless it has its own ``entropy`` or ``entropy_hash``): from protocol
        #: 3 on it sends their SHA-256 (``entropy_hash``) and reveals them when the server
        #: asks (``reveal_request``, answered as it is read), protocol 2 sends them in the
        #: clear (``entropy``) (docs/PROTOCOL.md, "Verifiable deals"); False sends none. A
        #: message's own ``entropy`` is sent as its hash and revealed too from protocol 3 on
        #: (protocol 4 refuses entropy in the clear)
        self.entropy = True
        self._reveal: bytes | None = None  # the entropy whose hash was sent last
        self.port = port
        self.name = name
        self.kind = kind
        self.token = token
        self.software = software
        self.connect_timeout = connect_timeout
        self.handshake_timeout = handshake_timeout
        self.welcome: Welcome | None = None
        self.handshake_errors: list[Error] = []
        self.goodbye: Goodbye | None = None
        self.closed = False
        self.warnings: list[str] = []
        self._conn: P.Connection | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._write_lock = asyncio.Lock()
        self._next_id = 1
        self._user_closed = False  # close() was called: never reconnect

    # -- properties ---------------------------------------------------------------
    @property
    def address(self) -> str:
        return format_address(self.host, self.port)

    @property
    def state(self) -> ConnState:
        """The protocol state of the current connection (``closed`` if there is none)."""
        return self._conn.state if self._conn is not None else ConnState.CLOSED

    @property
    def limits(self) -> P.Limits | None:
        return self.welcome.limits if self.welcome is not None else None

    @property
    def connected(self) -> bool:
        return self._writer is not None and not self.closed

    # -- opening ------------------------------------------------------------------
    async def open(self) -> Welcome:
        """Connect and do the handshake (with ``self.token`` if set: a resume)."""
        self._user_closed = False
        await self._open_socket()
        return await self._handshake()

    async def _open_socket(self) -> None:
        self._drop_socket()
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port), self.connect_timeout)
        except (TimeoutError, OSError) as exc:
            raise _connect_error(self.host, self.port, exc) from None
        self._reader, self._writer = reader, writer
        self._conn = P.Connection(P.CLIENT)

    async def _handshake(self) -> Welcome:
        conn = self._conn
        assert conn is not None
        hello = P.Hello(protocol=P.PROTOCOL_VERSION, name=self.name, kind=self.kind,
                        token=self.token, software=self.software, key=self.key)
        await self._write(hello)
        errors: list[Error] = []
        try:
            async with asyncio.timeout(self.handshake_timeout):
                while True:
                    msg = await self._read_one(handshake=True)
                    if isinstance(msg, Welcome):
                        break
                    if isinstance(msg, Error):
                        errors.append(msg)
                    elif isinstance(msg, Goodbye):
                        self._drop_socket()
                        raise self._refused(errors, msg)
        except TimeoutError:
            self._drop_socket()
            raise HandshakeFailed(f"{self.address} accepted the connection but did not "
                                  f"answer like a nimmt server within "
                                  f"{self.handshake_timeout:g} s — is it the right port?"
                                  ) from None
        self.welcome = msg
        self.token = msg.token
        self.handshake_errors = errors
        self.closed = False
        return msg

    def _refused(self, errors: list[Error], goodbye: Goodbye) -> HandshakeFailed:
        error = errors[-1] if errors else None
        if error is not None and error.code == "unsupported_version":
            versions = ", ".join(map(str, error.supported or ()))
            text = (f"the server at {self.address} speaks protocol {versions or '?'}, "
                    f"this client speaks {P.PROTOCOL_VERSION} — use matching versions")
        elif goodbye.reason == "server_full":
            text = f"the server at {self.address} is full — try again later"
        else:
            why = (error.message if error is not None else goodbye.message) or goodbye.reason
            text = f"the server at {self.address} refused us: {why}"
        return HandshakeFailed(text, error, goodbye)

    # -- reading ------------------------------------------------------------------
    async def _read_one(self, handshake: bool = False) -> Message:
        """The next message of the current connection (pings answered, not returned)."""
        conn, reader = self._conn, self._reader
        if conn is None or reader is None:
            raise ConnectionLost("not connected")
        while True:
            try:
                msg = conn.next_message()
            except RemoteProtocolError as exc:
                if not exc.fatal:
                    text = f"dropped an invalid message from the server ({exc.code}: {exc})"
                    log.warning(text)
                    self.warnings.append(text)
                    continue
                self._drop_socket()
                if handshake:
                    raise HandshakeFailed(f"{self.address} does not speak the nimmt protocol "
                                          f"({code_words(exc.code)})") from None
                raise ConnectionLost(f"the connection broke: {code_words(exc.code)} "
                                     f"({exc})") from None
            if msg is NEED_DATA:
                try:
                    data = await reader.read(_READ_SIZE)
                except OSError as exc:
                    data = b""
                    log.info("read failed: %s", exc)
                conn.receive_data(data)
                continue
            if msg is CONNECTION_CLOSED:
                self._drop_socket()
                if handshake:
                    raise HandshakeFailed(f"{self.address} closed the connection during the "
                                          "handshake — is it a nimmt server?")
                raise ConnectionLost("the server closed the connection")
            assert isinstance(msg, Message)
            if isinstance(msg, Ping):
                try:
                    await self._write(Pong(nonce=msg.nonce))
                except SendFailed:
                    pass
                continue
            if isinstance(msg, P.RevealRequest) and self._reveal is not None:
                try:  # the entropy whose hash our join or queue sent (still shown to the caller)
                    await self.send(P.Reveal(entropy=self._reveal.hex()))
                except SendFailed:
                    pass
            return msg

    async def receive(self) -> Message:
        """The next message. The server's ``goodbye`` is returned (once), then the
        connection is closed and further calls raise :class:`ConnectionLost`
        (not resumable). A drop raises :class:`ConnectionLost` (resumable)."""
        if self.closed:
            why = self.goodbye.reason if self.goodbye else "closed"
            raise ConnectionLost(f"the connection is closed ({why})", resumable=False)
        msg = await self._read_one()
        if isinstance(msg, Goodbye):
            self.goodbye = msg
            self.closed = True
            self._drop_socket()
        return msg

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Message]:
        while not self.closed:
            yield await self.receive()

    async def events(self, *, reconnect: bool = True,
                     through_shutdown: Callable[[], bool] | None = None
                     ) -> AsyncIterator[Message | LinkEvent]:
        """Messages until the server's goodbye (included) or :meth:`close`.

        With ``reconnect``, a drop yields :class:`LinkLost`, then the library
        reconnects with the token and yields any handshake ``error`` (e.g.
        ``bad_token``) and :class:`LinkRestored`; messages go on from there.
        If reconnecting fails, :class:`ConnectionLost` or :class:`ConnectFailed`
        is raised.

        ``through_shutdown``: asked when the server says goodbye because it is
        stopping (``server_shutdown``) and keeps its games (``kept`` not false: an
        older server does not say); if it answers true (e.g. a game of ours is
        running: the server keeps it, and a restart brings it back), the goodbye is
        not yielded but a :class:`LinkLost` with ``stopped``, and the library tries
        to resume the session until the server is back (or :meth:`close`).
        """
        while not self.closed:
            try:
                msg = await self.receive()
            except ConnectionLost as exc:
                if self.closed or not reconnect or not exc.resumable or self.token is None:
                    if self.closed:
                        return
                    raise
                yield LinkLost(str(exc), address=self.address)
                welcome = await self.reconnect()
                for err in self.handshake_errors:
                    yield err
                yield LinkRestored(welcome)
                continue
            if isinstance(msg, Goodbye) and msg.reason == "server_shutdown" and reconnect \
                    and msg.kept is not False and self.token is not None \
                    and not self._user_closed \
                    and through_shutdown is not None and through_shutdown():
                yield LinkLost(msg.message or "the server is stopping", stopped=True,
                               address=self.address)
                welcome = await self.reconnect(within=math.inf)
                self.goodbye = None  # (this connection is a new one)
                for err in self.handshake_errors:
                    yield err
                yield LinkRestored(welcome)
                continue
            yield msg

    async def reconnect(self, *, within: float | None = None) -> Welcome:
        """Connect again and resume the session with the token.

        Retries (with short waits) for ``within`` seconds (default: the server's
        ``reconnect_grace``, at most 120; ``math.inf``: until it works or
        :meth:`close`). Returns the new welcome: if its ``resumed`` is false, the old
        session was gone and this is a new one.
        """
        if self.token is None:
            raise ConnectionLost("no session to resume", resumable=False)
        if within is None:
            grace = self.limits.reconnect_grace if self.limits is not None else 60.0
            within = min(grace, 120.0)
        deadline = time.monotonic() + within
        attempt = 0
        while True:
            wait = _BACKOFF[min(attempt, len(_BACKOFF) - 1)]
            if wait:
                await asyncio.sleep(wait)
            attempt += 1
            if self._user_closed:
                raise ConnectionLost("the connection was closed", resumable=False)
            try:
                await self._open_socket()
                self.closed = False  # after the server's goodbye: this connection is a new one
                welcome = await self._handshake()
                if self._user_closed:  # close() was called meanwhile
                    self.closed = True
                    self._drop_socket()
                    raise ConnectionLost("the connection was closed", resumable=False)
                return welcome
            except (ConnectFailed, ConnectionLost, SendFailed) as exc:
                # SendFailed: the connection was reset while the hello was written
                if isinstance(exc, ConnectionLost) and not exc.resumable:
                    raise
                last: ClientError = exc
            except HandshakeFailed as exc:
                if exc.goodbye is not None and exc.goodbye.reason in _FINAL_GOODBYES:
                    raise
                last = exc
            if time.monotonic() >= deadline:
                raise ConnectionLost(f"lost the connection to {self.address} and could not "
                                     f"get it back ({last})", resumable=False)
            log.info("reconnect attempt %d failed: %s", attempt, last)

    # -- writing ------------------------------------------------------------------
    async def send(self, msg: Message) -> int | None:
        """Send a client message; returns the request ``id`` given to it.

        Raises :class:`SendFailed` if the connection's state does not allow the
        message (e.g. a ``commit`` after ``game_over`` arrived) or if there is no
        link at the moment.
        """
        if isinstance(msg, P.Join | P.Queue) and msg.entropy_hash is None \
                and self._conn is not None and self._conn.version >= 3 \
                and (msg.entropy is not None or self.entropy):
            # commit now, reveal once the seats are fixed: from version 4 the server
            # refuses entropy in the clear, so a caller's own entropy goes as its hash
            secret = (bytes.fromhex(msg.entropy) if msg.entropy is not None
                      else secrets.token_bytes(JOIN_ENTROPY_BYTES))
            self._reveal = secret
            msg = dataclasses.replace(msg, entropy=None,
                                      entropy_hash=hashlib.sha256(secret).hexdigest())
        elif isinstance(msg, P.Join | P.Queue) and msg.entropy is None \
                and msg.entropy_hash is None and self.entropy and self._conn is not None \
                and self._conn.version == 2:
            msg = dataclasses.replace(msg, entropy=secrets.token_hex(JOIN_ENTROPY_BYTES))
        rid: int | None = msg.id
        if rid is None and not isinstance(msg, Pong | Goodbye | P.Hello):
            rid = self._next_id
            self._next_id += 1
            msg = dataclasses.replace(msg, id=rid)
        await self._write(msg)
        return rid

    async def _write(self, msg: Message) -> None:
        conn, writer = self._conn, self._writer
        if conn is None or writer is None or self.closed:
            raise SendFailed("not connected to the server")
        try:
            data = conn.send(msg)
        except LocalProtocolError as exc:
            raise SendFailed(f"cannot send {msg.TYPE!r} now ({exc})") from None
        async with self._write_lock:
            try:
                writer.write(data)
                await writer.drain()
            except (OSError, RuntimeError) as exc:
                raise SendFailed(f"the connection is down ({exc})") from None

    # -- closing ------------------------------------------------------------------
    async def close(self, reason: str = "quit", message: str = "") -> None:
        """Say goodbye (if still connected) and close. Safe to call twice."""
        self._user_closed = True
        if self._writer is not None and not self.closed:
            try:
                async with asyncio.timeout(1.0):
                    await self._write(Goodbye(reason=reason, message=message))
            except (SendFailed, TimeoutError):
                pass
        self.closed = True
        writer = self._writer
        self._drop_socket()
        if writer is not None:
            try:
                async with asyncio.timeout(1.0):
                    await writer.wait_closed()
            except (OSError, TimeoutError):
                pass

    def _drop_socket(self) -> None:
        writer = self._writer
        self._reader = self._writer = None
        if self._conn is not None:
            self._conn.close()
        if writer is not None:
            writer.close()

    async def __aenter__(self) -> ClientConnection:
        return self

    async def __aexit__(self, et: type[BaseException] | None, ev: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


async def connect(host: str, port: int = DEFAULT_PORT, name: str = "player",
                  kind: str = "human", token: str | None = None, *,
                  software: str | None = SOFTWARE,
                  connect_timeout: float = 5.0,
                  handshake_timeout: float = 10.0,
                  key: str | None = None) -> ClientConnection:
    """Open a connection and do the handshake; ``conn.welcome`` holds the welcome.

    With ``token`` (from an earlier ``welcome``), the session is resumed if the
    server still has it (``conn.welcome.resumed``). With ``key`` (``SessionStore.key``)
    the name is claimed, or proved to be ours (``conn.welcome.claimed``).
    """
    conn = ClientConnection(host, port, name, kind, token=token, software=software,
                            connect_timeout=connect_timeout,
                            handshake_timeout=handshake_timeout, key=key)
    await conn.open()
    return conn
