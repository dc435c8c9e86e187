"""A table's game flow as a sans-IO state machine: requests and times in, effects out.

``Match`` owns everything that happens at one table: the seats and who sits in
them, the spectators, the engine ``Game`` (private: it never leaves), the
deadline of the decision awaited and its warning, the autopilot, the grace of
away players, the Draft announcements and the pacing of resolution steps. It
does no I/O and reads no clock: every call takes the time (``now``, the
server's monotonic clock, and ``wall``, Unix time for the deadlines on the
wire) and returns an ``Effects`` (see ``match_io``); ``next_wake()`` says when
it wants to be called again (``wake``). A paced step is output scheduled for
later, not a sleep: requests that need what was shown (decisions, snapshots)
wait in the match until the paced steps are out; the others are answered at once.

Hidden information by construction: everything sent to a seat is built from
engine events routed to it and ``game.view(seat)`` (spectators: seat None);
strategies decide from ``game.view(seat)`` (``Think``).
"""

from __future__ import annotations

import logging
import math
from collections import deque
from dataclasses import asdict
from typing import Any

from nimmt import protocol as P
from nimmt.bots import DEFAULT_LEVEL, StrategyError, parse_strategy
from nimmt.engine import (
    Deal,
    Event,
    Game,
)

from . import match_game, match_timing, translate
from .config import TableSettings
from .room import Member, Room, SeatState
from .match_state import MAX_DEFERRED, MAX_SPECTATORS, SPECTATOR_GRACE, Dealer, MatchState
from .match_io import (
    BotDecided,
    Disconnected,
    Effects,
    Input,
    Reconnected,
    Request,
    Who,
)
from .storage.facts import left_fact, seat_fact
from .match_data import (
    deal_from_data,
    deal_to_data,
    decision_from_data,
    decision_to_data,
    input_from_data,
    input_to_data,
    rng_from_data,
    rng_to_data,
)

__all__ = ["Match", "Dealer", "MAX_SPECTATORS", "SPECTATOR_GRACE", "MAX_DEFERRED"]

E = P.ErrorCode


_DECISIONS = (P.Commit, P.ChooseRow, P.ChooseTie, P.DraftPick)



