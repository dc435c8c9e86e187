"""Simulating the rest of a round from a decision: what Monte Carlo bots share.

A ``Situation`` is taken once from a ``View``; ``Situation.outcome`` plays one
candidate decision in one imagined deal of the hidden hands to the end of the
round on the engine's fast path, and returns the bullheads every seat took
this round. Policies (who plays which card in the imagined future) are
``CardChooser`` functions from ``nimmt.engine.fast``: ``random_chooser`` or
``heuristic_chooser`` (the built-in heuristic's idea, fast and noisy).
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from nimmt.engine import BULLHEADS, ChooseRow, ChooseTie, Commit, Decision, End, Phase, View
from nimmt.engine.fast import CardChooser, place_sorted_turn, play_out, resolve_turn

__all__ = [
    "Situation",
    "Finisher",
    "random_chooser",
    "heuristic_chooser",
    "random_finisher",
    "heuristic_finisher",
    "heuristic_play_out",
    "in_order_finisher",
    "play_in_order",
    "SortedRows",
    "play_sequences",
    "play_card_first",
    "others_by_turn",
    "play_first",
    "safe_runs",
    "careful_index",
    "play_careful_first",
    "DraftSituation",
    "draft_order",
    "draft_key",
]

_B = BULLHEADS

Finisher = Callable[[list[list[int]], list[list[int]], list[int]], None]
"""``finish(rows, hands, penalties)``: play the turns left in ``hands`` (mutating all three)."""


def random_finisher(rng: random.Random, professional: bool) -> Finisher:
    """Every seat plays random cards to the round's end."""
    chooser = random_chooser(rng)

    def finish(rows: list[list[int]], hands: list[list[int]], penalties: list[int]) -> None:
        play_out(rows, hands, penalties, chooser, professional)

    return finish


def heuristic_finisher(
    rng: random.Random, noise: float, mixes: Sequence[float], professional: bool, turns: int = 10
) -> Finisher:
    """Every seat plays ``heuristic_chooser``'s cards to the round's end (or for
    ``turns`` turns, base rules only)."""
    if professional:
        chooser = heuristic_chooser(rng, noise, mixes, True)

        def finish(rows: list[list[int]], hands: list[list[int]], penalties: list[int]) -> None:
            play_out(rows, hands, penalties, chooser, True)

        return finish

    def finish_base(rows: list[list[int]], hands: list[list[int]], penalties: list[int]) -> None:
        heuristic_play_out(rows, hands, penalties, rng, noise, mixes, turns)

    return finish_base


def random_chooser(rng: random.Random) -> CardChooser:
    """Every seat plays a card of its hand uniformly at random."""
    choice = rng.choice

    def choose(rows: list[list[int]], hands: list[list[int]]) -> list[int]:
        return [choice(hand) for hand in hands]

    return choose


def heuristic_chooser(
    rng: random.Random,
    noise: float = 1.0,
    p_random: float | Sequence[float] = 0.0,
    professional: bool = False,
) -> CardChooser:
    """Every seat plays the card least likely to take a row now (a sixth card
    or a card that fits nowhere costs about that row's bullheads; a fuller row
    and a wider gap cost a little), plus uniform noise of ``noise`` bullheads;
    with probability ``p_random`` (one for all, or one per seat) a seat plays
    a random card instead. Hands must be in ascending order (``play_out``
    keeps them so)."""
    rand = rng.random
    choice = rng.choice
    mixes = [p_random] * 10 if isinstance(p_random, int | float) else list(p_random)
    if professional:
        return _professional_heuristic(rand, choice, noise, mixes)

    def choose(rows: list[list[int]], hands: list[list[int]]) -> list[int]:
        # rows by their last card: a card goes to the row just below its bisect point
        ordered = sorted(rows, key=_last)
        lasts = [r[-1] for r in ordered]
        base = []
        slope = []
        low = 1000.0
        for r in ordered:
            heads = 0
            for c in r:
                heads += _B[c]
            if heads < low:
                low = heads
            n = len(r)
            if n == 5:
                base.append(heads + 0.5)
                slope.append(0.0)
            else:
                base.append(n * n * heads * 0.02)
                slope.append(0.005)
        low += 0.5
        l0 = lasts[0]
        out = []
        for seat, hand in enumerate(hands):  # ascending
            h = len(hand)
            if h == 1 or rand() < mixes[seat]:
                out.append(choice(hand))
                continue
            # Cards between the same two row ends differ only by the gap: the
            # lowest of them is the heuristic's pick, so look at 5 cards at most.
            if hand[0] < l0:
                best, best_cost = hand[0], low + rand() * noise
            else:
                best, best_cost = hand[0], 1e9
            for j in range(4):
                i = bisect(hand, lasts[j])
                if i < h:
                    c = hand[i]
                    if j == 3 or c < lasts[j + 1]:
                        cost = base[j] + (c - lasts[j]) * slope[j] + rand() * noise
                        if cost < best_cost:
                            best, best_cost = c, cost
            out.append(best)
        return out

    return choose


