"""nimmt.protocol: messages, framing, connection state machine (example-based tests)."""

from __future__ import annotations

import dataclasses
import math
import struct

import msgpack
import nimmt.protocol as P
import pytest
from nimmt.protocol import (
    CLIENT,
    CONNECTION_CLOSED,
    NEED_DATA,
    REGISTRY,
    SERVER,
    Connection,
    ConnState,
    LocalProtocolError,
    RemoteProtocolError,
)
from nimmt.protocol.examples import EXAMPLES, LIMITS, TABLE, TOKEN


def frame(obj: object) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


def sender_of(msg: P.Message) -> P.Role:
    return SERVER if msg.SENDERS == {SERVER} or msg.seq is not None else CLIENT


def decode_one(data: bytes, sender: P.Role) -> P.Message:
    dec = P.FrameDecoder(sender)
    dec.receive_data(data)
    msg = dec.next_message()
    assert isinstance(msg, P.Message)
    assert dec.next_message() is NEED_DATA
    return msg


# --- registry and catalogue ----------------------------------------------------------


def test_every_registered_type_has_an_example_and_every_example_is_registered() -> None:
    assert set(EXAMPLES) == set(REGISTRY)
    for tag, msg in EXAMPLES.items():
        assert type(msg) is REGISTRY[tag]
        assert msg.TYPE == tag


def test_every_message_class_is_exported() -> None:
    for cls in REGISTRY.values():
        assert getattr(P, cls.__name__) is cls
        assert cls.__name__ in P.__all__
    for name in P.__all__:
        assert hasattr(P, name), name


@pytest.mark.parametrize("tag", sorted(EXAMPLES))
def test_round_trip_every_message_type(tag: str) -> None:
    msg = EXAMPLES[tag]
    data = P.encode_frame(msg)
    assert struct.unpack(">I", data[:4])[0] == len(data) - 4
    assert decode_one(data, sender_of(msg)) == msg
    # the wire map is plain msgpack with "type" first
    wire = msgpack.unpackb(data[4:])
    assert next(iter(wire)) == "type" and wire["type"] == tag
    # repr is valid Python that rebuilds an equal message
    assert eval(repr(msg), vars(P)) == msg


@pytest.mark.parametrize("tag", sorted(EXAMPLES))
def test_round_trip_through_connections(tag: str) -> None:
    """Every type goes through a pair of Connections in a state that allows it."""
    msg = EXAMPLES[tag]
    role = sender_of(msg)
    sender, receiver = Connection(role), Connection(role.other)
    state = next(st for (st, r, t) in P.TRANSITIONS if r is role and t == tag)
    for c in (sender, receiver):
        c._set_state(state)
    if role is SERVER:
        msg = dataclasses.replace(msg, seq=None)
    data = sender.send(msg)
    receiver.receive_data(data)
    got = receiver.next_message()
    expected = dataclasses.replace(msg, seq=1) if role is SERVER else msg
    assert got == expected
    assert sender.state is receiver.state is P.transition(state, role, tag)


