"""Restoring a stored table as a ``Match`` (server/tables/restore.py), without trio: the
cases a SIGKILL can leave behind."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from nimmt import protocol as P
from nimmt.engine import Options
from nimmt.server.config import TableSettings
from nimmt.server.game.io import Reconnected
from nimmt.server.tables.restore import RestoreError, restore_match
from nimmt.server.storage import MEMORY, Fact, Store, hash_token
from storage_helpers import play_game

SETTINGS = TableSettings(seats=3, rounds=2, point_limit=0, step_delay=0.0, turn_time=45.0,
                         grace_time=100.0)
TOKEN = "tok_0123456789abcdefghij"


def stored(facts: list[Fact], watchers: tuple[tuple[str, str], ...] = ()):
    """The table as a restarted server reads it: Ann (a player) and two bots, and
    ``watchers`` (name, token) watching."""
    store = Store.open(MEMORY)
    store.create_table("t4", "Friday", {}, {"table": asdict(SETTINGS), "persistent": False,
                                            "autostart": False})
    store.set_seat("t4", 0, "Ann", "human", token=TOKEN)
    store.set_seat("t4", 1, "Bot-1", "builtin", strategy="heuristic")
    store.set_seat("t4", 2, "Bot-2", "builtin", strategy="random")
    for n, (name, token) in enumerate(watchers):
        store.watch("t4", hash_token(token), name, "spectator", at=100.0 + n)
    store.append("t4", facts)
    (table,) = store.open_tables()
    store.close()
    return table


def test_a_game_in_progress_waits_for_its_player_with_the_full_time_again():
    _, facts = play_game(Options(players=3, rounds=2), seed=5)
    # killed in round 1 after the deal and a replaced commit of Ann's, before the reveal
    cut = facts[:2] + [Fact("decision", {"type": "commit", "seat": 0, "card": c, "by": "player"})
                       for c in (facts[1].payload["hands"][0][0], facts[1].payload["hands"][0][1])]
    match, people = restore_match(stored(cut), now=1000.0, members=[7])
    assert [(p.member, p.seat, p.name, p.token_hash) for p in people] == [
        (7, 0, "Ann", hash_token(TOKEN))]
    assert match.status == "playing" and match.seats[0].away_since == 1000.0
    match.wake(1000.0, 5000.0)
    effects = match.handle(Reconnected(7), 1010.0, 5010.0)
    snapshot = next(m for _, m in effects.sends if isinstance(m, P.Snapshot))
    # her latest commit stands, and the turn has its whole time again from the restart
    assert (snapshot.phase, snapshot.round, snapshot.turn) == ("commit", 1, 1)
    assert snapshot.commit == cut[1].payload["hands"][0][1]
    assert snapshot.remaining == pytest.approx(45.0 - 10.0)


def test_a_game_over_but_not_kept_is_kept_on_the_first_wake():
    game, facts = play_game(Options(players=3, rounds=2), seed=6)
    match, _ = restore_match(stored(facts), now=50.0, members=[1])
    effects = match.wake(50.0, 900.0)
    assert effects.finished is not None and match.status == "over"
    assert effects.finished.record.result.totals == game.totals
    assert [m.TYPE for _, m in effects.sends].count("game_over") == 0  # Ann is away


def test_a_game_kept_is_over_and_a_left_seat_is_free():
    _, facts = play_game(Options(players=3, rounds=2), seed=7)
    facts += [Fact("left", {"seat": 0}), Fact("game_over", {"game": 1, "game_id": 3})]
    match, people = restore_match(stored(facts), now=50.0, members=[1])
    assert match.status == "over" and match.seats[0] is None and people == []
    assert match.wake(50.0, 900.0).finished is None


def test_facts_the_rules_refuse_are_a_restore_error_naming_the_table():
    _, facts = play_game(Options(players=3, rounds=2), seed=8)
    bad = facts[:3] + [Fact("decision", {"type": "commit", "seat": 0, "card": 105})]
    with pytest.raises(RestoreError, match="table t4"):
        restore_match(stored(bad), now=0.0, members=[1])


def test_spectators_watch_again_away_and_leave_after_the_grace():
    _, facts = play_game(Options(players=3, rounds=2), seed=5)
    sue = "tok_sue_456789abcdefghij"
    # Ann's own token among the watchers: she watched, then sat down; her seat counts
    match, people = restore_match(stored(facts[:2], (("Sue", sue), ("Ann", TOKEN))),
                                  now=1000.0, members=[7, 8, 9])
    assert [(p.member, p.seat, p.name, p.token_hash) for p in people] == [
        (7, 0, "Ann", hash_token(TOKEN)), (8, None, "Sue", hash_token(sue))]
    match.spectator_grace = 60.0
    assert match.wake(1000.0, 5000.0).released == []
    assert match.wake(1060.0, 5060.0).released == [8]  # never came back: removed
