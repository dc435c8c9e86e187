"""Hello and resume: the session each welcomed connection belongs to.

``Greeter`` is the part of ``lobby.Lobby`` that answers ``hello`` (a new session,
or the one its token names: resumed, or brought back from the database), meters
resumes, checks claimed names, and forgets the sessions nobody can resume any more.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING

import trio

from nimmt import protocol as P

from ..config import ServerConfig
from ..ladder.claims import Claim, Verdict
from ..ladder.desk import LadderDesk
from ..ladder.names import skeleton
from ..sessions.limits import AddressMeters, resuming_text
from ..sessions.session import Link, Session, new_token
from ..storage import AsyncStore, hash_token

if TYPE_CHECKING:
    from .seating import QueueDesk

__all__ = ["Greeter", "SERVER_SOFTWARE", "RESERVED_NAMES", "FALLBACK_NAME", "reserved_name"]

log = logging.getLogger("nimmt.server")
E = P.ErrorCode

SERVER_SOFTWARE = "nimmt-server 0.1.0"


class Greeter:
    """``hello`` and resume, for ``lobby.Lobby`` (whose state this is)."""

    config: ServerConfig
    nursery: trio.Nursery
    sessions: dict[str, Session]
    store: AsyncStore | None
    ladder: LadderDesk
    ladder_queue: QueueDesk
    limits: P.Limits
    _address_claims: AddressMeters
    _in_lobby: set[Session]
    _expiry: deque[tuple[float, Session]]
    _restored: dict[str, Session]
    _session_ids: int

    def _expire_later(self, session: Session) -> None:
        lost = session.lost_at if session.lost_at is not None else trio.current_time()
        self._expiry.append((lost + self.config.reconnect_grace, session))

    def _prune(self) -> None:
        """Forget sessions that nobody can resume any more (amortized, no timer)."""
        now = trio.current_time()
        queue = self._expiry
        while queue and queue[0][0] <= now:
            _, session = queue.popleft()
            if not self._resumable(session, now) and self.sessions.get(session.token) is session:
                del self.sessions[session.token]

    def _resumable(self, session: Session, now: float) -> bool:
        if session.client is not None or session.table is not None:
            return True
        return session.lost_at is not None and now < session.lost_at + self.config.reconnect_grace

    def hello(self, client: Link, msg: P.Hello) -> Session | None:
        """Answer a ``hello``: a new session, or the one its token names."""
        self._prune()
        name = _clean_name(msg.name)
        if msg.token is not None:
            session = self.sessions.get(msg.token)
            if session is None and self._restored:
                # a seat brought back from the database: the token is known by its hash
                session = self._restored.pop(hash_token(msg.token), None)
                if session is not None:
                    session.token = msg.token
                    self.sessions[msg.token] = session
            if session is None or not self._resumable(session, trio.current_time()):
                # docs/PROTOCOL.md: error bad_token, then a fresh session
                client.send(P.Error(code=E.BAD_TOKEN, request="hello", re=msg.id, field="token",
                                    message="unknown or expired session token: "
                                    "here is a new session"))
                log.info("conn=%s unknown or expired token", client.cid)
                return self._new_session(client, msg, name)
            if self._resume_refused(client, msg, session):
                return None
            old = session.client
            if old is not None:
                self.ladder_queue.remove(session)  # it belonged to the old connection
                old.session = None
                old.close("replaced", "this session connected again from elsewhere")
                log.info("session %s: connection %s replaced by %s", session.sid, old.cid,
                         client.cid)
            session.client = client
            session.lost_at = None
            client.session = session
            client.send(P.Welcome(protocol=msg.protocol, server=SERVER_SOFTWARE,
                                  name=session.name, token=session.token, resumed=True,
                                  limits=self.limits, claimed=session.claimed, re=msg.id))
            log.info("conn=%s session %s (%s) resumed", client.cid, session.sid, session.name)
            if session.table is not None:
                session.table.resumed(session)
            else:
                self._in_lobby.add(session)
            return session
        return self._new_session(client, msg, name)

    def _resume_refused(self, client: Link, msg: P.Hello, session: Session) -> bool:
        """Whether ``session`` may not resume now (then ``client`` was told why and is
        closed): each resume costs its table a snapshot, so a session resumes at most
        ``resume_burst`` times at once and ``resume_rate`` a second, and not at all
        for a while after one of its connections was closed for flooding. The meter
        is the session's, so a new address does not refill it, and nobody else waits."""
        config, now = self.config, trio.current_time()
        meter = session.resumes(config.resume_rate, config.resume_burst, now)
        wait = meter.wait(now)
        if not wait:
            return False
        text = resuming_text(max(1, math.ceil(wait)), flooded=now < meter.until)
        client.send(P.Error(code=E.RATE_LIMITED, request="hello", re=msg.id, field="token",
                            message=text))
        client.close(E.RATE_LIMITED, text)
        # (the connection's "closed" line says why; a flood of these must not add more)
        log.debug("conn=%s session %s may not resume yet: %s", client.cid, session.sid, text)
        return True

    def _claim_refused(self, client: Link, msg: P.Hello, name: str) -> Verdict | None:
        """Check the name's claim: None if refused (``client`` was told and is closed),
        else the verdict (whether the session's name is claimed, a new claim)."""
        claims = self.ladder.claims
        if msg.key is None or claims.is_claimed(name):
            verdict = self.ladder.hello(name, msg.key, False)
        else:  # a new claim, unless an unclaimed session goes by the name
            alike = skeleton(name)
            in_use = any(skeleton(s.name) == alike and not s.claimed
                         for s in self.sessions.values())
            if not in_use and self._claims_too_fast(client, msg):
                return None
            verdict = self.ladder.hello(name, msg.key, in_use)
        if not verdict.refused:
            return verdict
        client.send(P.Error(code=E.NAME_CLAIMED, request="hello", re=msg.id, field="name",
                            message=verdict.refused))
        client.close(E.NAME_CLAIMED, verdict.refused)
        log.info("conn=%s hello as %r refused: %s", client.cid, name, verdict.refused)
        return None

    def _claims_too_fast(self, client: Link, msg: P.Hello) -> bool:
        """Whether ``client``'s address claimed as many names as it may lately (then
        it was told and is closed): ``claim_burst`` at once, then one every
        ``claim_interval`` seconds, so that one address cannot take every name."""
        address = client.address
        if address is None:
            return False
        wait = self._address_claims.wait(address, trio.current_time())
        if not wait:
            return False
        config = self.config
        text = (f"your address claimed names too fast ({config.claim_burst} at once, then one "
                f"every {config.claim_interval:g} s): claim this one in "
                f"{max(1, math.ceil(wait))} s, or connect now without a key (unclaimed) or "
                "with a name you claimed before")
        client.send(P.Error(code=E.RATE_LIMITED, request="hello", re=msg.id, field="key",
                            message=text))
        client.close(E.RATE_LIMITED, text)
        log.debug("conn=%s claim refused: %s", client.cid, text)
        return True

    def _new_session(self, client: Link, msg: P.Hello, name: str) -> Session | None:
        if reserved_name(name):  # or a player could chat as the server's notices do
            client.send(P.Error(code=E.OUT_OF_RANGE, request="hello", re=msg.id, field="name",
                                message=f"no player may be called {name!r}: the server's own "
                                "notices go by that name. You are called 'player' here; "
                                "to choose your name, connect again with another one"))
            verdict = Verdict(claimed=False, name=FALLBACK_NAME)  # (the key is not used)
        elif skeleton(name) == skeleton(FALLBACK_NAME):
            # everyone's who has no name of their own: nobody's to claim, so that a
            # reserved name is always welcomed as it
            if msg.key is not None:
                client.send(P.Error(code=E.OUT_OF_RANGE, request="hello", re=msg.id,
                                    field="key", message=f"{name!r} is the name of whoever "
                                    "has none: it cannot be claimed (your key was not used); "
                                    "to claim a name, connect again with another one"))
            verdict = Verdict(claimed=False, name=name)
        else:
            refused = self._claim_refused(client, msg, name)
            if refused is None:
                return None
            verdict = refused
        if verdict.claimed:
            name = verdict.name  # as claimed: "ann" with Ann's key plays as "Ann"
        elif verdict.name:
            name = verdict.name
        self._session_ids += 1
        session = Session(self._session_ids, new_token(), name, msg.kind)
        session.claimed = verdict.claimed
        self.sessions[session.token] = session
        session.client = client
        client.session = session
        welcome = P.Welcome(protocol=msg.protocol, server=SERVER_SOFTWARE, name=name,
                            token=session.token, resumed=False, limits=self.limits,
                            claimed=verdict.claimed, re=msg.id)
        claim = verdict.new
        if claim is None and verdict.claimed:
            claim = self.ladder.unsaved(name)  # its write failed before: try it again
        if claim is not None and self.store is not None:
            self.nursery.start_soon(self._welcome_once_kept, client, session, welcome, claim)
        else:
            self._welcome(client, session, welcome)
        log.info("conn=%s session %s: %s (%s) says hello", client.cid, session.sid, name,
                 msg.kind)
        return session

    def _welcome(self, client: Link, session: Session, welcome: P.Welcome) -> None:
        client.send(welcome)
        if session.table is None:
            self._in_lobby.add(session)

    async def _welcome_once_kept(self, client: Link, session: Session, welcome: P.Welcome,
                                 claim: Claim) -> None:
        """A claim is on disk before its client is welcomed with it; if storage fails,
        the welcome says not claimed, and a notice says why and what to do."""
        kept = await self.ladder.keep_claim(claim)
        if session.client is not client:  # (gone meanwhile: nothing to tell)
            return
        if kept:
            self._welcome(client, session, welcome)
            return
        session.claimed = False
        self._welcome(client, session, replace(welcome, claimed=False))
        client.send(P.ChatMessage(name=NOTICE_NAME, seat=None, text=(
            f"server notice: the database takes no writes now, so your claim of "
            f"{claim.name!r} is not on disk and you are not welcomed as claimed (rated "
            "tables and the ladder queue are not open to you). Nobody else may claim the "
            "name meanwhile: connect again with your key once storage works")))

    def disconnected(self, client: Link) -> None:
        """``client``'s connection is over; its session (if still its own) is away."""
        session = client.session
        client.session = None
        if session is None or session.client is not client:
            return
        session.client = None
        session.lost_at = trio.current_time()
        self._in_lobby.discard(session)
        self.ladder_queue.remove(session)
        if session.table is not None:
            session.table.disconnected(session)
        else:
            self._expire_later(session)


def _clean_name(name: str) -> str:
    cleaned = "".join(ch for ch in name if ch.isprintable()).strip()
    return cleaned[:32] or FALLBACK_NAME


#: names no player may take: the server signs its own chat notices with "server"
RESERVED_NAMES = frozenset({"server"})
#: the name the server's notices go by
NOTICE_NAME = "server"
#: the name of a player who asked for none, or for a reserved one; nobody may claim it
FALLBACK_NAME = "player"
_RESERVED = frozenset(skeleton(name) for name in RESERVED_NAMES)


def reserved_name(name: str) -> bool:
    """Whether ``name`` reads as a name no player may take (``RESERVED_NAMES``),
    whatever its case, spacing, punctuation, width or lookalike letters (the
    ``skeleton`` claimed names are compared by).

    >>> [reserved_name(n) for n in ("server", "Server ", "S E R V E R", "\u0455erver",
    ...                             "ＳＥＲＶＥＲ", "s3rver", "[server]", "Servera", "Sever")]
    [True, True, True, True, True, True, True, False, False]
    """
    return skeleton(name) in _RESERVED
