"""Issue 41: a session enters a table one way only (``Lobby.enter``), and is linked to at
most one table: a refused entry leaves it at none, free to go elsewhere, and an entry
sent while another is on its way is refused, whatever the order the tables take
them in. Through a real server on 127.0.0.1 (port 0); the others at the tables are
not disturbed."""

from __future__ import annotations

from dataclasses import replace

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import ScriptClient, make_config, seat_players


def tables_of(server, client: ScriptClient) -> list[str]:
    """The tables that have ``client``'s session as a member or linked to them."""
    session = server.lobby.sessions[client.token]
    linked = [t.id for t in server.lobby.tables.values()
              if session.sid in t.match.members or session.sid in t._sessions]
    if session.table is not None:
        assert session.table.id in linked or not linked, (session.table, linked)
    return linked


async def together(client: ScriptClient, *msgs: P.Message) -> list[int]:
    """Send ``msgs`` in one write (the server reads them at once, before any table's
    task runs); their ids."""
    ids, data = [], b""
    for msg in msgs:
        ids.append(client.next_id())
        data += P.encode_frame(replace(msg, id=ids[-1]))  # (as a client in a hurry)
    await client.send_raw(data)
    return ids


def players(info: P.TableInfo) -> list[str]:
    return [s.name for s in info.seats if s is not None]


async def replies(client: ScriptClient, ids: list[int]) -> list[P.Message]:
    """The replies to the requests ``ids``, in the order they came; matched to ``ids``."""
    got: dict[int, P.Message] = {}
    while len(got) < len(ids):
        msg = await client.expect(lambda m: m.re in ids)
        got[msg.re] = msg
    return [got[i] for i in ids]


async def test_a_refused_create_leaves_the_session_at_no_table_free_to_join(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        bob = await ScriptClient.tcp(port, "Bob")
        ann = await ScriptClient.tcp(port, "Ann")  # no claimed name: no rated table
        table_id = await seat_players(bob, [], P.TableOptions(seats=3))
        refused = await ann.request(P.CreateTable(options=P.TableOptions(rated=True)))
        assert isinstance(refused, P.Error)
        assert (refused.code, refused.field) == ("not_allowed", "options.rated")
        assert tables_of(server, ann) == [] and list(server.lobby.tables) == [table_id]
        # at no table: in the lobby, she hears of the tables ...
        cy = await ScriptClient.tcp(port, "Cy")
        cys = await seat_players(cy, [], P.TableOptions(seats=2))
        update = await ann.expect(lambda m: isinstance(m, P.TableUpdated)
                                  and m.table.table_id == cys)
        assert players(update.table) == ["Cy"]
        # ... and sits down where she likes
        seated = await ann.request(P.Join(table_id=table_id))
        assert isinstance(seated, P.Seated) and seated.table.table_id == table_id
        assert tables_of(server, ann) == [table_id]
        joined = await bob.expect(lambda m: isinstance(m, P.TableUpdated)
                                  and len(players(m.table)) == 2)
        assert players(joined.table) == ["Bob", "Ann"]
        assert not bob.of_type("error") and not cy.of_type("error")
        nursery.cancel_scope.cancel()


async def test_create_then_join_at_once_links_the_session_to_its_new_table_only(
        autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        bob = await ScriptClient.tcp(port, "Bob")
        ann = await ScriptClient.tcp(port, "Ann")
        bobs = await seat_players(bob, [], P.TableOptions(seats=3))
        create, join = await together(ann, P.CreateTable(options=P.TableOptions(seats=2)),
                                      P.Join(table_id=bobs))
        seated, refused = await replies(ann, [create, join])
        assert isinstance(seated, P.Seated)
        assert isinstance(refused, P.Error) and refused.code == "not_allowed"
        assert refused.message == "you are already at a table: leave it first"
        assert tables_of(server, ann) == [seated.table.table_id]
        assert set(server.lobby.tables[bobs].match.members) == {
            server.lobby.sessions[bob.token].sid}
        # Bob's table never saw her: Bob heard of nobody joining
        await bob.send(P.Chat(text="anyone?"))
        await bob.expect("chat_message")
        assert all(players(m.table) == ["Bob"] for m in bob.of_type("table_updated"))
        assert not bob.of_type("error")
        nursery.cancel_scope.cancel()


async def test_two_joins_at_once_the_second_is_refused_and_the_first_table_decides(
        autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        bob, cy, dan, ann, eve = [await ScriptClient.tcp(port, name)
                                  for name in ("Bob", "Cy", "Dan", "Ann", "Eve")]
        full = await seat_players(bob, [dan], P.TableOptions(seats=2))
        free = await seat_players(cy, [], P.TableOptions(seats=3))
        # the first table is full: it refuses her, and she is at no table again; the
        # second join came while the first was on its way: refused by the lobby
        first, second = await together(ann, P.Join(table_id=full), P.Join(table_id=free))
        refused_by_table, refused_by_lobby = await replies(ann, [first, second])
        assert refused_by_lobby.message == "you are already at a table: leave it first"
        assert isinstance(refused_by_table, P.Error)
        assert refused_by_table.code == "table_full"
        assert tables_of(server, ann) == []
        assert server.lobby.sessions[ann.token].table is None
        # free to go: the second table takes her now
        seated = await ann.request(P.Join(table_id=free))
        assert isinstance(seated, P.Seated) and seated.table.table_id == free
        assert tables_of(server, ann) == [free]
        # two joins at once, the first accepted: the second refused, one table
        accepted, other = await together(eve, P.Join(table_id=free), P.Join(table_id=full))
        seated, again = await replies(eve, [accepted, other])
        assert again.message == "you are already at a table: leave it first"
        assert isinstance(seated, P.Seated)
        assert tables_of(server, eve) == [free] and tables_of(server, ann) == [free]
        # the others: nobody refused, the full table still Bob and Dan
        assert not bob.of_type("error") and not cy.of_type("error") and not dan.of_type("error")
        assert len(server.lobby.tables[full].match.members) == 2
        assert players(server.lobby.tables[free].info()) == ["Cy", "Ann", "Eve"]
        nursery.cancel_scope.cancel()


async def test_an_entry_the_table_refuses_at_once_is_returned_and_unlinks(autojump_clock):
    """``Lobby.enter`` (the ladder queue's way in too) on a table that has closed
    meanwhile: the table's own refusal comes back, and the session is in the lobby."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        bob = await ScriptClient.tcp(port, "Bob")
        ann = await ScriptClient.tcp(port, "Ann")
        gone_id = await seat_players(bob, [], P.TableOptions(seats=2))
        gone = server.lobby.tables[gone_id]
        await bob.request(P.Leave())
        with trio.fail_after(60):
            await gone.wait_closed()
        session = server.lobby.sessions[ann.token]
        refusal = server.lobby.enter(session, gone, P.Join(table_id=gone_id, id=7))
        assert refusal is not None and session.table is None
        error = await ann.expect(lambda m: m.re == 7)
        assert isinstance(error, P.Error) and error.code == "no_such_table"
        cy = await ScriptClient.tcp(port, "Cy")
        cys = await seat_players(cy, [], P.TableOptions(seats=2))
        await ann.expect(lambda m: isinstance(m, P.TableUpdated) and m.table.table_id == cys)
        assert isinstance(await ann.request(P.Join(table_id=cys)), P.Seated)
        assert tables_of(server, ann) == [cys]
        nursery.cancel_scope.cancel()
