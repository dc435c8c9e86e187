"""Hello and resume without sockets (issue 43): the lobby answers ``hello`` messages
from stand-in connections on a mock clock. The name a player gets, the token, a
resume (and its grace to the second), the replaced connection, refusals (reserved
and claimed names, resumes and claims too fast) with what each says. Against a real
server: tests/test_server_reconnect.py, tests/test_ladder_claims.py,
tests/test_limits_names.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server.config import ServerConfig
from nimmt.server.ladder.claims import new_key
from nimmt.server.lobby.lobby import Lobby
from nimmt.server.lobby.welcome import SERVER_SOFTWARE, reserved_name
from nimmt.server.sessions.session import Session
from nimmt.server.storage import AsyncStore, Store, hash_token

from lobby_helpers import Link, run

E = P.ErrorCode
V = P.PROTOCOL_VERSION


class FakeTable:
    id = "T1"

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def resumed(self, session: Any) -> None:
        self.events.append(("resumed", session.sid))

    def disconnected(self, session: Any) -> None:
        self.events.append(("disconnected", session.sid))


def hello(name: str = "Ann", token: str | None = None, key: str | None = None,
          kind: str = "human", protocol: int = V, mid: int = 1) -> P.Hello:
    return P.Hello(protocol=protocol, name=name, kind=kind, token=token, key=key, id=mid)


def welcome_of(link: Link) -> P.Welcome:
    [welcome] = [m for m in link.sent if isinstance(m, P.Welcome)]
    return welcome


# ------------------------------------------------------------------ a new session
def test_a_hello_gets_a_new_session_its_token_and_the_servers_limits():
    async def test(lobby: Lobby) -> None:
        ann, bob = Link(1), Link(2)
        session = lobby.hello(ann, hello("Ann", mid=5, protocol=2))
        lobby.hello(bob, hello("Bob", kind="bot"))
        welcome = welcome_of(ann)
        assert (welcome.protocol, welcome.server, welcome.name, welcome.resumed, welcome.claimed,
                welcome.re) == (2, SERVER_SOFTWARE, "Ann", False, False, 5)
        assert welcome.limits == lobby.limits and welcome.limits.rate_limit == 7
        assert session is not None and welcome.token == session.token and len(session.token) == 32
        assert (session.sid, session.name, session.kind) == (1, "Ann", "human")
        assert ann.session is session and session.client is ann
        assert lobby.sessions[session.token] is session
        assert ann.types() == ["welcome"]
        other = bob.session
        assert (other.sid, other.kind) == (2, "bot") and other.token != session.token

    run(test, rate_limit=7)


# (a name with control characters, blank or over 32 characters is refused by the
# protocol before the lobby sees it: tests/test_protocol.py)
@pytest.mark.parametrize("asked, shown", [("  Ann  ", "Ann"), (" " + "A" * 31, "A" * 31),
                                          ("B" * 32, "B" * 32)])
def test_the_name_is_trimmed(asked, shown):
    async def test(lobby: Lobby) -> None:
        link = Link(1)
        lobby.hello(link, hello(asked))
        assert welcome_of(link).name == shown == link.session.name

    run(test)


def test_a_reserved_name_is_refused_and_the_player_is_welcomed_as_player():
    assert reserved_name("Server") and reserved_name("ＳＥＲＶＥＲ") and not reserved_name("Servera")

    async def test(lobby: Lobby) -> None:
        link = Link(1)
        lobby.hello(link, hello("S e r v e r", key=new_key(), mid=3))
        error, welcome = link.sent
        assert (error.code, error.request, error.re, error.field) == (
            E.OUT_OF_RANGE, "hello", 3, "name")
        assert error.message.startswith("no player may be called 'S e r v e r': the server's own "
                                        "notices go by that name. You are called 'player' here")
        assert (welcome.name, welcome.claimed) == ("player", False)
        assert link.closed is None and len(lobby.ladder.claims) == 0

    run(test)


def test_the_name_of_whoever_has_none_cannot_be_claimed():
    async def test(lobby: Lobby) -> None:
        link = Link(1)
        lobby.hello(link, hello("Player", key=new_key(), mid=4))
        error, welcome = link.sent
        assert (error.code, error.field, error.re) == (E.OUT_OF_RANGE, "key", 4)
        assert error.message.startswith("'Player' is the name of whoever has none: it cannot be "
                                        "claimed (your key was not used)")
        assert (welcome.name, welcome.claimed) == ("Player", False)
        assert len(lobby.ladder.claims) == 0
        plain = Link(2)
        lobby.hello(plain, hello("player"))  # without a key: no error
        assert plain.types() == ["welcome"]

    run(test)


# ------------------------------------------------------------------ resuming
def test_a_hello_with_the_token_resumes_and_replaces_the_connection_still_open():
    async def test(lobby: Lobby) -> None:
        first = Link(1)
        session = lobby.hello(first, hello("Ann"))
        second = Link(2)
        assert lobby.hello(second, hello("Someone else", token=session.token, mid=9)) is session
        assert first.closed == ("replaced", "this session connected again from elsewhere")
        assert first.session is None and session.client is second
        welcome = welcome_of(second)
        assert (welcome.name, welcome.token, welcome.resumed, welcome.re) == (
            "Ann", session.token, True, 9)
        assert len(lobby.sessions) == 1

    run(test)


def test_a_session_at_no_table_can_be_resumed_until_its_grace_ends_and_not_at_that_second():
    async def test(lobby: Lobby) -> None:
        link = Link(1)
        session = lobby.hello(link, hello("Ann"))
        await trio.sleep(1.0)
        lobby.disconnected(link)
        assert session.client is None and session.lost_at == 1.0 and link.session is None
        await trio.sleep(59.9)
        back = Link(2)
        assert lobby.hello(back, hello("Ann", token=session.token)) is session
        assert welcome_of(back).resumed and session.lost_at is None
        await trio.sleep(1.0)
        lobby.disconnected(back)  # lost at 62.0
        await trio.sleep(60.0)  # exactly the grace
        late = Link(3)
        fresh = lobby.hello(late, hello("Ann", token=session.token, mid=6))
        error, welcome = late.sent
        assert (error.code, error.request, error.re, error.field) == (
            E.BAD_TOKEN, "hello", 6, "token")
        assert error.message == "unknown or expired session token: here is a new session"
        assert fresh is not session and not welcome.resumed and welcome.token != session.token
        assert session.token not in lobby.sessions  # forgotten

    run(test, reconnect_grace=60.0)


def test_a_session_nobody_can_resume_is_forgotten_also_after_hellos_during_its_grace():
    async def test(lobby: Lobby) -> None:
        link = Link(1)
        session = lobby.hello(link, hello("Ann"))
        await trio.sleep(30.0)
        lobby.disconnected(link)  # lost at 30: resumable until 90
        for cid in range(2, 5):  # others come and go meanwhile
            await trio.sleep(10.0)
            other = Link(cid)
            lobby.hello(other, hello(f"Guest{cid}"))
        assert session.token in lobby.sessions
        await trio.sleep(60.0)  # 120: past its grace
        lobby.hello(Link(9), hello("Late"))  # (a hello prunes the sessions)
        assert session.token not in lobby.sessions

    run(test, reconnect_grace=60.0)


def test_a_player_who_leaves_a_table_long_after_dropping_is_forgotten_at_once():
    async def test(lobby: Lobby) -> None:
        link = Link(1)
        session = lobby.hello(link, hello("Ann"))
        session.table = FakeTable()
        lobby.disconnected(link)  # lost at 0, its seat waits for it
        await trio.sleep(100.0)
        session.table = None
        lobby.after_leave(session)  # the table let it go: its grace ended at 60
        await trio.sleep(1.0)
        lobby.hello(Link(2), hello("Bob"))
        assert session.token not in lobby.sessions

    run(test, reconnect_grace=60.0)


def test_a_session_at_a_table_waits_for_its_player_however_long():
    async def test(lobby: Lobby) -> None:
        link = Link(1)
        session = lobby.hello(link, hello("Ann"))
        table = FakeTable()
        session.table = table
        lobby.disconnected(link)
        assert table.events == [("disconnected", session.sid)]
        await trio.sleep(10_000.0)
        lobby.hello(Link(9), hello("Bob"))  # (a hello prunes the sessions)
        back = Link(2)
        assert lobby.hello(back, hello("Ann", token=session.token)) is session
        assert table.events[-1] == ("resumed", session.sid)
        assert session not in lobby._in_lobby

    run(test, reconnect_grace=60.0)


def test_an_unknown_token_gets_an_error_and_a_new_session():
    async def test(lobby: Lobby) -> None:
        link = Link(1)
        session = lobby.hello(link, hello("Ann", token="x" * 32))
        assert link.types() == ["error", "welcome"]
        assert link.sent[0].code == E.BAD_TOKEN
        assert session is not None and session.token != "x" * 32 and session.name == "Ann"

    run(test)


def test_resumes_beyond_the_burst_are_refused_saying_when_to_try_again():
    async def test(lobby: Lobby) -> None:
        session = lobby.hello(Link(1), hello("Ann"))
        for cid in range(2, 5):  # a burst of 3
            assert lobby.hello(Link(cid), hello("Ann", token=session.token)) is session
        refused = Link(5)
        assert lobby.hello(refused, hello("Ann", token=session.token, mid=8)) is None
        [error] = refused.sent
        text = "this session has resumed too often: resume it again in 2 s"
        assert (error.code, error.field, error.re, error.message) == (
            E.RATE_LIMITED, "token", 8, text)
        assert refused.closed == (E.RATE_LIMITED, text)
        assert session.client is not refused
        await trio.sleep(2.0)  # one resume more (0.5 a second)
        assert lobby.hello(Link(6), hello("Ann", token=session.token)) is session

    run(test, resume_burst=3, resume_rate=0.5)


def test_a_wait_under_a_second_is_told_as_one_second():
    async def test(lobby: Lobby) -> None:
        session = lobby.hello(Link(1), hello("Ann"))
        assert lobby.hello(Link(2), hello("Ann", token=session.token)) is session
        refused = Link(3)
        assert lobby.hello(refused, hello("Ann", token=session.token)) is None
        assert refused.sent[0].message.endswith("resume it again in 1 s")  # 0.25 s in fact
        lobby.hello(Link(4), hello("Bob", key=new_key()))
        late = Link(5)
        lobby.hello(late, hello("Cy", key=new_key()))
        assert "claim this one in 1 s," in late.sent[0].message  # 0.5 s in fact

    run(test, resume_burst=1, resume_rate=4.0, claim_burst=1, claim_interval=0.5)


def test_a_session_closed_for_flooding_is_told_so_when_it_comes_back_too_soon():
    async def test(lobby: Lobby) -> None:
        session = lobby.hello(Link(1), hello("Ann"))
        meter = session.resumes(lobby.config.resume_rate, lobby.config.resume_burst, 0.0)
        meter.flooded(0.0, cooldown=10.0, cooldown_max=30.0)
        await trio.sleep(2.5)
        refused = Link(2)
        assert lobby.hello(refused, hello("Ann", token=session.token)) is None
        assert refused.sent[0].message == ("a connection of this session was closed for "
                                           "flooding the server: resume it again in 8 s")

    run(test)


# ------------------------------------------------------------------ claims
def test_a_key_claims_the_name_and_the_holder_comes_back_as_claimed_under_its_spelling():
    async def test(lobby: Lobby) -> None:
        key = new_key()
        lobby.hello(Link(9), hello("Bob"))  # another player online, unclaimed
        first = Link(1)
        session = lobby.hello(first, hello("Ann", key=key))
        assert welcome_of(first).claimed and session.claimed
        assert session in lobby._in_lobby  # it hears of the lobby's tables
        zoe = Link(8)
        lobby.hello(zoe, hello("Zoe", key=new_key()))  # a name that sorts after "player"
        assert welcome_of(zoe).claimed and zoe.types() == ["welcome"]
        lobby.disconnected(first)
        again = Link(2)
        lobby.hello(again, hello("aNN", key=key))
        welcome = welcome_of(again)
        assert (welcome.name, welcome.claimed) == ("Ann", True)
        assert again.session.name == "Ann" and again.session.claimed

    run(test)


def test_a_claimed_name_without_its_key_is_refused_and_closed():
    async def test(lobby: Lobby) -> None:
        lobby.hello(Link(1), hello("Ann", key=new_key()))
        intruder = Link(2)
        assert lobby.hello(intruder, hello("Ann", mid=4)) is None
        [error] = intruder.sent
        assert (error.code, error.request, error.field, error.re) == (
            E.NAME_CLAIMED, "hello", "name", 4)
        assert error.message.startswith("the name 'Ann' is claimed and you connected without")
        assert intruder.closed == (E.NAME_CLAIMED, error.message)
        assert intruder.session is None and len(lobby.sessions) == 1

    run(test)


def test_a_name_an_unclaimed_player_goes_by_cannot_be_claimed_by_another():
    async def test(lobby: Lobby) -> None:
        lobby.hello(Link(1), hello("Ann"))
        other = Link(2)
        assert lobby.hello(other, hello("\u0410NN", key=new_key())) is None
        assert other.sent[0].code == E.NAME_CLAIMED and "is in use by a player who has not " \
            "claimed it" in other.sent[0].message
        assert len(lobby.ladder.claims) == 0

    run(test)


def test_an_address_claims_its_burst_of_names_then_one_a_interval():
    async def test(lobby: Lobby) -> None:
        for i in range(3):
            link = Link(i)
            lobby.hello(link, hello(f"Name{i}", key=new_key()))
            assert welcome_of(link).claimed
        refused = Link(9)
        assert lobby.hello(refused, hello("Name9", key=new_key(), mid=2)) is None
        [error] = refused.sent
        assert (error.code, error.field, error.re) == (E.RATE_LIMITED, "key", 2)
        assert error.message == (
            "your address claimed names too fast (3 at once, then one every 10 s): claim this "
            "one in 10 s, or connect now without a key (unclaimed) or with a name you claimed "
            "before")
        assert refused.closed == (E.RATE_LIMITED, error.message)
        # another address, a connection without one (not a socket), a claimed name: not held
        for link, name in ((Link(10, "10.0.0.2"), "Other"), (Link(11, None), "Local")):
            lobby.hello(link, hello(name, key=new_key()))
            assert welcome_of(link).claimed, name
        await trio.sleep(10.0)
        later = Link(12)
        lobby.hello(later, hello("Name9", key=new_key()))
        assert welcome_of(later).claimed

    run(test, claim_burst=3, claim_interval=10.0)


def test_a_claim_refused_for_the_address_does_not_count_a_hello_that_claims_nothing():
    async def test(lobby: Lobby) -> None:
        key = new_key()
        lobby.hello(Link(1), hello("Ann", key=key))
        # the address's one claim is spent; its holder still comes back with its key
        back = Link(2)
        lobby.hello(back, hello("Ann", key=key))
        assert welcome_of(back).claimed

    run(test, claim_burst=1, claim_interval=10.0)


def test_a_disconnect_of_a_replaced_connection_leaves_the_session_alone():
    async def test(lobby: Lobby) -> None:
        first = Link(1)
        session = lobby.hello(first, hello("Ann"))
        second = Link(2)
        lobby.hello(second, hello("Ann", token=session.token))
        lobby.disconnected(first)  # the old connection ends after it was replaced
        assert session.client is second and session.lost_at is None
        assert session in lobby._in_lobby

    run(test)


def test_at_the_very_end_of_a_flood_cool_down_a_spent_session_is_told_it_resumed_too_often():
    async def test(lobby: Lobby) -> None:
        session = lobby.hello(Link(1), hello("Ann"))
        meter = session.resumes(0.05, 1, 0.0)
        assert meter.wait(0.0) == 0.0  # its one resume spent: the next in 20 s
        meter.flooded(0.0, cooldown=10.0, cooldown_max=30.0)
        await trio.sleep(10.0)  # the cool-down ends now
        refused = Link(2)
        assert lobby.hello(refused, hello("Ann", token=session.token)) is None
        assert refused.sent[0].message == ("this session has resumed too often: resume it "
                                           "again in 10 s")

    run(test, resume_burst=1, resume_rate=0.05)


# ------------------------------------------------------------------ restored seats
def test_a_seat_brought_back_from_the_database_is_resumed_by_its_token():
    async def test(lobby: Lobby) -> None:
        token = "r" * 32
        seat = Session(9, "", "Ann", "human")
        seat.restored_hash, seat.seat, seat.lost_at = hash_token(token), 1, 0.0
        seat.table = table = FakeTable()
        lobby._restored[seat.restored_hash] = seat
        stranger = Link(1)
        lobby.hello(stranger, hello("Bob", token="s" * 32))
        assert stranger.types() == ["error", "welcome"]  # a token nobody had
        link = Link(2)
        assert lobby.hello(link, hello("Ann", token=token, mid=3)) is seat
        welcome = welcome_of(link)
        assert (welcome.resumed, welcome.token, welcome.name, welcome.re) == (True, token, "Ann", 3)
        assert seat.token == token and lobby.sessions[token] is seat and lobby._restored == {}
        assert table.events == [("resumed", 9)]

    run(test)


# ------------------------------------------------------------------ claims on disk
def run_with_store(tmp_path: Path, test: Any) -> None:
    async def main() -> None:
        astore = AsyncStore(Store.open(tmp_path / "nimmt.db"))
        try:
            async with trio.open_nursery() as nursery:
                lobby = Lobby(ServerConfig(), nursery)
                lobby.store = astore
                await lobby.ladder.load(astore)
                with trio.fail_after(30):
                    await test(lobby, astore)
                nursery.cancel_scope.cancel()
        finally:
            await astore.aclose()

    trio.run(main)


async def answered(link: Link, count: int = 1) -> None:
    while len(link.sent) < count:
        await trio.sleep(0.01)


def test_a_new_claim_is_welcomed_as_claimed_only_once_it_is_on_disk(tmp_path: Path):
    async def test(lobby: Lobby, astore: AsyncStore) -> None:
        plain = Link(5)
        lobby.hello(plain, hello("Bob"))  # no claim: welcomed at once
        assert plain.types() == ["welcome"]
        link = Link(1)
        session = lobby.hello(link, hello("Ann", key=new_key(), mid=2))
        assert link.sent == [] and session is not None  # the write first
        await answered(link)
        welcome = welcome_of(link)
        assert (welcome.claimed, welcome.name, welcome.re) == (True, "Ann", 2)
        assert session.claimed and session in lobby._in_lobby
        rows = await astore.ladder_read(lambda db: db.execute(
            "SELECT name FROM claims").fetchall())
        assert [tuple(r) for r in rows] == [("Ann",)]

    run_with_store(tmp_path, test)


def test_a_claim_storage_does_not_take_is_welcomed_unclaimed_with_a_notice_and_kept_later(
        tmp_path: Path):
    async def test(lobby: Lobby, astore: AsyncStore) -> None:
        key = new_key()
        astore.store._db.execute("PRAGMA query_only = 1")
        link = Link(1)
        session = lobby.hello(link, hello("Ann", key=key))
        await answered(link, 2)
        welcome, notice = link.sent
        assert (welcome.TYPE, welcome.claimed, welcome.name) == ("welcome", False, "Ann")
        assert not session.claimed
        assert (notice.TYPE, notice.name, notice.seat) == ("chat_message", "server", None)
        assert notice.text.startswith("server notice: the database takes no writes now, so "
                                      "your claim of 'Ann' is not on disk and you are not "
                                      "welcomed as claimed")
        # nobody else may take the name meanwhile
        other = Link(2)
        assert lobby.hello(other, hello("ann")) is None and other.sent[0].code == E.NAME_CLAIMED
        lobby.disconnected(link)
        astore.store._db.execute("PRAGMA query_only = 0")
        await astore.retry()
        again = Link(3)
        lobby.hello(again, hello("Ann", key=key))  # the claim's write is tried again
        await answered(again)
        assert welcome_of(again).claimed and again.types() == ["welcome"]
        assert lobby.ladder.unsaved("Ann") is None

    run_with_store(tmp_path, test)


def test_a_client_gone_before_its_claim_is_on_disk_is_told_nothing(tmp_path: Path):
    async def test(lobby: Lobby, astore: AsyncStore) -> None:
        link = Link(1)
        lobby.hello(link, hello("Ann", key=new_key()))
        lobby.disconnected(link)
        for _ in range(50):
            await trio.sleep(0.01)
        assert link.sent == []
        assert lobby.ladder.claims.is_claimed("Ann")

    run_with_store(tmp_path, test)
