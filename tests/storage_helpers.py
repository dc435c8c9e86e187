"""Games played as a server plays them (explicit deals, a strategy per seat, some
commits replaced before the reveal), with the facts a table would store."""

from __future__ import annotations

import random
from collections.abc import Callable

from nimmt.bots import HeuristicStrategy, RandomStrategy
from nimmt.engine import HAND_SIZE, ROWS, AwaitingCommits, AwaitingDeal, Deal, Game, Options
from nimmt.server.storage import Fact, deal_fact, decision_fact, game_started_fact


def random_deal(game: Game, rng: random.Random) -> Deal:
    options = game.options
    if options.draft:
        picked = {card for _, card in game.view(None).draft_picks}
        return Deal(rows=tuple(rng.sample([c for c in options.deck if c not in picked], ROWS)))
    cards = rng.sample(options.deck, options.players * HAND_SIZE + ROWS)
    hands = tuple(tuple(sorted(cards[i * HAND_SIZE:(i + 1) * HAND_SIZE]))
                  for i in range(options.players))
    return Deal(rows=tuple(cards[-ROWS:]), hands=hands)


def play_game(options: Options, seed: int, game_no: int = 1,
              on_fact: Callable[[Fact, Game], None] | None = None) -> tuple[Game, list[Fact]]:
    """Play a whole game; return it and its facts. ``on_fact(fact, game)`` is called
    after each fact has been applied to the game."""
    rng = random.Random(seed)
    strategies = [HeuristicStrategy() if s % 2 == 0 else RandomStrategy(seed + s)
                  for s in range(options.players)]
    game = Game(options)
    facts: list[Fact] = []

    def happened(fact: Fact) -> None:
        facts.append(fact)
        if on_fact is not None:
            on_fact(fact, game)

    happened(game_started_fact(game_no, options))
    while not game.is_over:
        pending = game.pending
        if isinstance(pending, AwaitingDeal):
            deal = random_deal(game, rng)
            game.deal(deal)
            happened(deal_fact(deal))
            continue
        assert pending is not None
        seat = rng.choice(sorted(pending.seats))
        view = game.view(seat)
        if isinstance(pending, AwaitingCommits) and len(pending.waiting) > 1 and rng.random() < 0.2:
            first = game.legal_decisions(seat)[0]  # a commit replaced before the reveal
            game.apply(first)
            happened(decision_fact(first, by="player"))
            view = game.view(seat)
        decision = strategies[seat].decide(view)
        game.apply(decision)
        happened(decision_fact(decision, by="bot" if seat % 2 else "autopilot"))
    return game, facts
