"""What one table's match knows, and the plumbing every part of it uses.

``MatchState`` holds a table's seats and members (``room``), its options, the
engine ``Game`` (private: it never leaves the match), the decision awaited and
its deadline, the events not sent yet and the output of the call in progress.
The match's parts are plain functions over it, each in its own module:
``seats`` (who sits where; the requests a table takes), ``play``
(starting a game, dealing, applying decisions, its end), ``timing``
(deadlines, warnings, the autopilot, the bots' turns to think, the pacing of the
steps) and ``events`` (engine events as wire messages). ``match.Match`` is
a ``MatchState`` with the interface (``handle``, ``wake``, ``next_wake``...).
The parts read and write the underscored fields directly: the underscore keeps
them out of ``Match``'s public API.
"""

from __future__ import annotations

import logging
import random
from collections import deque
from collections.abc import Callable, Container, Mapping
from typing import Any

from nimmt import protocol as P
from nimmt.engine import Deal, Decision, FairDeal, Game

from . import translate
from .deal_commitment import DealCommitment
from ..config import TableSettings
from .events import Queued
from .io import Effects, Input, Request, Who
from .room import Room
from ..storage.facts import Fact

__all__ = ["MatchState", "Dealer", "MAX_SPECTATORS", "SPECTATOR_GRACE", "MAX_DEFERRED", "log"]

log = logging.getLogger("nimmt.server")

#: chance: ``dealer(options, pending, view, rng) -> Deal`` (tests pass their own)
Dealer = Callable[..., Any]

#: defaults of the table's limits (the server passes its settings: docs/SERVER.md, "Limits")
MAX_SPECTATORS = 100  # spectators at one table; one more watch: table_full
SPECTATOR_GRACE = 120.0  # a spectator whose connection dropped is removed after this
MAX_DEFERRED = 16  # one member's requests waiting for the paced steps; more: rate_limited