def _last(row: list[int]) -> int:
    return row[-1]


def _professional_heuristic(
    rand: Callable[[], float], choice: Callable[[list[int]], int], noise: float, mixes: list[float]
) -> CardChooser:
    def choose(rows: list[list[int]], hands: list[list[int]]) -> list[int]:
        lasts = [r[-1] for r in rows]
        firsts = [r[0] for r in rows]
        lens = [len(r) for r in rows]
        heads = [sum(_B[c] for c in r) for r in rows]
        low = min(heads) + 0.5
        fill = [lens[i] * lens[i] * heads[i] * 0.02 for i in range(4)]
        out = []
        for seat, hand in enumerate(hands):
            if len(hand) == 1 or rand() < mixes[seat]:
                out.append(choice(hand))
                continue
            best, best_cost = hand[0], 1e9
            for c in hand:
                target, gap = -1, 1000
                for i in range(4):
                    d = c - lasts[i]
                    if d < 0:
                        d = firsts[i] - c
                    if 0 < d < gap:
                        target, gap = i, d
                if target < 0:
                    cost = low
                elif lens[target] == 5:
                    cost = heads[target] + 0.5
                else:
                    cost = fill[target] + gap * 0.005
                cost += rand() * noise
                if cost < best_cost:
                    best, best_cost = c, cost
            out.append(best)
        return out

    return choose


@dataclass(frozen=True, slots=True)
class Situation:
    """A decision point of one seat, in plain lists, ready to be simulated."""

    seat: int
    players: int
    professional: bool
    phase: Phase
    rows: tuple[tuple[int, ...], ...]
    card: int  # ROW_CHOICE / TIE_CHOICE: the seat's card being placed; else 0
    later: tuple[tuple[int, int], ...]  # (card, seat) revealed this turn, still to place after it

    @classmethod
    def of(cls, view: View) -> Situation:
        assert view.seat is not None
        card = 0
        later: tuple[tuple[int, int], ...] = ()
        if view.phase in (Phase.ROW_CHOICE, Phase.TIE_CHOICE):
            card = view.unresolved[0][1]
            later = tuple((c, s) for s, c in view.unresolved[1:])
        return cls(view.seat, view.players, view.options.professional, view.phase, view.rows,
                   card, later)

    def outcome(
        self,
        decision: Decision,
        hands: list[list[int]],
        first_cards: Sequence[int] | None,
        finish: Finisher,
    ) -> list[int]:
        """Bullheads per seat from now to the round's end if this seat decides
        ``decision``. ``hands``: every seat's hand (not modified).
        ``first_cards``: COMMIT only, the card each seat commits this turn
        (this seat's entry is replaced by the decision's card)."""
        rows = [list(r) for r in self.rows]
        hands = [list(h) for h in hands]
        penalties = [0] * self.players
        me = self.seat
        if isinstance(decision, Commit):
            assert first_cards is not None
            plays = []
            for s, hand in enumerate(hands):
                card = decision.card if s == me else first_cards[s]
                hand.remove(card)
                plays.append((card, s))
            resolve_turn(rows, plays, penalties, self.professional)
        else:
            if isinstance(decision, ChooseRow):
                index, at_left = decision.row, False
                penalties[me] += sum(_B[c] for c in rows[index])
                rows[index] = [self.card]
            elif isinstance(decision, ChooseTie):
                index, at_left = decision.place.row, decision.place.end is End.LEFT
                row = rows[index]
                if len(row) == 5:
                    penalties[me] += sum(_B[c] for c in row)
                    rows[index] = [self.card]
                elif at_left:
                    row.insert(0, self.card)
                else:
                    row.append(self.card)
            else:
                raise TypeError(f"cannot simulate {decision!r} here")
            if self.later:
                resolve_turn(rows, self.later, penalties, self.professional)
        finish(rows, hands, penalties)
        return penalties


