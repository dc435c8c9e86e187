"""Issue 42: attacks on names and on the ladder, each made against a real server on
127.0.0.1 (an attacker from 127.0.0.1, while two players from 127.0.0.2 play a game
at their own table, which must go on undisturbed: ``Background``), and the rules
of claimed names (docs/PROTOCOL.md, "Claimed names and ratings")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import trio

from nimmt import protocol as P
from nimmt.server.ladder import desk
from nimmt.server import ServerConfig, start_server
from nimmt.server.storage import AsyncStore
from server_helpers import Player, ScriptClient, make_config, play_all
from test_server_limits import ATTACKER, background, frame

KEY = "k" * 40
OTHER_KEY = "o" * 40
VICTIMS = "127.0.0.3"


async def hello(port: int, name: str, key: str | None, address: str = ATTACKER,
                protocol: int = 2) -> tuple[ScriptClient, P.Message]:
    """A client from ``address`` says hello; it and the server's first answer that is
    not a chat line (``welcome``, or ``error``)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
    client = ScriptClient(stream, name, "bot")
    await client.send(P.Hello(protocol=protocol, name=name, kind="bot", key=key))
    reply = await client.expect(lambda m: m.TYPE in ("welcome", "error"))
    if isinstance(reply, P.Welcome):
        client.welcome, client.token = reply, reply.token
    return client, reply


async def claimed(port: int, name: str, key: str = KEY, address: str = ATTACKER) -> ScriptClient:
    client, welcome = await hello(port, name, key, address)
    assert isinstance(welcome, P.Welcome) and welcome.claimed, welcome
    return client


async def refused_name(port: int, name: str, key: str | None) -> P.Error:
    client, error = await hello(port, name, key)
    assert isinstance(error, P.Error), error
    goodbye = await client.wait_closed()
    assert goodbye is not None and goodbye.reason == error.code
    await client.aclose()
    return error


# ------------------------------------------------------------------ attack 1
async def test_a_client_that_claims_a_name_and_says_nothing_more_is_not_closed(
        autojump_clock, tmp_path: Path) -> None:
    """Before: with a database the welcome waited for the claim's write while the
    reader was still on the hello deadline: 5 s after connecting the client was
    closed "a frame begun 30 s ago is not complete"."""
    store = await AsyncStore.open(str(tmp_path / "nimmt.db"))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        game = await background(nursery, port)
        ann = await claimed(port, "Ann")
        with trio.move_on_after(100):  # pings at 15 s, 30 s, ...: answered, nothing else
            await ann.wait_closed()
        assert not ann.closed and ann.goodbye is None
        assert len(ann.of_type("ping")) >= 5
        listed = await ann.request(P.ListTables())
        assert isinstance(listed, P.TableList)
        assert server.admission._waiting == {}  # it does not count as silent either
        await game.check()
        nursery.cancel_scope.cancel()
    await store.aclose()


# ------------------------------------------------------------------ attack 2
async def test_ladder_tables_count_against_their_players_addresses(autojump_clock) -> None:
    """Before: ladder tables of players only counted against no address: an address
    queueing its sessions against each other took every table of the server."""
    config = make_config(max_tables=8, tables_per_address=2, claim_burst=100)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)
        answers, attackers = [], []
        for i in range(14):
            attackers.append(await claimed(port, f"Mal{i}"))
            answers.append(await attackers[-1].request(P.Queue(seats=2, fill_after=None)))
            await trio.sleep(1)  # (the queue forms its table meanwhile)
        refusals = [a for a in answers if isinstance(a, P.Error)]
        # the first two formed a table; the third waits; the others are refused
        assert len(refusals) == 11 and all(a.code == "not_allowed" for a in refusals)
        assert refusals[0].message.startswith(
            "1 tables caused from your address are open and 1 of its players wait in the "
            "ladder queue (at most 2 in all, ladder tables included)")
        ladder = [t for t in server.lobby.tables.values()
                  if not t.closed and t.match.settings.rated]
        assert len(ladder) == 1
        # another address still gets its ladder game and its own table at once
        vic, ven = [await claimed(port, name, address=VICTIMS) for name in ("Vic", "Ven")]
        for client in (vic, ven):  # (another game than the one Mal2 waits for)
            queued = await client.request(P.Queue(seats=2, fill_after=None,
                                                  options=P.TableOptions(rounds=1)))
            assert isinstance(queued, P.Queued) and not queued.server_full
        for client in (vic, ven):
            await client.expect("seated")
        host = await claimed(port, "Hal", address=VICTIMS)
        assert isinstance(await host.request(P.CreateTable()), P.Seated)
        await game.check()
        nursery.cancel_scope.cancel()


# ------------------------------------------------------------------ attack 4
LOOKALIKES = ("\u0410nn", "\u0391nn", "\uff21\uff4e\uff4e", "\u00c0nn", "A\u0301nn",
              "\U0001d400\U0001d427\U0001d427", "\u1d00\u0274\u0274", "ANN", "A n n")


