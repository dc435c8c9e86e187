"""The lobby's side of the ladder: claimed names at ``hello``, who may sit at a
rated table, the ratings of a rated table's finished games, and the leaderboard.
Decisions are made by ``claims.ClaimBook`` and ``ratings.Ladder``; this module
keeps them in the database (``storage.ladder``) when there is one, and in memory
(what the lobby shows is always read from memory: a ``leaderboard`` request or a
table's seats cost no database read). A finished game's ratings are worked out
here (``rate``) and written by its table with the game, in one transaction; at
start (``load``) a game kept without them by an older version is rated, once.

The leaderboard (``board_key``): best conservative rating first (``ordinal``,
rounded to 2 decimals; then more games, then the name): the lobby keeps it sorted
as games are rated (a request never sorts), ``nimmt-replay --ladder`` sorts it
once (``rank_board``). A row's trend is the change of that rating over the name's
last ``TREND_GAMES`` rated games, or since its first one (the model's starting
rating, 0) if it has played fewer."""

from __future__ import annotations

import logging
import time
from bisect import bisect_left, insort
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from nimmt import protocol as P

from .claims import Claim, ClaimBook, Verdict, name_key
from .names import skeleton
from .ratings import Ladder, bot_name, ordinal
from ..storage import AsyncStore
from ..storage.ladder import (
    RatingChange,
    StoredClaim,
    load_claims,
    load_ratings,
    load_recent,
    save_claim,
    save_ratings,
    save_ratings_once,
    unrated_games,
)

__all__ = ["LadderDesk", "BoardRow", "TREND_GAMES", "rated_names", "rank_board", "board_key",
           "trend_of", "is_bot"]

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


def board_key(name: str, rating: float, games: int) -> tuple[float, int, str]:
    """Where a name stands: higher rating (as shown) first, then more games, then
    the name."""
    return (-round(rating, 2), -games, name)


def trend_of(rating: float, before: float | None) -> float:
    """The trend shown: the change since ``before`` (None: since the start)."""
    return round(rating - (START if before is None else before), 2)


