"""The timed strategies use the time they are given, up to a small margin, and
``mcs`` scores every candidate on the same deals (issue 25)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from nimmt.bots import MonteCarloStrategy, SearchStrategy
from nimmt.bots.mcs import RandomTable
from nimmt.bots.montecarlo import MARGIN_MS, deadline_after
from nimmt.engine import Game, Options


class StepClock:
    """A clock that moves on ``step`` seconds each time it is read, like a
    machine whose every simulation takes a moment; it never sleeps."""

    def __init__(self, step: float) -> None:
        self.now = 1000.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _first_commit(players: int = 4, seed: int = 3) -> Game:
    return Game(Options(players=players, rounds=1), seed=seed)


def test_the_deadline_keeps_back_only_the_margin() -> None:
    assert deadline_after(10.0, 100) == pytest.approx(10.0 + (100 - MARGIN_MS) / 1000)
    assert MARGIN_MS <= 2.0  # 98% of a 100 ms budget, not 85% as before
    assert deadline_after(10.0, 2) == pytest.approx(10.001)  # a tiny budget: half of it


@pytest.mark.parametrize("spec", ["mcs", "search"])
def test_a_timed_decision_samples_until_the_margin_not_earlier(spec: str) -> None:
    """With a clock that moves 20 microseconds a read, a 100 ms decision stops
    sampling within a few steps of the budget less the margin: it neither
    gives up a fifth of its time nor runs past the budget."""
    bot = MonteCarloStrategy(seed=1, ms=100) if spec == "mcs" else SearchStrategy(seed=1, ms=100)
    clock = bot.clock = StepClock(20e-6)
    game = _first_commit()
    begin = clock.now
    decision = bot.decide(game.view(0))
    assert decision in game.legal_decisions(0)
    used = clock.now - begin
    assert 0.100 - MARGIN_MS / 1000 - 0.002 <= used <= 0.100


def test_mcs_scores_every_candidate_on_the_same_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seven deals for ten candidate cards: every deal scores every card."""
    worlds: dict[int, set[int]] = defaultdict(set)
    kept = []  # keeps every world alive, so that no two share an id
    penalties = RandomTable.penalties

    def spy(self: RandomTable, decision, world):  # noqa: ANN001, ANN202
        kept.append(world)
        worlds[id(world)].add(decision.card)
        return penalties(self, decision, world)

    monkeypatch.setattr(RandomTable, "penalties", spy)
    game = _first_commit()
    MonteCarloStrategy(seed=2, samples=7).decide(game.view(0))
    hand = set(game.view(0).hand)
    assert len(worlds) == 7
    assert all(cards == hand for cards in worlds.values())


def test_a_random_tables_candidates_meet_the_same_cards() -> None:
    """Scoring a candidate draws nothing at random: the same deal gives the
    same result each time, so the candidates differ by their own card only."""
    import random

    view = _first_commit(players=5, seed=8).view(2)
    table = RandomTable(view)
    world = table.world(random.Random(4))
    for decision in table.candidates(view):
        assert table.penalties(decision, world) == table.penalties(decision, world)
    # the opponents' first cards are the same whatever this seat plays
    hands, others = world
    assert [c for c, _ in others[0]] == sorted(h[0] for s, h in enumerate(hands) if s != 2)


def test_search_at_a_careless_table_is_the_plain_method() -> None:
    """Before any card is seen every seat is thought random: ``search`` then
    plays ``mcs``'s own method (the same deals from the same seed, the same
    choice), so it can do no worse than the plain method there."""
    for seed in range(4):
        view = _first_commit(players=4, seed=seed).view(1)
        search = SearchStrategy(seed=seed, samples=30, ms=60_000)
        mcs = MonteCarloStrategy(seed=seed, samples=30)
        assert search.decide(view) == mcs.decide(view)


def test_at_a_sensible_table_the_opponents_play_the_models_card_this_turn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``later=0`` (the default): in every sampled deal each opponent commits
    this turn the card the model expects (``mix=0,noise=0``: the heuristic's
    card of its hand, every time), and every candidate meets those cards."""
    import random

    from nimmt.bots.rollout import heuristic_chooser

    seen: dict[int, tuple[list, set[int]]] = {}
    penalties = RandomTable.penalties

    def spy(self: RandomTable, decision, world):  # noqa: ANN001, ANN202
        seen.setdefault(id(world), (world, set()))[1].add(decision.card)
        return penalties(self, decision, world)

    monkeypatch.setattr(RandomTable, "penalties", spy)
    view = _first_commit(players=4, seed=11).view(2)
    SearchStrategy(seed=3, samples=12, ms=60_000, mix=0.0, noise=0.0).decide(view)
    assert len(seen) == 12
    rows = [list(r) for r in view.rows]
    choose = heuristic_chooser(random.Random(0), 0.0, 0.0)
    for (hands, others), cards in seen.values():
        assert cards == set(view.hand)
        expected = choose(rows, [sorted(h) for h in hands])
        assert sorted(others[0]) == sorted((expected[s], s) for s in range(4) if s != 2)