def test_messages_are_frozen_and_hashable() -> None:
    msg = EXAMPLES["commit"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        msg.card = 3  # type: ignore[misc]
    assert hash(EXAMPLES["snapshot"]) == hash(dataclasses.replace(EXAMPLES["snapshot"]))


def test_lists_become_tuples_and_ints_become_floats() -> None:
    m = P.TurnStarted(round=1, turn=2, deadline=1_700_000_000, remaining=30)
    assert type(m.deadline) is float and type(m.remaining) is float
    r = P.RowsDealt(rows=[[1], [2], [3], [4]])  # type: ignore[arg-type]
    assert r.rows == ((1,), (2,), (3,), (4,))
    o = P.CreateTable(options={"seats": 5})  # type: ignore[arg-type]
    assert o.options == P.TableOptions(seats=5)


# --- local validation ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "code", "field"),
    [
        (lambda: P.Commit(round=1, turn=1, card=0), "out_of_range", "card"),
        (lambda: P.Commit(round=1, turn=1, card=105), "out_of_range", "card"),
        (lambda: P.Commit(round=1, turn=True, card=5), "wrong_type", "turn"),
        (lambda: P.Commit(round=1, turn=1, card=5.0), "wrong_type", "card"),
        (lambda: P.Commit(round=1, turn=11, card=5), "out_of_range", "turn"),
        (lambda: P.Commit(round=1, turn=1, card=5, id=-1), "out_of_range", "id"),
        (lambda: P.Ping(nonce=2**53), "out_of_range", "nonce"),
        (lambda: P.Hello(protocol=1, name="", kind="bot"), "out_of_range", "name"),
        (lambda: P.Hello(protocol=1, name="   ", kind="bot"), "out_of_range", "name"),
        (lambda: P.Hello(protocol=1, name="a\x1b[2J", kind="bot"), "out_of_range", "name"),
        (lambda: P.Hello(protocol=1, name="x" * 33, kind="bot"), "out_of_range", "name"),
        (lambda: P.Hello(protocol=1, name="a", kind="robot"), "out_of_range", "kind"),
        (lambda: P.Hello(protocol=1, name="a", kind="bot", token="short"), "out_of_range",
         "token"),
        (lambda: P.TurnStarted(round=1, turn=1, deadline=math.nan, remaining=1.0),
         "out_of_range", "deadline"),
        (lambda: P.TurnStarted(round=1, turn=1, deadline=1.0, remaining=math.inf),
         "out_of_range", "remaining"),
        (lambda: P.TurnStarted(round=1, turn=1, deadline="soon", remaining=1.0),
         "wrong_type", "deadline"),
        (lambda: P.HandDealt(cards=(1, 2, 2)), "out_of_range", "cards"),
        (lambda: P.HandDealt(cards=(1, 2, 200)), "out_of_range", "cards[2]"),
        (lambda: P.HandDealt(cards=(1, "2")), "wrong_type", "cards[1]"),
        (lambda: P.HandDealt(cards=()), "out_of_range", "cards"),
        (lambda: P.HandDealt(cards=5), "wrong_type", "cards"),
        (lambda: P.Revealed(plays=((0, 20), (1, 10))), "out_of_range", "plays"),
        (lambda: P.Revealed(plays=((0, 20), (1,))), "out_of_range", "plays[1]"),
        (lambda: P.Revealed(plays=((0, 20), (11, 30))), "out_of_range", "plays[1][0]"),
        (lambda: P.ChooseTie(round=1, turn=1, place={"row": 1, "end": "up"}), "out_of_range",
         "place.end"),
        (lambda: P.ChooseTie(round=1, turn=1, place={"row": 1}), "missing_field", "place.end"),
        (lambda: P.ChooseTie(round=1, turn=1, place=[1, "left"]), "wrong_type", "place"),
        (lambda: P.CreateTable(options={"seats": 11}), "out_of_range", "options.seats"),
        (lambda: P.CreateTable(options={"step_delay": -0.1}), "out_of_range",
         "options.step_delay"),
        (lambda: P.CreateTable(options={"point_limit": None}), "out_of_range",
         "options.point_limit"),
        (lambda: P.CreateTable(options={"colour": "red"}), "extra_field", "options.colour"),
        (lambda: P.CreateTable(options=P.TableOptions(), name="\n"), "out_of_range", "name"),
        (lambda: dataclasses.replace(TABLE, seats=TABLE.seats[:3]), "out_of_range", "seats"),
        (lambda: P.RoundScored(round=1, penalties=(1, 2), totals=(1, 2, 3)), "out_of_range",
         "totals"),
        (lambda: P.GameOver(totals=(1, 2), places=(1, 2), winners=(5,)), "out_of_range",
         "winners"),
        (lambda: dataclasses.replace(EXAMPLES["snapshot"], rows=((1,),)), "out_of_range",
         "rows"),
        (lambda: P.Goodbye(reason="Not A Code"), "out_of_range", "reason"),
        (lambda: P.Join(table_id="t 1"), "out_of_range", "table_id"),
    ],
)
def test_building_an_invalid_message_raises_local_error(build, code: str, field: str) -> None:
    with pytest.raises(LocalProtocolError) as info:
        build()
    assert info.value.code == code
    assert info.value.field == field
    assert isinstance(info.value, ValueError)
    assert code in str(info.value)


