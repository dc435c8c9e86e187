"""A table's built-in bots: their strategies, and what their workers learnt.

A cheap strategy (``heuristic``, ``random``) lives here as an object, made at its
bot's first turn. A timed one (``nimmt.bots.TIMED``: search, mcs) thinks in a
worker process of the lobby's ``ThinkPool``; what it learnt of the table comes
back with each decision as a pickled state, kept here and sent with the bot's
next decision to whichever worker is free. Nothing here is persisted: a table
restored after a restart starts its bots afresh. A bot's strategy and state are
forgotten when its seat is taken by someone else or emptied, and when the table
closes. Each bot is keyed by (seat, strategy, seed): strategy None is the table's
fallback deciding for a player's seat.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable

from nimmt.bots import TIMED, HeuristicStrategy, Strategy, make_strategy, parse_strategy
from nimmt.engine import Decision

from ..game.io import Think
from ..game.match import Match
from ..thinking.pool import MAX_STATE_BYTES, PoolStopped, ThinkFailed, ThinkPool

__all__ = ["TableBots", "BotKey", "timed"]

log = logging.getLogger("nimmt.server.table")

BotKey = tuple[int, str | None, int | None]

# decides when a worker cannot: at once, and never fails
_EMERGENCY = HeuristicStrategy()


def timed(spec: str) -> bool:
    """Whether ``spec`` (a level or a strategy) thinks for a while.

    >>> timed("search"), timed("hard"), timed("heuristic")
    (True, True, False)
    """
    return parse_strategy(spec)[0] in TIMED


def bot_key(think: Think) -> BotKey:
    return (think.seat, think.strategy, think.seed)


class TableBots:
    """The strategies and worker states of one table's bots."""

    def __init__(self, table_id: str, match: Match, group: Hashable = None) -> None:
        self.table_id = table_id
        #: the client the table's thinking counts for (``ThinkPool.think``'s group)
        self.group = table_id if group is None else group
        self.match = match
        self._bots: dict[BotKey, Strategy] = {}  # made at the bot's first turn
        self._states: dict[BotKey, bytes] = {}  # a timed strategy's last pickled state

    def state(self, seat: int) -> bytes | None:
        """The pickled strategy state kept for ``seat``'s next timed decision (its
        bot's, or the fallback's at a player's seat) as a worker last answered; None:
        nothing kept (the strategy starts afresh)."""
        return next((state for (index, _, _), state in self._states.items() if index == seat),
                    None)

    def strategy(self, think: Think) -> Strategy:
        """The bot's strategy, or the table's fallback for that seat (each seat its own:
        a searching one learns from what that seat sees)."""
        key = bot_key(think)
        bot = self._bots.get(key)
        if bot is None:
            spec = think.strategy if think.strategy is not None else self.match.settings.fallback
            bot = self._bots[key] = make_strategy(spec, think.seed)
        return bot

    async def decide_away(self, pool: ThinkPool, think: Think, spec: str,
                          closed: Callable[[], bool]) -> Decision:
        """``think`` answered by a worker process, with the bot's state of its last
        decision; by the heuristic if that fails (the state is then kept as it was)."""
        key = bot_key(think)
        try:
            thought = await pool.think(spec, think.seed, think.view, self.think_time(think),
                                       state=self._states.get(key), owner=self.table_id,
                                       group=self.group)
        except ThinkFailed as e:
            level = logging.INFO if isinstance(e, PoolStopped) else logging.WARNING
            log.log(level, "table=%s seat=%d: %s; the heuristic decides",
                    self.table_id, think.seat, e)
            return _EMERGENCY.decide(think.view)
        if thought.note is not None:
            log.warning("table=%s seat=%d: %s (worker pid %d): %s", self.table_id, think.seat,
                        spec, thought.worker, thought.note)
        self.keep_state(key, thought.state, closed())
        return thought.decision

    def keep_state(self, key: BotKey, state: bytes | None, closed: bool) -> None:
        """Keep ``state`` for the bot's next decision (None: it starts afresh), unless
        the bot has left its seat or the table is closed meanwhile."""
        if state is not None and len(state) > MAX_STATE_BYTES:
            log.warning("table=%s seat=%d: a strategy state of %d bytes, more than %d: "
                        "the bot starts afresh", self.table_id, key[0], len(state),
                        MAX_STATE_BYTES)
            state = None
        if state is None or closed or not self.seated(key):
            self._states.pop(key, None)
        else:
            self._states[key] = state

    def seated(self, key: BotKey) -> bool:
        """Whether the bot ``key`` names still holds its seat (strategy None: the
        fallback of a seat that a player holds)."""
        index, strategy, seed = key
        seats = self.match.seats
        seat = seats[index] if 0 <= index < len(seats) else None
        if seat is None:
            return False
        if strategy is None:
            return not seat.builtin
        return seat.strategy == strategy and seat.seed == seed

    def forget_gone(self, closed: bool) -> None:
        """Drop the strategies of bots no longer at the table (all, once it is closed)."""
        for kept in (self._bots, self._states):
            for key in [k for k in kept if closed or not self.seated(k)]:
                del kept[key]

    def think_time(self, think: Think) -> float:
        """As long as a person would have for this decision."""
        settings = self.match.settings
        kind = think.key[0] if think.key else "commit"
        return {"choice": settings.choice_time, "draft": settings.draft_time}.get(
            kind, settings.turn_time)
