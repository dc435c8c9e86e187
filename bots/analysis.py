"""The coach's analysis of a finished game: what each decision cost, from the seat's view.

For every decision of a seat (a card to commit, a row to take, a place for a
tie), ``analyse`` scores every legal choice the
way ``search`` does (``SearchStrategy.problem``): it deals the cards that seat
could not see in ``samples`` ways consistent with what it saw *at the time*,
plays each choice on every deal to the end of the round (the opponents as the
search imagines them, its opponent model having learnt from that seat's view
of the game so far) and averages that seat's bullheads. Every choice is played
on the same deals (common random numbers), so the difference between two
choices is measured far more precisely than either choice alone.

- ``expected``: a choice's mean bullheads from now to the round's end, with
  the half-width of its 95% interval (``ci95``);
- ``loss``: the choice's expected bullheads minus the best choice's, paired
  deal by deal, with its own 95% interval;
- ``mark``: by the loss of the choice made (``THRESHOLDS``);
- ``hindsight``: what each choice would really have cost against the cards
  the others really held and played (public once the round is over): the
  others' cards as they played them, this seat's later cards as it played
  them (the choice swapped with the card it played in its place), rows to
  take chosen as the cheapest. For the choice made it is the engine's result:
  the bullheads the seat really took from that decision to the round's end.

Draft picks are listed, not analysed (``PickNotAnalysed``, with the reason
``PICK_NOT_ANALYSED``): a pick changes every later pick and the rows, so the
search's deals hardly pair two picks, and at the sample counts a card is
analysed with, the loss of a pick would be mostly chance (measured in
docs/ANALYSIS.md, "Draft picks").

The numbers are reproducible: the same record, ``samples`` and ``seed`` give
the same analysis on any machine (no clock decides anything). A seat's
analysis does not depend on which other seats are analysed.

>>> from nimmt.engine import Game, Options, record_from_game
>>> game = Game(Options(players=3, rounds=1), seed=5)
>>> while not game.is_over:
...     seat = min(game.pending.seats)
...     _ = game.apply(game.legal_decisions(seat)[0])
>>> report = analyse(record_from_game(game, ["A", "B", "C"]), seats=[0], samples=20)
>>> [len(r.decisions) for r in report.seats[0].rounds]
[10]
>>> last = report.seats[0].rounds[0].decisions[-1]   # one card left: no choice, no loss
>>> len(last.options), last.loss
(1, 0.0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from nimmt.engine import (
    ChooseRow,
    ChooseTie,
    Commit,
    Decision,
    DraftPick,
    End,
    RoundScored,
    View,
)
from nimmt.engine.records import Record, Replay

from .rollout import Situation, in_order_finisher
from .sampling import InconsistentView
from .search import SearchStrategy

__all__ = [
    "THRESHOLDS",
    "DEFAULT_SAMPLES",
    "Choice",
    "DecisionAnalysis",
    "PickNotAnalysed",
    "PICK_NOT_ANALYSED",
    "RoundAnalysis",
    "SeatAnalysis",
    "GameAnalysis",
    "analyse",
    "analyse_decision",
    "mark",
    "label",
]

#: Losses (expected bullheads given away against the best choice) from which a
#: decision is marked, least first. A round costs a 4-player table about 8 to
#: 12 bullheads a seat: 1 is a cheap card given away (about a tenth of a
#: round), 2.5 a quarter of a round, 5 a typical row of four or five cards
#: taken that could have been avoided (docs/ANALYSIS.md).
THRESHOLDS: tuple[tuple[str, float], ...] = (("inaccuracy", 1.0), ("mistake", 2.5),
                                             ("blunder", 5.0))

#: Deals a decision by default: about +-0.3 bullheads on the loss of a choice
#: at 4 players (benchmarks/README.md, "The coach's analysis").
DEFAULT_SAMPLES = 300

#: The loss of the choice made is refined to this half-width (95%), bullheads ...
PRECISION = 0.25
#: ... on at most this many times the first deals (then its interval is wider).
REFINE = 20

#: Half-width of a 95% interval, in standard errors.
Z95 = 1.96

#: Why a Draft pick is not analysed (measured at 4 players: docs/ANALYSIS.md).
PICK_NOT_ANALYSED = (
    "a pick changes every later pick and the rows, so the search's deals hardly pair two "
    "picks: after 300 deals a pick's loss is known only to about ±0.8 bullheads, more "
    "than most picks differ by, and to ±0.2 it would take about 40 s a pick")


def mark(loss: float) -> str | None:
    """The mark of a decision that gave away ``loss`` expected bullheads: the
    last threshold reached (``loss >= threshold``), or None.

    >>> [mark(x) for x in (0.99, 1.0, 2.5, 4.99, 5.0)]
    [None, 'inaccuracy', 'mistake', 'mistake', 'blunder']
    """
    found = None
    for name, threshold in THRESHOLDS:
        if loss >= threshold:
            found = name
    return found


def label(decision: Decision) -> str:
    """A choice in words: a card ``86``, ``row 2``, ``row 1 left`` (rows 0 to 3, as
    nimmt-replay numbers them)."""
    if isinstance(decision, Commit):
        return str(decision.card)
    if isinstance(decision, ChooseRow):
        return f"row {decision.row}"
    if isinstance(decision, ChooseTie):
        end = "left" if decision.place.end is End.LEFT else "right"
        return f"row {decision.place.row} {end}"
    raise TypeError(f"not analysed: {decision!r}")


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal choice of a decision."""

    decision: Decision
    expected: float  # mean bullheads to the round's end
    ci95: float  # half-width of its 95% interval
    loss: float  # expected minus the best choice's, paired by deal
    loss_ci95: float
    hindsight: int | None  # bullheads against the real cards; None if the round is unfinished

    @property
    def label(self) -> str:
        return label(self.decision)


