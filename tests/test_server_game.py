"""Whole games through the server: scripted clients, built-in bots, --bots, variants,
the engine's authority over every decision, commits replaced before the reveal."""

from __future__ import annotations

import time

import pytest
import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import (
    Player,
    ScriptClient,
    fixed_dealer,
    make_config,
    play_all,
    seat_players,
    serve_memory,
    standard_hands,
)

STEPS = ("placed", "row_taken")


def check_game_record(clients: list[ScriptClient], results: list[P.GameOver],
                      point_limit: int = 66) -> None:
    """What every player saw adds up: one result, the totals of the rounds, the rules."""
    assert len({(r.totals, r.places, r.winners) for r in results}) == 1
    result = results[0]
    assert max(result.totals) >= point_limit
    assert result.winners == tuple(s for s, p in enumerate(result.places) if p == 1)
    for s, total in enumerate(result.totals):
        assert result.places[s] == 1 + sum(1 for t in result.totals if t < total)
    hands: dict[tuple[int, int], set[int]] = {}  # (seat, round) -> dealt hand
    for client in clients:
        scored = client.of_type("round_scored")
        assert scored and scored[-1].totals == result.totals
        for s in range(len(result.totals)):
            assert sum(r.penalties[s] for r in scored) == result.totals[s]
        rnd = 0
        for msg in client.log:
            if isinstance(msg, P.RoundStarted):
                rnd = msg.round
            elif isinstance(msg, P.HandDealt):
                assert len(msg.cards) == 10
                hands[(client.seat, rnd)] = set(msg.cards)
    # every revealed card was in its seat's hand that round, and was played once
    for client in clients:
        rnd = 0
        played: set[tuple[int, int, int]] = set()
        for msg in client.log:
            if isinstance(msg, P.RoundStarted):
                rnd = msg.round
            elif isinstance(msg, P.Revealed):
                assert len(msg.plays) == len(result.totals)
                for seat, card in msg.plays:
                    if (seat, rnd) in hands:
                        assert card in hands[(seat, rnd)]
                    assert (seat, rnd, card) not in played
                    played.add((seat, rnd, card))


def step_gaps(client: ScriptClient) -> list[float]:
    """Time between consecutive resolution steps of a turn, as ``client`` saw them."""
    gaps = []
    last = None
    previous = None
    for msg, at in zip(client.log, client.times):
        if msg.TYPE in ("revealed", "turn_started", "round_scored"):
            last = None
        is_step = msg.TYPE == "row_taken" or (msg.TYPE == "placed" and previous != "row_taken")
        if is_step:
            if last is not None:
                gaps.append(at - last)
            last = at
        previous = msg.TYPE
    return gaps


