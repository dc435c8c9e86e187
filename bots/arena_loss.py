"""``nimmt-arena --expected-loss``: where a bot loses, not only how much.

After a game, the coach's analysis (``nimmt.bots.analysis``, docs/ANALYSIS.md)
goes through every decision of every seat, from that seat's view at the time,
with ``samples`` deals a choice at first (its own search, a seed derived from
the arena's: reproducible), and keeps the loss of each decision that had a
choice: the expected bullheads it gave away against the best choice. A
decision without a choice (a round's last card) is left out: it can lose
nothing and would only thin the average. Draft picks are not analysed (the
analysis says why); they are counted apart.

The analysis runs where the game was played (a worker process, or a Dask
worker with ``--cluster``), so it spreads over the same cores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nimmt.engine import Game, record_from_game

from .analysis import analyse

__all__ = ["DEFAULT_SAMPLES", "GameLosses", "game_losses"]

#: Deals a choice at first when ``--expected-loss`` gives no number: measured,
#: about 1.3 s a seat-round (4 players) on one core, the loss of each decision
#: then refined to about +-0.25 bullheads as the analysis does.
DEFAULT_SAMPLES = 100


@dataclass(frozen=True, slots=True)
class GameLosses:
    """One game's analysis, per seat."""

    losses: tuple[tuple[float, ...], ...]  # the loss of each decision that had a choice
    not_analysed: tuple[int, ...]  # Draft picks


def game_losses(game: Game, specs: Sequence[str], samples: int, seed: int) -> GameLosses:
    """Every seat of ``game`` analysed (``samples`` deals a choice at first, ``seed``)."""
    analysis = analyse(record_from_game(game, list(specs)), samples=samples, seed=seed)
    losses = tuple(tuple(d.loss for r in s.rounds for d in r.decisions if len(d.options) > 1)
                   for s in analysis.seats)
    picks = tuple(sum(len(r.not_analysed) for r in s.rounds) for s in analysis.seats)
    return GameLosses(losses, picks)