@dataclass(frozen=True, slots=True)
class DecisionAnalysis:
    """A decision of ``seat``: every legal choice, best (lowest expected) first."""

    seat: int
    round: int
    turn: int
    kind: str  # "card", "row" or "tie"
    options: tuple[Choice, ...]
    chosen: Decision
    samples: int

    @property
    def made(self) -> Choice:
        return next(o for o in self.options if o.decision == self.chosen)

    @property
    def best(self) -> Choice:
        return self.options[0]

    @property
    def loss(self) -> float:
        return self.made.loss

    @property
    def mark(self) -> str | None:
        return mark(self.loss)


@dataclass(frozen=True, slots=True)
class PickNotAnalysed:
    """A Draft pick of ``seat``, listed with why it is not analysed."""

    seat: int
    round: int
    pick: int  # the seat's own pick of the round, from 1
    chosen: int  # the card picked
    choices: int  # the cards it could pick from
    kept: tuple[int, ...]  # the cards it had picked before, ascending
    reason: str = PICK_NOT_ANALYSED


@dataclass(frozen=True, slots=True)
class RoundAnalysis:
    seat: int
    round: int
    decisions: tuple[DecisionAnalysis, ...]
    bullheads: int | None  # what the seat really took this round; None if unfinished
    # Draft: the seat's picks, in order (not analysed: ``PICK_NOT_ANALYSED``)
    not_analysed: tuple[PickNotAnalysed, ...] = ()

    @property
    def expected_loss(self) -> float:
        return sum(d.loss for d in self.decisions)

    @property
    def worst(self) -> DecisionAnalysis | None:
        """The decision that cost most on average (the first of equals); None if none cost."""
        worst = max(self.decisions, key=lambda d: d.loss, default=None)
        return worst if worst is not None and worst.loss > 0 else None


@dataclass(frozen=True, slots=True)
class SeatAnalysis:
    seat: int
    name: str
    rounds: tuple[RoundAnalysis, ...]


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    samples: int
    seed: int
    seats: tuple[SeatAnalysis, ...]


@dataclass(frozen=True, slots=True)
class _Moment:
    """A decision of the record and the seat's view just before it."""

    view: View
    decision: Decision


@dataclass
class _RoundFacts:
    """What the record shows of a round once it is over."""

    commits: dict[int, list[int]]  # turn -> the card of each seat
    penalties: tuple[int, ...] | None = None  # None while unfinished


