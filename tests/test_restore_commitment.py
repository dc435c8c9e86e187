"""Issue 41: the seed a table committed to, and the entropy its players added for
it, survive a restart (docs/PROTOCOL.md, "Verifiable deals"); ``DealCommitment``
is that value, on its own.

A real server on 127.0.0.1 with a database file, stopped cleanly and started
again on the same file; the players resume with their tokens."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
import trio

from nimmt import protocol as P
from nimmt.engine import FairDeal
from nimmt.server import start_server
from nimmt.server.config import TableSettings
from nimmt.server.game.deal_commitment import DealCommitment
from nimmt.server.records.replay import main as replay_main
from nimmt.server.storage import AsyncStore, Fact, Store, StoredSeat, StoredTable
from nimmt.server.tables.restore import restore_match
from server_helpers import Player, ScriptClient, make_config, play_all

BOB_ENTROPY = "b0b0" * 8
CY_ENTROPY = "c1c1"
DAN_ENTROPY = "d4"
OPTIONS = P.TableOptions(seats=3, rounds=1, point_limit=None, step_delay=0, turn_time=30.0)


def _verified(path: Path, game_id: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_main(["--verify", "--db", str(path), str(game_id)]) == 0
    assert "verified" in capsys.readouterr().out


async def test_a_waiting_table_deals_its_first_game_from_the_seed_its_players_saw(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """Ann creates, Bob joins with entropy, Cy joins with entropy and leaves again;
    the server stops before the game starts. After the restart Ann and Bob resume,
    Ann puts a bot in Cy's seat and starts: round 1 shows the commitment they saw,
    the revealed seed hashes to it, Bob's entropy counts and Cy's does not."""
    path = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        # (version 2: entropy in the clear; version 3 takes only entropy_hash)
        ann, bob, cy = [await ScriptClient.tcp(port, name, protocol=2)
                        for name in ("Ann", "Bob", "Cy")]
        created = await ann.request(P.CreateTable(options=OPTIONS))
        assert isinstance(created, P.Seated)
        table_id, seen = created.table.table_id, created.table.commitment
        assert seen is not None and len(seen) == 64
        for client, entropy in ((bob, BOB_ENTROPY), (cy, CY_ENTROPY)):
            seated = await client.request(P.Join(table_id=table_id, entropy=entropy))
            assert isinstance(seated, P.Seated) and seated.table.commitment == seen
        assert isinstance(await cy.request(P.Leave()), P.Left)
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()

    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann2 = await ScriptClient.tcp(port, "Ann", token=ann.token)
        bob2 = await ScriptClient.tcp(port, "Bob", token=bob.token)
        for client, seat in ((ann2, 0), (bob2, 1)):
            assert client.welcome is not None and client.welcome.resumed
            back = await client.expect("seated")
            assert (back.table.table_id, back.seat, back.table.status) == (
                table_id, seat, "waiting")
            assert back.table.commitment == seen
        listed = await ann2.request(P.ListTables())
        assert [t.commitment for t in listed.tables] == [seen]
        added = await ann2.request(P.AddBot(strategy="heuristic", seat=2))
        assert isinstance(added, P.TableUpdated), added
        await ann2.send(P.Start())
        over = await play_all([Player(ann2), Player(bob2, seed=1)])
        (first,) = [m for m in bob2.log if isinstance(m, P.RoundStarted)]
        assert first.round == 1 and first.commitment == seen
        for result in over:
            assert result.seed is not None
            assert hashlib.sha256(bytes.fromhex(result.seed)).hexdigest() == seen
            assert result.contributions == ("", BOB_ENTROPY, "")
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()

    with Store.open(path, read_only=True) as kept:
        (game,) = kept.games()
        record = kept.game(game.id).record
    assert record.fair_deal is not None
    assert record.fair_deal.commitment == seen
    assert record.fair_deal.contributions == (b"", bytes.fromhex(BOB_ENTROPY), b"")
    _verified(path, game.id, capsys)


async def test_a_finished_table_deals_its_next_game_from_the_seed_shown_after_the_last(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A game ends (a new commitment is shown); Bob leaves and joins again with entropy
    for it; the server restarts: the next game is dealt from that commitment, with
    Bob's entropy, and verifies."""
    path = tmp_path / "nimmt.db"
    options = P.TableOptions(seats=2, rounds=1, point_limit=None, step_delay=0,
                             turn_time=30.0)
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann, bob = [await ScriptClient.tcp(port, name, protocol=2)  # (entropy in the clear)
                    for name in ("Ann", "Bob")]
        created = await ann.request(P.CreateTable(options=options))
        assert isinstance(created, P.Seated)
        table_id = created.table.table_id
        assert isinstance(await bob.request(P.Join(table_id=table_id)), P.Seated)
        await ann.send(P.Start())
        await play_all([Player(ann), Player(bob, seed=1)])
        assert isinstance(await bob.request(P.Leave()), P.Left)
        seated = await bob.request(P.Join(table_id=table_id, entropy=DAN_ENTROPY))
        assert isinstance(seated, P.Seated) and seated.table.status == "over"
        shown = seated.table.commitment
        assert shown not in (None, created.table.commitment)
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()

    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann2 = await ScriptClient.tcp(port, "Ann", token=ann.token)
        bob2 = await ScriptClient.tcp(port, "Bob", token=bob.token)
        for client in (ann2, bob2):
            back = await client.expect("seated")
            assert back.table.status == "over" and back.table.commitment == shown
        await ann2.send(P.Start())
        over = await play_all([Player(ann2), Player(bob2, seed=1)])
        first = [m for m in ann2.log if isinstance(m, P.RoundStarted)][-1]
        assert first.round == 1 and first.commitment == shown
        assert over[0].seed is not None
        assert hashlib.sha256(bytes.fromhex(over[0].seed)).hexdigest() == shown
        assert over[0].contributions == ("", DAN_ENTROPY)
        await server.shutdown()
        nursery.cancel_scope.cancel()
    await store.aclose()

    with Store.open(path, read_only=True) as kept:
        _, second = kept.games()
    _verified(path, second.id, capsys)