def test_error_codes_are_stable_strings() -> None:
    assert P.ErrorCode.FRAME_TOO_LARGE == "frame_too_large"
    assert P.ERROR_CODES == P.PROTOCOL_ERROR_CODES | P.APPLICATION_ERROR_CODES
    for code in P.ERROR_CODES:
        P.Error(code=code, message="x")  # every code is a valid error.code


# --- remote validation -----------------------------------------------------------------


def remote_error(obj: object, sender: P.Role = CLIENT) -> RemoteProtocolError:
    dec = P.FrameDecoder(sender)
    dec.receive_data(frame(obj))
    with pytest.raises(RemoteProtocolError) as info:
        dec.next_message()
    # the frame was consumed; the decoder goes on
    assert dec.next_message() is NEED_DATA
    return info.value


COMMIT = {"type": "commit", "id": 4, "round": 1, "turn": 2, "card": 42}


@pytest.mark.parametrize(
    ("obj", "code", "field"),
    [
        ([1, 2], "not_a_map", None),
        ("commit", "not_a_map", None),
        ({"round": 1}, "missing_field", "type"),
        ({"type": 7}, "wrong_type", "type"),
        ({"type": "teleport"}, "unknown_type", "type"),
        ({"type": "welcome", "protocol": 1}, "unexpected_message", "type"),
        ({k: v for k, v in COMMIT.items() if k != "card"}, "missing_field", "card"),
        ({**COMMIT, "colour": 1}, "extra_field", "colour"),
        ({**COMMIT, "seq": 3}, "extra_field", "seq"),
        ({**COMMIT, "re": 3}, "extra_field", "re"),
        ({**COMMIT, "card": True}, "wrong_type", "card"),
        ({**COMMIT, "card": 42.0}, "wrong_type", "card"),
        ({**COMMIT, "card": "42"}, "wrong_type", "card"),
        ({**COMMIT, "card": None}, "wrong_type", "card"),
        ({**COMMIT, "card": 2**64 - 1}, "out_of_range", "card"),
        ({**COMMIT, "card": -(2**63)}, "out_of_range", "card"),
        ({**COMMIT, "id": 2**60}, "out_of_range", "id"),
        ({**COMMIT, "turn": 0}, "out_of_range", "turn"),
        ({"type": "hello", "protocol": 1, "name": "x", "kind": "bot", "token": 5},
         "wrong_type", "token"),
        ({"type": "choose_tie", "round": 1, "turn": 1, "place": {"row": 1, "end": "left",
                                                               "x": 0}},
         "extra_field", "place.x"),
        ({"type": "create_table", "options": {"turn_time": float("nan")}}, "out_of_range",
         "options.turn_time"),
        ({"type": "create_table", "options": {"turn_time": float("inf")}}, "out_of_range",
         "options.turn_time"),
        ({"type": "create_table", "options": {"seats": [4]}}, "wrong_type", "options.seats"),
    ],
)
def test_invalid_wire_messages_raise_remote_error_naming_the_field(obj, code, field) -> None:
    err = remote_error(obj)
    assert err.code == code
    assert err.field == field
    assert not err.fatal


def test_remote_error_carries_request_type_and_id() -> None:
    err = remote_error({**COMMIT, "card": 500})
    assert (err.request, err.re) == ("commit", 4)
    reply = P.Error.from_exception(err)
    assert (reply.code, reply.request, reply.field, reply.re) == (
        "out_of_range", "commit", "card", 4)