async def test_full_game_four_scripted_clients_over_tcp(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        clients = [await ScriptClient.tcp(port, name) for name in ("Ann", "Bob", "Cid", "Dee")]
        await seat_players(clients[0], clients[1:], P.TableOptions(seats=4))
        await clients[0].send(P.Start())
        started = trio.current_time()
        results = await play_all([Player(c, seed=i) for i, c in enumerate(clients)])
        check_game_record(clients, results)
        # the game is paced for people: 0.8 s between the steps of a resolution
        gaps = step_gaps(clients[1])
        assert gaps and min(gaps) >= 0.8 - 1e-6
        assert trio.current_time() - started >= 0.8 * len(gaps)
        # turn_started carries an absolute deadline and the seconds left
        first = clients[2].of_type("turn_started")[0]
        assert first.remaining == pytest.approx(30.0)
        assert first.deadline == pytest.approx(time.time() + 30.0, abs=60)
        # after game_over the players are seated at the finished table
        listing = await clients[0].request(P.ListTables())
        assert [t.status for t in listing.tables] == ["over"]
        await server.shutdown()
        nursery.cancel_scope.cancel()


async def test_full_game_with_bots_in_three_seats(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        human = await ScriptClient.tcp(port, "Ann")
        await seat_players(human, [], P.TableOptions(seats=4), bots=3)
        await human.send(P.Start())
        results = await play_all([Player(human, seed=3)])
        check_game_record([human], results)
        info = human.of_type("table_updated")[-1].table
        assert [(s.kind, s.strategy) for s in info.seats] == [
            ("human", None), ("bot", "heuristic"), ("bot", "heuristic"), ("bot", "heuristic")]
        # bots commit at once: their seat_committed precede the human's commit
        committed = [m.seat for m in human.log if m.TYPE == "seat_committed"][:4]
        assert sorted(committed[:3]) == [1, 2, 3]
        nursery.cancel_scope.cancel()


async def test_bots_option_table_waits_for_one_human_and_starts(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(bots=3))
        you = await ScriptClient.tcp(port, "You")
        listing = await you.request(P.ListTables())
        (table,) = listing.tables
        assert table.status == "waiting"
        assert table.seats[0] is None and all(s.kind == "bot" for s in table.seats[1:])
        seated = await you.request(P.Join(table_id=table.table_id))
        assert isinstance(seated, P.Seated) and seated.seat == 0
        await you.expect("round_started")  # no start needed
        results = await play_all([Player(you, seed=1)])
        check_game_record([you], results)
        # another table with 3 bots is waiting for the next person
        other = await ScriptClient.tcp(port, "Other")
        listing = await other.request(P.ListTables())
        statuses = {t.table_id: t.status for t in listing.tables}
        assert statuses[table.table_id] == "over"
        assert sorted(statuses.values()) == ["over", "waiting"]
        nursery.cancel_scope.cancel()


async def test_bot_clients_play_at_full_speed_people_at_the_step_delay(autojump_clock):
    async def game(kind: str) -> float:
        async with trio.open_nursery() as nursery:
            server = await serve_memory(nursery, make_config())
            clients = [await ScriptClient.memory(server, nursery, f"{kind}{i}", kind)
                       for i in range(3)]
            await seat_players(clients[0], clients[1:], P.TableOptions(seats=3, rounds=1))
            await clients[0].send(P.Start())
            start = trio.current_time()
            await play_all([Player(c, seed=i) for i, c in enumerate(clients)])
            nursery.cancel_scope.cancel()
            return trio.current_time() - start

    assert await game("bot") == 0.0  # 10 turns, no pause at all
    assert await game("human") >= 10 * 3 * 0.8


async def test_variants_draft_professional_tactic_deck(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        human = await ScriptClient.memory(server, nursery, "Ann")
        options = P.TableOptions(seats=3, draft=True, professional=True, tactic_deck=True,
                                 point_limit=None, rounds=2, step_delay=0.0)
        await seat_players(human, [], options, bots=2)
        await human.send(P.Start())
        (result,) = await play_all([Player(human, seed=5)])
        assert len(human.of_type("round_scored")) == 2
        opened = human.of_type("draft_opened")
        assert [o.pool for o in opened] == [tuple(range(1, 35))] * 2
        assert [o.first_picker for o in opened] == [0, 1]  # moves one seat each round
        # my picks are my hand
        picks = [m.card for m in human.log if m.TYPE == "draft_picked" and m.seat == 0]
        hands = human.of_type("hand_dealt")
        assert len(hands) == 2 and set(picks) == set(hands[0].cards) | set(hands[1].cards)
        assert len(human.of_type("draft_pick_request")) == 20
        needed = human.of_type("draft_pick_needed")
        assert len(needed) == 60 and all(m.remaining == pytest.approx(15.0) for m in needed)
        assert all(0 <= m.seat < 3 for m in human.of_type("draft_picked"))
        nursery.cancel_scope.cancel()


async def test_wrong_decisions_are_refused_and_change_nothing(autojump_clock):
    dealer = fixed_dealer(standard_hands(2, low_seat=0))
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(), dealer=dealer)
        ann = await ScriptClient.memory(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")
        table_id = await seat_players(ann, [bob], P.TableOptions(seats=2, step_delay=0))
        # only the host starts; not before every seat is taken
        assert (await bob.request(P.Start())).code == "not_host"
        await ann.send(P.Start())
        turn = await ann.expect("turn_started")
        await bob.expect("turn_started")

        async def refused(client, msg, code):
            reply = await client.request(msg, unchecked=True)
            assert isinstance(reply, P.Error) and reply.code == code, reply
            assert reply.request == msg.TYPE

        await refused(ann, P.Commit(round=1, turn=1, card=99), "illegal_card")
        await refused(ann, P.Commit(round=1, turn=2, card=1), "stale_turn")
        await refused(ann, P.ChooseRow(round=1, turn=1, row=0), "not_your_turn")
        await refused(ann, P.DraftPick(round=1, pick=1, card=1), "stale_turn")
        await refused(ann, P.AddBot(), "unexpected_message")  # not while playing
        await refused(bob, P.Join(table_id=table_id), "unexpected_message")
        # nothing happened: nobody has committed
        assert not ann.of_type("seat_committed") and not bob.of_type("seat_committed")
        # a good commit is accepted
        ok = await ann.request(P.Commit(round=1, turn=1, card=1))
        assert isinstance(ok, P.CommitAccepted) and ok.card == 1
        await bob.request(P.Commit(round=1, turn=1, card=20))
        await ann.expect("row_choice_request")
        await refused(bob, P.ChooseRow(round=1, turn=1, row=0), "not_your_turn")
        await refused(bob, P.Commit(round=1, turn=1, card=21), "stale_turn")
        await ann.send(P.ChooseRow(round=1, turn=1, row=2))
        taken = await bob.expect("row_taken")
        assert (taken.seat, taken.row, taken.cards) == (0, 2, (13,))
        await refused(ann, P.ChooseRow(round=1, turn=1, row=1), "stale_turn")
        assert turn.turn == 1
        nursery.cancel_scope.cancel()


async def test_a_commit_can_be_replaced_until_the_reveal(autojump_clock):
    dealer = fixed_dealer(standard_hands(2))
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(), dealer=dealer)
        ann = await ScriptClient.memory(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")
        await seat_players(ann, [bob], P.TableOptions(seats=2, step_delay=0))
        await ann.send(P.Start())
        hand = (await ann.expect("hand_dealt")).cards
        for card in hand[:3]:
            reply = await ann.request(P.Commit(round=1, turn=1, card=card))
            assert isinstance(reply, P.CommitAccepted) and reply.card == card
        await bob.expect("turn_started")
        bob_hand = (await bob.expect("hand_dealt") if False else None)
        await bob.send(P.Commit(round=1, turn=1, card=bob.of_type("hand_dealt")[0].cards[0]))
        revealed = await bob.expect("revealed")
        assert (0, hand[2]) in revealed.plays  # the last commit counts
        # Bob heard once that Ann committed, never which card
        assert [m.seat for m in bob.log if m.TYPE == "seat_committed"] == [0, 1]
        assert bob_hand is None
        nursery.cancel_scope.cancel()


async def test_leaving_during_a_game_hands_the_seat_to_the_autopilot(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")
        await seat_players(ann, [bob], P.TableOptions(seats=2, rounds=1, step_delay=0))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        left = await ann.request(P.Leave())
        assert isinstance(left, P.Left) and left.reason == "left"
        # Bob's game goes on: Ann's seat commits at once; Bob becomes host
        (result,) = await play_all([Player(bob)])
        assert len(result.totals) == 2
        update = next(m for m in bob.log if m.TYPE == "table_updated" and m.table.host == 1)
        assert update.table.seats[0].name == "Ann"
        assert trio.current_time() < 30  # nobody waited for Ann's deadlines
        # after the game Ann's seat is free again
        info = (await bob.request(P.ListTables())).tables[0]
        assert info.seats[0] is None and info.status == "over"
        nursery.cancel_scope.cancel()


async def test_chat_goes_to_the_table_and_is_capped(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(chat_max=20))
        ann = await ScriptClient.memory(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")
        lobby = await ScriptClient.memory(server, nursery, "Lou")
        await seat_players(ann, [bob], P.TableOptions(seats=2))
        await ann.send(P.Chat(text="good luck"))
        said = await bob.expect("chat_message")
        assert (said.name, said.seat, said.text) == ("Ann", 0, "good luck")
        assert (await ann.expect("chat_message")).text == "good luck"
        refused = await ann.request(P.Chat(text="x" * 21))
        assert refused.code == "out_of_range" and refused.field == "text"
        await lobby.send(P.Chat(text="anyone?"))
        assert (await lobby.expect("chat_message")).seat is None
        assert not bob.of_type("chat_message")[1:]  # the lobby chat stays in the lobby
        nursery.cancel_scope.cancel()
