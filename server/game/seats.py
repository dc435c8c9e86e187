"""Who sits where at a table, and the requests a table takes.

Taking a seat or watching, leaving, a connection dropping and coming back, the
host adding and removing built-in bots and starting the game; spectators away
too long are removed. ``request`` is the one dispatch on a table's requests:
the decisions go to ``play.decide``. Functions over the match's state
(``state.MatchState``).
"""

from __future__ import annotations

import logging
import math
from typing import Any

from nimmt import protocol as P
from nimmt.bots import DEFAULT_LEVEL, StrategyError, parse_strategy

from . import translate
from .play import decide
from .reveals import request_for, reveal, start as begin
from .timing import pause, resume
from .io import Who
from .rules import refusal
from .state import MatchState
from .room import Member, SeatState
from ..storage.facts import left_fact, seat_fact

__all__ = ["request", "back", "greet", "away", "place_bot", "spectators_expire_at", "expire_spectators"]

E = P.ErrorCode


def request(m: MatchState, who: Who, msg: P.Message) -> None:
    """Carry out ``msg``, a table's request from ``who`` (anything else: refused)."""
    match msg:
        case P.Commit() | P.ChooseRow() | P.ChooseTie() | P.DraftPick():
            decide(m, who, msg)
        case P.Join():
            _join(m, who, msg)
        case P.CreateTable() if who.kind == "spectator":
            _watch(m, who, msg)
        case P.CreateTable():
            _join(m, who, msg, host=True)
        case P.Watch():
            _watch(m, who, msg)
        case P.Leave():
            _leave(m, who, msg)
        case P.AddBot():
            _add_bot(m, who, msg)
        case P.RemoveBot():
            _remove_bot(m, who, msg)
        case P.Start():
            _start(m, who, msg)
        case P.Pause():
            pause(m, who, msg)
        case P.Resume():
            resume(m, who, msg)
        case P.Reveal():
            reveal(m, who, msg)
        case P.Chat() if who.id not in m.room.members:  # its join was refused meanwhile
            m._refuse(who, msg, E.NOT_ALLOWED, "you are not at this table")
        case P.Chat():
            m._to_all(P.ChatMessage(name=who.name, seat=m.room.seat_of(who.id), text=msg.text))
        case _:
            m._refuse(who, msg, E.NOT_ALLOWED, f"{msg.TYPE} is not a table's request")


def _seat_for(m: MatchState, who: Who, msg: Any) -> int | None:
    """The seat ``msg`` asks for (its ``seat``, or the first free one); None,
    with an error sent, when there is no such seat or it is taken."""
    found = m.room.free_seat(getattr(msg, "seat", None))
    if isinstance(found, tuple):
        m._refuse(who, msg, *found)
        return None
    return found


def _turn_away(m: MatchState, who: Who, msg: Any, code: str, text: str,
               field: str | None = None) -> None:
    """Refuse a ``create_table``, ``join`` or ``watch``: a session that is not a member
    is at no table again (the lobby had it at this one since it routed the request)."""
    m._refuse(who, msg, code, text, field)
    if who.id not in m.room.members:
        m._out.refused.append(who.id)


def _join(m: MatchState, who: Who, msg: Any, host: bool = False) -> None:
    member = m.room.members.get(who.id)
    if who.elsewhere or (member is not None and member.seat is not None):
        _turn_away(m, who, msg, E.NOT_ALLOWED, "you are already at a table: leave it first")
        return
    refused = refusal(m.status, "join")
    if refused is not None:
        _turn_away(m, who, msg, refused.code, refused.text)
        return
    if who.kind == "spectator":
        _turn_away(m, who, msg, E.NOT_ALLOWED, "a spectator cannot take a seat")
        return
    found = m.room.free_seat(getattr(msg, "seat", None))
    if isinstance(found, tuple):
        _turn_away(m, who, msg, *found)
        return
    index = found
    name = m.room.unique_name(who.name)
    m.room.seats[index] = SeatState(index, name, member=who.id, client_kind=who.kind)
    m.room.members[who.id] = Member(who.id, who.name, who.kind, True, index)
    m._out.entered.append((who.id, index))
    m._fact(seat_fact(index, name, who.kind, member=who.id))
    if m._deal is not None:  # for the game dealt from the seed committed to now (shown)
        digest = getattr(msg, "entropy_hash", None)
        if digest:  # revealed once the seats are fixed (reveals.py)
            m._change_deal(m._deal.commit(index, bytes.fromhex(digest)))
        else:
            m._change_deal(m._deal.contribute(index, bytes.fromhex(
                getattr(msg, "entropy", None) or "")))
    if host or m.room.host is None:
        m.room.host = index
    m._refresh_presence()
    m._send(who.id, P.Seated(table=m.info(), seat=index, re=getattr(msg, "id", None),
                             round_penalties=m._round_penalties()))
    m._log(logging.INFO, index, "%s (session %s) sits down", who.name, who.id)
    m._updated()
    if m.autostart and m.room.full():
        begin(m)