def draft_order(players: int, round: int) -> list[int]:
    """Who picks each card of a Draft round, in order (RULES.md: the first picker
    moves one seat on each round)."""
    first = (round - 1) % players
    return [(first + i) % players for i in range(players * 10)]


def draft_key(deck_size: int) -> Callable[[int], tuple[int, float]]:
    """The heuristic's Draft preference: fewest bullheads, middle cards first."""
    middle = (deck_size + 1) / 2
    return lambda c: (_B[c], abs(c - middle))


@dataclass(frozen=True, slots=True)
class DraftSituation:
    """A Draft pick of one seat, ready to be simulated to the round's end."""

    seat: int
    players: int
    professional: bool
    pool: tuple[int, ...]  # still to pick, in the heuristic's order of preference
    hands: tuple[tuple[int, ...], ...]  # per seat, the cards picked so far
    pickers: tuple[int, ...]  # who picks after this pick, in order

    @classmethod
    def of(cls, view: View) -> DraftSituation:
        assert view.seat is not None
        n = view.players
        hands: list[list[int]] = [[] for _ in range(n)]
        for picker, card in view.draft_picks:
            hands[picker].append(card)
        order = draft_order(n, view.round)
        pool = tuple(sorted(view.draft_pool, key=draft_key(len(view.options.deck))))
        return cls(view.seat, n, view.options.professional, pool,
                   tuple(tuple(h) for h in hands), tuple(order[len(view.draft_picks) + 1 :]))

    def outcome(
        self, card: int, rng: random.Random, finish: Finisher, skip: float | None
    ) -> list[int]:
        """Bullheads per seat this round if this seat picks ``card``. The other
        picks follow the heuristic's preference, each next-best card taken
        with probability ``skip`` over the one before; ``skip=None``: at random."""
        pool = list(self.pool)
        pool.remove(card)
        hands = [list(h) for h in self.hands]
        hands[self.seat].append(card)
        rand = rng.random
        for picker in self.pickers:
            if skip is None:
                i = rng.randrange(len(pool))
            else:
                i, last = 0, len(pool) - 1
                while i < last and rand() < skip:
                    i += 1
            hands[picker].append(pool.pop(i))
        rows = [[c] for c in rng.sample(pool, 4)]
        for hand in hands:
            hand.sort()
        penalties = [0] * self.players
        finish(rows, hands, penalties)
        return penalties


def heuristic_play_out(
    rows: list[list[int]],
    hands: list[list[int]],
    penalties: list[int],
    rng: random.Random,
    noise: float,
    mixes: Sequence[float],
    turns: int = 10,
) -> None:
    """``play_out`` with ``heuristic_chooser`` for every seat, base rules only,
    about twice as fast: rows are kept as (last card, length, bullheads) in
    the order of their last cards, as ``nimmt.engine.fast.random_round`` does,
    and the choice and the resolution share them. ``hands`` ascending (emptied,
    or played ``turns`` turns only); ``rows`` is left as it was. The tests
    check it against ``play_out``."""
    rand = rng.random
    starts = sorted(range(4), key=lambda i: rows[i][-1])
    lasts = [rows[i][-1] for i in starts]
    numbers = list(starts)
    lens = [len(rows[i]) for i in starts]
    heads = [sum(_B[c] for c in rows[i]) for i in starts]
    seats = range(len(hands))
    while hands[0] and turns > 0:
        turns -= 1
        base = None
        plays = []
        for seat in seats:
            hand = hands[seat]
            h = len(hand)
            if h == 1 or rand() < mixes[seat]:
                plays.append((hand.pop(int(rand() * h)), seat))
                continue
            if base is None:  # the turn's row costs, once, if a seat plays sensibly
                lowcost = min(heads) + 0.5
                l0 = lasts[0]
                base = [(heads[j] + 0.5) if lens[j] == 5 else lens[j] * lens[j] * heads[j] * 0.02
                        for j in range(4)]
            # always five noise draws, whatever the rows: the candidates of a
            # decision share a rollout seed, and a stream that stays in step
            # gives every seat the same luck under each candidate
            noises = (rand() * noise, rand() * noise, rand() * noise, rand() * noise,
                      rand() * noise)
            best, best_cost = 0, 1e9
            if hand[0] < l0:
                best_cost = lowcost + noises[4]
            for j in range(4):
                i = bisect(hand, lasts[j])
                if i < h:
                    c = hand[i]
                    if j == 3 or c < lasts[j + 1]:
                        if lens[j] == 5:
                            cost = base[j] + noises[j]
                        else:
                            cost = base[j] + (c - lasts[j]) * 0.005 + noises[j]
                        if cost < best_cost:
                            best, best_cost = i, cost
            plays.append((hand.pop(best), seat))
        place_sorted_turn(plays, lasts, lens, heads, numbers, penalties)


