"""The game as a state machine: decisions in, events out.

>>> game = Game(Options(players=2, rounds=1), seed=7)
>>> game.pending
AwaitingCommits(round=1, turn=1, waiting=frozenset({0, 1}), committed=frozenset())
>>> card = game.view(0).hand[0]
>>> [type(e).__name__ for e in game.apply(Commit(seat=0, card=card))]
['CommitAccepted', 'SeatCommitted']
>>> game.apply(Commit(seat=0, card=999))
Traceback (most recent call last):
...
nimmt.engine.errors.CardNotInHand: card 999 is not in seat 0's hand

The game never reads a clock or does I/O; all randomness comes from the
``rng`` (or ``seed``) given, and without either every deal must be passed to
``Game.deal`` explicitly (as a replayed record does).
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Sequence

from .cards import row_bullheads
from .errors import (
    CardNotInHand,
    IllegalPlace,
    IllegalRow,
    InvalidDeal,
    NotYourDecision,
    StaleTurn,
    WrongPhase,
)
from .events import (
    CardPlaced,
    CardsRevealed,
    CommitAccepted,
    DraftOpened,
    DraftPicked,
    Event,
    GameOver,
    GameResult,
    HandDealt,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    TieChoiceNeeded,
    TurnStarted,
)
from .moves import ChooseRow, ChooseTie, Commit, Deal, Decision, DraftPick, End, Place
from .options import HAND_SIZE, ROW_LIMIT, ROWS, Options
from .position import Position
from .pending import (
    AwaitingCommits,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
    Pending,
    Phase,
)
from .rules import cheapest_row, first_place, places_for
from .view import View

__all__ = ["Game"]


class Game:
    """One game of 6 nimmt!, from the first deal to the result.

    ``Game(options, rng=random.Random(1))`` or ``Game(options, seed=1)`` deals
    by itself; ``Game(options)`` waits for ``deal()`` at each round.
    The events of the opening (first round's deal) are in ``opening_events``.
    """

    def __init__(
        self, options: Options, rng: random.Random | None = None, *, seed: int | None = None
    ) -> None:
        if rng is not None and seed is not None:
            raise ValueError("give rng or seed, not both")
        self._setup(options, random.Random(seed) if seed is not None else rng)
        self.start: Position | None = None
        self.opening_events: tuple[Event, ...] = tuple(self._begin_round())

    @classmethod
    def from_position(
        cls,
        options: Options,
        rows: Sequence[Sequence[int]],
        hands: Sequence[Sequence[int]],
        *,
        totals: Sequence[int] | None = None,
        penalties: Sequence[int] | None = None,
        round: int = 1,
        turn: int | None = None,
        rng: random.Random | None = None,
    ) -> Game:
        """A game that starts at a hand-made position: the commit step of a turn.

        All hands must be the same size (1..10); ``turn`` defaults to
        ``11 - hand size``. The round ends when the hands are empty. The
        position is kept as ``game.start`` (None for a game dealt from the start).
        Raises ``InvalidPosition`` for a position that cannot occur.
        """
        position = Position.of(rows, hands, totals, penalties, round, turn)
        position.check(options)
        game = cls.__new__(cls)
        game._setup(options, rng)
        game.start = position
        n = options.players
        game.round = position.round
        game.turn = position.first_turn
        game._phase = Phase.COMMIT
        game._hands = [sorted(h) for h in position.hands]
        game._rows = [list(r) for r in position.rows]
        game._totals = list(position.totals or [0] * n)
        game._penalties = list(position.penalties or [0] * n)
        game._seen = [c for r in position.rows for c in r]
        game.opening_events = (TurnStarted(game.round, game.turn),)
        return game

    def _setup(self, options: Options, rng: random.Random | None) -> None:
        n = options.players
        self.options = options
        self._rng = rng
        self.round = 0
        self.turn = 0
        self._phase = Phase.DEAL
        self._hands: list[list[int]] = [[] for _ in range(n)]
        self._rows: list[list[int]] = []
        self._totals = [0] * n
        self._penalties = [0] * n
        self._commits: dict[int, int] = {}  # seat -> face-down card, until the reveal
        self._revealed: tuple[tuple[int, int], ...] = ()
        self._queue: list[tuple[int, int]] = []  # (card, seat) still to place, lowest first
        self._tied: tuple[Place, ...] = ()
        self._seen: list[int] = []
        self._plays: list[tuple[int, int]] = []  # (seat, card) revealed this round
        self._pool: list[int] = []
        self._pick_order: list[int] = []
        self._picks: list[tuple[int, int]] = []
        self._result: GameResult | None = None
        self.history: list[Deal | Decision] = []
        # ``pending`` as last worked out; every change of the game goes through
        # ``deal`` or ``apply``, which forget it (a server asks it many times a turn)
        self._pending_known = False
        self._pending_memo: Pending | None = None

    # ----------------------------------------------------------------- queries

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def result(self) -> GameResult | None:
        """Totals, places and winners once the game is over, else None."""
        return self._result

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._totals)

    @property
    def rows(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(r) for r in self._rows)

    @property
    def pending(self) -> Pending | None:
        """The decision the game waits for, or None once it is over."""
        if not self._pending_known:
            self._pending_memo = self._work_out_pending()
            self._pending_known = True
        return self._pending_memo

    def _work_out_pending(self) -> Pending | None:
        phase = self._phase
        if phase is Phase.COMMIT:
            committed = frozenset(self._commits)
            waiting = frozenset(range(self.options.players)) - committed
            return AwaitingCommits(self.round, self.turn, waiting, committed)
        if phase is Phase.ROW_CHOICE:
            card, seat = self._queue[0]
            return AwaitingRowChoice(seat, card)
        if phase is Phase.TIE_CHOICE:
            card, seat = self._queue[0]
            return AwaitingTieChoice(seat, card, self._tied)
        if phase is Phase.DRAFT:
            return AwaitingDraftPick(self._pick_order[len(self._picks)], self.round, len(self._picks) + 1)
        if phase is Phase.DEAL:
            return AwaitingDeal(self.round, rows_only=self.options.draft)
        return None

    def legal_decisions(self, seat: int) -> tuple[Decision, ...]:
        """Every decision ``seat`` may make now (commits may be replaced: all cards)."""
        phase = self._phase
        if type(seat) is not int:
            return ()
        if phase is Phase.COMMIT and 0 <= seat < self.options.players:
            return tuple(Commit(seat, c) for c in self._hands[seat])
        if phase is Phase.ROW_CHOICE and self._queue[0][1] == seat:
            return tuple(ChooseRow(seat, r) for r in range(ROWS))
        if phase is Phase.TIE_CHOICE and self._queue[0][1] == seat:
            return tuple(ChooseTie(seat, p) for p in self._tied)
        if phase is Phase.DRAFT and self._pick_order[len(self._picks)] == seat:
            return tuple(DraftPick(seat, c) for c in self._pool)
        return ()

    def autopilot(self, seat: int) -> Decision | None:
        """RULES.md's default for a row or tie choice that timed out; None otherwise
        (a card or draft pick needs a strategy, which the engine does not have)."""
        if self._phase is Phase.ROW_CHOICE and self._queue[0][1] == seat:
            return ChooseRow(seat, cheapest_row(self._rows))
        if self._phase is Phase.TIE_CHOICE and self._queue[0][1] == seat:
            return ChooseTie(seat, first_place(self._tied))
        return None

    def view(self, seat: int | None) -> View:
        """What ``seat`` may know; ``None`` for a spectator (no hand)."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < self.options.players):
            raise NotYourDecision(f"no seat {seat}: seats are 0 to {self.options.players - 1}")
        return View(
            seat=seat,
            options=self.options,
            round=self.round,
            turn=self.turn,
            phase=self._phase,
            hand=tuple(self._hands[seat]) if seat is not None else (),
            own_commit=self._commits.get(seat) if seat is not None else None,
            rows=self.rows,
            totals=tuple(self._totals),
            penalties=tuple(self._penalties),
            committed=frozenset(self._commits),
            revealed=self._revealed,
            unresolved=tuple((s, c) for c, s in self._queue),
            seen=tuple(self._seen),
            draft_pool=tuple(self._pool) if self._phase is Phase.DRAFT else (),
            draft_picks=tuple(self._picks),
            pending=self.pending,
            legal=self.legal_decisions(seat) if seat is not None else (),
            result=self._result,
            plays=tuple(self._plays),
        )

    # ----------------------------------------------------------------- chance

    def deal(self, deal: Deal | None = None) -> list[Event]:
        """Resolve the pending chance step with ``deal``, or with the game's rng.

        Raises ``WrongPhase`` when nothing is to be dealt, or when no ``deal`` is
        given to a game without a random source; ``InvalidDeal`` for a deal that
        is impossible with the deck in use. Either way the game is unchanged.
        """
        if self._phase is not Phase.DEAL:
            raise WrongPhase(f"nothing to deal: the game is in phase {self._phase.value!r}")
        self._pending_known = False
        if deal is None:
            if self._rng is None:
                raise WrongPhase("this game has no random source: pass an explicit Deal")
            deal = self._random_deal(self._rng)
        else:
            self._check_deal(deal)
        self.history.append(deal)
        events: list[Event] = []
        if deal.hands is not None:
            self._hands = [sorted(h) for h in deal.hands]
            events.extend(HandDealt(s, tuple(h)) for s, h in enumerate(self._hands))
        self._pool = []
        self._rows = [[c] for c in deal.rows]
        self._seen.extend(deal.rows)
        events.append(RowsDealt(tuple(deal.rows)))
        self.turn = 1
        self._phase = Phase.COMMIT
        events.append(TurnStarted(self.round, 1))
        return events

    def _random_deal(self, rng: random.Random) -> Deal:
        n = self.options.players
        if self.options.draft:
            return Deal(rows=tuple(rng.sample(self._pool, ROWS)))
        cards = rng.sample(self.options.deck, n * HAND_SIZE + ROWS)
        hands = tuple(tuple(sorted(cards[i * HAND_SIZE : (i + 1) * HAND_SIZE])) for i in range(n))
        return Deal(rows=tuple(cards[-ROWS:]), hands=hands)

    def _check_deal(self, deal: Deal) -> None:
        rows = tuple(deal.rows)
        if len(rows) != ROWS:
            raise InvalidDeal(f"a deal starts {ROWS} rows, not {len(rows)}")
        if self.options.draft:
            if deal.hands is not None:
                raise InvalidDeal("in a Draft round the hands are picked: deal the rows only")
            available = set(self._pool)
            cards = list(rows)
        else:
            if deal.hands is None:
                raise InvalidDeal("this round needs hands as well as rows")
            hands = deal.hands
            n = self.options.players
            if len(hands) != n:
                raise InvalidDeal(f"{n} players need {n} hands, got {len(hands)}")
            sizes = {len(h) for h in hands}
            if sizes != {HAND_SIZE}:
                raise InvalidDeal(f"each player is dealt {HAND_SIZE} cards")
            available = set(self.options.deck)
            cards = [c for h in hands for c in h] + list(rows)
        for card in cards:
            if type(card) is not int or card not in available:
                raise InvalidDeal(f"card {card!r} cannot be dealt: it is not among the cards available")
        if len(set(cards)) != len(cards):
            raise InvalidDeal("a card is dealt twice")

    # ----------------------------------------------------------------- decisions

    def apply(self, decision: Decision) -> list[Event]:
        """Apply one seat's decision; return the events it caused, in order.

        Raises an ``IllegalDecision`` subclass, leaving the game unchanged, when
        the rules do not allow ``decision`` now.
        """
        self._pending_known = False
        if isinstance(decision, Commit):
            events = self._commit(decision)
        elif isinstance(decision, ChooseRow):
            events = self._choose_row(decision)
        elif isinstance(decision, ChooseTie):
            events = self._choose_tie(decision)
        elif isinstance(decision, DraftPick):
            events = self._draft_pick(decision)
        else:
            raise TypeError(f"not a decision: {decision!r}")
        if self._phase is Phase.DEAL and self._rng is not None:
            events.extend(self.deal())
        return events

    def _expect(self, phase: Phase, seat: int, what: str) -> None:
        if self._phase is not phase:
            raise WrongPhase(f"no {what} now: the game is in phase {self._phase.value!r}")
        n = self.options.players
        if type(seat) is not int or not 0 <= seat < n:
            raise NotYourDecision(f"no seat {seat!r}: seats are 0 to {n - 1}")

    def _commit(self, d: Commit) -> list[Event]:
        self._expect(Phase.COMMIT, d.seat, "card to commit")
        if (d.round is not None and d.round != self.round) or (d.turn is not None and d.turn != self.turn):
            raise StaleTurn(
                f"commit is for round {d.round} turn {d.turn}, but round {self.round} turn {self.turn} is being played"
            )
        if type(d.card) is not int or d.card not in self._hands[d.seat]:
            raise CardNotInHand(f"card {d.card!r} is not in seat {d.seat}'s hand")
        self.history.append(Commit(d.seat, d.card))
        first = d.seat not in self._commits
        self._commits[d.seat] = d.card
        events: list[Event] = [CommitAccepted(d.seat, d.card)]
        if first:
            events.append(SeatCommitted(d.seat))
        if len(self._commits) == self.options.players:
            events.extend(self._reveal())
        return events

    def _choose_row(self, d: ChooseRow) -> list[Event]:
        self._expect(Phase.ROW_CHOICE, d.seat, "row choice")
        card, seat = self._queue[0]
        if d.seat != seat:
            raise NotYourDecision(f"seat {seat} chooses the row for card {card}, not seat {d.seat}")
        if type(d.row) is not int or not 0 <= d.row < ROWS:
            raise IllegalRow(f"no row {d.row!r}: rows are 0 to {ROWS - 1}")
        self.history.append(d)
        self._queue.pop(0)
        events = self._take_row(seat, d.row, card, End.RIGHT)
        events.extend(self._resolve())
        return events

    def _choose_tie(self, d: ChooseTie) -> list[Event]:
        self._expect(Phase.TIE_CHOICE, d.seat, "tie choice")
        card, seat = self._queue[0]
        if d.seat != seat:
            raise NotYourDecision(f"seat {seat} chooses where card {card} goes, not seat {d.seat}")
        if d.place not in self._tied:
            raise IllegalPlace(f"{d.place!r} is not one of the tied places {list(self._tied)!r}")
        place = self._tied[self._tied.index(d.place)]  # the engine's own Place: End.LEFT, int row
        self.history.append(d)
        self._queue.pop(0)
        self._tied = ()
        events = self._place(seat, card, place)
        events.extend(self._resolve())
        return events

    def _draft_pick(self, d: DraftPick) -> list[Event]:
        self._expect(Phase.DRAFT, d.seat, "draft pick")
        picker = self._pick_order[len(self._picks)]
        if d.seat != picker:
            raise NotYourDecision(f"seat {picker} picks now, not seat {d.seat}")
        if type(d.card) is not int or d.card not in self._pool:
            raise CardNotInHand(f"card {d.card!r} is not in the draft pool")
        self.history.append(d)
        self._pool.remove(d.card)
        insort(self._hands[d.seat], d.card)
        self._picks.append((d.seat, d.card))
        self._seen.append(d.card)
        if len(self._picks) == len(self._pick_order):
            self._phase = Phase.DEAL
        return [DraftPicked(d.seat, d.card)]

    # ----------------------------------------------------------------- resolution

    def _reveal(self) -> list[Event]:
        plays = sorted((card, seat) for seat, card in self._commits.items())
        for card, seat in plays:
            self._hands[seat].remove(card)
            self._seen.append(card)
        self._revealed = tuple((seat, card) for card, seat in plays)
        self._plays.extend(self._revealed)
        self._queue = plays
        self._commits = {}
        events: list[Event] = [CardsRevealed(self._revealed)]
        events.extend(self._resolve())
        return events

    def _resolve(self) -> list[Event]:
        """Place revealed cards until a choice is needed or the turn is done."""
        events: list[Event] = []
        professional = self.options.professional
        while self._queue:
            card, seat = self._queue[0]
            places = places_for(self._rows, card, professional)
            if not places:
                self._phase = Phase.ROW_CHOICE
                events.append(RowChoiceNeeded(seat, card))
                return events
            if len(places) > 1:
                self._phase = Phase.TIE_CHOICE
                self._tied = places
                events.append(TieChoiceNeeded(seat, card, places))
                return events
            self._queue.pop(0)
            events.extend(self._place(seat, card, places[0]))
        events.extend(self._end_turn())
        return events

    def _place(self, seat: int, card: int, place: Place) -> list[Event]:
        row = self._rows[place.row]
        if len(row) >= ROW_LIMIT:
            return self._take_row(seat, place.row, card, place.end)
        if place.end is End.LEFT:
            row.insert(0, card)
        else:
            row.append(card)
        return [CardPlaced(seat, card, place.row, place.end)]

    def _take_row(self, seat: int, row: int, card: int, end: End) -> list[Event]:
        taken = tuple(self._rows[row])
        heads = row_bullheads(taken)
        self._penalties[seat] += heads
        self._rows[row] = [card]
        return [RowTaken(seat, row, taken, heads), CardPlaced(seat, card, row, end)]

    def _end_turn(self) -> list[Event]:
        self._revealed = ()
        self._phase = Phase.COMMIT
        if self._hands[0]:
            self.turn += 1
            return [TurnStarted(self.round, self.turn)]
        return self._end_round()

    def _end_round(self) -> list[Event]:
        for seat, heads in enumerate(self._penalties):
            self._totals[seat] += heads
        events: list[Event] = [RoundScored(self.round, tuple(self._penalties), tuple(self._totals))]
        limit, rounds = self.options.point_limit, self.options.rounds
        if (limit is not None and max(self._totals) >= limit) or (rounds is not None and self.round >= rounds):
            self._phase = Phase.OVER
            self._result = GameResult.from_totals(tuple(self._totals))
            events.append(GameOver(self._result))
            return events
        events.extend(self._begin_round())
        return events

    def _begin_round(self) -> list[Event]:
        n = self.options.players
        self.round += 1
        self.turn = 0
        self._penalties = [0] * n
        self._seen = []
        self._plays = []
        self._picks = []
        self._rows = []
        self._hands = [[] for _ in range(n)]
        events: list[Event] = [RoundStarted(self.round)]
        if self.options.draft:
            first = (self.round - 1) % n
            self._pool = list(self.options.deck)
            self._pick_order = [(first + i) % n for i in range(n * HAND_SIZE)]
            self._phase = Phase.DRAFT
            events.append(DraftOpened(tuple(self._pool), first))
            return events
        self._phase = Phase.DEAL
        if self._rng is not None:
            events.extend(self.deal())
        return events
