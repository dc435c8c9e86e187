"""A match's engine events as the wire messages each member is sent, and where the
resolution steps start that are paced for the people watching.

Pure functions, no state: the match does what an event starts (arming a
deadline, ending the game) and sends the messages to the members.
Everything sent to a seat is built from the event and that seat's
``game.view(seat)``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from nimmt import protocol as P
from nimmt.engine import (
    CardPlaced,
    CardsRevealed,
    CommitAccepted,
    DraftOpened,
    DraftPicked,
    Event,
    FairDeal,
    GameOver,
    HandDealt,
    Options,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    TieChoiceNeeded,
    TurnStarted,
    View,
)

from . import translate

__all__ = ["Queued", "Route", "paced", "messages_for", "log_line"]

#: an event waiting to be sent: (event, request id, a paced step starts here)
Queued = tuple[Event, int | None, bool]

#: a message and whom it is for: a seat, or None for everyone at the table
Route = tuple[int | None, P.Message]

# events that open a resolution step (a RowTaken and the CardPlaced after it are one step)
_STEP_EVENTS = (RowTaken, CardPlaced, RowChoiceNeeded, TieChoiceNeeded)


def paced(events: Iterable[Event], re: int | None = None) -> list[Queued]:
    """``events`` as they wait to be sent: a resolution step waits ``step_delay``
    after the one before, and so does what follows the steps (the next turn, the
    scores). ``re``: the id of the request that caused them (echoed by
    commit_accepted)."""
    queued: list[Queued] = []
    previous: Event | None = None
    steps = 0
    for event in events:
        pause = False
        if _is_step(event, previous):
            pause = previous is not None
            steps += 1
        elif steps and isinstance(event, (TurnStarted, RoundScored)):
            pause = True
            steps = 0
        queued.append((event, re, pause))
        previous = event
    return queued


def _is_step(event: Event, previous: Event | None) -> bool:
    if isinstance(event, CardPlaced):
        return not isinstance(previous, RowTaken)
    return isinstance(event, _STEP_EVENTS)


def messages_for(event: Event, options: Options, view: Callable[[int], View],
                 shown: tuple[int, int], deadline: tuple[float, float] | None,
                 re: int | None = None, fair: FairDeal | None = None) -> list[Route]:
    """The messages ``event`` is told as, in the order they are sent.

    ``view``: a seat's view (``game.view``); ``shown``: the round and turn the
    players have been told of; ``deadline``: the armed decision's (Unix time,
    seconds left), needed by the events that ask for a decision (turn_started,
    a row or tie choice); ``re``: the request that caused the event; ``fair``: the
    game's seed, committed to in round 1 and revealed at the end."""
    match event:
        case HandDealt():
            return [(event.seat, P.HandDealt(cards=event.hand))]
        case CommitAccepted():
            return [(event.seat, P.CommitAccepted(round=shown[0], turn=shown[1],
                                                  card=event.card, re=re))]
        case RoundStarted():
            commitment = fair.commitment if fair is not None and event.round == 1 else None
            return [(None, P.RoundStarted(round=event.round, commitment=commitment))]
        case RowsDealt():
            routes: list[Route] = []
            if options.draft:
                # Draft: the hands were picked in the open; each seat is told its own
                for index in range(options.players):
                    hand = view(index).hand
                    if hand:
                        routes.append((index, P.HandDealt(cards=hand)))
            routes.append((None, P.RowsDealt(rows=tuple((c,) for c in event.rows))))
            return routes
        case TurnStarted():
            at, remaining = _armed(deadline)
            return [(None, P.TurnStarted(round=event.round, turn=event.turn, deadline=at,
                                         remaining=remaining))]
        case SeatCommitted():
            return [(None, P.SeatCommitted(seat=event.seat))]
        case CardsRevealed():
            return [(None, P.Revealed(plays=event.plays))]
        case CardPlaced():
            return [(None, P.Placed(seat=event.seat, card=event.card, row=event.row,
                                    end=event.end.value))]
        case RowTaken():
            return [(None, P.RowTaken(seat=event.seat, row=event.row, cards=event.cards,
                                      bullheads=event.bullheads))]
        case RowChoiceNeeded():
            at, remaining = _armed(deadline)
            return [(None, P.RowChoiceNeeded(seat=event.seat, card=event.card, deadline=at,
                                             remaining=remaining)),
                    (event.seat, P.RowChoiceRequest(
                        round=shown[0], turn=shown[1], card=event.card,
                        rows=translate.ALL_ROWS, deadline=at, remaining=remaining))]
        case TieChoiceNeeded():
            at, remaining = _armed(deadline)
            places = translate.places(event.places)
            return [(None, P.TieChoiceNeeded(seat=event.seat, card=event.card, places=places,
                                             deadline=at, remaining=remaining)),
                    (event.seat, P.TieChoiceRequest(
                        round=shown[0], turn=shown[1], card=event.card, places=places,
                        deadline=at, remaining=remaining))]
        case RoundScored():
            return [(None, P.RoundScored(round=event.round, penalties=event.penalties,
                                         totals=event.totals))]
        case DraftOpened():
            return [(None, P.DraftOpened(round=shown[0], pool=event.pool,
                                         first_picker=event.first_picker))]
        case DraftPicked():
            return [(None, P.DraftPicked(seat=event.seat, card=event.card))]
        case GameOver():
            r = event.result
            seed = contributions = None
            withheld: tuple[int, ...] = ()
            if fair is not None:  # the seed revealed
                seed, contributions = fair.seed.hex(), tuple(c.hex() for c in fair.contributions)
                withheld = fair.withheld
            return [(None, P.GameOver(totals=r.totals, places=r.places, winners=r.winners,
                                      seed=seed, contributions=contributions,
                                      withheld=withheld))]
    raise AssertionError(f"no message for {event!r}")  # pragma: no cover


def _armed(deadline: tuple[float, float] | None) -> tuple[float, float]:
    assert deadline is not None, "an event that asks for a decision needs its deadline"
    return deadline


def log_line(event: Event) -> tuple[int, int | None, str, tuple[Any, ...]] | None:
    """What the table's log says of ``event`` (level, seat, text, arguments), if anything
    (nothing of a seat's own hand or commit: the host may be a player)."""
    match event:
        case RoundStarted():
            return logging.INFO, None, "round %d starts", (event.round,)
        case CardsRevealed():
            return (logging.INFO, None, "revealed %s",
                    (" ".join(f"{s}:{c}" for s, c in event.plays),))
        case CardPlaced():
            return (logging.DEBUG, event.seat, "placed %d on row %d (%s)",
                    (event.card, event.row, event.end.value))
        case RowTaken():
            return (logging.INFO, event.seat, "took row %d (%d bullhead%s)",
                    (event.row, event.bullheads, "s" if event.bullheads != 1 else ""))
        case RowChoiceNeeded():
            return logging.INFO, event.seat, "card %d fits no row: chooses a row", (event.card,)
        case TieChoiceNeeded():
            return logging.INFO, event.seat, "card %d ties: chooses a place", (event.card,)
        case RoundScored():
            return (logging.INFO, None, "round %d scored: penalties %s totals %s",
                    (event.round, list(event.penalties), list(event.totals)))
    return None
