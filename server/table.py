"""A table: one actor task that owns one game and everything said about it.

Hidden information by construction: the ``Game`` is a private attribute of the
``Table`` and never leaves it. Everything sent to a seat is built from
``event.visible(seat)`` events and ``game.view(seat)`` only (spectators: seat
``None``); built-in bots and the autopilot decide from ``game.view(seat)``.

One task per table (``Table.run``) reads requests from a memory channel and
waits for the next request or the next timer (a deadline, its warning, an away
player's grace, the closing of a table nobody is at) with ``trio.move_on_at``:
no polling. This module holds the seats, the spectators, the requests about
them and the timers; ``play.GameFlow`` (a base class) runs the game itself.
Nothing here ever awaits a client: messages go into each connection's bounded
queue (``Client.send``), and a client too slow to empty it is dropped.
"""

from __future__ import annotations

import logging
import math
import random
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable

import trio

from nimmt import protocol as P
from nimmt.bots import STRATEGIES, make_strategy
from nimmt.engine import Game

from .config import TableSettings
from .play import GameFlow
from .session import Seat
from .wire import options_from_settings

if TYPE_CHECKING:  # pragma: no cover
    from .lobby import Lobby
    from .session import Session

__all__ = ["Table"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode


class Table(GameFlow):
    """One table: seats, spectators, options, and (while playing) a private ``Game``."""

    def __init__(
        self,
        lobby: Lobby,
        table_id: str,
        name: str,
        settings: TableSettings,
        *,
        persistent: bool = False,
        autostart: bool = False,
        seed: int | None = None,
    ) -> None:
        self.lobby = lobby
        self.id = table_id
        self.name = name
        self.settings = settings
        self.options = options_from_settings(settings)
        self.persistent = persistent  # the --bots table: never closed while it waits
        self.autostart = autostart  # start as soon as every seat is taken
        self.seats: list[Seat | None] = [None] * settings.seats
        self.host: int | None = None
        self.watchers: list[Session] = []
        self.status = "waiting"  # waiting, playing, over, closed
        self.games_played = 0
        self._rng = random.Random(seed)
        self._game: Game | None = None  # private: never handed out
        self._fallback = make_strategy(settings.fallback)
        self._inbox_send, self._inbox = trio.open_memory_channel[tuple[Any, ...]](math.inf)
        # the decision awaited and its timer (trio time)
        self._armed: tuple[Any, ...] | None = None
        self._deadline: float | None = None
        self._armed_at = 0.0
        self._warned = False
        self._shown = (0, 0)  # the round and turn the players have been told of
        self._chosen: dict[int, tuple[int, int]] = {}  # seat -> (round, turn) of its last choice
        self._nobody_since: float | None = trio.current_time()
        self._over_since: float | None = None
        self._closed = trio.Event()

    def __repr__(self) -> str:
        return f"<Table {self.id} {self.status}>"

    # ------------------------------------------------------------------ requests
    def submit(self, kind: str, session: Session | None = None, msg: Any = None) -> None:
        """Hand a request to the table's task (never blocks; dropped once closed)."""
        if self.status == "closed":
            if session is not None and msg is not None and getattr(msg, "TYPE", None):
                session.send(P.Error(code=E.NO_SUCH_TABLE, message="the table is closed",
                                     request=msg.TYPE, re=msg.id))
            return
        self._inbox_send.send_nowait((kind, session, msg))

    # ------------------------------------------------------------------ queries
    @property
    def closed(self) -> bool:
        return self.status == "closed"

    def info(self) -> P.TableInfo:
        """The table as the lobby lists it (public information only)."""
        game = self._game
        totals = game.totals if game is not None else None
        penalties = game.view(None).penalties if game is not None and not game.is_over else None
        seats: list[P.SeatInfo | None] = []
        for i, seat in enumerate(self.seats):
            if seat is None:
                seats.append(None)
                continue
            seats.append(P.SeatInfo(
                name=seat.name, kind=seat.kind, connected=seat.connected,
                total=totals[i] if totals else 0,
                penalties=penalties[i] if penalties else 0,
                strategy=seat.strategy_name,
            ))
        status = "over" if self.status == "closed" else self.status
        return P.TableInfo(table_id=self.id, name=self.name, options=self.options,
                           seats=tuple(seats), host=self.host, status=status,
                           spectators=len(self.watchers))

    def members(self) -> Iterable[Session]:
        """The sessions of client seats and the spectators."""
        for seat in self.seats:
            if seat is not None and seat.session is not None:
                yield seat.session
        yield from self.watchers

    def _someone_connected(self) -> bool:
        return any(s.client is not None for s in self.members())

    def _refresh_presence(self) -> None:
        """Start (or stop) the clock that closes a table nobody is connected to."""
        if self._someone_connected():
            self._nobody_since = None
        elif self._nobody_since is None:
            self._nobody_since = trio.current_time()

    def _person_watching(self) -> bool:
        """A person (not a bot client) is connected: pace the resolution for them."""
        for s in self.members():
            if s.client is not None and s.kind != "bot":
                return True
        return False

    # ------------------------------------------------------------------ logging
    def _log(self, level: int, seat: int | None, text: str, *args: Any) -> None:
        if not log.isEnabledFor(level):
            return
        where = f"table={self.id}"
        if seat is not None:
            where += f" seat={seat}"
        if self._game is not None and self._shown[0]:
            where += f" round={self._shown[0]}"
            if self._shown[1]:
                where += f" turn={self._shown[1]}"
        log.log(level, where + " " + text, *args)

    # ------------------------------------------------------------------ sending
    def _to_seat(self, index: int, msg: Any) -> None:
        seat = self.seats[index]
        if seat is not None and seat.session is not None:
            seat.session.send(msg)

    def _to_all(self, msg: Any) -> None:
        for s in self.members():
            s.send(msg)

    def _updated(self, asker: Session | None = None, re: int | None = None,
                 table: bool = True) -> None:
        """Tell everyone at the table (``table``), and the lobby, how the table looks
        now; ``asker`` gets it as the reply to its request ``re``."""
        if table:
            info = self.info()
            msg = P.TableUpdated(table=info)
            for s in self.members():
                s.send(msg if s is not asker or re is None else P.TableUpdated(table=info, re=re))
        self.lobby.table_changed(self)

    def chat(self, session: Session, text: str) -> None:
        msg = P.ChatMessage(name=session.name, seat=session.seat, text=text)
        self._to_all(msg)

    # ------------------------------------------------------------------ the task
    async def run(self) -> None:
        """The table's actor: requests and timers, until the table is closed."""
        self._log(logging.INFO, None, "opened: %r, %s seats, options %s", self.name,
                  len(self.seats), self._describe_options())
        try:
            while self.status != "closed":
                item = None
                with trio.move_on_at(self._next_wake()):
                    item = await self._inbox.receive()
                try:
                    if item is None:
                        await self._on_timer()
                    else:
                        await self._handle(*item)
                except Exception:
                    # A bug must not take the server (or any other table) down.
                    log.exception("table=%s internal error", self.id)
                    if item is not None:
                        self._refuse(item[1], item[2], E.INTERNAL_ERROR,
                                     "a bug in the server: the table is closed")
                    self._close("internal error")
        finally:
            if self.status != "closed":
                why = "server shutdown" if self.lobby.stopping else "stopped"
                self._log(logging.INFO, None, "closed: %s", why)
                self._close_quietly()

    def _describe_options(self) -> str:
        s = self.settings
        parts = [f"limit={s.point_limit or '-'}", f"rounds={s.rounds or '-'}"]
        parts += [v for v in ("tactic_deck", "draft", "professional") if getattr(s, v)]
        parts.append(f"turn={s.turn_time:g}s step={s.step_delay:g}s")
        return " ".join(parts)

    def _next_wake(self) -> float:
        wake = math.inf
        game = self._game
        if self.status == "playing" and game is not None and self._deadline is not None:
            warn_at = self._warn_at()
            if warn_at is not None:
                wake = warn_at
            wake = min(wake, self._deadline)
            pending = game.pending
            if pending is not None:
                for i in pending.seats:
                    at = self._autoplay_at(i)
                    if at is not None:
                        wake = min(wake, at)
        return min(wake, self._close_at())

    def _close_at(self) -> float:
        """When the table is closed because nobody is connected (inf: not now)."""
        since = self._nobody_since
        if since is None:
            return math.inf
        if self.status == "over":
            return max(since, self._over_since or since) + self.settings.keep_finished
        if self.status == "waiting" and self.persistent:
            return math.inf
        return since + self.settings.abandon_after

    async def _on_timer(self) -> None:
        now = trio.current_time()
        if now >= self._close_at():
            if self.status == "over":
                self._close("finished, and nobody is at the table")
            else:
                self._close(f"abandoned: nobody connected for "
                            f"{self.settings.abandon_after:g} s")
            return
        if self.status != "playing":
            return
        warn_at = self._warn_at()
        if warn_at is not None and now >= warn_at:
            self._warn()
        await self._autoplay()

    # ------------------------------------------------------------------ requests
    async def _handle(self, kind: str, session: Session | None, msg: Any) -> None:
        if kind == "decide":
            await self._decide(session, msg)  # type: ignore[arg-type]
        elif kind == "join":
            await self._join(session, msg)  # type: ignore[arg-type]
        elif kind == "host":
            await self._join(session, msg, host=True)  # type: ignore[arg-type]
        elif kind == "watch":
            self._watch(session, msg)  # type: ignore[arg-type]
        elif kind == "leave":
            await self._leave(session, msg)  # type: ignore[arg-type]
        elif kind == "resume":
            self._resume(session)  # type: ignore[arg-type]
        elif kind == "away":
            await self._away(session)  # type: ignore[arg-type]
        elif kind == "add_bot":
            await self._add_bot(session, msg)
        elif kind == "remove_bot":
            self._remove_bot(session, msg)  # type: ignore[arg-type]
        elif kind == "start":
            await self._start(session, msg)
        elif kind == "close":
            self._close(msg or "closed")
        else:  # pragma: no cover
            raise AssertionError(f"unknown request {kind!r}")

    def _refuse(self, session: Session | None, msg: Any, code: str, text: str,
                field: str | None = None) -> None:
        if session is None:
            return
        session.send(P.Error(code=code, message=text, field=field,
                             request=getattr(msg, "TYPE", None), re=getattr(msg, "id", None)))

    def _seat_of(self, session: Session) -> int | None:
        if session.table is self and session.seat is not None:
            return session.seat
        return None

    def _seat_for(self, session: Session | None, msg: Any) -> int | None:
        """The seat ``msg`` asks for (its ``seat``, or the first free one); None,
        with an error sent, when there is no such seat or it is taken."""
        wanted = getattr(msg, "seat", None)
        if wanted is None:
            free = [i for i, s in enumerate(self.seats) if s is None]
            if not free:
                self._refuse(session, msg, E.TABLE_FULL, "every seat is taken")
                return None
            return free[0]
        if wanted >= len(self.seats):
            self._refuse(session, msg, E.NO_SUCH_SEAT, f"seats are 0 to {len(self.seats) - 1}", "seat")
            return None
        if self.seats[wanted] is not None:
            self._refuse(session, msg, E.SEAT_TAKEN, f"seat {wanted} is taken", "seat")
            return None
        return wanted

    async def _join(self, session: Session, msg: Any, host: bool = False) -> None:
        if session.table is not None and not (session.table is self and session.seat is None):
            self._refuse(session, msg, E.NOT_ALLOWED, "you are already at a table: leave it first")
            return
        if self.status == "playing":
            self._refuse(session, msg, E.ALREADY_STARTED, "the game has started: watch it instead")
            return
        if session.kind == "spectator":
            self._refuse(session, msg, E.NOT_ALLOWED, "a spectator cannot take a seat")
            return
        index = self._seat_for(session, msg)
        if index is None:
            return
        if session in self.watchers:
            self.watchers.remove(session)
        self.seats[index] = Seat(index, self._unique_name(session.name), session=session)
        session.table, session.seat = self, index
        if host or self.host is None:
            self.host = index
        self._refresh_presence()
        session.send(P.Seated(table=self.info(), seat=index, re=getattr(msg, "id", None)))
        self._log(logging.INFO, index, "%s (session %s) sits down", session.name, session.sid)
        self._updated()
        if self.autostart and all(s is not None for s in self.seats):
            await self._begin()

    def _unique_name(self, name: str) -> str:
        taken = {s.name for s in self.seats if s is not None}
        if name not in taken:
            return name
        for n in range(2, 100):
            candidate = f"{name[:28]} ({n})"
            if candidate not in taken:
                return candidate
        return name  # pragma: no cover

    def _watch(self, session: Session, msg: Any) -> None:
        if session.table is not None and not (session.table is self and session.seat is None
                                              and session not in self.watchers):
            self._refuse(session, msg, E.NOT_ALLOWED, "you are already at a table: leave it first")
            return
        self.watchers.append(session)
        session.table, session.seat = self, None
        self._refresh_presence()
        session.send(P.Watching(table=self.info(), re=getattr(msg, "id", None)))
        if self._game is not None and self.status == "playing":
            session.send(self._snapshot(None))
        self._log(logging.INFO, None, "%s (session %s) watches", session.name, session.sid)
        self._updated()

    async def _leave(self, session: Session, msg: Any, reason: str = "left") -> None:
        if session.table is not self:
            self._refuse(session, msg, E.NOT_ALLOWED, "you are not at this table")
            return
        index = session.seat
        session.table, session.seat = None, None
        if index is None:
            if session in self.watchers:
                self.watchers.remove(session)
            self._log(logging.INFO, None, "%s stops watching", session.name)
        else:
            seat = self.seats[index]
            if self.status == "playing" and seat is not None:
                seat.session = None
                seat.gone = True  # the game goes on: the autopilot plays this seat at once
                seat.away_since = trio.current_time()
            else:
                self.seats[index] = None
            if self.host == index:
                self.host = next((s.index for s in self.seats if s is not None
                                  and s.session is not None and s.session.client is not None),
                                 None)
            self._log(logging.INFO, index, "%s leaves the table", session.name)
        session.send(P.Left(table_id=self.id, reason=reason, re=getattr(msg, "id", None)))
        self.lobby.after_leave(session)
        self._refresh_presence()
        if self.status in ("waiting", "over") and not self.persistent and not any(
            s is not None and s.session is not None for s in self.seats
        ) and not self.watchers:
            self._close("everyone left")
            return
        self._updated()
        if self.status == "playing":
            await self._autoplay()

    def _resume(self, session: Session) -> None:
        """A session at this table got a new connection: put it back, with a snapshot."""
        if session.table is not self or session.client is None:
            return
        index = session.seat
        if index is None:
            session.send(P.Watching(table=self.info()))
        else:
            seat = self.seats[index]
            if seat is None or seat.session is not session:
                return
            seat.away_since = None
            session.send(P.Seated(table=self.info(), seat=index))
        self._refresh_presence()
        if self._game is not None and self.status == "playing":
            session.send(self._snapshot(index))
            if index is not None and self._deadline is not None:
                deadline, remaining = self._wire_deadline()
                for msg in self._requests_for(index, deadline, remaining):
                    session.send(msg)
        self._log(logging.INFO, index, "%s is back (session %s)", session.name, session.sid)
        self._updated()

    async def _away(self, session: Session) -> None:
        """A session at this table lost its connection (it may come back)."""
        if session.table is not self or session.client is not None:
            return
        index = session.seat
        if index is not None:
            seat = self.seats[index]
            if seat is not None and seat.session is session:
                # the grace runs from the drop, even if the table was busy pacing then
                seat.away_since = session.lost_at if session.lost_at is not None \
                    else trio.current_time()
        self._log(logging.INFO, index, "%s is away", session.name)
        self._refresh_presence()
        self._updated()
        if self.status == "playing":
            await self._autoplay()

    def _check_host(self, session: Session | None, msg: Any) -> bool:
        if session is None:
            return True
        index = self._seat_of(session)
        if index is None or index != self.host:
            self._refuse(session, msg, E.NOT_HOST, "only the host may do that")
            return False
        if self.status == "playing":
            self._refuse(session, msg, E.ALREADY_STARTED, "the game has started")
            return False
        return True

    async def _add_bot(self, session: Session | None, msg: Any) -> None:
        """``msg``: an ``add_bot`` (host request) or a dict (the server's own bots)."""
        if not self._check_host(session, msg):
            return
        strategy = getattr(msg, "strategy", None) or "heuristic"
        if strategy not in STRATEGIES:
            self._refuse(session, msg, E.UNKNOWN_STRATEGY,
                         f"no strategy {strategy!r}: choose one of {sorted(STRATEGIES)}",
                         "strategy")
            return
        index = self._seat_for(session, msg)
        if index is None:
            return
        self.place_bot(index, strategy, getattr(msg, "name", None))
        self._updated(session, getattr(msg, "id", None))
        if self.autostart and all(s is not None for s in self.seats):
            await self._begin()

    def place_bot(self, index: int, strategy: str, name: str | None) -> None:
        """Seat a built-in bot (the caller checked that the seat is free)."""
        name = self._unique_name(name or f"Bot-{index}")
        self.seats[index] = Seat(index, name, strategy_name=strategy,
                                 seed=self._rng.randrange(2**32))
        self._log(logging.INFO, index, "bot %r (%s) sits down", name, strategy)

    def _remove_bot(self, session: Session, msg: Any) -> None:
        if not self._check_host(session, msg):
            return
        index = msg.seat
        seat = self.seats[index] if index < len(self.seats) else None
        if seat is None or not seat.builtin:
            self._refuse(session, msg, E.NO_SUCH_SEAT, f"no built-in bot in seat {index}", "seat")
            return
        self.seats[index] = None
        self._log(logging.INFO, index, "bot removed")
        self._updated(session, msg.id)

    async def _start(self, session: Session | None, msg: Any) -> None:
        if not self._check_host(session, msg):
            return
        if any(s is None for s in self.seats):
            self._refuse(session, msg, E.NOT_ENOUGH_PLAYERS,
                         "every seat must be taken: add bots to fill the empty ones")
            return
        await self._begin()

    # ------------------------------------------------------------------ closing
    def _close(self, why: str) -> None:
        if self.status == "closed":
            return
        self._log(logging.INFO, None, "closed: %s", why)
        self._close_quietly(notify=True)

    def _close_quietly(self, notify: bool = False) -> None:
        self.status = "closed"
        self._inbox_send.close()
        for session in list(self.members()):
            session.table, session.seat = None, None
            if notify:
                session.send(P.Left(table_id=self.id, reason="table_closed"))
            self.lobby.after_leave(session)
        self.lobby.table_closed(self)
        self._closed.set()

    async def wait_closed(self) -> None:
        await self._closed.wait()