class MatchState:
    """One table's seats, spectators, options and (while playing) private ``Game``."""

    def __init__(self, table_id: str, name: str, settings: TableSettings, *, now: float,
                 persistent: bool = False, autostart: bool = False, seed: int | None = None,
                 dealer: Dealer | None = None, max_spectators: int = MAX_SPECTATORS,
                 spectator_grace: float = SPECTATOR_GRACE,
                 max_deferred: int = MAX_DEFERRED, deal: DealCommitment | None = None) -> None:
        """``deal``: the table's seed and contributions as kept (a match read back);
        None: a new table, which draws its seed and keeps it (a fact of the first call)."""
        self.id = table_id
        self.name = name
        self.settings = settings
        self.options = settings.to_wire()
        self.persistent = persistent  # the --bots table: never closed while it waits
        self.autostart = autostart  # start as soon as every seat is taken
        # None: deals derived from a committed seed (docs/PROTOCOL.md, "Verifiable deals")
        self.dealer: Dealer | None = dealer
        self.max_spectators = max_spectators  # a watch past it: table_full
        self.claimed_names: Container[str] = ()  # casefolded; the lobby's (claims.py)
        # casefolded rated name -> (rating, games): the lobby's (ladder.py), shown at the seats
        self.seat_ratings: Mapping[str, tuple[float, int]] = {}
        self.spectator_grace = spectator_grace  # a spectator away this long is removed
        self.max_deferred = max_deferred  # a member's requests waiting for the steps
        self.room = Room(settings.seats)
        self.status = "waiting"  # waiting, playing, over, closed
        self.games_played = 0
        self._rng = random.Random(seed)
        self._deal_rng = random.Random(0)
        # a seeded match (tests, reproducible runs) draws its deal seeds from its own
        # stream; otherwise they are unpredictable
        self._seed_stream = None if seed is None else random.Random(f"fair deal {seed}")
        # the next game's seed and contributions (while playing: this one's); None when
        # a test's dealer deals
        self._deal: DealCommitment | None = None
        if dealer is None:
            self._deal = deal if deal is not None else DealCommitment.draw(self._seed_stream)
        self._fair: FairDeal | None = None  # the game being played (or just over), dealt fairly
        # status "revealing": when the reveals awaited are withheld (the match's clock),
        # and that moment as announced on the wire (Unix time)
        self._reveal_until: float | None = None
        self._reveal_wire: float | None = None
        self._game: Game | None = None  # private: never handed out
        self._history: list[Deal | Decision] = []  # this game's deals and decisions, in order
        # the decision awaited and its timer
        self._armed: tuple[Any, ...] | None = None
        self._deadline: float | None = None
        # the deadline as announced on the wire (Unix time), fixed when it is armed:
        # every message about this decision carries exactly this value
        self._wire_at: float | None = None
        self._armed_at = 0.0
        self._warned = False
        # a solo game's clock stopped (match_timing.pause): since when, and by whom
        self._paused_at: float | None = None
        self._paused_by: int | None = None
        self._bank: Any = None  # the seats' time banks this game (match_bank.Bank)
        self._shown = (0, 0)  # the round and turn the players have been told of
        self._chosen: dict[int, tuple[int, int]] = {}  # seat -> (round, turn) of its last choice
        self._nobody_since: float | None = now
        self._over_since: float | None = None
        # output not sent yet: (event, request id, a paced step starts here)
        self._backlog: deque[Queued] = deque()
        self._paced_until: float | None = None
        self._deferred: deque[Input] = deque()  # inputs that wait for the backlog
        # members connected again while steps were paced: greeted once they are out
        self._resuming: set[int] = set()
        # (totals, this round's penalties) as the table has been shown them: the lobby
        # hears no more than that (the game is ahead while steps are paced)
        self._scores_shown: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        # each round's penalties as the table has been shown them (round_scored), this
        # game's (or the last game's): told to whoever sits down, watches or comes back
        self._rounds_shown: list[tuple[int, ...]] = []
        # member -> what the autopilot decided for its seat while its connection was
        # down (told when it is back, in its ``seated``)
        self._autoplayed: dict[int, list[P.Autoplayed]] = {}
        # seat -> the decision key a strategy was asked to decide for it (a Think not
        # answered yet)
        self._asked: dict[int, tuple[Any, ...]] = {}
        self._now = now
        self._wall = 0.0
        self._started_wall = 0.0  # when this game started (Unix time), for its record
        self._out = Effects()
        if self._deal is not None and deal is None:  # a restart deals from the seed shown
            self._fact(self._deal.fact())
        # ``Match.next_wake`` as worked out since the last call (None: not yet);
        # only a call (or a bot placed) changes it
        self._wake_memo: float | None = None

    def info(self) -> P.TableInfo:
        """The table as the lobby lists it (public information only)."""
        game = self._game
        totals = penalties = None
        if game is not None:
            if self._scores_shown is None or not self._backlog:
                self._scores_shown = (game.totals, game.view(None).penalties)
            totals, penalties = self._scores_shown
            if self.status != "playing":
                penalties = None
        # the wire knows no "revealing": the game has not started yet
        status = {"closed": "over", "revealing": "waiting"}.get(self.status, self.status)
        return P.TableInfo(table_id=self.id, name=self.name, options=self.options,
                           seats=self.room.seat_infos(totals, penalties, self.claimed_names,
                                                      self.seat_ratings),
                           host=self.room.host,
                           status=status, spectators=self.room.spectators(),
                           commitment=self.commitment)

    @property
    def commitment(self) -> str | None:
        """The SHA-256 (hex) of the seed the next game (while playing: this game) is
        dealt from; None when a test's dealer deals."""
        return self._deal.commitment if self._deal is not None else None

    def _change_deal(self, deal: DealCommitment) -> None:
        """The seed or a contribution changed: kept at once (a restart deals from it)."""
        if deal != self._deal:
            self._deal = deal
            self._fact(deal.fact())

    # ================================================================== plumbing
    def _begin_call(self, now: float, wall: float) -> None:
        # self._out may hold facts from place_bot: they go out with this call's effects
        self._now, self._wall = now, wall

    def _end_call(self) -> Effects:
        self._wake_memo = None
        out, self._out = self._out, Effects()
        return out

    def _fact(self, fact: Fact) -> None:
        self._out.facts.append(fact)

    def _reachable(self, member: int) -> bool:
        # A member whose connection dropped gets nothing until it is back: it then
        # gets a snapshot. (Its new connection may already be bound while this
        # table still handles the drop, and must not see the drop's messages.)
        known = self.room.members.get(member)
        return known is None or (known.connected and member not in self._resuming)

    def _send(self, member: int, msg: P.Message) -> None:
        if self._reachable(member):
            self._out.sends.append((member, msg))

    def _to_seat(self, index: int, msg: P.Message) -> None:
        seat = self.room.seats[index]
        if seat is not None and seat.member is not None:
            self._send(seat.member, msg)

    def _to_all(self, msg: P.Message) -> None:
        sends = self._out.sends
        resuming = self._resuming
        for member, known in self.room.members.items():
            if known.connected and member not in resuming:
                sends.append((member, msg))

    def _refuse(self, who: Who | None, msg: Any, code: str, text: str,
                field: str | None = None) -> None:
        if who is None:
            return
        self._send(who.id, P.Error(code=code, message=text, field=field,
                                   request=getattr(msg, "TYPE", None),
                                   re=getattr(msg, "id", None)))

    def _updated(self, asker: int | None = None, re: int | None = None,
                 table: bool = True) -> None:
        """Tell everyone at the table (``table``), and the lobby, how the table looks
        now; ``asker`` gets it as the reply to its request ``re``."""
        if table:
            info = self.info()
            msg = P.TableUpdated(table=info)
            for member in self.room.members:
                self._send(member, msg if member != asker or re is None
                           else P.TableUpdated(table=info, re=re))
        self._out.changed = True

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

    def _refresh_presence(self) -> None:
        """Start (or stop) the clock that closes a table nobody is connected to."""
        if self.room.someone_connected():
            self._nobody_since = None
        elif self._nobody_since is None:
            self._nobody_since = self._now

    # ================================================================== on the wire
    def _wire_deadline(self) -> tuple[float, float]:
        """The armed deadline as (absolute Unix time, seconds left). The Unix time is the
        one announced when the decision was armed, so that a client can match a warning,
        a snapshot or a request sent again with it (docs/PROTOCOL.md); a match read
        back by ``from_data`` derives it from the clock at its first call."""
        assert self._deadline is not None
        now = self._now  # paused: the clock shows what is left when it runs again
        if self._paused_at is not None:
            now = max(self._paused_at, self._armed_at)
        remaining = max(0.0, self._deadline - now)
        if self._wire_at is None:
            self._wire_at = self._wall + remaining
        return self._wire_at, remaining

    def _round_penalties(self) -> tuple[tuple[int, ...], ...]:
        """Each round's penalties shown so far, as ``seated``/``watching`` carry them."""
        return tuple(self._rounds_shown[:P.MAX_ROUNDS_SENT])

    def _snapshot(self, index: int | None) -> P.Snapshot:
        """Everything ``index`` may know now (None: a spectator), from ``game.view``."""
        game = self._game
        assert game is not None
        deadline = remaining = None
        if self._deadline is not None:
            deadline, remaining = self._wire_deadline()
        return translate.snapshot(game.view(index), self.info(), deadline, remaining)

    # ================================================================== closing
    def _close(self, why: str, notify: bool = True) -> None:
        """Close the table: every member is told (``notify``) and released, and what
        waited to be sent or decided is dropped."""
        if self.status == "closed":
            return
        self._log(logging.INFO, None, "closed: %s", why)
        self.status = "closed"
        self._backlog.clear()
        for item in self._deferred:  # a request never handled gets its answer
            if isinstance(item, Request) and item.who.id not in self.room.members:
                self._refuse(item.who, item.msg, P.ErrorCode.NO_SUCH_TABLE,
                             "the table is closed")
                self._out.refused.append(item.who.id)
        self._deferred.clear()
        self._resuming.clear()
        self._paced_until = None
        self._asked.clear()
        for member in self.room.members:
            if notify:
                self._send(member, P.Left(table_id=self.id, reason="table_closed"))
            self._out.released.append(member)
        self.room.members.clear()
        self._out.closed = why
