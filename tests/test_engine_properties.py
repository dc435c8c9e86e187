"""Property tests over random games of every variant combination.

An observer rebuilds the game from the events alone (hands from HandDealt and
DraftPicked, rows from RowsDealt/CardPlaced/RowTaken, penalty piles from
RowTaken, ...) and checks it against the engine's views at every step.
Random decisions include replaced commits, autopilot choices and random
candidates that must be accepted exactly when ``legal_decisions`` lists them.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    Deal,
    DraftOpened,
    DraftPick,
    DraftPicked,
    End,
    Game,
    GameOver,
    GameResult,
    HandDealt,
    IllegalDecision,
    Options,
    Phase,
    Place,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    TieChoiceNeeded,
    TurnStarted,
    events_for,
    row_bullheads,
)

PRIVATE = (HandDealt, CommitAccepted)
PHASE_OF = {
    AwaitingDeal: Phase.DEAL,
    AwaitingCommits: Phase.COMMIT,
    AwaitingRowChoice: Phase.ROW_CHOICE,
    AwaitingTieChoice: Phase.TIE_CHOICE,
    AwaitingDraftPick: Phase.DRAFT,
}


def reference_places(rows, card: int, professional: bool) -> tuple[Place, ...]:
    """RULES.md's placement, written independently of ``places_for``."""
    options = []
    for index, row in enumerate(rows):
        if card > row[-1]:
            options.append((card - row[-1], Place(index, End.RIGHT)))
        if professional and card < row[0]:
            options.append((row[0] - card, Place(index, End.LEFT)))
    if not options:
        return ()
    best = min(d for d, _ in options)
    return tuple(p for d, p in options if d == best)


