"""Building a game record from a played game: ``record_from_game``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import NimmtError
from ..events import Event, GameOver, GameResult, RoundScored, TurnStarted
from ..game import Game
from ..moves import ChooseRow, ChooseTie, Commit, Deal, Decision, DraftPick, End, Place
from .format import (
    FairDealClaim,
    Choice,
    Record,
    ResultClaim,
    RoundRecord,
    Rows,
    RowChoice,
    Start,
    TableFacts,
    TieChoice,
    TurnRecord,
)
from .rows import follow_rows, freeze_rows

__all__ = ["record_from_game"]


# ----------------------------------------------------------------- from a game


@dataclass
class _TurnDraft:
    number: int
    commits: list[int | None]
    choices: list[Choice] = field(default_factory=list)
    rows_after: Rows | None = None


@dataclass
class _RoundDraft:
    number: int
    hands: tuple[tuple[int, ...], ...] | None = None
    rows: tuple[int, ...] | None = None
    picks: list[tuple[int, int]] | None = None
    turns: list[_TurnDraft] = field(default_factory=list)
    penalties: tuple[int, ...] | None = None
    totals: tuple[int, ...] | None = None


def _follow(shadow: Game, item: Deal | Decision) -> list[Event]:
    """Apply one item of a game's history to its shadow copy."""
    try:
        return shadow.deal(item) if isinstance(item, Deal) else shadow.apply(item)
    except NimmtError as e:
        raise ValueError(f"the game's history does not follow from its start: {e}") from None


def record_from_game(
    game: Game,
    seats: Sequence[str] | None = None,
    *,
    start: Start | None = None,
    claims: bool = True,
    fair_deal: FairDealClaim | None = None,
    table: TableFacts | None = None,
) -> Record:
    """The record of ``game`` so far (over or not), built from ``game.history``.

    With ``claims`` (the default) the record also claims what happened: the rows
    after each turn, each round's bullheads and totals, and the result, so that a
    replay checks them. A game made by ``Game.from_position`` starts the record at
    ``game.start``; ``start`` (a ``Start``, which can carry a comment) overrides it.
    ``fair_deal``: how the game was dealt, when verifiably (``verify.claim_for``).
    ``table``: the table's name, whether it was rated and its clock, for replays.

    >>> from nimmt.engine import Options
    >>> game = Game(Options(players=3, rounds=1), seed=2)
    >>> highest = [game.view(s).hand[-1] for s in range(3)]
    >>> _ = [game.apply(Commit(s, card)) for s, card in enumerate(highest)]
    >>> record = record_from_game(game)
    >>> record.rounds[0].turns[0].commits == tuple(highest)
    True
    >>> len(record.rounds), len(record.rounds[0].turns), record.result is None
    (1, 1, True)
    """
    options = game.options
    n = options.players
    if seats is not None:
        seats = tuple(seats)
        if len(seats) != n or not all(isinstance(s, str) for s in seats):
            raise ValueError(f"seats must be {n} names, one per seat")
    if start is None and game.start is not None:
        start = Start.at(game.start)
    from_position = not game.opening_events or isinstance(game.opening_events[0], TurnStarted)
    if from_position and start is None:
        raise ValueError(
            "this game began at a hand-made position, which its history does not hold: "
            "pass start=Start.of(game), taken before the first commit"
        )
    if not from_position and start is not None:
        raise ValueError("this game began with a deal, not at a hand-made position: pass no start")
    shadow = start.game(options) if start is not None else Game(options)
    rounds: list[_RoundDraft] = []
    rows: list[list[int]] = []
    if start is not None:
        rounds.append(_RoundDraft(start.round))
        rows = [list(r) for r in start.rows]
    current: _TurnDraft | None = None  # the turn being resolved, until its end
    result: GameResult | None = None
    for item in game.history:
        number = shadow.round
        if isinstance(item, Deal):
            if options.draft:
                rounds[-1].rows = tuple(item.rows)
            else:
                rounds.append(
                    _RoundDraft(
                        number,
                        hands=tuple(tuple(h) for h in item.hands or ()),
                        rows=tuple(item.rows),
                    )
                )
            events = _follow(shadow, item)
        else:
            if isinstance(item, DraftPick):
                if not rounds or rounds[-1].number != number:
                    rounds.append(_RoundDraft(number, picks=[]))
                assert rounds[-1].picks is not None
                rounds[-1].picks.append((item.seat, item.card))
            elif isinstance(item, Commit):
                turns = rounds[-1].turns
                if not turns or turns[-1].number != shadow.turn:
                    turns.append(_TurnDraft(shadow.turn, [None] * n))
                turns[-1].commits[item.seat] = item.card
                current = turns[-1]
            elif isinstance(item, ChooseRow):
                rounds[-1].turns[-1].choices.append(RowChoice(item.seat, item.row))
            elif isinstance(item, ChooseTie):
                rounds[-1].turns[-1].choices.append(
                    TieChoice(item.seat, Place(item.place.row, End(item.place.end)))
                )
            events = _follow(shadow, item)
        for event in events:
            if isinstance(event, (TurnStarted, RoundScored)) and current is not None:
                current.rows_after = freeze_rows(rows)
                current = None
            if isinstance(event, RoundScored):
                rounds[-1].penalties, rounds[-1].totals = event.penalties, event.totals
            elif isinstance(event, GameOver):
                result = event.result
            follow_rows(rows, event)
    if shadow.result != game.result or shadow.totals != game.totals:
        raise ValueError(
            "the game's history does not lead to its state: was start taken from this game?"
        )
    return Record(
        options=options,
        rounds=tuple(
            RoundRecord(
                turns=tuple(
                    TurnRecord(tuple(t.commits), tuple(t.choices), t.rows_after if claims else None)
                    for t in r.turns
                ),
                hands=r.hands,
                rows=r.rows,
                picks=tuple(r.picks) if r.picks is not None else None,
                penalties=r.penalties if claims else None,
                totals=r.totals if claims else None,
            )
            for r in rounds
        ),
        seats=seats,
        start=start,
        result=ResultClaim.of(result) if (claims and result is not None) else None,
        fair_deal=fair_deal,
        table=table,
    )

