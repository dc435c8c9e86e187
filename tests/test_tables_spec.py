"""The table actor (server/tables) statement by statement, as docs/SERVER.md ("Table
actors", "The ordering rule", "The path of one commit", "Storage": a restart) and the
docstrings of server/tables/*.py say it, each checked by hand on the real ``Lobby`` and
``Table`` with links in memory (issue 43). What tests/test_table_actor*.py,
test_table_effects_units.py, test_tables_fresh_units.py, test_table_held.py and
test_restore*.py pin already is not repeated here."""

from __future__ import annotations

from dataclasses import asdict, replace
from types import SimpleNamespace
from typing import Any

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.engine import Options
from nimmt.server.sessions.session import Session
from nimmt.server.storage import Fact, StoredSeat
from nimmt.server.tables.restore import restore_match
from nimmt.server.tables.table import Table

from storage_helpers import play_game
from test_table_actor import TWO, Link, catch_up, connect, run_sync, still_lobby
from test_table_actor_units import FailingStore, errors, two_seated, until


def said(link: Link, since: int) -> list[tuple[str, Any]]:
    """What ``link`` was sent since its ``since``-th message: chats by their text, table
    updates by who is connected."""
    out: list[tuple[str, Any]] = []
    for m in link.got[since:]:
        if m.TYPE == "chat_message":
            out.append((m.TYPE, m.text))
        elif m.TYPE == "table_updated":
            out.append((m.TYPE, tuple(s.connected for s in m.table.seats)))
        else:
            out.append((m.TYPE, None))
    return out


def step_all(table: Table) -> None:
    """The table's task takes every input waiting, one turn each, then delivers what it
    held (as it does once no input waits)."""
    while table._inputs:
        run_sync(table.step(table.next_input()))
    run_sync(table.deliver_held())


# ------------------------------------------------------------ the ordering rule
async def test_a_drop_and_a_return_are_handled_behind_the_requests_already_queued() -> None:
    """docs/SERVER.md: "A drop or a return is queued behind the requests already taken,
    never ahead of them": Bob hears Ann's chat, then that she is away; her next chat,
    then that she is back."""
    lobby, ann, bob, table = two_seated()
    since = len(bob.got)
    table.request(ann.session, P.Chat(text="brb", id=3))
    ann.session.lost_at = 5.0
    table.disconnected(ann.session)
    catch_up(table)
    assert said(bob, since) == [("chat_message", "brb"), ("table_updated", (False, True))]
    since = len(bob.got)
    table.request(ann.session, P.Chat(text="back", id=4))
    table.resumed(ann.session)
    catch_up(table)
    assert said(bob, since) == [("chat_message", "back"), ("table_updated", (True, True))]