def test_server_messages_need_seq_and_may_not_carry_id() -> None:
    wire = EXAMPLES["placed"].to_wire()
    del wire["seq"]
    assert remote_error(wire, SERVER).code == "missing_field"
    wire = {**EXAMPLES["placed"].to_wire(), "id": 1}
    assert remote_error(wire, SERVER).code == "extra_field"


def test_unsupported_version_is_reported_before_field_checks() -> None:
    err = remote_error({"type": "hello", "protocol": 5, "name": "x", "kind": "bot",
                        "features": ["v5 only"]})
    assert (err.code, err.field, err.request) == ("unsupported_version", "protocol", "hello")
    reply = P.Error.from_exception(err)
    assert reply.supported == P.SUPPORTED_VERSIONS
    with pytest.raises(LocalProtocolError):  # nor can one be built locally
        P.Hello(protocol=5, name="x", kind="bot")


def test_non_string_and_unprintable_keys_are_reported_safely() -> None:
    body = b"\x82" + msgpack.packb("type") + msgpack.packb("leave") + b"\xc4\x01k\x01"
    with pytest.raises(RemoteProtocolError) as info:
        d = P.FrameDecoder(CLIENT)
        d.receive_data(struct.pack(">I", len(body)) + body)
        d.next_message()
    assert info.value.code == "bad_msgpack"  # bin is refused outright
    err = remote_error({"type": "leave", "\x1b[31m": 1})
    assert err.code == "extra_field" and err.field is not None and err.field.isprintable()
    P.Error.from_exception(err)  # can always be answered


@pytest.mark.parametrize(
    "body",
    [
        b"",  # empty frame
        b"\xc1",  # never-used byte
        b"\x81\xa4type",  # map cut short
        msgpack.packb({"type": "leave"}) + b"\xc0",  # extra bytes
        b"\x81\x01\x02",  # int key
        b"\x81\xcb" + bytes(8) + b"\x01",  # float key
        b"\xd4\x05\x00",  # fixext
        b"\xc7\x00\x05",  # ext8 of length 0
        b"\xd6\xff\x00\x00\x00\x01",  # timestamp ext
        b"\xc4\x01a",  # bin
        b"\xa2\xff\xfe",  # invalid utf-8
        b"\x91" * 5000 + b"\xc0",  # deeply nested arrays
        b"\x81\xa1a" * 3000 + b"\xc0",  # deeply nested maps
        b"\xdd\xff\xff\xff\xff",  # array claiming 4G elements
        b"\xdf\x00\x01\x00\x00",  # map claiming 65536 pairs
        b"\xdb\x00\x01\x00\x00" + b"a" * 10,  # str over the limit
    ],
)
def test_undecodable_bodies_are_bad_msgpack(body: bytes) -> None:
    dec = P.FrameDecoder(CLIENT)
    dec.receive_data(struct.pack(">I", len(body)) + body + frame({"type": "leave"}))
    with pytest.raises(RemoteProtocolError) as info:
        dec.next_message()
    assert info.value.code == "bad_msgpack" and not info.value.fatal
    assert dec.next_message() == P.Leave()  # the stream is still in step


# --- framing -------------------------------------------------------------------------------


def test_oversized_length_is_refused_before_the_body_is_buffered() -> None:
    dec = P.FrameDecoder(CLIENT, max_frame_size=1000)
    dec.receive_data(struct.pack(">I", 1001))
    assert dec.buffered == 0
    for _ in range(100):
        dec.receive_data(b"x" * 10_000)
        assert dec.buffered == 0
    with pytest.raises(RemoteProtocolError) as info:
        dec.next_message()
    assert info.value.code == "frame_too_large" and info.value.fatal
    with pytest.raises(RemoteProtocolError):  # stays broken
        dec.next_message()


def test_oversized_length_after_a_good_frame() -> None:
    dec = P.FrameDecoder(CLIENT, max_frame_size=1000)
    dec.receive_data(frame({"type": "leave"}) + struct.pack(">I", 2**32 - 1) + b"zz")
    assert dec.next_message() == P.Leave()
    assert dec.buffered == 0
    with pytest.raises(RemoteProtocolError) as info:
        dec.next_message()
    assert info.value.code == "frame_too_large"


