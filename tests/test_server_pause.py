"""A solo game's clock paused while its player reads the help (``pause``/``resume``):
the match alone on a hand-driven clock. The pause stops the decision's deadline and
the time bank, moves them by exactly the time paused, ends by itself after
``MAX_PAUSE``, and is refused wherever another human would wait."""

from __future__ import annotations

import pytest

from nimmt import protocol as P
from nimmt.server.game.io import Disconnected
from test_match import ANN, BOB, WALL, Harness, fixed, standard_deal


def _solo(**settings) -> Harness:
    h = Harness.new(fixed(standard_deal()), **settings)  # no card needs a row choice
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(ANN, P.AddBot(strategy="easy", id=2))
    h.send(ANN, P.Start(id=3))
    return h


def test_a_pause_moves_the_deadline_by_exactly_the_time_paused():
    h = _solo()  # 30 s a turn, warned 5 s before
    turn = h.last(ANN, "turn_started")
    assert turn.deadline == WALL + 30.0
    h.run_until(10.0)
    h.send(ANN, P.Pause(id=4))
    paused = h.last(ANN, "clock_paused")
    assert (paused.paused, paused.re, paused.remaining, paused.ends_in) == (True, 4, 20.0,
                                                                           P.MAX_PAUSE)
    h.run_until(100.0)  # far past the deadline: nothing was played for her
    assert not h.of(ANN, "revealed") and not h.of(ANN, "deadline_warning")
    h.send(ANN, P.Resume(id=5))
    running = h.last(ANN, "clock_paused")
    assert (running.paused, running.re, running.remaining) == (False, 5, 20.0)
    assert running.deadline == WALL + 30.0 + 90.0  # moved by the 90 s paused
    h.run_until(114.9)
    assert not h.of(ANN, "deadline_warning")
    h.run_until(115.0)
    assert h.last(ANN, "deadline_warning").remaining == 5.0
    h.run_until(120.0)
    assert h.at(ANN, h.last(ANN, "revealed")) == 120.0  # the autopilot, 20 s after resuming


def test_the_time_bank_waits_during_a_pause_too():
    h = _solo(time_bank=10.0)
    h.run_until(35.0)  # 5 s into her bank
    h.send(ANN, P.Pause(id=4))
    h.run_until(200.0)
    assert not h.of(ANN, "revealed")
    h.send(ANN, P.Resume(id=5))
    h.run_until(204.9)
    assert not h.of(ANN, "revealed")
    h.run_until(205.0)  # the 5 s left of the bank, from the resume
    assert h.at(ANN, h.last(ANN, "revealed")) == 205.0


def test_a_pause_ends_by_itself_and_when_its_player_leaves():
    h = _solo()
    h.send(ANN, P.Pause(id=4))
    h.run_until(P.MAX_PAUSE - 0.1)
    assert h.last(ANN, "clock_paused").paused
    h.run_until(P.MAX_PAUSE)
    assert not h.last(ANN, "clock_paused").paused  # runs again: 30 s from now
    assert h.last(ANN, "clock_paused").remaining == 30.0
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=5))
    assert h.of(ANN, "revealed")
    h.send(ANN, P.Pause(id=6))
    h.input(Disconnected(ANN.id, h.now))  # nobody reads the help any more
    assert h.match._paused_at is None


def test_a_decision_armed_while_paused_gets_its_whole_time_from_the_resume():
    h = _solo()
    h.send(ANN, P.Pause(id=4))
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=5))  # turn 2 is armed
    h.run_until(50.0)
    assert h.last(ANN, "turn_started").turn == 2
    h.send(ANN, P.Resume(id=6))
    assert h.last(ANN, "clock_paused").remaining == 30.0


def test_a_pause_is_refused_with_two_humans_at_the_table_and_their_clock_runs():
    h = Harness.new()
    h.start_two()
    h.send(ANN, P.Pause(id=4))
    error = h.last(ANN, "error")
    assert (error.code, error.request, error.re) == ("not_allowed", "pause", 4)
    assert "solo game" in error.message and "Bob" in error.message
    assert not h.of(BOB, "clock_paused")
    h.run_until(30.0)
    assert h.of(ANN, "revealed")  # the turn ended on time for Bob


def test_no_pause_without_a_game():
    h = Harness.new()
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(ANN, P.Pause(id=2))
    assert h.last(ANN, "error").message == "no game is being played: there is no clock to pause"


def test_a_paused_match_is_kept_as_data():
    from nimmt.server.game.match import Match
    h = _solo()
    h.run_until(10.0)
    h.send(ANN, P.Pause(id=4))
    back = Match.from_data(h.match.to_data(), dealer=h.match.dealer)
    assert (back._paused_at, back._paused_by) == (10.0, ANN.id)


async def test_a_real_server_pauses_a_solo_game_and_refuses_at_a_shared_table(autojump_clock):
    import trio
    from server_helpers import ScriptClient, make_config, seat_players, serve_memory

    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        # solo: Ann and a bot; her pause holds the turn 100 s past its 30 s
        ann = await ScriptClient.memory(server, nursery, "Ann")
        await seat_players(ann, [], P.TableOptions(seats=2, step_delay=0), bots=1)
        await ann.send(P.Start())
        turn = await ann.expect("turn_started")
        start = ann.times[ann.log.index(turn)]
        paused = await ann.request(P.Pause())
        assert isinstance(paused, P.ClockPaused) and paused.paused
        with trio.move_on_after(130.0):  # reading on (answering the server's pings)
            while True:
                await ann.recv()
        assert not ann.of_type("revealed") and not ann.of_type("commit_accepted")
        running = await ann.request(P.Resume())
        assert running.remaining == pytest.approx(30.0) and not running.paused
        mine = await ann.expect("commit_accepted")  # the autopilot, 30 s after resuming
        assert ann.times[ann.log.index(mine)] - start == pytest.approx(160.0)

        # shared: Cy's pause is refused, Dee's turn ends on time
        cy = await ScriptClient.memory(server, nursery, "Cy")
        dee = await ScriptClient.memory(server, nursery, "Dee")
        await seat_players(cy, [dee], P.TableOptions(seats=2, step_delay=0))
        await cy.send(P.Start())
        await cy.expect("turn_started")
        turn = await dee.expect("turn_started")
        start = dee.times[dee.log.index(turn)]
        refused = await cy.request(P.Pause())
        assert isinstance(refused, P.Error) and refused.code == "not_allowed"
        assert "Dee would wait" in refused.message
        revealed = await dee.expect("revealed")
        assert dee.times[dee.log.index(revealed)] - start == pytest.approx(30.0)
        assert not dee.of_type("clock_paused")
        nursery.cancel_scope.cancel()
