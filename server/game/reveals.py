"""Commit, then reveal: a game whose seats sent a hash of their entropy starts once
they revealed it (docs/PROTOCOL.md, "Verifiable deals", protocol version 3).

When every seat is taken and the game is to start, the seats are fixed and the
seed committed to (each player saw its commitment when it sat down): only then is
each seat that sent an ``entropy_hash`` asked for its entropy (``reveal_request``),
so nobody can choose a contribution knowing another's. A reveal whose SHA-256 is
not the hash sent is refused (``reveal_mismatch``); a seat that has not revealed
``reveal_time`` seconds after the request (a deadline like the others: data, the
match reads no clock) contributes nothing, and the game's record names it among
the seats that ``withheld``. Meanwhile the table is ``revealing`` (rules.py): the
seats stay as they are. Functions over the match's state (``state.MatchState``).
"""

from __future__ import annotations

import logging
import math

from nimmt import protocol as P

from .io import Who
from .play import begin
from .rules import refusal
from .state import MatchState

__all__ = ["start", "reveal", "request_for", "ends_at", "time_up"]

E = P.ErrorCode


def start(m: MatchState) -> None:
    """Start a game: every seat is taken (the callers checked). With reveals awaited
    the table waits for them first; otherwise the game is dealt at once."""
    deal = m._deal
    if deal is None or not deal.waiting_reveals:
        begin(m)
        return
    m.status = "revealing"
    m._reveal_until = m._now + m.settings.reveal_time
    m._reveal_wire = m._wall + m.settings.reveal_time
    for seat in deal.waiting_reveals:
        m._to_seat(seat, request_for(m))
    m._log(logging.INFO, None, "the seats are fixed: seat(s) %s asked to reveal their entropy "
           "within %g s", ", ".join(map(str, deal.waiting_reveals)), m.settings.reveal_time)


def request_for(m: MatchState) -> P.RevealRequest:
    """The ``reveal_request`` a seat whose reveal is awaited gets (again, when it is back)."""
    assert m._deal is not None and m._reveal_until is not None and m._reveal_wire is not None
    return P.RevealRequest(commitment=m._deal.commitment, deadline=m._reveal_wire,
                           remaining=max(0.0, m._reveal_until - m._now))


def reveal(m: MatchState, who: Who, msg: P.Reveal) -> None:
    """A seat reveals its entropy: taken if it is the one its hash committed it to; the
    game starts with the last reveal awaited."""
    refused = refusal(m.status, "reveal")
    index = m.room.seat_of(who.id)
    deal = m._deal
    if refused is not None:
        m._refuse(who, msg, refused.code, refused.text)
        return
    if index is None or deal is None or index not in deal.waiting_reveals:
        m._refuse(who, msg, E.NOT_ALLOWED, "no reveal is awaited from you (you sent no "
                  "entropy_hash, or your reveal is made)")
        return
    try:
        revealed = deal.reveal(index, bytes.fromhex(msg.entropy))
    except ValueError as e:
        m._refuse(who, msg, E.REVEAL_MISMATCH, str(e), "entropy")
        m._out.charges.append((who.id, who.conn))  # a refused request counts against the rate
        return
    m._change_deal(revealed)
    m._send(who.id, P.RevealAccepted(re=msg.id))
    m._log(logging.INFO, index, "revealed its entropy")
    if not revealed.waiting_reveals:
        _reveals_done(m)


def ends_at(m: MatchState) -> float:
    """When the reveals awaited are withheld (``math.inf``: none is awaited)."""
    if m.status != "revealing" or m._reveal_until is None:
        return math.inf
    return m._reveal_until


def time_up(m: MatchState) -> None:
    """The reveals' time is up: the seats that did not reveal contribute nothing."""
    assert m._deal is not None
    for seat in m._deal.waiting_reveals:
        m._log(logging.INFO, seat, "withheld its reveal: it contributes nothing to the deals")
    m._change_deal(m._deal.withhold_rest())
    _reveals_done(m)


def _reveals_done(m: MatchState) -> None:
    m._reveal_until = m._reveal_wire = None
    begin(m)
