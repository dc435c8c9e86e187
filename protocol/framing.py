"""Framing: a 4-byte big-endian body length, then one msgpack map. No I/O.

``encode_frame(msg)`` turns a message into bytes; :class:`FrameDecoder` turns a
byte stream back into messages.  The decoder refuses a length over
``max_frame_size`` as soon as the 4 length bytes are in, before any of the body
is kept, and unpacks with explicit msgpack limits: no ext types, no bin,
bounded strings, arrays, maps and nesting, string map keys only.
"""

from __future__ import annotations

import enum
import struct
import threading
from typing import Any, Final

import msgpack

from .base import Message, decode_table, decode_with
from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from .states import Role
from .structs import DEFAULT_MAX_FRAME_SIZE

__all__ = [
    "Sentinel",
    "NEED_DATA",
    "CONNECTION_CLOSED",
    "HEADER_SIZE",
    "MAX_STR_LEN",
    "MAX_ARRAY_LEN",
    "MAX_MAP_LEN",
    "encode_frame",
    "encode_body",
    "restamp_frame",
    "unpack_body",
    "FrameDecoder",
]


class Sentinel(enum.Enum):
    """Markers returned by ``next_message`` instead of a message."""

    NEED_DATA = "NEED_DATA"
    CONNECTION_CLOSED = "CONNECTION_CLOSED"

    def __repr__(self) -> str:
        return self.value

    __str__ = __repr__


#: No complete frame is buffered: feed more bytes with ``receive_data``.
NEED_DATA: Final = Sentinel.NEED_DATA
#: The peer ended the stream (``receive_data(b"")``) and every frame was delivered.
CONNECTION_CLOSED: Final = Sentinel.CONNECTION_CLOSED

HEADER_SIZE: Final = 4
MAX_STR_LEN: Final = 4096  # bytes of UTF-8; every text field is far shorter
MAX_ARRAY_LEN: Final = 1024
MAX_MAP_LEN: Final = 64
_HEADER: Final = struct.Struct(">I")
_pack = _HEADER.pack
_unpack_from = _HEADER.unpack_from


def _no_ext(code: int, data: bytes) -> Any:
    raise _ExtRefused(code)


class _ExtRefused(Exception):
    pass


_packers = threading.local()  # a Packer is reused (its set-up costs as much as packing)


def _packer() -> msgpack.Packer:
    try:
        return _packers.packer  # type: ignore[no-any-return]
    except AttributeError:
        _packers.packer = msgpack.Packer(use_bin_type=True)
        return _packers.packer  # type: ignore[no-any-return]