def _walk(record: Record, seats: set[int]
          ) -> tuple[list[_Moment], list[PickNotAnalysed], dict[int, _RoundFacts]]:
    """Every decision of ``seats`` with the view before it, their Draft picks, and
    every round's cards."""
    run = Replay(record)
    moments: list[_Moment] = []
    picks: list[PickNotAnalysed] = []
    rounds: dict[int, _RoundFacts] = {}
    before: dict[int, View] = {}
    for step in run:
        action = step.action
        if isinstance(action, (Commit, ChooseRow, ChooseTie)) and step.seat is not None:
            if isinstance(action, Commit):
                assert step.turn is not None
                facts = rounds.setdefault(step.round, _RoundFacts({}))
                facts.commits.setdefault(step.turn, [0] * record.options.players)[step.seat] = \
                    action.card
            if step.seat in seats:
                moments.append(_Moment(before[step.seat], action))
        elif isinstance(action, DraftPick) and action.seat in seats:
            view = before[action.seat]
            picks.append(PickNotAnalysed(action.seat, view.round, len(view.hand) + 1,
                                         action.card, len(view.draft_pool), view.hand))
        for event in step.events:
            if isinstance(event, RoundScored):
                rounds.setdefault(event.round, _RoundFacts({})).penalties = event.penalties
        game = run.game
        assert game is not None
        pending = game.pending
        before = {s: game.view(s) for s in seats if pending is not None and s in pending.seats}
    return moments, picks, rounds


def _hindsight(view: View, decisions: Sequence[Decision], facts: _RoundFacts) -> list[int] | None:
    """Each decision's bullheads to the round's end against the real cards (see
    the module's doc), or None if the round's cards are not all known."""
    me = view.seat
    assert me is not None
    n = view.players
    turns = sorted(t for t in facts.commits if t >= view.turn)
    if facts.penalties is None or not turns or turns[0] != view.turn:
        return None
    sequences = [[facts.commits[t][s] for t in turns] for s in range(n)]
    situation = Situation.of(view)
    finish = in_order_finisher(view.options.professional)
    out = []
    for decision in decisions:
        if isinstance(decision, Commit):
            hands = [list(q) for q in sequences]
            own = hands[me]
            i = own.index(decision.card)
            own[0], own[i] = own[i], own[0]
            firsts = [h[0] for h in hands]
            penalties = situation.outcome(decision, hands, firsts, finish)
        else:  # this turn's cards are on the table already: the later turns' remain
            penalties = situation.outcome(decision, [q[1:] for q in sequences], None, finish)
        out.append(penalties[me])
    return out


def analyse_decision(view: View, chosen: Decision, search: SearchStrategy, samples: int,
                     rng: random.Random, facts: _RoundFacts | None = None,
                     precision: float = PRECISION) -> DecisionAnalysis:
    """Every legal choice of ``view`` scored over ``samples`` deals (``search``'s
    model, its opponent model learning from ``view``), and ``chosen`` among them.
    Then the choices that may be the best (a loss within its interval of 0) and
    ``chosen`` are scored on ``samples`` more deals at a time until the loss of
    ``chosen`` is known to ``precision`` (95%), up to ``REFINE`` times
    ``samples`` deals in all: the same deals for the same ``rng``, whatever the
    machine. The best choice is the lowest mean among those scored on the most
    deals; a loss is paired with the best's over the deals both were scored on."""
    me = view.seat
    assert me is not None
    kind = "card" if isinstance(chosen, Commit) else "row" if isinstance(chosen,
                                                                          ChooseRow) else "tie"
    try:
        problem = search.problem(view, score=lambda penalties: penalties[me])
    except InconsistentView:  # a view no deal fits: its choices are listed, not scored
        problem = None
    candidates: list[Decision] = (list(problem.candidates) if problem is not None
                                  else list(view.legal))
    if not any(_same(c, chosen) for c in candidates):
        raise ValueError(f"{chosen!r} is not one of the choices of this view")
    count = len(candidates)
    made = next(i for i, c in enumerate(candidates) if _same(c, chosen))
    values: list[list[float]] = [[] for _ in range(count)]

    def play(deals: int, which: Sequence[int]) -> None:
        assert problem is not None
        for _ in range(deals):
            world = problem.sample_world(rng)
            seed = rng.getrandbits(32)
            for i in which:
                values[i].append(problem.cost(candidates[i], world, seed))

    if problem is not None:  # a forced move is scored too: what it is expected to cost
        play(samples, range(count))
        # the choices that may be the best, and the one made, on more deals until the
        # loss of the one made is known to +-precision (a count, never the clock)
        means = [_mean(v) for v in values]
        first = min(range(count), key=lambda i: means[i])
        close = [i for i in range(count) if i == made or i == first
                 or _mean(_minus(values[i], values[first])) <= _half(_minus(values[i],
                                                                        values[first]))]
        while len(values[made]) < samples * REFINE and len(close) > 1:
            best = min(close, key=lambda i: _mean(values[i]))
            # the others still in the race: those not already clearly worse than the best
            close = [i for i in close if i in (best, made)
                     or _mean(_minus(values[i], values[best]))
                     <= _half(_minus(values[i], values[best]))]
            if best == made:  # its loss is 0: how sure, is the nearest other's difference
                others = [i for i in close if i != made]
                if not others:
                    break
                near = min(others, key=lambda i: _mean(values[i]))
                if _half(_minus(values[near], values[made])) <= precision:
                    break
            elif _half(_minus(values[made], values[best])) <= precision:
                break
            play(samples, close)
    means = [_mean(v) for v in values]
    most = max(len(v) for v in values)
    best = min((i for i in range(count) if len(values[i]) == most), key=lambda i: means[i])
    hindsight = _hindsight(view, candidates, facts) if facts is not None else None
    options = []
    for i in sorted(range(count), key=lambda i: (i != best, means[i], i)):
        c = candidates[i]
        diffs = _minus(values[i], values[best])
        real = hindsight[i] if hindsight is not None else None
        if real is not None and i == made and facts is not None:
            assert facts.penalties is not None
            real = facts.penalties[me] - view.penalties[me]  # the engine's own result
        options.append(Choice(_as_played(c, chosen), means[i], _half(values[i]),
                              _mean(diffs) if i != best else 0.0,
                              _half(diffs) if i != best else 0.0, real))
    return DecisionAnalysis(me, view.round, view.turn, kind, tuple(options), chosen, len(values[made]))


