"""Searching bots think in worker processes: the server's event loop, other tables and
the bots' own table go on meanwhile; a worker that dies or overruns does not wedge a
table; the workers end with the server. Real server on 127.0.0.1, real clock."""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable

import pytest
import trio

from nimmt import protocol as P
from nimmt.bots import LEVELS, HeuristicStrategy, RandomStrategy, SearchStrategy, make_strategy
from nimmt.engine import AwaitingCommits, Game, Options
from nimmt.server.app import start_server
from nimmt.server.thinking.worker import load_strategy, save_strategy
from nimmt.server.thinking.pool import MAX_STATE_BYTES, PoolStopped, ThinkFailed, ThinkPool, Thought
from server_helpers import Player, ScriptClient, make_config, play_until_over, seat_players


def _alive(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}")


async def _join_bot_table(port: int, name: str = "Ann") -> ScriptClient:
    ann = await ScriptClient.tcp(port, name)
    listing = await ann.request(P.ListTables())
    (table,) = [t for t in listing.tables if t.status == "waiting" and None in t.seats]
    seated = await ann.request(P.Join(table_id=table.table_id))
    assert isinstance(seated, P.Seated), seated
    return ann


async def test_search_bots_think_while_another_table_plays_on_time() -> None:
    """Three bots each thinking 600 ms a card at one table; at another table two people's
    turn of 0.3 s runs out on time (the autopilot commits for them) and their requests
    are answered at once, while the bots think."""
    config = make_config(bots=3, bot_level="search:ms=600", bot_workers=2, step_delay=0.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        ann = await _join_bot_table(port)
        await ann.expect("turn_started")  # the bots start thinking now
        bob = await ScriptClient.tcp(port, "Bob")
        carl = await ScriptClient.tcp(port, "Carl")
        await seat_players(bob, [carl], P.TableOptions(seats=2, step_delay=0, turn_time=0.3))
        await bob.send(P.Start())
        await bob.expect("turn_started")
        started = trio.current_time()
        slowest = 0.0
        while not bob.of_type("revealed"):
            t0 = trio.current_time()
            reply = await bob.request(P.ListTables())
            assert isinstance(reply, P.TableList)
            slowest = max(slowest, trio.current_time() - t0)
            await trio.sleep(0.02)
        revealed_after = trio.current_time() - started
        # (bounds well under one bot's 600 ms, with room for a busy machine)
        assert revealed_after < 0.3 + 0.3, revealed_after  # Bob's table kept its clock
        assert slowest < 0.2, slowest  # and answered its people at once
        assert server.thinker.busy > 0  # while the bots were still thinking
        thinking = [p.pid for p in server.thinker.processes]
        assert thinking, "the search ran in worker processes"
        # the bots' own table goes on: they commit, Ann commits, the card is revealed
        for _ in range(3):
            await ann.expect("seat_committed")
        hand = ann.of_type("hand_dealt")[-1].cards
        reply = await ann.request(P.Commit(round=1, turn=1, card=min(hand)))
        assert isinstance(reply, P.CommitAccepted), reply
        await ann.expect("revealed")
        await server.shutdown()
        nursery.cancel_scope.cancel()
    # the pool ended with the server: no worker left
    assert server.thinker.processes == []
    assert not [pid for pid in thinking if _alive(pid)]


async def test_a_worker_killed_mid_thought_does_not_wedge_the_table() -> None:
    config = make_config(bots=1, bot_level="search:ms=3000", bot_workers=1, step_delay=0.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        ann = await _join_bot_table(port)
        await ann.expect("turn_started")
        with trio.fail_after(30):
            while not server.thinker.thinking:  # started, and it has the view
                await trio.sleep(0.01)
        (worker,) = server.thinker.processes
        assert server.thinker.thinking == [worker.pid]
        os.kill(worker.pid, signal.SIGKILL)
        t0 = trio.current_time()
        committed = await ann.expect("seat_committed")  # the heuristic decided instead
        assert committed.seat == 1 and trio.current_time() - t0 < 1.0
        hand = ann.of_type("hand_dealt")[-1].cards
        reply = await ann.request(P.Commit(round=1, turn=1, card=min(hand)))
        assert isinstance(reply, P.CommitAccepted), reply
        await ann.expect("revealed")
        await server.shutdown()
        nursery.cancel_scope.cancel()
    assert server.thinker.processes == [] and not _alive(worker.pid)


async def test_a_bot_slower_than_the_turn_is_overruled_on_time() -> None:
    """A bot may take as long as a person: past the turn time the heuristic decides
    for it, and its worker is replaced."""
    config = make_config(bots=1, bot_level="search:ms=5000", bot_workers=1, step_delay=0.0,
                         turn_time=1.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        ann = await _join_bot_table(port)
        await ann.expect("turn_started")
        t0 = trio.current_time()
        hand = ann.of_type("hand_dealt")[-1].cards
        reply = await ann.request(P.Commit(round=1, turn=1, card=min(hand)))
        assert isinstance(reply, P.CommitAccepted), reply
        await ann.expect("revealed")
        assert 0.9 < trio.current_time() - t0 < 2.0
        await server.shutdown()
        nursery.cancel_scope.cancel()
    assert server.thinker.processes == []


async def test_levels_are_added_by_name_and_unknown_ones_refused() -> None:
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        ann = await ScriptClient.tcp(port, "Ann")
        await seat_players(ann, [], P.TableOptions(seats=5))
        for level in ("easy", "normal", "hard"):
            reply = await ann.request(P.AddBot(strategy=level))
            assert isinstance(reply, P.TableUpdated), reply
        reply = await ann.request(P.AddBot(strategy="godlike"))
        assert isinstance(reply, P.Error) and reply.code == "unknown_strategy"
        assert "easy, normal, hard" in reply.message and reply.field == "strategy"
        reply = await ann.request(P.AddBot())  # no strategy: the default level
        assert isinstance(reply, P.TableUpdated)
        assert [s.strategy for s in reply.table.seats] == [None, "easy", "normal", "hard",
                                                           "hard"]
        await server.shutdown()
        nursery.cancel_scope.cancel()
    assert server.thinker.processes == []  # nobody searched: no worker was started


async def test_a_tables_fallback_is_a_level_or_a_strategy_name() -> None:
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        ann = await ScriptClient.tcp(port, "Ann")
        reply = await ann.request(P.CreateTable(options=P.TableOptions(fallback="godlike")))
        assert isinstance(reply, P.Error) and reply.code == "unknown_strategy", reply
        assert reply.field == "options"
        assert reply.message.startswith("fallback: no strategy 'godlike': choose a level "
                                         "(easy, normal, hard) or a strategy"), reply.message
        for fallback in ("hard", "search"):
            reply = await ann.request(P.CreateTable(options=P.TableOptions(fallback=fallback)))
            assert isinstance(reply, P.Seated) and reply.table.options.fallback == fallback
            await ann.request(P.Leave())
        await server.shutdown()
        nursery.cancel_scope.cancel()


async def test_the_pool_decides_like_the_strategy_and_reports_failures() -> None:
    game = Game(Options(players=4), seed=5)
    view = game.view(0)
    pool = ThinkPool(1)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        got = await pool.decide("easy", 1, view, timeout=10.0)
        assert got == make_strategy(LEVELS["easy"], 1).decide(view)
        got = await pool.decide("search:samples=20,ms=20000", 7, view, timeout=10.0)
        assert got == make_strategy("search:samples=20,ms=20000", 7).decide(view)  # seeded: same
        with pytest.raises(ThinkFailed, match="took longer"):  # a late decision fails
            await pool.decide("search:ms=3000", 1, view, timeout=0.3)
        # the worker was replaced: the pool still decides
        assert await pool.decide("random", 2, view, timeout=10.0) in game.legal_decisions(0)
        nursery.cancel_scope.cancel()
    assert pool.processes == []
    # stopped (the server is shutting down): a failure of its own kind, logged as info
    with pytest.raises(PoolStopped, match="not running"):
        await pool.decide("random", 2, view, timeout=10.0)


async def test_a_worker_still_starting_is_not_killed_by_a_short_deadline() -> None:
    """A new worker takes a few tenths of a second to start. A job with a shorter
    deadline fails ("no worker was free"), and the worker is kept: once it is
    ready it answers short deadlines itself, instead of a new cold worker being
    started (and killed) for every job."""
    game = Game(Options(players=4), seed=5)
    view = game.view(0)
    pool = ThinkPool(1)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        with pytest.raises(ThinkFailed, match="no worker was free"):  # none starts in 10 ms
            await pool.decide("random", 1, view, timeout=0.01)
        (first,) = pool.processes
        answered = await pool.think("random", 1, view, timeout=30.0)  # waits for it to start
        assert answered.worker == first.pid
        for seed in range(5):  # warm now: short deadlines are met by the same worker
            thought = await pool.think("random", seed, view, timeout=0.5)
            assert thought.worker == first.pid
        nursery.cancel_scope.cancel()
    assert pool.processes == []


def test_bot_level_on_the_command_line() -> None:
    from nimmt.server.cli import config_from_args, parse_args
    from nimmt.server.config import ConfigError

    config = config_from_args(parse_args(["--bots", "2", "--bot-level", "easy",
                                          "--bot-workers", "1"]))
    assert (config.bot_level, config.bot_workers) == ("easy", 1)
    assert config_from_args(parse_args([])).bot_level == "hard"  # the default
    assert config_from_args(parse_args(["--bot-level", "search:ms=50"])).bot_level \
        == "search:ms=50"
    try:
        config_from_args(parse_args(["--bot-level", "godlike"]))
    except ConfigError as e:
        assert "bot_level" in str(e) and "easy, normal, hard" in str(e)
    else:
        raise AssertionError("an unknown level must be refused")


# ---------------------------------------------------------------- a bot's state
#: stops on the sample count, never on the clock: reproducible from its seed
SEARCH = "search:samples=12,ms=20000"
PRIOR = SearchStrategy().opponents.careless  # what the opponent model thinks before any card


async def _one_bot_over_a_round(pool: ThinkPool,
                                before: Callable[[int], None] = lambda n: None) -> list[Thought]:
    """Seat 0 of a 4-player round decides by the pool, each time with the state of
    its decision before; the others by the heuristic. Each of its decisions and
    what it has learnt are checked against one strategy kept in this process:
    the same, whichever worker decided. ``before(n)`` runs before its n-th."""
    game = Game(Options(players=4), seed=11)
    mine = make_strategy(SEARCH, 3)
    others = HeuristicStrategy()
    state: bytes | None = None
    thoughts: list[Thought] = []
    while game.round == 1:
        pending = game.pending
        seats = sorted(pending.waiting) if isinstance(pending, AwaitingCommits) else [
            pending.seat]
        for seat in seats:
            view = game.view(seat)
            if seat != 0:
                game.apply(others.decide(view))
                continue
            before(len(thoughts))
            thought = await pool.think(SEARCH, 3, view, timeout=30.0, state=state)
            assert thought.note is None, thought.note
            assert thought.decision == mine.decide(view), len(thoughts)
            assert thought.state is not None
            state = thought.state
            assert pickle.loads(state).opponents.careless == mine.opponents.careless
            thoughts.append(thought)
            game.apply(thought.decision)
    # it learnt over the round, not afresh each time: every opponent card of
    # turns 1-9 was weighed (a fresh model would have seen one turn's three), and
    # the heuristic's sensible cards moved it away from its prior
    assert mine.opponents.cards_seen == 3 * 9
    assert mine.opponents.careless < PRIOR
    return thoughts


async def test_a_bots_state_is_one_whichever_worker_decides() -> None:
    pool = ThinkPool(2)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        await pool.warm_up()  # else one worker may decide them all while the other starts
        thoughts = await _one_bot_over_a_round(pool)
        assert len(thoughts) >= 10
        assert len({t.worker for t in thoughts}) == 2  # both workers decided for it
        nursery.cancel_scope.cancel()
    assert pool.processes == []


async def test_a_worker_killed_between_decisions_loses_nothing() -> None:
    pool = ThinkPool(2)
    killed: list[int] = []

    def kill_every_worker(n: int) -> None:
        if n in (3, 6):
            for process in pool.processes:
                process.kill()
                process.wait()
                killed.append(process.pid)

    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        thoughts = await _one_bot_over_a_round(pool, kill_every_worker)
        nursery.cancel_scope.cancel()
    assert len(killed) == 4
    assert not {t.worker for t in thoughts[3:]} & set(killed[:2])  # new workers went on
    assert pool.processes == []


async def test_a_state_that_cannot_be_used_starts_the_bot_afresh() -> None:
    game = Game(Options(players=4), seed=5)
    view = game.view(0)
    pool = ThinkPool(1)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        for state, why in [(b"not a pickle", "could not be loaded"),
                           (pickle.dumps(RandomStrategy(1)), "holds a RandomStrategy")]:
            thought = await pool.think(SEARCH, 7, view, timeout=10.0, state=state)
            assert why in (thought.note or "") and "starts afresh" in (thought.note or "")
            assert thought.decision == make_strategy(SEARCH, 7).decide(view)
            assert isinstance(pickle.loads(thought.state or b""), SearchStrategy)
        nursery.cancel_scope.cancel()


def test_a_state_larger_than_the_bound_is_not_kept() -> None:
    strategy = RandomStrategy(1)
    strategy.ballast = b"x" * MAX_STATE_BYTES  # type: ignore[attr-defined]
    state, note = save_strategy(strategy)
    assert state is None and note is not None and "starts afresh" in note
    assert str(MAX_STATE_BYTES) in note
    fresh, note = load_strategy("random", 1, b"x" * (MAX_STATE_BYTES + 1))
    assert isinstance(fresh, RandomStrategy) and "more than" in (note or "")
    state, note = save_strategy(make_strategy("hard", 1))
    assert note is None and state is not None and len(state) < 10_000


async def test_a_timed_fallback_thinks_in_the_pool_and_learns_over_the_turns() -> None:
    """Two players who never commit: the table's fallback, a search, decides for both
    in the worker processes, each seat's with what it learnt at the turns before;
    what it learnt is forgotten when the table closes."""
    config = make_config(bot_workers=2, step_delay=0.0, fallback="search:samples=8,ms=20000")
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        table_id = await seat_players(ann, [bob], P.TableOptions(
            seats=2, step_delay=0, turn_time=0.5, choice_time=0.5))
        table = server.lobby.tables[table_id]
        assert table.info().options.fallback == "search"  # names only on the wire
        # both workers started first: a fresh one takes longer than these short turns
        view = Game(Options(players=2), seed=1).view(0)
        async with trio.open_nursery() as warm:
            for seed in (1, 2):
                warm.start_soon(server.thinker.decide, "random", seed, view, 30.0)
        await ann.send(P.Start())
        for _ in range(3):  # Ann and Bob say nothing; the autopilot commits for them
            await ann.expect("commit_accepted")
            await ann.expect("revealed")
        assert server.thinker.processes, "the fallback searched in the worker processes"
        for seat in (0, 1):
            learnt = pickle.loads(table.bot_state(seat) or b"")
            assert isinstance(learnt, SearchStrategy)
            assert learnt.opponents.careless != PRIOR  # it learnt from the other's cards
        await server.shutdown()
        nursery.cancel_scope.cancel()
    assert table.closed and table.bot_state(0) is None and table.bot_state(1) is None
    assert server.thinker.processes == []


async def test_a_bots_state_is_forgotten_when_it_leaves_its_seat() -> None:
    config = make_config(bot_workers=1, step_delay=0.0)
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, config)
        ann = await ScriptClient.tcp(port, "Ann")
        table_id = await seat_players(ann, [], P.TableOptions(seats=2, step_delay=0,
                                                              rounds=1, point_limit=None))
        table = server.lobby.tables[table_id]
        reply = await ann.request(P.AddBot(strategy="normal"))
        assert isinstance(reply, P.TableUpdated), reply
        await ann.send(P.Start())
        await play_until_over(Player(ann))
        assert isinstance(pickle.loads(table.bot_state(1) or b""), SearchStrategy)
        reply = await ann.request(P.RemoveBot(seat=1))
        assert isinstance(reply, P.TableUpdated), reply
        assert table.bot_state(1) is None
        await server.shutdown()
        nursery.cancel_scope.cancel()


async def test_a_late_fallback_answer_after_the_player_committed_is_ignored() -> None:
    """Ann's time runs out, so the table's searching fallback is asked to decide for
    her; she commits herself before it answers; her card fits no row, so she must
    choose one, shown after a paced step. The fallback's commit, answered meanwhile,
    used to reach the game as Ann's decision and close the table with an internal
    error. Now it is dropped: Ann chooses her row and Bob plays on undisturbed."""
    from server_helpers import fixed_dealer, standard_hands

    config = make_config(bot_workers=1, fallback="search:ms=600")
    with trio.fail_after(30):  # the old server left Ann waiting for ever
        async with trio.open_nursery() as nursery:
            server, port = await start_server(nursery, config,
                                              dealer=fixed_dealer(standard_hands(2, low_seat=0)))
            # the worker started first: a fresh one takes longer than a short turn
            await server.thinker.decide("random", 1, Game(Options(players=2), seed=1).view(0), 30.0)
            ann = await ScriptClient.tcp(port, "Ann")
            bob = await ScriptClient.tcp(port, "Bob")
            table_id = await seat_players(ann, [bob], P.TableOptions(
                seats=2, step_delay=2.0, turn_time=1.0, choice_time=30.0))
            await ann.send(P.Start())
            await bob.expect("turn_started")
            await bob.send(P.Commit(round=1, turn=1, card=15))
            await ann.expect("turn_started")
            await trio.sleep(1.2)  # past Ann's deadline: the fallback is thinking (about 0.5 s)
            await ann.send(P.Commit(round=1, turn=1, card=1))
            request = await ann.expect("row_choice_request")
            assert isinstance(request, P.RowChoiceRequest)
            await trio.sleep(1.0)  # the fallback's late answer has come and gone
            table = server.lobby.tables[table_id]
            assert not table.closed
            await ann.send(P.ChooseRow(round=1, turn=1, row=request.rows[0]))
            for client in (ann, bob):  # the turn is played out, with Ann's own card
                turn2 = await client.expect("turn_started")
                assert isinstance(turn2, P.TurnStarted) and turn2.turn == 2
                (revealed,) = client.of_type("revealed")
                assert isinstance(revealed, P.Revealed) and (0, 1) in revealed.plays
                assert not client.of_type("goodbye") and not client.closed
            await server.shutdown()
            nursery.cancel_scope.cancel()
