"""Strategies decide well where the right answer is known, in every variant and
decision kind, from the view only, and within their time budget."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from nimmt.bots import (
    STRATEGIES,
    BadParameter,
    HeuristicStrategy,
    MonteCarloStrategy,
    SearchStrategy,
    UnknownParameter,
    UnknownStrategy,
    make_strategy,
)
from nimmt.bots.montecarlo import MARGIN_MS, monte_carlo
from nimmt.bots.sampling import Unseen
from nimmt.engine import (
    ChooseRow,
    ChooseTie,
    Commit,
    DraftPick,
    End,
    Game,
    Options,
    Phase,
    Place,
    View,
)

# Fast settings: reproducible (a sample count, not the clock) and quick.
FAST = {
    "random": "random",
    "heuristic": "heuristic",
    "mcs": "mcs:samples=20",
    "search": "search:samples=16,ms=60000",
}


def test_every_registered_strategy_has_fast_settings() -> None:
    assert set(FAST) == set(STRATEGIES)


# ------------------------------------------------------------------ known answers

def sixth_card_position(players: int = 4) -> Game:
    """Row 0 is full (11 bullheads): 15 would be its sixth card. 63, 64, 85
    and 97 are safe now: each goes to a row of one card."""
    rows = [[10, 11, 12, 13, 14], [62], [84], [96]]
    hands = [[15, 63, 64, 85, 97]]
    rng = random.Random(5)
    rest = [c for c in range(1, 105) if c not in {c for r in rows for c in r} | set(hands[0])]
    rng.shuffle(rest)
    hands += [sorted(rest[i * 5 : i * 5 + 5]) for i in range(players - 1)]
    return Game.from_position(Options(players=players, rounds=1), rows, hands)


@pytest.mark.parametrize("name", ["heuristic", "mcs", "search"])
def test_never_the_sixth_card_when_a_safe_card_exists(name: str) -> None:
    game = sixth_card_position()
    decision = make_strategy(FAST[name], seed=3).decide(game.view(0))
    assert isinstance(decision, Commit)
    assert decision.card != 15


def row_choice_position() -> Game:
    """Seat 0's 2 fits no row and it must choose one: 55 (7 bullheads),
    11 (5), 20 (3) or 31 (1). Seat 1's 40 then goes after the 31 or 20."""
    game = Game.from_position(
        Options(players=2, rounds=1), [[55], [11], [20], [31]], [[2, 70], [40, 90]]
    )
    game.apply(Commit(0, 2))
    game.apply(Commit(1, 40))
    assert game.phase is Phase.ROW_CHOICE
    return game


@pytest.mark.parametrize("name", ["heuristic", "mcs", "search"])
def test_takes_the_cheapest_row(name: str) -> None:
    game = row_choice_position()
    decision = make_strategy(FAST[name], seed=3).decide(game.view(0))
    assert decision == ChooseRow(0, 3)


def test_heuristic_tie_choice_avoids_the_full_row() -> None:
    """Professional rows: 25 is 5 from row 0's 20 (a full row) and 5 before row 1's 30."""
    game = Game.from_position(
        Options(players=2, professional=True, rounds=1),
        [[12, 14, 16, 18, 20], [30, 31], [60], [80]], [[25, 90], [95, 99]],
    )
    game.apply(Commit(0, 25))
    game.apply(Commit(1, 95))
    assert game.phase is Phase.TIE_CHOICE
    for name in ("heuristic", "mcs", "search"):
        decision = make_strategy(FAST[name], seed=1).decide(game.view(0))
        assert decision == ChooseTie(0, Place(1, End.LEFT)), name


