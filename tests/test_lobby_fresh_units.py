"""Behaviours of ``server/lobby`` a fresh sample of mutants (issue 43, session 25, seed
25) showed nothing pinned: one address's share of tables counts its players waiting in
the ladder queue, and a finished game of a rated table is rated. On the real ``Lobby``
with stand-in connections, on a mock clock (tests/test_lobby_units.py's helpers)."""

from __future__ import annotations

from types import SimpleNamespace

from nimmt import protocol as P
from nimmt.engine import Options, record_from_game
from nimmt.server.lobby.lobby import Lobby

from storage_helpers import play_game
from test_lobby_units import arrive, create, leave, run


def test_an_address_s_open_tables_and_its_players_in_the_ladder_queue_count_together():
    """With at most 2 tables an address: Ann's open table and Bob waiting in the ladder
    queue (from her address) are 2: Ann may not open another; Cy from elsewhere may."""
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, "Ann")
        lobby.request(ann, create())
        leave(lobby, ann)
        assert lobby.creation_refused(ann.session, by_session=False) == ""
        bob = arrive(lobby, "Bob")
        bob.session.claimed = True
        lobby.request(bob, P.Queue(seats=3, id=4))
        assert [m.TYPE for m in bob.sent] == ["queued"]
        assert lobby.creation_refused(ann.session, by_session=False) == (
            "1 tables caused from your address are open and 1 of its players wait in the "
            "ladder queue (at most 2 in all, ladder tables included): join a table, or "
            "wait until one closes")
        cy = arrive(lobby, "Cy", "10.0.0.9")
        assert lobby.creation_refused(cy.session, by_session=False) == ""

    run(test, tables_per_session=5, tables_per_address=2)


def test_a_finished_game_of_a_rated_table_rates_its_seats_by_their_places():
    """Two built-in bots (rated by their level's name): each one's first rated game,
    at the place it took."""
    game, _ = play_game(Options(players=2, rounds=1), 7)
    record = record_from_game(game, seats=["Hal", "Ran"])
    table = SimpleNamespace(id="t1", seats=[SimpleNamespace(strategy="heuristic"),
                                            SimpleNamespace(strategy="random")])
    done = SimpleNamespace(record=record, kinds=("builtin", "builtin"))
    changes: list = []

    async def test(lobby: Lobby) -> None:
        changes.extend(lobby.rate_game(table, done))  # type: ignore[arg-type]

    run(test)
    assert sorted((c.name, c.place, c.games) for c in changes) == sorted([
        ("bot:heuristic", game.result.places[0], 1), ("bot:random", game.result.places[1], 1)])
