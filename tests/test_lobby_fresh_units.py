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


def test_the_restart_s_log_line_counts_player_seats_in_the_singular_and_the_plural(
        caplog) -> None:
    """One player seat waiting; none (bots only) is "0 player seats"."""
    import logging
    from dataclasses import asdict

    from nimmt.server.config import TableSettings
    from nimmt.server.storage import MEMORY, AsyncStore, Store, hash_token

    astore = AsyncStore(Store.open(MEMORY))
    settings = {"table": asdict(TableSettings(seats=2)), "persistent": False,
                "autostart": False}
    store = astore.store
    store.create_table("t1", "One", {}, settings)
    store.set_seat("t1", 0, "Ann", "human", token="tok_0123456789abcdefghij")
    store.set_seat("t1", 1, "Bot-1", "builtin", strategy="random")
    store.create_table("t2", "None", {}, settings)
    store.set_seat("t2", 0, "Bot-1", "builtin", strategy="random")
    store.set_seat("t2", 1, "Bot-2", "builtin", strategy="random")
    store.watch("t2", hash_token("tok_abcdefghij0123456789"), "Eve", "spectator", at=1.0)

    async def test(lobby: Lobby) -> None:
        lobby.store = astore
        with caplog.at_level(logging.INFO, logger="nimmt.server"):
            await lobby.restore()

    run(test)
    said = sorted(r.getMessage() for r in caplog.records if " restored: " in r.getMessage())
    assert said == ["table=t1 restored: waiting, 1 player seat waiting",
                    "table=t2 restored: waiting, 0 player seats waiting, 1 spectator"]


def test_a_name_whose_unclaimed_session_expires_this_very_second_may_be_claimed():
    """Ann (unclaimed) drops at 0: with a grace of 60 s her session is forgotten at 60.0
    exactly, and a claim of her name then is taken; a second before, it is refused."""
    import trio

    from nimmt.server.ladder.claims import new_key

    from test_welcome_units import Link as WLink
    from test_welcome_units import hello
    from test_welcome_units import run as wrun

    async def test(lobby: Lobby) -> None:
        link = WLink(1)
        session = lobby.hello(link, hello("Ann"))
        lobby.disconnected(link)  # lost at 0
        await trio.sleep(59.0)
        early = WLink(2)
        lobby.hello(early, hello("Ann", key=new_key()))
        assert [m.TYPE for m in early.sent] == ["error"]
        await trio.sleep(1.0)  # 60.0: her grace is over at this very second
        late = WLink(3)
        lobby.hello(late, hello("Ann", key=new_key()))
        assert [(m.TYPE, getattr(m, "claimed", None)) for m in late.sent] == [("welcome", True)]
        assert session.token not in lobby.sessions

    wrun(test, reconnect_grace=60.0)
