"""The lobby's side of the ladder: claimed names at ``hello``, who may sit at a
rated table, the ratings of a rated table's finished games, and the leaderboard.
Decisions are made by ``claims.ClaimBook`` and ``ratings.Ladder``; this module
keeps them in the database (``storage.ladder``) when there is one, and in memory
(what the lobby shows is always read from memory: a ``leaderboard`` request or a
table's seats cost no database read).

The leaderboard (``rank_board``): best conservative rating first (``ordinal``,
rounded to 2 decimals; then more games, then the name). A row's trend is the
change of that rating over the name's last ``TREND_GAMES`` rated games, or since
its first one (the model's starting rating, 0) if it has played fewer."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from nimmt import protocol as P

from .claims import Claim, ClaimBook, Verdict, name_key
from .ratings import Ladder, bot_name, ordinal
from .storage import AsyncStore
from .storage.ladder import (
    RatingChange,
    StoredClaim,
    load_claims,
    load_ratings,
    load_recent,
    save_claim,
    save_ratings,
)

__all__ = ["LadderDesk", "BoardRow", "TREND_GAMES", "rated_names", "rank_board", "is_bot"]

#: a row's trend is the rating's change over this many of the name's last rated games
TREND_GAMES: Final = 5
#: the rating of a name before its first rated game (the model's default: 0)
START: Final = Ladder().get("").ordinal

log = logging.getLogger("nimmt.server")


@dataclass(frozen=True, slots=True)
class BoardRow:
    """A line of the leaderboard: ``rating`` and ``trend`` rounded as shown."""

    rank: int
    name: str
    rating: float
    games: int
    trend: float
    bot: bool
    mu: float
    sigma: float


def is_bot(name: str, kind: str | None) -> bool:
    """Whether a rated name is a bot's: a built-in level (``bot:easy``), or a name
    whose last rated game a bot client played."""
    return name.startswith("bot:") or kind in ("bot", "builtin")


def rank_board(entries: Iterable[tuple[str, float, float, float, int, float | None, bool]]
               ) -> list[BoardRow]:
    """The leaderboard, best first, from ``(name, mu, sigma, rating (ordinal), games,
    the rating TREND_GAMES games ago or None: since its first, bot)``."""
    rows = []
    for name, mu, sigma, rating, games, before, bot in entries:
        trend = rating - (START if before is None else before)
        rows.append((round(rating, 2), games, name, round(trend, 2), bot, mu, sigma))
    rows.sort(key=lambda r: (-r[0], -r[1], r[2]))
    return [BoardRow(rank, name, rating, games, trend, bot, mu, sigma)
            for rank, (rating, games, name, trend, bot, mu, sigma) in enumerate(rows, 1)]


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
            out.append(claims.claimed_name(name))  # "ann" plays as the "Ann" who claimed it
        else:
            return None
    return out


class LadderDesk:
    """Claims and ratings of one server."""

    def __init__(self) -> None:
        self.claims = ClaimBook()
        self.ladder = Ladder()
        self.store: AsyncStore | None = None
        #: per rated name, its rating (ordinal) after each of its last TREND_GAMES + 1
        #: rated games, oldest first (for the trend)
        self.recent: dict[str, deque[float]] = {}
        #: per rated name, who played its last rated game ("human", "bot", "builtin")
        self.kinds: dict[str, str | None] = {}
        #: name_key(rated name) -> (rating as shown, games): what the tables show beside
        #: their seats (shared with them, updated in place)
        self.seat_ratings: dict[str, tuple[float, int]] = {}
        self._board: list[BoardRow] | None = None  # the leaderboard, until a game is rated
        self._ranks: dict[str, int] = {}  # name_key -> index in _board
        self._ordinals: dict[str, float] = {}  # rated name -> its rating (unrounded)

    async def load(self, store: AsyncStore) -> None:
        """Bring back the claims and ratings kept in ``store`` (and keep new ones there)."""
        self.store = store
        for c in await store.ladder_read(load_claims):
            self.claims.add(Claim(c.name, c.salt, c.digest, c.at))
        self.ladder = Ladder(await store.ladder_read(load_ratings))
        recent = await store.ladder_read(lambda db: load_recent(db, TREND_GAMES + 1))
        for name in self.ladder.ratings:
            past = recent.get(name)
            if past is not None:
                self.recent[name] = deque((ordinal(*r) for r in past.history),
                                          maxlen=TREND_GAMES + 1)
                self.kinds[name] = past.kind
        self._rated_changed(self.ladder.ratings)
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
        seat_kinds = dict(zip(rated, kinds))
        for c in changes:
            past = self.recent.setdefault(c.name, deque(maxlen=TREND_GAMES + 1))
            past.append(ordinal(c.mu, c.sigma))
            self.kinds[c.name] = seat_kinds.get(c.name)
        self._rated_changed([c.name for c in changes])
        if self.store is not None:
            at = time.time()
            await self.store.ladder_write(lambda db: save_ratings(db, game_id, changes, at))
        return changes

    # ------------------------------------------------------------------ the leaderboard
    def _rated_changed(self, names: Iterable[str]) -> None:
        """The ratings of ``names`` changed: the seats show the new ones, and the board
        is made again when next asked for."""
        self._board = None
        for name in names:
            rating = self.ladder.get(name)
            shown = self._ordinals[name] = rating.ordinal
            self.seat_ratings[name_key(name)] = (round(shown, 2), rating.games)

    def board(self) -> list[BoardRow]:
        """The leaderboard now (made once after each rated game)."""
        if self._board is None:
            recent, kinds, ordinals = self.recent, self.kinds, self._ordinals
            entries = []
            for name, r in self.ladder.ratings.items():
                past = recent.get(name)
                before = past[0] if past is not None and len(past) > TREND_GAMES else None
                entries.append((name, r.mu, r.sigma, ordinals[name], r.games, before,
                                is_bot(name, kinds.get(name))))
            self._board = rank_board(entries)
            self._ranks = {name_key(row.name): i for i, row in enumerate(self._board)}
        return self._board

    def page(self, msg: P.Leaderboard) -> P.LeaderboardPage:
        """The answer to a ``leaderboard`` request."""
        board = self.board()
        offset, found = msg.offset, None
        if msg.name is not None:
            index = self._ranks.get(name_key(msg.name))
            if index is not None:
                found = index + 1
                offset = index - index % msg.limit
        rows = tuple(P.LeaderboardRow(rank=r.rank, name=r.name, rating=r.rating,
                                      games=r.games, trend=r.trend, bot=r.bot)
                     for r in board[offset:offset + msg.limit])
        return P.LeaderboardPage(rows=rows, offset=offset, total=len(board),
                                 trend_games=TREND_GAMES, found=found, re=msg.id)
