"""What a seat cannot see, and deals of it that agree with everything it can.

A searching bot imagines the opponents' hands. ``Unseen.of(view)`` works out
what the view rules out: the seat's own hand, every card seen face up this
round (rows, revealed cards, Draft picks) and, in a Draft round, the exact
hand of every opponent (their picks are public; a card they played shows up
again in ``seen``). ``deal`` then shares the remaining cards at random among
the opponents whose hands are unknown.

>>> from nimmt.engine import Game, Options
>>> game = Game(Options(players=3), seed=4)
>>> unseen = Unseen.of(game.view(0))
>>> hands = unseen.deal(random.Random(1))
>>> [len(h) for h in hands], hands[0] == list(game.view(0).hand)
([10, 10, 10], True)
>>> set(hands[1]) & set(game.view(0).seen)
set()
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from nimmt.engine import Phase, View

__all__ = ["Unseen", "InconsistentView"]


class InconsistentView(ValueError):
    """The view cannot come from a real game (for example, too few unseen cards)."""


@dataclass(frozen=True, slots=True)
class Unseen:
    """The hidden part of a round, from one seat's point of view."""

    seat: int
    players: int
    hand_size: int  # cards in every hand now (all hands are the same size)
    hands: tuple[tuple[int, ...] | None, ...]  # per seat: the hand if known, else None
    pool: tuple[int, ...]  # cards an opponent whose hand is unknown may hold, ascending

    @classmethod
    def of(cls, view: View) -> Unseen:
        """The hidden part of ``view``'s round (a seat's view, in the play of a round)."""
        if view.seat is None:
            raise InconsistentView("a spectator has no hand: nothing to sample for")
        if view.phase is Phase.DRAFT:
            raise InconsistentView("hands are still being picked: sample the draft instead")
        seat, n = view.seat, view.players
        size = len(view.hand)
        hands: list[tuple[int, ...] | None] = [None] * n
        hands[seat] = tuple(view.hand)
        if view.options.draft and view.draft_picks:
            known = _draft_hands(view, size)
            if known is not None:
                hands = [tuple(view.hand) if s == seat else known[s] for s in range(n)]
        ruled_out = set(view.hand).union(view.seen)
        for hand in hands:
            if hand is not None:
                ruled_out.update(hand)
        pool = tuple(c for c in view.options.deck if c not in ruled_out)
        unknown = sum(1 for h in hands if h is None)
        if len(pool) < unknown * size:
            raise InconsistentView(
                f"{unknown} hidden hands of {size} cards need {unknown * size} unseen cards, "
                f"only {len(pool)} are left"
            )
        return cls(seat, n, size, tuple(hands), pool)

    def deal(self, rng: random.Random, shuffled: bool = False) -> list[list[int]]:
        """Every seat's hand, ascending: the known ones as they are, the others
        dealt at random. ``shuffled``: every hand in a random order instead
        (the order a random player would play it in)."""
        unknown = [s for s, h in enumerate(self.hands) if h is None]
        size = self.hand_size
        cards = rng.sample(self.pool, len(unknown) * size) if unknown else []
        hands = [list(h) if h is not None else [] for h in self.hands]
        for i, s in enumerate(unknown):
            hand = cards[i * size : (i + 1) * size]  # a random sample is in random order
            hands[s] = hand if shuffled else sorted(hand)
        if shuffled:
            for s, known in enumerate(self.hands):
                if known is not None:
                    rng.shuffle(hands[s])
        return hands


def _draft_hands(view: View, size: int) -> list[tuple[int, ...]] | None:
    """Each seat's hand in a Draft round: its picks less the cards it played
    (a played card is seen twice: when picked and when revealed). None if the
    view does not add up (then the hands are treated as unknown)."""
    times_seen = Counter(view.seen)
    hands: list[list[int]] = [[] for _ in range(view.players)]
    for picker, card in view.draft_picks:
        if times_seen[card] < 2:
            hands[picker].append(card)
    if any(len(h) != size for h in hands):
        return None
    return [tuple(sorted(h)) for h in hands]
