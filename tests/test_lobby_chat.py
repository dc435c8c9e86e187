"""A chat line (server/lobby/chat.py), without a server: how long it may be, how
often a session and an address may say one, and exactly what a refused player reads."""

from __future__ import annotations

from typing import Any

from nimmt import protocol as P
from nimmt.server.config import ServerConfig
from nimmt.server.lobby.chat import chat, chat_refusal
from nimmt.server.sessions import AddressMeters, Session

E = P.ErrorCode


class Link:
    def __init__(self, address: str | None = "10.0.0.7") -> None:
        self.address = address
        self.sent: list[Any] = []

    def send(self, msg: Any) -> bool:
        self.sent.append(msg)
        return True

    def close(self, reason: str, text: str = "") -> None:
        pass


def player(name: str = "Ann", address: str | None = "10.0.0.7") -> tuple[Session, Link]:
    session = Session(1, "token", name, "human")
    link = Link(address)
    session.client = link  # type: ignore[assignment]  # (the Link protocol's two methods)
    return session, link


CONFIG = ServerConfig(chat_max=10, chat_rate=0.5, chat_burst=2,
                      chat_address_rate=1.0, chat_address_burst=3)


def test_a_line_of_exactly_the_most_characters_goes_to_the_lobby_one_more_is_refused() -> None:
    ann, link = player()
    lobby: list[Any] = []
    meters = AddressMeters(CONFIG.chat_address_rate, CONFIG.chat_address_burst)
    chat(ann, P.Chat(text="x" * 10, id=1), CONFIG, meters, lobby.append, 0.0)
    chat(ann, P.Chat(text="hi", id=3), CONFIG, meters, lobby.append, 0.0)
    assert lobby == [P.ChatMessage(name="Ann", seat=None, text="x" * 10),
                     P.ChatMessage(name="Ann", seat=None, text="hi")]
    chat(ann, P.Chat(text="x" * 11, id=2), CONFIG, meters, lobby.append, 0.0)
    assert len(lobby) == 2
    (refused,) = link.sent
    assert (refused.code, refused.request, refused.re, refused.field, refused.message) == (
        E.OUT_OF_RANGE, "chat", 2, "text", "a chat line holds at most 10 characters")


def test_a_session_says_its_burst_then_is_told_when_to_try_again() -> None:
    ann, link = player()
    meters = AddressMeters(100.0, 100)
    assert chat_refusal(ann, CONFIG, meters, 0.0) == ""
    assert chat_refusal(ann, CONFIG, meters, 0.0) == ""
    # the third line at once: one token comes back in 2 s at 0.5 a second
    assert chat_refusal(ann, CONFIG, meters, 0.0) == (
        "you chat too fast: 2 lines at once and 0.5 a second on average; this line was "
        "not sent (try again in 2 s)")
    # 1.9 s later, 0.1 s are left: said as 1 s, never 0
    assert chat_refusal(ann, CONFIG, meters, 1.9).endswith("(try again in 1 s)")
    assert chat_refusal(ann, CONFIG, meters, 2.0) == ""


def test_a_refusal_rounds_the_wait_up_to_whole_seconds() -> None:
    ann, _ = player()
    meters = AddressMeters(100.0, 100)
    slow = ServerConfig(chat_rate=0.4, chat_burst=1)
    assert chat_refusal(ann, slow, meters, 0.0) == ""
    assert chat_refusal(ann, slow, meters, 0.0).endswith("(try again in 3 s)")  # 2.5 s


def test_the_sessions_of_one_address_share_a_meter_and_a_refused_line_costs_a_session_nothing() -> None:
    meters = AddressMeters(CONFIG.chat_address_rate, CONFIG.chat_address_burst)
    ann, _ = player("Ann")
    bob, _ = player("Bob")
    cy, _ = player("Cy")
    for session in (ann, bob, cy):  # 3 lines: the address's burst
        assert chat_refusal(session, CONFIG, meters, 0.0) == ""
    refusal = chat_refusal(ann, CONFIG, meters, 0.0)
    assert refusal == (
        "your address chats too fast: all its connections together may say 3 lines at "
        "once and 1 a second on average; this line was not sent (try again in 1 s)")
    # Ann's own meter got its token back: at 1 s the address has one again, and Ann,
    # who said one line of her burst of 2, may say it
    assert chat_refusal(ann, CONFIG, meters, 1.0) == ""
    other = AddressMeters(CONFIG.chat_address_rate, CONFIG.chat_address_burst)
    dee, _ = player("Dee", address="10.0.0.8")
    assert chat_refusal(dee, CONFIG, other, 0.0) == ""


def test_a_session_without_a_connection_is_metered_by_itself_only() -> None:
    meters = AddressMeters(1.0, 1)
    ann, _ = player(address=None)
    ann.client = None
    assert chat_refusal(ann, CONFIG, meters, 0.0) == ""
    assert chat_refusal(ann, CONFIG, meters, 0.0) == ""  # no address meter to run out
