"""When things happen at a table: deadlines, warnings, the autopilot, the bots' turns
to think, and the pacing of the resolution steps.

A decision awaited is armed with its deadline when it is first shown
(``open_decision``); ``warn_before`` seconds before it, the client seats it is
awaited from are warned. It is made for a seat (``due_seat``) at once for a
built-in bot, when the deadline passes for anyone, and after the grace time for
a player who is away (at once for one who left): a bot's strategy decides
(``think``; the answer comes back as a ``BotDecided``), and for a player the
autopilot: RULES.md's default for a row or tie choice, the table's fallback
strategy for a card or a draft pick. Events are sent in paced steps
(``send_due_steps``): a step waits ``step_delay`` after the one before while a person
watches; while none does, a turn's steps go out together and the next turn waits
``unwatched_step_delay`` for each (0 but at the ladder's tables).
``wake_at`` says when the game needs the match next. Functions over the match's
state (``state.MatchState``).
"""

from __future__ import annotations

import logging
import math

from nimmt import protocol as P
from nimmt.engine import (
    AwaitingCommits,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
    Event,
    Game,
    GameOver,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowTaken,
    TieChoiceNeeded,
    TurnStarted,
)

from . import bank as match_bank
from .events import log_line, messages_for
from .play import decision_key, game_over
from .io import Think, Who
from .rules import refusal
from .state import MatchState

__all__ = ["wake_at", "open_decision", "warn_at", "warn", "due_seat", "think", "send_due_steps",
           "pause", "resume", "pause_ends_at"]


def wake_at(m: MatchState) -> float:
    """When the game in play needs the match next (``math.inf``: only for inputs):
    a paced step, the deadline's warning, the deadline, an away player's grace."""
    if m._backlog:
        return m._paced_until if m._paced_until is not None else -math.inf
    if m._deadline is None or m._paused_at is not None:
        return math.inf  # paused: the deadlines wait (``pause_ends_at``)
    wake = math.inf
    warning = warn_at(m)
    if warning is not None:
        wake = min(wake, warning)
    if m._deadline > m._now:  # past: only seats a strategy decides for are left
        wake = min(wake, m._deadline)
    assert m._game is not None
    pending = m._game.pending
    if pending is not None:
        banks = m.settings.time_bank > 0  # without, every seat's own deadline is the table's
        for i in pending.seats:
            if i in m._asked:
                continue
            at = _autoplay_at(m, i)
            if at is not None and at < wake:
                wake = at
            if banks:
                own = match_bank.seat_deadline(m, i)  # past the deadline, on its time bank
                if m._now < own < wake:
                    wake = own
    return wake


def open_decision(m: MatchState) -> None:
    """Arm the deadline of the decision the game waits for, if it is a new one;
    draft picks are announced here (the engine has no event for them)."""
    game = m._game
    assert game is not None
    pending = game.pending
    if pending is None:
        m._armed = m._deadline = None
        return
    key = decision_key(game)
    if key is None:  # pragma: no cover - the match deals at once (match_game)
        m._armed = m._deadline = None
        return
    duration = {"choice": m.settings.choice_time, "draft": m.settings.draft_time}.get(
        key[0], m.settings.turn_time)
    if key == m._armed:
        return
    m._armed = key
    m._asked.clear()  # what was asked for an earlier decision is answered late
    m._armed_at = m._now
    m._deadline = m._now + duration
    m._wire_at = m._wall + duration
    m._warned = False
    if isinstance(pending, AwaitingDraftPick):
        deadline, remaining = m._wire_deadline()
        m._to_all(P.DraftPickNeeded(
            seat=pending.seat, round=pending.round, pick=pending.pick,
            deadline=deadline, remaining=remaining))
        m._to_seat(pending.seat, P.DraftPickRequest(
            round=pending.round, pick=pending.pick, pool=game.view(pending.seat).draft_pool,
            deadline=deadline, remaining=remaining))


def warn_at(m: MatchState) -> float | None:
    """When the armed decision's next ``deadline_warning`` is due (None: none is).

    docs/PROTOCOL.md: ``warn_before`` seconds before the deadline, once per
    decision, and only if the decision was given more time than that; and, with
    a time bank, at the deadline for the seats whose extra time starts."""
    if m._paused_at is not None:
        return None
    at = _first_warning_at(m)
    pending = m._game.pending if m._game is not None else None
    if pending is not None and match_bank.notice_due(m, pending.seats):
        assert m._deadline is not None
        at = m._deadline if at is None else min(at, m._deadline)
    return at


def _first_warning_at(m: MatchState) -> float | None:
    warn_before = m.settings.warn_before
    if m._warned or m._deadline is None or warn_before <= 0:
        return None
    at = m._deadline - warn_before
    return at if at > m._armed_at else None


