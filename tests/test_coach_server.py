"""The coach against a real server on 127.0.0.1 (issue 45): the host's choice is the
table's, shown to whoever comes; a rated table asking for it is refused, a ladder
game never has it, and no other table is touched."""

from __future__ import annotations

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import ScriptClient, make_config

OPTIONS = P.TableOptions(seats=2, rounds=1, step_delay=0)


def coach_of(listed: P.TableList) -> dict[str, bool | None]:
    return {t.table_id: t.options.coach for t in listed.tables}


async def test_a_table_created_with_the_coach_off_is_shown_off_to_whoever_joins() -> None:
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        cat = await ScriptClient.tcp(port, "Cat")
        old = await ScriptClient.tcp(port, "Old", protocol=2)
        off = await ann.request(P.CreateTable(options=P.TableOptions(seats=2, coach=False)))
        on = await cat.request(P.CreateTable(options=OPTIONS))  # coach left out
        assert isinstance(off, P.Seated) and isinstance(on, P.Seated)
        assert (off.table.options.coach, on.table.options.coach) == (False, True)
        listed = await bob.request(P.ListTables())
        assert isinstance(listed, P.TableList)
        assert coach_of(listed) == {off.table.table_id: False, on.table.table_id: True}
        joined = await bob.request(P.Join(table_id=off.table.table_id))
        assert isinstance(joined, P.Seated) and joined.table.options.coach is False
        assert not joined.table.options.coached
        # protocol 2 hears no coach at all (nil: its client never knew of one)
        old_joined = await old.request(P.Join(table_id=on.table.table_id))
        assert isinstance(old_joined, P.Seated) and old_joined.table.options.coach is None
        assert b"coach" not in old.raw and b"coach" in bob.raw
        for client in (ann, bob, cat, old):
            await client.aclose()
        nursery.cancel_scope.cancel()


async def test_a_rated_table_with_the_coach_is_refused_and_a_ladder_game_has_none() -> None:
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        bob = await ScriptClient.tcp(port, "Bob")
        casual = await bob.request(P.CreateTable(options=OPTIONS))
        assert isinstance(casual, P.Seated) and casual.table.options.coach is True
        ann = await ScriptClient.tcp(port, "Ann", key="annkey-" + "a" * 30)
        assert ann.welcome is not None and ann.welcome.claimed

        ask = P.CreateTable(options=P.TableOptions(seats=2, rated=True, coach=True))
        refused = await ann.request(ask)
        assert isinstance(refused, P.Error)
        assert (refused.code, refused.field, refused.request) == (
            "not_allowed", "options.coach", "create_table")
        assert "Leave coach out (or false) for a rated table" in refused.message
        listed = await ann.request(P.ListTables())  # still in the lobby, no table opened
        assert isinstance(listed, P.TableList)
        assert coach_of(listed) == {casual.table.table_id: True}

        rated = await ann.request(P.CreateTable(options=P.TableOptions(seats=2, rated=True)))
        assert isinstance(rated, P.Seated)
        assert (rated.table.options.rated, rated.table.options.coach) == (True, False)
        listed = await bob.request(P.ListTables())
        assert isinstance(listed, P.TableList)
        assert coach_of(listed) == {casual.table.table_id: True, rated.table.table_id: False}

        # the ladder queue reads no coach, as it reads no rated: its game has none
        dan = await ScriptClient.tcp(port, "Dan", key="dankey-" + "d" * 30)
        queued = await dan.request(P.Queue(seats=2, options=P.TableOptions(coach=True),
                                           fill_after=0.0, bot_level="easy"))
        assert isinstance(queued, P.Queued)
        seated = await dan.expect("seated")
        assert isinstance(seated, P.Seated)
        assert (seated.table.options.rated, seated.table.options.coach) == (True, False)
        for client in (ann, bob, dan):
            await client.aclose()
        nursery.cancel_scope.cancel()
