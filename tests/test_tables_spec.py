"""The table actor (server/tables) statement by statement, as docs/SERVER.md ("Table
actors", "The ordering rule", "The path of one commit", "Storage": a restart) and the
docstrings of server/tables/*.py say it, each checked by hand on the real ``Lobby`` and
``Table`` with links in memory (issue 43). What tests/test_table_actor*.py,
test_table_effects_units.py, test_tables_fresh_units.py, test_table_held.py and
test_restore*.py pin already is not repeated here."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.engine import Options
from nimmt.server.config import TableSettings
from nimmt.server.sessions.session import Session
from nimmt.server.storage import Fact, StoredSeat, hash_token
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
