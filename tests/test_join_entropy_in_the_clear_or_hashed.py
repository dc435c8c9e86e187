"""A ``join`` carries its contribution to the deals in the clear (``entropy``) or as a
hash revealed later (``entropy_hash``), never both (docs/PROTOCOL.md, "Verifiable
deals"): a client cannot build such a join, and a server refuses one that comes,
naming the field, while the connection goes on."""

from __future__ import annotations

import struct

import msgpack
import pytest

from nimmt import protocol as P
from nimmt.protocol import LocalProtocolError, RemoteProtocolError
from nimmt.protocol.examples import EXAMPLES

ENTROPY = "ab" * 16
HASH = "cd" * 32


def _frame(obj: object) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


def test_a_join_with_entropy_and_its_hash_cannot_be_built():
    with pytest.raises(LocalProtocolError) as caught:
        P.Join(table_id="t1", entropy=ENTROPY, entropy_hash=HASH)
    e = caught.value
    assert (e.code, e.field) == ("out_of_range", "entropy_hash")
    assert e.message == ("send entropy (in the clear) or entropy_hash (revealed later), "
                         "not both")
    assert P.Join(table_id="t1", entropy=ENTROPY).entropy == ENTROPY
    assert P.Join(table_id="t1", entropy_hash=HASH).entropy_hash == HASH


def test_a_server_refuses_a_join_with_both_and_goes_on():
    server = P.Connection(P.SERVER)
    server.receive_data(_frame(P.Hello(protocol=P.PROTOCOL_VERSION, name="Ann",
                                       kind="human").to_wire()))
    server.next_message()
    server.send(EXAMPLES["welcome"])
    server.receive_data(_frame({"type": "join", "id": 7, "table_id": "t1",
                                "entropy": ENTROPY, "entropy_hash": HASH}))
    with pytest.raises(RemoteProtocolError) as caught:
        server.next_message()
    e = caught.value
    assert (e.code, e.field, e.request, e.re, e.fatal) == (
        "out_of_range", "entropy_hash", "join", 7, False)
    server.receive_data(_frame({"type": "join", "id": 8, "table_id": "t1",
                                "entropy_hash": HASH}))
    got = server.next_message()
    assert isinstance(got, P.Join) and (got.id, got.entropy, got.entropy_hash) == (
        8, None, HASH)
