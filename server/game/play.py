"""A table's game: starting it, dealing, applying decisions, its end.

Chance is the match's: it deals with its own random generator (``dealer``) when
the game waits for a deal. A decision comes from a player's request
(``decide``, checked against the decision awaited), a built-in bot or the
autopilot (``bot_decided``, ``apply``); every deal and decision is kept (the
game's history) and goes out as a fact (persisted before anyone hears of it).
The events it produces are queued (``broadcast``) and sent by
``timing.send_due_steps``.
Functions over the match's state (``state.MatchState``).
"""

from __future__ import annotations

import logging
import random
from typing import Any

from nimmt import protocol as P
from nimmt.engine import (
    AwaitingCommits,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
    ChooseRow,
    ChooseTie,
    Commit,
    Decision,
    DraftPick,
    End,
    Event,
    Game,
    IllegalDecision,
    NotYourDecision,
    Place,
    SeatCommitted,
    StaleTurn,
    record_from_game,
)
from nimmt.engine.records import TableFacts, claim_for

from . import bank as match_bank

from . import translate
from .data import fair_to_data
from .events import paced
from .io import Finished, Who
from .rules import NO_GAME, refusal
from .state import MatchState, log
from ..storage.facts import deal_fact, decision_fact, game_started_fact

__all__ = ["begin", "decide", "apply", "bot_decided", "decide_for", "broadcast", "game_over"]

E = P.ErrorCode


def begin(m: MatchState) -> None:
    """Start a game: every seat is taken (the callers checked)."""
    m._game = Game(m.settings.game_options())  # no rng: the match deals
    m._history = []
    m._deal_rng = random.Random(m._rng.randrange(2**63))
    m.status = "playing"
    m._over_since = None
    m._armed = None
    m._deadline = None
    m._shown = (0, 0)
    zeros = (0,) * len(m.room.seats)
    m._scores_shown = (zeros, zeros)  # the new game's: none taken yet
    m._rounds_shown = []
    m._autoplayed = {}
    m._chosen = {}
    for seat in m.room.seats:
        assert seat is not None
        seat.gone = False
    m.games_played += 1
    m._started_wall = m._wall
    # the seed committed to and the contributions made for it (None: a test's dealer)
    m._fair = m._deal.seal(len(m.room.seats)) if m._deal is not None else None
    m._fact(game_started_fact(m.games_played, m._game.options, fair_to_data(m._fair)))
    m._log(logging.INFO, None, "game %d starts: %s", m.games_played,
           ", ".join(f"{s.index}={s.name}" for s in m.room.seats if s is not None))
    m._out.started = True
    # the players learn of the start from round_started (docs/PROTOCOL.md example)
    m._updated(table=False)
    events = list(m._game.opening_events)
    events += _deal_if_due(m)
    broadcast(m, events)


def _deal_if_due(m: MatchState) -> list[Event]:
    """Chance: deal a round (or, after a draft, its rows) when the game waits for it."""
    game = m._game
    assert game is not None
    pending = game.pending
    if not isinstance(pending, AwaitingDeal):
        return []
    if m._fair is not None:
        deal = translate.fair_deal(game.options, pending, game.view(None), m._fair)
    else:  # a test's dealer, or a restored game whose seed was not kept
        deal = (m.dealer or translate.random_deal)(game.options, pending, game.view(None),
                                                   m._deal_rng)
    events = game.deal(deal)
    m._history.append(deal)
    m._fact(deal_fact(deal))
    return events


def decide(m: MatchState, who: Who, msg: Any) -> None:
    """A player's decision (commit, row or tie choice, draft pick): applied, or refused;
    a refused one and a replaced commit are charged to the sender's rate."""
    game = m._game
    index = m.room.seat_of(who.id)
    refused = refusal(m.status, msg.TYPE)
    if refused is not None or index is None or game is None:
        refused = refused or NO_GAME
        m._refuse(who, msg, refused.code, refused.text)
        m._out.charges.append((who.id, who.conn))  # a wasted decision counts against the rate
        return
    try:
        decision = _decision_from(m, index, msg, game)
        events = apply(m, index, decision)
    except IllegalDecision as e:
        m._refuse(who, msg, e.code, str(e), translate.error_field(e, msg))
        m._out.charges.append((who.id, who.conn))  # a refused decision counts against the rate
        return
    if isinstance(decision, Commit) and not any(isinstance(e, SeatCommitted)
                                               for e in events):
        m._out.charges.append((who.id, who.conn))  # so does a replaced commit
    broadcast(m, events, msg.id)