# ====================================================================== restore, sans-IO
def _waiting_table(facts: list[Fact]) -> StoredTable:
    settings = {"table": {"seats": 3}, "persistent": False, "autostart": False}
    seats = (StoredSeat(0, "Ann", "human", "a" * 64, None),
             StoredSeat(1, "Bob", "human", None, None),  # no token: free after the restart
             StoredSeat(2, "Cy", "human", "c" * 64, None))
    return StoredTable("t1", "test", {}, settings, "waiting", 0.0, 0.0, seats,
                       tuple(facts), len(facts))


def test_a_restored_waiting_table_keeps_its_seed_and_the_entropy_of_its_seated_players():
    kept = (DealCommitment(bytes(range(32))).contribute(0, b"\xa0")
            .contribute(1, b"\xb0").contribute(2, b"\xc0"))
    stored = _waiting_table([Fact("seat", {"seat": 0}), kept.fact()])
    match, people = restore_match(stored, now=5.0, members=[10, 11])
    assert [p.seat for p in people] == [0, 2]
    assert match.commitment == kept.commitment
    # Bob's seat is free after the restart: whoever takes it has added nothing
    assert match.to_data()["deal"] == kept.withdraw(1).to_data()


def test_a_table_kept_without_its_seed_draws_one_and_keeps_it():
    """A database written before the seed was kept: a new seed, and its fact goes out
    with the table's first effects (so the next restart keeps it)."""
    match, _ = restore_match(_waiting_table([]), now=5.0, members=[10, 11])
    drawn = match.to_data()["deal"]
    out = match.wake(6.0, 1000.0)
    assert [(f.kind, f.payload) for f in out.facts] == [("deal_commitment", drawn)]


# ====================================================================== the value
def test_renew_draws_a_new_seed_and_shows_a_new_commitment():
    stream = random.Random(7)
    first = DealCommitment.draw(stream)
    second = first.renew(stream)
    assert second.seed != first.seed and len(second.seed) == 32
    assert second.commitment != first.commitment
    assert second.commitment == hashlib.sha256(second.seed).hexdigest()


def test_a_contribution_made_for_an_old_commitment_does_not_count():
    old = DealCommitment(bytes(32)).contribute(1, b"\xb0\xb0").contribute(0, b"\xa0")
    assert old.seal(3) == FairDeal(bytes(32), (b"\xa0", b"\xb0\xb0", b""))
    new = old.renew(random.Random(1))
    assert new.seal(3).contributions == (b"", b"", b"")
    again = new.contribute(1, b"\x01")  # made after the new commitment was shown: counts
    assert again.seal(3) == FairDeal(new.seed, (b"", b"\x01", b""))
    assert again.withdraw(1).seal(3).contributions == (b"", b"", b"")
    assert again.contribute(1, b"").contributions == ()


def test_the_value_round_trips_through_plain_data_exactly():
    value = DealCommitment(bytes(range(32))).contribute(2, b"\xff" * 32).contribute(0, b"\x00")
    data = json.loads(json.dumps(value.to_data()))  # plain data only
    assert data == {"seed": bytes(range(32)).hex(),
                    "contributions": [[0, "00"], [2, "ff" * 32]]}
    back = DealCommitment.from_data(data)
    assert back == value and back.commitment == value.commitment
    assert back.seal(3) == value.seal(3)
    assert DealCommitment.of_game(value.seal(3)) == value
    assert value.fact().payload == data


@pytest.mark.parametrize("seed, contributions", [
    (bytes(31), ()), (bytes(32), ((0, b""),)), (bytes(32), ((0, bytes(33)),)),
    (bytes(32), ((1, b"\x01"), (0, b"\x02"))), (bytes(32), ((0, b"\x01"), (0, b"\x02"))),
])
def test_a_value_that_cannot_be_dealt_from_is_refused(seed, contributions):
    with pytest.raises(ValueError):
        DealCommitment(seed, contributions)


def test_a_match_written_and_read_back_keeps_its_commitment_and_contributions():
    from nimmt.server.game import Match, Request, Who
    match = Match("t1", "test", TableSettings(seats=2).validate(), now=0.0)
    match.handle(Request(Who(1, "Ann", "human"), P.CreateTable(options=P.TableOptions(
        seats=2))), 0.0, 1000.0)
    match.handle(Request(Who(2, "Bob", "human"), P.Join(table_id="t1", entropy="b0")),
                 0.0, 1000.0)
    back = Match.from_data(json.loads(json.dumps(match.to_data())))
    assert back.commitment == match.commitment is not None
    assert back.to_data()["deal"]["contributions"] == [[1, "b0"]]
