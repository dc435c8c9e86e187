"""A table's game: decisions in, events out, paced, with every deadline.

``GameFlow`` is the half of ``Table`` that runs the game: it applies decisions
to the table's private ``Game``, deals, makes the decisions that are due
(built-in bots; the autopilot at a deadline or for an away player), and
broadcasts the events step by step, each seat and spectator getting only what
it may see (``event.visible(seat)``, ``game.view(seat)``).
"""

from __future__ import annotations

import logging
import math
import random
import time
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable

import trio

from nimmt import protocol as P
from nimmt.bots import Strategy
from nimmt.engine import (
    AwaitingCommits,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
    CardPlaced,
    CardsRevealed,
    ChooseRow,
    ChooseTie,
    Commit,
    CommitAccepted,
    Decision,
    DraftOpened,
    DraftPick,
    DraftPicked,
    End,
    Event,
    Game,
    GameOver,
    HandDealt,
    IllegalDecision,
    NotYourDecision,
    Place,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    StaleTurn,
    TieChoiceNeeded,
    TurnStarted,
)

from . import wire
from .config import TableSettings

if TYPE_CHECKING:  # pragma: no cover
    from .lobby import Lobby
    from .session import Seat, Session

__all__ = ["GameFlow"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode

# events that open a resolution step (a RowTaken and the CardPlaced after it are one step)
_STEP_EVENTS = (RowTaken, CardPlaced, RowChoiceNeeded, TieChoiceNeeded)


class GameFlow:
    """The game half of a ``Table`` (which provides the attributes declared here)."""

    lobby: Lobby
    settings: TableSettings
    seats: list[Seat | None]
    status: str
    games_played: int
    _rng: random.Random
    _deal_rng: random.Random
    _game: Game | None
    _fallback: Strategy
    _armed: tuple[Any, ...] | None
    _deadline: float | None
    _armed_at: float
    _warned: bool
    _shown: tuple[int, int]
    _chosen: dict[int, tuple[int, int]]
    _over_since: float | None

    if TYPE_CHECKING:  # provided by Table

        def _log(self, level: int, seat: int | None, text: str, *args: Any) -> None: ...
        def _to_seat(self, index: int, msg: Any) -> None: ...
        def _to_all(self, msg: Any) -> None: ...
        def _updated(self, asker: Session | None = None, re: int | None = None,
                 table: bool = True) -> None: ...
        def _refuse(self, session: Session | None, msg: Any, code: str, text: str,
                 field: str | None = None) -> None: ...
        def _seat_of(self, session: Session) -> int | None: ...
        def _person_watching(self) -> bool: ...
        def _refresh_presence(self) -> None: ...
        def info(self) -> P.TableInfo: ...

    # ------------------------------------------------------------------ the game
    async def _begin(self) -> None:
        options = self.settings.game_options()
        self._game = Game(options)  # no rng: the table deals (see _deal)
        self._deal_rng = random.Random(self._rng.randrange(2**63))
        self.status = "playing"
        self._over_since = None
        self._armed = None
        self._deadline = None
        self._shown = (0, 0)
        for seat in self.seats:
            assert seat is not None
            seat.gone = False
        self.games_played += 1
        self._log(logging.INFO, None, "game %d starts: %s", self.games_played,
                  ", ".join(f"{s.index}={s.name}" for s in self.seats if s is not None))
        self._chosen: dict[int, tuple[int, int]] = {}
        self.lobby.table_started(self)
        # the players learn of the start from round_started (docs/PROTOCOL.md example)
        self._updated(table=False)
        events = list(self._game.opening_events)
        events += self._deal_if_due()
        await self._broadcast(events)
        await self._autoplay()

    async def _decide(self, session: Session, msg: Any) -> None:
        game = self._game
        index = self._seat_of(session)
        if index is None or game is None or self.status != "playing":
            self._refuse(session, msg, E.NOT_ALLOWED, "you are not playing at this table")
            return
        try:
            decision = self._decision_from(index, msg, game)
            events = game.apply(decision)
            events += self._deal_if_due()
        except IllegalDecision as e:
            self._refuse(session, msg, wire.error_code(e, msg), str(e), wire.error_field(e, msg))
            if session.client is not None:
                session.client.charge()  # a refused decision counts against the rate
            return
        if isinstance(decision, Commit) and not any(isinstance(e, SeatCommitted)
                                                   for e in events):
            if session.client is not None:
                session.client.charge()  # so does a replaced commit
        if isinstance(decision, (ChooseRow, ChooseTie)):
            self._chosen[index] = self._shown
        self._log_decision(index, decision, events)
        await self._broadcast(events, msg.id)
        await self._autoplay()

    def _deal_if_due(self) -> list[Event]:
        """Chance: deal a round (or, after a draft, its rows) when the game waits for it."""
        game = self._game
        assert game is not None
        pending = game.pending
        if not isinstance(pending, AwaitingDeal):
            return []
        dealer = self.lobby.dealer or wire.random_deal
        return game.deal(dealer(game.options, pending, game.view(None), self._deal_rng))

    def _decision_from(self, seat: int, msg: Any, game: Game) -> Decision:
        """The engine decision for ``msg``; raises ``IllegalDecision`` (with the
        error the protocol prescribes) when it is not the decision awaited."""
        pending = game.pending
        if isinstance(msg, P.Commit):
            if not isinstance(pending, AwaitingCommits):
                raise StaleTurn("the cards of this turn are revealed: no more commits")
            return Commit(seat, msg.card, msg.round, msg.turn)
        if isinstance(msg, P.DraftPick):
            if not isinstance(pending, AwaitingDraftPick):
                raise StaleTurn("no draft pick is awaited now")
            if (msg.round, msg.pick) != (pending.round, pending.pick):
                raise StaleTurn(f"pick {msg.pick} of round {msg.round} is not awaited: "
                                f"this is pick {pending.pick} of round {pending.round}")
            if pending.seat != seat:
                raise NotYourDecision(f"seat {pending.seat} picks now, not you")
            return DraftPick(seat, msg.card)
        if (msg.round, msg.turn) != self._shown:
            raise StaleTurn(f"round {msg.round} turn {msg.turn} is not being played: "
                            f"this is round {self._shown[0]} turn {self._shown[1]}")
        wanted = AwaitingRowChoice if isinstance(msg, P.ChooseRow) else AwaitingTieChoice
        if not isinstance(pending, wanted) or pending.seat != seat:
            if self._chosen.get(seat) == self._shown:
                raise StaleTurn("your choice of this turn is made (by you or the autopilot)")
            raise NotYourDecision("no such choice is awaited from you")
        if isinstance(msg, P.ChooseRow):
            return ChooseRow(seat, msg.row)
        return ChooseTie(seat, Place(msg.place.row, End(msg.place.end)))

    def _log_decision(self, seat: int, decision: Decision, events: list[Event],
                      how: str = "") -> None:
        if not log.isEnabledFor(logging.INFO):
            return
        if isinstance(decision, Commit):
            # never log the card before the reveal: the host may be a player
            replaced = not any(isinstance(e, SeatCommitted) for e in events)
            self._log(logging.INFO, seat, "%s%s", how, "changed its commit" if replaced
                      else "committed a card")
        elif isinstance(decision, ChooseRow):
            self._log(logging.INFO, seat, "%schose row %d", how, decision.row)
        elif isinstance(decision, ChooseTie):
            self._log(logging.INFO, seat, "%schose row %d %s", how, decision.place.row,
                      decision.place.end.value)
        else:
            self._log(logging.INFO, seat, "%spicked %d", how, decision.card)

    async def _autoplay(self) -> None:
        """Make every decision that is due now: built-in bots at once, players whose
        deadline passed, and away players whose grace is over."""
        game = self._game
        while game is not None and self.status == "playing" and not game.is_over:
            self._open_decision()
            now = trio.current_time()
            index = self._due_seat(now)
            if index is None:
                return
            seat = self.seats[index]
            assert seat is not None
            view = game.view(index)
            if seat.builtin:
                decision = seat.strategy.decide(view)  # type: ignore[union-attr]
                how = ""
            else:
                decision = game.autopilot(index) or self._fallback.decide(view)
                how = "autopilot (time ran out): " if seat.away_since is None else \
                    "autopilot (player away): "
            events = game.apply(decision)
            events += self._deal_if_due()
            if isinstance(decision, (ChooseRow, ChooseTie)):
                self._chosen[index] = self._shown
            self._log_decision(index, decision, events, how)
            await self._broadcast(events)
            await trio.lowlevel.checkpoint()  # a table of bots does not hog the loop

    def _autoplay_at(self, index: int) -> float | None:
        """When an away player's pending decision is made for them (None: at the deadline)."""
        seat = self.seats[index]
        if seat is None or seat.builtin:
            return None
        if seat.gone:
            return -math.inf
        if seat.away_since is None:
            return None
        if self.settings.autoplay_when_away == "immediately":
            return seat.away_since
        return seat.away_since + self.settings.grace_time

    def _due_seat(self, now: float) -> int | None:
        game = self._game
        assert game is not None
        pending = game.pending
        if pending is None:
            return None
        late = self._deadline is not None and now >= self._deadline
        for index in sorted(pending.seats):
            seat = self.seats[index]
            if seat is None:  # pragma: no cover
                continue
            if seat.builtin or late:
                return index
            at = self._autoplay_at(index)
            if at is not None and now >= at:
                return index
        return None

    def _open_decision(self) -> None:
        """Arm the deadline of the decision the game waits for, if it is a new one;
        draft picks are announced here (the engine has no event for them)."""
        game = self._game
        assert game is not None
        pending = game.pending
        if pending is None:
            self._armed = self._deadline = None
            return
        if isinstance(pending, AwaitingCommits):
            key: tuple[Any, ...] = ("commit", pending.round, pending.turn)
            duration = self.settings.turn_time
        elif isinstance(pending, (AwaitingRowChoice, AwaitingTieChoice)):
            key = ("choice", game.round, game.turn, pending.seat, pending.card)
            duration = self.settings.choice_time
        elif isinstance(pending, AwaitingDraftPick):
            key = ("draft", pending.round, pending.pick)
            duration = self.settings.draft_time
        else:  # pragma: no cover - the table deals at once (_deal_if_due)
            self._armed = self._deadline = None
            return
        if key == self._armed:
            return
        now = trio.current_time()
        self._armed = key
        self._armed_at = now
        self._deadline = now + duration
        self._warned = False
        if isinstance(pending, AwaitingDraftPick):
            deadline, remaining = self._wire_deadline()
            self._to_all(P.DraftPickNeeded(
                seat=pending.seat, round=pending.round, pick=pending.pick,
                deadline=deadline, remaining=remaining))
            self._to_seat(pending.seat, P.DraftPickRequest(
                round=pending.round, pick=pending.pick, pool=game.view(pending.seat).draft_pool,
                deadline=deadline, remaining=remaining))

    def _wire_deadline(self) -> tuple[float, float]:
        """The armed deadline as (absolute Unix time, seconds left)."""
        assert self._deadline is not None
        remaining = max(0.0, self._deadline - trio.current_time())
        return time.time() + remaining, remaining

    def _warn_at(self) -> float | None:
        """When the armed decision's ``deadline_warning`` is due (None: not, or sent).

        docs/PROTOCOL.md: ``warn_before`` seconds before the deadline, once per
        decision, and only if the decision was given more time than that."""
        warn_before = self.settings.warn_before
        if self._warned or self._deadline is None or warn_before <= 0:
            return None
        at = self._deadline - warn_before
        return at if at > self._armed_at else None

    def _warn(self) -> None:
        """A deadline is near: send ``deadline_warning`` to every client seat (human or
        bot client, connected now) the decision is still awaited from."""
        self._warned = True
        game = self._game
        pending = game.pending if game is not None else None
        if pending is None or self._deadline is None:
            return
        if isinstance(pending, AwaitingCommits):
            kind, rnd, turn, pick = "commit", pending.round, pending.turn, 0
        elif isinstance(pending, AwaitingDraftPick):
            kind, rnd, turn, pick = "draft", pending.round, 0, pending.pick
        elif isinstance(pending, (AwaitingRowChoice, AwaitingTieChoice)):
            kind = "row" if isinstance(pending, AwaitingRowChoice) else "tie"
            (rnd, turn), pick = self._shown, 0
        else:  # pragma: no cover - nothing else has a deadline
            return
        deadline, remaining = self._wire_deadline()
        if remaining <= 0:  # the table was busy until the deadline: the autopilot decides now
            return
        msg = P.DeadlineWarning(kind=kind, round=rnd, turn=turn, pick=pick, deadline=deadline,
                                remaining=remaining)
        for index in sorted(pending.seats):
            seat = self.seats[index]
            if seat is None or seat.builtin or seat.session is None:
                continue
            if seat.session.send(msg):
                self._log(logging.DEBUG, index, "warned: %.1f s left", remaining)

    def _requests_for(self, index: int, deadline: float, remaining: float) -> list[Any]:
        game = self._game
        assert game is not None
        return wire.requests_for(game.view(index), self._shown, deadline, remaining)

    # ------------------------------------------------------------------ broadcast
    async def _broadcast(self, events: Iterable[Event], re: int | None = None) -> None:
        """Send ``events`` to each seat and spectator as they may see them, pacing
        the resolution steps; row choices stop it where the engine stopped.
        ``re``: the id of the request that caused them (echoed by commit_accepted)."""
        game = self._game
        assert game is not None
        previous: Event | None = None
        steps = 0
        for event in events:
            if self._is_step(event, previous):
                if previous is not None:
                    await self._pause()
                steps += 1
            elif steps and isinstance(event, (TurnStarted, RoundScored)):
                await self._pause()
                steps = 0
            if self.status != "playing" or self._game is not game:  # closed during a pause
                return
            self._send_event(event, game, re)
            previous = event
        if self.status == "playing":
            self._open_decision()

    @staticmethod
    def _is_step(event: Event, previous: Event | None) -> bool:
        if isinstance(event, CardPlaced):
            return not isinstance(previous, RowTaken)
        return isinstance(event, _STEP_EVENTS)

    async def _pause(self) -> None:
        delay = self.settings.step_delay
        if delay > 0 and self._person_watching():
            await trio.sleep(delay)

    def _send_event(self, event: Event, game: Game, re: int | None = None) -> None:
        if isinstance(event, HandDealt):
            self._to_seat(event.seat, P.HandDealt(cards=event.hand))
            return
        if isinstance(event, CommitAccepted):
            self._to_seat(event.seat, P.CommitAccepted(
                round=self._shown[0], turn=self._shown[1], card=event.card, re=re))
            return
        msg: Any
        if isinstance(event, RoundStarted):
            self._shown = (event.round, 0)
            msg = P.RoundStarted(round=event.round)
            self._log(logging.INFO, None, "round %d starts", event.round)
        elif isinstance(event, RowsDealt):
            if game.options.draft:
                # Draft: the hands were picked in the open; each seat is told its own
                for index in range(len(self.seats)):
                    hand = game.view(index).hand
                    if hand:
                        self._to_seat(index, P.HandDealt(cards=hand))
            msg = P.RowsDealt(rows=tuple((c,) for c in event.rows))
        elif isinstance(event, TurnStarted):
            self._shown = (event.round, event.turn)
            self._open_decision()
            deadline, remaining = self._wire_deadline()
            msg = P.TurnStarted(round=event.round, turn=event.turn, deadline=deadline,
                                remaining=remaining)
        elif isinstance(event, SeatCommitted):
            msg = P.SeatCommitted(seat=event.seat)
        elif isinstance(event, CardsRevealed):
            msg = P.Revealed(plays=event.plays)
            self._log(logging.INFO, None, "revealed %s",
                      " ".join(f"{s}:{c}" for s, c in event.plays))
        elif isinstance(event, CardPlaced):
            msg = P.Placed(seat=event.seat, card=event.card, row=event.row, end=event.end.value)
            self._log(logging.DEBUG, event.seat, "placed %d on row %d (%s)", event.card,
                      event.row, event.end.value)
        elif isinstance(event, RowTaken):
            msg = P.RowTaken(seat=event.seat, row=event.row, cards=event.cards,
                             bullheads=event.bullheads)
            self._log(logging.INFO, event.seat, "took row %d (%d bullhead%s)", event.row,
                      event.bullheads, "s" if event.bullheads != 1 else "")
        elif isinstance(event, RowChoiceNeeded):
            self._open_decision()
            deadline, remaining = self._wire_deadline()
            msg = P.RowChoiceNeeded(seat=event.seat, card=event.card, deadline=deadline,
                                    remaining=remaining)
            self._to_all(msg)
            self._to_seat(event.seat, P.RowChoiceRequest(
                round=self._shown[0], turn=self._shown[1], card=event.card, rows=(0, 1, 2, 3),
                deadline=deadline, remaining=remaining))
            self._log(logging.INFO, event.seat, "card %d fits no row: chooses a row",
                      event.card)
            return
        elif isinstance(event, TieChoiceNeeded):
            self._open_decision()
            deadline, remaining = self._wire_deadline()
            places = wire.places(event.places)
            msg = P.TieChoiceNeeded(seat=event.seat, card=event.card, places=places,
                                    deadline=deadline, remaining=remaining)
            self._to_all(msg)
            self._to_seat(event.seat, P.TieChoiceRequest(
                round=self._shown[0], turn=self._shown[1], card=event.card, places=places,
                deadline=deadline, remaining=remaining))
            self._log(logging.INFO, event.seat, "card %d ties: chooses a place", event.card)
            return
        elif isinstance(event, RoundScored):
            msg = P.RoundScored(round=event.round, penalties=event.penalties,
                                totals=event.totals)
            self._to_all(msg)
            self._updated()
            self._log(logging.INFO, None, "round %d scored: penalties %s totals %s",
                      event.round, list(event.penalties), list(event.totals))
            return
        elif isinstance(event, DraftOpened):
            msg = P.DraftOpened(round=self._shown[0], pool=event.pool,
                                first_picker=event.first_picker)
        elif isinstance(event, DraftPicked):
            msg = P.DraftPicked(seat=event.seat, card=event.card)
        elif isinstance(event, GameOver):
            r = event.result
            msg = P.GameOver(totals=r.totals, places=r.places, winners=r.winners)
            self._to_all(msg)
            self._game_over(r)
            return
        else:  # pragma: no cover
            raise AssertionError(f"no message for {event!r}")
        self._to_all(msg)

    def _game_over(self, result: Any) -> None:
        self._log(logging.INFO, None, "game over: totals %s, winners %s", list(result.totals),
                  list(result.winners))
        self.status = "over"
        self._armed = self._deadline = None
        self._over_since = trio.current_time()
        # a player who left during the game frees their seat now
        for i, seat in enumerate(self.seats):
            if seat is not None and seat.gone:
                self.seats[i] = None
        self._refresh_presence()
        self._updated()
        self.lobby.table_over(self)

    # ------------------------------------------------------------------ snapshot
    def _snapshot(self, index: int | None) -> P.Snapshot:
        """Everything ``index`` may know now (None: a spectator), from ``game.view``."""
        game = self._game
        assert game is not None
        deadline = remaining = None
        if self._deadline is not None:
            deadline, remaining = self._wire_deadline()
        return wire.snapshot(game.view(index), self.info(), deadline, remaining)