def _same(a: Decision, b: Decision) -> bool:
    """The same choice, whatever round and turn stamps a commit carries."""
    if isinstance(a, Commit) and isinstance(b, Commit):
        return a.seat == b.seat and a.card == b.card
    return a == b


def _as_played(candidate: Decision, chosen: Decision) -> Decision:
    return chosen if _same(candidate, chosen) else candidate


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _minus(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """``a - b`` deal by deal, over the deals both were scored on (the first ones)."""
    return [x - y for x, y in zip(a, b)]


def _half(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return Z95 * math.sqrt(var / n)


def analyse(record: Record, seats: Iterable[int] | None = None, samples: int = DEFAULT_SAMPLES,
            seed: int = 0, progress: Callable[[int, int], None] | None = None) -> GameAnalysis:
    """The analysis of every decision of ``seats`` (default: every seat) in
    ``record``. ``progress(done, total)`` is called after each decision.
    ``RecordError`` if the record contradicts the rules."""
    if type(samples) is not int or samples < 2:
        raise ValueError(f"samples must be a whole number of at least 2, not {samples!r}")
    players = record.options.players
    wanted = sorted(set(range(players) if seats is None else seats))
    if any(not 0 <= s < players for s in wanted):
        raise ValueError(f"seats are 0 to {players - 1}")
    moments, picks, rounds = _walk(record, set(wanted))
    searches = {s: SearchStrategy(seed=_seed(seed, s), samples=samples) for s in wanted}
    by_seat: dict[int, list[DecisionAnalysis]] = {s: [] for s in wanted}
    for done, moment in enumerate(moments, 1):
        view = moment.view
        assert view.seat is not None
        rng = random.Random(f"{seed}:{view.seat}:{view.round}:{view.turn}:{len(view.unresolved)}")
        by_seat[view.seat].append(analyse_decision(view, moment.decision, searches[view.seat],
                                                   samples, rng, rounds.get(view.round)))
        if progress is not None:
            progress(done, len(moments))
    out = []
    for s in wanted:
        per_round: dict[int, list[DecisionAnalysis]] = {}
        for d in by_seat[s]:
            per_round.setdefault(d.round, []).append(d)
        picked: dict[int, list[PickNotAnalysed]] = {}
        for p in picks:
            if p.seat == s:
                picked.setdefault(p.round, []).append(p)
                per_round.setdefault(p.round, [])
        out.append(SeatAnalysis(s, record.name(s), tuple(
            RoundAnalysis(s, r, tuple(ds), _taken(rounds.get(r), s), tuple(picked.get(r, ())))
            for r, ds in sorted(per_round.items()))))
    return GameAnalysis(samples, seed, tuple(out))


def _taken(facts: _RoundFacts | None, seat: int) -> int | None:
    return facts.penalties[seat] if facts is not None and facts.penalties is not None else None


def _seed(seed: int, seat: int) -> int:
    return seed * 1009 + seat
