"""Replaying a game record: ``replay(record)`` re-runs it through the engine and
checks it, step by step; ``describe_pending`` says in words where a game waits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import CardNotInHand, NimmtError
from ..events import Event, RoundScored, TurnStarted
from ..game import Game
from ..moves import ChooseRow, ChooseTie, Commit, Deal, Decision, DraftPick, End, Place
from ..options import HAND_SIZE, ROWS
from ..pending import (
    AwaitingCommits,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
)
from .format import (
    Choice,
    Record,
    RecordContradiction,
    RoundRecord,
    Rows,
    RowChoice,
    Start,
    TieChoice,
    TurnRecord,
)
from .parse import record_from_dict
from .rows import follow_rows, freeze_rows

__all__ = ["Step", "Replay", "replay", "describe_pending"]


@dataclass(frozen=True, slots=True)
class Step:
    """One thing a replayed record made happen, and the events it caused.

    ``action`` is the record's ``Start``, a ``Deal``, a ``Decision``, or None for
    the opening of a game that begins with a deal. ``turn`` is None outside turns
    (deals, draft picks); ``seat`` is None for chance (a start, a deal).
    """

    round: int
    turn: int | None
    seat: int | None
    action: Start | Deal | Decision | None
    events: tuple[Event, ...]


class Replay:
    """A record being re-run through the engine. Iterate it (once) for the steps;
    a contradiction raises ``RecordContradiction`` when it is reached, after the
    steps before it. Then ``game`` is the final state and ``stopped`` says where
    a record that stops part-way stops (None when the game is over)."""

    def __init__(self, record: Record) -> None:
        self.record = record_from_dict(record.to_dict())  # the same checks as a file gets
        self.game: Game | None = None
        self.steps: list[Step] = []
        self._started = False
        self._rows: list[list[int]] = []
        self._turn_done = False
        self._scored: RoundScored | None = None

    def __iter__(self) -> Iterator[Step]:
        if self._started:
            raise RuntimeError("a Replay runs once: make a new one")
        self._started = True
        for step in self._run():
            self.steps.append(step)
            yield step

    def run(self) -> Replay:
        """Run to the end of the record; return self."""
        for _ in self:
            pass
        return self

    @property
    def stopped(self) -> str | None:
        """Where the record stops, in words, if the game is not over; else None."""
        if self.game is None or self.game.is_over:
            return None
        return describe_pending(self.game, self.record.name)

    # the run ----------------------------------------------------------------

    def _name(self, seat: int) -> str:
        return self.record.name(seat)

    def _step(self, step: Step) -> Step:
        self._turn_done = False
        self._scored = None
        for event in step.events:
            if isinstance(event, (TurnStarted, RoundScored)):
                self._turn_done = True
            if isinstance(event, RoundScored):
                self._scored = event
            follow_rows(self._rows, event)
        return step

    def _run(self) -> Iterator[Step]:
        record = self.record
        if record.start is not None:
            try:
                game = record.start.game(record.options)
            except NimmtError as e:
                raise RecordContradiction(f"start: {e}", round=record.start.round) from None
            self.game = game
            self._rows = [list(r) for r in record.start.rows]
            yield self._step(Step(game.round, game.turn, None, record.start, game.opening_events))
        else:
            game = Game(record.options)
            self.game = game
            yield self._step(Step(1, None, None, None, game.opening_events))
        for index, rnd in enumerate(record.rounds):
            number = record.first_round + index
            last_round = index == len(record.rounds) - 1
            if not (index == 0 and record.start is not None):
                self._check_round_can_begin(game, number)
                if record.options.draft:
                    yield from self._picks(game, number, rnd, last_round)
                    if rnd.rows is None:  # the record stops during (or right after) the draft
                        self._check_round_end(game, number, rnd, last_round)
                        break
                yield self._deal(game, number, rnd)
            first_turn = record.start.first_turn if (index == 0 and record.start is not None) else 1
            for j, turn in enumerate(rnd.turns):
                last_turn = last_round and j == len(rnd.turns) - 1
                yield from self._turn(game, number, first_turn + j, turn, last_turn)
            self._check_round_end(game, number, rnd, last_round)
        self._check_result(game)

    def _check_round_can_begin(self, game: Game, number: int) -> None:
        pending = game.pending
        if pending is None:
            raise RecordContradiction(
                f"the game is over after round {number - 1} ({_why_over(game)}), but the record goes on",
                round=number,
            )
        # Earlier rounds were checked complete, so the game waits for this round's deal or draft.
        assert isinstance(pending, (AwaitingDeal, AwaitingDraftPick)) and pending.round == number

    def _picks(self, game: Game, number: int, rnd: RoundRecord, last_round: bool) -> Iterator[Step]:
        picks = rnd.picks or ()
        for k, (seat, card) in enumerate(picks):
            pending = game.pending
            if not isinstance(pending, AwaitingDraftPick):
                raise RecordContradiction(
                    f"pick {k + 1}: every seat already holds {HAND_SIZE} cards; the draft is over "
                    f"after {k} picks",
                    round=number,
                    seat=seat,
                )
            if seat != pending.seat:
                raise RecordContradiction(
                    f"pick {k + 1} of this round is {self._name(pending.seat)}'s (seat {pending.seat}), "
                    f"not seat {seat}'s: the seats pick in turn, one card each, from seat "
                    f"{(number - 1) % game.options.players} this round",
                    round=number,
                    seat=seat,
                )
            try:
                events = game.apply(DraftPick(seat, card))
            except CardNotInHand:
                taken = [s for s, c in game.view(None).draft_picks if c == card]
                why = (
                    f"{self._name(taken[0])} picked it earlier"
                    if taken
                    else f"it is not in the deck in use (1 to {len(game.options.deck)})"
                )
                raise RecordContradiction(
                    f"pick {k + 1}: {self._name(seat)} picks {card}, which is not in the pool: {why}",
                    round=number,
                    seat=seat,
                ) from None
            yield self._step(Step(number, None, seat, DraftPick(seat, card), tuple(events)))
        if isinstance(game.pending, AwaitingDraftPick) and (rnd.rows is not None or not last_round):
            raise RecordContradiction(
                f"the draft is not over after {len(picks)} picks (each seat picks {HAND_SIZE} cards, "
                f"{HAND_SIZE * game.options.players} in all), but the record goes on",
                round=number,
                seat=game.pending.seat,
            )

    def _deal(self, game: Game, number: int, rnd: RoundRecord) -> Step:
        assert rnd.rows is not None
        deal = Deal(rows=rnd.rows, hands=None if game.options.draft else rnd.hands)
        try:
            events = game.deal(deal)
        except NimmtError as e:
            raise RecordContradiction(f"the deal: {e}", round=number) from None
        return self._step(Step(number, None, None, deal, tuple(events)))

    def _turn(
        self, game: Game, number: int, turn: int, rec: TurnRecord, last_turn: bool
    ) -> Iterator[Step]:
        pending = game.pending
        if not (
            isinstance(pending, AwaitingCommits)
            and pending.round == number
            and pending.turn == turn
        ):
            raise RecordContradiction(
                f"round {number} is over after turn {turn - 1}: the hands are empty, but the record has a turn {turn}",
                round=number,
                turn=turn,
            )
        for seat, card in enumerate(rec.commits):
            if card is None:
                continue
            try:
                events = game.apply(Commit(seat, card, round=number, turn=turn))
            except CardNotInHand:
                hand = " ".join(map(str, game.view(seat).hand))
                raise RecordContradiction(
                    f"{self._name(seat)} commits {card}, which is not in their hand (they hold {hand})",
                    round=number,
                    turn=turn,
                    seat=seat,
                ) from None
            yield self._step(Step(number, turn, seat, Commit(seat, card), tuple(events)))
        if None in rec.commits:
            return  # the record stops here, before the reveal
        choices = list(rec.choices)
        while isinstance(game.pending, (AwaitingRowChoice, AwaitingTieChoice)):
            needed = game.pending
            if not choices:
                if last_turn and rec.rows_after is None and not self._claims_after(number):
                    return  # the record stops here, waiting for this choice
                raise RecordContradiction(
                    f"{_need(needed, self._name)}, but the record gives no choice for it",
                    round=number,
                    turn=turn,
                    seat=needed.seat,
                )
            choice = choices.pop(0)
            decision = self._decision(needed, choice, number, turn)
            events = game.apply(decision)
            yield self._step(Step(number, turn, choice.seat, decision, tuple(events)))
        if choices:
            extra = choices[0]
            kind = "row choice" if isinstance(extra, RowChoice) else "tie choice"
            if len(choices) < len(rec.choices):
                why = "no further choice was needed in this turn: the cards after it each had one place to go"
            else:
                why = "no choice was needed in this turn: every card had one place to go (rules 1 to 3)"
            raise RecordContradiction(
                f"the record gives {self._name(extra.seat)} a {kind}, but {why}",
                round=number,
                turn=turn,
                seat=extra.seat,
            )
        if rec.rows_after is not None:
            self._check_rows(rec.rows_after, number, turn)

    def _claims_after(self, number: int) -> bool:
        """Whether the record claims anything that needs the last turn finished."""
        record = self.record
        rnd = record.rounds[number - record.first_round]
        return rnd.penalties is not None or rnd.totals is not None or record.result is not None

    def _decision(
        self, needed: AwaitingRowChoice | AwaitingTieChoice, choice: Choice, number: int, turn: int
    ) -> Decision:
        where = {"round": number, "turn": turn, "seat": choice.seat}
        name = self._name
        kind = "row" if isinstance(choice, RowChoice) else "tie"
        if choice.seat != needed.seat:
            raise RecordContradiction(
                f"the record has {name(choice.seat)} make a {kind} choice, but {_need(needed, name)}",
                **where,
            )
        if isinstance(needed, AwaitingRowChoice):
            if not isinstance(choice, RowChoice):
                raise RecordContradiction(
                    f"the record gives a tie choice (a place), but {_need(needed, name)}: "
                    f'write {{"seat": {needed.seat}, "row": R}}',
                    **where,
                )
            return ChooseRow(choice.seat, choice.row)
        if not isinstance(choice, TieChoice):
            raise RecordContradiction(
                f"the record gives a row choice, but {_need(needed, name)}: "
                f'write {{"seat": {needed.seat}, "place": {{"row": R, "end": "left" or "right"}}}}',
                **where,
            )
        if choice.place not in needed.places:
            raise RecordContradiction(
                f"{_place(choice.place)} is not one of the places {needed.card} fits equally well "
                f"({_places(needed.places)})",
                **where,
            )
        return ChooseTie(choice.seat, choice.place)

    def _check_rows(self, claimed: Rows, number: int, turn: int) -> None:
        if not self._turn_done:
            raise RecordContradiction(
                "the record claims rows_after, but the turn is not resolved",
                round=number,
                turn=turn,
            )
        actual = freeze_rows(self._rows)
        if claimed != actual:
            row = next(i for i in range(ROWS) if claimed[i] != actual[i])
            raise RecordContradiction(
                f"the record claims the rows after this turn are {_rows_text(claimed)}, but by the rules "
                f"they are {_rows_text(actual)} (row {row} differs)",
                round=number,
                turn=turn,
            )

    def _check_round_end(self, game: Game, number: int, rnd: RoundRecord, last_round: bool) -> None:
        scored = self._scored if self._turn_done else None
        if scored is None or scored.round != number:
            if not last_round:
                hand = len(game.view(0).hand)
                raise RecordContradiction(
                    f"the record goes on to round {number + 1}, but round {number} is not over: "
                    f"the record has {len(rnd.turns)} turns and the hands still hold {hand} cards",
                    round=number,
                )
            if rnd.penalties is not None or rnd.totals is not None:
                raise RecordContradiction(
                    "the record claims this round's penalties or totals, but it stops before the round ends",
                    round=number,
                )
            return
        for what, claimed, actual in (
            ("took", rnd.penalties, scored.penalties),
            ("has a total of", rnd.totals, scored.totals),
        ):
            if claimed is None or claimed == actual:
                continue
            seat = next(s for s in range(len(actual)) if claimed[s] != actual[s])
            label = "this round" if what == "took" else "after this round"
            raise RecordContradiction(
                f"the record claims {self._name(seat)} {what} {_heads(claimed[seat])} {label}, "
                f"but by the rules {self._name(seat)} {what} {_heads(actual[seat])}",
                round=number,
                seat=seat,
            )

    def _check_result(self, game: Game) -> None:
        claim = self.record.result
        if claim is None:
            return
        if game.result is None:
            raise RecordContradiction(
                f"the record claims a result, but {describe_pending(game, self._name)}"
            )
        result = game.result
        for what, claimed, actual in (
            ("total", claim.totals, result.totals),
            ("place", claim.places, result.places),
        ):
            if claimed is not None and claimed != actual:
                seat = next(s for s in range(len(actual)) if claimed[s] != actual[s])
                raise RecordContradiction(
                    f"the result claims {self._name(seat)}'s {what} is {claimed[seat]}, but by the rules it is "
                    f"{actual[seat]}",
                    seat=seat,
                )
        if claim.winners is not None and tuple(sorted(claim.winners)) != result.winners:
            seat = min(set(claim.winners) ^ set(result.winners))
            names = ", ".join(self._name(s) for s in result.winners)
            raise RecordContradiction(
                f"the result claims the winners are {', '.join(self._name(s) for s in claim.winners)}, "
                f"but by the rules the winners (fewest bullheads) are {names}",
                seat=seat,
            )


def replay(record: Record) -> Replay:
    """Re-run ``record`` through the engine: iterate the result for the ``Step``s.

    >>> from nimmt.engine.records import record_from_json
    >>> record = record_from_json('''{"format": "nimmt-record", "version": 1,
    ...   "options": {"players": 2, "rounds": 1},
    ...   "start": {"rows": [[10], [20], [30], [40]], "hands": [[5], [41]]},
    ...   "rounds": [{"turns": [{"commits": [5, 41], "choices": [{"seat": 0, "row": 2}]}]}]}''')
    >>> run = replay(record).run()
    >>> run.game.rows, run.game.totals
    (((10,), (20,), (5,), (40, 41)), (3, 0))
    >>> bad = record_from_json(record.to_json().replace('"seat": 0, "row"', '"seat": 1, "row"'))
    >>> replay(bad).run()
    Traceback (most recent call last):
    ...
    nimmt.engine.records.format.RecordContradiction: round 1, turn 10, seat 1: the record has seat 1 make a row choice, but seat 0's 5 fits no row (it is lower than the last card of every row), so seat 0 chooses a row to take
    """
    return Replay(record)


# ----------------------------------------------------------------- words


def _heads(n: int) -> str:
    return f"{n} bullhead" if n == 1 else f"{n} bullheads"


def _rows_text(rows: Sequence[Sequence[int]]) -> str:
    return " | ".join(" ".join(map(str, r)) for r in rows)


def _place(place: Place) -> str:
    return f"the {End(place.end).value} end of row {place.row}"


def _places(places: Sequence[Place]) -> str:
    return " and ".join(_place(p) for p in places)


def _need(pending: AwaitingRowChoice | AwaitingTieChoice, name: Any) -> str:
    who = name(pending.seat)
    if isinstance(pending, AwaitingRowChoice):
        return (
            f"{who}'s {pending.card} fits no row (it is lower than the last card of every row), "
            f"so {who} chooses a row to take"
        )
    return f"{who}'s {pending.card} fits {_places(pending.places)} equally well, so {who} chooses between them"


def _why_over(game: Game) -> str:
    options = game.options
    if options.rounds is not None and game.round >= options.rounds:
        return (
            "its one round is played"
            if options.rounds == 1
            else f"its {options.rounds} rounds are played"
        )
    return f"a total reached the point limit of {options.point_limit}"


def describe_pending(game: Game, name: Any = lambda s: f"seat {s}") -> str:
    """Where ``game`` waits, in words: ``"the record stops at round 1, turn 3: ..."``."""
    pending = game.pending
    if pending is None:
        return "the game is over"
    if isinstance(pending, AwaitingDeal):
        what = "the draw of the 4 row cards" if pending.rows_only else "the deal"
        return f"the record stops before {what} of round {pending.round}"
    if isinstance(pending, AwaitingDraftPick):
        return (
            f"the record stops at round {pending.round}, during the draft: "
            f"waiting for pick {pending.pick}, {name(pending.seat)}'s"
        )
    at = f"the record stops at round {game.round}, turn {game.turn}"
    if isinstance(pending, AwaitingCommits):
        waiting = ", ".join(name(s) for s in sorted(pending.waiting))
        done = ", ".join(name(s) for s in sorted(pending.committed))
        return f"{at}: waiting for {waiting} to commit" + (f" ({done} committed)" if done else "")
    return f"{at}: waiting for a choice: {_need(pending, name)}"