def test_search_uses_the_revealed_cards_before_a_row_choice() -> None:
    """Taking row 0 (1 bullhead) makes seat 1's 9 the sixth card of row 3,
    which then takes 10 bullheads; taking row 3 instead costs 5 but lets
    the 9 go after the 2 safely. Over the rest of the round either is fine
    for seat 0, yet seat 0 must not take row 3 for 5 when row 0 costs 1:
    the revealed 9 cannot land on seat 0."""
    game = Game.from_position(
        Options(players=2, rounds=1), [[51], [60], [70], [3, 4, 5, 6, 8]], [[2, 99], [9, 98]]
    )
    game.apply(Commit(0, 2))
    game.apply(Commit(1, 9))
    assert game.phase is Phase.ROW_CHOICE
    decision = make_strategy(FAST["search"], seed=1).decide(game.view(0))
    assert decision == ChooseRow(0, 0)


# ------------------------------------------------------------------ every variant, every kind

VARIANTS = [
    dict(),
    dict(tactic_deck=True),
    dict(draft=True),
    dict(professional=True),
    dict(tactic_deck=True, draft=True, professional=True),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "+".join(v) or "base")
def test_every_strategy_plays_a_whole_round_of_every_variant(variant: dict) -> None:
    """Seats 0-3 are played by random, heuristic, mcs and search (the game
    refuses any illegal decision); every decision kind comes up."""
    kinds: dict[str, Counter] = {name: Counter() for name in FAST}
    for seed in range(2):
        players = 4
        game = Game(Options(players=players, rounds=1, **variant), seed=seed)
        strategies = {
            seat: (name, make_strategy(FAST[name].replace("samples=20", "samples=4")
                                       .replace("samples=16", "samples=4"), seed=seed))
            for seat, name in enumerate(FAST)
        }
        while not game.is_over:
            for seat in sorted(game.pending.seats):
                name, strategy = strategies[seat]
                view = game.view(seat)
                decision = strategy.decide(view)
                assert decision in view.legal
                kinds[name][type(decision).__name__] += 1
                game.apply(decision)
    for name, seen in kinds.items():
        assert seen["Commit"] == 20, name
        if variant.get("draft"):
            assert seen["DraftPick"] == 20, name


@pytest.mark.parametrize("name", ["mcs", "search"])
def test_every_decision_kind(name: str) -> None:
    strategy = make_strategy(FAST[name], seed=2)
    views = [sixth_card_position().view(0), row_choice_position().view(0)]
    tie = Game.from_position(
        Options(players=2, professional=True, rounds=1), [[20], [30, 31], [60], [80]],
        [[25, 90], [95, 99]],
    )
    tie.apply(Commit(0, 25))
    tie.apply(Commit(1, 95))
    views.append(tie.view(0))
    draft = Game(Options(players=3, draft=True, rounds=1), seed=1)
    views.append(draft.view(0))
    kinds = set()
    for view in views:
        decision = strategy.decide(view)
        assert decision in view.legal
        kinds.add(type(decision))
    assert kinds == {Commit, ChooseRow, ChooseTie, DraftPick}


# ------------------------------------------------------------------ the view only

def play_to(game: Game, decisions: int, rng: random.Random) -> None:
    strategy = HeuristicStrategy()
    for _ in range(decisions):
        if game.is_over:
            return
        seat = min(game.pending.seats)
        game.apply(strategy.decide(game.view(seat)) if rng.random() < 0.5
                   else rng.choice(game.legal_decisions(seat)))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "+".join(v) or "base")
