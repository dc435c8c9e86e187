"""Framing's encoder and its limits (``protocol/framing.py`` before ``FrameDecoder``:
docs/PROTOCOL.md, "Framing"): a frame is a 4-byte big-endian length then one msgpack
map, never over ``max_frame_size``; a body is unpacked with explicit limits (strings of
4096 bytes, arrays of 1024, maps of 64 entries, no bin, no ext, string keys) and each
refusal says what was wrong; a frame restamped with another ``seq`` is the bytes a
fresh encoding gives."""

from __future__ import annotations

import msgpack
import pytest

import nimmt.protocol as P
from nimmt.protocol import framing
from nimmt.protocol.framing import (
    CONNECTION_CLOSED,
    HEADER_SIZE,
    MAX_ARRAY_LEN,
    MAX_MAP_LEN,
    MAX_STR_LEN,
    NEED_DATA,
    encode_body,
    restamp_frame,
    unpack_body,
)


def refusal(body: bytes, max_frame_size: int = 65536) -> tuple[str, str]:
    with pytest.raises(P.RemoteProtocolError) as caught:
        unpack_body(body, max_frame_size)
    return caught.value.code, caught.value.message


# --- the frame: header and limit --------------------------------------------------------


def test_the_documented_limits() -> None:
    assert (HEADER_SIZE, MAX_STR_LEN, MAX_ARRAY_LEN, MAX_MAP_LEN) == (4, 4096, 1024, 64)
    assert P.DEFAULT_MAX_FRAME_SIZE == 65536
    assert (repr(NEED_DATA), str(CONNECTION_CLOSED)) == ("NEED_DATA", "CONNECTION_CLOSED")


def test_a_frame_is_its_body_length_in_4_big_endian_bytes_then_the_body() -> None:
    wire = {"type": "ping", "nonce": 7}
    body = msgpack.packb(wire, use_bin_type=True)
    assert encode_body(wire) == len(body).to_bytes(4, "big") + body
    big = {"type": "chat", "text": "x" * 300}  # a length over one byte: the order shows
    frame = encode_body(big)
    assert frame[:4] == (len(frame) - 4).to_bytes(4, "big") and frame[:3] == b"\x00\x00\x01"
    assert encode_frame_of(P.Ping(nonce=7)) == encode_body(P.Ping(nonce=7).to_wire())


def encode_frame_of(msg: P.Message) -> bytes:
    return framing.encode_frame(msg)


def test_a_body_of_exactly_the_limit_is_sent_and_one_byte_more_is_refused() -> None:
    wire = {"type": "chat", "text": "x" * 100}
    n = len(msgpack.packb(wire))
    assert len(encode_body(wire, max_frame_size=n)) == n + 4
    with pytest.raises(P.LocalProtocolError) as caught:
        encode_body(wire, max_frame_size=n - 1)
    assert (caught.value.code, caught.value.message) == (
        "frame_too_large", f"frame of {n} bytes exceeds the limit {n - 1}")
    # the default limit is 65536 bytes
    wire = {"text": "x" * (65536 - 9)}  # map 1 (1) + "text" (5) + str 16 (3) + text
    assert len(msgpack.packb(wire)) == 65536
    assert len(encode_body(wire)) == 65540
    with pytest.raises(P.LocalProtocolError):
        encode_body({"text": "x" * (65536 - 8)})


def test_binary_data_is_packed_as_bin_not_as_a_string() -> None:
    assert encode_body({"b": b"\x01"})[4:] == b"\x81\xa1b\xc4\x01\x01"
    again = encode_body({"b": b"\x02"})  # the reused packer packs each afresh
    assert again == b"\x00\x00\x00\x06\x81\xa1b\xc4\x01\x02"


# --- unpacking a body, within the limits -----------------------------------------------


def test_a_body_unpacks_with_tuples_for_arrays() -> None:
    assert unpack_body(msgpack.packb({"a": [1, [2, 3]], "s": "é"})) == \
        {"a": (1, (2, 3)), "s": "é"}


@pytest.mark.parametrize("limit, make, packed_as", [
    (MAX_STR_LEN, lambda n: "x" * n, "str"),
    (MAX_ARRAY_LEN, lambda n: [0] * n, "array"),
    (MAX_MAP_LEN, lambda n: {f"k{i}": 0 for i in range(n)}, "map"),
])
def test_each_limit_admits_its_size_and_refuses_one_more(limit, make, packed_as) -> None:  # noqa: ANN001
    assert unpack_body(msgpack.packb({"v": make(limit)}), 1 << 20) is not None
    code, text = refusal(msgpack.packb({"v": make(limit + 1)}), 1 << 20)
    assert code == "bad_msgpack" and text.startswith("undecodable frame: ")
    assert f"{limit + 1} exceeds max_{packed_as}_len({limit})" in text


def test_a_body_over_the_frame_limit_is_refused_and_one_at_it_is_not() -> None:
    body = msgpack.packb({"t": "x" * 200})
    assert unpack_body(body, len(body)) == {"t": "x" * 200}
    assert refusal(body, len(body) - 1)[0] == "bad_msgpack"
    # the smallest limit, 1 byte: a 1-byte body is read, a 2-byte one is not
    assert unpack_body(b"\x80", 1) == {}
    assert refusal(b"\x91\x01", 1)[0] == "bad_msgpack"  # [1]: complete, one byte over
    assert unpack_body(b"\x91\x01", 2) == (1,)