def test_frame_size_limit_is_configurable_and_inclusive() -> None:
    big = P.Chat(text="é" * 500)
    data = P.encode_frame(big)
    n = len(data) - 4
    dec = P.FrameDecoder(CLIENT, max_frame_size=n)
    dec.receive_data(data)
    assert dec.next_message() == big
    with pytest.raises(LocalProtocolError) as info:
        P.encode_frame(big, max_frame_size=n - 1)
    assert info.value.code == "frame_too_large"
    conn = Connection(CLIENT, max_frame_size=n - 1)
    conn.receive_data(data)
    with pytest.raises(RemoteProtocolError):
        conn.next_message()


def test_byte_at_a_time_and_many_frames_per_chunk() -> None:
    msgs = [EXAMPLES[t] for t in ("commit", "chat", "choose_tie", "leave", "create_table")]
    data = b"".join(P.encode_frame(m) for m in msgs)
    dec = P.FrameDecoder(CLIENT)
    got = []
    for i in range(len(data)):
        dec.receive_data(data[i:i + 1])
        while (m := dec.next_message()) is not NEED_DATA:
            got.append(m)
    assert got == msgs
    dec.receive_data(data)
    assert [dec.next_message() for _ in msgs] == msgs
    assert dec.next_message() is NEED_DATA


def test_end_of_stream() -> None:
    dec = P.FrameDecoder(CLIENT)
    dec.receive_data(P.encode_frame(P.Leave()))
    dec.receive_data(b"")
    assert dec.next_message() == P.Leave()
    assert dec.next_message() is CONNECTION_CLOSED
    assert dec.next_message() is CONNECTION_CLOSED
    with pytest.raises(LocalProtocolError):
        dec.receive_data(b"late")


def test_end_of_stream_inside_a_frame_is_truncated() -> None:
    for cut in (1, 3, 4, 10):
        dec = P.FrameDecoder(CLIENT)
        dec.receive_data(P.encode_frame(EXAMPLES["commit"])[:cut])
        assert dec.next_message() is NEED_DATA
        dec.receive_data(b"")
        with pytest.raises(RemoteProtocolError) as info:
            dec.next_message()
        assert info.value.code == "truncated" and info.value.fatal


def test_unpack_body_helper() -> None:
    assert P.unpack_body(msgpack.packb({"a": [1, 2]})) == {"a": (1, 2)}
    with pytest.raises(RemoteProtocolError):
        P.unpack_body(b"\xc1")


# --- connection and states ---------------------------------------------------------------


class Pair:
    """A client and a server Connection wired together in memory."""

    def __init__(self) -> None:
        self.client = Connection(CLIENT)
        self.server = Connection(SERVER)

    def c2s(self, msg: P.Message) -> P.Message:
        self.server.receive_data(self.client.send(msg))
        got = self.server.next_message()
        assert got == msg
        assert self.client.state is self.server.state
        return got

    def s2c(self, msg: P.Message) -> P.Message:
        self.client.receive_data(self.server.send(msg))
        got = self.client.next_message()
        assert isinstance(got, P.Message)
        assert got == dataclasses.replace(msg, seq=got.seq)
        assert self.client.state is self.server.state
        return got


def welcomed() -> Pair:
    p = Pair()
    p.c2s(P.Hello(protocol=2, name="Ann", kind="bot"))
    assert p.client.state is ConnState.HELLO_SENT
    p.s2c(P.Welcome(protocol=2, server="nimmt", name="Ann", token=TOKEN, resumed=False,
                    limits=LIMITS))
    assert p.client.state is ConnState.LOBBY
    return p


