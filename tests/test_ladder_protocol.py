"""Issue 27 item 6: protocol version 2. The hello chooses version 1 or 2; a version 1
connection never sees a field of version 2 (verifiable deals, claimed names, rated
tables) and may not send one; version 2 gets them all."""

from __future__ import annotations

import dataclasses

import msgpack
import trio

from nimmt import protocol as P
from nimmt.protocol import CLIENT, SERVER, Connection, RemoteProtocolError
from nimmt.protocol.examples import COMMITMENT, EXAMPLES, SEED
from nimmt.server import start_server
from server_helpers import Player, ScriptClient, make_config, play_all

OPTIONS = P.TableOptions(seats=2, rounds=1, step_delay=0, turn_time=30.0)


def handshake(version: int) -> tuple[Connection, Connection]:
    client, server = Connection(CLIENT), Connection(SERVER)
    server.receive_data(client.send(P.Hello(protocol=version, name="Ann", kind="bot")))
    hello = server.next_message()
    assert isinstance(hello, P.Hello) and server.version == client.version == version
    welcome = P.Welcome(protocol=version, server="nimmt", name="Ann", token="t" * 32,
                        resumed=False, limits=EXAMPLES["welcome"].limits)
    client.receive_data(server.send(welcome))
    assert client.next_message() == dataclasses.replace(welcome, seq=1)
    return client, server


def test_version_1_hears_no_field_of_version_2_and_version_2_hears_them_all() -> None:
    table = EXAMPLES["table_updated"]
    assert table.table.commitment is not None
    over = P.GameOver(totals=(3, 9), places=(1, 2), winners=(0,), seed=SEED,
                      contributions=("", "ab"))
    for version, present in ((1, False), (2, True)):
        _, server = handshake(version)
        server.send(EXAMPLES["seated"])
        for msg in (table, P.RoundStarted(round=1, commitment=COMMITMENT), over):
            body = server.send(msg)[4:]
            wire = msgpack.unpackb(body)
            flat = repr(wire)
            for field in ("commitment", "seed", "contributions", "claimed", "rated"):
                if field in _v2_fields_of(msg):
                    assert (field in flat) is present, (version, msg.TYPE, field)


def _v2_fields_of(msg: P.Message) -> set[str]:
    if isinstance(msg, P.TableUpdated):
        return {"commitment", "claimed", "rated"}
    if isinstance(msg, P.RoundStarted):
        return {"commitment"}
    return {"seed", "contributions"}


def test_a_version_1_client_decodes_what_a_version_1_server_sends() -> None:
    client, server = handshake(1)
    client.receive_data(server.send(EXAMPLES["table_updated"]))
    got = client.next_message()
    assert isinstance(got, P.TableUpdated) and got.table.commitment is None
    assert got.table.options.rated is False and got.table.seats[0].claimed is False


def test_a_version_1_client_may_not_send_a_field_of_version_2() -> None:
    for version in (1, 2):
        client, server = handshake(version)
        frame = msgpack.packb({"type": "join", "table_id": "t1", "entropy": "ab", "id": 5})
        server.receive_data(len(frame).to_bytes(4, "big") + frame)
        if version == 2:
            assert server.next_message() == P.Join(table_id="t1", entropy="ab", id=5)
            continue
        try:
            server.next_message()
        except RemoteProtocolError as e:
            assert (e.code, e.field, e.re, e.fatal) == ("extra_field", "entropy", 5, False)
        else:
            raise AssertionError("a version 1 join with entropy was accepted")
        nested = msgpack.packb({"type": "create_table", "options": {"rated": True}})
        server.receive_data(len(nested).to_bytes(4, "big") + nested)
        try:
            server.next_message()
        except RemoteProtocolError as e:
            assert (e.code, e.field) == ("extra_field", "options.rated")
        else:
            raise AssertionError("a version 1 rated table was accepted")
        # a nil in a field of version 2 says nothing: tolerated (msgpack encoders write it)
        nil = msgpack.packb({"type": "join", "table_id": "t1", "entropy": None})
        server.receive_data(len(nil).to_bytes(4, "big") + nil)
        assert server.next_message() == P.Join(table_id="t1")


def test_a_version_1_hello_with_a_key_is_refused() -> None:
    server = Connection(SERVER)
    frame = msgpack.packb({"type": "hello", "protocol": 1, "name": "Ann", "kind": "bot",
                           "key": "k" * 32})
    server.receive_data(len(frame).to_bytes(4, "big") + frame)
    try:
        server.next_message()
    except RemoteProtocolError as e:
        assert (e.code, e.field) == ("extra_field", "key")
    else:
        raise AssertionError("a version 1 hello with a key was accepted")


async def test_both_versions_play_at_one_table_each_hearing_its_own_version() -> None:
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        old = await ScriptClient.tcp(port, "Old", protocol=1)
        new = await ScriptClient.tcp(port, "New", protocol=2)
        assert old.welcome is not None and old.welcome.protocol == 1
        assert new.welcome is not None and new.welcome.protocol == 2
        created = await new.request(P.CreateTable(options=OPTIONS))
        assert isinstance(created, P.Seated) and created.table.commitment is not None
        joined = await old.request(P.Join(table_id=created.table.table_id))
        assert isinstance(joined, P.Seated) and joined.table.commitment is None
        await new.send(P.Start())
        results = await play_all([Player(old, 1), Player(new, 2)])
        assert results[0].totals == results[1].totals
        assert results[0].seed is None and results[1].seed is not None
        for word in (b"commitment", b"seed", b"contributions", b"claimed", b"rated"):
            assert word not in old.raw and word in new.raw
        assert b"withheld" not in new.raw  # protocol 3's field of game_over
        await old.aclose()
        await new.aclose()
        nursery.cancel_scope.cancel()


def test_a_hello_s_key_never_shows_in_its_repr() -> None:
    hello = P.Hello(protocol=2, name="Ann", kind="bot", key="s3cr3t" * 5)
    assert "s3cr3t" not in repr(hello) and "key=" in repr(hello)
