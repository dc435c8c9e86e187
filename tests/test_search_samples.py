"""``search:samples=N`` is reproducible: no clock stops it, however slow the
machine, and an arena run on a Dask cluster equals the local run (issue 42)."""

from __future__ import annotations

import json

import distributed  # the cluster extra, in the test extra too

from nimmt.bots import HeuristicStrategy, RandomStrategy, SearchStrategy
from nimmt.bots.arena import main as arena_main
from nimmt.engine import Decision, Game, Options


class JumpingClock:
    """A machine slowed down on purpose: every read of the clock is a second later."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def _decisions(search: SearchStrategy) -> list[Decision]:
    """Every decision ``search`` makes in seat 0 of a 4-player game of two rounds."""
    game = Game(Options(players=4, rounds=2), seed=21)
    others = [HeuristicStrategy(), RandomStrategy(5), HeuristicStrategy()]
    made = []
    while not game.is_over:
        for seat in sorted(game.pending.seats):
            view = game.view(seat)
            if seat == 0:
                decision = search.decide(view)
                made.append(decision)
            else:
                decision = others[seat - 1].decide(view)
            game.apply(decision)
    return made


def test_a_sample_count_decides_the_same_on_a_machine_slowed_down() -> None:
    normal = _decisions(SearchStrategy(seed=4, samples=12))
    slow = SearchStrategy(seed=4, samples=12)  # ms=100 by default: 100 ms pass at every read
    slow.clock = JumpingClock()
    assert _decisions(slow) == normal
    assert len(normal) >= 20


def test_the_cluster_plays_search_with_a_sample_count_as_the_local_run(capsys) -> None:
    """A budget of 1 ms would cut every decision short, by how fast the core it got
    happened to be: with ``samples`` it is not read, so the cluster's two worker
    processes play the very games of the local run."""
    argv = ["--seats", "search:samples=15,ms=1,mix=0.5,heuristic,random",
            "--players", "3", "--rounds", "12", "--json", "--quiet"]

    def figures() -> list:
        out, _ = capsys.readouterr()
        return [(s["strategy"], s["bullheads_per_round"], s["ci95"], s["decisions"])
                for s in json.loads(out)["strategies"]]

    assert arena_main([*argv, "--jobs", "1"]) == 0
    local = figures()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        assert arena_main([*argv, "--cluster", cluster.scheduler_address]) == 0
    assert figures() == local
