"""Issue 22, "Must hold": a model-based test of the tables (hypothesis stateful testing).

The real ``Lobby``, ``Table`` and ``Match`` are driven without trio's scheduler: the
clock is the test's, each table's actor is stepped by hand (``Table.next_input``,
``Table.step``), so that inputs can wait in a table's queue while other things happen,
and the bots' turns to think are answered whenever the test decides. Random
interleavings of connecting, create, join, watch, leave, drop, resume, decisions,
bot answers, the lobby feed and time; after every step:

* a member is connected if and only if its session has a live connection and is
  linked to that table (checked when that table has handled its inputs);
* a session is at one table at most, and a member's session is linked to it;
* a table with a connected human in a seat has a host;
* ``next_wake`` is finite while a seat still has to play (and no bot is thinking);
* a table that nobody is connected to is closed after ``abandon_after`` (and
  ``keep_finished``, once over);
* no hand, private request or commit reaches anyone but its seat: not another seat,
  not a spectator, not the lobby (every message goes through the protocol of both
  ends: a client in state ``watching`` or ``lobby`` cannot receive a private one, and
  one that is received holds the cards dealt to the seat that client was given).
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import trio
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from nimmt import protocol as P
from nimmt.bots import make_strategy
from nimmt.engine import AwaitingCommits, AwaitingRowChoice, AwaitingTieChoice, Deal
from nimmt.server.lobby.lobby import Lobby
from nimmt.server.game.io import BotDecided
from nimmt.server.sessions.session import Session
from nimmt.server.tables.table import Table
from nimmt.server.game.translate import random_deal
from server_helpers import ScriptClient, make_config

ABANDON, KEEP = 5.0, 5.0
PRIVATE = {"hand_dealt", "commit_accepted", "row_choice_request", "tie_choice_request",
           "draft_pick_request"}
OPTIONS = P.TableOptions(seats=3, rounds=1, point_limit=None, step_delay=2.0, turn_time=4.0,
                         choice_time=4.0, grace_time=2.0)


def run_sync(coro: Any) -> None:
    """Run a coroutine that never waits (a table without a database never does)."""
    try:
        coro.send(None)
    except StopIteration:
        return
    raise AssertionError("a table without a database awaited something")


class Link:
    """A connection as the lobby and the tables see it (``session.Link``): each message
    goes through the protocol of both ends, as on a real connection. What the
    server's side may not send in its state is dropped (as ``ClientConnection`` does);
    what it sends, the client's side must accept."""

    def __init__(self, cid: int, model: TableModel, hello: P.Hello) -> None:
        self.cid = cid
        self.session: Session | None = None
        self.address = "127.0.0.1"
        self.live = True
        self.model = model
        self.server = P.Connection(P.SERVER)
        self.client = P.Connection(P.CLIENT)
        self.server.receive_data(self.client.send(hello))
        assert isinstance(self.server.next_message(), P.Hello)
        self.seat: int | None = None  # as this client was told
        self.table_id: str | None = None

    def send(self, msg: Any) -> bool:
        assert self.live, f"{msg.TYPE} sent on a closed connection"
        try:
            data = self.server.send(msg)
        except P.LocalProtocolError:
            return False
        self.client.receive_data(data)
        received = self.client.next_message()
        self.model.delivered(self, received)
        return True

    def close(self, reason: str, text: str = "") -> None:  # replaced by a newer one
        self.send(P.Goodbye(reason=reason, message=text[:500]))
        self.live = False

    def charge(self) -> None:
        pass

    def count(self) -> bool:
        return True


