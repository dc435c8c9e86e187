"""A table's game flow as a sans-IO state machine: requests and times in, effects out.

``Match`` owns everything that happens at one table: the seats and who sits in
them, the spectators, the engine ``Game`` (private: it never leaves), the
deadline of the decision awaited and its warning, the autopilot, the grace of
away players, the Draft announcements and the pacing of resolution steps. It
does no I/O and reads no clock: every call takes the time (``now``, the
server's monotonic clock, and ``wall``, Unix time for the deadlines on the
wire) and returns an ``Effects`` (see ``io``); ``next_wake()`` says when
it wants to be called again (``wake``). A paced step is output scheduled for
later, not a sleep: requests that need what was shown (decisions, ``watch``)
wait in the match until the paced steps are out, and every later input of their
session waits behind them; a member's connection dropping or coming back is its
presence at once (one who comes back is greeted after the steps); the others are
answered at once. What each status takes is ``rules.RULES``.

Hidden information by construction: everything sent to a seat is built from
engine events routed to it and ``game.view(seat)`` (spectators: seat None);
strategies decide from ``game.view(seat)`` (``Think``).

This module is the interface and the loop of one call (``_advance``); the state
is ``state.MatchState`` and the work is done by the functions of
``seats`` (seats, requests), ``play`` (the game's decisions),
``timing`` (deadlines, autopilot, pacing) and ``events`` (events as
messages).
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from nimmt import protocol as P
from nimmt.engine import Deal, Decision, Event, FairDeal, Game, RoundScored

from . import play as match_game

from . import reveals as match_reveals

from . import seats as match_seats

from . import timing as match_timing

from . import translate
from ..config import TableSettings
from .bank import Bank
from .deal_commitment import DealCommitment
from .data import (
    bank_from_data,
    bank_to_data,
    deal_from_data,
    deal_to_data,
    decision_from_data,
    decision_to_data,
    fair_from_data,
    fair_to_data,
    input_from_data,
    input_to_data,
    rng_from_data,
    rng_to_data,
)
from .io import BotDecided, Disconnected, Effects, Greet, Input, Reconnected, Request
from .state import MAX_DEFERRED, MAX_SPECTATORS, SPECTATOR_GRACE, Dealer, MatchState
from .room import Member, Room, SeatState

__all__ = ["Match", "Dealer", "MAX_SPECTATORS", "SPECTATOR_GRACE", "MAX_DEFERRED"]

E = P.ErrorCode

_DECISIONS = (P.Commit, P.ChooseRow, P.ChooseTie, P.DraftPick)


def _session_of(item: Input) -> int | None:
    """The session an input comes from (None: a bot's answer)."""
    match item:
        case Request(who=who):
            return who.id
        case Disconnected(member=member) | Reconnected(member=member) | Greet(member=member):
            return member
    return None


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
            self._take(item)
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
        if self._wake_memo is not None:
            return self._wake_memo
        wake = min(self._close_at(), match_seats.spectators_expire_at(self),
                   match_reveals.ends_at(self))
        if self.status == "playing" and self._game is not None:
            wake = min(wake, match_timing.wake_at(self), match_timing.pause_ends_at(self))
        self._wake_memo = wake
        return wake

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
        """Whether a request of ``member`` waits for the paced steps to be out."""
        return any(isinstance(i, Request) and i.who.id == member for i in self._deferred)

    def place_bot(self, index: int, strategy: str, name: str | None) -> None:
        """Seat a built-in bot (the caller checked that the seat is free); its fact
        goes out with the next call's effects."""
        match_seats.place_bot(self, index, strategy, name)
        self._wake_memo = None

    def describe_options(self) -> str:
        s = self.settings
        parts = [f"limit={s.point_limit or '-'}", f"rounds={s.rounds or '-'}"]
        parts += [v for v in ("tactic_deck", "draft", "professional") if getattr(s, v)]
        parts.append(f"turn={s.turn_time:g}s step={s.step_delay:g}s")
        return " ".join(parts)

    # ================================================================== one call
    def _take(self, item: Input) -> None:
        """Every input in the order it came. A member's connection coming or going is
        its presence at once (one who comes back is greeted when the paced steps are
        out); any input of a session whose request waits for the steps waits behind
        it; requests that must see what the steps show wait for them; the rest is
        handled now."""
        session = _session_of(item)
        if isinstance(item, (Disconnected, Reconnected)) and item.member in self.room.members:
            self._presence(item)
        elif self._deferred and session is not None and self.has_deferred(session):
            self._defer(item)
        elif self._backlog and self._waits_for_backlog(item):
            self._defer(item)
        else:
            self._dispatch(item)

    def _presence(self, item: Disconnected | Reconnected) -> None:
        """A member's connection dropped (``Disconnected``) or is back (``Reconnected``)."""
        if isinstance(item, Disconnected):
            if item.member == self._paused_by:
                match_timing.resume(self)  # nobody reads the help any more
            self._resuming.discard(item.member)
            match_seats.away(self, item.member, item.at)
        elif match_seats.back(self, item.member):
            if self._backlog:
                if item.member not in self._resuming:
                    self._resuming.add(item.member)
                    self._deferred.append(Greet(item.member))
            else:
                match_seats.greet(self, item.member)
            self._updated()

    def _waits_for_backlog(self, item: Input) -> bool:
        """Inputs that must see what the paced steps will show first."""
        if isinstance(item, Request):
            return isinstance(item.msg, (*_DECISIONS, P.Watch)) or (
                isinstance(item.msg, P.CreateTable) and item.who.kind == "spectator")
        return False

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

    def _dispatch(self, item: Input) -> None:
        """The one dispatch on what came in."""
        match item:
            case Request(who=who, msg=msg):
                match_seats.request(self, who, msg)
            case Disconnected() | Reconnected():
                self._presence(item)
            case Greet(member=member):
                if member in self._resuming:
                    self._resuming.discard(member)
                    match_seats.greet(self, member)
            case BotDecided(seat=seat, key=key, decision=decision):
                match_game.bot_decided(self, seat, key, decision)

    def _advance(self) -> None:
        """Send what is due, take the inputs that waited for it, and make every decision
        that is due now: built-in bots at once, players whose deadline passed, and
        away players whose grace is over."""
        if self.status == "waiting" and self.autostart and self.room.full():
            # a table read back by a restart while its reveals were asked for (the
            # status is not kept): its game starts, asking again for those not made
            match_reveals.start(self)
        while True:
            if not match_timing.send_due_steps(self):
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
            match_game.decide_for(self, index, self._armed, decision)

    # ================================================================== timers
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
        if now >= match_seats.spectators_expire_at(self):
            match_seats.expire_spectators(self)
        if now >= self._close_at():
            if self.status == "over":
                self._close("finished, and nobody is at the table")
            else:
                self._close(f"abandoned: nobody connected for "
                            f"{self.settings.abandon_after:g} s")
            return
        if self.status == "revealing" and now >= match_reveals.ends_at(self):
            match_reveals.time_up(self)  # the reveals not made are withheld: the game starts
        if self.status == "playing" and now >= match_timing.pause_ends_at(self):
            match_timing.resume(self)
        if self.status != "playing" or self._backlog:
            return
        warning = match_timing.warn_at(self)
        if warning is not None and now >= warning:
            match_timing.warn(self)

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
            "paused": [self._paused_at, self._paused_by] if self._paused_at is not None else None,
            "shown": list(self._shown),
            "chosen": [[seat, list(at)] for seat, at in self._chosen.items()],
            "nobody_since": self._nobody_since, "over_since": self._over_since,
            # the unsent events are the last ones the history produces
            "backlog": [[re, pause] for _, re, pause in self._backlog],
            "paced_until": self._paced_until,
            "deferred": [input_to_data(i) for i in self._deferred],
            "started_wall": self._started_wall,
            "reveal_until": [self._reveal_until, self._reveal_wire]
                            if self._reveal_until is not None else None,
            "resuming": sorted(self._resuming),
            "scores_shown": [list(part) for part in self._scores_shown]
                            if self._scores_shown is not None else None,
            # None: a test's dealer deals, not the committed seed
            "deal": self._deal.to_data() if self._deal is not None else None,
            "fair": fair_to_data(self._fair),
            "bank": bank_to_data(self._bank),
            "autoplayed": [[member, [a.to_wire() for a in made]]
                           for member, made in self._autoplayed.items()],
        }

    @classmethod
    def from_data(cls, data: dict[str, Any], *, dealer: Dealer | None = None) -> Match:
        """A match in the state ``to_data`` wrote (a built-in bot asked to think when
        the state was written is asked again by the next call)."""
        if data.get("version") != 1:
            raise ValueError(f"cannot read match data of version {data.get('version')!r}")
        settings = TableSettings(**data["settings"])
        deal = DealCommitment.from_data(data["deal"]) if data["deal"] is not None else None
        if dealer is None and deal is None:
            dealer = translate.random_deal  # it was dealt by a dealer, not from a seed
        m = cls(data["id"], data["name"], settings, now=0.0, persistent=data["persistent"],
                autostart=data["autostart"], dealer=dealer, deal=deal)
        m.room = Room.from_data(data["room"])
        m.status, m.games_played = data["status"], data["games_played"]
        m._rng = rng_from_data(data["rng"])
        m._deal_rng = rng_from_data(data["deal_rng"])
        m._fair = fair_from_data(data.get("fair"))
        if data["history"] is not None:
            m._replay([deal_from_data(item) if kind == "deal" else decision_from_data(item)
                       for kind, item in data["history"]],
                      [(re, pause) for re, pause in data["backlog"]])
        m._armed = tuple(data["armed"]) if data["armed"] is not None else None
        m._deadline, m._armed_at, m._warned = data["deadline"], data["armed_at"], data["warned"]
        if data.get("paused") is not None:
            m._paused_at, m._paused_by = data["paused"]
        m._shown = (data["shown"][0], data["shown"][1])
        m._chosen = {seat: (at[0], at[1]) for seat, at in data["chosen"]}
        m._nobody_since, m._over_since = data["nobody_since"], data["over_since"]
        m._paced_until = data["paced_until"]
        m._deferred = deque(input_from_data(d) for d in data["deferred"])
        m._started_wall = data.get("started_wall", 0.0)
        if data.get("reveal_until") is not None:
            m._reveal_until, m._reveal_wire = data["reveal_until"]
        m._resuming = set(data.get("resuming", ()))
        shown = data.get("scores_shown")
        m._scores_shown = (tuple(shown[0]), tuple(shown[1])) if shown is not None else None
        m._bank = bank_from_data(data.get("bank"))
        m._autoplayed = {member: [P.Autoplayed(**a) for a in made]
                         for member, made in data.get("autoplayed", ())}
        return m

    @classmethod
    def restored(cls, table_id: str, name: str, settings: TableSettings, *, now: float,
                 persistent: bool, autostart: bool, dealer: Dealer | None,
                 deal: DealCommitment | None, room: Room, status: str, games_played: int,
                 history: Sequence[Deal | Decision] | None = None,
                 unsent: Sequence[tuple[int | None, bool]] = (), shown: tuple[int, int] = (0, 0),
                 fair: FairDeal | None = None, bank: Bank | None = None,
                 started_wall: float = 0.0) -> Match:
        """A table brought back by a restart (``tables.restore``) from what the database
        keeps: ``deal`` (None: not kept, a new seed is drawn and kept), the seats and
        members, its game's ``history`` (None: no game yet) and the events of it not
        sent yet (``unsent``: their request id and pacing), the round and turn shown,
        ``fair`` (the game in progress, dealt from its committed seed; None: not
        verifiably) and its time banks. Everything else is a new match's at ``now``:
        no decision armed (the one awaited gets its whole time again), nothing
        deferred, the clock of a table nobody is connected to running."""
        m = cls(table_id, name, settings, now=now, persistent=persistent,
                autostart=autostart, dealer=dealer, deal=deal)
        m.room = room
        m.status, m.games_played = status, games_played
        m._fair, m._bank, m._shown, m._started_wall = fair, bank, shown, started_wall
        if status == "over":
            m._over_since = now
        if history is not None:
            m._deal_rng = random.Random(m._rng.randrange(2**63))  # a game not dealt fairly
            m._replay(history, unsent)
        return m

    def _replay(self, history: Iterable[Deal | Decision],
                unsent: Sequence[tuple[int | None, bool]]) -> None:
        """The game rebuilt from its deals and decisions; its last ``len(unsent)``
        events wait to be sent."""
        self._game = game = Game(self.settings.game_options())
        events: list[Event] = list(game.opening_events)
        for item in history:
            self._history.append(item)
            events += game.deal(item) if isinstance(item, Deal) else game.apply(item)
        shown = events[:len(events) - len(unsent)]
        self._rounds_shown = [e.penalties for e in shown if isinstance(e, RoundScored)]
        if unsent:
            tail = events[len(events) - len(unsent):]
            self._backlog = deque((e, re, pause) for e, (re, pause) in zip(tail, unsent))
