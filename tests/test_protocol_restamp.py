"""A message told to a whole table is encoded once; each member's frame only gets its
own ``seq`` (``restamp_frame``). Those frames must be exactly the bytes a fresh encoding
gives, for every message a server sends, at every protocol version and every seq."""

from __future__ import annotations

import pytest

import nimmt.protocol as P
from hypothesis import given, settings
from hypothesis import strategies as st
from nimmt.protocol.base import downgrade
from nimmt.protocol.examples import EXAMPLES
from nimmt.protocol.framing import encode_body, restamp_frame

SERVER_MESSAGES = sorted(tag for tag, m in EXAMPLES.items() if P.SERVER in m.SENDERS)
SEQS = st.one_of(st.integers(1, 300), st.integers(1, 2**40))


def fresh(msg: P.Message, seq: int, version: int) -> bytes:
    wire = msg.to_wire(seq)
    if version < P.PROTOCOL_VERSION:
        downgrade(msg, wire, version)
    return encode_body(wire)


@pytest.mark.parametrize("tag", SERVER_MESSAGES)
@settings(max_examples=25, deadline=None)
@given(old=SEQS, new=SEQS, version=st.integers(1, P.PROTOCOL_VERSION))
def test_a_restamped_frame_is_the_fresh_encoding(tag: str, old: int, new: int,
                                                 version: int) -> None:
    msg = EXAMPLES[tag]
    frame = restamp_frame(fresh(msg, old, version), msg.TYPE, old, new)
    assert frame == fresh(msg, new, version)


def test_a_frame_that_is_not_what_it_claims_is_encoded_again() -> None:
    msg = EXAMPLES["ping"]
    frame = fresh(msg, 5, P.PROTOCOL_VERSION)
    assert restamp_frame(frame, msg.TYPE, 6, 7) is None  # another seq in it
    assert restamp_frame(frame, "pong", 5, 7) is None  # another type
    assert restamp_frame(frame, msg.TYPE, 5, 7, max_frame_size=len(frame) - 5) is None


def welcomed(version: int) -> P.Connection:
    """A server connection past the handshake, talking protocol ``version``."""
    server = P.Connection(P.SERVER)
    client = P.Connection(P.CLIENT)
    server.receive_data(client.send(P.Hello(protocol=version, name="Ann", kind="human")))
    assert isinstance(server.next_message(), P.Hello)
    server.send(EXAMPLES["welcome"])
    return server


def test_one_message_to_many_connections_reaches_each_with_its_own_seq() -> None:
    connections = [welcomed(v) for v in (P.PROTOCOL_VERSION, 1, P.PROTOCOL_VERSION, 1)]
    for i, conn in enumerate(connections):  # each at a seq of its own
        for _ in range(i * 70):
            conn.send(P.Ping(nonce=1))
    # a table's state is restamped for the next member, a short event encoded afresh
    for msg in (EXAMPLES["table_updated"], P.ChatMessage(name="Bob", seat=1, text="hi")):
        for conn in connections:
            seq = conn.next_seq
            assert conn.send(msg) == fresh(msg, seq, conn.version)
            assert conn.next_seq == seq + 1
