"""One network bot's session: taking a seat, answering what the seat is asked, and
riding out dropped links, server restarts and tables nobody starts.

Used by ``nimmt.bots.runner`` (``nimmt-bot``, ``play_bot``) and so by the SDK.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from nimmt import protocol as wire
from nimmt.client.link import LinkLost, LinkRestored
from nimmt.client.net import ClientConnection, ClientError, ConnectionLost, SendFailed
from nimmt.engine import Decision

from .basic import HeuristicStrategy
from .bridge import PlayerGaveUp
from .players import Ask, Player
from .tracker import SeatTracker

__all__ = ["BotResult", "BotSession", "LadderAsk", "RECONNECT_FOR", "RECONNECT_WAITS", "TABLE_WAIT",
           "FILL_AFTER"]

log = logging.getLogger("nimmt.bots")

#: Seconds a bot keeps trying to reach a server that went away (shut down, or lost).
RECONNECT_FOR = 300.0
#: Seconds between attempts to reach that server: before the first (the link was just
#: lost, or refused), then after each failed one; the last repeats (docs/BOTS.md).
RECONNECT_WAITS = (0.25, 0.5, 1.0, 2.0)
#: Seconds a bot waits at a table that does not start before it acts (fills it, or leaves).
TABLE_WAIT = 120.0
#: Seconds at a waiting table before the bot says what it waits for.
_SAY_AFTER = 1.0
#: Seconds a ladder bot waits in the queue before the server fills its table with bots.
FILL_AFTER = 30.0
#: Seconds before a ladder bot queues again after a refusal that may pass (its seat
#: was on its way, or its name waited in the queue from another connection).
_QUEUE_AGAIN = 5.0
_QUEUE_PASSES = frozenset({"not_allowed", "rate_limited", "internal_error"})

#: Error codes that answer a join or create: the bot cannot take the seat it wanted.
_SEAT_REFUSED = frozenset({"no_such_table", "table_full", "already_started", "server_full"})

_Key = tuple[str, int, int, int]

#: The reconnect loop's clock and sleep (a test gives a fake clock).
_clock = time.monotonic
_sleep = asyncio.sleep

#: Decides at once for a player that failed (raised, or answered what is not legal),
#: rather than leave the table waiting for the deadline: the server's autopilot.
_FALLBACK = HeuristicStrategy()


@dataclass(frozen=True)
class LadderAsk:
    """What a ladder bot queues for (``queue``): ``seats`` players with ``options``,
    its table filled with built-in bots of ``bot_level`` after ``fill_after`` seconds
    (None: never; bot_level None: the server's)."""

    seats: int = 4
    options: wire.TableOptions = field(default_factory=wire.TableOptions)
    fill_after: float | None = FILL_AFTER
    bot_level: str | None = None

    def request(self) -> wire.Queue:
        return wire.Queue(seats=self.seats, options=self.options, fill_after=self.fill_after,
                          bot_level=self.bot_level)


@dataclass
class BotResult:
    """What a bot's session came to: the games it finished and its places."""

    table_id: str | None = None
    seat: int | None = None
    games: int = 0
    places: list[int] = field(default_factory=list)
    totals: list[list[int]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "code: message" of every server error
    rejoins: int = 0  # times the session was lost and a seat taken again
    stopped: str | None = None  # why the bot stopped before its games were played
    reconnects: int = 0  # times the server went away and the bot reached it again
    tables: list[str] = field(default_factory=list)  # the table of each game finished
    queue_waits: list[float] = field(default_factory=list)  # ladder: seconds queued, per table
    #: per game: the bot's rating once it ended (a rated table; None: not rated)
    ratings: list[float | None] = field(default_factory=list)


class BotSession:
    """Takes a seat and plays ``games`` games on ``conn`` with ``player``.

    ``join``: a table id; ``create``: the options of a table to host; neither: join
    a waiting table with a free seat, or create one with ``new_table``. As host it
    adds ``add_bots`` built-in bots of ``bot_level`` and starts when every seat is
    taken. A table still waiting after ``table_wait`` seconds (0: never) is filled
    with built-in bots and started if the bot hosts it, and left for a table of its
    own (filled with bots) if it does not and was not told ``join``. A server that
    says goodbye because it is shutting down, or that cannot be reached again, is
    tried again for ``reconnect_for`` seconds, ``RECONNECT_WAITS`` apart (0: stop at
    once).

    ``ladder``: queue for rated games instead (``queue``), leave each table when
    its game is over and queue again, until ``games`` games are played (0: until
    stopped). Every ``join`` and ``queue`` adds 16 random bytes of entropy to the deals
    (their hash, revealed when the server asks: ``ClientConnection``).
    """

    def __init__(self, conn: ClientConnection, player: Player, *, name: str, join: str | None,
                 create: wire.TableOptions | None, add_bots: int, games: int,
                 new_table: wire.TableOptions | None = None, bot_level: str = "hard",
                 table_wait: float = TABLE_WAIT, reconnect_for: float = RECONNECT_FOR,
                 ladder: LadderAsk | None = None) -> None:
        self.conn = conn
        self.player = player
        self.name = name
        self.join = join
        self.create = create
        self.new_table = new_table or wire.TableOptions()
        self.add_bots = add_bots
        self.games = games
        self.bot_level = bot_level
        self.table_wait = table_wait
        self.reconnect_for = reconnect_for
        self.ladder = ladder
        self._queued_at: float | None = None  # ladder: when the queue request went out
        self.tracker = SeatTracker()
        self.result = BotResult()
        self.hosting = False
        self.bots_to_add = 0
        self.sent: _Key | None = None  # answered on the current link
        self.answers: dict[_Key, Decision | None] = {}  # the player's answer to the open request
        self.thinking: dict[_Key, asyncio.Task[None]] = {}
        self._waiting: asyncio.Task[None] | None = None  # the timer of a table that does not start
        self._announced: str | None = None  # the table whose wait was said
        self._leaving = False  # left a table nobody starts: a table of our own comes next
        self._shutdown: str | None = None  # the server said it is shutting down
        self._requeue: asyncio.Task[None] | None = None  # ladder: queue again after a refusal
        #: a rated game ended: the table_updated right after its game_over has the ratings
        self._rating_due = False

    # -- taking a seat --------------------------------------------------------------
    async def take_seat(self) -> None:
        """Join, create, or find a table, as the bot was told at the start."""
        self.hosting = False
        self.bots_to_add = self.add_bots
        if self.ladder is not None:
            self._queued_at = time.monotonic()
            await self.conn.send(self.ladder.request())
        elif self.join is not None:
            await self.conn.send(wire.Join(table_id=self.join))
        elif self.create is not None:
            await self.conn.send(wire.CreateTable(options=self.create, name=f"{self.name}'s table"))
        else:
            await self.conn.send(wire.ListTables())  # the table_list answer decides

    async def _create_own(self) -> None:
        await self.conn.send(wire.CreateTable(options=self.create or self.new_table,
                                              name=f"{self.name}'s table"))

    async def _on_table_list(self, message: wire.TableList) -> None:
        for table in message.tables:
            if table.status == "waiting" and any(seat is None for seat in table.seats):
                await self.conn.send(wire.Join(table_id=table.table_id))
                return
        await self._create_own()

    # -- the session ----------------------------------------------------------------
    async def run(self) -> BotResult:
        self.tracker.apply(self.conn.welcome)  # type: ignore[arg-type]
        await self.take_seat()
        try:
            while True:
                try:
                    async for message in self.conn.events():
                        self.tracker.apply(message)
                        if await self._handle(message):
                            return self.result
                        await self._answer_if_asked()
                except ConnectionLost as exc:
                    if self.conn.closed and self.result.stopped:
                        return self.result
                    why = str(exc)
                else:
                    if self._shutdown is None:
                        return self.result  # closed by us (the player gave up)
                    why = self._shutdown
                if not await self._wait_for_server(why):
                    return self.result
        finally:
            for task in [*self.thinking.values(), self._waiting, self._requeue]:
                if task is not None:
                    task.cancel()

    async def _rated(self, table: wire.TableInfo) -> bool:
        """The ratings after a rated game (the ``table_updated`` after its
        ``game_over``): the bot's is kept and said; then the next game."""
        self._rating_due = False
        seat = self.tracker.seat
        info = table.seats[seat] if seat is not None and seat < len(table.seats) else None
        if info is not None and info.rating is not None:
            self.result.ratings[-1] = info.rating
        return await self._after_game(len(table.seats))

    async def _after_game(self, players: int) -> bool:
        """A game ended (and its ratings came): say so; True when the bot is done."""
        result = self.result
        done = result.games >= self.games and (self.games > 0 or self.ladder is None)
        rating = result.ratings[-1] if result.ratings else None
        rated = "" if rating is None else f", rating {rating:.2f}"
        then = "" if done else "; queueing again" if self.ladder is not None else ""
        log.warning("%s: game %d over at table %s: place %d of %d%s%s", self.name,
                    result.games, result.tables[-1] if result.tables else "?",
                    result.places[-1], players, rated, then)
        if done:
            return True
        if self.ladder is not None:
            await self.conn.send(wire.Leave())  # then queue again (_on_left)
        elif self.hosting:
            await self.conn.send(wire.Start())
        return False

    async def _wait_for_server(self, why: str) -> bool:
        """Reach the server again within ``reconnect_for`` seconds; False if not."""
        if self.reconnect_for <= 0:
            self.result.stopped = f"{why} (not waiting for it: reconnect_for is 0)"
            return False
        log.warning("%s: %s; trying to reconnect for up to %g s (--reconnect-for; 0: stop "
                    "instead)", self.name, why, self.reconnect_for)
        deadline = _clock() + self.reconnect_for
        attempts = 0
        while True:
            # Every attempt waits first: whatever refused the last one (a server still
            # stopping, a resume refused) must not be asked again at once.
            wait = RECONNECT_WAITS[min(attempts, len(RECONNECT_WAITS) - 1)]
            if _clock() + wait >= deadline:
                self.result.stopped = (f"{why}, and it could not be reached again within "
                                       f"{self.reconnect_for:g} s")
                return False
            await _sleep(wait)
            attempts += 1
            try:
                welcome = await self.conn.reconnect(within=0)  # one attempt: the waits are ours
                break
            except ConnectionLost as exc:
                if not exc.resumable and str(exc).startswith("the connection was closed"):
                    return False  # close() was called
                log.info("%s: reconnect attempt %d failed: %s", self.name, attempts, exc)
            except ClientError as exc:  # refused while it starts or stops: try again
                log.info("%s: reconnect attempt %d failed: %s", self.name, attempts, exc)
        self._shutdown = None
        self.result.reconnects += 1
        log.warning("%s: reconnected to %s", self.name, self.conn.address)
        for error in self.conn.handshake_errors:
            self.tracker.apply(error)
            await self._handle(error)
        restored = LinkRestored(welcome)
        self.tracker.apply(restored)
        await self._handle(restored)
        return True

    async def _handle(self, message: Any) -> bool:
        """React to one message; True when the bot is done."""
        result = self.result
        if isinstance(message, wire.TableUpdated) and self._rating_due:
            return await self._rated(message.table)
        if isinstance(message, LinkLost):
            log.warning("%s: %s; reconnecting", self.name, message.reason)
        elif isinstance(message, LinkRestored):
            self.sent = None  # an answer sent as the link died may be lost: send it again
            if message.welcome.resumed:
                log.warning("%s: reconnected to %s (the session was kept)", self.name,
                            self.conn.address)
            if message.welcome.resumed and self._queued_at is not None:
                log.info("%s: the queue entry went with the link: queueing again", self.name)
                await self.take_seat()
            elif not message.welcome.resumed:
                result.rejoins += 1
                what = "queueing" if self.ladder else f"joining table {self.join}" \
                    if self.join else "creating a table" if self.create else "looking for a table"
                log.warning("%s: the server no longer knows our session (it restarted: it "
                            "keeps only the sessions seated at a table, and only with its "
                            "database; or we were away too long); %s again", self.name, what)
                self.answers.clear()
                await self.take_seat()
        elif isinstance(message, wire.TableList) and self.tracker.model.table is None \
                and self.join is None and self.create is None:
            await self._on_table_list(message)
        elif isinstance(message, wire.Seated):
            await self._on_seated(message)
        elif isinstance(message, wire.Queued):
            log.info("%s: queued for %d seats: %d waiting", self.name, message.seats,
                     message.waiting)
        elif isinstance(message, wire.TableUpdated) and self.tracker.model.table is not None \
                and self.ladder is None \
                and message.table.table_id == self.tracker.model.table.table_id:
            self.hosting = message.table.host == self.tracker.seat
            if self.hosting:
                await self._start_if_full(message.table)
            self._watch_wait(message.table)
        elif isinstance(message, wire.Error):
            log.warning("%s: server error %s: %s", self.name, message.code, message.message)
            result.errors.append(f"{message.code}: {message.message}")
            if self.ladder is not None and message.request == "queue":
                self._queued_at = None
                welcome = self.conn.welcome
                if message.code in _QUEUE_PASSES and welcome is not None and welcome.claimed:
                    # at a table (its seat on the way after a resume), the name queued
                    # elsewhere, too fast, a server's bug: that passes
                    self._requeue = asyncio.create_task(self._queue_again())
                    return False
                result.stopped = f"could not queue: {message.message or message.code}"
                return True
            if message.code in _SEAT_REFUSED and self.tracker.model.table is None:
                where = f"table {self.join}" if self.join else "a table"
                result.stopped = f"could not take a seat at {where}: {message.message or message.code}"
                return True
        elif isinstance(message, wire.Left):
            return await self._on_left(message)
        elif isinstance(message, wire.GameOver):
            result.games += 1
            result.places.append(message.places[self.tracker.seat or 0])
            result.totals.append(list(message.totals))
            table = self.tracker.model.table
            if table is not None:
                result.tables.append(table.table_id)
            result.ratings.append(None)
            if table is not None and table.options.rated:
                self._rating_due = True  # said (and the next game begun) with the ratings
                return False
            return await self._after_game(len(message.places))
        elif isinstance(message, wire.Goodbye):
            text = message.message or message.reason
            if message.reason == "server_shutdown":
                self._shutdown = f"the server closed the connection: {text}"
                return False  # events() ends; run() waits for the server to come back
            result.stopped = f"the server closed the connection: {text}"
            return True
        return False

    async def _on_seated(self, message: wire.Seated) -> None:
        table = message.table
        self.result.table_id, self.result.seat = table.table_id, message.seat
        if self.ladder is not None:  # the server formed the table: it starts by itself
            if self._queued_at is not None:
                self.result.queue_waits.append(time.monotonic() - self._queued_at)
                self._queued_at = None
            return
        self.hosting = table.host == message.seat
        if self.hosting and table.status == "waiting":
            free = sum(seat is None for seat in table.seats)
            if self._leaving:  # our own table after one nobody started: fill it
                self.bots_to_add, self._leaving = free, False
            for _ in range(min(self.bots_to_add, free)):
                await self.conn.send(wire.AddBot(strategy=self.bot_level))
            self.bots_to_add = 0
            await self._start_if_full(table)
        self._watch_wait(table)

    async def _queue_again(self) -> None:
        await asyncio.sleep(_QUEUE_AGAIN)
        if self.tracker.model.table is None and self._queued_at is None:
            try:
                await self.take_seat()
            except SendFailed:
                pass  # no link now: a resume queues again

    async def _on_left(self, message: wire.Left) -> bool:
        self._stop_waiting()
        if message.reason == "left":
            if self._leaving:
                await self._create_own()
            elif self.ladder is not None:
                await self.take_seat()  # queue for the next game
            return False
        if message.reason == "kicked":
            self.result.stopped = f"removed from table {message.table_id} by its host"
            return True
        log.warning("%s: table %s was closed; taking a seat again", self.name, message.table_id)
        self.result.rejoins += 1
        await self.take_seat()
        return False

    async def _start_if_full(self, table: wire.TableInfo) -> None:
        if table.status == "waiting" and all(seat is not None for seat in table.seats):
            await self.conn.send(wire.Start())

    # -- a table that does not start ----------------------------------------------------
    def _watch_wait(self, table: wire.TableInfo) -> None:
        """Arm the timer of a waiting table (it says what the bot waits for, then acts);
        stop it when the game starts."""
        if table.status != "waiting":
            self._stop_waiting()
            return
        if self._waiting is None or self._waiting.done():
            self._waiting = asyncio.create_task(self._wait_then_act())

    def _waiting_table(self) -> wire.TableInfo | None:
        """The bot's table if it waits for its game to start, else None."""
        model = self.tracker.model
        if model.table is None or model.phase != "waiting" or model.table.status != "waiting":
            return None
        return model.table

    def _waiting_for(self, table: wire.TableInfo) -> str:
        free = sum(seat is None for seat in table.seats)
        players = f"{free} more player{'s' * (free != 1)}" if free else "nobody more"
        if self.hosting:
            who = "the table to fill; it starts when every seat is taken"
        else:
            host = table.seats[table.host] if table.host is not None else None
            who = f"its host ({host.name if host else 'none'}) to start it"
        after = (f"after {self.table_wait:g} s it " + (
            "fills the free seats with built-in bots and starts" if self.hosting else
            "stays: it was told to join this table" if self.join else
            "leaves for a table of its own with built-in bots")
            if self.table_wait > 0 else "it waits for ever (table_wait 0)")
        return f"{players} or {who} ({after})"

    def _stop_waiting(self) -> None:
        if self._waiting is not None and self._waiting is not asyncio.current_task():
            self._waiting.cancel()
        self._waiting = None

    async def _wait_then_act(self) -> None:
        # Said after a moment, not at once: a table about to fill or start needs no word.
        say_after = min(_SAY_AFTER, self.table_wait) if self.table_wait > 0 else _SAY_AFTER
        await asyncio.sleep(say_after)
        table = self._waiting_table()
        if table is None:
            self._waiting = None
            return
        if self._announced != table.table_id:
            self._announced = table.table_id
            log.warning("%s: at table %s, waiting for %s", self.name, table.table_id,
                        self._waiting_for(table))
        if self.table_wait <= 0:
            return  # waits for ever; said once
        await asyncio.sleep(self.table_wait - say_after)
        self._waiting = None
        table = self._waiting_table()
        if table is None:
            return
        try:
            if self.hosting:
                free = sum(seat is None for seat in table.seats)
                log.warning("%s: table %s did not fill in %g s: adding %d built-in bot(s) (%s) "
                            "and starting", self.name, table.table_id, self.table_wait, free,
                            self.bot_level)
                for _ in range(free):
                    await self.conn.send(wire.AddBot(strategy=self.bot_level))
            elif self.join is None:
                log.warning("%s: nobody started table %s in %g s: leaving it for a table of "
                            "our own, with built-in bots", self.name, table.table_id,
                            self.table_wait)
                self._leaving = True
                await self.conn.send(wire.Leave())
            else:
                self._announced = None  # say it again, and wait again
                self._watch_wait(table)
        except SendFailed:
            pass  # no link now: the timer is armed again when the seat is back

    # -- deciding ---------------------------------------------------------------------
    def _open_key(self) -> _Key | None:
        """The open request this seat must still answer, or None."""
        request = self.tracker.request
        if request is None or request.committed is not None:
            return None  # nothing asked, or a commit that stands (it is replaced only by us)
        return (request.kind, request.round, request.turn, request.pick)

    async def _answer_if_asked(self) -> None:
        key = self._open_key()
        if key is None or key == self.sent:
            return
        if key in self.answers:
            await self._send(key)
        elif key not in self.thinking:
            request = self.tracker.request
            assert request is not None
            table = self.tracker.model.table
            names = tuple(s.name if s else None for s in table.seats) if table else ()
            ask = Ask(self.tracker.view(), request.deadline, names)
            self.thinking[key] = asyncio.create_task(self._think(key, ask))

    async def _think(self, key: _Key, ask: Ask) -> None:
        try:
            decision = await self.player.decide(ask)
        except PlayerGaveUp as exc:
            self.thinking.pop(key, None)
            self.result.stopped = f"{exc}; the server's autopilot plays the seat"
            await self.conn.close()  # ends the session: events() stops
            return
        except Exception as exc:  # noqa: BLE001 - a player's bug must not end the session
            log.warning("%s: the player failed to decide (%s: %s); the fallback (heuristic) "
                        "decides at once", self.name, type(exc).__name__, exc)
            decision = _FALLBACK.decide(ask.view)
        finally:
            self.thinking.pop(key, None)
        self.answers = {key: decision}  # only the latest request's answer is worth keeping
        if self._open_key() == key and key != self.sent:
            await self._send(key)

    async def _send(self, key: _Key) -> None:
        decision = self.answers[key]
        if decision is None:
            return  # no answer: the deadline passes and the autopilot decides
        try:
            message = self.tracker.answer(decision)
        except ValueError as exc:
            log.warning("%s: %s", self.name, exc)
            self.answers.pop(key)
            return
        self.sent = key
        try:
            await self.conn.send(message)
        except SendFailed:
            self.sent = None  # no link now: sent again after the snapshot