class Observer:
    """The game as rebuilt from its events (all of them, private ones included)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.n = options.players
        self.deck = options.deck
        self.totals = [0] * self.n
        self.round = 0
        self.turn = 0
        self.over = False
        self.expect_game_over = False
        self.result: GameResult | None = None
        self.new_round()

    def new_round(self) -> None:
        self.hands: list[set[int]] = [set() for _ in range(self.n)]
        self.rows: list[list[int]] = []
        self.piles: list[list[int]] = [[] for _ in range(self.n)]
        self.penalties = [0] * self.n
        self.unused: list[int] = []
        self.pool: list[int] = []
        self.first_picker: int | None = None
        self.picks = 0
        self.unresolved: list[tuple[int, int]] = []
        self.commits: dict[int, int] = {}
        self.announced: set[int] = set()
        self.taken_row: int | None = None

    def feed(self, events: list) -> None:
        for event in events:
            assert not self.over, f"{event!r} after GameOver"
            if self.expect_game_over:
                assert isinstance(event, GameOver), (
                    f"the end rule says the game is over, got {event!r}"
                )
            self.check_privacy(event)
            self.one(event)

    def check_privacy(self, event) -> None:
        if isinstance(event, PRIVATE):
            assert event.visible_to == event.seat
            assert events_for([event], None) == []
            for other in range(self.n):
                assert events_for([event], other) == ([event] if other == event.seat else [])
        else:
            assert event.visible_to is None
            assert all(event.visible(s) for s in (None, *range(self.n)))

    def one(self, e) -> None:
        if self.taken_row is not None:
            assert isinstance(e, CardPlaced) and e.row == self.taken_row, (
                "RowTaken not followed by its CardPlaced"
            )
        if isinstance(e, RoundStarted):
            assert e.round == self.round + 1
            self.round, self.turn = e.round, 0
            self.new_round()
        elif isinstance(e, HandDealt):
            assert not self.options.draft
            assert len(e.hand) == 10 and list(e.hand) == sorted(e.hand)
            self.hands[e.seat] = set(e.hand)
        elif isinstance(e, DraftOpened):
            assert self.options.draft
            assert e.pool == self.deck
            assert e.first_picker == (self.round - 1) % self.n  # moves one seat each round
            self.pool, self.first_picker = list(e.pool), e.first_picker
        elif isinstance(e, DraftPicked):
            assert e.seat == (self.first_picker + self.picks) % self.n
            self.pool.remove(e.card)
            self.hands[e.seat].add(e.card)
            self.picks += 1
        elif isinstance(e, RowsDealt):
            assert len(e.rows) == 4 and len(set(e.rows)) == 4
            self.rows = [[c] for c in e.rows]
            if self.options.draft:
                assert self.picks == 10 * self.n
                assert set(e.rows) <= set(self.pool), (
                    "rows must come from the cards left after the draft"
                )
                if self.options.tactic_deck:
                    assert sorted(e.rows) == sorted(self.pool)  # exactly 4 left
                self.unused = sorted(set(self.pool) - set(e.rows))
                self.pool = []
            else:
                dealt = set(e.rows).union(*self.hands)
                self.unused = sorted(set(self.deck) - dealt)
        elif isinstance(e, TurnStarted):
            assert e.round == self.round and e.turn == self.turn + 1
            assert all(len(h) == 11 - e.turn for h in self.hands)
            self.turn = e.turn
            self.commits, self.announced = {}, set()
        elif isinstance(e, CommitAccepted):
            assert e.card in self.hands[e.seat]
            self.commits[e.seat] = e.card
        elif isinstance(e, SeatCommitted):
            assert e.seat in self.commits and e.seat not in self.announced, (
                "SeatCommitted twice in a turn"
            )
            self.announced.add(e.seat)
        elif isinstance(e, CardsRevealed):
            assert self.announced == set(range(self.n))
            assert list(e.plays) == sorted(self.commits.items(), key=lambda p: p[1])
            for seat, card in e.plays:
                self.hands[seat].remove(card)
            self.unresolved = list(e.plays)
        elif isinstance(e, RowChoiceNeeded):
            assert self.unresolved[0] == (e.seat, e.card)
            assert reference_places(self.rows, e.card, self.options.professional) == ()
            if not self.options.professional:
                assert len(self.unresolved) == len(self.commits)  # only the lowest card, first
        elif isinstance(e, TieChoiceNeeded):
            assert self.options.professional
            assert self.unresolved[0] == (e.seat, e.card)
            assert reference_places(self.rows, e.card, True) == e.places and len(e.places) >= 2
        elif isinstance(e, RowTaken):
            assert self.unresolved[0][0] == e.seat
            assert e.cards == tuple(self.rows[e.row]), "RowTaken must take exactly the row's cards"
            assert e.bullheads == row_bullheads(e.cards)
            card = self.unresolved[0][1]
            places = reference_places(self.rows, card, self.options.professional)
            # a sixth card, or a card that fits nowhere (any row chosen)
            if places:
                assert len(e.cards) == 5 and e.row in {p.row for p in places}
            self.piles[e.seat].extend(e.cards)
            self.penalties[e.seat] += e.bullheads
            self.rows[e.row] = []
            self.taken_row = e.row
        elif isinstance(e, CardPlaced):
            assert self.unresolved and self.unresolved[0] == (e.seat, e.card), (
                "cards resolve lowest first"
            )
            self.unresolved.pop(0)
            row = self.rows[e.row]
            if self.taken_row is not None:
                assert row == []
                self.taken_row = None
                row.append(e.card)
            else:
                assert Place(e.row, e.end) in reference_places(
                    self.rows, e.card, self.options.professional
                )
                assert len(row) < 5
                if e.end is End.LEFT:
                    assert self.options.professional and e.card < row[0]
                    row.insert(0, e.card)
                else:
                    assert e.card > row[-1]
                    row.append(e.card)
        elif isinstance(e, RoundScored):
            assert e.round == self.round
            assert all(not h for h in self.hands) and not self.unresolved
            assert list(e.penalties) == self.penalties
            assert [row_bullheads(p) for p in self.piles] == self.penalties
            self.totals = [t + p for t, p in zip(self.totals, self.penalties, strict=True)]
            assert list(e.totals) == self.totals
            limit, rounds = self.options.point_limit, self.options.rounds
            self.expect_game_over = (limit is not None and max(self.totals) >= limit) or (
                rounds is not None and self.round >= rounds
            )
        elif isinstance(e, GameOver):
            assert self.expect_game_over
            assert e.result == GameResult.from_totals(tuple(self.totals))
            self.over, self.result = True, e.result
        else:
            raise AssertionError(f"unknown event {e!r}")

    # ------------------------------------------------------------- checks

    def check(self, game: Game) -> None:
        n = self.n
        phase = game.phase
        assert game.is_over == self.over == (phase is Phase.OVER)
        assert game.round == self.round
        assert game.totals == tuple(self.totals)
        # Every card of the deck in use is in exactly one place.
        if phase is Phase.DEAL and not self.options.draft:
            assert all(not h for h in self.hands) and game.rows == ()
        else:
            places = Counter()
            for hand in self.hands:
                places.update(hand)
            for row in self.rows:
                places.update(row)
            for pile in self.piles:
                places.update(pile)
            places.update(self.unused)
            places.update(self.pool)
            places.update(card for _, card in self.unresolved)
            assert sorted(places.elements()) == list(self.deck)
            assert all(k == 1 for k in places.values())
        # Rows: 1..5 cards, ascending (none before they are dealt).
        if phase in (Phase.COMMIT, Phase.ROW_CHOICE, Phase.TIE_CHOICE) or (self.over and game.rows):
            assert len(game.rows) == 4
            for row in game.rows:
                assert 1 <= len(row) <= 5 and list(row) == sorted(row)
        assert game.rows == tuple(tuple(r) for r in self.rows)
        # Views: own hand only; spectators have none.
        pending = game.pending
        spectator = game.view(None)
        assert spectator.seat is None and spectator.hand == () and spectator.own_commit is None
        assert spectator.legal == ()
        for view in [game.view(s) for s in range(n)] + [spectator]:
            assert view.rows == game.rows and view.pending == pending and view.phase is phase
            assert view.totals == tuple(self.totals)
            assert view.unresolved == tuple(self.unresolved)
            assert view.result == self.result
            if not self.over:
                assert view.penalties == tuple(self.penalties)
            if phase is Phase.COMMIT:
                assert view.committed == frozenset(self.commits)
            if phase is Phase.DRAFT:
                assert view.draft_pool == tuple(self.pool)
        for seat in range(n):
            view = game.view(seat)
            assert view.seat == seat
            assert view.hand == tuple(sorted(self.hands[seat]))
            if phase is Phase.COMMIT:
                assert view.own_commit == self.commits.get(seat)
                if view.own_commit is not None:
                    assert view.own_commit in view.hand  # face down, still in the hand
            else:
                assert view.own_commit is None  # after the reveal nothing is face down
                assert view.committed == frozenset()
            assert view.legal == game.legal_decisions(seat)
        # The pending decision agrees with legal_decisions and autopilot.
        if self.over:
            assert pending is None and game.result == self.result
            assert all(game.legal_decisions(s) == () for s in range(n))
            return
        assert PHASE_OF[type(pending)] is phase
        for seat in range(n):
            legal = game.legal_decisions(seat)
            hand = tuple(sorted(self.hands[seat]))
            if isinstance(pending, AwaitingCommits):
                assert legal == tuple(Commit(seat, c) for c in hand)
            elif seat not in pending.seats:
                assert legal == ()
            elif isinstance(pending, AwaitingRowChoice):
                assert legal == tuple(ChooseRow(seat, r) for r in range(4))
            elif isinstance(pending, AwaitingTieChoice):
                assert legal == tuple(ChooseTie(seat, p) for p in pending.places)
            elif isinstance(pending, AwaitingDraftPick):
                assert legal == tuple(DraftPick(seat, c) for c in self.pool)
            choosing = (
                isinstance(pending, (AwaitingRowChoice, AwaitingTieChoice))
                and seat in pending.seats
            )
            auto = game.autopilot(seat)
            assert (auto in legal) if choosing else (auto is None)
        if isinstance(pending, AwaitingCommits):
            assert (
                (pending.round, pending.turn) == (self.round, self.turn) == (game.round, game.turn)
            )
            assert pending.committed == frozenset(self.commits) == frozenset(self.announced)
            assert pending.waiting == frozenset(range(n)) - pending.committed == pending.seats
        elif isinstance(pending, (AwaitingRowChoice, AwaitingTieChoice)):
            assert (pending.seat, pending.card) == self.unresolved[0]
            assert pending.seats == frozenset({pending.seat})
        elif isinstance(pending, AwaitingDraftPick):
            assert pending.seat == (self.first_picker + self.picks) % n
            assert (pending.round, pending.pick) == (self.round, self.picks + 1)
        elif isinstance(pending, AwaitingDeal):
            assert pending.round == self.round and pending.rows_only == self.options.draft
            assert pending.seats == frozenset()


def snapshot(game: Game):
    n = game.options.players
    return (
        tuple(game.view(s) for s in range(n)),
        game.view(None),
        game.pending,
        tuple(game.history),
        tuple(game.legal_decisions(s) for s in range(n)),
    )


def random_candidate(rnd: random.Random, n: int):
    seat = rnd.randrange(-1, n + 1)
    kind = rnd.randrange(4)
    if kind == 0:
        return Commit(seat, rnd.randrange(0, 106))
    if kind == 1:
        return ChooseRow(seat, rnd.randrange(-1, 5))
    if kind == 2:
        return ChooseTie(seat, Place(rnd.randrange(-1, 5), rnd.choice((End.LEFT, End.RIGHT))))
    return DraftPick(seat, rnd.randrange(0, 106))


def choose(game: Game, rnd: random.Random, pool: list[int]):
    """A legal decision (or Deal) for the pending step."""
    pending = game.pending
    n = game.options.players
    if isinstance(pending, AwaitingDeal):
        if game.options.draft:
            return Deal(rows=tuple(rnd.sample(pool, 4)))
        cards = rnd.sample(game.options.deck, 10 * n + 4)
        return Deal(
            rows=tuple(cards[:4]),
            hands=tuple(tuple(cards[4 + 10 * s : 14 + 10 * s]) for s in range(n)),
        )
    if isinstance(pending, AwaitingCommits):
        if pending.committed and (not pending.waiting or rnd.random() < 0.3):
            seat = rnd.choice(sorted(pending.committed))  # replace a commit
        else:
            seat = rnd.choice(sorted(pending.waiting))
        card = rnd.choice(game.legal_decisions(seat)).card
        if rnd.random() < 0.3:
            return Commit(seat, card, round=pending.round, turn=pending.turn)
        return Commit(seat, card)
    (seat,) = pending.seats
    if isinstance(pending, (AwaitingRowChoice, AwaitingTieChoice)) and rnd.random() < 0.5:
        return game.autopilot(seat)
    return rnd.choice(game.legal_decisions(seat))


@st.composite
def tables(draw):
    players = draw(st.integers(2, 10))
    end = draw(st.sampled_from(["rounds", "points", "both"]))
    options = Options(
        players=players,
        tactic_deck=draw(st.booleans()),
        draft=draw(st.booleans()),
        professional=draw(st.booleans()),
        rounds=draw(st.integers(1, 2)) if end != "points" else None,
        point_limit=draw(st.integers(1, 20)) if end != "rounds" else None,
    )
    return options, draw(st.booleans()), draw(st.integers(0, 2**32))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), decisions_seed=st.integers(0, 2**32))
def test_random_games_keep_every_invariant(table, decisions_seed):
    options, explicit_deals, seed = table
    rnd = random.Random(decisions_seed)
    game = Game(options) if explicit_deals else Game(options, seed=seed)
    observer = Observer(options)
    observer.feed(list(game.opening_events))
    observer.check(game)
    for _ in range(5000):
        if game.is_over:
            break
        if rnd.random() < 0.15 and not isinstance(game.pending, AwaitingDeal):
            candidate = random_candidate(rnd, options.players)
            seat = candidate.seat
            if not (0 <= seat < options.players and candidate in game.legal_decisions(seat)):
                before = snapshot(game)
                try:
                    game.apply(candidate)
                except IllegalDecision:
                    pass
                else:
                    raise AssertionError(f"{candidate!r} is not legal but was accepted")
                assert snapshot(game) == before
                continue
            step = candidate
        else:
            step = choose(game, rnd, observer.pool)
        history = len(game.history)
        if isinstance(step, Deal):
            events = game.deal(step)
        else:
            events = game.apply(step)
        assert game.history[history] == (
            Commit(step.seat, step.card) if isinstance(step, Commit) else step
        )
        observer.feed(events)
        observer.check(game)
    assert game.is_over, "the game did not end"
    assert game.result == observer.result
    assert game.result.winners == tuple(s for s, p in enumerate(game.result.places) if p == 1)


@settings(max_examples=15, deadline=None)
@given(table=tables())
def test_same_seed_same_game(table):
    options, _, seed = table

    def run(game: Game) -> list:
        rnd = random.Random(seed)
        events = list(game.opening_events)
        while not game.is_over:
            events.extend(game.apply(choose(game, rnd, [])))
        return events

    assert run(Game(options, seed=seed)) == run(Game(options, seed=seed))