def _decision_from(m: MatchState, seat: int, msg: Any, game: Game) -> Decision:
    """The engine decision for ``msg``; raises ``IllegalDecision`` (with the
    error the protocol prescribes) when it is not the decision awaited. Commits
    are checked by the engine (their round and turn)."""
    pending = game.pending
    match msg:
        case P.Commit(card=card, round=rnd, turn=turn):
            if not isinstance(pending, AwaitingCommits):
                raise StaleTurn("the cards of this turn are revealed: no more commits")
            return Commit(seat, card, rnd, turn)
        case P.DraftPick(card=card, round=rnd, pick=pick):
            if not isinstance(pending, AwaitingDraftPick):
                raise StaleTurn("no draft pick is awaited now")
            if (rnd, pick) != (pending.round, pending.pick):
                raise StaleTurn(f"pick {pick} of round {rnd} is not awaited: "
                                f"this is pick {pending.pick} of round {pending.round}")
            if pending.seat != seat:
                raise NotYourDecision(f"seat {pending.seat} picks now, not you")
            return DraftPick(seat, card)
    if (msg.round, msg.turn) != m._shown:
        raise StaleTurn(f"round {msg.round} turn {msg.turn} is not being played: "
                        f"this is round {m._shown[0]} turn {m._shown[1]}")
    wanted = AwaitingRowChoice if isinstance(msg, P.ChooseRow) else AwaitingTieChoice
    if not isinstance(pending, wanted) or pending.seat != seat:
        if m._chosen.get(seat) == m._shown:
            raise StaleTurn("your choice of this turn is made (by you or the autopilot)")
        raise NotYourDecision("no such choice is awaited from you")
    if isinstance(msg, P.ChooseRow):
        return ChooseRow(seat, msg.row)
    return ChooseTie(seat, Place(msg.place.row, End(msg.place.end)))


def apply(m: MatchState, seat: int, decision: Decision, how: str = "") -> list[Event]:
    """Apply ``decision`` (raises ``IllegalDecision``, the game unchanged)."""
    game = m._game
    assert game is not None
    events = game.apply(decision)
    bank_left = match_bank.spend(m, seat)
    seat_state = m.room.seats[seat]
    m._history.append(decision)
    by = "bot" if seat_state is not None and seat_state.builtin else (
        "autopilot" if how else "player")
    fact = decision_fact(decision, by=by)
    if bank_left is not None:  # a restart gives the seat this much again (server.restore)
        fact.payload["bank"] = bank_left
    m._fact(fact)
    events += _deal_if_due(m)
    if isinstance(decision, (ChooseRow, ChooseTie)):
        m._chosen[seat] = m._shown
    _log_decision(m, seat, decision, events, how)
    return events


def _log_decision(m: MatchState, seat: int, decision: Decision, events: list[Event],
                  how: str = "") -> None:
    if not log.isEnabledFor(logging.INFO):
        return
    if isinstance(decision, Commit):
        # never log the card before the reveal: the host may be a player
        replaced = not any(isinstance(e, SeatCommitted) for e in events)
        m._log(logging.INFO, seat, "%s%s", how, "changed its commit" if replaced
               else "committed a card")
    elif isinstance(decision, ChooseRow):
        m._log(logging.INFO, seat, "%schose row %d", how, decision.row)
    elif isinstance(decision, ChooseTie):
        m._log(logging.INFO, seat, "%schose row %d %s", how, decision.place.row,
               decision.place.end.value)
    else:
        m._log(logging.INFO, seat, "%spicked %d", how, decision.card)


