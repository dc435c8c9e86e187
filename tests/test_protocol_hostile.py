"""Hostile bytes: the decoder raises RemoteProtocolError or asks for more, nothing else.

Every test here lets any exception other than RemoteProtocolError fail it, and
checks that the decoder never keeps more than one frame's worth of bytes.
"""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest
import nimmt.protocol as P
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nimmt.protocol import (
    CLIENT,
    CONNECTION_CLOSED,
    HEADER_SIZE,
    NEED_DATA,
    SERVER,
    FrameDecoder,
    RemoteProtocolError,
)
from nimmt.protocol.examples import EXAMPLES

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LIMIT = 2048  # a small frame limit makes oversize cases frequent
roles = st.sampled_from([CLIENT, SERVER])


def drain(dec: FrameDecoder | P.Connection, limit: int) -> list[Any]:
    """Read everything available; return messages and error codes; stop on a fatal error."""
    out: list[Any] = []
    while True:
        try:
            m = dec.next_message()
        except RemoteProtocolError as e:
            assert e.code in P.PROTOCOL_ERROR_CODES
            P.Error.from_exception(e)  # an error can always be answered
            out.append(e.code)
            if e.fatal:
                return out
            continue
        if m is NEED_DATA or m is CONNECTION_CLOSED:
            # never more than one incomplete frame is kept
            assert dec.buffered < HEADER_SIZE + limit
            return out
        assert isinstance(m, P.Message)
        out.append(m)


def feed_chunks(dec: FrameDecoder, data: bytes, cuts: list[int], limit: int) -> list[Any]:
    out: list[Any] = []
    for a, b in zip([0, *sorted(cuts)], [*sorted(cuts), len(data)], strict=True):
        if a < b:
            dec.receive_data(data[a:b])
            out += drain(dec, limit)
    dec.receive_data(b"")
    out += drain(dec, limit)
    return out


# --- random bytes --------------------------------------------------------------------------


@SETTINGS
@given(st.binary(max_size=5000), st.lists(st.integers(0, 5000), max_size=8), roles)
def test_random_bytes(data: bytes, cuts: list[int], role: P.Role) -> None:
    feed_chunks(FrameDecoder(role, LIMIT), data, [c for c in cuts if c <= len(data)], LIMIT)


@SETTINGS
@given(st.lists(st.binary(max_size=300), max_size=10), roles)
def test_random_bodies_with_valid_length_prefixes(bodies: list[bytes], role: P.Role) -> None:
    data = b"".join(struct.pack(">I", len(b)) + b for b in bodies)
    out = feed_chunks(FrameDecoder(role, LIMIT), data, [], LIMIT)
    assert len(out) == len(bodies)  # one message or one error per frame, in step


@SETTINGS
@given(st.binary(max_size=3000), roles)
def test_random_bytes_into_a_connection(data: bytes, role: P.Role) -> None:
    conn = P.Connection(role, max_frame_size=LIMIT)
    conn.receive_data(data)
    drain(conn, LIMIT)


# --- random msgpack values -------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=50)
    | st.binary(max_size=20)
)
keys = st.text(max_size=12) | st.sampled_from(["type", "seq", "id", "re", "card", "round"])
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=20,
)


def packed(obj: Any) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


@SETTINGS
@given(values, roles)
def test_random_msgpack_values(obj: Any, role: P.Role) -> None:
    out = feed_chunks(FrameDecoder(role, 65536), packed(obj), [], 65536)
    assert len(out) == 1


@st.composite
def mutated(draw: st.DrawFn) -> tuple[P.Role, dict[Any, Any]]:
    """A valid message's wire map with one field replaced, removed or added."""
    msg = EXAMPLES[draw(st.sampled_from(sorted(EXAMPLES)))]
    role = SERVER if msg.seq is not None else CLIENT
    wire: dict[Any, Any] = msg.to_wire()
    op = draw(st.sampled_from(["replace", "delete", "add", "nested"]))
    key = draw(st.sampled_from(sorted(wire)))
    if op == "replace":
        wire[key] = draw(values)
    elif op == "delete":
        del wire[key]
    elif op == "add":
        wire[draw(keys)] = draw(values)
    else:  # replace a value somewhere inside nested maps/arrays
        target: Any = wire
        path_key: Any = key
        while isinstance(target[path_key], (dict, list, tuple)) and target[path_key]:
            inner = target[path_key]
            if isinstance(inner, tuple):
                inner = list(inner)
                target[path_key] = inner
            target = inner
            path_key = (draw(st.sampled_from(sorted(inner))) if isinstance(inner, dict)
                        else draw(st.integers(0, len(inner) - 1)))
        target[path_key] = draw(values)
    return role, wire