@pytest.mark.parametrize("body, said", [
    (b"", "empty frame"),
    (msgpack.packb({"a": 1}) + b"\x01", "extra bytes after the map"),
    (msgpack.packb({"a": 1})[:-1], "undecodable frame: the map ends before the frame does"),
    (b"\x81\xa1a\xc4\x01x", "undecodable frame: 1 exceeds max_bin_len(0)"),
    (b"\x81\xa1a\xd4\x01\x00", "undecodable frame: 2 exceeds max_ext_len(0)"),
    (b"\x81\xa1a\xc7\x00\x05", "undecodable frame: ext types are not allowed"),  # empty ext
    (b"\x81\xa1a\xa2\xff\xfe", "undecodable frame: a string is not valid UTF-8"),
    (b"\x81\x01\x02", "undecodable frame: int is not allowed for map key when "
     "strict_map_key=True"),
    (b"\x91" * 1100 + b"\x00", "undecodable frame: nested too deeply"),
    (b"\xc1", "undecodable frame: FormatError"),  # msgpack says nothing: its name
])
def test_each_bad_body_is_refused_and_says_why(body: bytes, said: str) -> None:
    assert refusal(body, 1 << 20) == ("bad_msgpack", said)


def test_an_unpacker_refusing_a_body_decodes_the_next_one() -> None:
    reader = framing._Body(65536)
    good = msgpack.packb({"a": 1})
    assert reader.unpack(good) == {"a": 1}
    for bad in (good[:-1], good + b"\x00"):
        with pytest.raises(P.RemoteProtocolError):
            reader.unpack(bad)
        assert reader.unpack(good) == {"a": 1}
        assert reader.unpack(msgpack.packb({"b": 2})) == {"b": 2}


# --- a frame restamped with another seq ------------------------------------------------


@pytest.mark.parametrize("seq", [0, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000, 0xFFFFFFFF,
                                 0x100000000, 2**64 - 1])
def test_a_seq_is_packed_in_msgpacks_smallest_form(seq: int) -> None:
    assert framing._packed_uint(seq) == msgpack.packb(seq)


def frame_of(wire: dict) -> bytes:
    return encode_body(wire)


@pytest.mark.parametrize("old, new", [(1, 2), (5, 300), (300, 5), (127, 128), (65535, 65536),
                                      (2**32, 1)])
def test_a_restamped_frame_is_the_fresh_encoding_of_its_new_seq(old: int, new: int) -> None:
    wire = {"type": "chat_message", "seq": old, "name": "Ann", "text": "hi"}
    fresh = frame_of({**wire, "seq": new})
    assert restamp_frame(frame_of(wire), "chat_message", old, new) == fresh


def test_a_frame_of_a_map_over_15_keys_is_restamped_too() -> None:
    wire = {"type": "x", "seq": 3, **{f"k{i}": i for i in range(20)}}
    assert frame_of(wire)[4] == 0xDE  # map 16
    assert restamp_frame(frame_of(wire), "x", 3, 4) == frame_of({**wire, "seq": 4})
    small = {"type": "x", "seq": 3, **{f"k{i}": i for i in range(13)}}  # 15 keys: fixmap
    assert frame_of(small)[4] == 0x8F
    assert restamp_frame(frame_of(small), "x", 3, 4) == frame_of({**small, "seq": 4})


def test_a_frame_that_does_not_begin_type_then_seq_is_not_restamped() -> None:
    assert restamp_frame(frame_of({"seq": 3, "type": "x"}), "x", 3, 4) is None
    assert restamp_frame(frame_of({"type": "x", "seq": 3}), "y", 3, 4) is None
    assert restamp_frame(frame_of({"type": "x", "seq": 3}), "x", 2, 4) is None
    assert restamp_frame(frame_of({"type": "x", "nonce": 3}), "x", 3, 4) is None
    assert restamp_frame(b"\x00\x00\x00\x01\x90", "x", 3, 4) is None  # an array
    assert restamp_frame(b"\x00\x00\x00\x00", "x", 3, 4) is None  # no body at all
    assert restamp_frame(b"\x00\x00\x00\x01\x80", "x", 3, 4) is None  # an empty map
    big = {"type": "x", "seq": 3, **{f"k{i}": i for i in range(70000)}}  # map 32
    assert restamp_frame(encode_body(big, 1 << 24), "x", 3, 4, 1 << 24) is None


def test_a_restamped_frame_keeps_to_the_frame_limit() -> None:
    wire = {"type": "x", "seq": 127, "t": "y" * 50}
    frame = frame_of(wire)
    grown = len(frame) - 4 + 1  # 127 -> 128 takes one byte more
    assert restamp_frame(frame, "x", 127, 128, max_frame_size=grown) == \
        frame_of({**wire, "seq": 128})
    assert restamp_frame(frame, "x", 127, 128, max_frame_size=grown - 1) is None


def test_what_msgpack_cannot_pack_is_refused_as_a_wrong_type_with_msgpacks_words() -> None:
    nested: list = []
    inner = nested
    for _ in range(3000):
        inner.append([])
        inner = inner[0]
    for value, said in [(object(), "can not serialize 'object' object"),  # TypeError
                        (2**64, "Integer value out of range"),  # OverflowError
                        (nested, "recursion limit exceeded.")]:  # ValueError
        with pytest.raises(P.LocalProtocolError) as caught:
            encode_body({"a": value}, 1 << 20)
        assert (caught.value.code, caught.value.message) == ("wrong_type", f"cannot pack: {said}")
    assert encode_body({"a": 1}) == b"\x00\x00\x00\x04\x81\xa1a\x01"  # the packer is good again
