"""Issue 42, "Commit, then reveal, for every contribution" (protocol version 3): a
seat sends the SHA-256 of its entropy when it sits down and reveals the entropy
only once the game's seats are fixed and their commitment shown; a wrong reveal
is refused, a reveal not made in time is withheld (an empty contribution, named
in the record), and the record's hashes and reveals are checked by
``nimmt-replay verify`` and ``sdk.verify_game``. The sans-IO match is driven by
hand (tests/test_match.py's Harness); the queue and the versions against a real
server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from nimmt import protocol as P
from nimmt.bots.sdk import verify_game
from nimmt.client.net import ClientConnection, connect
from nimmt.engine import UnfairDeal, record_from_json, verify_deals
from nimmt.server import start_server
from nimmt.server.game.deal_commitment import DealCommitment
from nimmt.server.game.io import Disconnected, Reconnected, Who
from nimmt.server.game.match import Match
from nimmt.server.ladder.ratings import Ladder
from nimmt.server.records.replay import main as replay_main
from nimmt.server.storage import AsyncStore, Store
from real_server import running_server
from server_helpers import Player, ScriptClient, make_config, play_all, serve_memory
from test_match import ANN, BOB, WALL, Harness

CY = Who(4, "Cy", "human")
BOB_ENTROPY = "b0b0" * 8
CY_ENTROPY = "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1"


def digest(entropy: str) -> str:
    return hashlib.sha256(bytes.fromhex(entropy)).hexdigest()


def three_seats(**settings) -> Harness:
    """Ann hosts a 3-seat table dealt from its committed seed (no test dealer)."""
    h = Harness.new(seats=3, rounds=1, point_limit=0, turn_time=1.0, choice_time=1.0,
                    **settings)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    return h


def everything_the_match_holds(h: Harness) -> str:
    """What a colluding server can tell anyone: the match's whole state, every fact
    it wrote and every message it sent so far, as text."""
    sent = [msg.to_wire() for got in h.got.values() for _, msg in got]
    facts = [[f.kind, f.payload] for f in h.facts]
    return json.dumps([h.match.to_data(), facts, sent], default=str)


# ====================================================================== the grinding attack
def test_a_late_joiner_told_all_the_server_holds_cannot_see_an_earlier_seat_s_entropy():
    """The attack issue 42 measured: a late joiner, told by a colluding server the
    seed and the honest player's entropy, grinds its own entropy until the deal
    suits it. With commit, then reveal the server holds only the honest player's
    hash when the late joiner's contribution is fixed, and nothing it holds later
    lets the late joiner change it."""
    h = three_seats()
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    # Cy's join: everything the server holds at that moment is Cy's to read
    leaked = everything_the_match_holds(h)
    assert BOB_ENTROPY not in leaked and digest(BOB_ENTROPY) in leaked
    h.send(CY, P.Join(table_id="t1", entropy_hash=digest(CY_ENTROPY), id=1))
    h.send(ANN, P.Start(id=2))
    # the seats are fixed and each was shown the commitment (its seated) first
    commitment = h.last(CY, "seated").table.commitment
    assert [(m.TYPE, m.commitment) for m in (h.last(BOB, "reveal_request"),
                                             h.last(CY, "reveal_request"))] == [
        ("reveal_request", commitment)] * 2
    assert not h.of(BOB, "round_started")  # no deal before the reveals
    h.send(BOB, P.Reveal(entropy=BOB_ENTROPY, id=3))
    assert h.last(BOB, "reveal_accepted").re == 3
    # now the colluding server knows Bob's entropy and tells Cy: too late, Cy's
    # contribution is the one it hashed; any other entropy it ground is refused
    assert BOB_ENTROPY in everything_the_match_holds(h)
    ground = "ee" * 16
    h.send(CY, P.Reveal(entropy=ground, id=4))
    refused = h.last(CY, "error")
    assert (refused.code, refused.field, refused.re) == ("reveal_mismatch", "entropy", 4)
    assert not h.of(CY, "reveal_accepted") and not h.of(CY, "round_started")
    h.send(CY, P.Reveal(entropy=CY_ENTROPY, id=5))
    assert h.last(CY, "reveal_accepted").re == 5
    assert h.last(ANN, "round_started").commitment == commitment
    h.run_until(300.0)  # the autopilot plays everyone out
    (done,) = h.finished
    claim = done.record.fair_deal
    assert claim.contributions == (b"", bytes.fromhex(BOB_ENTROPY), bytes.fromhex(CY_ENTROPY))
    assert claim.hashes == (b"", bytes.fromhex(digest(BOB_ENTROPY)),
                            bytes.fromhex(digest(CY_ENTROPY)))
    assert claim.withheld == () and verify_deals(done.record) == 1


def test_entropy_in_the_clear_is_what_a_late_joiner_could_read_before():
    """The contrast (protocol 2, served unchanged): a plain ``join.entropy`` is held
    by the match as soon as its seat is taken."""
    h = three_seats()
    h.send(BOB, P.Join(table_id="t1", entropy=BOB_ENTROPY, id=1))
    assert BOB_ENTROPY in everything_the_match_holds(h)


def test_the_seats_stay_fixed_while_the_reveals_are_awaited():
    h = three_seats()
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    h.send(CY, P.Join(table_id="t1", id=1))
    h.send(ANN, P.Start(id=2))
    assert h.match.status == "revealing" and h.match.info().status == "waiting"
    h.send(CY, P.Leave(id=3))
    assert (h.last(CY, "error").code, h.last(CY, "error").re) == ("not_allowed", 3)
    assert h.match.room.seat_of(CY.id) == 2
    h.send(ANN, P.RemoveBot(seat=2, id=4))
    assert h.last(ANN, "error").code == "already_started"
    h.send(CY, P.Reveal(entropy=BOB_ENTROPY, id=5))  # Cy sent no hash
    assert h.last(CY, "error").code == "not_allowed"
    # Bob drops and comes back: it is asked again, with the time left
    h.input(Disconnected(BOB.id, 0.0))
    h.now = 4.0
    h.input(Reconnected(BOB.id))
    again = h.last(BOB, "reveal_request")
    assert (again.remaining, again.deadline) == (6.0, WALL + 10.0)


def test_a_seat_back_in_the_last_second_is_told_the_fraction_left():
    """Half a second is what it has: not a whole one, nor none."""
    h = three_seats()
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    h.send(CY, P.Join(table_id="t1", id=1))
    h.send(ANN, P.Start(id=2))
    h.input(Disconnected(BOB.id, 0.0))
    h.now = 9.5
    h.input(Reconnected(BOB.id))
    again = h.last(BOB, "reveal_request")
    assert (again.remaining, again.deadline) == (0.5, WALL + 10.0)
    # back once the time is up but before the table's timer took its turn: no time
    # left, never a negative one
    h.input(Disconnected(BOB.id, 9.5))
    h.now = 10.5
    h.input(Reconnected(BOB.id))
    late = h.last(BOB, "reveal_request")
    assert (late.remaining, late.deadline) == (0.0, WALL + 10.0)


def test_the_log_names_each_seat_that_withheld_its_reveal(caplog: pytest.LogCaptureFixture):
    h = three_seats(reveal_time=8.0)
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    h.send(CY, P.Join(table_id="t1", entropy_hash=digest(CY_ENTROPY), id=1))
    h.send(ANN, P.Start(id=2))
    with caplog.at_level("INFO", logger="nimmt.server"):
        h.run_until(8.0)
    withheld = [r.getMessage() for r in caplog.records if "withheld" in r.getMessage()]
    assert withheld == ["table=t1 seat=1 withheld its reveal: it contributes nothing to the deals",
                        "table=t1 seat=2 withheld its reveal: it contributes nothing to the deals"]


# ====================================================================== withheld
def test_a_reveal_not_made_in_time_is_withheld_the_game_verifies_and_the_record_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    h = three_seats(reveal_time=8.0)
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    h.send(CY, P.Join(table_id="t1", entropy_hash=digest(CY_ENTROPY), id=1))
    h.send(ANN, P.Start(id=2))
    request = h.last(CY, "reveal_request")
    assert (request.remaining, request.deadline) == (8.0, WALL + 8.0)
    assert not h.of(ANN, "reveal_request")  # Ann sent no hash
    h.send(BOB, P.Reveal(entropy=BOB_ENTROPY, id=3))
    h.run_until(7.99)
    assert not h.of(ANN, "round_started") and h.match.status == "revealing"
    h.run_until(8.0)  # Cy's time is up: the game starts without its entropy
    assert h.at(ANN, h.last(ANN, "round_started")) == 8.0
    h.send(CY, P.Reveal(entropy=CY_ENTROPY, id=4))  # too late
    assert (h.last(CY, "error").code, h.last(CY, "error").re) == ("not_allowed", 4)
    h.run_until(400.0)
    over = h.last(ANN, "game_over")
    assert over.withheld == (2,) and over.contributions == ("", BOB_ENTROPY, "")
    (done,) = h.finished
    claim = done.record.fair_deal
    assert claim.withheld == (2,) and claim.contributions[2] == b""
    assert claim.hashes[2] == bytes.fromhex(digest(CY_ENTROPY))
    assert verify_game(done.record, request.commitment) == 1
    path = tmp_path / "game.json"
    path.write_text(done.record.to_json(), encoding="utf-8")
    saved = json.loads(path.read_text(encoding="utf-8"))["fair_deal"]
    assert saved["hashes"] == ["", digest(BOB_ENTROPY), digest(CY_ENTROPY)]
    assert saved["withheld"] == [2]
    assert replay_main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.endswith("with the players' contributions; 1 reveal match their hashes; "
                        "seat 2 withheld its reveal (contributed nothing)\n"), out

    # a record whose reveal is not its hash, or that hides a contribution behind a
    # withheld reveal, does not verify
    for change, why in (({"contributions": ["", CY_ENTROPY, ""]},
                         "seat 1's contribution does not match its hash"),
                        ({"withheld": []}, "seat 2's contribution does not match its hash"),
                        ({"contributions": ["", BOB_ENTROPY, CY_ENTROPY]},
                         "seat 2 withheld its reveal, yet its contribution is")):
        data = json.loads(done.record.to_json())
        data["fair_deal"].update(change)
        with pytest.raises(UnfairDeal, match=why):
            verify_game(json.dumps(data))
        tampered = tmp_path / "tampered.json"
        tampered.write_text(json.dumps(data), encoding="utf-8")
        assert replay_main(["verify", str(tampered)]) == 1
        assert why in capsys.readouterr().err


def test_a_record_of_a_game_nobody_hashed_in_reads_and_writes_as_before():
    h = three_seats()
    h.send(BOB, P.Join(table_id="t1", entropy=BOB_ENTROPY, id=1))
    h.send(CY, P.Join(table_id="t1", id=1))
    h.send(ANN, P.Start(id=2))
    assert h.last(ANN, "round_started")  # no reveal awaited: dealt at once
    h.run_until(300.0)
    (done,) = h.finished
    saved = json.loads(done.record.to_json())["fair_deal"]
    assert sorted(saved) == ["commitment", "contributions", "seed"]
    assert h.last(ANN, "game_over").withheld == ()
    assert verify_game(record_from_json(done.record.to_json())) == 1


# ====================================================================== the queue
KEY = "k" * 40
QUICK = P.TableOptions(rounds=1, point_limit=None, step_delay=0.0)


def revealing(entropy: str):
    """A ``Player.choose`` that answers ``reveal_request`` with ``entropy``."""
    def choose(player: Player, msg: P.Message) -> P.Message | None:
        return P.Reveal(entropy=entropy) if isinstance(msg, P.RevealRequest) else None
    return choose


async def test_a_queued_player_is_shown_its_game_s_commitment_before_its_reveal_is_asked():
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        ann = await ScriptClient.tcp(port, "Ann", key=KEY)
        bob = await ScriptClient.tcp(port, "Bob", key=KEY)
        mine = {"Ann": "a1" * 16, "Bob": BOB_ENTROPY}
        for client in (ann, bob):
            reply = await client.request(P.Queue(seats=2, options=QUICK, fill_after=None,
                                                 entropy_hash=digest(mine[client.name])))
            assert isinstance(reply, P.Queued)
        over = await play_all([Player(ann, 1, revealing(mine["Ann"])),
                               Player(bob, 2, revealing(mine["Bob"]))])
        for client in (ann, bob):
            shown = [m.TYPE for m in client.log if m.TYPE in (
                "queued", "seated", "reveal_request", "reveal_accepted", "round_started")]
            last_queued = len(shown) - 1 - shown[::-1].index("queued")
            # exactly: the answer to its queue, its seat at the formed table (with its
            # commitment), then the request, its acceptance, and only then the game
            assert shown[last_queued:shown.index("round_started") + 1] == [
                "queued", "seated", "reveal_request", "reveal_accepted", "round_started"]
            request = client.of_type("reveal_request")[0]
            at = client.log.index(request)
            tables = [m.table for m in client.log[:at]
                      if isinstance(m, (P.Seated, P.TableUpdated))]
            # the table before the request: formed (every seat taken), with its commitment
            assert all(s is not None for s in tables[-1].seats)
            assert request.commitment == tables[-1].commitment == \
                client.of_type("seated")[0].table.commitment
            assert client.of_type("round_started")[0].commitment == request.commitment
            formed = [seat.name for seat in tables[-1].seats if seat is not None]
            # each reveal is the contribution of its seat; nobody withheld
            assert over[0].contributions == tuple(mine[name] for name in formed)
        assert over[0].withheld == ()
        nursery.cancel_scope.cancel()


# ====================================================================== what it costs
async def test_at_a_rated_table_a_seat_that_withheld_is_rated_below_every_seat_that_revealed(
        autojump_clock):
    """Bob sends a hash and never reveals it, game after game, until he finishes
    ahead of Ann: each game is rated as if he had finished below her (docs/PROTOCOL.md,
    "What it proves, and what not"), never by the real places."""
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(ping_interval=3600.0,
                                                         pong_timeout=3600.0))
        ann = await ScriptClient.memory(server, nursery, "Ann", hello=False)
        await ann.hello(key=KEY)
        bob = await ScriptClient.memory(server, nursery, "Bob", hello=False)
        await bob.hello(key=KEY)
        created = await ann.request(P.CreateTable(options=replace(QUICK, seats=2, rated=True)))
        assert isinstance(created, P.Seated)
        table_id = created.table.table_id
        shadow = Ladder()  # what the ratings must be
        bob_ahead = False
        for game in range(12):
            joined = await bob.request(P.Join(table_id=table_id,
                                              entropy_hash=digest(f"{game:02x}" * 16)))
            assert isinstance(joined, P.Seated) and joined.seat == 1
            await ann.send(P.Start())
            asked = trio.current_time()
            over = await play_all([Player(ann, game), Player(bob, game + 100)])
            started = ann.times[ann.log.index(ann.of_type("round_started")[-1])]
            assert started - asked == pytest.approx(10.0)  # reveal_time: Bob's is withheld
            assert over[0].withheld == over[1].withheld == (1,)
            assert over[0].contributions == ("", "")
            shadow.rate(["Ann", "Bob"], [over[0].places[0], 3])
            ratings = server.lobby.ladder.ladder
            for name in ("Ann", "Bob"):
                assert ratings.get(name) == shadow.get(name), (game, name)
            bob_ahead = bob_ahead or over[0].places[1] < over[0].places[0]
            left = await bob.request(P.Leave())
            assert isinstance(left, P.Left)
            if bob_ahead:
                break
        assert bob_ahead  # a game Bob won was rated as lost
        assert ratings.get("Bob").ordinal < ratings.get("Ann").ordinal
        nursery.cancel_scope.cancel()


# ====================================================================== versions 1, 2 and 3
async def test_versions_1_2_and_3_play_one_game_each_its_own_way_and_it_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A version 1 client (no entropy), a version 2 client (entropy in the clear) and
    a version 3 client (a hash, then its reveal) at one table: each hears its own
    version, the game verifies, and the record keeps the one hash."""
    path = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(path))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        one = await ScriptClient.tcp(port, "One", protocol=1)
        two = await ScriptClient.tcp(port, "Two", protocol=2)
        three = await ScriptClient.tcp(port, "Three", protocol=3)
        created = await one.request(P.CreateTable(options=replace(QUICK, seats=3)))
        assert isinstance(created, P.Seated)
        table_id = created.table.table_id
        seen = (await two.request(P.Join(table_id=table_id, entropy=BOB_ENTROPY))).table
        assert (await three.request(P.Join(table_id=table_id,
                                           entropy_hash=digest(CY_ENTROPY)))).table.commitment \
            == seen.commitment
        await one.send(P.Start())
        over = await play_all([Player(one, 1), Player(two, 2),
                               Player(three, 3, revealing(CY_ENTROPY))])
        assert over[0].seed is None  # version 1 hears no seed
        assert over[1].contributions == over[2].contributions == ("", BOB_ENTROPY, CY_ENTROPY)
        assert over[2].withheld == ()
        assert three.of_type("reveal_request") and not two.of_type("reveal_request")
        for word in (b"reveal_request", b"reveal_accepted", b"withheld", b"entropy_hash"):
            assert word not in one.raw and word not in two.raw
        assert b"withheld" in three.raw
        await server.shutdown()
    await store.aclose()
    with Store.open(path, read_only=True) as kept:
        (game,) = kept.games()
        record = kept.game(game.id).record
    claim = record.fair_deal
    assert claim is not None and claim.commitment == seen.commitment
    assert claim.hashes == (b"", b"", bytes.fromhex(digest(CY_ENTROPY)))
    assert verify_game(record, seen.commitment) == 1
    assert replay_main(["verify", "--db", str(path), str(game.id)]) == 0
    assert "1 reveal match their hashes\n" in capsys.readouterr().out


