"""Issue 27 item 5 end to end: a real server on 127.0.0.1 commits to its seed,
mixes in the entropy of the players who join, reveals the seed at the end and
keeps it with the game, which ``nimmt-replay --verify`` then checks; a client
that adds nothing (docs/examples/minimal_bot.py, unchanged) still plays."""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import msgpack
import pytest
import trio

from nimmt import protocol as P
from nimmt.engine import record_from_json
from nimmt.server import start_server
from nimmt.server.records.replay import main as replay_main
from nimmt.server.storage import AsyncStore, Store
from real_server import running_server
from server_helpers import Player, ScriptClient, make_config, play_all
from test_protocol_bot import run_minimal_bot

OPTIONS = P.TableOptions(seats=3, rounds=2, step_delay=0, turn_time=30.0)
BOB_ENTROPY = "b0b0" * 8
CY_ENTROPY = "c1"


async def test_a_game_with_two_contributions_is_committed_revealed_and_verified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann = await ScriptClient.tcp(port, "Ann")
        # (version 2: entropy in the clear; version 3 takes only entropy_hash)
        bob = await ScriptClient.tcp(port, "Bob", protocol=2)
        cy = await ScriptClient.tcp(port, "Cy", protocol=2)
        created = await ann.request(P.CreateTable(options=OPTIONS))
        assert isinstance(created, P.Seated)
        table_id = created.table.table_id
        listed = await bob.request(P.ListTables())
        assert isinstance(listed, P.TableList)
        (seen,) = [t.commitment for t in listed.tables if t.table_id == table_id]
        assert seen is not None and len(seen) == 64

        # entropy that is not hex is refused with the field named; Bob is not seated
        bad = msgpack.packb({"type": "join", "id": 99, "table_id": table_id,
                             "entropy": "not hex"})
        await bob.send_raw(struct.pack(">I", len(bad)) + bad)
        error = await bob.expect(lambda m: m.re == 99)
        assert isinstance(error, P.Error) and error.field == "entropy", error
        assert bob.seat is None

        for client, entropy in ((bob, BOB_ENTROPY), (cy, CY_ENTROPY)):
            seated = await client.request(P.Join(table_id=table_id, entropy=entropy))
            assert isinstance(seated, P.Seated) and seated.table.commitment == seen
        await ann.send(P.Start())
        over = await play_all([Player(ann, 1), Player(bob, 2), Player(cy, 3)])

        first_round = [m for m in bob.log if isinstance(m, P.RoundStarted)]
        assert first_round[0].round == 1 and first_round[0].commitment == seen
        assert all(m.commitment is None for m in first_round[1:])
        for result in over:  # everyone hears the same seed, whose hash was announced
            assert result.seed is not None and hashlib.sha256(
                bytes.fromhex(result.seed)).hexdigest() == seen
            assert result.contributions == ("", BOB_ENTROPY, CY_ENTROPY)
        # the next game gets a new seed, shown at once
        updated = await ann.expect(lambda m: isinstance(m, P.TableUpdated)
                                   and m.table.status == "over")
        assert updated.table.commitment not in (None, seen)
        # a second game at the table: the entropy was sent before its commitment was
        # shown, so it does not count (docs/PROTOCOL.md: leave and join again)
        for client in (ann, bob, cy):
            client.drain()
        await ann.send(P.Start())
        again = await play_all([Player(ann, 4), Player(bob, 5), Player(cy, 6)])
        second = [m for m in bob.log if isinstance(m, P.RoundStarted)][-2]
        assert second.round == 1 and second.commitment == updated.table.commitment
        assert again[0].contributions == ("", "", "")
        assert again[0].seed is not None and hashlib.sha256(
            bytes.fromhex(again[0].seed)).hexdigest() == updated.table.commitment
        await server.shutdown()
    await store.aclose()

    with Store.open(path, read_only=True) as kept:
        game, game2 = kept.games()
        record = kept.game(game.id).record
    assert record.fair_deal is not None and record.fair_deal.commitment == seen
    assert replay_main(["--verify", "--db", str(path), str(game2.id)]) == 0
    assert record.fair_deal.seed.hex() == over[0].seed
    assert replay_main(["--verify", "--db", str(path), str(game.id)]) == 0
    assert "all 2 deals" in capsys.readouterr().out

    # the same game with one card moved between two hands does not verify
    data = json.loads(record.to_json())
    hands = data["rounds"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    hands[0].sort()
    hands[1].sort()
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data), encoding="utf-8")
    record_from_json(tampered.read_text(encoding="utf-8"))  # still a well-formed record
    assert replay_main(["--verify", str(tampered)]) == 1
    assert "NOT VERIFIED: round 1: seat 0's hand" in capsys.readouterr().err


def test_the_minimal_bot_adds_nothing_still_plays_and_its_game_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "nimmt.db"
    with running_server("--step-delay", "0", "--db", str(path)) as port:
        done = run_minimal_bot("127.0.0.1", port, "--bots", "2", timeout=60)
        assert done.returncode == 0, done.stderr
        assert "winners" in done.stdout and not done.stderr
    with Store.open(path, read_only=True) as kept:
        (game,) = kept.games()
        record = kept.game(game.id).record
    assert record.fair_deal is not None
    assert record.fair_deal.contributions == (b"", b"", b"")
    assert replay_main(["--verify", "--db", str(path), str(game.id)]) == 0
    assert "verified" in capsys.readouterr().out


async def test_a_game_restored_after_a_restart_deals_on_from_its_committed_seed(tmp_path: Path):
    """The server stops in round 1 of a 2-round game; the restarted server deals
    round 2 from the same seed and contributions: the whole game verifies."""
    path = tmp_path / "nimmt.db"
    options = P.TableOptions(seats=2, rounds=2, step_delay=0, turn_time=30.0)
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob", protocol=2)  # (entropy in the clear)
        created = await ann.request(P.CreateTable(options=options))
        assert isinstance(created, P.Seated)
        seen = created.table.commitment
        seated = await bob.request(P.Join(table_id=created.table.table_id, entropy=BOB_ENTROPY))
        assert isinstance(seated, P.Seated)
        await ann.send(P.Start())
        started = await ann.expect("round_started")
        assert started.commitment == seen
        await ann.expect("turn_started")
        await server.shutdown()
    await store.aclose()

    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann2 = await ScriptClient.tcp(port, "Ann", token=ann.token)
        bob2 = await ScriptClient.tcp(port, "Bob", token=bob.token)
        snap = await ann2.expect("snapshot")
        assert snap.table.commitment == seen  # the game in progress keeps its commitment
        await ann2.send(P.Commit(round=1, turn=1, card=snap.hand[0]))
        results = await play_all([Player(ann2), Player(bob2, seed=1)])
        assert results[0].contributions == ("", BOB_ENTROPY)
        assert results[0].seed is not None
        assert hashlib.sha256(bytes.fromhex(results[0].seed)).hexdigest() == seen
        await server.shutdown()
    await store.aclose()

    with Store.open(path, read_only=True) as kept:
        (game,) = kept.games()
        record = kept.game(game.id).record
    assert len(record.rounds) == 2
    assert replay_main(["--verify", "--db", str(path), str(game.id)]) == 0
