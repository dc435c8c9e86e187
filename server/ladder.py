"""The lobby's side of the ladder: claimed names at ``hello``, who may sit at a
rated table, and the ratings of a rated table's finished games. Decisions are
made by ``claims.ClaimBook`` and ``ratings.Ladder``; this module keeps them in
the database (``storage.ladder``) when there is one, in memory otherwise."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from .claims import Claim, ClaimBook, Verdict, name_key
from .ratings import Ladder, bot_name
from .storage import AsyncStore
from .storage.ladder import (
    RatingChange,
    StoredClaim,
    load_claims,
    load_ratings,
    save_claim,
    save_ratings,
)

__all__ = ["LadderDesk", "rated_names"]

log = logging.getLogger("nimmt.server")


def rated_names(names: Sequence[str], kinds: Sequence[str], strategies: Sequence[str | None],
                claims: ClaimBook) -> list[str] | None:
    """The name each seat of a finished game is rated under (a built-in bot: its
    strategy's ``bot:`` name), or None if a player's name is not claimed (then the
    game is not rated)."""
    out = []
    for name, kind, strategy in zip(names, kinds, strategies):
        if kind == "builtin":
            out.append(bot_name(strategy or "heuristic"))
        elif claims.is_claimed(name):
            out.append(name)
        else:
            return None
    return out


class LadderDesk:
    """Claims and ratings of one server."""

    def __init__(self) -> None:
        self.claims = ClaimBook()
        self.ladder = Ladder()
        self.store: AsyncStore | None = None

    async def load(self, store: AsyncStore) -> None:
        """Bring back the claims and ratings kept in ``store`` (and keep new ones there)."""
        self.store = store
        for c in await store.ladder_read(load_claims):
            self.claims.add(Claim(c.name, c.salt, c.digest, c.at))
        self.ladder = Ladder(await store.ladder_read(load_ratings))
        log.info("ladder: %d claimed names, %d rated", len(self.claims),
                 len(self.ladder.ratings))

    def hello(self, name: str, key: str | None, in_use: bool,
              nursery: Any) -> Verdict:
        """The verdict on a ``hello``; a new claim is saved (in the background)."""
        verdict = self.claims.check(name, key, time.time(), in_use)
        if verdict.new is not None and self.store is not None:
            new = verdict.new
            stored = StoredClaim(new.name, new.salt, new.digest, new.at)
            nursery.start_soon(self.store.ladder_write,
                               lambda db: save_claim(db, name_key(new.name), stored))
        if verdict.new is not None:
            log.info("ladder: the name %r is claimed", verdict.new.name)
        return verdict

    async def game_finished(self, names: Sequence[str], places: Sequence[int],
                            kinds: Sequence[str], strategies: Sequence[str | None],
                            game_id: int | None) -> list[RatingChange]:
        """Rate a finished game of a rated table; return and save the changes (none if
        a player's name was not claimed)."""
        rated = rated_names(names, kinds, strategies, self.claims)
        if rated is None:
            log.info("ladder: a game of a rated table is not rated: a name is not claimed")
            return []
        changes = self.ladder.rate(rated, places)
        if self.store is not None:
            at = time.time()
            await self.store.ladder_write(lambda db: save_ratings(db, game_id, changes, at))
        return changes
