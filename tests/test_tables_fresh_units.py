"""Behaviours of ``server/tables`` a fresh sample of mutants (issue 43, session 25, seed
25) showed nothing pinned: the table task's turns with the other tasks, a wasted
decision charged only to the connection that sent it, and the number of the first game
of a table brought back before it played one."""

from __future__ import annotations

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server.game.io import Request, Who
from nimmt.server.tables import table as table_module
from nimmt.server.tables.restore import restore_match
from nimmt.server.tables.table import BATCH

from test_restore import stored
from test_table_actor_units import two_seated


async def test_a_table_lets_the_other_tasks_run_after_every_64_inputs(monkeypatch) -> None:
    """A flood of inputs at one table does not hold up the server: its task lets the
    others run after each ``BATCH`` (64) inputs taken, counted from its last wait."""
    lobby, ann, bob, table = two_seated()
    assert BATCH == 64
    seen: list[int] = []
    real = trio.lowlevel.checkpoint

    async def counted() -> None:
        seen.append(len(table._inputs))
        await real()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.run)
        await trio.testing.wait_all_tasks_blocked()  # the task waits for an input
        monkeypatch.setattr(trio.lowlevel, "checkpoint", counted)
        for _ in range(150):
            table.resumed(ann.session)
        await trio.testing.wait_all_tasks_blocked()
        monkeypatch.undo()
        assert not table._inputs
        nursery.cancel_scope.cancel()
    assert seen == [150 - 64, 150 - 128]


async def test_a_wasted_decision_is_charged_only_to_the_connection_that_sent_it() -> None:
    """Each charge looked at alone: the sender's connection is charged, an older one
    of the same session is not (it was closed or replaced since)."""
    lobby, ann, bob, table = two_seated()
    charged: list[str] = []
    ann.charge = lambda: charged.append("ann")  # type: ignore[method-assign]
    table._deliver(table_module.Effects(charges=[(ann.session.sid, ann.cid)]))
    assert charged == ["ann"]
    table._deliver(table_module.Effects(charges=[(ann.session.sid, ann.cid - 1)]))
    assert charged == ["ann"]
    table._deliver(table_module.Effects(charges=[(ann.session.sid, ann.cid)] * 2))
    assert charged == ["ann"] * 3


def test_the_first_game_of_a_table_restored_before_any_game_is_game_1() -> None:
    match, people = restore_match(stored([]), now=10.0, members=[7])
    assert match.status == "waiting" and match.games_played == 0
    assert [(p.member, p.seat) for p in people] == [(7, 0)]
    effects = match.handle(Request(Who(7, "Ann", "human"), P.Start(id=1)), 11.0, 1011.0)
    started = [f for f in effects.facts if f.kind == "game_started"]
    assert [f.payload["game"] for f in started] == [1]
    assert match.games_played == 1


def test_the_game_after_a_restored_table_s_kept_game_1_is_game_2() -> None:
    """A table brought back after its first game was kept numbers the next one 2 (the
    history and the records tell the games of a table apart by it)."""
    from nimmt.engine import Options
    from nimmt.server.storage import Fact

    from storage_helpers import play_game

    _, facts = play_game(Options(players=3, rounds=2), seed=7)
    facts += [Fact("game_over", {"game": 1, "game_id": 3})]
    match, people = restore_match(stored(facts), now=50.0, members=[7])
    assert match.status == "over" and match.games_played == 1
    assert [(p.member, p.seat) for p in people] == [(7, 0)]
    effects = match.handle(Request(Who(7, "Ann", "human"), P.Start(id=1)), 51.0, 1051.0)
    assert [f.payload["game"] for f in effects.facts if f.kind == "game_started"] == [2]


def test_a_waiting_table_keeps_across_a_restart_the_seed_its_players_were_shown() -> None:
    """The commitment shown before the restart is the one after it (a new seed would
    make the players' check of the deal fail)."""
    from nimmt.server.game.deal_commitment import DealCommitment

    kept = DealCommitment(bytes(range(32))).contribute(0, b"\xb0")
    match, _ = restore_match(stored([kept.fact()]), now=10.0, members=[7])
    assert match.status == "waiting"
    assert match.commitment == kept.commitment



async def test_a_request_of_a_session_seated_elsewhere_since_it_asked_is_refused() -> None:
    """Bob asks to join Ann's full table and, right after, to watch it; the join is
    refused, he creates a table of his own, and only then does her table's task take
    his watch: he sits elsewhere by then, and is told so (he never watches two)."""
    from test_table_actor import TWO, catch_up, connect, run_sync, still_lobby

    lobby = still_lobby()
    ann, cy, bob = connect(lobby, 1, "Ann"), connect(lobby, 3, "Cy"), connect(lobby, 2, "Bob")
    lobby.request(ann, P.CreateTable(options=TWO, id=1))  # type: ignore[arg-type]
    (first,) = lobby.tables.values()
    run_sync(first.step(None, wake=True))
    catch_up(first)
    lobby.request(cy, P.Join(table_id=first.id, id=1))  # type: ignore[arg-type]
    catch_up(first)
    lobby.request(bob, P.Join(table_id=first.id, id=5))  # type: ignore[arg-type]
    lobby.request(bob, P.Watch(table_id=first.id, id=6))  # type: ignore[arg-type]
    run_sync(first.step(first.next_input()))  # the join only: refused, the table is full
    lobby.request(bob, P.CreateTable(options=TWO, id=7))  # type: ignore[arg-type]
    (second,) = [t for t in lobby.tables.values() if t is not first]
    run_sync(second.step(None, wake=True))
    catch_up(second)
    catch_up(first)
    assert bob.session.table is second
    assert [(e.code, e.re, e.message) for e in bob.of("error")] == [
        ("table_full", 5, "every seat is taken"),
        ("not_allowed", 6, "you are already at a table: leave it first")]
    assert [m.name for m in first.match.members.values()] == ["Ann", "Cy"]