def _watch(m: MatchState, who: Who, msg: Any) -> None:
    if who.elsewhere or who.id in m.room.members:
        _turn_away(m, who, msg, E.NOT_ALLOWED, "you are already at a table: leave it first")
        return
    if m.room.spectators() >= m.max_spectators:
        _turn_away(m, who, msg, E.TABLE_FULL, f"the table has {m.max_spectators} "
                   "spectators, as many as it allows: watch another table")
        return
    m.room.members[who.id] = Member(who.id, who.name, who.kind, True, None)
    m._out.entered.append((who.id, None))
    m._refresh_presence()
    m._send(who.id, P.Watching(table=m.info(), re=getattr(msg, "id", None),
                               round_penalties=m._round_penalties()))
    if m._game is not None and m.status == "playing":
        m._send(who.id, m._snapshot(None))
    m._log(logging.INFO, None, "%s (session %s) watches", who.name, who.id)
    m._updated()


def _leave(m: MatchState, who: Who, msg: Any, reason: str = "left") -> None:
    member = m.room.members.get(who.id)
    if member is None:
        m._refuse(who, msg, E.NOT_ALLOWED, "you are not at this table")
        return
    refused = refusal(m.status, "leave")
    if refused is not None and member.seat is not None:
        m._refuse(who, msg, refused.code, refused.text)
        return
    del m.room.members[who.id]
    m._autoplayed.pop(who.id, None)
    m._out.released.append(who.id)
    index = member.seat
    if index is None:
        m._log(logging.INFO, None, "%s stops watching", who.name)
    else:
        seat = m.room.seats[index]
        if m.status == "playing" and seat is not None:
            seat.member = None
            seat.gone = True  # the game goes on: the autopilot plays this seat at once
            seat.away_since = m._now
            m._fact(left_fact(index))
        else:
            m.room.seats[index] = None
            m._fact(seat_fact(index, None))
            if m._deal is not None and m._deal.revealed_any:
                # the reveals made are known to the server now: whoever sits down next
                # must not contribute knowing them (a new seed, everyone contributes again)
                m._change_deal(m._deal.renew(m._seed_stream))
            elif m._deal is not None:
                m._change_deal(m._deal.withdraw(index))
        if m.room.host == index:
            m.room.host = m.room.next_host()
        m._log(logging.INFO, index, "%s leaves the table", who.name)
    m._send(who.id, P.Left(table_id=m.id, reason=reason, re=getattr(msg, "id", None)))
    m._refresh_presence()
    if m.status in ("waiting", "over") and not m.persistent and not m.room.members:
        m._close("everyone left")
        return
    if m.persistent and m.status != "waiting" and not any(
            s is not None and s.member is not None for s in m.room.seats):
        m._close("its player left: the bots do not play on for nobody")  # the --bots table
        return
    m._updated()


def back(m: MatchState, member_id: int) -> bool:
    """A member got a new connection: it is present again (False: no such member).
    It is told where it is by ``greet``, the others by a ``table_updated``."""
    member = m.room.members.get(member_id)
    if member is None:
        return False
    member.connected = True
    member.away_since = None
    index = member.seat
    if index is not None:
        seat = m.room.seats[index]
        if seat is not None and seat.member == member_id:
            seat.away_since = None
        if m.room.host is None:  # the host left while nobody else was connected
            m.room.host = index
    m._refresh_presence()
    m._log(logging.INFO, index, "%s is back (session %s)", member.name, member_id)
    return True


def greet(m: MatchState, member_id: int) -> None:
    """Tell a member that is back where it is: its seat (or that it watches), with a
    snapshot and the request awaited from it."""
    member = m.room.members.get(member_id)
    if member is None or not member.connected:
        return
    index = member.seat
    if index is None:
        m._send(member_id, P.Watching(table=m.info(), round_penalties=m._round_penalties()))
    else:
        m._send(member_id, P.Seated(table=m.info(), seat=index,
                                    round_penalties=m._round_penalties(),
                                    autoplayed=tuple(m._autoplayed.pop(member_id, ()))))
        if m.status == "revealing" and m._deal is not None \
                and index in m._deal.waiting_reveals:
            m._send(member_id, request_for(m))
    if m._game is not None and m.status == "playing":
        m._send(member_id, m._snapshot(index))
        if index is not None and m._deadline is not None:
            deadline, remaining = m._wire_deadline()
            for msg in translate.requests_for(m._game.view(index), m._shown,
                                              deadline, remaining):
                m._send(member_id, msg)