class TableModel(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0
        self._real_time = trio.current_time
        trio.current_time = lambda: self.now  # type: ignore[assignment]
        nursery = SimpleNamespace(start_soon=lambda *a, **k: None,
                                  cancel_scope=SimpleNamespace(cancel_called=False))
        config = make_config(abandon_after=ABANDON, keep_finished=KEEP, reconnect_grace=6.0,
                             max_tables=100, tables_per_session=100, tables_per_address=1000)
        self.lobby = Lobby(config, nursery)  # type: ignore[arg-type]
        deals = random.Random(0)  # the same deals, whatever the run
        self.lobby.dealer = lambda options, pending, view, rng: random_deal(
            options, pending, view, deals)
        self.links: list[Link] = []
        self.sessions: dict[int, Session] = {}  # by sid
        self.tables: list[Table] = []  # every table opened (closed ones too)
        self.thinks: list[tuple[Table, Any]] = []
        self.empty_since: dict[str, float] = {}
        self.cids = 0
        self.ids = 0

    def teardown(self) -> None:
        trio.current_time = self._real_time  # type: ignore[assignment]

    # ------------------------------------------------------------------ plumbing
    def delivered(self, link: Link, msg: Any) -> None:
        """No hand, private request or commit reaches anyone but its seat's player."""
        ScriptClient._track(link, msg)  # type: ignore[arg-type]  # its seat and table, as told
        hand = self._hand(link)
        if msg.TYPE == "snapshot":
            assert msg.seat == link.seat
            assert set(msg.hand) <= hand and (msg.commit is None or msg.commit in hand)
            return
        if msg.TYPE not in PRIVATE:
            return
        assert link.session is not None and link.session.kind != "spectator", msg
        if msg.TYPE == "hand_dealt":
            assert set(msg.cards) == hand, (link.seat, msg)
        elif msg.TYPE == "commit_accepted":
            assert msg.card in hand
        else:
            assert link.seat is not None, msg

    def _hand(self, link: Link) -> set[int]:
        """The cards dealt to the seat ``link`` was told it sits in, this round."""
        if link.seat is None:
            return set()
        table = next(t for t in self.tables if t.id == link.table_id)
        deals = [h for h in table.match._history if isinstance(h, Deal)]
        return set(deals[-1].hands[link.seat]) if deals else set()

    def _open_tables(self) -> list[Table]:
        return [t for t in self.tables if not t.closed]

    def _pick(self, data: st.DataObject, items: list[Any]) -> Any:
        return items[data.draw(st.integers(0, len(items) - 1))]

    def _request(self, link: Link, msg: P.Message) -> None:
        self.ids += 1
        self.lobby.request(link, replace(msg, id=self.ids))
        self._collect()

    def _collect(self) -> None:
        """Tables opened meanwhile (their actor's first wake), thinks asked for."""
        for table in self.lobby.tables.values():
            if table not in self.tables:
                self.tables.append(table)
                table.match._rng = random.Random(len(self.tables))  # the bots' seeds
                run_sync(table.step(None, wake=True))
        for table in self.tables:
            while table._thinks:
                self.thinks.append((table, table._thinks.popleft()))

    def _live(self) -> list[Link]:
        return [link for link in self.links if link.live and link.session is not None]

    # ------------------------------------------------------------------ rules
    @initialize()
    def a_game_and_a_table_waiting(self) -> None:
        """Ann plays with two bots; Bob waits at his table for one more player; Cy
        and Eve (a spectator) are in the lobby."""
        for kind in ("human", "human", "human", "spectator"):
            self.connect(kind)
        ann, bob = self.links[0], self.links[1]
        for msg in (P.CreateTable(options=OPTIONS), P.AddBot(strategy="heuristic"),
                    P.AddBot(strategy="heuristic"), P.Start()):
            self._request(ann, msg)
        self._request(bob, P.CreateTable(options=OPTIONS))
        self._request(bob, P.AddBot(strategy="heuristic"))

    @rule(kind=st.sampled_from(["human", "human", "spectator", "bot"]))
    def connect(self, kind: str) -> None:
        self.cids += 1
        hello = P.Hello(protocol=P.PROTOCOL_VERSION, name=f"p{self.cids}", kind=kind)
        link = Link(self.cids, self, hello)
        self.links.append(link)
        session = self.lobby.hello(link, hello)
        assert session is not None
        self.sessions[session.sid] = session

    @precondition(lambda self: self._live())
    @rule(data=st.data())
    def drop(self, data: st.DataObject) -> None:
        self.drop_link(self._pick(data, self._live()))

    @precondition(lambda self: self._live())
    @rule(data=st.data())
    def flaky_link(self, data: st.DataObject) -> None:
        """A connection drops and its session comes back on a new one at once."""
        link = self._pick(data, self._live())
        session = link.session
        self.drop_link(link)
        self.resume_session(session)

    def drop_link(self, link: Link) -> None:
        link.live = False
        self.lobby.disconnected(link)

    def resume_session(self, session: Session) -> None:
        self.cids += 1
        hello = P.Hello(protocol=P.PROTOCOL_VERSION, name=session.name, kind=session.kind,
                        token=session.token)
        link = Link(self.cids, self, hello)
        self.links.append(link)
        self.lobby.hello(link, hello)
        if link.session is not None:
            self.sessions[link.session.sid] = link.session

    @precondition(lambda self: any(s.client is None for s in self.sessions.values()))
    @rule(data=st.data())
    def resume(self, data: st.DataObject) -> None:
        self.resume_session(self._pick(data, [s for s in self.sessions.values()
                                              if s.client is None]))

    @precondition(lambda self: self._live())
    @rule(data=st.data())
    def create(self, data: st.DataObject) -> None:
        self._request(self._pick(data, self._live()), P.CreateTable(options=OPTIONS))

    @precondition(lambda self: self._live())
    @rule(data=st.data(), bots=st.integers(1, 2))
    def create_with_bots(self, data: st.DataObject, bots: int) -> None:
        """A player creates a table, adds bots and, once it is full, starts: all sent
        at once (the table takes them in order)."""
        free = [link for link in self._live() if link.session is not None
                and link.session.table is None]
        if not free:
            return
        link = self._pick(data, free)
        for msg in [P.CreateTable(options=OPTIONS)] + [P.AddBot(strategy="heuristic")] * bots \
                + [P.Start()] * (bots == 2):
            self._request(link, msg)

    @precondition(lambda self: self._live() and self._open_tables())
    @rule(data=st.data(), watch=st.booleans())
    def join_or_watch(self, data: st.DataObject, watch: bool) -> None:
        link = self._pick(data, self._live())
        table = self._pick(data, self._open_tables())
        msg = P.Watch(table_id=table.id) if watch else P.Join(table_id=table.id)
        self._request(link, msg)

    @precondition(lambda self: self._live())
    @rule(data=st.data(), what=st.sampled_from(["leave", "add_bot", "start", "stale"]))
    def table_request(self, data: st.DataObject, what: str) -> None:
        link = self._pick(data, self._live())
        if link.session is None or link.session.table is None:
            return
        msg = {"leave": P.Leave(), "add_bot": P.AddBot(strategy="heuristic"),
               "start": P.Start(),
               "stale": P.Commit(round=1, turn=1, card=1)}[what]
        self._request(link, msg)

    @precondition(lambda self: self._live())
    @rule(data=st.data())
    def decide(self, data: st.DataObject) -> None:
        """A seated player makes the decision its table awaits from it (as the game
        stands: it may not have been shown yet, and is then held or refused)."""
        players = [link for link in self._live() if link.session is not None
                   and link.session.seat is not None and link.session.table is not None
                   and link.session.table.match._game is not None]
        if not players:
            return
        link = self._pick(data, players)
        session = link.session
        assert session is not None and session.table is not None and session.seat is not None
        game = session.table.match._game
        pending = game.pending
        seat = session.seat
        if isinstance(pending, AwaitingCommits) and seat in pending.waiting:
            hand = game.view(seat).hand
            if hand:
                self._request(link, P.Commit(round=pending.round, turn=pending.turn,
                                             card=self._pick(data, list(hand))))
        elif isinstance(pending, AwaitingRowChoice) and pending.seat == seat:
            self._request(link, P.ChooseRow(round=game.round, turn=game.turn,
                                            row=data.draw(st.integers(0, 3))))
        elif isinstance(pending, AwaitingTieChoice) and pending.seat == seat:
            self._request(link, P.ChooseTie(round=game.round, turn=game.turn,
                                            place=pending.places[0]))

    @precondition(lambda self: self.thinks)
    @rule(data=st.data())
    def bot_answers(self, data: st.DataObject) -> None:
        table, think = self.thinks.pop(data.draw(st.integers(0, len(self.thinks) - 1)))
        spec = think.strategy or table.match.settings.fallback
        decision = make_strategy(spec, think.seed or 0).decide(think.view)
        table._put(None, BotDecided(think.seat, think.key, decision))

    @precondition(lambda self: any(t._inputs for t in self.tables))
    @rule(data=st.data())
    def table_takes_an_input(self, data: st.DataObject) -> None:
        table = self._pick(data, [t for t in self.tables if t._inputs])
        run_sync(table.step(table.next_input()))
        self._collect()

    @rule()
    def every_table_catches_up(self) -> None:
        for table in list(self.tables):
            while table._inputs:
                run_sync(table.step(table.next_input()))
        self._collect()

    @rule()
    def lobby_feed(self) -> None:
        self.lobby.feed_once()

    @rule(dt=st.sampled_from([0.5, 1.0, 3.0, 10.0]))
    def time_passes(self, dt: float) -> None:
        """Each table's actor wakes when its match asked to (bots answer at once
        meanwhile, as the cheap ones do), after it has taken its waiting inputs."""
        self.every_table_catches_up()
        end = self.now + dt
        for _ in range(1000):
            while self.thinks:
                self.bot_answers_now()
            self.every_table_catches_up()
            wakes = [t.match.next_wake() for t in self._open_tables()]
            wake = min(wakes, default=math.inf)
            if wake > end:
                break
            self.now = max(self.now, wake)
            for table in self._open_tables():
                if table.match.next_wake() <= self.now:
                    run_sync(table.step(None))
            self._collect()
        self.now = end
        self.check_abandoned()

    def bot_answers_now(self) -> None:
        table, think = self.thinks.pop(0)
        spec = think.strategy or table.match.settings.fallback
        table._put(None, BotDecided(think.seat, think.key,
                                    make_strategy(spec, think.seed or 0).decide(think.view)))

    # ------------------------------------------------------------------ invariants
    @invariant()
    def connected_iff_a_live_connection_links_it(self) -> None:
        for table in self._open_tables():
            if table._inputs:
                continue  # the actor has not taken them yet
            for sid, member in table.match.members.items():
                session = self.sessions[sid]
                linked = session.client is not None and session.table is table
                assert member.connected == linked, (table, member, session.client,
                                                    session.table)

    @invariant()
    def a_session_is_at_one_table_at_most(self) -> None:
        seen: dict[int, Table] = {}
        for table in self._open_tables():
            for sid in table.match.members:
                assert sid not in seen, f"session {sid} at {seen.get(sid)} and {table}"
                seen[sid] = table
                assert self.sessions[sid].table is table
        for session in self.sessions.values():
            if session.table is not None:
                assert session.table in self.tables

    @invariant()
    def a_table_with_a_connected_player_has_a_host(self) -> None:
        for table in self._open_tables():
            match = table.match
            seated = [m for m in match.members.values() if m.seat is not None
                      and m.connected and m.kind == "human"]
            if seated:
                assert match.host is not None, table

    @invariant()
    def a_seat_that_has_to_play_wakes_its_table(self) -> None:
        for table in self._open_tables():
            match = table.match
            game = match._game
            if match.status != "playing" or game is None or game.pending is None:
                continue
            if any(t is table for t, _ in self.thinks) or match._asked:
                continue
            assert match.next_wake() < math.inf, table

    def check_abandoned(self) -> None:
        for table in self._open_tables():
            if table._inputs or any(m.connected for m in table.match.members.values()):
                self.empty_since.pop(table.id, None)
                continue
            since = self.empty_since.setdefault(table.id, self.now)
            assert self.now <= since + ABANDON + KEEP + 10.0 + 1.0, \
                f"{table} nobody connected since {since}, still open at {self.now}"


TableModel.TestCase.settings = settings(
    max_examples=60, stateful_step_count=50, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
test_the_tables_keep_one_truth = TableModel.TestCase