def test_a_whole_game_walks_the_states() -> None:
    p = welcomed()
    p.c2s(P.ListTables(id=1))
    assert p.s2c(P.TableList(tables=(TABLE,), re=1)).re == 1
    p.c2s(P.CreateTable())
    p.s2c(P.Seated(table=TABLE, seat=0))
    assert p.client.state is ConnState.SEATED
    p.c2s(P.AddBot())
    p.s2c(P.TableUpdated(table=TABLE))
    p.c2s(P.Start())
    p.s2c(P.RoundStarted(round=1))
    assert p.client.state is ConnState.PLAYING
    for tag in ("hand_dealt", "rows_dealt", "turn_started"):
        p.s2c(EXAMPLES[tag])
    p.c2s(P.Commit(round=1, turn=1, card=14))
    p.c2s(P.Chat(text="hi"))
    p.s2c(P.Ping(nonce=1))
    p.c2s(P.Pong(nonce=1))
    for tag in ("commit_accepted", "seat_committed", "revealed", "placed", "row_taken",
                "round_scored"):
        p.s2c(EXAMPLES[tag])
    p.s2c(EXAMPLES["game_over"])
    assert p.client.state is ConnState.SEATED
    p.c2s(P.Leave())
    p.s2c(P.Left(table_id="t7", reason="left"))
    assert p.client.state is ConnState.LOBBY
    p.c2s(P.Goodbye(reason="quit"))
    assert p.client.state is p.server.state is ConnState.CLOSED
    assert p.server.next_seq == 18  # 17 server messages sent


def test_spectators_never_get_private_messages() -> None:
    p = welcomed()
    p.c2s(P.Watch(table_id="t7"))
    p.s2c(P.Watching(table=TABLE))
    p.s2c(dataclasses.replace(EXAMPLES["snapshot"], seat=None, hand=()))
    p.s2c(EXAMPLES["placed"])
    assert p.client.state is ConnState.WATCHING
    for tag in ("hand_dealt", "row_choice_request", "commit_accepted"):
        with pytest.raises(LocalProtocolError) as info:
            p.server.send(EXAMPLES[tag])
        assert info.value.code == "unexpected_message"
    with pytest.raises(LocalProtocolError):
        p.client.send(EXAMPLES["commit"])
    p.s2c(EXAMPLES["game_over"])
    assert p.client.state is ConnState.WATCHING


def test_reconnection_flow() -> None:
    p = Pair()
    p.c2s(P.Hello(protocol=2, name="Ann", kind="human", token=TOKEN))
    p.s2c(P.Welcome(protocol=2, server="nimmt", name="Ann", token=TOKEN, resumed=True,
                    limits=LIMITS))
    p.s2c(P.Seated(table=TABLE, seat=0))
    p.s2c(EXAMPLES["snapshot"])
    assert p.client.state is ConnState.PLAYING
    p.s2c(EXAMPLES["row_choice_request"])
    p.c2s(P.ChooseRow(round=1, turn=3, row=2))


def test_unexpected_message_is_refused_but_not_fatal() -> None:
    p = welcomed()
    p.server.receive_data(P.encode_frame(P.Commit(round=1, turn=1, card=5, id=8)))
    with pytest.raises(RemoteProtocolError) as info:
        p.server.next_message()
    e = info.value
    assert (e.code, e.request, e.re, e.fatal) == ("unexpected_message", "commit", 8, False)
    assert p.server.state is ConnState.LOBBY
    p.c2s(P.ListTables())  # goes on


def test_a_client_cannot_send_server_messages_and_vice_versa() -> None:
    p = welcomed()
    with pytest.raises(LocalProtocolError):
        p.client.send(EXAMPLES["table_list"])
    with pytest.raises(LocalProtocolError):
        p.server.send(P.ListTables())
    with pytest.raises(LocalProtocolError):
        p.server.send(P.Ping(nonce=1, id=3))
    with pytest.raises(LocalProtocolError):
        p.client.send(P.Ping(nonce=1, seq=3))


def test_handshake_rules() -> None:
    c = Connection(CLIENT)
    with pytest.raises(LocalProtocolError):
        c.send(P.ListTables())  # nothing before hello
    s = Connection(SERVER)
    s.receive_data(P.encode_frame(P.Hello(protocol=1, name="a", kind="bot")) * 2)
    assert isinstance(s.next_message(), P.Hello)
    with pytest.raises(RemoteProtocolError) as info:
        s.next_message()  # a second hello
    assert info.value.code == "unexpected_message"