# ====================================================================== a reveal is final
def test_a_seat_freed_after_a_reveal_gets_the_table_a_new_seed_and_drops_every_contribution():
    """A restart while reveals were made brings the table back waiting, with the
    reveals kept (the server knows them): if a seat is then freed, a newcomer must
    not contribute knowing them, so the table draws a new seed and shows it."""
    h = three_seats()
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    h.send(CY, P.Join(table_id="t1", entropy_hash=digest(CY_ENTROPY), id=1))
    h.send(ANN, P.Start(id=2))
    h.send(BOB, P.Reveal(entropy=BOB_ENTROPY, id=3))
    kept = DealCommitment.from_data(json.loads(json.dumps(h.match._deal.to_data())))
    assert kept == h.match._deal and kept.waiting_reveals == (2,)
    old = kept.commitment
    m = Match.restored("t1", "test", h.match.settings, now=0.0, persistent=False,
                       autostart=False, dealer=None, deal=kept, room=h.match.room,
                       status="waiting", games_played=0)
    back = Harness(m)
    back.send(CY, P.Leave(id=4))
    assert back.last(CY, "left").re == 4
    assert m.commitment != old and m._deal.contributions == () and m._deal.hashes == ()
    assert back.last(ANN, "table_updated").table.commitment == m.commitment
    # a seat freed before any reveal keeps the seed (nothing of anyone's is known)
    h2 = three_seats()
    h2.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    before = h2.match.commitment
    h2.send(BOB, P.Leave(id=2))
    assert h2.match.commitment == before and h2.match._deal.hashes == ()