def warn(m: MatchState) -> None:
    """A deadline is near: send ``deadline_warning`` to every client seat (human or
    bot client, connected now) the decision is still awaited from; a seat whose
    time bank will carry it past the deadline is told instead, at the deadline,
    of its own later one (``bank``)."""
    game = m._game
    pending = game.pending if game is not None else None
    first = _first_warning_at(m)
    warning_due = first is not None and m._now >= first  # else: only the banks' notices
    if warning_due:
        m._warned = True
    if pending is None or m._deadline is None:
        return
    if isinstance(pending, AwaitingCommits):
        kind, rnd, turn, pick = "commit", pending.round, pending.turn, 0
    elif isinstance(pending, AwaitingDraftPick):
        kind, rnd, turn, pick = "draft", pending.round, 0, pending.pick
    elif isinstance(pending, (AwaitingRowChoice, AwaitingTieChoice)):
        kind = "row" if isinstance(pending, AwaitingRowChoice) else "tie"
        (rnd, turn), pick = m._shown, 0
    else:  # pragma: no cover - nothing else has a deadline
        return
    deadline, remaining = m._wire_deadline()
    if m._now >= m._deadline:
        for index in match_bank.notice_due(m, pending.seats):
            match_bank.noticed(m, index)
            own = match_bank.seat_deadline(m, index)
            extra = own - m._now
            seat = m.room.seats[index]
            if extra <= 0 or seat is None or not m.room.seat_connected(seat):
                continue
            m._to_seat(index, P.DeadlineWarning(
                kind=kind, round=rnd, turn=turn, pick=pick,
                deadline=deadline + (own - m._deadline), remaining=extra))
            m._log(logging.DEBUG, index, "extra time: %.1f s left in the bank", extra)
    if remaining <= 0 or not warning_due:
        return
    msg = P.DeadlineWarning(kind=kind, round=rnd, turn=turn, pick=pick, deadline=deadline,
                            remaining=remaining)
    for index in sorted(pending.seats):
        seat = m.room.seats[index]
        if seat is None or seat.builtin or not m.room.seat_connected(seat):
            continue
        if match_bank.seat_deadline(m, index) > m._deadline:
            continue  # its bank carries it past the deadline: told then
        m._to_seat(index, msg)
        m._log(logging.DEBUG, index, "warned: %.1f s left", remaining)


def due_seat(m: MatchState) -> int | None:
    """The first seat whose decision is to be made for it now: a built-in bot's at
    once, anyone's once the deadline passed, an away player's after its grace."""
    game = m._game
    assert game is not None
    pending = game.pending
    if pending is None:
        return None
    now = m._now
    for index in sorted(pending.seats):
        seat = m.room.seats[index]
        if seat is None or index in m._asked:
            continue
        if m._paused_at is not None and not seat.builtin:
            continue  # the clock is paused: nobody's time runs out
        late = m._deadline is not None and now >= match_bank.seat_deadline(m, index)
        if seat.builtin or late:
            return index
        at = _autoplay_at(m, index)
        if at is not None and now >= at:
            return index
    return None


def _autoplay_at(m: MatchState, index: int) -> float | None:
    """When an away player's pending decision is made for them (None: at the deadline)."""
    seat = m.room.seats[index]
    if seat is None or seat.builtin:
        return None
    if seat.gone:
        return -math.inf
    if seat.away_since is None:
        return None
    if m.settings.autoplay_when_away == "immediately":
        return seat.away_since
    return seat.away_since + m.settings.grace_time


def think(m: MatchState, index: int, strategy: str | None, seed: int | None) -> None:
    """Ask a strategy to decide for seat ``index`` (``strategy`` None: the table's
    fallback); its answer comes back as a ``BotDecided`` (``play.bot_decided``)."""
    assert m._game is not None and m._armed is not None
    key = m._armed
    m._asked[index] = key
    m._out.thinks.append(Think(index, key, m._game.view(index), strategy, seed))


def send_due_steps(m: MatchState) -> bool:
    """Send the queued events that are due; True when none is left."""
    backlog = m._backlog
    game = m._game
    while backlog:
        if m.status != "playing" or game is None:
            backlog.clear()
            break
        event, re, pause = backlog[0]
        if pause:
            watched = m.room.person_watching()
            if m._paced_until is None:
                m._paced_until = _pause_ends(m, watched)
            until = m._paced_until
            if until is not None and (watched or isinstance(event, (TurnStarted, RoundScored))):
                if m._now < until:
                    return False
                m._paced_until = None
        backlog.popleft()
        _send_event(m, event, game, re)
    m._paced_until = None
    if m.status == "playing" and m._game is not None:
        open_decision(m)
    return True


def _pause_ends(m: MatchState, watched: bool) -> float | None:
    """When the pause before the step at the head of the backlog ends (None: no pause).
    While a person watches (``watched``), each step waits ``step_delay``. While nobody
    does, the steps of a turn go out together (one write to each bot, not one a step)
    and what follows them waits ``unwatched_step_delay`` for each of them."""
    settings = m.settings
    if watched:
        return m._now + settings.step_delay if settings.step_delay > 0 else None
    if settings.unwatched_step_delay <= 0:
        return None
    pauses = 0
    for event, _, pause in m._backlog:
        pauses += pause
        if pause and isinstance(event, (TurnStarted, RoundScored)):
            break
    return m._now + pauses * settings.unwatched_step_delay


