"""Careful rollouts on the copy-free loop: the plain method with its costliest
mistakes taken out of this seat's later cards and of the opponents read careful.

A *careful* card is a random card that takes no row now (it goes on a row of
fewer than five cards), or, when every card takes a row, the one whose row
costs least (``rollout.careful_index``). ``CarefulTable`` deals a world as the
plain method does (every hand in a random order), draws which opponents play
carefully in it (each with its own chance), and works out once what every
candidate meets: the plays of the other seats, per turn, sorted. Each
candidate is then played on it with this seat's later cards, and the drawn
seats' cards, careful; every candidate draws the same random numbers (drawn
once a world: seeding a generator for each candidate would cost a fifth of a
rollout).
``play_careful_sorted`` gives exactly ``play_careful_first``'s result on the
same hands and random numbers (the tests check it), at a fraction of its cost.

>>> from nimmt.engine import Game, Options
>>> view = Game(Options(players=4), seed=3).view(0)
>>> table = CarefulTable(view, [(1, 1.0), (2, 0.0), (3, 0.0)])
>>> world = table.world(random.Random(1))
>>> len(table.penalties(view.hand[0], world)) == 4
True
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Callable, Sequence

from nimmt.engine import View
from nimmt.engine.fast import place_sorted_turn

from .rollout import SortedRows, careful_index, others_by_turn, safe_runs
from .sampling import Unseen

__all__ = [
    "CarefulTable",
    "CarefulWorld",
    "play_careful_sorted",
    "PrefixTable",
    "PrefixWorld",
    "play_careful_prefix",
]

#: Per sampled world: the others' in-order plays per turn (sorted), each drawn
#: careful seat with its hand (ascending), this seat's hand, and the random
#: numbers the careful choices draw from (enough for every one).
CarefulWorld = tuple[list[list[tuple[int, int]]], list[tuple[int, list[int]]], list[int], list[float]]


class CarefulTable:
    """A card to commit under base rules, this seat's later cards careful and
    each opponent careful with the chance ``chances`` gives it (the others
    play the world's random order)."""

    def __init__(self, view: View, chances: Sequence[tuple[int, float]], depth: int = 10) -> None:
        assert view.seat is not None
        self.seat = view.seat
        self.players = view.players
        self.unseen = Unseen.of(view)
        self.start = SortedRows.of(view.rows)
        self.turns = min(len(view.hand), 1 + depth)
        self.chances = [(s, p) for s, p in chances if s != view.seat]

    def world(self, rng: random.Random) -> CarefulWorld:
        hands = self.unseen.deal(rng, shuffled=True)
        drawn = {s for s, p in self.chances if rng.random() < p}
        me, turns = self.seat, self.turns
        in_order = [s for s in range(self.players) if s != me and s not in drawn]
        others = []
        for t in range(turns):
            plays = [(hands[s][t], s) for s in in_order]
            plays.sort()
            others.append(plays)
        pools = [(s, sorted(hands[s])) for s in sorted(drawn)]
        rand = rng.random
        draws = [rand() for _ in range(turns * (1 + len(pools)))]
        return others, pools, hands[me], draws

    def penalties(self, card: int, world: CarefulWorld) -> list[int]:
        """Bullheads per seat from now if this seat commits ``card``."""
        others, pools, own, draws = world
        return play_careful_sorted(self.start, others, pools, own, self.seat, card, self.turns,
                                   iter(draws).__next__)


def play_careful_sorted(start: SortedRows, others: Sequence[Sequence[tuple[int, int]]],
                        pools: Sequence[tuple[int, Sequence[int]]], own: Sequence[int], seat: int,
                        card: int, turns: int, rand: Callable[[], float]) -> list[int]:
    """``seat`` plays ``card`` now and a careful card of the rest of ``own``
    each later turn; each seat of ``pools`` a careful card of its hand every
    turn, drawn in the order of ``pools`` after ``seat``'s; the others the
    plays ``others`` gives per turn. The bullheads each seat took (nothing
    passed in is changed)."""
    lasts = list(start.lasts)
    lengths = list(start.lengths)
    heads = list(start.heads)
    numbers = list(start.numbers)
    penalties = [0] * (len(others[0]) + len(pools) + 1)
    hands = [(seat, sorted(c for c in own if c != card))]
    hands += [(s, list(h)) for s, h in pools]
    for t in range(turns):
        plays = list(others[t])
        for s, hand in hands:
            if t == 0 and s == seat:
                plays.append((card, s))
                continue
            # the cards above row j's last card and below the next row's go on row j
            h = len(hand)
            i0, i1, i2 = bisect(hand, lasts[0]), bisect(hand, lasts[1]), bisect(hand, lasts[2])
            i3 = bisect(hand, lasts[3])
            ends = ((i0, i1), (i1, i2), (i2, i3), (i3, h))
            total = 0
            for j in 0, 1, 2, 3:
                if lengths[j] < 5:
                    total += ends[j][1] - ends[j][0]
            if total:
                k = int(rand() * total)
                for j in 0, 1, 2, 3:
                    if lengths[j] < 5:
                        low, high = ends[j]
                        if k < high - low:
                            plays.append((hand.pop(low + k), s))
                            break
                        k -= high - low
                continue
            cheapest = min(heads)
            l0 = lasts[0]
            best, best_cost = 0, 1 << 30
            for k, c in enumerate(hand):
                cost = cheapest if c < l0 else heads[bisect(lasts, c) - 1]
                if cost < best_cost:
                    best, best_cost = k, cost
            plays.append((hand.pop(best), s))
        place_sorted_turn(plays, lasts, lengths, heads, numbers, penalties)
    return penalties


#: Per sampled world: the others' plays per turn (sorted), this seat's hand in
#: a random order, and the random numbers its careful choices draw from.
PrefixWorld = tuple[list[list[tuple[int, int]]], list[int], list[float]]


class PrefixTable:
    """The plain method with careful choices only where they cost next to nothing.

    ``world`` deals every hand in a random order, as the plain method does,
    then lets each opponent that ``chances`` draws careful for the deal
    commit a careful card *this* turn (the rows are known: one choice a deal,
    shared by every candidate), its later cards in the deal's order.
    ``penalties`` plays a candidate with this seat's next ``own_turns`` cards
    careful, the rest of its hand in the deal's order: a few careful choices
    a rollout rather than one every turn for every careful seat
    (``CarefulTable``)."""

    def __init__(self, view: View, chances: Sequence[tuple[int, float]], own_turns: int,
                 depth: int = 10) -> None:
        assert view.seat is not None
        self.seat = view.seat
        self.unseen = Unseen.of(view)
        self.start = SortedRows.of(view.rows)
        self.turns = min(len(view.hand), 1 + depth)
        self.own_turns = min(own_turns, self.turns - 1)
        self.chances = [(s, p) for s, p in chances if s != view.seat and p > 0]
        start = self.start
        self._runs = safe_runs(start.lasts, start.lengths)

    def world(self, rng: random.Random) -> PrefixWorld:
        hands = self.unseen.deal(rng, shuffled=True)
        start = self.start
        for s, p in self.chances:
            if rng.random() < p:
                hand = hands[s]
                pool = sorted(hand)
                card = pool[careful_index(pool, self._runs, start.lasts, start.heads, rng.random)]
                hand.remove(card)
                hand.insert(0, card)
        rand = rng.random
        draws = [rand() for _ in range(self.own_turns)]
        return others_by_turn(hands, self.seat, self.turns), hands[self.seat], draws

    def penalties(self, card: int, world: PrefixWorld) -> list[int]:
        """Bullheads per seat from now if this seat commits ``card``."""
        others, own, draws = world
        return play_careful_prefix(self.start, others, own, self.seat, card, self.turns, draws)


def play_careful_prefix(start: SortedRows, others: Sequence[Sequence[tuple[int, int]]],
                        own: Sequence[int], seat: int, card: int, turns: int,
                        draws: Sequence[float]) -> list[int]:
    """``rollout.play_first`` where ``seat``'s cards after ``card`` are careful
    for ``len(draws)`` turns (``careful_index``, at most one draw each), then the rest
    of ``own`` in its order. The bullheads each seat took (nothing passed in
    is changed)."""
    lasts = list(start.lasts)
    lengths = list(start.lengths)
    heads = list(start.heads)
    numbers = list(start.numbers)
    penalties = [0] * (len(others[0]) + 1)
    rest = [c for c in own if c != card]
    pool = sorted(rest)
    careful_turns = len(draws)
    rand = iter(draws).__next__  # a choice that takes a row draws nothing
    for t in range(turns):
        if t == 0:
            mine = card
        elif t <= careful_turns:
            mine = pool.pop(careful_index(pool, safe_runs(lasts, lengths), lasts, heads, rand))
            rest.remove(mine)
        else:
            mine = rest[t - 1 - careful_turns]
        place_sorted_turn([*others[t], (mine, seat)], lasts, lengths, heads, numbers, penalties)
    return penalties