def test_sampled_deals_agree_with_the_view(variant: dict) -> None:
    rng = random.Random(7)
    for trial in range(25):
        players = rng.randint(2, 10) if not variant.get("draft") else rng.randint(2, 6)
        game = Game(Options(players=players, rounds=1, **variant), seed=trial)
        play_to(game, rng.randint(0, players * 15), rng)
        if game.is_over or game.phase is Phase.DRAFT:
            continue
        seat = rng.randrange(players)
        view = game.view(seat)
        true_hands = [game.view(s).hand for s in range(players)]
        hands = Unseen.of(view).deal(random.Random(trial))
        assert hands[seat] == list(view.hand)
        seen = set(view.seen) | set(view.hand)
        dealt = [c for s, h in enumerate(hands) if s != seat for c in h]
        assert len(dealt) == len(set(dealt)) == (players - 1) * len(view.hand)
        assert set(dealt) <= set(view.options.deck)
        if variant.get("draft"):  # public picks: the opponents' hands are known exactly
            assert [sorted(h) for h in hands] == [sorted(h) for h in true_hands]
            continue
        assert not seen & set(dealt)  # never a card the seat has seen
        if variant.get("tactic_deck"):  # every card is dealt: the unseen ones are theirs
            assert sorted(dealt) == sorted(c for s, h in enumerate(true_hands) if s != seat for c in h)


def test_a_shuffled_deal_holds_the_same_cards_in_random_order() -> None:
    """Search's careless tables take a random player's order from the deal."""
    game = Game(Options(players=5, rounds=1), seed=2)
    unseen = Unseen.of(game.view(1))
    unsorted = 0
    for seed in range(20):
        plain = unseen.deal(random.Random(seed))
        shuffled = unseen.deal(random.Random(seed), shuffled=True)
        assert sorted(shuffled[1]) == plain[1] == list(game.view(1).hand)
        dealt = [c for h in shuffled for c in h]
        assert len(dealt) == len(set(dealt)) == 50
        assert set(dealt) - set(shuffled[1]) <= set(unseen.pool)
        unsorted += sum(1 for h in shuffled if h != sorted(h))
    assert unsorted >= 90  # a hand of 10 comes out sorted once in 3.6 million


def test_search_sees_only_the_view() -> None:
    """Two games that differ only in cards seat 0 cannot see give seat 0 the
    same view, and a seeded search makes the same decision in both."""
    rows = [[10], [30], [50], [70]]
    mine = [5, 22, 41, 66, 90]
    a = Game.from_position(Options(players=3, rounds=1), rows, [mine, [1, 2, 3, 4, 6], [91, 92, 93, 94, 95]])
    b = Game.from_position(Options(players=3, rounds=1), rows, [mine, [91, 92, 93, 94, 95], [1, 2, 3, 4, 6]])
    assert a.view(0) == b.view(0)
    assert (make_strategy(FAST["search"], seed=4).decide(a.view(0))
            == make_strategy(FAST["search"], seed=4).decide(b.view(0)))


# ------------------------------------------------------------------ time budget

def test_monte_carlo_stops_on_the_deadline_not_on_a_count() -> None:
    now = [0.0]

    def clock() -> float:
        return now[0]

    def cost(candidate: int, world: None, seed: int) -> float:
        now[0] += 0.001  # every simulation takes 1 ms
        return candidate

    estimate = monte_carlo([3, 1, 2], lambda rng: None, cost, random.Random(1),
                           deadline=0.050, clock=clock)
    assert estimate.best == 1
    assert now[0] <= 0.050 + 0.001
    assert estimate.samples >= 15  # it used the time


def test_halving_spends_the_time_on_the_close_candidates() -> None:
    """Eight candidates, three phases: the worst half drops out after each, so
    the best is scored on far more worlds than the worst, and on the clock."""
    now = [0.0]
    scored: Counter[int] = Counter()

    def clock() -> float:
        return now[0]

    def cost(candidate: int, world: float, seed: int) -> float:
        now[0] += 0.001
        scored[candidate] += 1
        return candidate + world  # the world's luck is common to every candidate

    candidates = [5, 3, 8, 1, 4, 2, 7, 6]
    estimate = monte_carlo(candidates, lambda rng: rng.uniform(-5, 5), cost, random.Random(1),
                           deadline=0.120, clock=clock, halving=True)
    assert estimate.best == 1
    assert now[0] <= 0.120 + 0.001
    assert scored[1] > 3 * scored[8] > 0
    assert scored[1] == scored[2]  # the last two were scored on the same worlds
    assert set(estimate.means) == set(candidates)
    # by count: the same number of worlds, split over the phases
    assert monte_carlo(candidates, lambda rng: 0.0, lambda c, w, s: c, random.Random(1),
                       samples=30, halving=True).samples == 30