def away(m: MatchState, member_id: int, at: float) -> None:
    """A member lost its connection (it may come back)."""
    member = m.room.members.get(member_id)
    if member is None:
        return
    member.connected = False
    index = member.seat
    if index is None:
        member.away_since = at  # removed after spectator_grace
    if index is not None:
        seat = m.room.seats[index]
        if seat is not None and seat.member == member_id:
            seat.away_since = at  # the grace runs from the drop
    m._log(logging.INFO, index, "%s is away", member.name)
    m._refresh_presence()
    m._updated()


def _check_host(m: MatchState, who: Who, msg: Any) -> bool:
    index = m.room.seat_of(who.id)
    if index is None or index != m.room.host:
        m._refuse(who, msg, E.NOT_HOST, "only the host may do that")
        return False
    refused = refusal(m.status, msg.TYPE)
    if refused is not None:
        m._refuse(who, msg, refused.code, refused.text)
        return False
    return True


def _add_bot(m: MatchState, who: Who, msg: P.AddBot) -> None:
    if not _check_host(m, who, msg):
        return
    strategy = msg.strategy or DEFAULT_LEVEL
    try:
        parse_strategy(strategy)  # a level or a bare strategy name (the wire allows no ":")
    except StrategyError as e:
        m._refuse(who, msg, E.UNKNOWN_STRATEGY, str(e), "strategy")
        return
    index = _seat_for(m, who, msg)
    if index is None:
        return
    place_bot(m, index, strategy, msg.name)
    m._updated(who.id, msg.id)
    if m.autostart and m.room.full():
        begin(m)


def _remove_bot(m: MatchState, who: Who, msg: P.RemoveBot) -> None:
    if not _check_host(m, who, msg):
        return
    index = msg.seat
    seat = m.room.seats[index] if index < len(m.room.seats) else None
    if seat is None or not seat.builtin:
        m._refuse(who, msg, E.NO_SUCH_SEAT, f"no built-in bot in seat {index}", "seat")
        return
    m.room.seats[index] = None
    m._fact(seat_fact(index, None))
    m._log(logging.INFO, index, "bot removed")
    m._updated(who.id, msg.id)


def _start(m: MatchState, who: Who, msg: P.Start) -> None:
    if not _check_host(m, who, msg):
        return
    if any(s is None for s in m.room.seats):
        m._refuse(who, msg, E.NOT_ENOUGH_PLAYERS,
                  "every seat must be taken: add bots to fill the empty ones")
        return
    begin(m)


def place_bot(m: MatchState, index: int, strategy: str, name: str | None) -> None:
    """Seat a built-in bot (the caller checked that the seat is free); its fact
    goes out with the next call's effects."""
    if not name:  # Bot 1, Bot 2, ... in the order they sit down, whatever the seat
        bots = sum(1 for seat in m.room.seats if seat is not None and seat.strategy)
        name = f"Bot {bots + 1}"
    name = m.room.unique_name(name)
    m.room.seats[index] = SeatState(index, name, strategy=strategy,
                                    seed=m._rng.randrange(2**32))
    if m._deal is not None:  # built-in bots contribute nothing
        m._change_deal(m._deal.withdraw(index))
    m._fact(seat_fact(index, name, "builtin", strategy))
    m._log(logging.INFO, index, "bot %r (%s) sits down", name, strategy)


def spectators_expire_at(m: MatchState) -> float:
    """When the first spectator who is away has been away ``spectator_grace``."""
    dropped = [member.away_since for member in m.room.members.values()
               if member.seat is None and member.away_since is not None]
    return min(dropped) + m.spectator_grace if dropped else math.inf


def expire_spectators(m: MatchState) -> None:
    """Remove the spectators away for ``spectator_grace``: their session can no
    longer come back to watch (it would find itself in the lobby)."""
    gone = [member for member in m.room.members.values() if member.seat is None
            and member.away_since is not None
            and m._now >= member.away_since + m.spectator_grace]
    for member in gone:
        del m.room.members[member.id]
        m._out.released.append(member.id)
        m._log(logging.INFO, None, "%s (session %s) stops watching: away %g s",
               member.name, member.id, m.spectator_grace)
    if gone:
        m._refresh_presence()
        m._updated()

