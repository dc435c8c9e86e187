"""Every deadline, on trio's fake clock: turns, row and tie choices, draft picks, the
warnings before them, players away (grace or at once), abandoned tables, the hello
deadline and the heartbeat."""

from __future__ import annotations

import pytest
import trio

from nimmt import protocol as P
from nimmt.bots import HeuristicStrategy
from nimmt.engine import Commit, Deal, Game, Options
from server_helpers import (
    ScriptClient,
    fixed_dealer,
    make_config,
    seat_players,
    serve_memory,
    standard_hands,
)


async def two_players(nursery, options: P.TableOptions, dealer=None, **config):
    server = await serve_memory(nursery, make_config(**config), dealer=dealer)
    ann = await ScriptClient.memory(server, nursery, "Ann")
    bob = await ScriptClient.memory(server, nursery, "Bob")
    table_id = await seat_players(ann, [bob], options)
    return server, ann, bob, table_id


def arrival(client: ScriptClient, msg: P.Message) -> float:
    return client.times[next(i for i, m in enumerate(client.log) if m is msg)]


async def test_turn_deadline_the_fallback_strategy_commits_after_a_warning(autojump_clock):
    deal = standard_hands(2)
    async with trio.open_nursery() as nursery:
        _, ann, bob, _ = await two_players(nursery, P.TableOptions(seats=2, step_delay=0),
                                           fixed_dealer(deal))
        await ann.send(P.Start())
        turn = await bob.expect("turn_started")
        start = arrival(bob, turn)
        await ann.expect("turn_started")
        await ann.send(P.Commit(round=1, turn=1, card=deal.hands[0][0]))
        warning = await bob.expect("deadline_warning")  # Bob says nothing: he is warned ...
        assert (warning.kind, warning.round, warning.turn, warning.pick) == ("commit", 1, 1, 0)
        assert warning.remaining == pytest.approx(5.0)  # warn_before
        assert arrival(bob, warning) - start == pytest.approx(25.0)
        mine = await bob.expect("commit_accepted")  # ... and the autopilot commits for him
        assert arrival(bob, mine) - start == pytest.approx(30.0)
        revealed = await bob.expect("revealed")
        assert (1, mine.card) in revealed.plays
        # the card is the heuristic's choice, from Bob's view of that moment
        game = Game(Options(players=2))
        game.deal(deal)
        game.apply(Commit(0, deal.hands[0][0]))
        assert mine.card == HeuristicStrategy().decide(game.view(1)).card
        assert not ann.of_type("deadline_warning")  # Ann had decided
        assert not ann.of_type("chat_message") and not bob.of_type("chat_message")
        nursery.cancel_scope.cancel()