def _send_event(m: MatchState, event: Event, game: Game, re: int | None = None) -> None:
    """Tell ``event`` to everyone it concerns (``events.messages_for``), after
    doing what it starts: a new round or turn is shown, a decision asked for is armed
    (its deadline goes on the messages); the round's scores and the game's end
    change the table."""
    _show_scores(m, event)
    if isinstance(event, RoundScored):
        m._rounds_shown.append(tuple(event.penalties))
    if isinstance(event, RoundStarted):
        m._shown = (event.round, 0)
    elif isinstance(event, TurnStarted):
        m._shown = (event.round, event.turn)
    deadline = None
    if isinstance(event, (TurnStarted, RowChoiceNeeded, TieChoiceNeeded)):
        open_decision(m)
        deadline = m._wire_deadline()
    for seat, msg in messages_for(event, game.options, game.view, m._shown, deadline, re,
                                  m._fair):
        if seat is None:
            m._to_all(msg)
        else:
            m._to_seat(seat, msg)
    line = log_line(event)
    if line is not None:
        level, seat, text, args = line
        m._log(level, seat, text, *args)
    if isinstance(event, RoundScored):
        m._updated()
    elif isinstance(event, GameOver):
        m._paused_at = m._paused_by = None  # no clock runs any more
        game_over(m, event.result)


def _show_scores(m: MatchState, event: Event) -> None:
    """The scores as the table has now been shown them (``MatchState.info`` gives the
    lobby no more than that while steps are paced)."""
    shown = m._scores_shown
    if shown is None:
        return
    totals, penalties = shown
    if isinstance(event, RowTaken):
        penalties = tuple(p + event.bullheads if seat == event.seat else p
                          for seat, p in enumerate(penalties))
    elif isinstance(event, RoundScored):
        totals, penalties = event.totals, (0,) * len(penalties)
    else:
        return
    m._scores_shown = (totals, penalties)


# ---------------------------------------------------------------- a solo game's pause
def pause(m: MatchState, who: Who, msg: P.Pause) -> None:
    """``pause``: stop the clock (deadlines, grace, time bank) while the only human
    player at the table reads; refused wherever another human waits on it. A pause
    asked for again is answered again and keeps its end."""
    refused = refusal(m.status, "pause")
    index = m.room.seat_of(who.id)
    if refused is not None:
        m._refuse(who, msg, refused.code, refused.text)
        return
    if index is None:
        m._refuse(who, msg, P.ErrorCode.NOT_ALLOWED, "only a player seated at the table can "
                  "pause its clock")
        return
    others = [seat.name for seat in m.room.seats if seat is not None and seat.index != index
              and m.room.seat_kind(seat) == "human"]
    if others:
        m._refuse(who, msg, P.ErrorCode.NOT_ALLOWED,
                  f"the clock pauses only in a solo game: {', '.join(others)} would wait "
                  "on you; play on, or ask them in the chat for time")
        return
    if m._paused_at is None:
        m._paused_at, m._paused_by = m._now, who.id
        m._log(logging.INFO, index, "clock paused")
    _tell_clock(m, who.id, msg.id)


def resume(m: MatchState, who: Who | None = None, msg: P.Resume | None = None) -> None:
    """The clock runs again (``resume``, the pausing player gone, or the pause's end):
    the deadline armed moves by the time it was stopped (a decision armed while paused
    gets its whole time from now)."""
    at = m._paused_at
    if at is not None:
        m._paused_at = m._paused_by = None
        if m._deadline is not None:
            shift = m._now - max(at, m._armed_at)
            if shift > 0:
                m._deadline += shift
                m._armed_at += shift
                if m._wire_at is not None:
                    m._wire_at += shift
        m._log(logging.INFO, None, "clock runs again after %.1f s", m._now - at)
    elif who is None:
        return
    _tell_clock(m, who.id if who is not None else None, msg.id if msg is not None else None)


def pause_ends_at(m: MatchState) -> float:
    """When a pause ends by itself (``math.inf``: the clock is not paused)."""
    return math.inf if m._paused_at is None else m._paused_at + P.MAX_PAUSE


def _tell_clock(m: MatchState, asker: int | None, re: int | None) -> None:
    paused = m._paused_at is not None
    deadline = remaining = None
    if m._deadline is not None and m._game is not None and m._game.pending is not None:
        deadline, remaining = m._wire_deadline()
    ends_in = max(0.0, pause_ends_at(m) - m._now) if paused else 0.0
    for member in m.room.members:
        m._send(member, P.ClockPaused(paused=paused, ends_in=ends_in, deadline=deadline,
                                      remaining=remaining, re=re if member == asker else None))