def in_order_finisher(professional: bool, turns: int = 10) -> Finisher:
    """Every seat plays its hand in the order given (``hands`` not sorted): for
    random players, hands dealt in a random order are random play, and a
    search can fix that order once per sampled world, so that every
    candidate meets exactly the same opponent cards (``play_in_order``)."""

    def finish(rows: list[list[int]], hands: list[list[int]], penalties: list[int]) -> None:
        if professional:
            left = min(turns, len(hands[0]))
            for t in range(left):
                resolve_turn(rows, [(hand[t], s) for s, hand in enumerate(hands)], penalties, True)
            for hand in hands:
                del hand[:left]
        else:
            play_in_order(rows, hands, penalties, turns)

    return finish


def play_in_order(
    rows: list[list[int]], hands: list[list[int]], penalties: list[int], turns: int = 10
) -> None:
    """Base rules: each turn every seat plays the next card of its hand (in the
    hand's order), resolved as ``resolve_turn`` does, on the row summary that
    ``heuristic_play_out`` uses. ``rows`` is left as it was; the cards played
    are removed from ``hands``."""
    left = min(turns, len(hands[0]))
    for seat, taken in enumerate(play_sequences(SortedRows.of(rows), hands, left)):
        penalties[seat] += taken
    for hand in hands:
        del hand[:left]


@dataclass(frozen=True, slots=True)
class SortedRows:
    """Base-rule rows as the fast loops keep them: ordered by their last card,
    with each row's length, bullheads and number (``place_sorted_turn``)."""

    lasts: tuple[int, ...]
    lengths: tuple[int, ...]
    heads: tuple[int, ...]
    numbers: tuple[int, ...]

    @classmethod
    def of(cls, rows: Sequence[Sequence[int]]) -> SortedRows:
        starts = sorted(range(4), key=lambda i: rows[i][-1])
        return cls(tuple(rows[i][-1] for i in starts), tuple(len(rows[i]) for i in starts),
                   tuple(sum(_B[c] for c in rows[i]) for i in starts), tuple(starts))


def play_sequences(start: SortedRows, sequences: Sequence[Sequence[int]], turns: int) -> list[int]:
    """Base rules, from the rows ``start``: at turn ``t`` every seat plays
    ``sequences[seat][t]``, for ``turns`` turns. The bullheads each seat took
    (``sequences`` is not changed): a searching bot scores every candidate
    card on the same sequences of the others without copying them."""
    lasts = list(start.lasts)
    lengths = list(start.lengths)
    heads = list(start.heads)
    numbers = list(start.numbers)
    penalties = [0] * len(sequences)
    seats = range(len(sequences))
    for t in range(turns):
        place_sorted_turn([(sequences[s][t], s) for s in seats], lasts, lengths, heads, numbers,
                          penalties)
    return penalties


def play_card_first(start: SortedRows, hands: Sequence[Sequence[int]], seat: int, card: int,
                    turns: int) -> list[int]:
    """``play_sequences`` where ``seat`` plays ``card`` now and then the rest of
    its hand in the hand's order: a candidate card to commit at a table whose
    hands are dealt in a random order. ``hands`` is not changed."""
    return play_first(start, others_by_turn(hands, seat, turns), hands[seat], seat, card, turns)


def others_by_turn(hands: Sequence[Sequence[int]], seat: int, turns: int) -> list[list[tuple[int, int]]]:
    """Per turn ``t``, the ``(card, seat)`` plays of every seat but ``seat``
    when each plays ``hands[s][t]``, lowest card first: what every candidate of
    ``seat`` meets in one sampled deal, worked out once (``play_first``)."""
    out = []
    for t in range(turns):
        plays = [(hand[t], s) for s, hand in enumerate(hands) if s != seat]
        plays.sort()
        out.append(plays)
    return out


