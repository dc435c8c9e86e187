"""A process that plays games through a Store the way a server would, to be killed.

    python storage_crash_child.py DB GAMES

On start it brings back every open table (rebuilding its game from the stored
facts) and plays it on; then it opens new tables until GAMES games are kept as
finished. Each decision is applied to the game, then appended to the store,
then announced on stdout ("fact SEQ"), as a server sends effects only after the
fact is on disk. Deals and decisions depend only on the table and the game's
state, so a game continued after a kill is still a valid game.
"""

from __future__ import annotations

import random
import sys

from nimmt.bots import HeuristicStrategy
from nimmt.engine import AwaitingDeal, Game, Options, record_from_game
from nimmt.server.storage import (
    Store,
    deal_fact,
    decision_fact,
    game_started_fact,
    options_from,
    rebuild_game,
)

from storage_helpers import random_deal

OPTIONS = Options(players=3, rounds=1)
NAMES = ["Ann", "Bob", "Cid"]


def play_on(store: Store, table_id: str, game: Game, started: float) -> None:
    strategy = HeuristicStrategy()
    while not game.is_over:
        pending = game.pending
        assert pending is not None
        rng = random.Random(f"{table_id}/{len(game.history)}")
        if isinstance(pending, AwaitingDeal):
            deal = random_deal(game, rng)
            game.deal(deal)
            fact = deal_fact(deal)
        else:
            decision = strategy.decide(game.view(rng.choice(sorted(pending.seats))))
            game.apply(decision)
            fact = decision_fact(decision, by="bot")
        (stored,) = store.append(table_id, [fact])
        print(f"fact {table_id} {stored.seq}", flush=True)
    record = record_from_game(game, seats=NAMES)
    store.finish_game(table_id, "crash test", 1, record, ["builtin"] * 3, started)
    store.close_table(table_id)
    print(f"finished {table_id}", flush=True)


def main(path: str, games: int) -> None:
    store = Store.open(path)
    for table in store.open_tables():
        rebuilt = rebuild_game(table.facts)
        if rebuilt.kept_as is not None:  # killed after keeping the game, before closing
            store.close_table(table.id)
            continue
        game = rebuilt.game
        if game is None:
            game = Game(options_from(table.options))
            store.append(table.id, [game_started_fact(1, game.options)])
        play_on(store, table.id, game, table.created)
    while len(store.games()) < games:
        table_id = store.next_table_id()
        store.create_table(table_id, "crash test", {"players": 3, "rounds": 1}, {})
        game = Game(OPTIONS)
        store.append(table_id, [game_started_fact(1, OPTIONS)])
        play_on(store, table_id, game, 0.0)
    store.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