async def test_a_drop_is_never_refused_with_the_connection_s_or_the_table_s_queue_full() -> None:
    """docs/SERVER.md: requests are capped (16 of one connection, 4096 in all), "a
    member's connection dropping or coming back (never refused: a connection makes at
    most two)" is not: it goes in behind them and is handled."""
    from nimmt.server.tables.table import INBOX_SIZE, QUEUE_PER_CONNECTION

    lobby, ann, bob, table = two_seated()
    for n in range(QUEUE_PER_CONNECTION):
        assert table.request(ann.session, P.Pause(id=n))
    others = INBOX_SIZE - QUEUE_PER_CONNECTION
    for n in range(others // QUEUE_PER_CONNECTION):
        s = Session(100 + n, f"tok_{n:020d}", f"P{n}", "human")
        s.client = Link(1000 + n)  # type: ignore[assignment]
        for i in range(QUEUE_PER_CONNECTION):
            assert table.request(s, P.Pause(id=i))
    assert not table.request(bob.session, P.Pause(id=99))  # the table's queue is full
    ann.session.lost_at = 3.0
    table.disconnected(ann.session)
    assert len(table._inputs) == INBOX_SIZE + 1
    since = len(bob.got)
    catch_up(table)
    assert said(bob, since)[-1] == ("table_updated", (False, True))
    assert table.seats[0].away_since == 3.0
    table.resumed(ann.session)
    catch_up(table)
    assert table.seats[0].away_since is None


async def test_requests_of_several_members_are_answered_in_the_order_they_came() -> None:
    lobby, ann, bob, table = two_seated()
    since = len(bob.got)
    for n, (who, text) in enumerate([(ann, "1"), (bob, "2"), (bob, "3"), (ann, "4")]):
        table.request(who.session, P.Chat(text=text, id=n + 1))
    catch_up(table)
    assert said(bob, since) == [("chat_message", t) for t in "1234"]


# ------------------------------------------------------------ held output
async def test_the_refusal_of_someone_at_no_table_held_for_the_disk_still_reaches_him() -> None:
    """table.py: a request's answer is held while more inputs wait; one who is at no
    table is dropped from the table's sessions after it, but what he must still hear
    goes to him first ("deliver_held"), and before the next input's answer."""
    lobby, ann, bob, table = two_seated()
    table.store = FailingStore(None)
    cy = connect(lobby, 3, "Cy")
    table.request(cy.session, P.Pause(id=6))
    table.request(ann.session, P.Chat(text="after", id=7))
    run_sync(table.step(table.next_input()))  # Cy's pause: refused, held, delivered
    assert errors(cy) == [("not_allowed", "pause", 6,
                          "no game is being played: there is no clock to pause")]
    assert cy.session.sid not in table._sessions and table._inputs  # Ann's chat waits
    step_all(table)
    assert [m.TYPE for m in cy.got] == ["welcome", "error"]
    assert said(bob, len(bob.got) - 1) == [("chat_message", "after")]


async def test_what_is_held_goes_out_before_anyone_is_seated_or_watches() -> None:
    """docs/SERVER.md: "Anything else (someone sits down, leaves or is refused, ...)
    first delivers what is held, then is written and awaited by itself"."""
    lobby, ann, bob, table = two_seated()
    table.store = FailingStore(None)
    cy = connect(lobby, 3, "Cy")
    since = len(bob.got)
    table.request(ann.session, P.Chat(text="first", id=5))
    lobby.request(cy, P.Watch(table_id=table.id, id=1))  # type: ignore[arg-type]
    run_sync(table.step(table.next_input()))  # the chat: held, Cy's watch waits
    assert said(bob, since) == [] and len(table._held) == 1
    run_sync(table.step(table.next_input()))
    assert said(bob, since) == [("chat_message", "first"), ("table_updated", (True, True))]
    assert bob.got[-1].table.spectators == 1 and len(table._held) == 0
    assert [m.TYPE for m in cy.got][-2:] == ["watching", "table_updated"]
    assert table.store.calls == ["watch"]  # (a chat is no fact)


# ------------------------------------------------------------ bots' answers
class GatePool:
    """A think pool whose worker answers only when the test says (``answer``)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int, Any, float]] = []
        self._gate = trio.Event()
        self._decision: Any = None
        self.state: bytes | None = None  # what the worker says the bot learnt

    async def think(self, spec, seed, view, timeout, state=None, *, owner=None, group=None):
        self.asked.append((spec, seed, view, timeout))
        await self._gate.wait()
        decision = self._decision(view) if callable(self._decision) else self._decision
        return SimpleNamespace(decision=decision, state=self.state, note=None, worker=1)

    def answer(self, decision: Any) -> None:
        self._decision = decision
        self._gate.set()


async def test_a_searching_bot_thinks_away_while_its_table_answers_its_people(
        autojump_clock: trio.testing.MockClock) -> None:
    """docs/SERVER.md: a searching bot's turn goes to the think pool, awaited in a task
    of the table's own; "meanwhile this table's clock, its people's requests and every
    other table go on"; the answer comes back through the table's inputs."""
    from nimmt.bots import HeuristicStrategy

    lobby = still_lobby()
    pool = lobby.thinker = GatePool()
    ann = connect(lobby, 1, "Ann")
    lobby.request(ann, P.CreateTable(options=TWO, id=1))  # type: ignore[arg-type]
    (table,) = lobby.tables.values()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            table.request(ann.session, P.AddBot(strategy="search", seat=1, id=2))
            table.request(ann.session, P.Start(id=3))
            await until(ann, lambda m: m.TYPE == "turn_started")
            await trio.testing.wait_all_tasks_blocked()
            assert [(spec, timeout) for spec, _, _, timeout in pool.asked] == [("search", 60.0)]
            asked_at = trio.current_time()
            table.request(ann.session, P.Chat(text="meanwhile", id=4))
            await until(ann, lambda m: m.TYPE == "chat_message")
            assert trio.current_time() == asked_at  # not after the bot's answer
            assert [m.seat for m in ann.of("seat_committed")] == []
            await trio.sleep(2.5)
            pool.answer(HeuristicStrategy().decide(pool.asked[0][2]))
            committed = await until(ann, lambda m: m.TYPE == "seat_committed")
            assert committed.seat == 1 and trio.current_time() == asked_at + 2.5
            nursery.cancel_scope.cancel()


# ------------------------------------------------------------ stopping
async def test_a_table_whose_task_stops_logs_why_server_shutdown_or_stopped(
        autojump_clock: trio.testing.MockClock, caplog) -> None:
    caplog.set_level("INFO", logger="nimmt.server")
    for shutting_down, why in ((True, "server shutdown"), (False, "stopped")):
        lobby, ann, bob, table = two_seated()
        lobby.shutting_down = shutting_down
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            await trio.sleep(1.0)
            nursery.cancel_scope.cancel()
        assert table.closed
        assert [r.getMessage() for r in caplog.records
                if r.getMessage().startswith(f"table={table.id} closed")] == [
            f"table={table.id} closed: {why}"]


# ------------------------------------------------------------ a restart
SUE = "tok_sue_456789abcdefghij"


def restored_table(facts: list[Fact], **kwargs: Any) -> tuple[Table, dict[int, Session]]:
    """Ann, two bots and Sue watching, brought back as the lobby does it (a session per
    seat and spectator, away since the restart at 0), on a database that takes every
    write (``FailingStore``)."""
    from test_restore import stored as stored_t4

    match, people = restore_match(stored_t4(facts, (("Sue", SUE),)), now=0.0, members=[7, 8])
    lobby = still_lobby()
    sessions: dict[int, Session] = {}
    for p in people:
        session = Session(p.member, "", p.name, p.kind)
        session.seat, session.lost_at, session.restored_hash = p.seat, 0.0, p.token_hash
        sessions[p.member] = session
    table = Table(lobby, "t4", "Friday", match.settings, match=match, sessions=sessions,
                  **kwargs)
    for session in sessions.values():
        session.table = table
    table.store = FailingStore(None)
    return table, sessions


async def test_a_restored_spectator_who_leaves_is_deleted_from_the_database() -> None:
    """docs/SERVER.md, Storage: a spectator who leaves is deleted, so that the next
    restart does not bring him back; one restored from the database too."""
    _, facts = play_game(Options(players=3, rounds=2), seed=5)
    table, sessions = restored_table(facts[:2])
    sue = sessions[8]
    assert (sue.name, sue.seat) == ("Sue", None)
    sue.client = Link(40)  # type: ignore[assignment]
    table.resumed(sue)
    table.request(sue, P.Leave(id=1))
    step_all(table)
    assert [m.TYPE for m in sue.client.got][-1] == "left"
    assert table.store.calls.count("unwatch") == 1  # (and the bots' decisions appended)
    assert sue.table is None and table.info().spectators == 0


async def test_a_restored_spectator_not_back_within_the_grace_given_is_removed_then(
        autojump_clock: trio.testing.MockClock) -> None:
    """A spectator who does not come back within ``reconnect_grace`` (the table's
    ``spectator_grace``) is removed from the table, and from the database, then."""
    _, facts = play_game(Options(players=3, rounds=2), seed=5)
    table, sessions = restored_table(facts[:2], spectator_grace=45.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        await trio.sleep(44.9)
        assert table.info().spectators == 1 and "unwatch" not in table.store.calls
        await trio.sleep(0.2)
        assert table.info().spectators == 0 and table.store.calls.count("unwatch") == 1
        assert sessions[8].table is None
        nursery.cancel_scope.cancel()


def test_a_built_in_bot_stored_without_a_strategy_sits_down_again_as_heuristic() -> None:
    from test_table_effects_units import player, stored

    table = stored((player(0, "Ann"), StoredSeat(1, "Old bot", "builtin", None, None),
                    StoredSeat(2, "Rand", "builtin", None, "random")))
    match, people = restore_match(table, now=3.0, members=[7])
    assert [(s.name, s.strategy, s.member) for s in match.seats] == [
        ("Ann", None, 7), ("Old bot", "heuristic", None), ("Rand", "random", None)]
    assert [(p.member, p.seat) for p in people] == [(7, 0)]


def test_a_restored_game_keeps_the_time_it_started_at() -> None:
    """The game's start (its record's, the history's) is the ``game_started`` fact's
    time, not the restart's nor the table's creation."""
    from test_table_effects_units import player, stored

    _, facts = play_game(Options(players=3, rounds=1), seed=6)
    facts = [replace(f, at=2000.0 + n) for n, f in enumerate(facts)]
    kept = stored((player(0, "Ann"), player(1, "Bob"), player(2, "Cy")), tuple(facts))
    assert kept.created == 100.0
    match, _ = restore_match(kept, now=0.0, members=[1, 2, 3])
    assert match.status == "playing"
    done = match.wake(0.0, 9000.0).finished  # the game was over, not kept: kept now
    assert done is not None and (done.started, done.ended) == (2000.0, 9000.0)


def bots_table_in_play(**settings: Any):
    """Ann and two built-in bots, their game dealt, stored as a ``--bots`` table
    (``persistent``) or with the other settings given."""
    from test_table_effects_units import SETTINGS, player, stored

    _, facts = play_game(Options(players=3, rounds=1), seed=6)
    kept = {"table": asdict(SETTINGS), "persistent": False, "autostart": False} | settings
    return stored((player(0, "Ann"), StoredSeat(1, "Bot 1", "builtin", None, "heuristic"),
                   StoredSeat(2, "Bot 2", "builtin", None, "random")), tuple(facts[:2]),
                  settings=kept)


def test_a_restored_bots_table_in_play_still_closes_once_its_player_leaves() -> None:
    """docs/SERVER.md: a ``--bots`` table "whose game had started is [brought back],
    and still closes once its player leaves"; another table plays on for her."""
    from nimmt.server.game.io import Reconnected, Request, Who

    for persistent, closed in ((True, "its player left: the bots do not play on for nobody"),
                               (False, None)):
        match, people = restore_match(bots_table_in_play(persistent=persistent), now=0.0,
                                      members=[7])
        assert match.status == "playing" and match.persistent is persistent
        match.handle(Reconnected(7), 1.0, 1001.0)
        effects = match.handle(Request(Who(7, "Ann", "human"), P.Leave(id=4)), 2.0, 1002.0)
        assert effects.closed == closed and match.closed is (closed is not None)


def test_a_restored_autostart_table_waiting_with_every_seat_taken_starts_its_game() -> None:
    """A table that starts as soon as every seat is taken (``autostart``: the ladder's),
    brought back waiting with its seats full, starts its game at its first wake."""
    from test_table_effects_units import SETTINGS, player, stored
    for autostart, status in ((True, "playing"), (False, "waiting")):
        kept = stored((player(0, "Ann"), player(1, "Bob"), player(2, "Cy")),
                      settings={"table": asdict(SETTINGS), "persistent": False,
                                "autostart": autostart})
        match, _ = restore_match(kept, now=0.0, members=[7, 8, 9])
        assert match.status == "waiting" and match.autostart is autostart
        effects = match.wake(0.0, 1000.0)
        assert (match.status, effects.started) == (status, autostart)


# ------------------------------------------------------------ bots at the table
async def test_a_cheap_bot_is_answered_in_the_table_s_task_never_by_a_worker(
        autojump_clock: trio.testing.MockClock) -> None:
    """docs/SERVER.md: the actor answers a bot's turn "at once for the cheap
    strategies", and hands only the searching ones to the think pool."""
    lobby = still_lobby()
    pool = lobby.thinker = GatePool()
    ann = connect(lobby, 1, "Ann")
    lobby.request(ann, P.CreateTable(options=TWO, id=1))  # type: ignore[arg-type]
    (table,) = lobby.tables.values()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            table.request(ann.session, P.AddBot(strategy="heuristic", seat=1, id=2))
            table.request(ann.session, P.Start(id=3))
            turn = await until(ann, lambda m: m.TYPE == "turn_started")
            committed = await until(ann, lambda m: m.TYPE == "seat_committed")
            assert committed.seat == 1 and pool.asked == [] and turn.remaining == 60.0
            assert trio.current_time() == 0.0
            nursery.cancel_scope.cancel()


async def test_a_searching_bot_s_state_is_forgotten_once_it_is_removed_from_its_seat(
        autojump_clock: trio.testing.MockClock) -> None:
    """docs/SERVER.md: a bot's state, kept by the table for its next decision, "is
    forgotten when the bot leaves its seat"."""
    from nimmt.bots import HeuristicStrategy

    lobby = still_lobby()
    pool = lobby.thinker = GatePool()
    pool.state = b"what it learnt"
    pool.answer(lambda view: HeuristicStrategy().decide(view))
    ann = connect(lobby, 1, "Ann")
    lobby.request(ann, P.CreateTable(options=TWO, id=1))  # type: ignore[arg-type]
    (table,) = lobby.tables.values()
    with trio.fail_after(3000):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            table.request(ann.session, P.AddBot(strategy="search", seat=1, id=2))
            table.request(ann.session, P.Start(id=3))
            await until(ann, lambda m: m.TYPE == "game_over")  # Ann's cards played for her
            # the bot's ten cards (and a row it took): the autopilot playing for Ann is
            # the cheap fallback, never asked of a worker
            assert {(spec, seed, view.seat) for spec, seed, view, _ in pool.asked} == {
                ("search", table.seats[1].seed, 1)}
            assert (table.bot_state(0), table.bot_state(1)) == (None, b"what it learnt")
            since = len(ann.got)
            table.request(ann.session, P.RemoveBot(seat=1, id=4))
            await until(ann, lambda m: m.TYPE == "table_updated" and m.table.seats[1] is None
                        and m in ann.got[since:])
            assert table.bot_state(1) is None
            nursery.cancel_scope.cancel()