@settings(SETTINGS, max_examples=600)
@given(mutated())
def test_mutated_valid_messages(rw: tuple[P.Role, dict[Any, Any]]) -> None:
    role, wire = rw
    dec = FrameDecoder(role)
    dec.receive_data(packed(wire))
    try:
        msg = dec.next_message()
    except RemoteProtocolError as e:
        assert e.code in P.PROTOCOL_ERROR_CODES and not e.fatal
        assert e.field is None or isinstance(e.field, str)
        return
    # accepted: then it is a valid message that re-encodes to something equal
    assert isinstance(msg, P.Message)
    assert P.decode_message(msg.to_wire(), role) == msg


# --- truncated, oversized, deeply nested -----------------------------------------------------


@SETTINGS
@given(st.sampled_from(sorted(EXAMPLES)), st.data())
def test_truncated_streams(tag: str, data: st.DataObject) -> None:
    msg = EXAMPLES[tag]
    frame = P.encode_frame(msg)
    cut = data.draw(st.integers(1, len(frame) - 1))
    dec = FrameDecoder(SERVER if msg.seq is not None else CLIENT)
    out = feed_chunks(dec, frame[:cut], [], P.DEFAULT_MAX_FRAME_SIZE)
    assert out == ["truncated"]


@SETTINGS
@given(st.integers(LIMIT + 1, 2**32 - 1), st.lists(st.binary(min_size=1, max_size=4096),
                                                  max_size=6), roles)
def test_oversized_length_prefix_is_refused_without_buffering(
    length: int, chunks: list[bytes], role: P.Role
) -> None:
    dec = FrameDecoder(role, LIMIT)
    header = struct.pack(">I", length)
    dec.receive_data(header[:2])
    assert dec.next_message() is NEED_DATA
    dec.receive_data(header[2:])
    assert dec.buffered == 0
    for c in chunks:
        dec.receive_data(c)
        assert dec.buffered == 0
    for _ in range(2):
        try:
            dec.next_message()
            raise AssertionError("an oversized frame was accepted")
        except RemoteProtocolError as e:
            assert e.code == "frame_too_large" and e.fatal


@SETTINGS
@given(st.integers(1, 20_000), st.sampled_from([b"\x91", b"\x81\xa1k"]), st.booleans())
def test_deep_nesting(depth: int, opener: bytes, inside: bool) -> None:
    nested = opener * depth + b"\xc0"
    if inside:  # as the value of a field of an otherwise valid commit
        body = (b"\x84" + msgpack.packb("type") + msgpack.packb("commit")
                + msgpack.packb("round") + b"\x01" + msgpack.packb("turn") + b"\x01"
                + msgpack.packb("card") + nested)
    else:
        body = nested
    dec = FrameDecoder(CLIENT, 1 << 20)
    dec.receive_data(struct.pack(">I", len(body)) + body)
    try:
        dec.next_message()
        raise AssertionError("a nested value was accepted")
    except RemoteProtocolError as e:
        assert e.code in P.PROTOCOL_ERROR_CODES and not e.fatal
        if depth > 1024:  # msgpack's own nesting limit
            assert e.code == "bad_msgpack"


@SETTINGS
@given(st.integers(-(2**63), 2**64 - 1), st.sampled_from(["card", "round", "turn", "id"]))
def test_huge_and_negative_ints(n: int, field: str) -> None:
    wire = {"type": "commit", "round": 1, "turn": 1, "card": 5, field: n}
    dec = FrameDecoder(CLIENT)
    dec.receive_data(packed(wire))
    try:
        msg = dec.next_message()
    except RemoteProtocolError as e:
        assert e.code == "out_of_range" and e.field == field
        return
    assert getattr(msg, field) == n


@SETTINGS
@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(2**63), 2**64 - 1)
       | st.booleans() | st.none() | st.text(max_size=5))
def test_float_fields(x: Any) -> None:
    wire = {"type": "turn_started", "seq": 1, "round": 1, "turn": 1, "deadline": x,
            "remaining": 1.0}
    dec = FrameDecoder(SERVER)
    dec.receive_data(packed(wire))
    try:
        msg = dec.next_message()
    except RemoteProtocolError as e:
        assert e.code in ("out_of_range", "wrong_type") and e.field == "deadline"
        return
    assert isinstance(msg, P.TurnStarted) and type(msg.deadline) is float
    assert 0.0 <= msg.deadline <= 1e11