def test_a_table_that_starts_by_itself_read_back_while_its_reveals_were_asked_asks_again():
    """A restart while a ladder table waited for its reveals: the table comes back
    waiting (the status is not kept) with its seats full and the reveals made; at its
    first call it asks again for the reveals not made, and the game starts."""
    h = three_seats()
    h.match.autostart = True  # as a ladder table is opened
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    h.send(CY, P.Join(table_id="t1", entropy_hash=digest(CY_ENTROPY), id=1))
    assert h.match.status == "revealing"  # the last seat taken: no start needed
    h.send(BOB, P.Reveal(entropy=BOB_ENTROPY, id=2))
    m = Match.restored("t1", "test", h.match.settings, now=100.0, persistent=False,
                       autostart=True, dealer=None, deal=h.match._deal, room=h.match.room,
                       status="waiting", games_played=0)
    back = Harness(m)
    back.now = 100.0
    back.input(Reconnected(CY.id))
    asked = back.last(CY, "reveal_request")
    assert (asked.remaining, asked.deadline) == (10.0, WALL + 110.0)
    assert not back.of(BOB, "reveal_request")  # Bob's reveal is kept
    back.send(CY, P.Reveal(entropy=CY_ENTROPY, id=3))
    assert back.last(ANN, "round_started").commitment == h.match.commitment
    assert m._fair is not None and m._fair.contributions == (
        b"", bytes.fromhex(BOB_ENTROPY), bytes.fromhex(CY_ENTROPY))