def test_halving_never_drops_the_best_of_two_close_candidates_on_common_luck() -> None:
    """With common random numbers a small, steady difference survives the
    halving: 0.1 apart under luck of +-20, every time."""
    def cost(candidate: float, world: float, seed: int) -> float:
        return candidate + world

    candidates = [0.5, 0.1, 0.6, 0.0, 0.7, 0.9, 0.8, 0.4]
    for seed in range(20):
        estimate = monte_carlo(candidates, lambda rng: rng.uniform(-20, 20), cost,
                               random.Random(seed), samples=12, halving=True)
        assert estimate.best == 0.0


def test_search_decides_within_its_budget() -> None:
    """Every decision of a round at 10 players (the slowest case) stops sampling at its
    budget of 30 ms less the margin, on a clock that moves 1 ms at each read (no wall
    time: speed is measured in benchmarks/, not here)."""

    class StepClock:
        now = 0.0

        def __call__(self) -> float:
            self.now += 0.001
            return self.now

    clock = StepClock()
    strategy = SearchStrategy(seed=1, ms=30)
    strategy.clock = clock
    game = Game(Options(players=10, rounds=1), seed=3)
    used: list[float] = []
    while not game.is_over:
        for seat in sorted(game.pending.seats):
            view = game.view(seat)
            if seat == 0:
                before = clock.now
                decision = strategy.decide(view)
                if len(view.legal) > 1:
                    used.append(clock.now - before)
            else:
                decision = HeuristicStrategy().decide(view)
            game.apply(decision)
    stop = max(30 / 2, 30 - MARGIN_MS) / 1000
    assert len(used) >= 9
    # never past the deadline but for the reads of the last rollout and the answer;
    # a decision with enough left to weigh samples up to it (others end sooner)
    assert max(used) <= stop + 0.003 and max(used) >= stop, (stop, used)


# ------------------------------------------------------------------ by name

def test_make_strategy_by_name_with_parameters() -> None:
    search = make_strategy("search:ms=20,mix=0.5", seed=1)
    assert isinstance(search, SearchStrategy) and search.ms == 20 and search.mix == 0.5
    mcs = make_strategy("mcs:ms=15")
    assert isinstance(mcs, MonteCarloStrategy) and mcs.ms == 15
    assert isinstance(make_strategy("heuristic"), HeuristicStrategy)
    halving = make_strategy("search:halving=1")
    assert halving.halving and repr(halving) == "SearchStrategy(ms=100.0, noise=1.0, halving=True)"
    assert not make_strategy("search").halving


def test_make_strategy_seed_makes_it_reproducible() -> None:
    game = Game(Options(players=4), seed=11)
    decide = [make_strategy("search:samples=10,ms=60000", seed=s).decide for s in (1, 1)]
    assert decide[0](game.view(2)) == decide[1](game.view(2))
    assert (make_strategy("mcs:samples=10,seed=4").decide(game.view(2))
            == make_strategy("mcs:samples=10", seed=4).decide(game.view(2)))


