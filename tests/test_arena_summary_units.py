"""``nimmt-arena``'s report from games made by hand: the win share (a shared first
place split), the mean bullheads a round, and the time a decision, exactly."""

from __future__ import annotations

import pytest

from nimmt.bots.arena import ArenaConfig, PlayedGame, summarize
from nimmt.engine import Options


def test_wins_are_shared_and_the_means_are_exact() -> None:
    config = ArenaConfig(("a", "b"), 2, Options(players=2, point_limit=None, rounds=2))
    games = [
        PlayedGame(0, 0, ("a", "b"), ((3, 5), (1, 0)), (0,), (10, 10), (0.5, 1.0), (0.1, 0.2)),
        PlayedGame(0, 1, ("b", "a"), ((2, 2), (0, 0)), (0, 1), (10, 10), (1.0, 0.5), (0.3, 0.05)),
        PlayedGame(1, 0, ("a", "b"), ((9, 1), (9, 1)), (1,), (10, 10), (0.5, 1.0), (0.1, 0.2)),
        PlayedGame(1, 1, ("b", "a"), ((4, 0), (4, 0)), (1,), (10, 10), (1.0, 0.5), (0.1, 0.1)),
    ]
    report = summarize(config, games, jobs=1, seconds=1.0)
    a, b = (next(s for s in report.strategies if s.strategy == name) for name in "ab")
    assert (a.win_share, b.win_share) == (pytest.approx(2.5 / 4), pytest.approx(1.5 / 4))
    # a took 3+1, 2+0, 9+9, 0+0 in its 8 rounds; b 5+0, 2+0, 1+1, 4+4
    assert (a.bullheads_per_round, b.bullheads_per_round) == (3.0, 17 / 8)
    assert (a.decisions, a.mean_ms, a.worst_ms) == (40, 50.0, 100.0)
    assert (b.mean_ms, b.worst_ms) == (100.0, 300.0)
