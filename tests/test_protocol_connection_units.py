"""The sans-IO ``Connection`` as a protocol implementer meets it (docs/PROTOCOL.md):
the seq numbering a server stamps and a client checks, each refusal's exact code,
text and field, the state each refusal leaves alone, and a connection that speaks
an older protocol version (messages and fields it does not have left out when
sent, refused when received, nils of newer fields tolerated). No trio, no
hypothesis (``tools/mutate.py --plain``)."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest

from nimmt import protocol as P
from nimmt.protocol import (
    CLIENT,
    CONNECTION_CLOSED,
    NEED_DATA,
    SERVER,
    ConnState,
    Connection,
    LocalProtocolError,
    RemoteProtocolError,
)
from nimmt.protocol.examples import LIMITS, TABLE, TOKEN


def frame(obj: object) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


def body_of(data: bytes) -> dict[str, Any]:
    (length,) = struct.unpack(">I", data[:4])
    assert len(data) == 4 + length
    out: dict[str, Any] = msgpack.unpackb(data[4:], raw=False)
    return out


NOW = P.PROTOCOL_VERSION


def hello(protocol: int = NOW) -> P.Hello:
    return P.Hello(protocol=protocol, name="Ann", kind="bot")


def welcome(protocol: int = NOW) -> P.Welcome:
    return P.Welcome(protocol=protocol, server="nimmt", name="Ann", token=TOKEN, resumed=False,
                     limits=LIMITS)


def greeted(protocol: int) -> Connection:
    """A server connection that received a hello of ``protocol``."""
    server = Connection(SERVER)
    server.receive_data(frame(hello(protocol).to_wire()))
    assert isinstance(server.next_message(), P.Hello)
    assert (server.version, server.state) == (protocol, ConnState.HELLO_SENT)
    return server


def server_at(protocol: int) -> Connection:
    """A server connection that received a hello of ``protocol`` and answered it."""
    server = greeted(protocol)
    server.send(welcome(protocol))
    assert (server.version, server.state) == (protocol, ConnState.LOBBY)
    return server


def client_at(protocol: int) -> Connection:
    """A client connection that sent a hello of ``protocol`` and was welcomed (seq 1)."""
    client = Connection(CLIENT)
    client.send(hello(protocol))
    assert (client.version, client.state) == (protocol, ConnState.HELLO_SENT)
    client.receive_data(greeted(protocol).send(welcome(protocol)))
    assert isinstance(client.next_message(), P.Welcome)
    return client


def remote_error(conn: Connection, data: bytes) -> RemoteProtocolError:
    conn.receive_data(data)
    with pytest.raises(RemoteProtocolError) as caught:
        conn.next_message()
    return caught.value


def local_error(conn: Connection, msg: P.Message) -> LocalProtocolError:
    with pytest.raises(LocalProtocolError) as caught:
        conn.send(msg)
    return caught.value


# ----------------------------------------------------------------- seq


def test_a_server_numbers_what_it_sends_from_1_whatever_seq_the_message_holds() -> None:
    server = server_at(3)  # the welcome was seq 1
    assert server.next_seq == 2
    frames = [server.send(P.Ping(nonce=n, seq=50)) for n in (7, 8)]
    assert [body_of(f)["seq"] for f in frames] == [2, 3]
    assert server.next_seq == 4
    # a refused send takes no number
    local_error(server, P.Ping(nonce=9, id=1))
    assert body_of(server.send(P.Ping(nonce=9)))["seq"] == 4


def test_a_client_takes_seq_1_2_3_and_refuses_a_gap_or_a_repeat_for_good() -> None:
    client = client_at(3)  # took seq 1
    client.receive_data(frame({"type": "ping", "nonce": 1, "seq": 2}))
    assert client.next_message() == P.Ping(nonce=1, seq=2)
    e = remote_error(client, frame({"type": "ping", "nonce": 2, "seq": 2}))
    assert (e.code, e.message, e.field, e.fatal, e.request) == (
        "bad_sequence", "seq 2 after 2", "seq", True, "ping")
    # the stream cannot be trusted any more: the same error, whatever comes next
    client.receive_data(frame({"type": "ping", "nonce": 3, "seq": 3}))
    with pytest.raises(RemoteProtocolError) as again:
        client.next_message()
    assert again.value is e
    fresh = client_at(3)
    e = remote_error(fresh, frame({"type": "ping", "nonce": 2, "seq": 4}))
    assert (e.code, e.message) == ("bad_sequence", "seq 4 after 1")


def test_the_first_message_a_client_gets_must_be_seq_1() -> None:
    client = Connection(CLIENT)
    client.send(hello())
    e = remote_error(client, frame({**welcome().to_wire(7)}))
    assert (e.code, e.message, e.request) == ("bad_sequence", "seq 7 after 0", "welcome")


# ----------------------------------------------------------------- refusals


def test_a_message_not_expected_in_the_state_is_dropped_and_the_state_kept() -> None:
    server = server_at(3)
    e = remote_error(server, frame({"type": "commit", "round": 1, "turn": 1, "card": 5, "id": 4}))
    assert (e.code, e.message, e.field, e.request, e.re, e.fatal) == (
        "unexpected_message", "'commit' is not expected in state 'lobby'", "type", "commit", 4,
        False)
    assert server.state is ConnState.LOBBY
    server.receive_data(frame({"type": "list_tables", "id": 5}))
    assert server.next_message() == P.ListTables(id=5)


def test_what_a_connection_refuses_to_send_and_why() -> None:
    client = Connection(CLIENT)
    e = local_error(client, welcome())
    assert (e.code, e.message, e.field) == (
        "unexpected_message", "a client never sends 'welcome'", "type")
    e = local_error(client, P.ListTables())
    assert (e.code, e.message, e.field) == (
        "unexpected_message", "cannot send 'list_tables' in state 'handshake'", "type")
    assert client.state is ConnState.HANDSHAKE
    server = Connection(SERVER)
    e = local_error(server, P.ListTables())
    assert e.message == "a server never sends 'list_tables'"
    e = local_error(server_at(3), P.Ping(nonce=1, id=3))
    assert (e.code, e.message, e.field) == ("extra_field", "a server message has no id", "id")
    welcomed = client_at(3)
    for msg in (P.Ping(nonce=1, seq=3), P.Ping(nonce=1, re=3)):
        e = local_error(welcomed, msg)
        assert (e.code, e.message, e.field) == (
            "extra_field", "a client message has no seq or re", "seq")
    assert welcomed.state is ConnState.LOBBY


def test_a_connection_needs_a_role() -> None:
    with pytest.raises(TypeError) as caught:
        Connection("client")  # type: ignore[arg-type]
    assert str(caught.value) == "our_role must be Role.CLIENT or Role.SERVER"
    c = Connection(CLIENT)
    assert (c.our_role, c.their_role, c.state, c.version) == (CLIENT, SERVER, ConnState.HANDSHAKE, NOW)
    assert repr(c) == "<Connection our_role=Role.CLIENT state=ConnState.HANDSHAKE>"
    assert Connection(SERVER).their_role is CLIENT


# ----------------------------------------------------------------- closing


def test_a_goodbye_closes_both_ways_and_later_frames_even_broken_ones_are_dropped() -> None:
    server = server_at(3)
    server.receive_data(frame({"type": "goodbye", "reason": "quit"}))
    assert server.next_message() == P.Goodbye(reason="quit")
    assert server.state is ConnState.CLOSED
    server.receive_data(frame({"type": "list_tables"}) + struct.pack(">I", 2**31))
    assert server.next_message() is CONNECTION_CLOSED  # an oversized frame after the goodbye
    open_one = server_at(3)
    e = remote_error(open_one, struct.pack(">I", 2**31))
    assert e.fatal and open_one.state is ConnState.LOBBY


def test_close_by_hand_and_the_end_of_the_stream() -> None:
    client = client_at(3)
    client.close()
    assert client.state is ConnState.CLOSED
    e = local_error(client, P.Ping(nonce=1))
    assert e.message == "cannot send 'ping' in state 'closed'"
    server = server_at(3)
    server.receive_data(frame({"type": "list_tables"})[:5])
    assert server.buffered == 5
    assert server.next_message() is NEED_DATA
    assert server.state is ConnState.LOBBY
    server.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as caught:
        server.next_message()
    assert (caught.value.code, caught.value.message, caught.value.fatal) == (
        "truncated", "stream ended inside a frame (5 bytes left)", True)


def test_the_end_of_the_stream_after_whole_frames_closes_it() -> None:
    server = server_at(3)
    server.receive_data(frame({"type": "list_tables", "id": 1}) + b"")
    server.receive_data(b"")
    assert server.next_message() == P.ListTables(id=1)
    assert server.state is ConnState.LOBBY
    assert server.next_message() is CONNECTION_CLOSED
    assert server.state is ConnState.CLOSED


# ----------------------------------------------------------------- older versions


def test_a_hello_sets_the_version_of_both_ends() -> None:
    for version in P.SUPPORTED_VERSIONS:
        assert client_at(version).version == version
        assert server_at(version).version == version


def test_a_message_newer_than_the_connection_is_refused_both_ways() -> None:
    client = client_at(2)
    client.send(P.Join(table_id="t7"))
    client.receive_data(frame({**P.Seated(table=TABLE, seat=0).to_wire(2)}))
    assert isinstance(client.next_message(), P.Seated)
    assert client.state is ConnState.SEATED
    e = local_error(client, P.Reveal(entropy="00"))
    assert (e.code, e.message, e.field) == (
        "unknown_type", "'reveal' is not in protocol 2: it came in protocol 3 "
        "(say protocol 3 in the hello to use it)", "type")
    client_at(2).send(P.Queue())  # protocol 2 has it
    e = local_error(client_at(1), P.Queue())
    assert e.message == ("'queue' is not in protocol 1: it came in protocol 2 "
                         "(say protocol 2 in the hello to use it)")
    server = server_at(1)
    e = remote_error(server, frame({"type": "queue", "id": 6}))
    assert (e.code, e.message, e.field, e.request, e.re, e.fatal) == (
        "unknown_type", "'queue' is not in protocol 1: it came in protocol 2 "
        "(say protocol 2 in the hello to use it)", "type", "queue", 6, False)
    assert server.state is ConnState.LOBBY
    seated = server_at(2)
    seated.receive_data(frame({"type": "join", "id": 1, "table_id": "t7"}))
    seated.next_message()
    seated.send(P.Seated(table=TABLE, seat=0))
    e = local_error(seated, P.RevealAccepted())
    assert (e.code, e.field) == ("unknown_type", "type")
    assert e.message.startswith("'reveal_accepted' is not in protocol 2: it came in protocol 3")


def test_a_field_newer_than_the_connection_is_left_out_or_refused() -> None:
    client = client_at(1)
    wire = body_of(client.send(P.ListTables(id=1)))
    assert wire == {"type": "list_tables", "id": 1}
    e = local_error(client, P.Join(table_id="t7", entropy="ab"))
    assert (e.code, e.message, e.field) == (
        "extra_field", f"'entropy' is not in protocol 1: leave it out, or say protocol {NOW} in "
        "the hello", "entropy")
    two = client_at(2)
    e = local_error(two, P.Join(table_id="t7", entropy_hash="cd" * 32))
    assert (e.field, e.message) == (
        "entropy_hash", f"'entropy_hash' is not in protocol 2: leave it out, or say protocol {NOW} "
        "in the hello")
    sent = body_of(two.send(P.Join(table_id="t7", entropy="ab", id=2)))
    assert sent == {"type": "join", "id": 2, "table_id": "t7", "seat": None, "entropy": "ab"}
    e = remote_error(server_at(2), frame({"type": "join", "id": 3, "table_id": "t7",
                                          "entropy_hash": "cd" * 32}))
    assert (e.code, e.message, e.field, e.request, e.re, e.fatal) == (
        "extra_field", "unknown field 'entropy_hash' (protocol 2 has no such field)",
        "entropy_hash", "join", 3, False)


def test_a_server_leaves_out_what_an_older_client_does_not_have() -> None:
    for version, has_claimed in ((1, False), (2, True), (3, True)):
        server = greeted(version)
        wire = body_of(server.send(welcome(version)))
        assert ("claimed" in wire) is has_claimed, version
        assert wire["seq"] == 1


def test_a_big_frame_told_to_many_is_fit_to_each_connections_version() -> None:
    big = P.TableList(tables=(TABLE,) * 3)
    new, old, new_again = server_at(3), server_at(1), server_at(3)
    first = body_of(new.send(big))
    second = body_of(old.send(big))
    third = body_of(new_again.send(big))
    assert "rated" in first["tables"][0]["options"]
    assert "rated" not in second["tables"][0]["options"]
    assert first == third
    assert (first["seq"], second["seq"], third["seq"]) == (2, 2, 2)
    again = body_of(new.send(big))
    assert again == {**first, "seq": 3}


def test_a_nil_in_a_field_the_older_version_lacks_means_nothing() -> None:
    create = {"type": "create_table", "id": 4, "options": {"seats": 3, "rated": None}}
    server = server_at(1)
    server.receive_data(frame(create))
    got = server.next_message()
    assert isinstance(got, P.CreateTable)
    assert (got.options.rated, got.options.seats, got.id) == (False, 3, 4)
    # a peer of the current version may not send it: nil is no bool there
    e = remote_error(server_at(3), frame(create))
    assert e.field == "options.rated" and not e.fatal


def test_an_older_peer_gets_the_same_refusal_for_what_no_nil_explains() -> None:
    undecodable = struct.pack(">I", 1) + b"\xc1"
    for junk in (frame([1, 2]), frame({"type": "list_tables", "id": "x"}), undecodable):
        old, now = (remote_error(server_at(v), junk) for v in (1, NOW))
        assert (old.code, old.message, old.field, old.fatal, old.request) == (
            now.code, now.message, now.field, now.fatal, now.request)
    e = remote_error(server_at(1), frame([1, 2]))
    assert (e.code, e.fatal) == ("not_a_map", False)
    e = remote_error(server_at(1), undecodable)
    assert (e.code, e.message, e.fatal) == ("bad_msgpack", "undecodable frame: FormatError", False)


def test_a_big_message_told_to_a_table_is_encoded_once_per_version(monkeypatch) -> None:
    """The documented saving (a table's state restamped for the next member, not encoded
    again): one encoding per run of same-version connections, and each one's own seq."""
    from nimmt.protocol import connection

    encoded: list[int] = []
    real = connection.encode_body

    def counting(wire: dict[str, Any], max_frame_size: int = P.DEFAULT_MAX_FRAME_SIZE) -> bytes:
        encoded.append(wire["seq"])
        return real(wire, max_frame_size)

    members = [server_at(NOW) for _ in range(3)]
    old = server_at(1)
    for _ in range(5):
        members[1].send(P.Ping(nonce=1))
    monkeypatch.setattr(connection, "encode_body", counting)
    state = P.TableUpdated(table=TABLE)
    frames = [m.send(state) for m in members]
    assert encoded == [2]  # the first member's; the others' restamped
    assert [body_of(f)["seq"] for f in frames] == [2, 7, 2]
    assert body_of(frames[1]) == {**body_of(frames[0]), "seq": 7}
    body_of(old.send(state))
    assert encoded == [2, 2]  # another version: encoded again
    short = P.Ping(nonce=3)
    for m in members:
        m.send(short)
    assert encoded == [2, 2, 3, 8, 3]  # a short message is encoded for each
