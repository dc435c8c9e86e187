"""The fast path: resolve turns on plain lists, for search and simulation.

No events, views, validation or copies: the caller owns the lists and must
pass legal input (distinct cards, 4 non-empty ascending rows). The rules are
the same as ``Game``'s; the tests check both give the same rows and penalties.

>>> rows = [[12], [37], [43], [58]]
>>> penalties = [0, 0, 0, 0]
>>> resolve_turn(rows, [(14, 0), (15, 1), (44, 2), (61, 3)], penalties)
>>> rows
[[12, 14, 15], [37], [43, 44], [58, 61]]
>>> resolve_turn(rows, [(3, 0), (9, 1), (68, 2), (93, 3)], penalties)
>>> rows, penalties
([[12, 14, 15], [3, 9], [43, 44], [58, 61, 68, 93]], [1, 0, 0, 0])
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Callable, Sequence

from .cards import BULLHEADS, FULL_DECK

__all__ = [
    "place_sorted_turn",
    "RowChooser",
    "TieChooser",
    "cheapest_row_index",
    "first_tied",
    "resolve_turn",
    "play_out",
    "CardChooser",
    "random_round",
]

RowChooser = Callable[[list[list[int]], int, int], int]
"""``choose(rows, card, seat) -> row index``: which row a card that fits none takes."""

TieChooser = Callable[[list[list[int]], int, int, list[tuple[int, bool]]], tuple[int, bool]]
"""``choose(rows, card, seat, places) -> place``; a place is ``(row, at_left)``."""

CardChooser = Callable[[list[list[int]], list[list[int]]], list[int]]
"""``choose(rows, hands) -> cards``: the card each seat commits this turn (one per hand)."""

_B = BULLHEADS


def cheapest_row_index(rows: list[list[int]], card: int, seat: int) -> int:
    """RULES.md's default: fewest bullheads, lowest row number on a tie."""
    best, best_cost = 0, 1 << 30
    for index, row in enumerate(rows):
        cost = 0
        for c in row:
            cost += _B[c]
        if cost < best_cost:
            best, best_cost = index, cost
    return best


def first_tied(rows: list[list[int]], card: int, seat: int, places: list[tuple[int, bool]]) -> tuple[int, bool]:
    """RULES.md's default: the first tied place in row order."""
    return min(places)


def resolve_turn(
    rows: list[list[int]],
    plays: Sequence[tuple[int, int]],
    penalties: list[int],
    professional: bool = False,
    choose_row: RowChooser = cheapest_row_index,
    choose_tie: TieChooser = first_tied,
) -> None:
    """Place ``plays`` (``(card, seat)`` pairs, any order) into ``rows``, adding
    the bullheads each seat takes to ``penalties``. Mutates both lists."""
    if professional:
        _resolve_professional(rows, sorted(plays), penalties, choose_row, choose_tie)
        return
    for card, seat in sorted(plays):
        target = None
        best_last = 0
        for row in rows:
            last = row[-1]
            if best_last < last < card:
                best_last = last
                target = row
        if target is None:
            index = choose_row(rows, card, seat)
            taken = rows[index]
            heads = 0
            for c in taken:
                heads += _B[c]
            penalties[seat] += heads
            rows[index] = [card]
        elif len(target) == 5:
            heads = 0
            for c in target:
                heads += _B[c]
            penalties[seat] += heads
            target[:] = (card,)
        else:
            target.append(card)


def _resolve_professional(
    rows: list[list[int]],
    plays: list[tuple[int, int]],
    penalties: list[int],
    choose_row: RowChooser,
    choose_tie: TieChooser,
) -> None:
    for card, seat in plays:
        best_diff = 1000
        places: list[tuple[int, bool]] = []
        for index, row in enumerate(rows):
            last = row[-1]
            if card > last:
                diff = card - last
                at_left = False
            elif card < row[0]:
                diff = row[0] - card
                at_left = True
            else:
                continue
            if diff < best_diff:
                best_diff = diff
                places = [(index, at_left)]
            elif diff == best_diff:
                places.append((index, at_left))
        if not places:
            index = choose_row(rows, card, seat)
            penalties[seat] += sum(_B[c] for c in rows[index])
            rows[index] = [card]
            continue
        index, at_left = places[0] if len(places) == 1 else choose_tie(rows, card, seat, places)
        row = rows[index]
        if len(row) == 5:
            penalties[seat] += sum(_B[c] for c in row)
            rows[index] = [card]
        elif at_left:
            row.insert(0, card)
        else:
            row.append(card)