async def test_bot_clients_are_warned_too_and_spectators_never(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        robo = await ScriptClient.memory(server, nursery, "Robo", "bot")
        table_id = await seat_players(ann, [robo], P.TableOptions(seats=3, step_delay=0),
                                      bots=1)
        sam = await ScriptClient.memory(server, nursery, "Sam", "spectator")
        await sam.request(P.Watch(table_id=table_id))
        await ann.send(P.Start())
        turn = await robo.expect("turn_started")
        start = arrival(robo, turn)
        await sam.expect("turn_started")
        for client in (ann, robo):  # neither decides: both are warned, 5 s before
            warning = await client.expect("deadline_warning")
            assert (warning.kind, warning.round, warning.turn) == ("commit", 1, 1)
            assert arrival(client, warning) - start == pytest.approx(25.0)
        await sam.expect("revealed")
        assert not sam.of_type("deadline_warning")
        assert len(ann.of_type("deadline_warning")) == len(robo.of_type("deadline_warning")) == 1
        nursery.cancel_scope.cancel()


async def test_no_warning_when_the_time_given_is_not_longer_than_warn_before(autojump_clock):
    options = P.TableOptions(seats=2, step_delay=0, turn_time=5.0)
    async with trio.open_nursery() as nursery:
        _, ann, bob, _ = await two_players(nursery, options)
        await ann.send(P.Start())
        turn = await bob.expect("turn_started")
        assert turn.remaining == pytest.approx(5.0)
        await bob.expect("revealed")  # the autopilot played for both of them at 5 s
        await ann.expect("revealed")
        assert not ann.of_type("deadline_warning") and not bob.of_type("deadline_warning")
        nursery.cancel_scope.cancel()


async def test_row_choice_deadline_takes_the_cheapest_row(autojump_clock):
    async with trio.open_nursery() as nursery:
        _, ann, bob, _ = await two_players(nursery, P.TableOptions(seats=2, step_delay=0),
                                           fixed_dealer(standard_hands(2, low_seat=0)))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        await ann.send(P.Commit(round=1, turn=1, card=1))
        await bob.send(P.Commit(round=1, turn=1, card=15))
        request = await ann.expect("row_choice_request")
        asked = arrival(ann, request)
        assert request.remaining == pytest.approx(20.0) and request.rows == (0, 1, 2, 3)
        warning = await ann.expect("deadline_warning")
        assert (warning.kind, warning.round, warning.turn, warning.pick) == ("row", 1, 1, 0)
        assert warning.remaining == pytest.approx(5.0)
        assert arrival(ann, warning) - asked == pytest.approx(15.0)
        taken = await bob.expect("row_taken")
        # rows 11 | 12 | 13 | 14: 11 has 5 bullheads, the others 1: the lowest of those
        assert (taken.seat, taken.row, taken.cards, taken.bullheads) == (0, 1, (12,), 1)
        assert arrival(bob, taken) - asked == pytest.approx(20.0)
        placed = await bob.expect("placed")
        assert (placed.card, placed.row) == (1, 1)
        nursery.cancel_scope.cancel()


async def test_tie_choice_deadline_takes_the_first_place(autojump_clock):
    ann_hand = (21, 22, 23, 24, 25, 26, 27, 28, 29, 31)
    deal = Deal(rows=(20, 30, 60, 70), hands=(ann_hand, tuple(range(81, 91))))
    async with trio.open_nursery() as nursery:
        options = P.TableOptions(seats=2, professional=True, step_delay=0)
        _, ann, bob, _ = await two_players(nursery, options, fixed_dealer(deal))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        await ann.send(P.Commit(round=1, turn=1, card=25))  # 20 <25> 30: a tie
        await bob.send(P.Commit(round=1, turn=1, card=81))
        request = await ann.expect("tie_choice_request")
        asked = arrival(ann, request)
        assert [(p.row, p.end) for p in request.places] == [(0, "right"), (1, "left")]
        needed = await bob.expect("tie_choice_needed")
        assert needed.seat == 0 and needed.card == 25
        warning = await ann.expect("deadline_warning")
        assert (warning.kind, warning.round, warning.turn, warning.pick) == ("tie", 1, 1, 0)
        assert arrival(ann, warning) - asked == pytest.approx(15.0)
        placed = await bob.expect("placed")
        assert (placed.seat, placed.card, placed.row, placed.end) == (0, 25, 0, "right")
        assert arrival(bob, placed) - asked == pytest.approx(20.0)
        nursery.cancel_scope.cancel()


async def test_draft_pick_deadline_picks_for_the_player(autojump_clock):
    async with trio.open_nursery() as nursery:
        options = P.TableOptions(seats=2, draft=True, tactic_deck=True, step_delay=0)
        _, ann, bob, _ = await two_players(nursery, options)
        await ann.send(P.Start())
        request = await ann.expect("draft_pick_request")
        assert request.pick == 1 and request.pool == tuple(range(1, 25))
        asked = arrival(ann, request)
        warning = await ann.expect("deadline_warning")
        assert (warning.kind, warning.round, warning.turn, warning.pick) == ("draft", 1, 0, 1)
        assert warning.remaining == pytest.approx(5.0)
        assert arrival(ann, warning) - asked == pytest.approx(10.0)  # draft_time 15 s
        picked = await bob.expect("draft_picked")
        assert picked.seat == 0 and picked.card in request.pool
        assert arrival(bob, picked) - asked == pytest.approx(15.0)
        needed = await bob.expect("draft_pick_needed")
        assert (needed.seat, needed.pick) == (1, 2)
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("mode", ["grace", "immediately"])
async def test_a_player_away_is_played_for_after_the_grace_or_at_once(autojump_clock, mode):
    options = P.TableOptions(seats=2, step_delay=0, turn_time=100.0, grace_time=30.0,
                             autoplay_when_away=mode)
    async with trio.open_nursery() as nursery:
        _, ann, bob, _ = await two_players(nursery, options)
        await ann.send(P.Start())
        turn = await bob.expect("turn_started")
        start = arrival(bob, turn)
        await trio.sleep(1)
        await ann.aclose()  # Ann's connection drops before she commits
        hand = (await bob.expect("hand_dealt") if False else bob.of_type("hand_dealt")[0]).cards
        await bob.send(P.Commit(round=1, turn=1, card=hand[0]))
        away = await bob.expect(lambda m: m.TYPE == "table_updated"
                                and not m.table.seats[0].connected)
        assert arrival(bob, away) - start == pytest.approx(1.0)
        ann_commit = await bob.expect(lambda m: m.TYPE == "seat_committed" and m.seat == 0)
        expected = 31.0 if mode == "grace" else 1.0  # not the turn's 100 s
        assert arrival(bob, ann_commit) - start == pytest.approx(expected)
        # from now on Ann's decisions are made as soon as they are due
        turn2 = await bob.expect("turn_started")
        ann_commit2 = await bob.expect(lambda m: m.TYPE == "seat_committed" and m.seat == 0)
        assert arrival(bob, ann_commit2) == arrival(bob, turn2)
        nursery.cancel_scope.cancel()


async def test_a_table_whose_humans_all_vanished_is_played_out_then_closed(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, ann, bob, table_id = await two_players(nursery, P.TableOptions(seats=2))
        lobby = await ScriptClient.memory(server, nursery, "Lou")
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        gone = trio.current_time()
        await ann.aclose()
        await bob.aclose()
        over = await lobby.expect(lambda m: m.TYPE == "table_updated"
                                  and m.table.status == "over")
        # played out once the grace (30 s) was over: no deadline, no pause waited for
        # (the lobby hears of a table's changes within a second)
        assert arrival(lobby, over) - gone == pytest.approx(30.0, abs=1.0)
        assert max(s.total for s in over.table.seats) >= 66
        closed = await lobby.expect("table_closed")
        assert closed.table_id == table_id
        # closed keep_finished (300 s) after the end: 330 s in all (docs/SERVER.md)
        assert arrival(lobby, closed) - gone == pytest.approx(330.0, abs=1.0)
        listing = await lobby.request(P.ListTables())
        assert listing.tables == ()
        nursery.cancel_scope.cancel()


async def test_an_abandoned_table_is_closed_even_if_its_game_crawls(autojump_clock):
    # a long grace: the absent players are only played for at each 30 s deadline
    options = P.TableOptions(seats=2, grace_time=3600.0)
    async with trio.open_nursery() as nursery:
        server, ann, bob, table_id = await two_players(nursery, options)
        lobby = await ScriptClient.memory(server, nursery, "Lou")
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        gone = trio.current_time()
        await ann.aclose()
        await bob.aclose()
        closed = await lobby.expect("table_closed")
        assert closed.table_id == table_id
        assert arrival(lobby, closed) - gone == pytest.approx(600.0, abs=1.0)  # abandon_after
        updates = [m for m in lobby.log if m.TYPE == "table_updated"]
        assert updates[-1].table.status == "playing"  # it did not finish in time
        nursery.cancel_scope.cancel()


async def test_a_waiting_table_left_by_everyone_is_closed(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        lobby = await ScriptClient.memory(server, nursery, "Lou")
        await seat_players(ann, [], P.TableOptions(seats=3), bots=1)
        await ann.aclose()  # disconnected: the seat waits for her ...
        gone = trio.current_time()
        with trio.move_on_after(599):
            await lobby.expect("table_closed")
        assert not lobby.of_type("table_closed")
        closed = await lobby.expect("table_closed")  # ... abandon_after
        assert arrival(lobby, closed) - gone == pytest.approx(600.0, abs=1.0)
        nursery.cancel_scope.cancel()


async def test_hello_deadline(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        silent = await ScriptClient.memory(server, nursery, "Sam", hello=False)
        goodbye = await silent.wait_closed()
        assert goodbye is not None and goodbye.reason == "timeout"
        assert trio.current_time() == pytest.approx(5.0)
        nursery.cancel_scope.cancel()


async def test_heartbeat_drops_a_peer_that_does_not_answer_pings(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        alive = await ScriptClient.memory(server, nursery, "Al")
        dead = await ScriptClient.memory(server, nursery, "Di")
        dead.auto_pong = False
        connected = trio.current_time()
        nursery.start_soon(alive.wait_closed)  # reads, and so answers pings
        goodbye = await dead.wait_closed()
        assert goodbye is not None and goodbye.reason == "timeout"
        ping = dead.of_type("ping")[0]
        assert arrival(dead, ping) - connected == pytest.approx(15.0)  # ping_interval
        assert trio.current_time() - connected == pytest.approx(45.0)  # + pong_timeout
        # the client that answers is still there ten minutes later
        await trio.sleep(600)
        assert not alive.closed and len(alive.of_type("ping")) >= 39
        nursery.cancel_scope.cancel()