class Match(MatchState):
    """One table's seats, spectators, options and (while playing) private ``Game``:
    its state (``MatchState``) with the interface."""

    def __repr__(self) -> str:
        return f"<Match {self.id} {self.status}>"

    # ================================================================== the interface
    def handle(self, item: Input, now: float, wall: float) -> Effects:
        """Take one input at time ``now`` (``wall``: the same moment as Unix time)."""
        self._begin_call(now, wall)
        if self.status != "closed":
            if self._backlog and self._waits_for_backlog(item):
                self._defer(item)
            else:
                self._dispatch(item)
            self._advance()
        return self._end_call()

    def wake(self, now: float, wall: float) -> Effects:
        """The time ``next_wake()`` asked for has come (calling it early is harmless)."""
        self._begin_call(now, wall)
        if self.status != "closed":
            self._on_timer()
            if self.status != "closed":
                self._advance()
        return self._end_call()

    def next_wake(self) -> float:
        """When to call ``wake`` next (``math.inf``: only for inputs)."""
        wake = min(self._close_at(), self._spectators_expire_at())
        if self.status != "playing" or self._game is None:
            return wake
        return min(wake, match_timing.wake_at(self))

    def close(self, why: str, now: float, wall: float, *, notify: bool = True) -> Effects:
        """Close the table: every member is told (``notify``) and released."""
        self._begin_call(now, wall)
        self._close(why, notify=notify)
        return self._end_call()

    @property
    def closed(self) -> bool:
        return self.status == "closed"

    @property
    def seats(self) -> list[SeatState | None]:
        return self.room.seats

    @property
    def members(self) -> dict[int, Member]:
        return self.room.members

    @property
    def host(self) -> int | None:
        return self.room.host

    def has_deferred(self, member: int) -> bool:
        """Whether an input of ``member`` waits for the paced steps to be out."""
        return any(isinstance(i, Request) and i.who.id == member for i in self._deferred)

    def place_bot(self, index: int, strategy: str, name: str | None) -> None:
        """Seat a built-in bot (the caller checked that the seat is free); its fact
        goes out with the next call's effects."""
        if not name:  # Bot 1, Bot 2, ... in the order they sit down, whatever the seat
            bots = sum(1 for seat in self.room.seats if seat is not None and seat.strategy)
            name = f"Bot {bots + 1}"
        name = self.room.unique_name(name)
        self.room.seats[index] = SeatState(index, name, strategy=strategy,
                                      seed=self._rng.randrange(2**32))
        self._fact(seat_fact(index, name, "builtin", strategy))
        self._log(logging.INFO, index, "bot %r (%s) sits down", name, strategy)

    def describe_options(self) -> str:
        s = self.settings
        parts = [f"limit={s.point_limit or '-'}", f"rounds={s.rounds or '-'}"]
        parts += [v for v in ("tactic_deck", "draft", "professional") if getattr(s, v)]
        parts.append(f"turn={s.turn_time:g}s step={s.step_delay:g}s")
        return " ".join(parts)

    # ================================================================== dispatch
    def _waits_for_backlog(self, item: Input) -> bool:
        """Inputs that must see what the paced steps will show first."""
        if isinstance(item, Reconnected):
            return True
        if isinstance(item, Request):
            return isinstance(item.msg, (*_DECISIONS, P.Watch)) or (
                isinstance(item.msg, P.CreateTable) and item.who.kind == "spectator")
        return False

    def _dispatch(self, item: Input) -> None:
        """The one dispatch on what came in."""
        match item:
            case Request(who=who, msg=msg):
                self._request(who, msg)
            case Disconnected(member=member, at=at):
                self._away(member, at)
            case Reconnected(member=member):
                self._resume(member)
            case BotDecided(seat=seat, key=key, decision=decision):
                match_game.bot_decided(self, seat, key, decision)

    def _request(self, who: Who, msg: P.Message) -> None:
        match msg:
            case P.Commit() | P.ChooseRow() | P.ChooseTie() | P.DraftPick():
                match_game.decide(self, who, msg)
            case P.Join():
                self._join(who, msg)
            case P.CreateTable() if who.kind == "spectator":
                self._watch(who, msg)
            case P.CreateTable():
                self._join(who, msg, host=True)
            case P.Watch():
                self._watch(who, msg)
            case P.Leave():
                self._leave(who, msg)
            case P.AddBot():
                self._add_bot(who, msg)
            case P.RemoveBot():
                self._remove_bot(who, msg)
            case P.Start():
                self._start(who, msg)
            case P.Chat():
                self._to_all(P.ChatMessage(name=who.name, seat=self.room.seat_of(who.id), text=msg.text))
            case _:
                self._refuse(who, msg, E.NOT_ALLOWED, f"{msg.TYPE} is not a table's request")

    # ================================================================== seats
    def _seat_for(self, who: Who, msg: Any) -> int | None:
        """The seat ``msg`` asks for (its ``seat``, or the first free one); None,
        with an error sent, when there is no such seat or it is taken."""
        found = self.room.free_seat(getattr(msg, "seat", None))
        if isinstance(found, tuple):
            self._refuse(who, msg, *found)
            return None
        return found

    def _join(self, who: Who, msg: Any, host: bool = False) -> None:
        member = self.room.members.get(who.id)
        if who.elsewhere or (member is not None and member.seat is not None):
            self._refuse(who, msg, E.NOT_ALLOWED, "you are already at a table: leave it first")
            return
        if self.status == "playing":
            self._refuse(who, msg, E.ALREADY_STARTED, "the game has started: watch it instead")
            return
        if who.kind == "spectator":
            self._refuse(who, msg, E.NOT_ALLOWED, "a spectator cannot take a seat")
            return
        index = self._seat_for(who, msg)
        if index is None:
            return
        name = self.room.unique_name(who.name)
        self.room.seats[index] = SeatState(index, name, member=who.id, client_kind=who.kind)
        self.room.members[who.id] = Member(who.id, who.name, who.kind, True, index)
        self._out.joined.append((who.id, index))
        self._fact(seat_fact(index, name, who.kind, member=who.id))
        if host or self.room.host is None:
            self.room.host = index
        self._refresh_presence()
        self._send(who.id, P.Seated(table=self.info(), seat=index, re=getattr(msg, "id", None)))
        self._log(logging.INFO, index, "%s (session %s) sits down", who.name, who.id)
        self._updated()
        if self.autostart and self.room.full():
            match_game.begin(self)

    def _watch(self, who: Who, msg: Any) -> None:
        if who.elsewhere or who.id in self.room.members:
            self._refuse(who, msg, E.NOT_ALLOWED, "you are already at a table: leave it first")
            return
        if self.room.spectators() >= self.max_spectators:
            self._refuse(who, msg, E.TABLE_FULL, f"the table has {self.max_spectators} "
                         "spectators, as many as it allows: watch another table")
            return
        self.room.members[who.id] = Member(who.id, who.name, who.kind, True, None)
        self._out.joined.append((who.id, None))
        self._refresh_presence()
        self._send(who.id, P.Watching(table=self.info(), re=getattr(msg, "id", None)))
        if self._game is not None and self.status == "playing":
            self._send(who.id, self._snapshot(None))
        self._log(logging.INFO, None, "%s (session %s) watches", who.name, who.id)
        self._updated()

    def _leave(self, who: Who, msg: Any, reason: str = "left") -> None:
        member = self.room.members.pop(who.id, None)
        if member is None:
            self._refuse(who, msg, E.NOT_ALLOWED, "you are not at this table")
            return
        self._out.released.append(who.id)
        index = member.seat
        if index is None:
            self._log(logging.INFO, None, "%s stops watching", who.name)
        else:
            seat = self.room.seats[index]
            if self.status == "playing" and seat is not None:
                seat.member = None
                seat.gone = True  # the game goes on: the autopilot plays this seat at once
                seat.away_since = self._now
                self._fact(left_fact(index))
            else:
                self.room.seats[index] = None
                self._fact(seat_fact(index, None))
            if self.room.host == index:
                self.room.host = self.room.next_host()
            self._log(logging.INFO, index, "%s leaves the table", who.name)
        self._send(who.id, P.Left(table_id=self.id, reason=reason, re=getattr(msg, "id", None)))
        self._refresh_presence()
        if self.status in ("waiting", "over") and not self.persistent and not self.room.members:
            self._close("everyone left")
            return
        self._updated()

    def _resume(self, member_id: int) -> None:
        """A member got a new connection: put it back, with a snapshot."""
        member = self.room.members.get(member_id)
        if member is None:
            return
        member.connected = True
        member.away_since = None
        index = member.seat
        if index is None:
            self._send(member_id, P.Watching(table=self.info()))
        else:
            seat = self.room.seats[index]
            if seat is None or seat.member != member_id:  # pragma: no cover
                return
            seat.away_since = None
            self._send(member_id, P.Seated(table=self.info(), seat=index))
        self._refresh_presence()
        if self._game is not None and self.status == "playing":
            self._send(member_id, self._snapshot(index))
            if index is not None and self._deadline is not None:
                deadline, remaining = self._wire_deadline()
                for msg in translate.requests_for(self._game.view(index), self._shown,
                                                  deadline, remaining):
                    self._send(member_id, msg)
        self._log(logging.INFO, index, "%s is back (session %s)", member.name, member_id)
        self._updated()

    def _away(self, member_id: int, at: float) -> None:
        """A member lost its connection (it may come back)."""
        member = self.room.members.get(member_id)
        if member is None:
            return
        member.connected = False
        index = member.seat
        if index is None:
            member.away_since = at  # removed after spectator_grace
        if index is not None:
            seat = self.room.seats[index]
            if seat is not None and seat.member == member_id:
                seat.away_since = at  # the grace runs from the drop
        self._log(logging.INFO, index, "%s is away", member.name)
        self._refresh_presence()
        self._updated()

    def _check_host(self, who: Who, msg: Any) -> bool:
        index = self.room.seat_of(who.id)
        if index is None or index != self.room.host:
            self._refuse(who, msg, E.NOT_HOST, "only the host may do that")
            return False
        if self.status == "playing":
            self._refuse(who, msg, E.ALREADY_STARTED, "the game has started")
            return False
        return True

    def _add_bot(self, who: Who, msg: P.AddBot) -> None:
        if not self._check_host(who, msg):
            return
        strategy = msg.strategy or DEFAULT_LEVEL
        try:
            parse_strategy(strategy)  # a level or a bare strategy name (the wire allows no ":")
        except StrategyError as e:
            self._refuse(who, msg, E.UNKNOWN_STRATEGY, str(e), "strategy")
            return
        index = self._seat_for(who, msg)
        if index is None:
            return
        self.place_bot(index, strategy, msg.name)
        self._updated(who.id, msg.id)
        if self.autostart and self.room.full():
            match_game.begin(self)

    def _remove_bot(self, who: Who, msg: P.RemoveBot) -> None:
        if not self._check_host(who, msg):
            return
        index = msg.seat
        seat = self.room.seats[index] if index < len(self.room.seats) else None
        if seat is None or not seat.builtin:
            self._refuse(who, msg, E.NO_SUCH_SEAT, f"no built-in bot in seat {index}", "seat")
            return
        self.room.seats[index] = None
        self._fact(seat_fact(index, None))
        self._log(logging.INFO, index, "bot removed")
        self._updated(who.id, msg.id)

    def _start(self, who: Who, msg: P.Start) -> None:
        if not self._check_host(who, msg):
            return
        if any(s is None for s in self.room.seats):
            self._refuse(who, msg, E.NOT_ENOUGH_PLAYERS,
                         "every seat must be taken: add bots to fill the empty ones")
            return
        match_game.begin(self)

    # ================================================================== closing
    def _spectators_expire_at(self) -> float:
        """When the first spectator who is away has been away ``spectator_grace``."""
        away = [m.away_since for m in self.room.members.values()
                if m.seat is None and m.away_since is not None]
        return min(away) + self.spectator_grace if away else math.inf

    def _expire_spectators(self) -> None:
        """Remove the spectators away for ``spectator_grace``: their session can no
        longer come back to watch (it would find itself in the lobby)."""
        gone = [m for m in self.room.members.values() if m.seat is None
                and m.away_since is not None
                and self._now >= m.away_since + self.spectator_grace]
        for member in gone:
            del self.room.members[member.id]
            self._out.released.append(member.id)
            self._log(logging.INFO, None, "%s (session %s) stops watching: away %g s",
                      member.name, member.id, self.spectator_grace)
        if gone:
            self._refresh_presence()
            self._updated()

    def _defer(self, item: Input) -> None:
        """Keep ``item`` until the paced steps are out; a member may have at most
        ``max_deferred`` requests waiting (more: refused, and counted against its rate)."""
        if isinstance(item, Request) and sum(
                1 for i in self._deferred
                if isinstance(i, Request) and i.who.id == item.who.id) >= self.max_deferred:
            self._refuse(item.who, item.msg, E.RATE_LIMITED,
                         f"{self.max_deferred} of your requests wait for this table "
                         "already: send fewer")
            self._out.charges.append((item.who.id, item.who.conn))
            return
        self._deferred.append(item)

    def _close_at(self) -> float:
        """When the table is closed because nobody is connected (inf: not now)."""
        since = self._nobody_since
        if since is None or self.status == "closed":
            return math.inf
        if self.status == "over":
            return max(since, self._over_since or since) + self.settings.keep_finished
        if self.status == "waiting" and self.persistent:
            return math.inf
        return since + self.settings.abandon_after

    def _on_timer(self) -> None:
        now = self._now
        if now >= self._spectators_expire_at():
            self._expire_spectators()
        if now >= self._close_at():
            if self.status == "over":
                self._close("finished, and nobody is at the table")
            else:
                self._close(f"abandoned: nobody connected for "
                            f"{self.settings.abandon_after:g} s")
            return
        if self.status != "playing" or self._backlog:
            return
        warning = match_timing.warn_at(self)
        if warning is not None and now >= warning:
            match_timing.warn(self)

    # ================================================================== one call
    def _advance(self) -> None:
        """Send what is due, take the inputs that waited for it, and make every decision
        that is due now: built-in bots at once, players whose deadline passed, and
        away players whose grace is over."""
        while True:
            if not match_timing.flush(self):
                return
            if self._deferred:
                self._dispatch(self._deferred.popleft())
                continue
            game = self._game
            if game is None or self.status != "playing" or game.is_over:
                return
            match_timing.open_decision(self)
            index = match_timing.due_seat(self)
            if index is None:
                return
            seat = self.room.seats[index]
            assert seat is not None and self._armed is not None
            if seat.builtin:
                match_timing.think(self, index, seat.strategy, seat.seed)
                continue
            decision = game.autopilot(index)
            if decision is None:
                match_timing.think(self, index, None, None)  # the table's fallback strategy
                continue
            how = "autopilot (time ran out): " if seat.away_since is None else \
                "autopilot (player away): "
            match_game.broadcast(self, match_game.apply(self, index, decision, how))

    # ================================================================== as data
    def to_data(self) -> dict[str, Any]:
        """The whole state as plain data (dicts, lists, str, int, float, bool, None):
        ``Match.from_data(m.to_data())`` behaves as ``m``. The game is kept as its
        deals and decisions, replayed on reading."""
        return {
            "version": 1,
            "id": self.id, "name": self.name, "settings": asdict(self.settings),
            "persistent": self.persistent, "autostart": self.autostart,
            "room": self.room.to_data(),
            "status": self.status, "games_played": self.games_played,
            "rng": rng_to_data(self._rng), "deal_rng": rng_to_data(self._deal_rng),
            "history": [["deal", deal_to_data(h)] if isinstance(h, Deal)
                        else ["decide", decision_to_data(h)] for h in self._history]
                       if self._game is not None else None,
            "armed": list(self._armed) if self._armed is not None else None,
            "deadline": self._deadline, "armed_at": self._armed_at, "warned": self._warned,
            "shown": list(self._shown),
            "chosen": [[seat, list(at)] for seat, at in self._chosen.items()],
            "nobody_since": self._nobody_since, "over_since": self._over_since,
            # the unsent events are the last ones the history produces
            "backlog": [[re, pause] for _, re, pause in self._backlog],
            "paced_until": self._paced_until,
            "deferred": [input_to_data(i) for i in self._deferred],
            "started_wall": self._started_wall,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any], *, dealer: Dealer | None = None) -> Match:
        """A match in the state ``to_data`` wrote (a built-in bot asked to think when
        the state was written is asked again by the next call)."""
        if data.get("version") != 1:
            raise ValueError(f"cannot read match data of version {data.get('version')!r}")
        settings = TableSettings(**data["settings"])
        m = cls(data["id"], data["name"], settings, now=0.0, persistent=data["persistent"],
                autostart=data["autostart"], dealer=dealer)
        m.room = Room.from_data(data["room"])
        m.status, m.games_played = data["status"], data["games_played"]
        m._rng = rng_from_data(data["rng"])
        m._deal_rng = rng_from_data(data["deal_rng"])
        events: list[Event] = []
        if data["history"] is not None:
            m._game = game = Game(settings.game_options())
            events = list(game.opening_events)
            for kind, item in data["history"]:
                if kind == "deal":
                    deal = deal_from_data(item)
                    m._history.append(deal)
                    events += game.deal(deal)
                else:
                    decision = decision_from_data(item)
                    m._history.append(decision)
                    events += game.apply(decision)
        m._armed = tuple(data["armed"]) if data["armed"] is not None else None
        m._deadline, m._armed_at, m._warned = data["deadline"], data["armed_at"], data["warned"]
        m._shown = (data["shown"][0], data["shown"][1])
        m._chosen = {seat: (at[0], at[1]) for seat, at in data["chosen"]}
        m._nobody_since, m._over_since = data["nobody_since"], data["over_since"]
        unsent = data["backlog"]
        if unsent:
            tail = events[len(events) - len(unsent):]
            m._backlog = deque((e, re, pause) for e, (re, pause) in zip(tail, unsent))
        m._paced_until = data["paced_until"]
        m._deferred = deque(input_from_data(d) for d in data["deferred"])
        m._started_wall = data.get("started_wall", 0.0)
        return m

