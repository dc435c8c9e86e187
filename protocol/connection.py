"""An h11-style connection: bytes in, messages out, messages in, bytes out. No I/O."""

from __future__ import annotations

from typing import Final

from .base import Message, decode_message, downgrade, drop_newer_nils, newer_field
from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from .framing import CONNECTION_CLOSED, FrameDecoder, Sentinel, encode_body, restamp_frame
from .states import BY_STATE, ConnState, Role
from .structs import DEFAULT_MAX_FRAME_SIZE, PROTOCOL_VERSION

__all__ = ["Connection", "CLIENT", "SERVER"]

CLIENT: Final = Role.CLIENT
SERVER: Final = Role.SERVER
_CLOSED: Final = ConnState.CLOSED


#: (message, protocol version, its frame, the seq in it): the server's last frame
_last_encoded: tuple[Message, int, bytes, int] | None = None
#: Frames from this size are kept for the next member: a table's state (800 bytes)
#: restamps in a sixth of the time of encoding it; a game event (40-80 bytes) encodes
#: as fast as it restamps.
_RESTAMP_FROM: Final = 160


class Connection:
    """One end of a nimmt connection.

    ``Connection(our_role=SERVER)`` is what the server keeps per socket,
    ``Connection(our_role=CLIENT)`` what a client keeps.  Feed received bytes to
    :meth:`receive_data` (``b""`` at end of stream), then call
    :meth:`next_message` until it returns :data:`NEED_DATA`; turn messages into
    bytes with :meth:`send` and write them out.

    :attr:`state` follows the transition table of :mod:`.states` for messages in
    both directions.  A server connection numbers what it sends (``seq`` 1, 2,
    ...); a client connection checks that numbering.

    :meth:`next_message` raises :class:`RemoteProtocolError` only.  If its
    ``fatal`` is true the stream cannot be trusted any more (send a goodbye if
    you like, then close; later calls raise again); otherwise the offending
    frame was dropped, the state did not change and the connection may go on
    (a server answers with ``Error.from_exception(exc)``).

    :attr:`version` is the protocol version of the connection: the ``hello``'s
    (sent or received). Messages sent leave out the fields a version does not
    have; received ones that carry such a field are refused (``extra_field``).
    """

    __slots__ = ("our_role", "their_role", "max_frame_size", "version", "_state", "_decoder",
                 "_next_seq", "_last_seq", "_recv", "_send", "_error")

    def __init__(self, our_role: Role, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> None:
        if not isinstance(our_role, Role):
            raise TypeError("our_role must be Role.CLIENT or Role.SERVER")
        self.our_role: Final = our_role
        self.their_role: Final = our_role.other
        self.max_frame_size: Final = max_frame_size
        self._decoder = FrameDecoder(self.their_role, max_frame_size)
        self._next_seq = 1  # next seq we send (server)
        self._last_seq = 0  # last seq we received (client)
        self._error: RemoteProtocolError | None = None
        self.version = PROTOCOL_VERSION
        self._set_state(ConnState.HANDSHAKE)

    def __repr__(self) -> str:
        return f"<Connection our_role={self.our_role!r} state={self._state!r}>"

    # -- state -------------------------------------------------------------------
    @property
    def state(self) -> ConnState:
        """The connection's state (see :mod:`nimmt.protocol.states`)."""
        return self._state

    def _set_state(self, state: ConnState) -> None:
        self._state = state
        self._recv = BY_STATE[self.their_role][state]
        self._send = BY_STATE[self.our_role][state]

    @property
    def buffered(self) -> int:
        """Received bytes not yet consumed."""
        return self._decoder.buffered

    @property
    def next_seq(self) -> int:
        """The ``seq`` the next message sent by a server connection will carry."""
        return self._next_seq

    # -- receiving ---------------------------------------------------------------
    def receive_data(self, data: bytes | bytearray) -> None:
        """Bytes read from the socket; ``b""`` when the peer closed its side."""
        self._decoder.receive_data(data)

    def next_message(self) -> Message | Sentinel:
        """The next message from the peer, :data:`NEED_DATA` or :data:`CONNECTION_CLOSED`.

        Once the state is ``closed`` (a goodbye went either way), further frames
        are read and dropped: a message crossing a goodbye is not an error.
        """
        if self._error is not None:
            raise self._error
        dec = self._decoder
        while True:
            try:
                body = dec.next_body()
            except RemoteProtocolError:
                if self._state is _CLOSED:
                    return CONNECTION_CLOSED
                raise
            if type(body) is not bytes:
                if body is CONNECTION_CLOSED and self._state is not _CLOSED:
                    self._set_state(_CLOSED)
                return body  # type: ignore[return-value]
            if self._state is _CLOSED:
                continue
            try:
                msg = dec.decode_body(body)
            except RemoteProtocolError as e:
                if self.version >= PROTOCOL_VERSION or e.fatal:
                    raise
                msg = self._decode_without_newer_nils(body, e)
            if msg.TYPE == "hello":
                self.version = msg.protocol  # type: ignore[attr-defined]
            if self.our_role is CLIENT:
                seq = msg.seq
                if seq != self._last_seq + 1:
                    self._error = RemoteProtocolError(
                        ErrorCode.BAD_SEQUENCE, f"seq {seq} after {self._last_seq}", "seq",
                        fatal=True, request=msg.TYPE,
                    )
                    raise self._error
                self._last_seq = seq
            if self.version < PROTOCOL_VERSION:
                if msg.SINCE > self.version:
                    raise RemoteProtocolError(
                        ErrorCode.UNKNOWN_TYPE, _not_in_version(msg, self.version), "type",
                        request=msg.TYPE, re=msg.id)
                if msg._NEWER:
                    self._refuse_newer(msg, body)
            new = self._recv.get(msg.TYPE)
            if new is None:
                raise RemoteProtocolError(
                    ErrorCode.UNEXPECTED_MESSAGE,
                    f"{msg.TYPE!r} is not expected in state {self._state.value!r}",
                    "type", request=msg.TYPE, re=msg.id,
                )
            if new is not self._state:
                self._set_state(new)
            return msg

    def _decode_without_newer_nils(self, body: bytes, error: RemoteProtocolError) -> Message:
        """``body`` decoded without the nils of fields this connection's version does
        not have (tolerated, docs/PROTOCOL.md), or ``error`` if it had none."""
        data = self._decoder._body.unpack(body)
        if type(data) is not dict or not drop_newer_nils(data, self.version):
            raise error
        return decode_message(data, self.their_role)

    def _refuse_newer(self, msg: Message, body: bytes) -> None:
        field = newer_field(type(msg), self._decoder._body.unpack(body), self.version)
        if field is not None:
            raise RemoteProtocolError(
                ErrorCode.EXTRA_FIELD,
                f"unknown field {field!r} (protocol {self.version} has no such field)",
                field, request=msg.TYPE, re=msg.id,
            )

    # -- sending -----------------------------------------------------------------
    def _encode(self, msg: Message) -> bytes:
        """A server message's frame with this connection's ``seq``. The large frame made
        last (by any connection) is kept: a message told to a whole table is encoded
        once and only its ``seq`` changed for the next member (``restamp_frame``)."""
        global _last_encoded
        seq, version = self._next_seq, self.version
        last = _last_encoded
        if last is not None and last[0] is msg and last[1] == version:
            data = restamp_frame(last[2], msg.TYPE, last[3], seq, self.max_frame_size)
            if data is not None:
                return data
        wire = msg.to_wire(seq)
        if version < PROTOCOL_VERSION and msg._NEWER:
            downgrade(msg, wire, version)
        data = encode_body(wire, self.max_frame_size)
        if len(data) >= _RESTAMP_FROM:
            _last_encoded = (msg, version, data, seq)
        return data

    def send(self, msg: Message) -> bytes:
        """The bytes to write for ``msg``; moves the state.

        A server connection stamps ``seq`` (any ``seq`` on ``msg`` is ignored).
        Raises :class:`LocalProtocolError` if ``msg`` is not ours to send, not
        allowed in the current state, or too large for a frame.
        """
        new = self._send.get(msg.TYPE)
        if new is None:
            role = self.our_role
            if role not in msg.SENDERS:
                text = f"a {role.value} never sends {msg.TYPE!r}"
            else:
                text = f"cannot send {msg.TYPE!r} in state {self._state.value!r}"
            raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE, text, "type")
        if msg.SINCE > self.version and msg.TYPE != "hello":
            raise LocalProtocolError(ErrorCode.UNKNOWN_TYPE, _not_in_version(msg, self.version),
                                     "type")
        if self.our_role is SERVER:
            if msg.id is not None:
                raise LocalProtocolError(ErrorCode.EXTRA_FIELD, "a server message has no id",
                                         "id")
            data = self._encode(msg)
            self._next_seq += 1
        else:
            if msg.seq is not None or msg.re is not None:
                raise LocalProtocolError(ErrorCode.EXTRA_FIELD,
                                         "a client message has no seq or re", "seq")
            if msg.TYPE == "hello":
                self.version = msg.protocol  # type: ignore[attr-defined]
            wire = msg.to_wire()
            if self.version < PROTOCOL_VERSION and msg._NEWER:
                # our own mistake: the server would refuse it with extra_field
                field = newer_field(type(msg), wire, self.version)
                if field is not None:
                    raise LocalProtocolError(
                        ErrorCode.EXTRA_FIELD, f"{field!r} is not in protocol {self.version}: "
                        f"leave it out, or say protocol {PROTOCOL_VERSION} in the hello", field)
                downgrade(msg, wire, self.version)
            data = encode_body(wire, self.max_frame_size)
        if new is not self._state:
            self._set_state(new)
        return data

    def close(self) -> None:
        """Mark the connection closed locally (after a fatal error, or the socket died)."""
        self._set_state(_CLOSED)


def _not_in_version(msg: Message, version: int) -> str:
    return (f"{msg.TYPE!r} is not in protocol {version}: it came in protocol {msg.SINCE} "
            f"(say protocol {msg.SINCE} in the hello to use it)")
