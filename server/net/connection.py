"""One client connection: reader, writer and heartbeat, with every protection.

* The writer empties a small bounded queue of encoded frames. ``ClientConnection.send``
  never blocks: when the queue is full the client is too slow to read and is
  dropped (it may reconnect with its token). Nobody ever awaits a client.
* The reader enforces the hello deadline, the frame deadline (a frame begun must
  be complete within ``frame_timeout``), the request rate (a token bucket:
  ``rate_limit`` a second, bursts of twice that) and the protocol: a protocol
  error gets an ``error``, a fatal one (or a long run of bad frames) also a
  ``goodbye`` and the end.
* The heartbeat pings a client when nothing was sent to it, or nothing received
  from it, for ``ping_interval``; no answer within ``pong_timeout``: the peer is
  dead (a half-open connection) and is dropped.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from typing import Any, Protocol

import trio

from nimmt import protocol as P
from nimmt.protocol.states import CLIENT_GAME

from ..config import ServerConfig
from ..sessions.limits import Admission, LogLimiter, TokenBucket, left_out
from ..lobby.lobby import Lobby
from ..sessions.session import Session

__all__ = ["ClientConnection"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode
#: a version 4 join or queue with entropy in the clear (docs/PROTOCOL.md, Verifiable deals)
PLAIN_ENTROPY_REFUSED = ("no entropy in the clear from protocol 4 on: send entropy_hash, "
                         "the SHA-256 of your entropy, and reveal it when the server asks "
                         "(reveal_request)")

RECEIVE_SIZE = 65536
_BATCH = 64  # frames joined into one write
BAD_FRAMES_MAX = 20  # invalid frames in a row before the connection is closed
_WELCOMED = (P.ConnState.LOBBY, P.ConnState.SEATED, P.ConnState.WATCHING, P.ConnState.PLAYING)


class Server(Protocol):
    """What a connection uses of its server (``server.app.Server``)."""

    config: ServerConfig
    admission: Admission
    log_limit: LogLimiter

    @property
    def lobby(self) -> Lobby: ...
    def forget(self, client: ClientConnection) -> None: ...


def peer_address(stream: trio.abc.Stream) -> str | None:
    """The IP address the connection comes from; None if it is not a network socket."""
    sock = getattr(stream, "socket", None)
    if sock is None:
        return None
    try:
        return str(sock.getpeername()[0])
    except OSError:
        return "?"


def peer_name(stream: trio.abc.Stream) -> str:
    sock = getattr(stream, "socket", None)
    if sock is None:
        return "memory"
    try:
        host, port = sock.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"


class ClientConnection:
    """A connection from ``hello`` to ``goodbye`` (or to its drop)."""

    def __init__(self, server: Server, stream: trio.abc.Stream, cid: int) -> None:
        config = server.config
        self.server = server
        self.config = config
        self.stream = stream
        self.cid = cid
        self.peer = peer_name(stream)
        self.address = peer_address(stream)  # what the per-address limits count
        self.proto = P.Connection(P.SERVER, max_frame_size=config.max_frame_size)
        # frames waiting for the writer (at most ``send_queue``: a client that reads too
        # slowly is dropped); the writer sleeps on ``_ready`` only while it is empty
        self._outbox: deque[bytes] = deque()
        self._ready: trio.Event | None = None
        self._outbox_closed = False  # a goodbye is the last frame: the writer ends there
        self.session: Session | None = None
        self.scope = trio.CancelScope()
        self.closing = False  # a goodbye is queued or the connection dropped: send no more
        self.reason = ""
        now = trio.current_time()
        self.started = now
        self.last_received = now
        self.last_sent = now
        self.last_request = now  # the last message that was not a ping or a pong
        self.bucket = TokenBucket(config.rate_limit, 2 * config.rate_limit, now)
        self._limited = False
        self._bad_frames = 0
        self._frames = 0  # frames received, valid or not
        # a hello was answered, or is being answered (a new claim's welcome waits for
        # its write): the hello deadline is over for this connection
        self.greeted = False
        self.sent = 0
        self.received = 0

    def __repr__(self) -> str:
        return f"<ClientConnection {self.cid} {self.peer}>"

    @property
    def welcomed(self) -> bool:
        return self.proto.state in _WELCOMED

    # ------------------------------------------------------------------ sending
    def send(self, msg: Any) -> bool:
        """Queue ``msg``; never blocks. A full queue drops the client (too slow)."""
        if self.closing:
            return False
        try:
            data = self.proto.send(msg)
        except P.LocalProtocolError as e:
            # Not allowed in this state (a race, e.g. an event for a connection that
            # has not been given its table's snapshot yet): not sent.
            log.debug("conn=%s not sent %s in state %s: %s", self.cid, msg.TYPE,
                      self.proto.state.value, e)
            return False
        outbox = self._outbox
        if len(outbox) >= self.config.send_queue:
            self.drop("slow_reader", f"{self.config.send_queue} messages waiting")
            return False
        outbox.append(data)
        ready = self._ready
        if ready is not None:  # the writer sleeps: wake it (once)
            self._ready = None
            ready.set()
        self.sent += 1
        return True

    def close(self, reason: str, text: str = "", *, kept: bool | None = None) -> None:
        """Say goodbye, let the writer flush for a moment, then close (``kept``: the
        goodbye's, for a shutdown)."""
        if self.closing:
            return
        self.send(P.Goodbye(reason=reason, message=text[:500], kept=kept))
        if self.closing:  # dropped while queueing the goodbye
            return
        self.closing = True
        self.reason = reason if not text else f"{reason} ({text})"
        self._outbox_closed = True
        ready = self._ready
        if ready is not None:
            self._ready = None
            ready.set()
        self.scope.deadline = min(self.scope.deadline,
                                  trio.current_time() + self.config.shutdown_flush)

    def drop(self, reason: str, text: str = "") -> None:
        """End the connection now, without a goodbye."""
        if not self.closing:
            self.reason = reason if not text else f"{reason} ({text})"
        self.closing = True
        self.scope.cancel()

    # ------------------------------------------------------------------ the tasks
    async def run(self) -> None:
        log.info("conn=%s peer=%s connected", self.cid, self.peer)
        try:
            with self.scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer)
                    nursery.start_soon(self._pinger)
                    await self._reader()
                    if not self.closing:
                        self.drop("closed by peer")
                    # the writer flushes the goodbye, then cancels the scope
                    await trio.sleep_forever()
        finally:
            self.closing = True
            session = self.session
            self.server.lobby.disconnected(self)
            self.server.forget(self)
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(self.stream)
            where = ""
            if session is not None:
                where = f" session={session.sid}"
                if session.table is not None:
                    where += f" table={session.table.id}"
                    if session.seat is not None:
                        where += f" seat={session.seat}"
            log.info("conn=%s closed: %s%s (sent %d, received %d)", self.cid,
                     self.reason or "closed", where, self.sent, self.received)

    async def _writer(self) -> None:
        outbox = self._outbox
        stream = self.stream
        try:
            while True:
                if not outbox:
                    if self._outbox_closed:
                        break
                    ready = self._ready = trio.Event()
                    await ready.wait()
                    continue
                if len(outbox) == 1:
                    data = outbox.popleft()
                else:
                    data = b"".join([outbox.popleft()
                                     for _ in range(min(len(outbox), _BATCH))])
                await stream.send_all(data)
                self.last_sent = trio.current_time()  # what the pinger counts as quiet
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.drop("connection lost")
            return
        # the goodbye was the last frame: everything is sent
        self.scope.cancel()

    async def _pinger(self) -> None:
        """Ping when the connection was quiet (nothing sent, or nothing received) for
        ``ping_interval``; close it if nothing comes back within ``pong_timeout``."""
        config = self.config
        nonce = 0
        waiting: float | None = None  # when the unanswered ping was sent
        pinged = -math.inf  # when the last ping was sent
        while True:
            quiet = max(min(self.last_sent, self.last_received), pinged)
            wake = quiet + config.ping_interval
            if waiting is not None:
                wake = min(wake, waiting + config.pong_timeout)
            await trio.sleep_until(wake)
            if self.closing:
                return
            now = trio.current_time()
            if waiting is not None:
                if self.last_received >= waiting:
                    waiting = None  # a pong (or anything) came back
                elif now >= waiting + config.pong_timeout:
                    self.close(E.TIMEOUT, f"no answer to a ping within {config.pong_timeout:g} s")
                    return
            quiet = max(min(self.last_sent, self.last_received), pinged)
            if now < quiet + config.ping_interval:
                continue
            pinged = now
            if not self.welcomed:  # the hello deadline watches this connection
                continue
            nonce += 1
            self.send(P.Ping(nonce=nonce))
            if waiting is None:
                waiting = now

    async def _reader(self) -> None:
        config = self.config
        proto = self.proto
        stream = self.stream
        hello_deadline = self.started + config.hello_timeout
        frame_started: float | None = None  # when the frame not yet complete began
        while True:
            deadline = hello_deadline if not self.greeted else math.inf
            if frame_started is not None:
                deadline = min(deadline, frame_started + config.frame_timeout)
            with trio.move_on_at(deadline):
                try:
                    data = await stream.receive_some(RECEIVE_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    self.drop("connection lost")
                    return
                if not data:
                    self.drop("closed by peer")
                    return
                self.last_received = now = trio.current_time()
                frames = self._frames
                proto.receive_data(data)
                if not self._messages():
                    return
                if not proto.buffered:
                    frame_started = None
                elif frame_started is None or self._frames != frames:
                    frame_started = now  # a frame ended in this data and the next began
                continue
            if not self.greeted and trio.current_time() >= hello_deadline:
                self.close(E.TIMEOUT, f"no hello within {config.hello_timeout:g} s")
            else:
                self.close(E.TIMEOUT, f"a frame begun {config.frame_timeout:g} s ago "
                           "is not complete")
            return

    def _messages(self) -> bool:
        """Handle every complete message received; False when the connection ends."""
        proto = self.proto
        bucket = self.bucket
        while not self.closing:
            try:
                msg = proto.next_message()
            except P.RemoteProtocolError as e:
                self._frames += 1
                log.info("conn=%s protocol error: %s", self.cid, e)
                self.send(P.Error.from_exception(e))
                if e.code == E.UNSUPPORTED_VERSION:
                    self.close(E.UNSUPPORTED_VERSION, e.message)
                    return False
                if e.fatal:
                    self.close("protocol_error", e.message)
                    return False
                if e.code != E.UNEXPECTED_MESSAGE:
                    self._bad_frames += 1
                    if self._bad_frames >= BAD_FRAMES_MAX:
                        self.close("protocol_error", f"{BAD_FRAMES_MAX} invalid frames in a row")
                        return False
                if not self._within_rate(bucket) and self.closing:
                    return False
                continue
            if msg is P.NEED_DATA:
                return True
            if msg is P.CONNECTION_CLOSED:
                self.drop("closed by peer")
                return False
            self.received += 1
            self._frames += 1
            self._bad_frames = 0
            tag = msg.TYPE  # type: ignore[union-attr]
            if tag != "pong" and tag != "ping":
                self.last_request = self.last_received
            # A game decision is not counted here: the game's own pace bounds the
            # useful ones, and the table charges the others (see ``charge``), so a
            # bot playing at full speed is never slowed down by the limit. Nor is
            # the hello (once a connection): the bucket is full at the welcome.
            if tag not in CLIENT_GAME and tag != "hello" and not self._within_rate(bucket):
                if self.closing:
                    return False
                continue
            self._dispatch(msg)  # type: ignore[arg-type]
            if tag == "hello" and not self.closing and self.session is not None:
                # welcomed, or to be once its new claim is on disk: either way no longer
                # one of the connections that have not said hello (Admission)
                self.greeted = True
                self.server.admission.welcomed(self)
        return False

    def charge(self) -> None:
        """Count a wasted decision (refused, or a commit replaced) against the rate."""
        if self.closing:
            return
        if not self.bucket.take(trio.current_time()) and self.bucket.abusive:
            self._close_for_flooding()

    def count(self) -> bool:
        """Count a request refused before it was handled (its table has too many of
        this connection's requests waiting) as if it had just arrived: True while
        the rate allows it (the caller answers it); past it, it is dropped like any
        message over the rate (``rate_limited``, and at last ``goodbye``)."""
        if self.closing:
            return False
        return self._within_rate(self.bucket)

    def _close_for_flooding(self) -> None:
        """A whole burst over the rate: goodbye. So that closing a flooder does not
        just invite it to come back and flood again, its session may not resume for
        a while, longer at each flood (``ResumeMeter.flooded``), and its address may
        not connect for a moment (``Admission.flooded``: a moment only, since
        others may share the address)."""
        now = trio.current_time()
        config = self.config
        wait = self.server.admission.flooded(self.address, now)
        session = self.session
        resume = 0.0
        if session is not None:
            meter = session.resumes(config.resume_rate, config.resume_burst, now)
            resume = meter.flooded(now, config.flood_cooldown, config.flood_cooldown_max)
        skipped = self.server.log_limit.allow("flooding", now)
        if skipped is not None:
            log.warning("conn=%s from %s closed for flooding; its session may resume in %g s, "
                        "its address connect in %g s%s", self.cid, self.peer, resume, wait,
                        left_out(skipped))
        self.close(E.RATE_LIMITED, "far too many messages")

    def _within_rate(self, bucket: TokenBucket) -> bool:
        if bucket.take(trio.current_time()):
            self._limited = False
            return True
        if bucket.abusive:
            self._close_for_flooding()
            return False
        if not self._limited:
            self._limited = True
            self.send(P.Error(code=E.RATE_LIMITED,
                              message=f"more than {self.config.rate_limit} messages a second: "
                              "messages are dropped"))
        return False

    def _dispatch(self, msg: P.Message) -> None:
        try:
            self._route(msg)
        except Exception:
            # A bug must not take the server down: this request fails, nothing else.
            log.exception("conn=%s internal error on %s", self.cid, msg.TYPE)
            self.send(P.Error(code=E.INTERNAL_ERROR, message="a bug in the server",
                              request=msg.TYPE, re=msg.id))

    def _route(self, msg: P.Message) -> None:
        match msg:
            case P.Ping(nonce=nonce):
                self.send(P.Pong(nonce=nonce, re=msg.id))
            case P.Pong():
                pass
            case P.Goodbye(reason=reason):
                self.drop("goodbye: " + reason)
            case P.Hello():
                self.server.lobby.hello(self, msg)
            case P.Join() | P.Queue() if msg.entropy is not None and self.proto.version >= 4:
                # in the clear, a contribution can be ground against by a later joiner
                # told it by a colluding server: version 4 takes only its hash (version 3,
                # released taking both, still does: it is served as documented then)
                self.send(P.Error(code=E.OUT_OF_RANGE, field="entropy", request=msg.TYPE,
                                  re=msg.id, message=PLAIN_ENTROPY_REFUSED))
            case _:
                self.server.lobby.request(self, msg)
