"""The table actor's refusals and its task, on the real ``Lobby`` and ``Table`` with
links in memory (issue 43): a closed table's answer, the table-wide cap on waiting
requests (exactly ``INBOX_SIZE``), a refusal over the per-connection cap dropped once
the sender's rate is spent, a bug in the match answered and the table closed (the
others told), requests still waiting when a table closes answered, the autopilot's
turn taken by the table's own task on the fake clock, and a wasted decision charged to
the connection that sent it only."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server.sessions.session import Session
from nimmt.server.tables import table as table_module
from nimmt.server.tables.table import INBOX_SIZE, QUEUE_PER_CONNECTION

from test_table_actor import TWO, Link, catch_up, connect, run_sync, still_lobby


def two_seated() -> tuple[Any, Link, Link, Any]:
    """A still lobby (tables stepped by the test), Ann and Bob seated at one table."""
    lobby = still_lobby()
    ann, bob = connect(lobby, 1, "Ann"), connect(lobby, 2, "Bob")
    lobby.request(ann, P.CreateTable(options=TWO, id=1))  # type: ignore[arg-type]
    (table,) = lobby.tables.values()
    run_sync(table.step(None, wake=True))
    catch_up(table)
    lobby.request(bob, P.Join(table_id=table.id, id=1))  # type: ignore[arg-type]
    catch_up(table)
    return lobby, ann, bob, table


async def until(link: Link, ok: Any) -> Any:
    """The first message to ``link`` for which ``ok`` holds, once it came (no time
    limit of its own: the fake clock may jump past the turn's deadline meanwhile)."""
    while True:
        found = [m for m in link.got if ok(m)]
        if found:
            return found[0]
        link.arrived = trio.Event()
        await link.arrived.wait()


def errors(link: Link) -> list[tuple[str, str, int | None, str]]:
    return [(e.code, e.request, e.re, e.message) for e in link.of("error")]


async def test_a_closed_table_answers_at_once_that_it_is_closed() -> None:
    lobby, ann, bob, table = two_seated()
    run_sync(table._carry_out(table.match.close("test", 0.0, 0.0)))
    assert table.closed and ann.session.table is None and bob.session.table is None
    assert table.request(ann.session, P.Pause(id=7)) is False
    assert errors(ann)[-1] == ("no_such_table", "pause", 7, "the table is closed")
    table.resumed(ann.session)
    assert not table._inputs  # nothing more goes in


async def test_the_table_takes_exactly_inbox_size_requests_waiting_in_all() -> None:
    lobby, ann, bob, table = two_seated()
    assert (INBOX_SIZE, QUEUE_PER_CONNECTION) == (4096, 16)  # as docs/SERVER.md says
    links = []
    for n in range(4096 // 16 + 1):
        s = Session(100 + n, f"tok_{n:020d}", f"P{n}", "human")
        s.client = Link(1000 + n)  # type: ignore[assignment]
        links.append(s)
    taken = [table.request(s, P.Pause(id=i)) for s in links[:-1]
             for i in range(QUEUE_PER_CONNECTION)]
    assert taken == [True] * INBOX_SIZE and table._waiting == INBOX_SIZE
    last = links[-1]
    assert table.request(last, P.Pause(id=1)) is False
    assert [(e.code, e.re, e.message) for e in last.client.of("error")] == [
        ("rate_limited", 1, "the table has too many requests waiting: send fewer")]
    assert last.client.counted == 0  # not the sender's fault: not counted
    table.next_input()  # one taken: one more may wait
    assert table.request(last, P.Pause(id=2)) is True and table._waiting == INBOX_SIZE


class Spent(Link):
    """A connection whose rate is spent: what it sends over the rate is dropped."""

    def count(self) -> bool:
        self.counted += 1
        return False


async def test_a_refusal_over_the_connection_s_cap_is_dropped_once_its_rate_is_spent() -> None:
    lobby, ann, bob, table = two_seated()
    s = Session(50, "tok_" + "5" * 20, "Sue", "human")
    s.client = Spent(77)  # type: ignore[assignment]
    for n in range(QUEUE_PER_CONNECTION):
        assert table.request(s, P.Pause(id=n)) is True
    assert table.request(s, P.Pause(id=99)) is False
    assert (s.client.of("error"), s.client.counted) == ([], 1)


async def test_requests_of_one_session_over_two_connections_count_per_connection() -> None:
    lobby, ann, bob, table = two_seated()
    for n in range(QUEUE_PER_CONNECTION):
        assert table.request(ann.session, P.Pause(id=n))
    old = ann.session.client
    ann.session.client = Link(9)  # type: ignore[assignment]  # a new connection of Ann's
    assert table.request(ann.session, P.Pause(id=50)) is True
    ann.session.client = old
    assert table.request(ann.session, P.Pause(id=51)) is False
    assert table._queued == {old.cid: QUEUE_PER_CONNECTION, 9: 1}
    catch_up(table)
    assert table._queued == {} and table._waiting == 0


async def test_a_bug_in_the_match_is_answered_and_closes_only_that_table(
        autojump_clock: trio.testing.MockClock, caplog) -> None:
    lobby, ann, bob, table = two_seated()
    handle = table.match.handle

    def buggy(item: Any, now: float, wall: float) -> Any:
        if getattr(getattr(item, "msg", None), "TYPE", "") == "pause":
            raise ZeroDivisionError("a bug")
        return handle(item, now, wall)

    table.match.handle = buggy  # type: ignore[method-assign]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        assert table.request(ann.session, P.Pause(id=5))
        assert table.request(bob.session, P.Chat(text="after", id=6))
        await table.wait_closed()
    assert errors(ann)[-1] == ("internal_error", "pause", 5,
                               "a bug in the server: the table is closed")
    assert [(m.TYPE, getattr(m, "reason", None)) for m in bob.got[-2:]] == [
        ("left", "table_closed"), ("error", None)]  # told, then his chat answered
    assert errors(bob)[-1] == ("no_such_table", "chat", 6, "the table is closed")
    assert bob.session.table is None and ann.session.table is None
    assert table.id not in lobby.tables
    assert any("internal error" in r.getMessage() for r in caplog.records)


async def test_a_table_stopped_with_its_task_is_closed_without_a_word(
        autojump_clock: trio.testing.MockClock) -> None:
    lobby, ann, bob, table = two_seated()
    before = len(ann.got)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        await trio.sleep(1.0)
        nursery.cancel_scope.cancel()
    assert table.closed and ann.got[before:] == []  # the players are not told
    assert ann.session.table is None


async def test_the_autopilot_plays_for_a_player_whose_time_ran_out_in_the_table_s_task(
        autojump_clock: trio.testing.MockClock) -> None:
    """The task waits for the match's next wake (the turn's deadline), and the
    fallback's decision is fed back in order: Ann's card is played for her."""
    lobby, ann, bob, table = two_seated()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        table.request(ann.session, P.Start(id=2))
        turn = await until(ann, lambda m: m.TYPE == "turn_started")
        start = trio.current_time()
        table.request(bob.session, P.Commit(round=1, turn=1, card=bob.of("hand_dealt")[0].cards[0],
                                            id=3))
        revealed = await until(ann, lambda m: m.TYPE == "revealed")
        assert trio.current_time() - start == turn.remaining  # at the deadline, not before
        assert sorted(s for s, _ in revealed.plays) == [0, 1]
        nursery.cancel_scope.cancel()


async def test_a_wasted_decision_is_charged_to_the_connection_that_sent_it() -> None:
    lobby, ann, bob, table = two_seated()
    charged = []
    ann.charge = lambda: charged.append("ann")  # type: ignore[method-assign]
    table._deliver(table_module.Effects(charges=[(ann.session.sid, ann.cid)]))
    table._deliver(table_module.Effects(charges=[(ann.session.sid, ann.cid + 1)]))  # an old one
    table._deliver(table_module.Effects(charges=[(999, ann.cid)]))  # no such member
    assert charged == ["ann"]


async def test_a_dropped_connection_is_away_from_when_it_was_lost(
        autojump_clock: trio.testing.MockClock) -> None:
    lobby, ann, bob, table = two_seated()
    await trio.sleep(40.0)
    ann.session.lost_at = 12.5  # the connection's end was noticed then
    table.disconnected(ann.session)
    bob.session.lost_at = None
    table.disconnected(bob.session)  # (not said: now)
    catch_up(table)
    assert [s.away_since for s in table.seats] == [12.5, 40.0]
    table.resumed(ann.session)
    catch_up(table)
    assert [s.away_since for s in table.seats] == [None, 40.0]


async def test_the_table_s_queries_and_a_notice_to_everyone_at_it() -> None:
    lobby, ann, bob, table = two_seated()
    sue = connect(lobby, 3, "Sue", "spectator")
    lobby.request(sue, P.Watch(table_id=table.id, id=1))  # type: ignore[arg-type]
    catch_up(table)
    assert repr(table) == f"<Table {table.id} waiting>"
    assert (table.status, [s.name for s in table.seats]) == ("waiting", ["Ann", "Bob"])
    assert table.info() == table.match.info() and table.info().spectators == 1
    notice = P.ChatMessage(name="server", seat=None, text="server notice: hello")
    table.notify_all(notice)
    assert [link.got[-1] for link in (ann, bob, sue)] == [notice] * 3


class FailingStore:
    """A database that takes every write and says it is failing (``failing``); it
    counts the table's waits for a write handed in earlier (``waits``)."""

    def __init__(self, failing: Any) -> None:
        self.failing = failing
        self.calls: list[str] = []
        self.waits: list[Any] = []

    def writes(self) -> Any:
        store = self

        class Writes:
            def __getattr__(self, name: str) -> Any:
                def call(*args: Any, **kwargs: Any) -> Any:
                    store.calls.append(name)
                    return SimpleNamespace(name=name, tried=False, on_tried=None)
                return call

            async def written(self) -> None:
                pass

        return Writes()

    async def written(self, write: Any) -> None:
        self.waits.append(write)

    async def create_table(self, *args: Any) -> None:
        self.calls.append("create_table")


async def test_who_comes_while_the_database_fails_is_told_so_once_seated() -> None:
    from nimmt.server.storage import StorageWriteError

    lobby, ann, bob, table = two_seated()
    error = StorageWriteError(None, "the disk is full", "disk_full")
    table.store = FailingStore(error)
    cy = connect(lobby, 3, "Cy")
    lobby.request(cy, P.Watch(table_id=table.id, id=1))  # type: ignore[arg-type]
    while table._inputs:
        await table.step(table.next_input())
    tags = [m.TYPE for m in cy.got]
    # the notice after what the call that seated it said
    assert tags[tags.index("watching"):] == ["watching", "table_updated", "chat_message"]
    assert cy.got[-1].text == ("server notice: the database cannot be written (disk_full): "
                               "games continue in memory; a restart now would lose what is "
                               "not saved")
    assert "chat_message" not in [m.TYPE for m in ann.got]  # told before, when it began
    table.store.failing = None
    dee = connect(lobby, 4, "Dee")
    lobby.request(dee, P.Watch(table_id=table.id, id=1))  # type: ignore[arg-type]
    while table._inputs:
        await table.step(table.next_input())
    tags = [m.TYPE for m in dee.got]
    assert tags[tags.index("watching"):] == ["watching", "table_updated"]
    assert table.store.calls == ["watch", "watch"]  # each spectator kept


async def test_requests_taken_in_a_row_with_a_database_are_all_answered_and_the_table_goes_on(
        autojump_clock: trio.testing.MockClock) -> None:
    """While more inputs wait, what the table said is held for the disk; once none
    waits, it is delivered, in order, and the table waits for the next input."""
    lobby, ann, bob, table = two_seated()
    table.store = FailingStore(None)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        for n in range(3):
            table.request(ann.session, P.Chat(text=f"line {n}", id=10 + n))
        await until(bob, lambda m: m.TYPE == "chat_message" and m.text == "line 2")
        await trio.sleep(5.0)
        table.request(bob.session, P.Chat(text="again", id=20))
        await until(ann, lambda m: m.TYPE == "chat_message" and m.text == "again")
        assert not table.closed
        assert [m.text for m in bob.got if m.TYPE == "chat_message"] == [
            "line 0", "line 1", "line 2", "again"]
        nursery.cancel_scope.cancel()


async def test_who_left_the_table_hears_no_more_of_it() -> None:
    lobby, ann, bob, table = two_seated()
    lobby.request(bob, P.Leave(id=5))  # type: ignore[arg-type]
    catch_up(table)
    assert bob.session.table is None and bob.session.sid not in table._sessions
    notice = P.ChatMessage(name="server", seat=None, text="server notice: hello")
    table.notify_all(notice)
    assert ann.got[-1] == notice and notice not in bob.got
    cy = connect(lobby, 3, "Cy")  # at no table: his request is refused, and that is all
    table.request(cy.session, P.Pause(id=6))
    catch_up(table)
    assert errors(cy) == [("not_allowed", "pause", 6, errors(cy)[0][3])]
    table.notify_all(notice)
    assert notice not in cy.got and cy.session.sid not in table._sessions


async def test_bots_placed_before_the_task_ran_are_written_at_once(
        autojump_clock: trio.testing.MockClock) -> None:
    from nimmt.server.config import TableSettings
    from nimmt.server.tables.table import Table

    lobby = still_lobby()
    table = Table(lobby, "t7", "Bots", TableSettings(seats=3, step_delay=0.0).validate())
    table.store = FailingStore(None)
    table.place_bot(1, "heuristic", None)
    table.place_bot(2, "random", "Rand")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        await trio.sleep(1.0)  # no input comes
        assert table.store.calls == ["create_table", "append", "set_seat", "set_seat"]
        assert [(s.name, s.strategy) for s in table.seats[1:]] == [
            ("Bot 1", "heuristic"), ("Rand", "random")]
        nursery.cancel_scope.cancel()


async def test_a_game_over_but_not_kept_when_the_server_stopped_is_kept_by_its_table(
        autojump_clock: trio.testing.MockClock) -> None:
    """The last decision was on disk, the game not kept yet: the restored table's
    task keeps it at once, and the table's row says it is over."""
    from nimmt.engine import Options
    from nimmt.server.tables.restore import restore_match
    from nimmt.server.tables.table import Table

    from storage_helpers import play_game
    from test_table_effects_units import player, stored

    _, facts = play_game(Options(players=3, rounds=1), seed=6)
    kept = stored((player(0, "Ann"), player(1, "Bob"), player(2, "Cy")), tuple(facts))
    match, _ = restore_match(kept, now=0.0, members=[1, 2, 3])
    assert match.status == "playing"
    lobby = still_lobby()
    table = Table(lobby, kept.id, kept.name, match.settings, match=match)
    table.store = FailingStore(None)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        await trio.sleep(1.0)
        assert table.status == "over"
        # (the append: the seed of the next game, drawn and kept)
        assert table.store.calls == ["append", "finish_game", "update_table"]
        nursery.cancel_scope.cancel()


async def test_decisions_taken_in_a_row_wait_once_for_the_disk(
        autojump_clock: trio.testing.MockClock) -> None:
    """Ann's commit, her replaced commit and Bob's chat reach the table before it takes
    any: their writes go to the store as they come, and the table waits once, for the
    last, before anyone hears of them (docs/SERVER.md, "The path of one commit")."""
    lobby, ann, bob, table = two_seated()
    table.request(ann.session, P.Start(id=2))
    catch_up(table)
    first, second = ann.of("hand_dealt")[0].cards[:2]
    table.store = FailingStore(None)
    async with trio.open_nursery() as nursery:
        table.request(ann.session, P.Commit(round=1, turn=1, card=first, id=3))
        table.request(ann.session, P.Commit(round=1, turn=1, card=second, id=4))
        table.request(bob.session, P.Chat(text="hm", id=5))
        nursery.start_soon(table.run)
        await until(ann, lambda m: m.TYPE == "chat_message")
        assert [m.re for m in ann.of("commit_accepted")] == [3, 4]
        assert table.store.calls == ["create_table", "append", "append"]
        assert len(table.store.waits) == 1 and table.store.waits[0].name == "append"
        nursery.cancel_scope.cancel()


async def test_a_deadline_passed_while_the_task_was_busy_is_acted_on_at_its_next_turn(
        autojump_clock: trio.testing.MockClock) -> None:
    lobby, ann, bob, table = two_seated()
    table.request(ann.session, P.Start(id=2))
    catch_up(table)
    turn = ann.of("turn_started")[-1]
    await trio.sleep(turn.remaining + 7.5)  # the task was elsewhere at the deadline
    await table.step(None)  # one turn of the task's loop: a step, then the thinks
    await table._think()
    assert [m.TYPE for m in ann.got].count("revealed") == 1  # both cards played for them
