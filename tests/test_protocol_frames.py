"""The frame decoder (protocol/framing.py) cuts a byte stream into frames the same way
wherever TCP happens to split it: any chunks, a frame's header split across reads,
several frames and a partial one in one read, frames past 64 KiB (where the decoder
frees what it has read). ``buffered`` is exactly the bytes received and not yet
taken (issue 43: these paths were not pinned)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt import protocol as P
from nimmt.protocol import CLIENT


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def bodies_of(decoder: P.FrameDecoder) -> list[bytes]:
    out = []
    while True:
        body = decoder.next_body()
        if not isinstance(body, bytes):
            return out
        out.append(body)


def body(n: int, seed: int) -> bytes:
    return bytes((seed + i) % 251 for i in range(n))


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.one_of(st.integers(0, 40), st.sampled_from([65_530, 70_000, 140_000])),
                      min_size=1, max_size=6),
       cuts=st.lists(st.integers(1, 150_000), max_size=8))
def test_a_stream_cut_anywhere_gives_the_same_frames(sizes: list[int], cuts: list[int]):
    sent = [body(n, i) for i, n in enumerate(sizes)]
    stream = b"".join(frame(b) for b in sent)
    points = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})
    decoder = P.FrameDecoder(CLIENT, max_frame_size=200_000)
    got: list[bytes] = []
    taken = 0
    for start, stop in zip(points, points[1:], strict=False):
        decoder.receive_data(stream[start:stop])
        got += bodies_of(decoder)
        taken = sum(len(frame(b)) for b in got)
        assert decoder.buffered == stop - taken  # received, not yet taken
    assert got == sent
    assert decoder.buffered == 0
    decoder.receive_data(b"")
    assert decoder.next_body() is P.CONNECTION_CLOSED


def test_frames_and_a_partial_one_in_one_read_then_the_rest():
    first, second, third = body(10, 1), body(70_000, 2), body(5, 3)
    stream = frame(first) + frame(second) + frame(third)
    decoder = P.FrameDecoder(CLIENT, max_frame_size=100_000)
    cut = len(frame(first)) + len(frame(second)) + 2  # inside the third frame's header
    decoder.receive_data(stream[:cut])
    assert decoder.buffered == cut
    assert decoder.next_body() == first
    assert decoder.buffered == cut - 14
    assert decoder.next_body() == second
    assert decoder.buffered == 2
    assert decoder.next_body() is P.NEED_DATA and decoder.buffered == 2
    decoder.receive_data(stream[cut:cut + 3])
    assert decoder.next_body() is P.NEED_DATA and decoder.buffered == 5
    decoder.receive_data(stream[cut + 3:])
    assert decoder.next_body() == third
    assert decoder.buffered == 0 and decoder.next_body() is P.NEED_DATA


def test_a_frame_too_large_after_others_in_the_same_read_breaks_the_stream_there():
    decoder = P.FrameDecoder(CLIENT, max_frame_size=1000)
    decoder.receive_data(frame(b"ok") + struct.pack(">I", 1001) + b"xyz")
    assert decoder.next_body() == b"ok"  # the frame before it is whole: delivered
    assert decoder.buffered == 0  # nothing kept of a broken stream
    for _ in range(2):  # and it stays broken
        with pytest.raises(P.RemoteProtocolError) as broken:
            decoder.next_body()
        assert broken.value.code == "frame_too_large" and broken.value.fatal
        assert str(broken.value) == "frame_too_large: frame length 1001 exceeds the limit 1000"
    decoder.receive_data(frame(b"more"))  # nothing more is kept either
    assert decoder.buffered == 0


def test_a_frame_too_large_is_seen_once_its_header_is_complete_after_a_frame():
    decoder = P.FrameDecoder(CLIENT, max_frame_size=1000)
    decoder.receive_data(frame(b"ok") + struct.pack(">I", 1001)[:2])
    assert decoder.next_body() == b"ok"
    assert decoder.next_body() is P.NEED_DATA
    decoder.receive_data(struct.pack(">I", 1001)[2:])
    with pytest.raises(P.RemoteProtocolError, match="frame length 1001 exceeds the limit 1000"):
        decoder.next_body()


def test_a_stream_that_ends_inside_a_frame_says_how_much_was_left():
    decoder = P.FrameDecoder(CLIENT)
    decoder.receive_data(frame(b"whole") + frame(b"cut short")[:7])
    assert decoder.next_body() == b"whole"
    decoder.receive_data(b"")
    with pytest.raises(P.RemoteProtocolError) as broken:
        decoder.next_body()
    assert broken.value.code == "truncated"
    assert str(broken.value) == "truncated: stream ended inside a frame (7 bytes left)"
    assert decoder.buffered == 0  # nothing kept of a broken stream


def test_next_message_decodes_each_frame_and_passes_the_sentinels_on():
    pong, listing = P.Pong(nonce=8), P.ListTables(id=3)
    decoder = P.FrameDecoder(CLIENT)
    decoder.receive_data(P.encode_frame(pong) + P.encode_frame(listing)[:3])
    assert decoder.next_message() == pong
    assert decoder.next_message() is P.NEED_DATA
    decoder.receive_data(P.encode_frame(listing)[3:])
    decoder.receive_data(b"")
    assert decoder.next_message() == listing
    assert decoder.next_message() is P.CONNECTION_CLOSED


def test_the_end_of_the_stream_is_said_once_and_no_data_may_follow_it():
    decoder = P.FrameDecoder(CLIENT)
    assert decoder.eof is False
    decoder.receive_data(frame(b"last"))
    decoder.receive_data(b"")
    assert decoder.eof is True
    decoder.receive_data(b"")  # said again: nothing changes
    with pytest.raises(P.LocalProtocolError, match="receive_data after end of stream"):
        decoder.receive_data(b"late")
    assert decoder.next_body() == b"last"  # what came before the end is still read
    assert decoder.next_body() is P.CONNECTION_CLOSED


def test_a_frame_limit_below_one_byte_is_refused_and_one_byte_is_a_limit():
    for size in (0, -5):
        with pytest.raises(ValueError, match="^max_frame_size must be positive$"):
            P.FrameDecoder(CLIENT, max_frame_size=size)
    decoder = P.FrameDecoder(CLIENT, max_frame_size=1)
    decoder.receive_data(frame(b"a") + frame(b"ab"))
    assert decoder.next_body() == b"a"
    with pytest.raises(P.RemoteProtocolError, match="frame length 2 exceeds the limit 1"):
        decoder.next_body()


def test_an_empty_frame_is_a_frame():
    decoder = P.FrameDecoder(CLIENT)
    decoder.receive_data(frame(b"") + frame(b""))
    assert [decoder.next_body(), decoder.next_body()] == [b"", b""]
    assert decoder.next_body() is P.NEED_DATA and decoder.buffered == 0