def play_first(start: SortedRows, others: Sequence[Sequence[tuple[int, int]]], own: Sequence[int],
               seat: int, card: int, turns: int) -> list[int]:
    """``play_card_first`` on the others' plays already sorted by turn
    (``others_by_turn``): ``seat`` plays ``card`` now, then the rest of ``own``
    in its order. The bullheads each seat took."""
    lasts = list(start.lasts)
    lengths = list(start.lengths)
    heads = list(start.heads)
    numbers = list(start.numbers)
    penalties = [0] * (len(others[0]) + 1)  # turns >= 1: every seat plays at turn 0
    sequence = [card]
    sequence += [c for c in own if c != card]
    for t in range(turns):
        plays = [*others[t], (sequence[t], seat)]  # place_sorted_turn sorts them
        place_sorted_turn(plays, lasts, lengths, heads, numbers, penalties)
    return penalties


def safe_runs(lasts: Sequence[int], lengths: Sequence[int]) -> list[tuple[int, int]]:
    """On rows kept as ``SortedRows`` keeps them, the ranges of cards that take
    no row now, ``(low, high)``: a card above ``low`` and below ``high`` goes
    on a row of fewer than five cards (next rows that are both short make one
    range)."""
    runs = []
    i = 0
    while i < 4:
        if lengths[i] < 5:
            j = i + 1
            while j < 4 and lengths[j] < 5:
                j += 1
            runs.append((lasts[i], lasts[j] if j < 4 else 1 << 30))
            i = j
        i += 1
    return runs


def careful_index(pool: Sequence[int], runs: Sequence[tuple[int, int]], lasts: Sequence[int],
                  heads: Sequence[int], rand: Callable[[], float]) -> int:
    """Where in ``pool`` (ascending) a careful player's card is, on rows kept
    as ``SortedRows`` keeps them (``runs``: their ``safe_runs``): a card that
    takes no row now, each such card as likely (one ``rand()`` draw); if every
    card takes a row, the one whose row costs least (the first of equals).
    Random play with its costliest mistakes taken out: how ``search`` imagines
    its own later cards and those of seats that play well
    (``OpponentModel.careful_of``)."""
    spans = []
    total = 0
    for low, high in runs:
        first = bisect(pool, low)
        end = bisect(pool, high, first)
        if end > first:
            spans.append((first, end))
            total += end - first
    if total:
        k = int(rand() * total)
        for first, end in spans:
            if k < end - first:
                return first + k
            k -= end - first
    cheapest = min(heads)
    l0 = lasts[0]
    costs = [cheapest if c < l0 else heads[bisect(lasts, c) - 1] for c in pool]
    return costs.index(min(costs))


def play_careful_first(start: SortedRows, hands: Sequence[Sequence[int]], seat: int, card: int,
                       turns: int, careful: Collection[int], rng: random.Random) -> list[int]:
    """``play_card_first`` where the seats in ``careful`` (``seat`` may be one)
    play a careful card (``careful_index``) from their hands each turn, drawn
    with ``rng``, and the others their hands in the hand's order. ``seat``
    plays ``card`` now. The bullheads each seat took; ``hands`` is not changed."""
    lasts = list(start.lasts)
    lengths = list(start.lengths)
    heads = list(start.heads)
    numbers = list(start.numbers)
    penalties = [0] * len(hands)
    sequences = list(hands)
    sequences[seat] = [card, *(c for c in hands[seat] if c != card)]
    pools = [(s, sorted(sequences[s][1:] if s == seat else sequences[s])) for s in careful]
    in_order = [s for s in range(len(hands)) if s not in careful]
    rand = rng.random
    for t in range(turns):
        plays = [(sequences[s][t], s) for s in in_order]
        runs = safe_runs(lasts, lengths)
        for s, pool in pools:
            if t == 0 and s == seat:
                plays.append((card, s))
            else:
                plays.append((pool.pop(careful_index(pool, runs, lasts, heads, rand)), s))
        place_sorted_turn(plays, lasts, lengths, heads, numbers, penalties)
    return penalties
