"""The time bank (table option ``time_bank``, Board Game Arena's "extra time"): a
decision not made by its deadline draws on its seat's reserve for the game before
the autopilot makes it. The match alone on a hand-driven clock, then a real
server on trio's fake clock."""

from __future__ import annotations

import pytest
import trio

from nimmt import protocol as P
from server_helpers import ScriptClient, make_config, seat_players, serve_memory
from test_match import ANN, BOB, WALL, Harness, fixed, standard_deal


def _turn_started(h: Harness, turn: int) -> float:
    msg = next(m for m in h.of(ANN, "turn_started") if m.turn == turn)
    return h.at(ANN, msg)


def test_a_late_commit_draws_on_the_bank_and_the_autopilot_waits_for_it_to_run_out():
    h = Harness.new(fixed(standard_deal()), time_bank=20.0)  # no card fits no row
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(29.9)
    assert not h.of(ANN, "deadline_warning")  # her bank carries her past the deadline
    h.run_until(30.0)
    extra = h.last(ANN, "deadline_warning")
    assert (extra.kind, extra.remaining, extra.deadline) == ("commit", 20.0, WALL + 50.0)
    h.run_until(49.9)
    assert not h.of(ANN, "revealed")  # no autopilot while the bank lasts
    h.run_until(50.0)
    assert h.at(ANN, h.last(ANN, "revealed")) == 50.0
    assert [t.strategy for t in h.thinks] == [None]  # then the table's fallback decided
    # the bank is spent: the next turn's deadline is final (warned 5 s before, played at 30)
    start = _turn_started(h, 2)
    h.send(BOB, P.Commit(round=1, turn=2, card=h.hand(BOB)[1], id=4))
    h.run_until(start + 25.0)
    assert h.last(ANN, "deadline_warning").remaining == 5.0
    h.run_until(start + 30.0)
    assert len(h.of(ANN, "revealed")) == 2


def test_what_a_seat_used_is_taken_from_its_bank_once_even_if_it_changes_its_commit():
    h = Harness.new(fixed(standard_deal()), time_bank=20.0)
    h.start_two()
    h.run_until(30.0)  # neither decided: both are told their extra time runs
    assert h.last(ANN, "deadline_warning").remaining == 20.0
    assert h.last(BOB, "deadline_warning").remaining == 20.0
    h.run_until(35.0)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.run_until(36.0)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[1], id=4))  # replaced: +1 s
    h.run_until(40.0)
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    assert dict(h.last(ANN, "revealed").plays)[0] == h.hand(ANN)[1]
    start = _turn_started(h, 2)
    h.run_until(start + 30.0)
    assert h.last(ANN, "deadline_warning").remaining == pytest.approx(14.0)  # 20 - 6
    assert h.last(BOB, "deadline_warning").remaining == pytest.approx(10.0)  # 20 - 10


def test_without_a_bank_the_deadline_is_final_and_bots_never_wait():
    h = Harness.new()
    h.start_two()
    h.run_until(30.0)
    assert len(h.of(ANN, "deadline_warning")) == 1  # only the warning 5 s before
    assert h.of(ANN, "revealed")
    bots = Harness.new(time_bank=60.0)
    bots.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    bots.send(ANN, P.AddBot(strategy="easy", id=2))
    bots.send(ANN, P.Start(id=3))
    bots.send(ANN, P.Commit(round=1, turn=1, card=bots.hand(ANN)[0], id=4))
    assert bots.of(ANN, "revealed")  # the built-in bot decided at once, bank or not


def test_the_option_goes_over_the_wire_and_is_checked():
    h = Harness.new(time_bank=45.0)
    assert h.match.info().options.time_bank == 45.0
    with pytest.raises(P.ProtocolError):
        P.TableOptions(time_bank=-1.0)


async def test_a_real_server_gives_the_extra_time_then_the_autopilot_plays(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")
        options = P.TableOptions(seats=2, step_delay=0, time_bank=40.0)
        await seat_players(ann, [bob], options)
        await ann.send(P.Start())
        turn = await bob.expect("turn_started")
        start = bob.times[bob.log.index(turn)]
        hand = (await ann.expect("hand_dealt")).cards
        await ann.send(P.Commit(round=1, turn=1, card=hand[0]))
        extra = await bob.expect("deadline_warning")  # Bob thinks on: at 30 s, his bank
        assert extra.remaining == pytest.approx(40.0)
        assert bob.times[bob.log.index(extra)] - start == pytest.approx(30.0)
        mine = await bob.expect("commit_accepted")  # the autopilot, once it ran out
        assert bob.times[bob.log.index(mine)] - start == pytest.approx(70.0)
        assert not ann.of_type("deadline_warning")  # Ann had decided
        nursery.cancel_scope.cancel()


def test_what_is_left_of_a_bank_is_kept_as_data_and_over_a_restart():
    from dataclasses import asdict

    from nimmt.server.game import bank as match_bank
    from nimmt.server.game.match import Match
    from nimmt.server.tables.restore import restore_match
    from nimmt.server.storage import MEMORY, Store

    h = Harness.new(fixed(standard_deal()), time_bank=20.0)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(38.0)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))  # 8 s of her bank
    assert h.of(ANN, "revealed")
    assert (match_bank.left(h.match, 0), match_bank.left(h.match, 1)) == (12.0, 20.0)

    back = Match.from_data(h.match.to_data(), dealer=h.match.dealer)
    assert (match_bank.left(back, 0), match_bank.left(back, 1)) == (12.0, 20.0)

    store = Store.open(MEMORY)  # a restart: the table as the server stored it
    store.create_table("t1", "test", {}, {"table": asdict(h.match.settings)})
    store.set_seat("t1", 0, "Ann", "human", token="tok_ann_0123456789abcdef")
    store.set_seat("t1", 1, "Bob", "human", token="tok_bob_0123456789abcdef")
    store.append("t1", [f for f in h.facts if f.kind in ("game_started", "deal", "decision")])
    (table,) = store.open_tables()
    store.close()
    restored, _ = restore_match(table, now=0.0, members=[7, 8])
    assert restored.status == "playing"
    assert (match_bank.left(restored, 0), match_bank.left(restored, 1)) == (12.0, 20.0)