# ====================================================================== no entropy in the clear in v4
async def test_version_4_refuses_entropy_in_the_clear_and_names_entropy_hash():
    """A version 4 join or queue with ``entropy`` is refused (a later joiner told it
    by a colluding server could grind against it); versions 2 and 3, released taking
    it, still take it; version 4's own way sits."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        ann = await ScriptClient.tcp(port, "Ann")
        created = await ann.request(P.CreateTable(options=replace(QUICK, seats=3)))
        assert isinstance(created, P.Seated)
        table_id = created.table.table_id
        bob = await ScriptClient.tcp(port, "Bob", protocol=4, key=KEY)
        for request in (P.Join(table_id=table_id, entropy=BOB_ENTROPY),
                        P.Queue(seats=2, options=QUICK, fill_after=None, entropy=BOB_ENTROPY)):
            refused = await bob.request(request)
            assert isinstance(refused, P.Error), refused
            assert (refused.code, refused.field, refused.request) == (
                "out_of_range", "entropy", request.TYPE)
            assert refused.message.startswith("no entropy in the clear from protocol 4 on: "
                                              "send entropy_hash")
        assert bob.seat is None
        assert not server.lobby.ladder_queue.queued(server.lobby.sessions[bob.token])
        listed = await bob.request(P.ListTables())
        (table,) = [t for t in listed.tables if t.table_id == table_id]
        assert [s.name if s else None for s in table.seats] == ["Ann", None, None]
        two = await ScriptClient.tcp(port, "Two", protocol=2)  # version 2: unchanged
        assert isinstance(await two.request(P.Join(table_id=table_id, entropy=BOB_ENTROPY)),
                          P.Seated)
        three = await ScriptClient.tcp(port, "Three", protocol=3)  # version 3: as released
        assert isinstance(await three.request(P.Join(table_id=table_id, entropy=CY_ENTROPY)),
                          P.Seated)
        await three.request(P.Leave())
        assert isinstance(await bob.request(P.Join(table_id=table_id,
                                                   entropy_hash=digest(CY_ENTROPY))), P.Seated)
        nursery.cancel_scope.cancel()


def test_the_client_sends_a_callers_own_entropy_as_its_hash_in_version_3_and_reveals_it(
        monkeypatch: pytest.MonkeyPatch):
    """The client library (the terminal client's, the SDK's and nimmt-bot's) never
    sends entropy in the clear in version 3: a ``join`` given entropy by its caller
    sends the entropy's hash, and the entropy is revealed when the server asks."""
    written: list[P.Message] = []
    write = ClientConnection._write

    async def recording(self: ClientConnection, msg: P.Message) -> None:
        if isinstance(msg, (P.Join, P.Queue, P.Reveal)):
            written.append(msg)
        await write(self, msg)

    monkeypatch.setattr(ClientConnection, "_write", recording)

    async def until(conn: ClientConnection, *types: type) -> P.Message:
        while not isinstance(msg := await conn.receive(), types):
            pass
        return msg

    async def scenario(port: int) -> P.Message:
        ann = await connect("127.0.0.1", port, "Ann")
        await ann.send(P.CreateTable(options=replace(QUICK, seats=2)))
        seated = await until(ann, P.Seated)
        bob = await connect("127.0.0.1", port, "Bob")
        assert bob.welcome is not None and bob.welcome.protocol >= 3
        await bob.send(P.Join(table_id=seated.table.table_id, entropy=CY_ENTROPY))
        joined = await until(bob, P.Seated, P.Error)
        assert isinstance(joined, P.Seated), joined
        await ann.send(P.Start())
        accepted = await until(bob, P.RevealAccepted, P.Error)
        await ann.close()
        await bob.close()
        return accepted

    with running_server("--step-delay", "0") as port:
        accepted = asyncio.run(asyncio.wait_for(scenario(port), 30))
    assert isinstance(accepted, P.RevealAccepted)
    assert [m.TYPE for m in written] == ["join", "reveal"]
    assert written[0].entropy is None and written[0].entropy_hash == digest(CY_ENTROPY)
    assert written[1].entropy == CY_ENTROPY