def play_out(
    rows: list[list[int]],
    hands: list[list[int]],
    penalties: list[int],
    choose_cards: CardChooser,
    professional: bool = False,
    choose_row: RowChooser = cheapest_row_index,
    choose_tie: TieChooser = first_tied,
) -> None:
    """Play the turns left in ``hands`` (all the same size): each turn every
    seat commits the card ``choose_cards`` names for it, then the turn is
    resolved as ``resolve_turn`` does. Mutates ``rows``, ``hands`` and
    ``penalties``; the round's end (scoring) is the caller's.

    >>> rows, hands, penalties = [[12], [37], [43], [58]], [[3, 14], [44, 61]], [0, 0]
    >>> play_out(rows, hands, penalties, lambda rows, hands: [h[0] for h in hands])
    >>> rows, hands, penalties
    ([[3, 14], [37], [43, 44], [58, 61]], [[], []], [1, 0])
    """
    while hands[0]:
        cards = choose_cards(rows, hands)
        for hand, card in zip(hands, cards):
            hand.remove(card)
        resolve_turn(rows, list(zip(cards, range(len(hands)))), penalties, professional,
                     choose_row, choose_tie)


def random_round(
    rng: random.Random,
    players: int,
    professional: bool = False,
    deck: Sequence[int] = FULL_DECK,
) -> list[int]:
    """Deal and play one round with every card chosen at random; return the
    bullheads each seat took (a row that a card fits nowhere takes is chosen
    by RULES.md's default). Hands are dealt in random order and played in
    that order, which is a uniformly random choice of card each turn."""
    cards = rng.sample(deck, players * 10 + 4)
    if professional:
        rows = [[cards[-4]], [cards[-3]], [cards[-2]], [cards[-1]]]
        penalties = [0] * players
        for turn in range(10):
            resolve_turn(rows, list(zip(cards[turn : players * 10 : 10], range(players))), penalties, True)
        return penalties
    return _random_round_base(cards, players)


def place_sorted_turn(plays: list[tuple[int, int]], lasts: list[int], lengths: list[int],
                      heads: list[int], row_numbers: list[int], penalties: list[int]) -> None:
    """Place one base-game turn's ``(card, seat)`` plays, lowest card first, on rows
    kept sorted by their last card: ``lasts``, with each row's length, bullheads
    and number (for ties: the cheapest row with the lowest number is taken by a
    card below every row, which then starts the front row). Updates the lists and
    ``penalties`` in place; sorts ``plays``."""
    plays.sort()
    for card, seat in plays:
        i = bisect(lasts, card) - 1
        if i >= 0:
            if lengths[i] == 5:
                penalties[seat] += heads[i]
                lengths[i] = 1
                heads[i] = _B[card]
            else:
                lengths[i] += 1
                heads[i] += _B[card]
            lasts[i] = card
        else:
            cheapest = min(heads)
            i = min((n, j) for j, n in enumerate(row_numbers) if heads[j] == cheapest)[1]
            penalties[seat] += cheapest
            number = row_numbers[i]
            del lasts[i], lengths[i], heads[i], row_numbers[i]
            lasts.insert(0, card)
            lengths.insert(0, 1)
            heads.insert(0, _B[card])
            row_numbers.insert(0, number)


def _random_round_base(cards: list[int], players: int) -> list[int]:
    # Rows kept sorted by their last card: a card goes to the row just before
    # its bisect position, and placing it keeps the order (it is below the
    # next row's last card). Only a row taken by a too-low card moves: to the
    # front. Per row we keep its last card, its length and its bullheads.
    starts = sorted(zip(cards[-4:], range(4)))
    lasts = [card for card, _ in starts]
    row_numbers = [number for _, number in starts]
    lengths = [1, 1, 1, 1]
    heads = [_B[c] for c in lasts]
    penalties = [0] * players
    seats = range(players)
    for turn in range(10):
        place_sorted_turn(list(zip(cards[turn : players * 10 : 10], seats)), lasts, lengths,
                          heads, row_numbers, penalties)
    return penalties