async def test_no_lookalike_of_a_claimed_name_is_welcomed_as_another_claimed_name(
        autojump_clock) -> None:
    """Before: Cyrillic, Greek, fullwidth, accented, mathematical bold and small
    capital "Ann"s were each welcomed as claimed names of their own."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        ann = await claimed(port, "Ann", address=VICTIMS)
        for name in LOOKALIKES:
            for key in (OTHER_KEY, None):
                error = await refused_name(port, name, key)
                assert (error.code, error.field, error.request) == ("name_claimed", "name",
                                                                    "hello")
                if name != "ANN":
                    assert "reads as 'Ann'" in error.message
        # the key holder, whatever the spelling, is welcomed as the name as claimed
        again = await claimed(port, "\u1d00\u0274\u0274", address=VICTIMS)
        assert again.welcome is not None and again.welcome.name == "Ann"
        assert len(server.lobby.ladder.claims) == 1
        listed = await ann.request(P.ListTables())  # Ann is unaffected
        assert isinstance(listed, P.TableList)
        await game.check()
        nursery.cancel_scope.cancel()


# ------------------------------------------------------------------ attack 5
async def test_one_address_claims_a_few_names_at_once_then_one_at_a_time(autojump_clock) -> None:
    """Before: claims were unlimited (14,724 names from one address in 30 s)."""
    assert (ServerConfig().claim_burst, ServerConfig().claim_interval) == (20, 60.0)
    config = make_config(claim_burst=5, claim_interval=600.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        game = await background(nursery, port)
        for i in range(5):
            await (await claimed(port, f"Mal{i}")).aclose()
        client, error = await hello(port, "Mal5", KEY)
        assert isinstance(error, P.Error)
        assert (error.code, error.field, error.request) == ("rate_limited", "key", "hello")
        assert "claim this one in 600 s" in error.message and "without a key" in error.message
        goodbye = await client.wait_closed()
        assert goodbye is not None and goodbye.reason == "rate_limited"
        assert not server.lobby.ladder.claims.is_claimed("Mal5")
        # a name claimed before is welcomed; so is a name without a key
        await (await claimed(port, "Mal0")).aclose()
        casual, welcome = await hello(port, "Mal5", None)
        assert isinstance(welcome, P.Welcome) and not welcome.claimed
        await casual.aclose()
        # another address claims as it likes
        vic = await claimed(port, "Vic", address=VICTIMS)
        assert isinstance(await vic.request(P.ListTables()), P.TableList)
        await trio.sleep(600)  # one more claim, not two
        await (await claimed(port, "Mal6")).aclose()
        _, error = await hello(port, "Mal7", KEY)
        assert isinstance(error, P.Error) and error.code == "rate_limited"
        await game.check()
        nursery.cancel_scope.cancel()


# ------------------------------------------------------------------ attack 6
async def test_server_with_a_key_does_not_claim_the_fallback_name(autojump_clock) -> None:
    """Before: "server" with a key claimed "player", and every later "server" was
    disconnected (name_claimed) instead of welcomed as "player"."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        first, error = await hello(port, "server", KEY)
        assert isinstance(error, P.Error) and (error.code, error.field) == ("out_of_range",
                                                                           "name")
        welcome = await first.expect("welcome")
        assert isinstance(welcome, P.Welcome)
        assert (welcome.name, welcome.claimed) == ("player", False)
        for key in (None, OTHER_KEY):
            later, error = await hello(port, "Server", key, address=VICTIMS)
            assert isinstance(error, P.Error) and error.code == "out_of_range"
            welcome = await later.expect("welcome")
            assert isinstance(welcome, P.Welcome) and welcome.name == "player"
        # nor may "player" itself be claimed: the key is not used, and it says so
        player, error = await hello(port, "player", KEY)
        assert isinstance(error, P.Error)
        assert (error.code, error.field, error.request) == ("out_of_range", "key", "hello")
        welcome = await player.expect("welcome")
        assert isinstance(welcome, P.Welcome) and not welcome.claimed
        assert len(server.lobby.ladder.claims) == 0
        await game.check()
        nursery.cancel_scope.cancel()


# ------------------------------------------------------------------ attack 7
async def test_a_version_1_client_may_send_nil_in_a_version_2_field(autojump_clock) -> None:
    """Before: ``options.rated: nil`` from a version 1 client got wrong_type, though a
    nil in a later version's field is tolerated (it says nothing)."""
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        game = await background(nursery, port)
        old, welcome = await hello(port, "Olga", None, protocol=1)
        assert isinstance(welcome, P.Welcome) and welcome.protocol == 1
        await old.send_raw(frame({"type": "create_table", "id": 1,
                                  "options": {"seats": 2, "rated": None}}))
        seated = await old.expect(lambda m: m.re == 1)
        assert isinstance(seated, P.Seated) and seated.table.options.seats == 2
        assert seated.table.options.rated is False  # (a v1 connection never hears it)
        # a value that says something is still refused, as before
        await old.send_raw(frame({"type": "chat", "id": 2, "text": "hi"}))
        await old.send_raw(frame({"type": "join", "id": 3, "table_id": "x", "entropy": "ab"}))
        error = await old.expect(lambda m: m.re == 3)
        assert isinstance(error, P.Error) and error.code == "extra_field"
        await game.check()
        nursery.cancel_scope.cancel()


