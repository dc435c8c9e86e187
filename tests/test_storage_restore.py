"""A table's game rebuilt from its stored facts is the game that was played, at every step."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from nimmt.engine import Commit, Game, Options
from nimmt.server.storage import (
    Fact,
    FactError,
    GameRebuilder,
    Store,
    decision_fact,
    deal_fact,
    game_started_fact,
    left_fact,
    rebuild_game,
    seat_fact,
)

from engine_helpers import snapshot
from storage_helpers import play_game

VARIANTS = [
    Options(players=4, rounds=2),
    Options(players=2, point_limit=66),
    Options(players=5, draft=True, rounds=1),
    Options(players=3, professional=True, tactic_deck=True, rounds=2),
    Options(players=10, professional=True, rounds=1),
]


@pytest.mark.parametrize("options", VARIANTS, ids=repr)
def test_rebuilt_game_equals_the_original_after_every_fact(options: Options) -> None:
    snapshots: list[tuple] = []
    game, facts = play_game(options, seed=11, on_fact=lambda f, g: snapshots.append(snapshot(g)))
    assert game.is_over
    assert any(f.payload.get("by") == "player" for f in facts)  # commits replaced before a reveal
    rebuilder = GameRebuilder()
    for fact, expected in zip(facts, snapshots, strict=True):
        rebuilder.feed(fact)
        assert rebuilder.game is not None
        assert snapshot(rebuilder.game) == expected  # every seat's view, the spectator's, ...


@pytest.mark.parametrize("seed", range(6))
def test_a_game_stored_and_read_back_after_any_prefix_rebuilds_to_that_point(
    tmp_path: Path, seed: int
) -> None:
    # The server may die after any stored fact: what a new server reads from the
    # file is the game as it was right after that fact.
    options = VARIANTS[seed % len(VARIANTS)]
    snapshots: list[tuple] = []
    _, facts = play_game(options, seed=seed, on_fact=lambda f, g: snapshots.append(snapshot(g)))
    cut = random.Random(seed).randrange(1, len(facts) + 1)
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {"players": options.players}, {})
        for fact in facts[:cut]:
            store.append("t1", [fact])
    with Store.open(path) as store:  # a new process would do the same
        (table,) = store.open_tables()
    assert [f.seq for f in table.facts] == list(range(1, cut + 1))
    assert table.facts == tuple(facts[:cut])
    rebuilt = rebuild_game(table.facts)
    assert rebuilt.game is not None and snapshot(rebuilt.game) == snapshots[cut - 1]
    assert rebuilt.last_seq == cut


def test_only_the_last_game_of_a_table_is_rebuilt_and_left_seats_are_kept() -> None:
    options = Options(players=3, rounds=1)
    first, first_facts = play_game(options, seed=1, game_no=1)
    second = Game(options, seed=2)
    card = second.view(1).hand[4]
    second.apply(Commit(1, card))
    facts = first_facts + [
        Fact("game_over", {"game": 1, "game_id": 1}),
        seat_fact(2, "Cid", "human"),
        game_started_fact(2, options),
        deal_fact(second.history[0]),  # type: ignore[arg-type]
        left_fact(0),
        decision_fact(Commit(1, card)),
    ]
    rebuilt = rebuild_game(facts)
    assert rebuilt.game_no == 2 and rebuilt.left == {0}
    assert rebuilt.game is not None
    assert [rebuilt.game.view(s) for s in range(3)] == [second.view(s) for s in range(3)]


def test_a_fact_the_engine_refuses_is_a_fact_error_naming_it() -> None:
    game = Game(Options(players=2, rounds=1), seed=4)
    facts = [game_started_fact(1, game.options), deal_fact(game.history[0])]  # type: ignore[arg-type]
    not_held = next(c for c in game.options.deck if c not in game.view(0).hand)
    bad = Fact("decision", {"type": "commit", "seat": 0, "card": not_held}, seq=3)
    with pytest.raises(FactError, match=r"seq 3.*not in seat 0's hand"):
        rebuild_game([*facts, bad])
    with pytest.raises(FactError, match="before any game_started"):
        rebuild_game(facts[1:])
    with pytest.raises(FactError, match="unknown fact kind"):
        Fact("chat", {})