def encode_body(wire: dict[str, Any], max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> bytes:
    """Pack a wire map into a frame (length prefix included)."""
    try:
        body: bytes = _packer().pack(wire)
    except (TypeError, ValueError, OverflowError) as e:  # pragma: no cover - validated before
        raise LocalProtocolError(ErrorCode.WRONG_TYPE, f"cannot pack: {e}") from None
    n = len(body)
    if n > max_frame_size:
        raise LocalProtocolError(
            ErrorCode.FRAME_TOO_LARGE, f"frame of {n} bytes exceeds the limit {max_frame_size}"
        )
    return _pack(n) + body


_SEQ_KEY: Final = msgpack.packb("seq")
_KINDS: dict[str, bytes] = {}  # tag -> its packed "type" key and value


def _packed_uint(n: int) -> bytes:
    """``msgpack.packb(n)`` for an int 0 <= n < 2**64 (the smallest form, as msgpack)."""
    if n < 0x80:
        return bytes((n,))
    if n < 0x100:
        return b"\xcc" + bytes((n,))
    if n < 0x10000:
        return b"\xcd" + n.to_bytes(2, "big")
    if n < 0x100000000:
        return b"\xce" + n.to_bytes(4, "big")
    return b"\xcf" + n.to_bytes(8, "big")


def restamp_frame(frame: bytes, tag: str, old_seq: int, new_seq: int,
                  max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> bytes | None:
    """``frame`` (from ``encode_body`` of a server message's wire map, whose keys
    begin ``type``, ``seq``) with ``seq`` ``new_seq`` instead of ``old_seq``: the bytes
    ``encode_body`` would give, without encoding the message again (one message goes
    to every member of a table, each connection with its own ``seq``). None when the
    frame does not begin that way (then encode it again)."""
    first = frame[HEADER_SIZE] if len(frame) > HEADER_SIZE else 0
    if 0x80 <= first <= 0x8F:
        at = HEADER_SIZE + 1  # fixmap
    elif first == 0xDE:
        at = HEADER_SIZE + 3  # map 16
    else:
        return None
    kind = _KINDS.get(tag)
    if kind is None:
        kind = _KINDS[tag] = msgpack.packb("type") + msgpack.packb(tag)
    if not frame.startswith(kind, at):
        return None
    at += len(kind)
    old = _SEQ_KEY + _packed_uint(old_seq)
    if not frame.startswith(old, at):
        return None
    new = _SEQ_KEY + _packed_uint(new_seq)
    size = len(frame) - HEADER_SIZE + len(new) - len(old)
    if size > max_frame_size:
        return None
    return b"".join((_pack(size), frame[HEADER_SIZE:at], new, frame[at + len(old):]))


def encode_frame(msg: Message, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> bytes:
    """The bytes of one frame carrying ``msg`` exactly as it is (no state, no seq)."""
    return encode_body(msg.to_wire(), max_frame_size)


def _new_unpacker(max_frame_size: int) -> msgpack.Unpacker:
    return msgpack.Unpacker(
        raw=False,
        strict_map_key=True,
        use_list=False,
        max_buffer_size=max(max_frame_size, 1),
        max_str_len=MAX_STR_LEN,
        max_bin_len=0,
        max_array_len=MAX_ARRAY_LEN,
        max_map_len=MAX_MAP_LEN,
        max_ext_len=0,
        ext_hook=_no_ext,
    )


def unpack_body(body: bytes, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> Any:
    """Unpack one frame body with the protocol's limits (RemoteProtocolError if bad)."""
    return _Body(max_frame_size).unpack(body)


class _Body:
    """A reusable limited msgpack unpacker for whole bodies (faster than unpackb(**kw))."""

    __slots__ = ("_max", "_u", "_fed")

    def __init__(self, max_frame_size: int) -> None:
        self._max = max_frame_size
        self._u = _new_unpacker(max_frame_size)
        self._fed = 0

    def unpack(self, body: bytes) -> Any:
        n = len(body)
        if n == 0:
            raise RemoteProtocolError(ErrorCode.BAD_MSGPACK, "empty frame")
        u = self._u
        try:
            u.feed(body)
            obj = u.unpack()
        except Exception as e:  # msgpack raises ValueError subclasses, OutOfData, ...
            self._reset()
            raise _bad_msgpack(e) from None
        self._fed += n
        if u.tell() != self._fed:
            self._reset()
            raise RemoteProtocolError(ErrorCode.BAD_MSGPACK, "extra bytes after the map")
        return obj

    def _reset(self) -> None:
        self._u = _new_unpacker(self._max)
        self._fed = 0


def _bad_msgpack(e: BaseException) -> RemoteProtocolError:
    if isinstance(e, _ExtRefused):
        text = "ext types are not allowed"
    elif isinstance(e, msgpack.OutOfData):
        text = "the map ends before the frame does"
    elif isinstance(e, msgpack.StackError):
        text = "nested too deeply"
    elif isinstance(e, UnicodeDecodeError):
        text = "a string is not valid UTF-8"
    else:
        text = str(e)[:200] or type(e).__name__
    return RemoteProtocolError(ErrorCode.BAD_MSGPACK, f"undecodable frame: {text}")


class FrameDecoder:
    """Split a byte stream into frames and decode them into messages sent by ``sender``.

    ``receive_data(b"")`` marks the end of the stream.  ``next_message()`` returns
    a message, :data:`NEED_DATA` or :data:`CONNECTION_CLOSED`, or raises
    :class:`RemoteProtocolError`.  Errors with ``fatal=True`` (``frame_too_large``,
    ``truncated``) leave the decoder broken: every later call raises again.  The
    others concern one complete frame, which is dropped; decoding may go on.
    """

    __slots__ = ("max_frame_size", "sender", "_buf", "_pos", "_eof", "_error", "_body", "_table")

    def __init__(self, sender: Role, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> None:
        if max_frame_size < 1:
            raise ValueError("max_frame_size must be positive")
        self.sender = sender
        self.max_frame_size = max_frame_size
        self._buf = bytearray()
        self._pos = 0
        self._eof = False
        self._error: RemoteProtocolError | None = None
        self._body = _Body(max_frame_size)
        self._table = decode_table(sender)

    @property
    def buffered(self) -> int:
        """Bytes received and not yet consumed."""
        return len(self._buf) - self._pos

    @property
    def eof(self) -> bool:
        return self._eof

    def receive_data(self, data: bytes | bytearray) -> None:
        """Add bytes from the peer; ``b""`` means the peer closed its side."""
        if self._eof:
            if data:
                raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE,
                                         "receive_data after end of stream")
            return
        if not data:
            self._eof = True
            return
        if self._error is not None:
            return  # broken stream: keep nothing
        buf = self._buf
        if self._pos and self._pos == len(buf):
            buf.clear()
            self._pos = 0
        buf += data
        self._check_header()

    def _check_header(self) -> bool:
        """Check the pending frame's length; on excess, drop everything and break."""
        buf, pos = self._buf, self._pos
        if len(buf) - pos >= HEADER_SIZE:
            (n,) = _unpack_from(buf, pos)
            if n > self.max_frame_size:
                self._buf = bytearray()
                self._pos = 0
                self._error = RemoteProtocolError(
                    ErrorCode.FRAME_TOO_LARGE,
                    f"frame length {n} exceeds the limit {self.max_frame_size}",
                    fatal=True,
                )
                return False
        return True

    def next_body(self) -> bytes | Sentinel:
        """The next complete frame body, or a sentinel; raises fatal framing errors."""
        if self._error is not None:
            raise self._error
        buf, pos = self._buf, self._pos
        avail = len(buf) - pos
        if avail >= HEADER_SIZE:
            (n,) = _unpack_from(buf, pos)
            if n > self.max_frame_size:
                self._check_header()
                raise self._error  # type: ignore[misc]
            end = pos + HEADER_SIZE + n
            if len(buf) >= end:
                body = bytes(buf[pos + HEADER_SIZE:end])
                if end == len(buf):
                    buf.clear()
                    self._pos = 0
                else:
                    self._pos = end
                    if end > 65536 and end * 2 > len(buf):
                        del buf[:end]
                        self._pos = 0
                    self._check_header()
                return body
        if self._eof:
            if avail:
                self._buf = bytearray()
                self._pos = 0
                self._error = RemoteProtocolError(
                    ErrorCode.TRUNCATED, f"stream ended inside a frame ({avail} bytes left)",
                    fatal=True,
                )
                raise self._error
            return CONNECTION_CLOSED
        return NEED_DATA

    def decode_body(self, body: bytes) -> Message:
        """Unpack and validate one frame body (RemoteProtocolError if it is not valid)."""
        return decode_with(self._body.unpack(body), self._table, self.sender)

    def next_message(self) -> Message | Sentinel:
        """The next message, :data:`NEED_DATA` or :data:`CONNECTION_CLOSED`."""
        body = self.next_body()
        if type(body) is not bytes:
            return body  # type: ignore[return-value]
        return decode_with(self._body.unpack(body), self._table, self.sender)