def decision_key(game: Game) -> tuple[Any, ...] | None:
    """Which decision ``game`` waits for, as a key a ``Think`` carries: a late
    answer's key no longer matches. None: no decision is awaited."""
    pending = game.pending
    if isinstance(pending, AwaitingCommits):
        return ("commit", pending.round, pending.turn)
    if isinstance(pending, (AwaitingRowChoice, AwaitingTieChoice)):
        return ("choice", game.round, game.turn, pending.seat, pending.card)
    if isinstance(pending, AwaitingDraftPick):
        return ("draft", pending.round, pending.pick)
    return None


def bot_decided(m: MatchState, seat: int, key: tuple[Any, ...], decision: Decision) -> None:
    """A strategy's answer to a ``Think``: applied if the decision ``key`` is still awaited."""
    game = m._game
    if m._asked.get(seat) == key:
        del m._asked[seat]
    # ``_armed`` moves on only once the paced steps are shown: the game itself
    # may already wait for another decision (a player who committed after the
    # autopilot was asked now chooses a row), so the key is checked against both
    if (game is None or m.status != "playing" or m._armed != key
            or decision_key(game) != key or game.pending is None
            or seat not in game.pending.seats):
        return  # the decision was made meanwhile (a late answer)
    decide_for(m, seat, key, decision)


def decide_for(m: MatchState, seat: int, key: tuple[Any, ...], decision: Decision) -> None:
    """``decision`` made for ``seat`` (the decision ``key``): by its built-in bot, or by
    the autopilot for a player, logged as such and, if the player is away, kept to be
    told when they are back (``seats.greet``): a card or draft pick a strategy chose as
    well as a row or tie choice RULES.md's default made."""
    s = m.room.seats[seat]
    how = ""
    if s is not None and not s.builtin:
        how = "autopilot (time ran out): " if s.away_since is None else \
            "autopilot (player away): "
    events = apply(m, seat, decision, how)
    _keep_autoplayed(m, seat, key, decision)
    broadcast(m, events)


def _keep_autoplayed(m: MatchState, seat: int, key: tuple[Any, ...], decision: Decision) -> None:
    s = m.room.seats[seat]
    if s is None or s.builtin or s.away_since is None or s.member is None:
        return
    made = translate.autoplayed(key, decision)
    if made is not None:
        kept = m._autoplayed.setdefault(s.member, [])
        kept.append(made)
        del kept[:-P.MAX_AUTOPLAYED]


def table_facts(m: MatchState) -> TableFacts:
    """What a record keeps of the table, for replays: its name, rated or not, its clock."""
    t = m.settings
    return TableFacts(m.name or None, t.rated, t.turn_time, t.choice_time, t.draft_time,
                      t.time_bank)


def broadcast(m: MatchState, events: list[Event], re: int | None = None) -> None:
    """Queue ``events`` for each seat and spectator as they may see them; a
    resolution step waits ``step_delay`` after the one before (``timing.send_due_steps``).
    ``re``: the id of the request that caused them (echoed by commit_accepted)."""
    m._backlog.extend(paced(events, re))


def game_over(m: MatchState, result: Any) -> None:
    """The game ended (its ``GameOver`` is being sent): keep it, and free the seats
    of the players who left."""
    m._log(logging.INFO, None, "game over: totals %s, winners %s", list(result.totals),
           list(result.winners))
    assert m._game is not None
    seats = m.room.seats
    names = [s.name if s else f"seat {i}" for i, s in enumerate(seats)]
    fair = claim_for(m._fair) if m._fair is not None else None
    if m._deal is not None:  # this game's seed is revealed: the next one's is drawn
        m._change_deal(m._deal.renew(m._seed_stream))
    m._out.finished = Finished(
        m.games_played, record_from_game(m._game, names, fair_deal=fair, table=table_facts(m)),
        tuple("builtin" if s and s.builtin else (s.client_kind if s else "human")
              for s in seats), m._started_wall, m._wall)
    m.status = "over"
    m._armed = m._deadline = None
    m._over_since = m._now
    # a player who left during the game frees their seat now (no fact: their
    # ``left`` fact says so, and a restored finished game frees it too)
    for i, seat in enumerate(seats):
        if seat is not None and seat.gone:
            seats[i] = None
    m._refresh_presence()
    m._updated()