def rank_board(entries: Iterable[tuple[str, float, float, float, int, float | None, bool]]
               ) -> list[BoardRow]:
    """The leaderboard, best first, from ``(name, mu, sigma, rating (ordinal), games,
    the rating TREND_GAMES games ago or None: since its first, bot)``."""
    rows = sorted(entries, key=lambda e: board_key(e[0], e[3], e[4]))
    return [BoardRow(rank, name, round(rating, 2), games, trend_of(rating, before), bot,
                     mu, sigma)
            for rank, (name, mu, sigma, rating, games, before, bot) in enumerate(rows, 1)]


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
        #: the leaderboard: every rated name's ``board_key``, best first (kept sorted
        #: as games are rated: a page or a search never sorts)
        self._order: list[tuple[float, int, str]] = []
        self._keys: dict[str, tuple[float, int, str]] = {}  # rated name -> its key
        self._names: dict[str, str] = {}  # name_key -> the rated name
        self._ordinals: dict[str, float] = {}  # rated name -> its rating (unrounded)
        #: claims counted in memory whose write is not known to be on disk (storage
        #: failed), by the claimed name's skeleton
        self._unsaved: dict[str, Claim] = {}

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
        await self._rate_missed(store)
        log.info("ladder: %d claimed names, %d rated", len(self.claims),
                 len(self.ladder.ratings))

    def hello(self, name: str, key: str | None, in_use: bool) -> Verdict:
        """The verdict on a ``hello``; a new claim (``verdict.new``) counts from now on
        and is to be kept with ``keep_claim`` before the client hears of it."""
        verdict = self.claims.check(name, key, time.time(), in_use)
        if verdict.new is not None:
            log.info("ladder: the name %r is claimed", verdict.new.name)
        return verdict

    def unsaved(self, name: str) -> Claim | None:
        """The claim of ``name`` if it is counted but not known to be on disk."""
        return self._unsaved.get(skeleton(name)) if self._unsaved else None

    async def keep_claim(self, claim: Claim) -> bool:
        """Write a claim to the database (no wait without one): whether it is on disk.
        A welcome that says ``claimed`` is sent only after this said True, so a
        ``kill -9`` cannot take it back. While storage fails the claim stays counted
        in memory (nobody else may claim the name, the key holder is welcomed as
        claimed once a later try of this write succeeds); the write is handed in
        again at each try (it is the same row: ``INSERT OR REPLACE``)."""
        store = self.store
        if store is None:
            return True
        stored = StoredClaim(claim.name, claim.salt, claim.digest, claim.at)
        write = store.writes().ladder_write(
            lambda db: save_claim(db, name_key(claim.name), stored))
        await store.written(write)
        key = skeleton(claim.name)
        if write is not None and write.done:
            self._unsaved.pop(key, None)
            return True
        self._unsaved[key] = claim
        log.warning("ladder: the claim of %r is not on disk (storage fails): its client is "
                    "welcomed as not claimed", claim.name)
        return False

    def rate(self, names: Sequence[str], places: Sequence[int], kinds: Sequence[str],
             strategies: Sequence[str | None]) -> list[RatingChange]:
        """Rate a finished game of a rated table, in memory (the seats and the board
        show the new ratings at once); return the changes, to be kept with the game
        (``finish_game(..., ratings=)``, one transaction). None if a player's name was
        not claimed (the game is not rated)."""
        changes, rated_kinds = self._outcome(names, places, kinds, strategies)
        self._apply(changes, rated_kinds)
        return changes

    async def game_finished(self, names: Sequence[str], places: Sequence[int],
                            kinds: Sequence[str], strategies: Sequence[str | None],
                            game_id: int | None) -> list[RatingChange]:
        """Rate a game kept without its ratings (``game_id``; None: no game row) and
        save them, unless that game is rated already (then nothing changes and this
        returns no change)."""
        changes, rated_kinds = self._outcome(names, places, kinds, strategies)
        store = self.store
        if changes and store is not None:
            at = time.time()
            if game_id is None:
                await store.ladder_write(lambda db: save_ratings(db, None, changes, at))
            else:
                saved = await store.written(store.writes().ladder_write(
                    lambda db: save_ratings_once(db, game_id, changes, at)))
                if saved is False:  # (not known while storage fails: it is queued)
                    return []
        self._apply(changes, rated_kinds)
        return changes

    async def _rate_missed(self, store: AsyncStore) -> None:
        """Rate the games of open rated tables kept without their ratings (by an older
        version, which rated in a transaction of its own after the game's: a server
        killed in between kept the game unrated), each once, oldest first."""
        for game in await store.ladder_read(unrated_games):
            changes = await self.game_finished(game.names, game.places, game.kinds,
                                               game.strategies, game.game_id)
            if changes:
                log.info("ladder: game %d of table %s was kept without its ratings: rated "
                         "now", game.game_id, game.table_id)

    def _outcome(self, names: Sequence[str], places: Sequence[int], kinds: Sequence[str],
                 strategies: Sequence[str | None],
                 ) -> tuple[list[RatingChange], dict[str, str]]:
        """The new ratings (nothing changes yet) and the kind of each rated name's
        seat; none if a name is not claimed."""
        rated = rated_names(names, kinds, strategies, self.claims)
        if rated is None:
            log.info("ladder: a game of a rated table is not rated: a name is not claimed")
            return [], {}
        return self.ladder.outcome(rated, places), dict(zip(rated, kinds))

    def _apply(self, changes: Sequence[RatingChange], kinds: Mapping[str, str]) -> None:
        """The ratings are ``changes`` (an ``_outcome``) from now on."""
        self.ladder.apply(changes)
        for c in changes:
            past = self.recent.setdefault(c.name, deque(maxlen=TREND_GAMES + 1))
            past.append(ordinal(c.mu, c.sigma))
            self.kinds[c.name] = kinds.get(c.name)
        self._rated_changed([c.name for c in changes])

    # ------------------------------------------------------------------ the leaderboard
    def _rated_changed(self, names: Iterable[str]) -> None:
        """The ratings of ``names`` changed: the seats show the new ones, and each
        name moves to its new place on the board."""
        order = self._order
        for name in names:
            rating = self.ladder.get(name)
            shown = self._ordinals[name] = rating.ordinal
            self.seat_ratings[name_key(name)] = (round(shown, 2), rating.games)
            old = self._keys.get(name)
            if old is not None:
                del order[bisect_left(order, old)]
            key = self._keys[name] = board_key(name, shown, rating.games)
            insort(order, key)
            self._names[name_key(name)] = name

    def row(self, rank: int) -> BoardRow:
        """The leaderboard's line at ``rank`` (1 .. the number of rated names)."""
        _, _, name = self._order[rank - 1]
        r = self.ladder.ratings[name]
        rating = self._ordinals[name]
        past = self.recent.get(name)
        before = past[0] if past is not None and len(past) > TREND_GAMES else None
        return BoardRow(rank, name, round(rating, 2), r.games, trend_of(rating, before),
                        is_bot(name, self.kinds.get(name)), r.mu, r.sigma)

    def board(self) -> list[BoardRow]:
        """The whole leaderboard, best first."""
        return [self.row(rank) for rank in range(1, len(self._order) + 1)]

    def page(self, msg: P.Leaderboard) -> P.LeaderboardPage:
        """The answer to a ``leaderboard`` request (the rows it shows, however many
        names are rated)."""
        order = self._order
        offset, found = msg.offset, None
        if msg.name is not None:
            name = self._names.get(name_key(msg.name))
            if name is not None:
                index = bisect_left(order, self._keys[name])
                found = index + 1
                offset = index - index % msg.limit
        rows = []
        for rank in range(offset + 1, min(offset + msg.limit, len(order)) + 1):
            r = self.row(rank)
            rows.append(P.LeaderboardRow(rank=rank, name=r.name, rating=r.rating,
                                         games=r.games, trend=r.trend, bot=r.bot))
        return P.LeaderboardPage(rows=tuple(rows), offset=offset, total=len(order),
                                 trend_games=TREND_GAMES, found=found, re=msg.id)
