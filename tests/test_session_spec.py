"""What docs/PROTOCOL.md and docs/SERVER.md say of a session, one check a statement
(issue 43): hello and welcome, resume (the name and kind kept, the connection it
replaces, its queue entry gone), ``reconnect_grace`` (at no table, seated, watching),
away and back at a table, the ladder queue (``queue`` again, ``leave_queue``, a
drop, a resume), ``leave``, ``watch``, the request rate (what counts on arrival,
what is charged after, what costs nothing), chat limits, and ``goodbye``.

Most checks drive the real lobby with stand-in connections (``lobby_helpers.Link``)
on a mock clock; those about the request rate and ``goodbye`` run the real lobby
behind real connections over memory streams (no socket, no sleep)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server.config import ServerConfig, TableSettings
from nimmt.server.ladder.claims import new_key
from nimmt.server.lobby.lobby import Lobby
from nimmt.server.lobby.seating import UNCLAIMED_IN_QUEUE
from nimmt.server.net.connection import ClientConnection
from nimmt.server.sessions.limits import LogLimiter

from lobby_helpers import Link, run

E = P.ErrorCode
V = P.PROTOCOL_VERSION
_cids = iter(range(1, 100_000))


def hello(name: str = "Ann", token: str | None = None, key: str | None = None,
          kind: str = "human", mid: int = 1) -> P.Hello:
    return P.Hello(protocol=V, name=name, kind=kind, token=token, key=key, id=mid)


def arrive(lobby: Lobby, name: str = "Ann", *, key: str | None = None,
           token: str | None = None, kind: str = "human",
           address: str | None = "10.0.0.1") -> Link:
    link = Link(next(_cids), address)
    lobby.hello(link, hello(name, token=token, key=key, kind=kind))
    assert link.types()[-1] == "welcome", link.sent
    link.sent.clear()
    return link


def queue(mid: int = 5, seats: int = 3) -> P.Queue:
    return P.Queue(seats=seats, fill_after=None, id=mid)


def create(mid: int = 2, seats: int = 2) -> P.CreateTable:
    return P.CreateTable(options=P.TableOptions(seats=seats), id=mid)


async def settle() -> None:
    await trio.testing.wait_all_tasks_blocked()


# ------------------------------------------------------------------ hello and resume
def test_a_hello_is_answered_welcome_alone_with_a_fresh_token_and_the_servers_limits():
    async def test(lobby: Lobby) -> None:
        link = Link(1)
        lobby.hello(link, hello("Ann", mid=4))
        [welcome] = link.sent
        assert isinstance(welcome, P.Welcome)
        assert (welcome.name, welcome.resumed, welcome.claimed, welcome.re) == (
            "Ann", False, False, 4)
        assert (welcome.limits.reconnect_grace, welcome.limits.rate_limit) == (45.0, 9)
        other = Link(2)
        lobby.hello(other, hello("Bob"))
        assert other.sent[0].token != welcome.token

    run(test, reconnect_grace=45.0, rate_limit=9)


def test_a_resume_keeps_the_first_name_and_kind_and_ignores_the_new_hellos():
    async def test(lobby: Lobby) -> None:
        first = Link(1)
        session = lobby.hello(first, hello("Ann", kind="human"))
        lobby.disconnected(first)
        back = Link(2)
        lobby.hello(back, hello("Zed", token=session.token, kind="bot", mid=3))
        [welcome] = back.sent
        assert (welcome.name, welcome.token, welcome.resumed, welcome.re) == (
            "Ann", session.token, True, 3)
        assert (session.name, session.kind, session.client) == ("Ann", "human", back)

    run(test)


def test_the_same_token_again_replaces_the_open_connection_with_goodbye_replaced():
    async def test(lobby: Lobby) -> None:
        first = Link(1)
        session = lobby.hello(first, hello("Ann"))
        first.sent.clear()
        second = Link(2)
        lobby.hello(second, hello("Ann", token=session.token))
        assert first.closed == ("replaced", "this session connected again from elsewhere")
        assert first.sent == [] and second.types() == ["welcome"]
        # the replaced connection's end is not the session's: it stays connected
        lobby.disconnected(first)
        assert session.client is second and session.lost_at is None

    run(test)


def test_an_expired_token_gets_bad_token_then_a_fresh_welcome_in_that_order():
    async def test(lobby: Lobby) -> None:
        first = Link(1)
        session = lobby.hello(first, hello("Ann"))
        lobby.disconnected(first)
        await trio.sleep(30.0)
        late = Link(2)
        lobby.hello(late, hello("Ann", token=session.token, mid=7))
        error, welcome = late.sent
        assert (error.code, error.re, error.field) == (E.BAD_TOKEN, 7, "token")
        assert (welcome.resumed, welcome.re) == (False, 7) and welcome.token != session.token

    run(test, reconnect_grace=30.0)


def test_at_no_table_a_token_is_valid_until_reconnect_grace_after_the_drop_not_from_hello():
    async def test(lobby: Lobby) -> None:
        first = Link(1)
        session = lobby.hello(first, hello("Ann"))
        await trio.sleep(100.0)  # connected a long time: the grace counts from the drop
        lobby.disconnected(first)
        await trio.sleep(19.999)
        back = Link(2)
        lobby.hello(back, hello("Ann", token=session.token))
        assert back.sent[0].resumed is True

    run(test, reconnect_grace=20.0)


# ------------------------------------------------------------------ seated: away and back
def test_a_seated_session_resumes_however_long_away_welcome_then_seated():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        session = ann.session
        lobby.request(ann, create(seats=3))
        await settle()
        table = session.table
        assert [s.connected for s in table.info().seats if s is not None] == [True]
        lobby.disconnected(ann)
        await settle()
        assert [s.connected for s in table.info().seats if s is not None] == [False]
        await trio.sleep(500.0)  # far beyond reconnect_grace (the table's abandon_after: 600)
        lobby.hello(Link(9), hello("Ann"))  # a hello prunes the sessions
        back = Link(2)
        lobby.hello(back, hello("Ann", token=session.token, mid=5))
        await settle()
        assert back.types()[:2] == ["welcome", "seated"]
        assert back.sent[0].resumed is True and back.sent[1].seat == 0
        assert back.sent[1].table.table_id == table.id
        assert [s.connected for s in table.info().seats if s is not None] == [True]

    run(test, reconnect_grace=10.0)


def test_a_spectator_can_resume_watching_within_the_grace_and_not_at_its_end():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        lobby.request(ann, create(seats=3))
        await settle()
        table_id = ann.session.table.id
        eve = arrive(lobby, "Eve", kind="spectator")
        session = eve.session
        lobby.request(eve, P.Watch(table_id=table_id, id=4))
        await settle()
        assert eve.types()[0] == "watching" and eve.sent[0].re == 4
        lobby.disconnected(eve)
        await settle()
        await trio.sleep(9.5)
        back = Link(2)
        lobby.hello(back, hello("Eve", token=session.token))
        await settle()
        assert back.types()[:2] == ["welcome", "watching"]
        lobby.disconnected(back)
        await settle()
        await trio.sleep(10.0)  # exactly the grace after this drop
        await settle()
        late = Link(3)
        lobby.hello(late, hello("Eve", token=session.token, mid=8))
        assert [m.TYPE for m in late.sent] == ["error", "welcome"]
        assert (late.sent[0].code, late.sent[1].resumed) == (E.BAD_TOKEN, False)

    run(test, reconnect_grace=10.0)


# ------------------------------------------------------------------ leave and watch
def test_leave_answers_left_and_puts_the_session_back_in_the_lobby_to_hear_its_chat():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        bob = arrive(lobby, "Bob", address="10.0.0.2")
        lobby.request(ann, create(seats=3))
        await settle()
        table_id = ann.session.table.id
        ann.sent.clear()
        lobby.request(ann, P.Leave(id=6))
        await settle()
        [left] = [m for m in ann.sent if isinstance(m, P.Left)]
        assert (left.table_id, left.reason, left.re) == (table_id, "left", 6)
        assert ann.session.table is None
        ann.sent.clear()
        lobby.request(bob, P.Chat(text="hi", id=2))
        assert [m for m in ann.sent if isinstance(m, P.ChatMessage)] == [
            P.ChatMessage(name="Bob", seat=None, text="hi")]

    run(test)


def test_leave_at_no_table_is_not_allowed_and_costs_no_more_than_its_arrival():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        lobby.request(ann, P.Leave(id=3))
        assert ann.sent == [P.Error(code=E.NOT_ALLOWED, message="you are at no table",
                                    request="leave", re=3)]
        assert ann.charged == 0

    run(test)


def test_a_decision_at_no_table_is_not_allowed_and_charged_once_after_its_answer():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        decisions = [P.Commit(round=1, turn=1, card=5, id=4),
                     P.ChooseRow(round=1, turn=1, row=0, id=5),
                     P.ChooseTie(round=1, turn=1, place=P.Place(row=0, end="left"), id=6),
                     P.DraftPick(round=1, pick=1, card=7, id=7)]
        for i, msg in enumerate(decisions):
            lobby.request(ann, msg)
            assert ann.sent[-1] == P.Error(code=E.NOT_ALLOWED, message="you are at no table",
                                           request=msg.TYPE, re=msg.id)
            assert ann.charged == i + 1
        lobby.request(ann, P.Reveal(entropy="ab" * 16, id=8))  # counted on arrival only
        assert ann.charged == 4 and ann.sent[-1].request == "reveal"

    run(test)


def test_watch_of_no_table_is_no_such_table_and_watch_from_a_table_is_not_allowed():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        lobby.request(ann, P.Watch(table_id="nope", id=3))
        assert ann.sent == [P.Error(code=E.NO_SUCH_TABLE, field="table_id", request="watch",
                                    re=3, message="no table 'nope'")]
        ann.sent.clear()
        lobby.request(ann, create(seats=3))
        await settle()
        other = lobby.open_table("other", lobby.config.table)
        ann.sent.clear()
        lobby.request(ann, P.Watch(table_id=other.id, id=4))
        assert ann.sent == [P.Error(code=E.NOT_ALLOWED, request="watch", re=4,
                                    message="you are already at a table: leave it first")]

    run(test)


# ------------------------------------------------------------------ the ladder queue
def test_a_resume_that_replaces_the_connection_takes_its_queue_entry_with_it():
    async def test(lobby: Lobby) -> None:
        key = new_key()
        ann = arrive(lobby, key=key)
        session = ann.session
        bob = arrive(lobby, "Bob", key=new_key(), address="10.0.0.2")
        lobby.request(ann, queue())
        lobby.request(bob, queue(mid=6))
        assert (bob.sent[-1].position, bob.sent[-1].waiting) == (2, 2)
        ann.sent.clear()
        second = Link(2)
        lobby.hello(second, hello("Ann", token=session.token, key=key))
        assert not lobby.ladder_queue.queued(session)
        assert ann.sent == [] and second.types() == ["welcome"]  # no queue_left to anyone
        # the new connection queues afresh, behind Bob
        second.sent.clear()
        lobby.request(second, queue(mid=9))
        [queued] = second.sent
        assert (queued.position, queued.waiting, queued.re) == (2, 2, 9)
        await trio.sleep(1.0)

    run(test)


def test_a_dropped_connection_takes_its_queue_entry_and_a_resume_does_not_bring_it_back():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, key=new_key())
        session = ann.session
        lobby.request(ann, queue())
        lobby.disconnected(ann)
        assert not lobby.ladder_queue.queued(session)
        back = Link(2)
        lobby.hello(back, hello("Ann", token=session.token))
        assert not lobby.ladder_queue.queued(session)
        back.sent.clear()
        lobby.request(back, P.LeaveQueue(id=4))
        assert back.sent[0].code == E.NOT_ALLOWED

    run(test)


def test_leave_queue_answers_queue_left_left_and_when_not_queued_not_allowed():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, key=new_key())
        lobby.request(ann, queue())
        ann.sent.clear()
        lobby.request(ann, P.LeaveQueue(id=7))
        assert ann.sent == [P.QueueLeft(reason="left", re=7)]
        ann.sent.clear()
        lobby.request(ann, P.LeaveQueue(id=8))
        assert ann.sent == [P.Error(
            code=E.NOT_ALLOWED, request="leave_queue", re=8,
            message="you are not in the queue (if your table was formed meanwhile, you are "
            "seated: leave the table instead)")]

    run(test)


def test_a_second_queue_replaces_the_entry_queue_left_replaced_then_queued_at_the_end():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, key=new_key())
        bob = arrive(lobby, "Bob", key=new_key(), address="10.0.0.2")
        lobby.request(ann, queue())
        lobby.request(bob, queue(mid=6))
        ann.sent.clear()
        lobby.request(ann, queue(mid=8))
        assert ann.types() == ["queue_left", "queued"]
        left, queued = ann.sent
        assert (left.reason, left.re) == ("replaced", None)
        assert (queued.position, queued.waiting, queued.re) == (2, 2, 8)

    run(test)


def test_while_queued_create_join_and_watch_are_not_allowed():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby, key=new_key())
        table = lobby.open_table("t", lobby.config.table)
        lobby.request(ann, queue())
        ann.sent.clear()
        for msg in (create(mid=3), P.Join(table_id=table.id, id=4),
                    P.Watch(table_id=table.id, id=5)):
            lobby.request(ann, msg)
        assert ann.sent == [P.Error(code=E.NOT_ALLOWED, request=t, re=i,
                                    message="you wait in the ladder queue: send leave_queue "
                                    "first") for t, i in (("create_table", 3), ("join", 4),
                                                          ("watch", 5))]
        await settle()
        assert ann.session.table is None and table.info().spectators == 0

    run(test)


def test_an_unclaimed_name_may_not_queue_and_a_name_queues_once():
    async def test(lobby: Lobby) -> None:
        plain = arrive(lobby, "Cat")
        lobby.request(plain, queue(mid=3))
        assert plain.sent == [P.Error(code=E.NOT_ALLOWED, request="queue", re=3,
                                      message=UNCLAIMED_IN_QUEUE)]
        key = new_key()
        ann = arrive(lobby, key=key)
        again = arrive(lobby, key=key, address="10.0.0.3")  # a second session of Ann
        lobby.request(ann, queue())
        lobby.request(again, queue(mid=4))
        assert again.sent == [P.Error(
            code=E.NOT_ALLOWED, request="queue", re=4,
            message="'Ann' waits in the queue already, from another connection: a name "
            "queues once (leave_queue there, or wait for its game)")]

    run(test)


# ------------------------------------------------------------------ chat
def test_chat_reaches_every_lobby_client_the_sender_too_and_not_the_players_at_tables():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        bob = arrive(lobby, "Bob", address="10.0.0.2")
        cat = arrive(lobby, "Cat", address="10.0.0.3")
        lobby.request(cat, create(seats=3))
        await settle()
        cat.sent.clear()
        lobby.request(ann, P.Chat(text="hello all", id=2))
        line = P.ChatMessage(name="Ann", seat=None, text="hello all")
        assert ann.sent == [line] and bob.sent == [line] and cat.sent == []

    run(test)


def test_a_chat_line_over_chat_max_is_out_of_range_and_one_at_it_is_said():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        bob = arrive(lobby, "Bob", address="10.0.0.2")
        lobby.request(ann, P.Chat(text="x" * 41, id=3))
        assert ann.sent == [P.Error(code=E.OUT_OF_RANGE, request="chat", re=3, field="text",
                                    message="a chat line holds at most 40 characters")]
        ann.sent.clear()
        lobby.request(ann, P.Chat(text="y" * 40, id=5))
        assert bob.sent == [P.ChatMessage(name="Ann", seat=None, text="y" * 40)]

    run(test, chat_max=40)


def test_a_session_chats_a_burst_then_a_line_a_second_and_a_resume_does_not_refill_it():
    async def test(lobby: Lobby) -> None:
        ann = arrive(lobby)
        for i in range(3):
            lobby.request(ann, P.Chat(text=f"l{i}", id=i))
        ann.sent.clear()
        lobby.request(ann, P.Chat(text="one more", id=9))
        assert ann.sent == [P.Error(
            code=E.RATE_LIMITED, request="chat", re=9,
            message="you chat too fast: 3 lines at once and 0.5 a second on average; this "
            "line was not sent (try again in 2 s)")]
        assert ann.charged == 0 and ann.closed is None
        back = Link(2)
        lobby.hello(back, hello("Ann", token=ann.session.token))
        back.sent.clear()
        lobby.request(back, P.Chat(text="after resume", id=10))
        assert back.sent[0].code == E.RATE_LIMITED
        await trio.sleep(2.0)
        back.sent.clear()
        lobby.request(back, P.Chat(text="later", id=11))
        assert back.sent == [P.ChatMessage(name="Ann", seat=None, text="later")]

    run(test, chat_burst=3, chat_rate=0.5)


def test_the_sessions_of_one_address_share_a_chat_meter_and_its_refusal_costs_no_line():
    async def test(lobby: Lobby) -> None:
        links = [arrive(lobby, f"P{i}", address="10.0.0.9") for i in range(3)]
        far = arrive(lobby, "Far", address="10.0.0.8")
        for i, link in enumerate(links):
            lobby.request(link, P.Chat(text=f"l{i}", id=i))
        for link in links:
            link.sent.clear()
        lobby.request(links[1], P.Chat(text="fourth", id=7))
        assert links[1].sent == [P.Error(
            code=E.RATE_LIMITED, request="chat", re=7,
            message="your address chats too fast: all its connections together may say 3 "
            "lines at once and 1 a second on average; this line was not sent (try again "
            "in 1 s)")]
        far.sent.clear()
        lobby.request(far, P.Chat(text="other address", id=8))
        assert far.sent == [P.ChatMessage(name="Far", seat=None, text="other address")]
        await trio.sleep(1.0)  # the address has a line again; P1 its second of two
        links[1].sent.clear()
        lobby.request(links[1], P.Chat(text="now", id=9))
        assert links[1].sent == [P.ChatMessage(name="P1", seat=None, text="now")]

    run(test, chat_address_burst=3, chat_address_rate=1.0, chat_burst=2, chat_rate=0.01)


# ------------------------------------------------------------------ over real connections
class Admission:
    def welcomed(self, conn: Any) -> None:
        pass

    def flooded(self, address: str | None, now: float) -> float:
        return 0.0


class Server:
    """The parts of ``server.app.Server`` a connection uses, around a real lobby."""

    def __init__(self, config: ServerConfig, nursery: trio.Nursery) -> None:
        self.config = config
        self.admission = Admission()
        self.log_limit = LogLimiter()
        self.lobby = Lobby(config, nursery)

    def forget(self, client: Any) -> None:
        pass


class Peer:
    def __init__(self, stream: trio.abc.Stream, conn: ClientConnection) -> None:
        self.stream = stream
        self.proto = P.Connection(P.CLIENT)
        self.server_side = conn

    async def send(self, *msgs: P.Message) -> None:
        for msg in msgs:
            await self.stream.send_all(self.proto.send(msg))

    async def recv(self) -> Any:
        while True:
            msg = self.proto.next_message()
            if msg is P.NEED_DATA:
                self.proto.receive_data(await self.stream.receive_some(65536))
                continue
            if msg is P.CONNECTION_CLOSED:
                return None
            return replace(msg, seq=None)

    async def until(self, kind: type) -> list[Any]:
        """Messages up to and including the first ``kind``."""
        got = []
        while True:
            msg = await self.recv()
            assert msg is not None, got
            got.append(msg)
            if isinstance(msg, kind):
                return got


def run_wired(test: Any, **settings: Any) -> None:
    """``test(connect, server)``: ``connect(name)`` opens a connection to a real lobby
    and says hello; the clock must not move while the rate is at stake."""
    config = ServerConfig(**{"ping_interval": 3600.0, "pong_timeout": 3600.0, **settings})

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            server = Server(config, nursery)

            async def connect(name: str, token: str | None = None) -> tuple[Peer, P.Welcome]:
                ours, theirs = trio.testing.memory_stream_pair()
                conn = ClientConnection(server, theirs, next(_cids))  # type: ignore[arg-type]
                nursery.start_soon(conn.run)
                peer = Peer(ours, conn)
                await peer.send(hello(name, token=token))
                [*_, welcome] = await peer.until(P.Welcome)
                return peer, welcome

            await test(connect, server)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_the_hello_is_not_counted_and_twice_the_rate_gets_through_then_one_rate_limited():
    async def test(connect: Any, server: Server) -> None:
        ann, _ = await connect("Ann")
        await ann.send(*[P.Ping(nonce=i) for i in range(7)])
        got = [await ann.recv() for _ in range(7)]
        assert got == [P.Pong(nonce=i) for i in range(6)] + [P.Error(
            code=E.RATE_LIMITED, message="more than 3 messages a second: messages are dropped")]
        assert trio.current_time() == 0.0

    run_wired(test, rate_limit=3)


def test_a_wrong_reveal_is_counted_on_arrival_and_charged_once_more_after_its_answer():
    async def test(connect: Any, server: Server) -> None:
        ann, _ = await connect("Ann")
        await ann.send(create(seats=2))
        [*_, seated] = await ann.until(P.Seated)
        bob, _ = await connect("Bob")
        entropy = "b" * 32
        digest = hashlib.sha256(bytes.fromhex(entropy)).hexdigest()
        await bob.send(P.Join(table_id=seated.table.table_id, entropy_hash=digest, id=1))
        await bob.until(P.Seated)
        await ann.send(P.Start(id=3))
        await bob.until(P.RevealRequest)
        # of Bob's 4 tokens the join took 1, the wrong reveal 1 on arrival and 1 after
        await bob.send(P.Reveal(entropy="c" * 32, id=2))
        [mismatch] = await bob.until(P.Error)
        assert (mismatch.code, mismatch.field, mismatch.re) == (E.REVEAL_MISMATCH, "entropy", 2)
        await bob.send(P.Ping(nonce=5), P.Ping(nonce=6))
        assert [await bob.recv(), await bob.recv()] == [P.Pong(nonce=5), P.Error(
            code=E.RATE_LIMITED, message="more than 2 messages a second: messages are dropped")]
        assert trio.current_time() == 0.0

    run_wired(test, rate_limit=2)


def test_an_accepted_commit_costs_nothing_and_a_refused_one_is_charged_after_its_answer():
    async def test(connect: Any, server: Server) -> None:
        ann, _ = await connect("Ann")
        await ann.send(P.CreateTable(options=P.TableOptions(seats=2), id=1))
        await ann.until(P.Seated)
        await ann.send(P.AddBot(strategy="easy", id=2), P.Start(id=3))
        hand = [m for m in await ann.until(P.TurnStarted) if isinstance(m, P.HandDealt)][0]
        # of 4 tokens: create_table, add_bot, start took 3; the commit takes none
        await ann.send(P.Commit(round=1, turn=1, card=hand.cards[0], id=4))
        await ann.until(P.CommitAccepted)
        await ann.send(P.Ping(nonce=1))
        await ann.until(P.Pong)  # the last token
        await ann.send(P.Commit(round=1, turn=1, card=hand.cards[1], id=5))  # too late
        [*_, refused] = await ann.until(P.Error)
        assert (refused.request, refused.re) == ("commit", 5)
        await ann.send(P.Ping(nonce=2))  # the refused commit left a debt: dropped
        got = await ann.until(P.Error)
        assert not any(isinstance(m, P.Pong) for m in got)
        assert got[-1] == P.Error(
            code=E.RATE_LIMITED, message="more than 2 messages a second: messages are dropped")
        assert trio.current_time() == 0.0

    run_wired(test, rate_limit=2, table=TableSettings(step_delay=0.0))


def test_a_goodbye_ends_the_connection_and_leaves_the_session_to_resume():
    async def test(connect: Any, server: Server) -> None:
        ann, welcome = await connect("Ann")
        await ann.send(P.Goodbye(reason="quit"))
        assert await ann.recv() is None
        session = server.lobby.sessions[welcome.token]
        assert session.client is None and session.lost_at == trio.current_time()
        again, back = await connect("Ann", token=welcome.token)
        assert (back.resumed, back.name, back.token) == (True, "Ann", welcome.token)

    run_wired(test)


def test_a_replaced_connection_is_told_goodbye_replaced_and_closed():
    async def test(connect: Any, server: Server) -> None:
        ann, welcome = await connect("Ann")
        _, back = await connect("Ann", token=welcome.token)
        assert back.resumed
        assert await ann.recv() == P.Goodbye(
            reason="replaced", message="this session connected again from elsewhere")
        assert await ann.recv() is None

    run_wired(test)