@pytest.mark.parametrize(
    ("spec", "error", "words"),
    [
        ("alphago", UnknownStrategy, r"a level \(easy, normal, hard\) or a strategy \(heuristic, mcs, random, search\)"),
        ("search:budget=3", UnknownParameter, "it takes ms, samples, noise, mix, depth, halving, careful, later, ahead, first, seed"),
        ("heuristic:ms=3", UnknownParameter, "heuristic has no parameter 'ms'"),
        ("search:ms", BadParameter, "search:ms needs a value"),
        ("search:ms=fast", BadParameter, "search:ms must be a number, not 'fast'"),
        ("mcs:samples=2.5", BadParameter, "mcs:samples must be a whole number"),
        ("search:ms=-5", BadParameter, "ms must be a number of milliseconds"),
        ("mcs:samples=0", BadParameter, "samples must be a whole number of at least 1"),
        ("search:halving=2", BadParameter, "halving must be 1 .on. or 0 .off."),
    ],
)
def test_make_strategy_errors_say_what_was_wrong(spec: str, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        make_strategy(spec)
    with pytest.raises(ValueError):  # all of them are ValueErrors
        make_strategy(spec)


@pytest.mark.parametrize(("opponents", "low", "high"), [("random", 0.8, 1.0), ("heuristic", 0.0, 0.35)])
def test_search_learns_how_carelessly_the_opponents_play(opponents: str, low: float, high: float) -> None:
    """OpponentModel, fed seat 0's views over a game of two rounds, tells
    random opponents from sensible ones on average over 6 games (one game
    can mislead it: a sensible player forced to take a row looks careless)."""
    from nimmt.bots.opponents import OpponentModel

    learnt = []
    for seed in range(6):
        model = OpponentModel()
        assert model.careless == pytest.approx(0.993, abs=0.001)
        others = [make_strategy(opponents, seed=s) for s in range(4)]
        _watch_a_game(model, [HeuristicStrategy(), *others[1:]], seed)
        learnt.append(model.careless)
    assert low <= sum(learnt) / len(learnt) <= high


def _pools(view: View) -> list[tuple[int, ...] | None]:
    """Per seat, the cards it may hold as ``view``'s seat sees it."""
    pool = Unseen.of(view).pool
    return [None if s == view.seat else pool for s in range(view.players)]


def _watch_a_game(model, players: list, seed: int) -> None:  # noqa: ANN001
    """A 2-round game of ``players``; ``model`` learns as seat 0 at each of its commits."""
    game = Game(Options(players=len(players), rounds=2), seed=seed)
    while not game.is_over:
        for seat in sorted(game.pending.seats):
            view = game.view(seat)
            if seat == 0 and view.phase is Phase.COMMIT:
                model.observe(view, _pools(view))
            game.apply(players[seat].decide(view))


def test_search_tells_a_sensible_seat_from_random_ones_at_the_same_table() -> None:
    """At a table of one heuristic and two random bots, the opponent model reads
    the heuristic seat as sensible and the random seats as random, seat by seat
    (from who played which card: ``View.plays``), on average over 6 games."""
    from nimmt.bots.opponents import OpponentModel

    sensible, careless = [], []
    for seed in range(6):
        model = OpponentModel()
        others = [HeuristicStrategy(), HeuristicStrategy(), make_strategy("random", seed=seed),
                  make_strategy("random", seed=seed + 10)]
        _watch_a_game(model, others, seed)
        sensible.append(model.careless_of(1))
        careless += [model.careless_of(2), model.careless_of(3)]
    assert sum(sensible) / len(sensible) < 0.3
    assert sum(careless) / len(careless) > 0.9


def test_search_tells_careful_seats_from_random_ones() -> None:
    """The model's second question: a seat that keeps out of full rows (here
    the heuristic) is read as careful, random seats mostly as random, on
    average over 6 two-round games; before any card, one half each."""
    from nimmt.bots.opponents import OpponentModel

    careful, careless = [], []
    for seed in range(6):
        model = OpponentModel()
        assert model.careful_of(2) == 0.5
        others = [HeuristicStrategy(), HeuristicStrategy(), make_strategy("random", seed=seed),
                  make_strategy("random", seed=seed + 10)]
        _watch_a_game(model, others, seed)
        careful.append(model.careful_of(1))
        careless += [model.careful_of(2), model.careful_of(3)]
    assert sum(careful) / len(careful) > 0.85
    assert sum(careless) / len(careless) < 0.45