def test_a_nil_in_a_later_versions_field_decodes_as_left_out() -> None:
    def server_of(version: int) -> P.Connection:
        conn = P.Connection(P.SERVER)
        conn.receive_data(frame({"type": "hello", "protocol": version, "name": "a",
                                 "kind": "bot"}))
        conn.next_message()
        conn.send(P.Welcome(protocol=version, server="s", name="a", token="t" * 32,
                            resumed=False, limits=P.Limits(65536, 5.0, 15.0, 30.0, 120.0, 20)))
        return conn

    def received(conn: P.Connection, options: dict[str, object]) -> object:
        conn.receive_data(frame({"type": "create_table", "id": 1, "options": options}))
        try:
            return conn.next_message()
        except P.RemoteProtocolError as e:
            return e.code, e.field

    v1 = server_of(1)
    made = received(v1, {"rated": None, "seats": 3})
    assert isinstance(made, P.CreateTable) and made.options == P.TableOptions(seats=3)
    assert received(v1, {"rated": True}) == ("extra_field", "options.rated")
    assert received(v1, {"seats": None}) == ("wrong_type", "options.seats")  # a v1 field
    assert received(server_of(2), {"rated": None}) == ("wrong_type", "options.rated")


# ------------------------------------------------------------------ names
async def test_a_claim_whose_write_fails_is_not_welcomed_as_claimed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the welcome said ``claimed: true`` though the claim's write had failed
    (a kill then freed the name)."""
    path = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(path))
    disk_full = True
    save_claim = desk.save_claim

    def failing_save_claim(db: sqlite3.Connection, *args: object) -> None:
        if disk_full:  # what SQLite says when the disk is full
            raise sqlite3.OperationalError("database or disk is full")
        save_claim(db, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(desk, "save_claim", failing_save_claim)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann, welcome = await hello(port, "Ann", KEY)
        assert isinstance(welcome, P.Welcome) and welcome.claimed is False
        notice = await ann.expect(lambda m: isinstance(m, P.ChatMessage)
                                  and "claim" in m.text)
        assert notice.name == "server" and "not on disk" in notice.text
        refused = await ann.request(P.Queue(seats=2))  # not claimed: no rated play
        assert isinstance(refused, P.Error) and refused.code == "not_allowed"
        # nobody else may claim the name meanwhile
        error = await refused_name(port, "Ann", OTHER_KEY)
        assert error.code == "name_claimed"
        disk_full = False
        again, welcome = await hello(port, "Ann", KEY)
        assert isinstance(welcome, P.Welcome) and welcome.claimed is True
        with sqlite3.connect(path) as db:
            assert [r[0] for r in db.execute("SELECT name FROM claims")] == ["Ann"]
        for client in (ann, again):
            await client.aclose()
        nursery.cancel_scope.cancel()
    await store.aclose()


async def test_a_claimed_name_holds_one_seat_at_a_table_and_is_rated_as_claimed(
        autojump_clock) -> None:
    """Before: a second session of Ann (same key) sat at Ann's rated table as "Ann (2)",
    unclaimed, and the whole table went unrated; "ann" with Ann's key played as "ann"."""
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        ann = await claimed(port, "Ann")
        ann2 = await claimed(port, "ann")
        assert ann2.welcome is not None and ann2.welcome.name == "Ann"  # as claimed
        ann3 = await claimed(port, "ANN")
        bob = await claimed(port, "Bob", OTHER_KEY)
        options = P.TableOptions(seats=3, rounds=1, step_delay=0, rated=True)
        seated = await ann.request(P.CreateTable(options=options))
        assert isinstance(seated, P.Seated)
        second = await ann2.request(P.Join(table_id=seated.table.table_id))
        assert isinstance(second, P.Error) and second.code == "not_allowed"
        assert "'Ann' has a seat at this table already" in second.message
        # two joins at once at Bob's table: one seat for the name all the same
        hosted = await bob.request(P.CreateTable(options=options))
        assert isinstance(hosted, P.Seated)
        table_id = hosted.table.table_id
        for client in (ann2, ann3):
            await client.send(P.Join(table_id=table_id, id=50))
        answers = [await c.expect(lambda m: m.re == 50) for c in (ann2, ann3)]
        assert sorted(a.TYPE for a in answers) == ["error", "seated"]
        sitting = ann2 if isinstance(answers[0], P.Seated) else ann3
        # so the table seats claimed names only: its game is rated, under "Ann"
        added = await bob.request(P.AddBot(strategy="easy"))
        assert isinstance(added, P.TableUpdated)
        assert [s.name for s in added.table.seats if s is not None][:2] == ["Bob", "Ann"]
        await bob.send(P.Start())
        await play_all([Player(sitting, seed=1), Player(bob, seed=2)])
        board = await bob.request(P.Leaderboard())
        assert isinstance(board, P.LeaderboardPage)
        assert sorted(r.name for r in board.rows) == ["Ann", "Bob", "bot:easy"]
        nursery.cancel_scope.cancel()
