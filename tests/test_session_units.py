"""Sessions without a server (issue 43): the token a player gets, the token's stored
form (also of a seat brought back from the database before its player said hello),
what a session sends with and without a connection, and its resume meter."""

from __future__ import annotations

import hashlib
import string
from typing import Any

from nimmt.server.sessions.session import Session, new_token


class FakeLink:
    def __init__(self, accepts: bool = True) -> None:
        self.accepts = accepts
        self.sent: list[Any] = []

    def send(self, msg: Any) -> bool:
        self.sent.append(msg)
        return self.accepts


def test_a_token_is_32_url_safe_characters_and_never_the_same():
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50
    allowed = set(string.ascii_letters + string.digits + "-_")
    assert all(len(t) == 32 and set(t) <= allowed for t in tokens)


def test_a_new_session_is_nowhere_and_unclaimed():
    session = Session(7, "tok", "Ann", "bot")
    assert (session.sid, session.token, session.name, session.kind) == (7, "tok", "Ann", "bot")
    assert (session.client, session.table, session.seat, session.lost_at) == (None, None, None, None)
    assert (session.chat_bucket, session.restored_hash, session.resume_meter) == (None, None, None)
    assert session.claimed is False
    assert repr(session) == "<Session 7 'Ann'>"  # the logs never show the token


def test_a_session_without_a_connection_sends_nothing_and_says_so():
    session = Session(1, "tok", "Ann", "human")
    assert session.send("welcome") is False
    link = FakeLink()
    session.client = link  # type: ignore[assignment]
    assert session.send("welcome") is True and link.sent == ["welcome"]
    link.accepts = False  # the connection refused it (closing, or not in this state)
    assert session.send("event") is False and link.sent == ["welcome", "event"]


def test_the_stored_token_is_its_sha256_and_a_restored_seat_keeps_its_hash_until_hello():
    session = Session(1, "abc", "Ann", "human")
    assert session.token_hash == hashlib.sha256(b"abc").hexdigest()
    restored = Session(2, "", "Bob", "human")
    restored.restored_hash = "f" * 64
    assert restored.token_hash == "f" * 64
    restored.token = "xyz"  # its player said hello with the token
    assert restored.token_hash == hashlib.sha256(b"xyz").hexdigest()
    # a session with an empty token and no stored hash: the hash of ""
    assert Session(3, "", "Cy", "human").token_hash == hashlib.sha256(b"").hexdigest()


def test_the_resume_meter_is_made_once_with_its_rate_and_burst_and_then_kept():
    session = Session(1, "tok", "Ann", "human")
    meter = session.resumes(0.5, 2, 0.0)
    assert session.resume_meter is meter
    assert [meter.wait(0.0) for _ in range(3)] == [0.0, 0.0, 2.0]  # burst 2, then 1 in 2 s
    # later calls (with other figures) get the same meter, its resumes spent
    assert session.resumes(100.0, 50, 0.0) is meter
    assert meter.wait(0.0) == 2.0
