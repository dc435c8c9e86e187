"""Cards, bullheads and decks.

>>> bullheads(55), bullheads(11), bullheads(10), bullheads(15), bullheads(7)
(7, 5, 3, 2, 1)
>>> sum(bullheads(c) for c in FULL_DECK)
171
>>> deck_for(players=3, tactic_deck=True)[-1]
34
"""

from __future__ import annotations

__all__ = ["BULLHEADS", "FULL_DECK", "HIGHEST_CARD", "bullheads", "deck_for", "row_bullheads"]

HIGHEST_CARD = 104


def _bullheads_of(card: int) -> int:
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


#: ``BULLHEADS[card]`` for cards 1..104; index 0 is unused (0).
BULLHEADS: tuple[int, ...] = (0,) + tuple(_bullheads_of(c) for c in range(1, HIGHEST_CARD + 1))

FULL_DECK: tuple[int, ...] = tuple(range(1, HIGHEST_CARD + 1))


def bullheads(card: int) -> int:
    """The penalty points printed on ``card`` (1..104)."""
    if not 1 <= card <= HIGHEST_CARD:
        raise ValueError(f"no card {card!r}: cards are numbered 1 to {HIGHEST_CARD}")
    return BULLHEADS[card]


def row_bullheads(cards: tuple[int, ...] | list[int]) -> int:
    """The bullheads of a row or pile of cards."""
    return sum(BULLHEADS[c] for c in cards)


def deck_for(players: int, tactic_deck: bool = False) -> tuple[int, ...]:
    """The cards in use: all 104, or 1..10*players+4 with the Tactic deck."""
    if tactic_deck:
        return tuple(range(1, min(HIGHEST_CARD, 10 * players + 4) + 1))
    return FULL_DECK