def test_unsupported_version_flow() -> None:
    client, server = Connection(CLIENT), Connection(SERVER)
    client.send(P.Hello(protocol=1, name="a", kind="bot"))
    server.receive_data(frame({"type": "hello", "protocol": 9, "name": "a", "kind": "bot"}))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    reply = P.Error.from_exception(info.value)
    client.receive_data(server.send(reply) + server.send(P.Goodbye(reason="unsupported_version")))
    err = client.next_message()
    assert isinstance(err, P.Error) and err.supported == (1, 2, 3, 4) and err.seq == 1
    assert isinstance(client.next_message(), P.Goodbye)
    assert client.state is server.state is ConnState.CLOSED


def test_bad_sequence_is_fatal_for_a_client() -> None:
    p = welcomed()
    p.client.receive_data(P.encode_frame(dataclasses.replace(EXAMPLES["ping"], seq=7)))
    with pytest.raises(RemoteProtocolError) as info:
        p.client.next_message()
    assert info.value.code == "bad_sequence" and info.value.fatal
    with pytest.raises(RemoteProtocolError):
        p.client.next_message()


def test_messages_crossing_a_goodbye_are_dropped() -> None:
    p = welcomed()
    p.client.receive_data(p.server.send(P.Goodbye(reason="server_shutdown")))
    late = p.client.send(P.ListTables())  # still "lobby" on the client side
    p.server.receive_data(late + b"\x00\x00\x00\x05zz")  # and some junk
    assert p.server.next_message() is NEED_DATA
    p.server.receive_data(b"")
    assert p.server.next_message() is CONNECTION_CLOSED
    assert isinstance(p.client.next_message(), P.Goodbye)
    assert p.client.state is ConnState.CLOSED
    with pytest.raises(LocalProtocolError):
        p.client.send(P.ListTables())


def test_end_of_stream_closes_the_connection() -> None:
    p = welcomed()
    p.server.receive_data(b"")
    assert p.server.next_message() is CONNECTION_CLOSED
    assert p.server.state is ConnState.CLOSED


def test_transition_table_is_consistent() -> None:
    for (state, sender, tag), target in P.TRANSITIONS.items():
        assert tag in REGISTRY, tag
        assert sender in REGISTRY[tag].SENDERS, (tag, sender)
        assert state is not ConnState.CLOSED
        assert isinstance(target, ConnState)
    # every message type can be sent in some state
    assert {t for (_, _, t) in P.TRANSITIONS} == set(REGISTRY)
    # every state but closed can be left with a goodbye
    for st in ConnState:
        if st is not ConnState.CLOSED:
            assert P.transition(st, CLIENT, "goodbye") is ConnState.CLOSED


def test_table_list_of_the_largest_tables_fits_a_frame() -> None:
    name = "\U0001F402" * 32  # 4 bytes each in UTF-8
    seat = P.SeatInfo(name=name, kind="bot", connected=True, total=100_000, penalties=10_000,
                      strategy="s" * 32)
    opts = P.TableOptions(seats=10, point_limit=1000, rounds=100, turn_time=1234.5678,
                          fallback="f" * 32)
    table = P.TableInfo(table_id="t" * 32, name=name[:10] * 4, options=opts, seats=(seat,) * 10,
                        host=9, status="playing", spectators=10_000)
    msg = P.TableList(tables=(table,) * P.MAX_TABLES_LISTED, seq=P.MAX_SAFE_INT,
                      re=P.MAX_SAFE_INT)
    assert len(P.encode_frame(msg)) - 4 <= P.DEFAULT_MAX_FRAME_SIZE


def test_sentinels() -> None:
    assert repr(NEED_DATA) == str(NEED_DATA) == "NEED_DATA"
    assert NEED_DATA is not CONNECTION_CLOSED