def test_many_small_frames_do_not_accumulate() -> None:
    """A peer streaming valid frames: after each drain at most one partial frame is left."""
    frame = P.encode_frame(EXAMPLES["commit"])
    stream = frame * 5000
    dec = FrameDecoder(CLIENT, LIMIT)
    total = 0
    for i in range(0, len(stream), 999):
        dec.receive_data(stream[i:i + 999])
        out = drain(dec, LIMIT)
        assert all(m == EXAMPLES["commit"] for m in out)
        total += len(out)
        assert dec.buffered < len(frame)
    assert total == 5000


def reference_decode(wire: dict[Any, Any], role: P.Role) -> tuple[str, Any]:
    """The plain, unoptimised path: keys, then every field's full check in order."""
    import dataclasses

    cls = P.REGISTRY[wire["type"]]
    try:
        allowed, required = cls._KEYS[role]
        if cls._PRECHECK is not None:
            cls._PRECHECK(wire)
        if not wire.keys() <= allowed:
            return ("error", "extra_field")
        if not required <= wire.keys():
            return ("error", "missing_field")
        obj = object.__new__(cls)
        for f in dataclasses.fields(cls):
            v = wire.get(f.name, f.default)
            object.__setattr__(obj, f.name, v)
        obj._validate_slowly()
    except P.LocalProtocolError as e:
        return ("error", (e.code, e.field))
    if role is SERVER and obj.seq is None:
        return ("error", ("wrong_type", "seq"))
    return ("ok", obj)


@settings(SETTINGS, max_examples=600)
@given(mutated())
def test_generated_validators_agree_with_the_reference(rw: tuple[P.Role, dict[Any, Any]]) -> None:
    role, wire = rw
    if not isinstance(wire.get("type"), str) or wire["type"] not in P.REGISTRY:
        return
    if role not in P.REGISTRY[wire["type"]].SENDERS:
        return
    # msgpack turns arrays into tuples on the way: do the same
    wire = msgpack.unpackb(msgpack.packb(wire, use_bin_type=True), use_list=False,
                           strict_map_key=False)
    expected = reference_decode(wire, role)
    try:
        got: tuple[str, Any] = ("ok", P.decode_message(wire, role))
    except RemoteProtocolError as e:
        got = ("error", (e.code, e.field))
    if expected[0] == "error" and expected[1] in ("extra_field", "missing_field"):
        assert got[0] == "error" and got[1][0] == expected[1]
    else:
        assert got == expected


@SETTINGS
@given(key=st.text(max_size=120), nested=st.booleans())
def test_the_error_for_any_extra_key_can_be_built_and_sent(key: str, nested: bool) -> None:
    """Issue 8 item 5: an extra key "" or " " (or any other) gives an ``error`` the
    server can build and send, whose ``field`` is a valid, visible field path."""
    ping: dict[Any, Any] = {"type": "ping", "nonce": 1}
    create: dict[Any, Any] = {"type": "create_table", "options": {"seats": 4}}
    if nested:
        create["options"][key] = 1
        obj = create
    else:
        ping[key] = 1
        obj = ping
    if key in obj and not nested:
        return  # "type" or "nonce": not an extra key
    if nested and key in P.TableOptions.__dataclass_fields__:
        return  # an option the struct knows ("professional" = 1 is a wrong type, not extra)
    conn = P.Connection(SERVER)
    body = msgpack.packb(obj)
    conn.receive_data(struct.pack(">I", len(body)) + body)
    try:
        conn.next_message()
    except RemoteProtocolError as e:
        error = P.Error.from_exception(e)
        assert error.code == "extra_field" and error.field is not None
        assert error.field.strip() and error.field.isprintable()
        client = P.Connection(CLIENT)
        client.receive_data(conn.send(error))
        assert client.next_message().field == error.field
    else:  # a key the nested struct knows ("seats" and so on)
        assert nested


@pytest.mark.parametrize("key", ["", " ", "\t", "a" * 300])
def test_the_error_for_a_blank_extra_key_quotes_it(key: str) -> None:
    body = bytes.fromhex("83a474797065a470696e67a56e6f6e636501") + msgpack.packb(key) + b"\x01"
    conn = P.Connection(SERVER)
    conn.receive_data(struct.pack(">I", len(body)) + body)
    with pytest.raises(RemoteProtocolError) as info:
        conn.next_message()
    error = P.Error.from_exception(info.value)
    assert error.code == "extra_field" and error.field == repr(key)[:40]
    assert conn.send(error)  # the server may send it in any state
