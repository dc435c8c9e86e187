"""Chat: a line said in the lobby or at a table, and how often one may say one.

A line goes to everyone in the lobby or at the table, so one client's chat is
metered by itself (per session: a new connection does not refill it), and all the
sessions of one address share a meter too (many connections from one address do
not multiply it). Plain code: the time comes in as ``now``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from nimmt import protocol as P

from ..config import ServerConfig
from ..sessions.limits import AddressMeters, TokenBucket
from ..sessions.session import Session

__all__ = ["chat", "chat_refusal", "session_address"]

E = P.ErrorCode


def session_address(session: Session) -> str | None:
    """The address of the session's connection (None: it has none now)."""
    client = session.client
    return client.address if client is not None else None


def chat(session: Session, msg: P.Chat, config: ServerConfig, meters: AddressMeters,
         to_lobby: Callable[[Any], None], now: float) -> None:
    """Say ``msg``'s line to the session's table (its actor checks and sends it) or to
    the lobby; too long, or too fast, and the session is told why."""
    text = msg.text
    if len(text) > config.chat_max:
        session.send(P.Error(code=E.OUT_OF_RANGE, request="chat", re=msg.id, field="text",
                             message=f"a chat line holds at most {config.chat_max} "
                             "characters"))
        return
    if not text.strip():
        return
    refusal = chat_refusal(session, config, meters, now)
    if refusal:
        session.send(P.Error(code=E.RATE_LIMITED, request="chat", re=msg.id,
                             message=refusal))
        return
    if session.table is not None:
        session.table.request(session, msg)
    else:
        to_lobby(P.ChatMessage(name=session.name, seat=None, text=text))


def chat_refusal(session: Session, config: ServerConfig, meters: AddressMeters,
                 now: float) -> str:
    """Why ``session`` may not say one more line now ("" if it may)."""
    if session.chat_bucket is None:
        session.chat_bucket = TokenBucket(config.chat_rate, config.chat_burst, now)
    wait = session.chat_bucket.wait(now)
    if wait:
        return (f"you chat too fast: {config.chat_burst} lines at once and "
                f"{config.chat_rate:g} a second on average; this line was not sent "
                f"(try again in {max(1, math.ceil(wait))} s)")
    address = session_address(session)
    if address is None:
        return ""
    wait = meters.wait(address, now)
    if not wait:
        return ""
    session.chat_bucket.give_back()
    return (f"your address chats too fast: all its connections together may say "
            f"{config.chat_address_burst} lines at once and {config.chat_address_rate:g} "
            f"a second on average; this line was not sent "
            f"(try again in {max(1, math.ceil(wait))} s)")
