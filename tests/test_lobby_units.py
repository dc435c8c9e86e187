"""The lobby's answers without sockets (issue 43): stand-in connections send it
requests on a mock clock. The table list (newest first, closed ones left out, at most
``MAX_TABLES_LISTED``), ``join``/``watch`` of no table, a game input at no table,
``create_table`` (its name, each refusal and what it says: the server's table cap, one
session's and one address's share, the coach at a rated table, a fallback that is no
strategy, a rated table for an unclaimed name, a second table), the feed that tells
the lobby of changed tables (at most a quarter of a send queue a second) and the
standing ``--bots`` table. Hello and resume: tests/test_welcome_units.py; the ladder
queue: tests/test_seating_units.py; against a real server: tests/test_lobby_entry.py."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server.config import ServerConfig, TableSettings
from nimmt.server.lobby.lobby import NAME_SEATED, UNCLAIMED_AT_RATED, Lobby
from nimmt.server.storage import AsyncStore, Store

from lobby_helpers import Link, run

E = P.ErrorCode
V = P.PROTOCOL_VERSION


_cids = iter(range(1, 100_000))


def arrive(lobby: Lobby, name: str = "Ann", address: str | None = "10.0.0.1") -> Link:
    link = Link(next(_cids), address)
    lobby.hello(link, P.Hello(protocol=V, name=name, kind="human", id=1))
    link.sent.clear()
    return link


def create(name: str = "", mid: int = 2, **options: Any) -> P.CreateTable:
    return P.CreateTable(name=name, options=P.TableOptions(**options), id=mid)


def only_error(link: Link) -> P.Error:
    [error] = link.errors()
    link.sent.clear()
    return error


# ------------------------------------------------------------------ the table list
def test_the_list_is_newest_first_without_closed_tables_and_at_most_the_protocol_s_number():
    async def test(lobby: Lobby) -> None:
        link = arrive(lobby)
        lobby.request(link, P.ListTables(id=3))
        [empty] = link.sent
        assert isinstance(empty, P.TableList) and (empty.tables, empty.re) == ((), 3)
        tables = [lobby.open_table(f"t{i}", TableSettings()) for i in range(P.MAX_TABLES_LISTED + 2)]
        link.sent.clear()
        lobby.request(link, P.ListTables(id=4))
        [listed] = link.sent
        assert [t.name for t in listed.tables] == [f"t{i}" for i in
                                                   range(P.MAX_TABLES_LISTED + 1, 1, -1)]
        assert listed.tables[0].table_id == tables[-1].id and listed.re == 4
        tables[-1].match.close("test", trio.current_time(), 0.0)
        link.sent.clear()
        lobby.request(link, P.ListTables(id=5))
        [shorter] = link.sent
        assert [t.name for t in shorter.tables] == [f"t{i}" for i in
                                                    range(P.MAX_TABLES_LISTED, 0, -1)]

    run(test)


# ------------------------------------------------------------------ join, watch, no table
def test_join_or_watch_of_a_table_that_is_not_there_or_closed():
    async def test(lobby: Lobby) -> None:
        link = arrive(lobby)
        lobby.request(link, P.Join(table_id="T9", id=6))
        error = only_error(link)
        assert (error.code, error.field, error.request, error.re, error.message) == (
            E.NO_SUCH_TABLE, "table_id", "join", 6, "no table 'T9'")
        table = lobby.open_table("old", TableSettings())
        table.match.close("test", trio.current_time(), 0.0)
        lobby.request(link, P.Watch(table_id=table.id, id=7))
        error = only_error(link)
        assert (error.code, error.request, error.re, error.message) == (
            E.NO_SUCH_TABLE, "watch", 7, f"no table {table.id!r}")
        assert link.session.table is None

    run(test)


def test_a_game_input_at_no_table_is_refused_and_a_decision_counts_against_the_rate():
    async def test(lobby: Lobby) -> None:
        link = arrive(lobby)
        lobby.request(link, P.Leave(id=8))
        error = only_error(link)
        assert (error.code, error.request, error.re, error.message) == (
            E.NOT_ALLOWED, "leave", 8, "you are at no table")
        assert link.charged == 0
        lobby.request(link, P.Commit(round=1, turn=1, card=5, id=9))
        error = only_error(link)
        assert (error.code, error.request, error.re, error.message) == (
            E.NOT_ALLOWED, "commit", 9, "you are at no table")
        assert link.charged == 1

    run(test)


# ------------------------------------------------------------------ create_table
def test_a_new_table_is_named_for_its_creator_and_sat_at():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, "Ann")
        lobby.request(ann, create(mid=2))
        [table] = lobby.tables.values()
        assert table.match.name == "Ann's table" and ann.session.table is table
        assert table.match.settings == ServerConfig().table
        bob = arrive(lobby, "B" * 32, "10.0.0.2")  # the longest name: its table's name is 40
        lobby.request(bob, create(seats=3))
        named = list(lobby.tables.values())[1]
        assert named.match.name == "B" * 32 + "'s table" and named.match.settings.seats == 3
        cy = arrive(lobby, "Cy", "10.0.0.3")
        lobby.request(cy, create("C" * 40))
        assert list(lobby.tables.values())[2].match.name == "C" * 40
        await trio.testing.wait_all_tasks_blocked()
        assert table.seats[0] is not None and table.seats[0].name == "Ann"
        lobby.request(bob, create(mid=5))  # at a table already: no second one opens
        error = only_error(bob)
        assert (error.code, error.request, error.re, error.message) == (
            E.NOT_ALLOWED, "create_table", 5, "you are already at a table: leave it first")
        assert len(lobby.tables) == 3

    run(test)


def test_the_server_s_table_cap():
    async def test(lobby: Lobby) -> None:
        lobby.open_table("one", TableSettings())
        lobby.open_table("two", TableSettings())
        ann = arrive(lobby)
        lobby.request(ann, create(mid=4))
        error = only_error(ann)
        assert (error.code, error.re, error.message) == (
            E.NOT_ALLOWED, 4, "the server has as many tables as it allows")
        list(lobby.tables.values())[0].match.close("test", trio.current_time(), 0.0)  # closed ones do not count
        lobby.request(ann, create(mid=5))
        assert ann.errors() == [] and len(lobby.tables) == 3

    run(test, max_tables=2)


def leave(lobby: Lobby, link: Link) -> None:
    link.session.table = None
    lobby.after_leave(link.session)


def test_one_session_s_share_of_tables_then_one_address_s():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, "Ann")
        for _ in range(2):
            lobby.request(ann, create())
            leave(lobby, ann)
        lobby.request(ann, create(mid=7))
        error = only_error(ann)
        assert (error.code, error.re, error.message) == (
            E.NOT_ALLOWED, 7, "you created 2 tables that are still open (at most 2): join "
            "one, or wait until one closes")
        assert lobby.creation_refused(ann.session, by_session=False) == ""
        bob = arrive(lobby, "Bob")  # the same address: its third table is the last
        lobby.request(bob, create())
        leave(lobby, bob)
        lobby.request(bob, create(mid=8))
        error = only_error(bob)
        assert (error.code, error.re, error.message) == (
            E.NOT_ALLOWED, 8, "3 tables caused from your address are open (at most 3 in all, "
            "ladder tables included): join a table, or wait until one closes")
        assert lobby.creation_refused(bob.session, by_session=False) == error.message
        elsewhere = arrive(lobby, "Cy", "10.0.0.9")
        lobby.request(elsewhere, create())
        assert elsewhere.errors() == []
        first = next(iter(lobby.tables.values()))
        first.match.close("test", trio.current_time(), 0.0)  # one of Ann's closes: one more for her, and her address
        lobby.request(ann, create())
        assert ann.errors() == [] and ann.session.table is not None

    run(test, tables_per_session=2, tables_per_address=3)


def test_a_table_made_for_a_ladder_player_counts_against_them_when_filled_with_bots():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, "Ann")
        table = lobby.open_table("ladder", TableSettings())
        lobby.created_for(table, ann.session, filled=False)
        assert lobby.creation_refused(ann.session) == ""
        lobby.created_for(table, ann.session, filled=True)
        assert lobby.creation_refused(ann.session) == (
            "you created 1 tables that are still open (at most 1): join one, or wait until "
            "one closes")

    run(test, tables_per_session=1)


def test_what_options_a_new_table_may_not_have():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, "Ann")
        lobby.request(ann, create(rated=True, coach=True, mid=3))
        error = only_error(ann)
        assert (error.code, error.field, error.re) == (E.NOT_ALLOWED, "options.coach", 3)
        assert error.message.startswith("a rated table has no coach")
        lobby.request(ann, create(fallback="nope", mid=4))
        error = only_error(ann)
        assert (error.code, error.field, error.re, error.message) == (
            E.UNKNOWN_STRATEGY, "options", 4, "fallback: no strategy 'nope': choose a level "
            "(easy, normal, hard) or a strategy (heuristic, mcs, random, search)")
        lobby.request(ann, create(rated=True, mid=6))
        error = only_error(ann)
        assert (error.code, error.field, error.re, error.message) == (
            E.NOT_ALLOWED, "options.rated", 6, UNCLAIMED_AT_RATED)
        assert lobby.tables == {} and ann.session.table is None

    run(test)


# ------------------------------------------------------------------ enter
def test_a_claimed_name_holds_one_seat_and_an_unclaimed_one_may_not_sit_at_a_rated_table():
    async def test(lobby: Lobby) -> None:
        table = lobby.open_table("rated", TableSettings(rated=True, coach=False))
        ann = arrive(lobby, "Ann")
        lobby.request(ann, P.Join(table_id=table.id, id=3))
        error = only_error(ann)
        assert (error.code, error.request, error.re, error.message) == (
            E.NOT_ALLOWED, "join", 3, UNCLAIMED_AT_RATED)
        lobby.request(ann, P.Watch(table_id=table.id, id=4))  # watching is for everyone
        assert ann.errors() == [] and ann.session.table is table
        first, second = arrive(lobby, "Bo"), arrive(lobby, "Bo")
        first.session.claimed = second.session.claimed = True
        second.session.name = "bo"
        casual = lobby.open_table("casual", TableSettings())
        assert lobby.enter(first.session, casual, P.Join(table_id=casual.id, id=5)) is None
        why = lobby.enter(second.session, casual, P.Join(table_id=casual.id, id=6))
        assert why == NAME_SEATED.format("bo") == only_error(second).message
        assert second.session.table is None
        await trio.testing.wait_all_tasks_blocked()  # Bo sat down: the seats say so now
        why = lobby.enter(second.session, casual, P.Join(table_id=casual.id, id=7))
        assert why == NAME_SEATED.format("bo")
        assert lobby.enter(second.session, casual, P.Watch(table_id=casual.id, id=8)) is None

    run(test)


# ------------------------------------------------------------------ the lobby feed
def test_the_feed_sends_a_quarter_of_a_send_queue_a_time_to_those_in_the_lobby_only():
    async def test(lobby: Lobby) -> None:
        assert lobby.feed_budget == 2
        ann = arrive(lobby, "Ann")
        tables = [lobby.open_table(f"t{i}", TableSettings()) for i in range(3)]
        lobby.feed_once()
        assert [m.table.name for m in ann.sent] == ["t0", "t1"]
        ann.sent.clear()
        lobby.table_changed(tables[0])
        tables[2].match.close("test", trio.current_time(), 0.0)
        lobby.table_closed(tables[2])
        lobby.feed_once()
        assert [m.TYPE for m in ann.sent] == ["table_closed", "table_updated"]
        assert (ann.sent[0].table_id, ann.sent[1].table.name) == (tables[2].id, "t0")
        ann.sent.clear()
        lobby.feed_once()
        assert ann.sent == []
        lobby.request(ann, create())
        lobby.table_changed(tables[1])
        lobby.feed_once()
        assert ann.sent == []  # at a table: the lobby's news is not for her

    run(test, send_queue=11)


def test_the_smallest_send_queue_still_hears_one_table_a_time():
    async def test(lobby: Lobby) -> None:
        assert lobby.feed_budget == 1

    run(test, send_queue=3)


# ------------------------------------------------------------------ the --bots table
def test_the_standing_bot_table_and_its_name():
    async def test(lobby: Lobby) -> None:
        table = lobby.bot_table
        assert table is None
        table = lobby.open_bot_table()
        assert table.match.name == "You against 3 bots" and lobby.bot_table is table
        assert table.match.settings.seats == 4
        assert [s is not None and s.builtin for s in table.seats] == [False, True, True, True]
        lobby.table_started(table)
        assert lobby.bot_table is not table and lobby.bot_table is not None
        assert len(lobby.tables) == 2

    run(test, bots=3)


def test_one_bot_is_said_as_one():
    async def test(lobby: Lobby) -> None:
        assert lobby.open_bot_table().match.name == "You against 1 bot"
        lobby.table_started(lobby.bot_table)
        second = lobby.bot_table
        assert second is not None and len(lobby.tables) == 2
        lobby.table_started(second)
        assert lobby.bot_table is None  # the server's two tables are taken
        first = next(iter(lobby.tables.values()))
        first.match.close("test", trio.current_time(), 0.0)
        lobby.table_closed(first)
        assert lobby.bot_table is not None and len(lobby.tables) == 2

    run(test, bots=1, max_tables=2)


def test_the_feed_tells_of_a_table_at_once_then_at_most_once_a_second():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, "Ann")
        heard: list[tuple[float, str]] = []
        ann.send = lambda msg: heard.append((trio.current_time(), msg.TYPE)) or True  # type: ignore[method-assign]
        lobby.nursery.start_soon(lobby.feed)
        await trio.sleep(5.0)  # nothing changed: nothing sent
        assert heard == []
        table = lobby.open_table("t", TableSettings())
        await trio.sleep(0.5)
        lobby.table_changed(table)
        lobby.table_changed(table)  # twice: one message
        await trio.sleep(0.4999)
        assert heard == [(5.0, "table_updated")]
        await trio.sleep(0.0002)
        assert heard == [(5.0, "table_updated"), (6.0, "table_updated")]

    run(test)


def test_two_bots_are_said_as_two():
    async def test(lobby: Lobby) -> None:
        table = lobby.open_bot_table()
        assert table.match.name == "You against 2 bots" and table.match.settings.seats == 3

    run(test, bots=2)


def test_no_bot_table_opens_while_more_tables_are_open_than_the_server_allows():
    async def test(lobby: Lobby) -> None:
        # (a restart with a lower max_tables brings back every table it had)
        lobby.open_table("a", TableSettings())
        lobby.open_table("b", TableSettings())
        gone = lobby.open_table("c", TableSettings())
        gone.match.close("test", trio.current_time(), 0.0)
        lobby.table_closed(gone)
        assert lobby.bot_table is None and len(lobby.tables) == 2

    run(test, bots=1, max_tables=1)


# ------------------------------------------------------------------ a restart
def test_a_restart_brings_back_each_table_s_people_with_session_ids_of_their_own(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    ids: list[str] = []

    async def main() -> None:
        astore = AsyncStore(Store.open(tmp_path / "nimmt.db"))
        try:
            async with trio.open_nursery() as nursery:
                lobby = Lobby(ServerConfig(), nursery)
                lobby.store = astore
                ann, bob, cy, dee, eve, flo, hal, ivy = (arrive(lobby, n) for n in (
                    "Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Hal", "Ivy"))
                lobby.request(ann, create(seats=3))
                [first] = lobby.tables.values()
                lobby.request(bob, P.Join(table_id=first.id, id=3))
                lobby.request(cy, P.Watch(table_id=first.id, id=4))
                lobby.request(dee, create())
                second = list(lobby.tables.values())[1]
                lobby.request(eve, P.Watch(table_id=second.id, id=5))
                lobby.request(flo, P.Watch(table_id=second.id, id=6))
                lobby.request(hal, P.Join(table_id=second.id, id=7))
                lobby.request(ivy, P.Watch(table_id=second.id, id=8))
                ids.extend((first.id, second.id))
                with trio.fail_after(30):  # until the store has them all (its thread's pace)
                    while sorted((len(t.seats), len(t.spectators))
                                 for t in await astore.open_tables()) != [(2, 1), (2, 3)]:
                        await trio.sleep(0.01)
                nursery.cancel_scope.cancel()
            caplog.clear()
            with caplog.at_level(logging.INFO, logger="nimmt.server"):
                async with trio.open_nursery() as nursery:
                    again = Lobby(ServerConfig(), nursery)
                    again.store = astore
                    restored = await again.restore()
                    assert sorted(t.id for t in restored) == sorted([first.id, second.id])
                    # (the tables come back in the store's order; each one's people
                    # get the next session ids, in the order of their seats, then watchers)
                    by_table: dict[str, list[tuple[int, str, int | None]]] = {}
                    for person in sorted(again._restored.values(), key=lambda p: p.sid):
                        assert person.table is again.tables[person.table.id]
                        by_table.setdefault(person.table.id, []).append(
                            (person.sid, person.name, person.seat))
                    assert {t: [(n, seat) for _, n, seat in p] for t, p in by_table.items()} == {
                        first.id: [("Ann", 0), ("Bob", 1), ("Cy", None)],
                        second.id: [("Dee", 0), ("Hal", 1), ("Eve", None), ("Flo", None),
                                    ("Ivy", None)]}
                    blocks = sorted([sid for sid, _, _ in p] for p in by_table.values())
                    # (3 and 5 people: odd numbers, with bits in common)
                    assert blocks in ([[1, 2, 3], [4, 5, 6, 7, 8]], [[1, 2, 3, 4, 5], [6, 7, 8]])
                    newcomer = arrive(again, "Gus")
                    assert newcomer.session.sid == 9
                    nursery.cancel_scope.cancel()
        finally:
            await astore.aclose()

    trio.run(main)  # the real clock: the store's thread takes real time
    said = [r.getMessage() for r in caplog.records if "restored" in r.getMessage()]
    assert sorted(said) == [f"table={ids[0]} restored: waiting, 2 player seats waiting, 1 spectator",
                    f"table={ids[1]} restored: waiting, 2 player seats waiting, 3 spectators"]
