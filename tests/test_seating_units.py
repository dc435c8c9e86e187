"""The lobby's side of the ladder queue against a stand-in lobby, on a mock clock
(issue 43): who may queue and what a refusal says, the ``queued`` answer, a second
``queue``, ``leave_queue``, the table a queue forms (its name, settings, bots, the
address its bots think for, the order players sit down), filling with bots on time,
a full server, the refreshed ``queued`` at most once a second, and a table that
cannot be opened. With a real server: tests/test_ladder_queue_server.py,
tests/test_ladder_queue_refresh.py."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server.config import ServerConfig
from nimmt.server.ladder.desk import LadderDesk
from nimmt.server.lobby.seating import QUEUED_EVERY, UNCLAIMED_IN_QUEUE, QueueDesk
from nimmt.server.sessions.session import Session

E = P.ErrorCode


class Link:
    def __init__(self, address: str | None) -> None:
        self.address = address
        self.sent: list[Any] = []

    def send(self, msg: Any) -> bool:
        self.sent.append((trio.current_time(), msg))
        return True


class FakeTable:
    def __init__(self, tid: str) -> None:
        self.id = tid
        self.closed = False


class FakeLobby:
    """Opens tables on paper; records who entered which, and who they were made for."""

    def __init__(self, nursery: trio.Nursery, config: ServerConfig) -> None:
        self.config = config
        self.nursery = nursery
        self.ladder = LadderDesk()
        self.tables: dict[str, FakeTable] = {}
        self.stopping = False
        self.opened: list[tuple[float, str, Any, dict[str, Any]]] = []
        self.entered: list[tuple[str, str, P.Join]] = []
        self.made_for: list[tuple[str, str, bool]] = []
        self.refuse = ""
        self.broken = False

    def open_table(self, name: str, settings: Any, **kwargs: Any) -> FakeTable:
        if self.broken:
            raise RuntimeError("a bug")
        table = FakeTable(f"T{len(self.tables) + 1}")
        self.tables[table.id] = table
        self.opened.append((trio.current_time(), name, settings, kwargs))
        return table

    def enter(self, session: Session, table: FakeTable, msg: P.Message) -> str | None:
        self.entered.append((session.name, table.id, msg))
        return None

    def creation_refused(self, session: Session, *, by_session: bool = True) -> str:
        return self.refuse

    def created_for(self, table: FakeTable, session: Session, *, filled: bool) -> None:
        self.made_for.append((table.id, session.name, filled))


_sids = iter(range(1, 10_000))


def player(name: str, address: str | None = "10.0.0.1", *, claimed: bool = True,
           kind: str = "human") -> Session:
    session = Session(next(_sids), "t", name, kind)
    session.claimed = claimed
    session.client = Link(address)  # type: ignore[assignment]
    return session


def said(session: Session) -> list[Any]:
    return [m for _, m in session.client.sent]  # type: ignore[union-attr]


def run(test: Any, **settings: Any) -> None:
    config = ServerConfig(**settings)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            lobby = FakeLobby(nursery, config)
            desk = QueueDesk(lobby)
            await test(desk, lobby)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def queue(seats: int = 2, fill_after: float | None = None, mid: int = 1, **more: Any) -> P.Queue:
    return P.Queue(seats=seats, fill_after=fill_after, id=mid, **more)


# ------------------------------------------------------------------ who may queue
def test_only_claimed_players_at_no_table_queue_and_a_name_queues_once():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        cases = [(player("Ann", claimed=False), UNCLAIMED_IN_QUEUE),
                 (player("Eve", kind="spectator"),
                  "a spectator cannot play: connect as a human or a bot to queue")]
        seated = player("Sat")
        seated.table = FakeTable("T0")  # type: ignore[assignment]
        cases.append((seated, "you are at a table: leave it first, then queue"))
        for session, text in cases:
            desk.request(session, queue(mid=3))
            assert said(session) == [P.Error(code=E.NOT_ALLOWED, request="queue", re=3,
                                             message=text)], session.name
            assert not desk.queued(session)
        bob = player("Bob")
        desk.request(bob, queue())
        twin = player("BOB", "10.0.0.2")
        desk.request(twin, queue(mid=4))
        assert said(twin) == [P.Error(
            code=E.NOT_ALLOWED, request="queue", re=4,
            message="'BOB' waits in the queue already, from another connection: a name queues "
            "once (leave_queue there, or wait for its game)")]

    run(test)


def test_an_unknown_bot_level_is_an_error_on_its_field():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        ann = player("Ann")
        desk.request(ann, queue(bot_level="nosuchbot", mid=2))
        [error] = said(ann)
        assert (error.code, error.field, error.re) == (E.UNKNOWN_STRATEGY, "bot_level", 2)
        assert not desk.queued(ann)

    run(test)


def test_a_player_who_may_cause_no_more_tables_is_told_why_in_the_queues_terms():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        lobby.refuse = "too many tables"
        ann, bob = player("Ann"), player("Bob")
        desk.request(ann, queue(fill_after=5.0, mid=2))
        desk.request(bob, queue(mid=3))
        assert said(ann) == [P.Error(
            code=E.NOT_ALLOWED, request="queue", re=2, field="fill_after",
            message="too many tables; a ladder table filled with bots for you counts as one you "
            "created (queue with fill_after nil to wait for players)")]
        assert said(bob) == [P.Error(
            code=E.NOT_ALLOWED, request="queue", re=3, field=None,
            message="too many tables; a ladder table counts as one caused from each of its "
            "players' addresses")]
        assert not desk.queued(ann) and not desk.queued(bob)

    run(test)


# ------------------------------------------------------------------ queued, left
def test_queued_says_the_place_and_a_second_queue_replaces_the_first():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        ann, bob = player("Ann"), player("Bob", "10.0.0.2")
        desk.request(ann, queue(seats=3, fill_after=30.0, mid=5))
        assert said(ann) == [P.Queued(seats=3, position=1, waiting=1, fill_in=30.0,
                                      server_full=False, re=5)]
        desk.request(bob, queue(seats=3, mid=6))
        assert said(bob) == [P.Queued(seats=3, position=2, waiting=2, fill_in=None,
                                      server_full=False, re=6)]
        desk.request(ann, queue(seats=4, mid=7))
        assert said(ann)[1:] == [P.QueueLeft(reason="replaced"),
                                 P.Queued(seats=4, position=1, waiting=1, fill_in=None,
                                          server_full=False, re=7)]
        assert desk.queued_from("10.0.0.1", bob) == 1 and desk.queued_from("10.0.0.1", ann) == 0
        assert desk.queued_from("10.0.0.2", ann) == 1

    run(test)


def test_leave_queue_takes_the_player_out_and_again_is_an_error():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        ann = player("Ann")
        desk.request(ann, queue())
        desk.leave(ann, P.LeaveQueue(id=8))
        assert said(ann)[-1] == P.QueueLeft(reason="left", re=8) and not desk.queued(ann)
        assert desk.queued_from("10.0.0.1", player("Bob")) == 0
        desk.leave(ann, P.LeaveQueue(id=9))
        assert said(ann)[-1] == P.Error(
            code=E.NOT_ALLOWED, request="leave_queue", re=9,
            message="you are not in the queue (if your table was formed meanwhile, you are "
            "seated: leave the table instead)")

    run(test)


# ------------------------------------------------------------------ tables formed
def test_players_of_one_kind_get_a_rated_table_and_sit_down_in_the_order_they_queued():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        ann, bob = player("Ann", "10.0.0.1"), player("Bob", "10.0.0.2")
        hash_ = "ab" * 32
        desk.request(ann, queue(seats=2, entropy="a1b2"))
        desk.request(bob, queue(seats=2, entropy_hash=hash_))
        await trio.sleep(0.1)
        [(at, name, settings, kwargs)] = lobby.opened
        assert (at, name) == (0.0, "Ladder, 2 seats")
        assert settings.rated and not settings.coached and settings.seats == 2
        assert settings.step_delay >= lobby.config.ladder_step_delay
        assert settings.unwatched_step_delay == lobby.config.ladder_step_delay
        assert kwargs == {"autostart": True, "bots": 0, "bot_level": None,
                          "group": "10.0.0.1"}  # the first player's address
        assert lobby.entered == [
            ("Ann", "T1", P.Join(table_id="T1", entropy="a1b2")),
            ("Bob", "T1", P.Join(table_id="T1", entropy_hash=hash_))]
        assert lobby.made_for == [("T1", "Ann", False), ("T1", "Bob", False)]
        assert not desk.queued(ann) and not desk.queued(bob)
        assert desk.queued_from("10.0.0.1", bob) == 0

    run(test)


def test_a_player_alone_gets_bots_once_its_wait_runs_out_and_not_before():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        await trio.sleep(1.0)
        ann = player("Ann", "10.0.0.7")
        desk.request(ann, queue(seats=3, fill_after=5.0, bot_level="easy"))
        await trio.sleep(4.9)
        assert lobby.opened == []
        await trio.sleep(0.2)
        [(at, name, settings, kwargs)] = lobby.opened
        assert (at, name) == (6.0, "Ladder, 3 seats")
        assert kwargs == {"autostart": True, "bots": 2, "bot_level": "easy",
                          "group": "10.0.0.7"}
        assert lobby.made_for == [("T1", "Ann", True)]
        assert [e[:2] for e in lobby.entered] == [("Ann", "T1")]

    run(test)


def test_a_full_server_keeps_the_queue_waiting_and_forms_the_table_when_one_closes():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        lobby.tables["T0"] = busy = FakeTable("T0")
        ann, bob = player("Ann"), player("Bob")
        desk.request(ann, queue())
        desk.request(bob, queue())
        assert said(bob)[-1].server_full is True
        await trio.sleep(10.0)
        assert lobby.opened == []
        busy.closed = True
        desk.changed()
        await trio.sleep(0.1)
        assert [o[1] for o in lobby.opened] == ["Ladder, 2 seats"]
        # the one waiting longer was told the server is no longer full? it was seated
        assert [e[0] for e in lobby.entered] == ["Ann", "Bob"]

    run(test, max_tables=1)


def test_a_stopping_server_forms_no_table():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        lobby.stopping = True
        ann, bob = player("Ann"), player("Bob")
        desk.request(ann, queue())
        desk.request(bob, queue())
        await trio.sleep(5.0)
        assert lobby.opened == [] and said(bob)[-1].server_full is True

    run(test)


def test_those_still_waiting_are_told_their_new_place_at_most_once_a_second():
    assert QUEUED_EVERY == 1.0

    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        ann, bob, cy = player("Ann"), player("Bob"), player("Cy")
        for p in (ann, bob, cy):
            desk.request(p, queue(seats=4, fill_after=100.0))
        await trio.sleep(0.5)
        # Bob heard at once that Cy came (one more waiting); the next news waits a second
        assert said(bob)[-1] == P.Queued(seats=4, position=2, waiting=3, fill_in=100.0,
                                         server_full=False)
        desk.remove(ann)  # Bob and Cy move up
        await trio.sleep(0.4)
        assert len(said(bob)) == 2
        await trio.sleep(0.2)
        assert bob.client.sent[-1] == (1.0, P.Queued(  # type: ignore[union-attr]
            seats=4, position=1, waiting=2, fill_in=99.0, server_full=False))
        assert cy.client.sent[-1] == (1.0, P.Queued(  # type: ignore[union-attr]
            seats=4, position=2, waiting=2, fill_in=99.0, server_full=False))
        desk.remove(bob)  # Cy moves up again: told at 2.0 s, not before
        await trio.sleep(0.7)
        assert cy.client.sent[-1][0] == 1.0  # type: ignore[union-attr]
        await trio.sleep(0.5)
        assert cy.client.sent[-1] == (2.0, P.Queued(  # type: ignore[union-attr]
            seats=4, position=1, waiting=1, fill_in=98.0, server_full=False))
        await trio.sleep(10.0)  # nothing changed: nothing more
        assert cy.client.sent[-1][0] == 2.0  # type: ignore[union-attr]

    run(test)


def test_a_table_that_cannot_be_opened_tells_its_players_and_the_queue_goes_on():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        lobby.broken = True
        ann, bob = player("Ann"), player("Bob")
        desk.request(ann, queue())
        desk.request(bob, queue())
        await trio.sleep(0.1)
        for p in (ann, bob):
            assert said(p)[-1] == P.Error(
                code=E.INTERNAL_ERROR, request="queue", message="a bug in the server: your "
                "ladder table could not be opened; queue again")
            assert not desk.queued(p)
        lobby.broken = False
        cy, dee = player("Cy"), player("Dee")
        desk.request(cy, queue())
        desk.request(dee, queue())
        await trio.sleep(0.1)
        assert [e[0] for e in lobby.entered] == ["Cy", "Dee"]

    run(test)


def test_the_pace_is_the_players_or_the_servers_least_whichever_is_slower_and_bots_its_level():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        slow, fast = player("Ann", "10.0.0.1"), player("Bob", "10.0.0.2")
        desk.request(slow, queue(seats=2, fill_after=1.0,
                                 options=P.TableOptions(step_delay=2.0)))
        desk.request(fast, queue(seats=2, fill_after=1.0,
                                 options=P.TableOptions(step_delay=0.0)))
        await trio.sleep(1.5)
        paces = {o[2].step_delay: o[3] for o in lobby.opened}
        assert sorted(paces) == [0.5, 2.0]  # each alone (two kinds), each filled with a bot
        assert paces[2.0]["bot_level"] == paces[0.5]["bot_level"] == "hard"  # the server's
        assert paces[0.5]["group"] == "10.0.0.2" and paces[2.0]["group"] == "10.0.0.1"
        assert {o[2].unwatched_step_delay for o in lobby.opened} == {0.5}

    run(test, ladder_step_delay=0.5, bot_level="hard")


def test_a_server_with_room_for_three_more_tables_opens_exactly_three():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        lobby.tables["T0"] = FakeTable("T0")  # one of the 4 open
        lobby.tables["Tx"] = closed = FakeTable("Tx")
        closed.closed = True  # a closed one takes no room
        people = [player(f"P{i}", f"10.0.1.{i}") for i in range(10)]
        for p in people:
            desk.request(p, queue(seats=2))
        await trio.sleep(0.1)
        assert len(lobby.opened) == 3
        assert [e[0] for e in lobby.entered] == [f"P{i}" for i in range(6)]
        assert said(people[9])[-1].server_full is True  # told the server is full now

    run(test, max_tables=4)


def test_a_server_over_its_table_cap_is_full_and_one_with_room_for_one_is_not():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        for tid in ("A", "B"):
            lobby.tables[tid] = FakeTable(tid)
        ann = player("Ann")
        desk.request(ann, queue(seats=3))
        assert said(ann)[-1].server_full is True  # 2 open, the cap lowered to 1
        await trio.sleep(2.0)  # the queue's task looks again: still full
        assert [m.server_full for m in said(ann)] == [True]
        lobby.config = ServerConfig(max_tables=3)  # room for one more
        bob = player("Bob")
        desk.request(bob, queue(seats=3))
        assert said(bob)[-1].server_full is False

    run(test, max_tables=1)


def test_a_name_queued_from_a_newer_connection_refuses_the_older_one_too():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        older = player("BOB", "10.0.0.2")  # its session began first (a smaller id)
        newer = player("Bob")
        desk.request(newer, queue())
        desk.request(older, queue(mid=4))
        assert said(older)[0].code == E.NOT_ALLOWED and not desk.queued(older)

    run(test)


def test_entries_are_counted_by_their_exact_address():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        desk.request(player("Ann", "10.0.0.1"), queue(seats=4))
        desk.request(player("Bob", "10.0.0.9"), queue(seats=4))
        me = player("Cy", "10.0.0.5")
        assert desk.queued_from("10.0.0.5", me) == 0
        assert desk.queued_from("10.0.0.9", me) == 1

    run(test)


def test_a_refusal_that_says_much_is_cut_at_500_characters():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        lobby.refuse = "x" * 600
        ann = player("Ann")
        desk.request(ann, queue())
        assert said(ann)[0].message == "x" * 500

    run(test)


def test_the_wait_left_before_bots_is_told_under_a_second_and_never_below_zero():
    async def test(desk: QueueDesk, lobby: FakeLobby) -> None:
        ann, bob, cy = player("Ann"), player("Bob"), player("Cy")
        desk.request(ann, queue(seats=4, fill_after=1.6))
        desk.request(bob, queue(seats=4, fill_after=30.0))
        desk.request(cy, queue(seats=4, fill_after=30.0))
        await trio.sleep(0.5)
        desk.remove(bob)  # Ann's standing changes: told at 1.0 s, 0.6 s before her bots
        await trio.sleep(0.55)
        at, queued = ann.client.sent[-1]  # type: ignore[union-attr]
        assert (at, queued.waiting, queued.server_full) == (1.0, 2, True)
        assert queued.fill_in == pytest.approx(0.6)
        await trio.sleep(0.95)  # 2.0: her bots are due, but the server is full
        desk.remove(cy)
        await trio.sleep(0.1)
        at, queued = ann.client.sent[-1]  # type: ignore[union-attr]
        assert (at, queued.waiting, queued.fill_in) == (2.0, 1, 0.0)

    run(test, max_tables=0)
