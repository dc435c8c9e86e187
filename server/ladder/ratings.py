"""Ratings: OpenSkill's Plackett-Luce model over the results of rated games.

Why OpenSkill (the ``openskill`` package): it is made for free-for-all games of
any number of players (a nimmt table seats 2 to 10), handles shared places as
ties, is maintained, MIT-licensed, pure Python, and updates a game in
microseconds. Each seat is a team of one; its ``rank`` is its place (1 = best,
equal places are ties). A rating is ``mu`` and ``sigma``; what people see is the
conservative ``ordinal`` (``mu - 3 sigma``, the library's) with the games count.

Built-in bots are rated under a fixed name per strategy (``bot:easy``,
``bot:hard``, ...). Two seats with one name in a game (two easy bots) each play
from that name's rating; the name then takes the mean of their new ratings and
counts one game. Sans-IO: the lobby loads the ratings at start, asks
:meth:`Ladder.rate` after a rated game (``outcome`` alone changes nothing) and the
table saves what it returns with the game, in one transaction (``Store.finish_game``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from ..storage.ladder import RatingChange, StoredRating

__all__ = ["Ladder", "Rating", "bot_name", "ordinal", "withheld_last"]

_MODEL = PlackettLuce()


def bot_name(strategy: str) -> str:
    """The name a built-in bot is rated under: ``bot:`` and its strategy's name."""
    return "bot:" + strategy.partition(":")[0].strip()


def withheld_last(places: Sequence[int], withheld: Sequence[int]) -> list[int]:
    """The places a rated game is rated by: a seat that withheld its reveal (it could
    choose between two deals, docs/PROTOCOL.md "Verifiable deals") is rated as if it
    finished below every seat that did not, whatever its bullheads; the others keep
    their places.

    >>> withheld_last([1, 2, 3], [0])
    [4, 2, 3]
    >>> withheld_last([2, 1, 2, 4], [1, 3])
    [2, 5, 2, 5]
    """
    below = len(places) + 1
    return [below if seat in withheld else place for seat, place in enumerate(places)]


def ordinal(mu: float, sigma: float) -> float:
    """The one number shown: the library's conservative estimate (mu - 3 sigma)."""
    return float(_MODEL.rating(mu=mu, sigma=sigma).ordinal())


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)


class Ladder:
    """Every rated name's rating (a new name starts at the model's default)."""

    def __init__(self, stored: Sequence[StoredRating] = ()) -> None:
        self.ratings: dict[str, Rating] = {r.name: Rating(r.mu, r.sigma, r.games)
                                           for r in stored}

    def get(self, name: str) -> Rating:
        rating = self.ratings.get(name)
        if rating is None:
            fresh = _MODEL.rating()
            rating = Rating(fresh.mu, fresh.sigma, 0)
        return rating

    def outcome(self, names: Sequence[str], places: Sequence[int]) -> list[RatingChange]:
        """The new ratings after a game where seat ``i`` went by ``names[i]`` and
        finished in ``places[i]``, one per name (nothing changes until ``apply``)."""
        if len(names) != len(places) or len(names) < 2:
            raise ValueError("a rated game needs a name and a place for each of 2+ seats")
        teams = [[_MODEL.rating(mu=self.get(n).mu, sigma=self.get(n).sigma, name=n)]
                 for n in names]
        new = _MODEL.rate(teams, ranks=[float(p) for p in places])
        by_name: dict[str, list[tuple[float, float, int]]] = {}
        for name, [r], place in zip(names, new, places):
            by_name.setdefault(name, []).append((r.mu, r.sigma, place))
        changes = []
        for name, results in by_name.items():
            mu = sum(r[0] for r in results) / len(results)
            sigma = sum(r[1] for r in results) / len(results)
            changes.append(RatingChange(name, mu, sigma, self.get(name).games + 1,
                                        min(r[2] for r in results)))
        return changes

    def apply(self, changes: Sequence[RatingChange]) -> None:
        """Make ``changes`` (an ``outcome``) the ratings now."""
        for c in changes:
            self.ratings[c.name] = Rating(c.mu, c.sigma, c.games)

    def rate(self, names: Sequence[str], places: Sequence[int]) -> list[RatingChange]:
        """``outcome`` and ``apply`` it: the new ratings, one per name."""
        changes = self.outcome(names, places)
        self.apply(changes)
        return changes
