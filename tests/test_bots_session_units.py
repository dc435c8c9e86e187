"""A network bot's session (``nimmt.bots.session``) on a scripted connection and virtual
time: how it takes a seat (join, create, look for one, queue), fills and starts a table
it hosts, what it does at a table nobody starts (docs/BOTS.md: says what it waits for
after 1 s, acts after ``table_wait``), how it answers what its seat is asked (its
player's answer, the fallback when the player fails, nothing when it declines), what
it keeps of each game, and when it stops and why (tests/test_bots_reconnect.py: the
reconnect schedule)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from test_client_support import seat, table, welcome
from virtual_loop import run_virtual

from nimmt import protocol as wire
from nimmt.bots import session as bot_session
from nimmt.bots.basic import HeuristicStrategy
from nimmt.bots.bridge import PlayerGaveUp
from nimmt.bots.players import Ask
from nimmt.bots.session import FILL_AFTER, TABLE_WAIT, BotResult, BotSession, LadderAsk
from nimmt.client.link import LinkLost, LinkRestored
from nimmt.client.net import SendFailed
from nimmt.engine import ChooseRow, Commit
from nimmt.protocol.base import decode_message
from nimmt.protocol.framing import encode_body

HAND = (3, 14, 21, 50, 60, 70, 80, 90, 100, 104)
ROWS = ((12,), (37,), (43,), (58,))


LINK_DOWN, LINK_UP = "link down", "link up"  # in a script: sends fail, then pass again


@dataclass(frozen=True)
class After:
    """In a script: nothing comes for ``seconds``."""

    seconds: float


class Conn:
    """A ``ClientConnection`` that yields ``script`` (messages, and ``After`` waits),
    then ends as a connection we closed; keeps what is sent, with its virtual time."""

    address = "127.0.0.1:9"

    def __init__(self, script: list[Any], *, claimed: bool = False) -> None:
        self.script = script
        self.welcome = wire.Welcome(protocol=2, server="nimmt-test", name="Rob",
                                    token="t" * 32, resumed=False, limits=welcome().limits,
                                    claimed=claimed)
        self.handshake_errors: list[wire.Error] = []
        self.closed = False
        self.sent: list[tuple[float, wire.Message]] = []
        self.offline = False  # sends find no link (between LINK_DOWN and LINK_UP)

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    async def send(self, message: wire.Message) -> int:
        if self.offline:
            raise SendFailed("no link")
        self.sent.append((self.now(), message))
        return len(self.sent)

    async def events(self) -> AsyncIterator[Any]:
        for item in self.script:
            for _ in range(5):  # the bot's own tasks (a player thinking) run first
                await asyncio.sleep(0)
            if self.closed:
                return
            if isinstance(item, After):
                await asyncio.sleep(item.seconds)
            elif item in (LINK_DOWN, LINK_UP):
                self.offline = item == LINK_DOWN
            elif isinstance(item, wire.Message):
                yield from_the_wire(item)
            else:
                yield item
        for _ in range(5):
            await asyncio.sleep(0)
        self.closed = True

    async def close(self) -> None:
        self.closed = True

    def kinds(self) -> list[str]:
        return [type(m).__name__ for _, m in self.sent]


def from_the_wire(message: wire.Message) -> wire.Message:
    """``message`` as the client reads it: encoded, then decoded (its strings are not
    the interned literals of this file)."""
    body = wire.unpack_body(encode_body(message.to_wire(1))[wire.HEADER_SIZE:])
    return decode_message(body, wire.SERVER)


class Scripted:
    """A player: ``answer(view)`` decides (or raises); records each ask."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asks: list[Ask] = []

    async def decide(self, ask: Ask) -> Any:
        self.asks.append(ask)
        return self.answer(ask.view)

    async def aclose(self) -> None:
        return None


def play(script: list[Any], *, player: Any = None, claimed: bool = False,
         **options: Any) -> tuple[BotSession, Conn]:
    """Run a bot (Rob) through ``script`` on virtual time from 0."""
    conn = Conn(script, claimed=claimed)
    kwargs: dict[str, Any] = dict(name="Rob", join=None, create=None, add_bots=0, games=1,
                                  reconnect_for=0)
    kwargs.update(options)
    bot = BotSession(conn, player or Scripted(lambda view: view.legal[0]),  # type: ignore[arg-type]
                     **kwargs)
    run_virtual(asyncio.wait_for(bot.run(), 100_000))
    return bot, conn


@pytest.fixture(autouse=True)
def _bots_warnings_heard(caplog: pytest.LogCaptureFixture) -> None:
    # nimmt-arena's main, run in this process by another test, sets "nimmt.bots" to ERROR
    caplog.set_level(logging.WARNING, logger="nimmt.bots")


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "nimmt.bots"
            and r.levelno >= logging.WARNING]


def dealt(table_info: wire.TableInfo, at: int = 0, deadline: float = 1e9) -> list[Any]:
    """Seated at ``at`` of a game just dealt: turn 1 of round 1 asks a commit."""
    return [wire.Seated(table=table_info, seat=at), wire.RoundStarted(round=1),
            wire.HandDealt(cards=HAND), wire.RowsDealt(rows=ROWS),
            wire.TurnStarted(round=1, turn=1, deadline=deadline, remaining=30.0)]


PLAYING = table(["Ann", "Rob", "Bob"], status="playing")
#: what a resume sends: the seat, then the game as it is (turn 1 of round 1, not committed)
BACK = [wire.Seated(table=PLAYING, seat=1),
        wire.Snapshot(table=PLAYING, seat=1, round=1, turn=1, phase="commit", hand=HAND,
                      commit=None, rows=ROWS, deadline=1e9, remaining=30.0, committed=(),
                      revealed=(), draft_pool=(), draft_picks=(), pending=None)]


# --- what the bot asks for at the start ---------------------------------------------


def test_the_documented_defaults() -> None:
    assert (TABLE_WAIT, FILL_AFTER, bot_session._SAY_AFTER, bot_session._QUEUE_AGAIN) == \
        (120.0, 30.0, 1.0, 5.0)
    assert LadderAsk().request() == wire.Queue(seats=4, options=wire.TableOptions(),
                                               fill_after=30.0, bot_level=None)
    asked = LadderAsk(seats=3, fill_after=None, bot_level="easy").request()
    assert (asked.seats, asked.fill_after, asked.bot_level) == (3, None, "easy")
    fresh = BotResult()
    assert (fresh.table_id, fresh.seat, fresh.games, fresh.rejoins, fresh.reconnects,
            fresh.stopped) == (None, None, 0, 0, 0, None)
    assert fresh.places == fresh.totals == fresh.errors == fresh.tables == [] \
        and fresh.queue_waits == fresh.ratings == []


def test_each_way_of_taking_a_seat_sends_its_request() -> None:
    _, conn = play([], join="t7")
    assert [m for _, m in conn.sent] == [wire.Join(table_id="t7")]
    options = wire.TableOptions(seats=5)
    _, conn = play([], create=options)
    assert [m for _, m in conn.sent] == [wire.CreateTable(options=options, name="Rob's table")]
    _, conn = play([])
    assert [m for _, m in conn.sent] == [wire.ListTables()]
    _, conn = play([], ladder=LadderAsk(seats=2))
    assert [m for _, m in conn.sent] == [LadderAsk(seats=2).request()]


def test_a_table_list_after_the_bot_sits_is_not_a_cue_to_join() -> None:
    listed = wire.TableList(tables=(table(["Ann", None], table_id="t2"),))
    _, conn = play([wire.Seated(table=table(["Rob", None]), seat=0), listed], table_wait=0)
    assert conn.kinds() == ["ListTables"]  # seated at t1 already: no Join of t2
    _, conn = play([listed], join="t1", table_wait=0)
    assert conn.kinds() == ["Join"]
    _, conn = play([listed], create=wire.TableOptions(), table_wait=0)
    assert conn.kinds() == ["CreateTable"]


# --- hosting --------------------------------------------------------------------------


def test_a_host_adds_the_bots_it_was_told_then_starts_once_every_seat_is_taken() -> None:
    mine = table(["Rob", None, None, None])
    full = table(["Rob", "Ann", "Bot", "Bot"], bots=(2, 3))
    bot, conn = play([wire.Seated(table=mine, seat=0),
                      wire.TableUpdated(table=table(["Rob", "Ann", None, None])),
                      wire.TableUpdated(table=full)],
                     create=wire.TableOptions(seats=4), add_bots=2, bot_level="medium")
    assert [m for _, m in conn.sent] == [
        wire.CreateTable(options=wire.TableOptions(seats=4), name="Rob's table"),
        wire.AddBot(strategy="medium"), wire.AddBot(strategy="medium"), wire.Start()]
    assert (bot.result.table_id, bot.result.seat, bot.hosting) == ("t1", 0, True)


def test_a_host_adds_no_more_bots_than_free_seats_and_starts_a_full_table_at_once() -> None:
    _, conn = play([wire.Seated(table=table(["Rob", None]), seat=0)],
                   create=wire.TableOptions(seats=2), add_bots=3, table_wait=0)
    assert conn.kinds() == ["CreateTable", "AddBot"]  # Start once the update says it is full
    assert [m.strategy for _, m in conn.sent[1:2]] == ["hard"]  # type: ignore[attr-defined]
    # seated at a full table it hosts: Start at once; at one it does not host: nothing
    _, conn = play([wire.Seated(table=table(["Rob", "Ann"]), seat=0)], join="t1", add_bots=1)
    assert conn.kinds() == ["Join", "Start"]
    _, conn = play([wire.Seated(table=table(["Ann", "Rob"]), seat=1)], join="t1", add_bots=1)
    assert conn.kinds() == ["Join"]
    # seated again at the same table (a resume): the bots were added already
    again = wire.Seated(table=table(["Rob", None, None]), seat=0)
    _, conn = play([again, again], join="t1", add_bots=1, table_wait=0)
    assert conn.kinds() == ["Join", "AddBot"]
    # a table whose game is over, or is played, gets no bots and no start
    for status in ("over", "playing"):
        _, conn = play([wire.Seated(table=table(["Rob", None], status=status), seat=0)],
                       join="t1", add_bots=1, table_wait=0)
        assert conn.kinds() == ["Join"]


def test_the_host_of_a_table_that_does_not_fill_says_so_then_fills_it_after_table_wait(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    bot, conn = play([wire.Seated(table=table(["Rob", None, None]), seat=0), After(500)],
                     create=wire.TableOptions(seats=3), table_wait=120, bot_level="easy")
    assert [(when, type(m).__name__) for when, m in conn.sent] == [
        (0.0, "CreateTable"), (120.0, "AddBot"), (120.0, "AddBot")]
    assert warnings(caplog) == [
        "Rob: at table t1, waiting for 2 more players or the table to fill; it starts when "
        "every seat is taken (after 120 s it fills the free seats with built-in bots and "
        "starts)",
        "Rob: table t1 did not fill in 120 s: adding 2 built-in bot(s) (easy) and starting"]


def test_a_table_that_fills_before_the_wait_is_not_filled_again(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    _, conn = play([wire.Seated(table=table(["Rob", None, None]), seat=0), After(0.5),
                    wire.TableUpdated(table=table(["Rob", "Ann", "Bob"])),
                    wire.TableUpdated(table=table(["Rob", "Ann", "Bob"], status="playing")),
                    After(500)], create=wire.TableOptions(seats=3), table_wait=120)
    assert [(when, type(m).__name__) for when, m in conn.sent] == [
        (0.0, "CreateTable"), (0.5, "Start")]
    assert warnings(caplog) == []  # started before a word was due


# --- a table nobody starts ------------------------------------------------------------


def test_a_guest_at_a_table_nobody_starts_leaves_for_its_own_filled_with_bots(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    theirs = table(["Ann", None, None], table_id="t2")
    with_rob = table(["Ann", "Rob", None], table_id="t2")
    own = table(["Rob", None, None, None], table_id="t3")
    new_table = wire.TableOptions(seats=4)
    bot, conn = play([wire.TableList(tables=(theirs,)), wire.Seated(table=with_rob, seat=1),
                      After(200), wire.Left(table_id="t2", reason="left"),
                      wire.Seated(table=own, seat=0),
                      wire.TableUpdated(table=table(["Rob", "Bot", "Bot", "Bot"],
                                                    table_id="t3", bots=(1, 2, 3)))],
                     new_table=new_table, table_wait=60)
    assert [(when, m) for when, m in conn.sent] == [
        (0.0, wire.ListTables()), (0.0, wire.Join(table_id="t2")), (60.0, wire.Leave()),
        (200.0, wire.CreateTable(options=new_table, name="Rob's table")),
        (200.0, wire.AddBot(strategy="hard")), (200.0, wire.AddBot(strategy="hard")),
        (200.0, wire.AddBot(strategy="hard")), (200.0, wire.Start())]
    assert warnings(caplog)[:2] == [
        "Rob: at table t2, waiting for 1 more player or its host (Ann) to start it (after "
        "60 s it leaves for a table of its own with built-in bots)",
        "Rob: nobody started table t2 in 60 s: leaving it for a table of our own, with "
        "built-in bots"]
    assert bot.result.rejoins == 0 and bot.result.table_id == "t3"


def test_a_bot_told_to_join_stays_and_says_it_again_each_table_wait(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    hostless = wire.TableInfo(table_id="t2", name="", options=wire.TableOptions(seats=3),
                              seats=(seat("Ann"), seat("Rob"), seat("Bob")), host=None,
                              status="waiting", spectators=0)
    _, conn = play([wire.Seated(table=hostless, seat=1), After(250)], join="t2",
                   table_wait=100)
    assert conn.kinds() == ["Join"]
    said = ("Rob: at table t2, waiting for nobody more or its host (none) to start it "
            "(after 100 s it stays: it was told to join this table)")
    assert warnings(caplog) == [said, said, said]  # at 1 s, 101 s and 201 s


def test_a_table_wait_of_0_waits_for_ever_and_says_so_once(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    _, conn = play([wire.Seated(table=table(["Ann", "Rob", None], table_id="t2"), seat=1),
                    After(10_000)], table_wait=0)
    assert conn.kinds() == ["ListTables"]
    assert warnings(caplog) == [
        "Rob: at table t2, waiting for 1 more player or its host (Ann) to start it (it "
        "waits for ever (table_wait 0))"]


def test_a_table_wait_under_a_second_is_said_and_acted_on_at_its_end(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    _, conn = play([wire.Seated(table=table(["Rob", None]), seat=0), After(5)],
                   create=wire.TableOptions(seats=2), table_wait=0.5)
    assert [(when, type(m).__name__) for when, m in conn.sent] == [
        (0.0, "CreateTable"), (0.5, "AddBot")]
    assert warnings(caplog)[0].endswith("(after 0.5 s it fills the free seats with built-in "
                                        "bots and starts)")
    assert len(warnings(caplog)) == 2


def test_a_game_that_starts_stops_the_wait(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    theirs = table(["Ann", "Rob", None], table_id="t2")
    _, conn = play([wire.Seated(table=theirs, seat=1), After(0.5),
                    wire.TableUpdated(table=table(["Ann", "Rob", "Bob"], table_id="t2",
                                                  status="playing")),
                    After(500)], join="t2", table_wait=10)
    assert conn.kinds() == ["Join"] and warnings(caplog) == []
    # a table left before the word is due: nothing said, nothing done
    _, conn = play([wire.Seated(table=theirs, seat=1), After(0.5),
                    wire.Left(table_id="t2", reason="left"), After(500)], join="t2",
                   table_wait=10)
    assert conn.kinds() == ["Join"] and warnings(caplog) == []


def test_a_wait_that_ends_without_a_link_is_armed_again_when_the_seat_is_back() -> None:
    theirs = table(["Ann", "Rob", None], table_id="t2")
    _, conn = play([wire.Seated(table=theirs, seat=1), LINK_DOWN, After(15), LINK_UP,
                    wire.TableUpdated(table=theirs), After(15)], table_wait=10)
    # the Leave at 10 s found no link (lost, not raised); the update re-arms the timer
    assert [(when, type(m).__name__) for when, m in conn.sent] == [(0.0, "ListTables"),
                                                                    (25.0, "Leave")]


# --- answering ------------------------------------------------------------------------


def test_the_bot_sends_its_players_answer_to_what_its_seat_is_asked() -> None:
    player = Scripted(lambda view: Commit(1, 50))
    bot, conn = play(dealt(PLAYING, at=1), player=player, join="t1")
    assert [m for _, m in conn.sent][1:] == [wire.Commit(round=1, turn=1, card=50)]
    assert len(player.asks) == 1
    ask = player.asks[0]
    assert ask.names == ("Ann", "Rob", "Bob") and ask.deadline is not None
    assert 0 < ask.deadline - time.monotonic() <= 30  # turn_started's remaining, on our clock
    assert ask.view.hand == HAND and ask.view.seat == 1


def test_a_player_that_fails_is_replaced_at_once_by_the_fallback(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)

    def broken(view: Any) -> Any:
        raise KeyError("oops")

    player = Scripted(broken)
    bot, conn = play(dealt(PLAYING, at=1), player=player, join="t1")
    expected = HeuristicStrategy().decide(player.asks[0].view)
    assert isinstance(expected, Commit)
    assert [m for _, m in conn.sent][1:] == [wire.Commit(round=1, turn=1, card=expected.card)]
    assert warnings(caplog) == ["Rob: the player failed to decide (KeyError: 'oops'); the "
                                "fallback (heuristic) decides at once"]
    assert bot.result.stopped is None


def test_a_player_that_declines_or_answers_what_is_not_asked_sends_nothing(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    _, conn = play(dealt(PLAYING, at=1), player=Scripted(lambda view: None), join="t1")
    assert conn.kinds() == ["Join"]
    _, conn = play(dealt(PLAYING, at=1), player=Scripted(lambda view: ChooseRow(1, 2)),
                   join="t1")
    assert conn.kinds() == ["Join"]
    assert len(warnings(caplog)) == 1 and warnings(caplog)[0].startswith("Rob: ")


def test_a_player_that_gives_up_ends_the_session_and_says_why() -> None:
    def gives_up(view: Any) -> Any:
        raise PlayerGaveUp("the program ./bot failed 10 times in a row")

    bot, conn = play([*dealt(PLAYING, at=1), After(5), wire.TableUpdated(table=PLAYING)],
                     player=Scripted(gives_up), join="t1")
    assert bot.result.stopped == ("the program ./bot failed 10 times in a row; the server's "
                                  "autopilot plays the seat")
    assert conn.closed and conn.kinds() == ["Join"] and bot.thinking == {}


def test_an_answer_the_link_lost_is_sent_again_once_the_link_is_back() -> None:
    restored = LinkRestored(wire.Welcome(protocol=2, server="s", name="Rob", token="t" * 32,
                                         resumed=True, limits=welcome().limits))
    player = Scripted(lambda view: Commit(1, 21))
    _, conn = play([*dealt(PLAYING, at=1), After(1), LinkLost("cut"), restored, *BACK,
                    After(1)],
                   player=player, join="t1")
    commits = [m for _, m in conn.sent if isinstance(m, wire.Commit)]
    assert commits == [wire.Commit(round=1, turn=1, card=21)] * 2  # once, again after
    assert len(player.asks) == 1  # the answer kept, not asked again
    # the send that found no link is sent again after the snapshot too
    _, conn = play([wire.Seated(table=PLAYING, seat=1), LINK_DOWN, *dealt(PLAYING, at=1)[1:],
                    After(1), LINK_UP, restored, *BACK, After(1)],
                   player=Scripted(lambda view: Commit(1, 21)), join="t1")
    assert [m for _, m in conn.sent if isinstance(m, wire.Commit)] == \
        [wire.Commit(round=1, turn=1, card=21)]


# --- games, and when the bot stops ----------------------------------------------------


def over(places: tuple[int, ...] = (2, 1, 3), totals: tuple[int, ...] = (30, 12, 41)) -> Any:
    return wire.GameOver(totals=totals, places=places, winners=(places.index(1),))


def test_a_finished_game_is_kept_and_said_and_the_host_starts_the_next(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    mine = table(["Rob", "Ann", "Bob"], status="playing")
    bot, conn = play([*dealt(mine, at=0), over(), over((1, 2, 2), (3, 9, 9))],
                     player=Scripted(lambda view: Commit(0, 3)), create=wire.TableOptions(),
                     games=2)
    r = bot.result
    assert (r.games, r.places, r.totals, r.tables, r.ratings) == (
        2, [2, 1], [[30, 12, 41], [3, 9, 9]], ["t1", "t1"], [None, None])
    assert conn.kinds() == ["CreateTable", "Commit", "Start"]  # after game 1 only
    assert [w for w in warnings(caplog) if "over at" in w] == [
        "Rob: game 1 over at table t1: place 2 of 3",
        "Rob: game 2 over at table t1: place 1 of 3"]


def test_a_rated_game_waits_for_the_rating_and_says_it(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    rated = table(["Ann", "Rob"], status="playing", rated=True)
    rob = wire.SeatInfo(name="Rob", kind="bot", connected=True, total=0, penalties=0,
                        rating=12.345, games=3)
    after = wire.TableInfo(table_id="t1", name="", options=rated.options,
                           seats=(seat("Ann"), rob), host=0, status="over", spectators=0)
    bot, conn = play([wire.Seated(table=rated, seat=1), over((2, 1), (20, 10)),
                      wire.TableUpdated(table=after), wire.TableUpdated(table=after)],
                     join="t1", games=2)
    assert bot.result.ratings == [12.345] and bot.result.games == 1
    assert [w for w in warnings(caplog) if "over at" in w] == [
        "Rob: game 1 over at table t1: place 1 of 2, rating 12.35"]


def test_a_ladder_bot_queues_leaves_each_finished_game_and_queues_again(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    formed = table(["Ann", "Rob"], status="playing", rated=True)
    bot, conn = play([wire.Queued(seats=2, position=1, waiting=1, fill_in=30.0), After(3),
                      wire.Seated(table=formed, seat=1), over((2, 1), (20, 10)),
                      wire.TableUpdated(table=formed),
                      wire.Left(table_id="t1", reason="left"), After(1)],
                     ladder=LadderAsk(seats=2), games=2)
    ask = LadderAsk(seats=2).request()
    assert [(when, m) for when, m in conn.sent] == [(0.0, ask), (3.0, wire.Leave()),
                                                     (3.0, ask)]
    assert len(bot.result.queue_waits) == 1 and 0 <= bot.result.queue_waits[0] < 1
    assert [w for w in warnings(caplog) if "over at" in w] == [
        "Rob: game 1 over at table t1: place 1 of 2; queueing again"]


@pytest.mark.parametrize("code", ["not_allowed", "rate_limited", "internal_error"])
def test_a_ladder_bot_refused_what_may_pass_queues_again_after_5_s(code: str) -> None:
    refused = wire.Error(code=code, message="later", request="queue")
    bot, conn = play([refused, After(20)], ladder=LadderAsk(), claimed=True)
    assert [when for when, _ in conn.sent] == [0.0, 5.0]
    assert bot.result.errors == [f"{code}: later"] and bot.result.stopped is None
    # seated meanwhile: not queued again
    bot, conn = play([refused, After(2), wire.Seated(table=table(["Rob", "Ann"],
                                                                 status="playing"), seat=0),
                      After(20)], ladder=LadderAsk(), claimed=True)
    assert [when for when, _ in conn.sent] == [0.0]


def test_a_ladder_bot_refused_for_good_stops_and_says_why() -> None:
    bot, _ = play([wire.Error(code="rate_limited", message="", request="queue")],
                  ladder=LadderAsk(), claimed=False)  # unclaimed: it will never pass
    assert bot.result.stopped == "could not queue: rate_limited"
    bot, _ = play([wire.Error(code="bad_request", message="no rated tables here",
                              request="queue")], ladder=LadderAsk(), claimed=True)
    assert bot.result.stopped == "could not queue: no rated tables here"


def test_a_refused_seat_stops_the_bot_and_says_where() -> None:
    bot, _ = play([wire.Error(code="table_full", message="table t9 is full", request="join")],
                  join="t9")
    assert bot.result.stopped == "could not take a seat at table t9: table t9 is full"
    bot, _ = play([wire.Error(code="server_full", message="", request="create_table")])
    assert bot.result.stopped == "could not take a seat at a table: server_full"
    # an error that refuses no seat, or one at a table already taken, does not stop it
    bot, conn = play([wire.Error(code="bad_request", message="no", request="chat"),
                      wire.Seated(table=table(["Ann", "Rob"], status="playing"), seat=1),
                      wire.Error(code="table_full", message="full", request="join"),
                      wire.Goodbye(reason="quit", message="")], join="t1")
    assert bot.result.stopped == "the server closed the connection: quit"
    assert bot.result.errors == ["bad_request: no", "table_full: full"]


def test_removed_from_a_table_the_bot_stops_and_a_closed_table_it_takes_a_seat_again() -> None:
    sat = wire.Seated(table=table(["Ann", "Rob"]), seat=1)
    bot, conn = play([sat, wire.Left(table_id="t1", reason="kicked")], join="t1", table_wait=0)
    assert bot.result.stopped == "removed from table t1 by its host"
    bot, conn = play([sat, wire.Left(table_id="t1", reason="table_closed")], join="t1",
                     table_wait=0)
    assert bot.result.rejoins == 1 and bot.result.stopped is None
    assert conn.kinds() == ["Join", "Join"]


def test_a_goodbye_stops_the_bot_with_the_servers_words() -> None:
    bot, _ = play([wire.Goodbye(reason="kicked", message="go away")], join="t1")
    assert bot.result.stopped == "the server closed the connection: go away"


def test_a_link_restored_without_the_session_takes_the_seat_again_forgetting_answers(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    fresh = LinkRestored(wire.Welcome(protocol=2, server="s", name="Rob", token="u" * 32,
                                      resumed=False, limits=welcome().limits))
    bot, conn = play([LinkLost("reset by peer"), fresh], create=wire.TableOptions())
    assert conn.kinds() == ["CreateTable", "CreateTable"] and bot.result.rejoins == 1
    said = warnings(caplog)
    assert said[0] == "Rob: reset by peer; reconnecting"
    assert said[1].endswith("or we were away too long); creating a table again")
    bot, conn = play([fresh], join="t4")
    assert warnings(caplog)[-1].endswith("; joining table t4 again")
    bot, conn = play([fresh])
    assert warnings(caplog)[-1].endswith("; looking for a table again")
    bot, conn = play([fresh], ladder=LadderAsk())
    assert warnings(caplog)[-1].endswith("; queueing again")
    # kept: a queued ladder bot queues again (its entry went with the link), others not
    kept = LinkRestored(wire.Welcome(protocol=2, server="s", name="Rob", token="t" * 32,
                                     resumed=True, limits=welcome().limits))
    bot, conn = play([kept], ladder=LadderAsk())
    assert conn.kinds() == ["Queue", "Queue"] and bot.result.rejoins == 0
    bot, conn = play([kept], join="t4")
    assert conn.kinds() == ["Join"] and bot.result.rejoins == 0


# --- added after the mutation run (a sample of 100 of bots/session.py) -------------------


def test_a_server_shutting_down_stops_a_bot_told_not_to_wait_for_it() -> None:
    bot, _ = play([wire.Goodbye(reason="server_shutdown", message="stopping")], join="t1")
    assert bot.result.stopped == ("the server closed the connection: stopping (not waiting "
                                  "for it: reconnect_for is 0)")


def test_a_ladder_bot_stops_after_its_games_and_plays_on_when_told_0() -> None:
    formed = table(["Ann", "Rob"], status="playing")
    script = [wire.Seated(table=formed, seat=1), over((2, 1), (20, 10)), After(1)]
    bot, conn = play(script, ladder=LadderAsk(seats=2), games=1)
    assert conn.kinds() == ["Queue"] and bot.result.games == 1  # done: no Leave
    bot, conn = play(script, ladder=LadderAsk(seats=2), games=0)
    assert conn.kinds() == ["Queue", "Leave"]  # 0: until stopped
    # at a table, 0 games is one game: it is done, and reads nothing more
    closed = wire.Left(table_id="t1", reason="table_closed")
    bot, conn = play([*script, closed], join="t1", games=0)
    assert conn.kinds() == ["Join"] and bot.result.games == 1 and bot.result.rejoins == 0


def test_a_finished_session_leaves_no_timer_or_thought_behind() -> None:
    async def go() -> Conn:
        conn = Conn([wire.Seated(table=table(["Ann", "Rob", None], table_id="t2"), seat=1),
                     *dealt(PLAYING, at=1)[1:], wire.Goodbye(reason="quit", message="")])

        async def slow(ask: Ask) -> Any:
            await asyncio.sleep(50)
            return ask.view.legal[0]

        player = Scripted(None)
        player.decide = slow  # type: ignore[method-assign]
        bot = BotSession(conn, player, name="Rob", join=None, create=None,  # type: ignore[arg-type]
                         add_bots=0, games=1, table_wait=10, reconnect_for=0)
        await bot.run()
        await asyncio.sleep(500)  # the program goes on: nothing of the bot's may act
        return conn

    conn, _ = run_virtual(go())
    assert conn.kinds() == ["ListTables"]


def test_an_answer_that_comes_after_its_turn_is_over_is_not_sent_for_the_next() -> None:
    delays = [5.0, 0.0]

    async def decide(ask: Ask) -> Any:
        await asyncio.sleep(delays.pop(0))
        return Commit(1, 50 if ask.view.turn == 1 else 60)

    player = Scripted(None)
    player.decide = decide  # type: ignore[method-assign]
    bot, conn = play([*dealt(PLAYING, at=1), After(1),
                      wire.TurnStarted(round=1, turn=2, deadline=1e9, remaining=30.0),
                      After(10)], player=player, join="t1")
    assert [(when, m) for when, m in conn.sent][1:] == [
        (1.0, wire.Commit(round=1, turn=2, card=60))]


def test_a_table_wait_below_0_waits_for_ever_as_0_does(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    _, conn = play([wire.Seated(table=table(["Ann", "Rob", None], table_id="t2"), seat=1),
                    After(10_000)], table_wait=-1)
    assert conn.kinds() == ["ListTables"]
    assert warnings(caplog)[0].endswith("(it waits for ever (table_wait 0))")


def test_a_bot_removed_reads_nothing_more_and_one_whose_table_closed_reads_on() -> None:
    sat = wire.Seated(table=table(["Ann", "Rob"]), seat=1)
    closed = wire.Left(table_id="t1", reason="table_closed")
    bot, conn = play([sat, wire.Left(table_id="t1", reason="kicked"), closed], join="t1",
                     table_wait=0)
    assert conn.kinds() == ["Join"] and bot.result.rejoins == 0
    bot, conn = play([sat, closed, wire.Goodbye(reason="quit", message="bye")], join="t1",
                     table_wait=0)
    assert bot.result.stopped == "the server closed the connection: bye"


def test_a_ladder_bot_refused_something_else_than_its_queue_plays_on() -> None:
    bot, conn = play([wire.Error(code="bad_request", message="no", request="chat"),
                      wire.Goodbye(reason="quit", message="bye")], ladder=LadderAsk())
    assert bot.result.errors == ["bad_request: no"]
    assert bot.result.stopped == "the server closed the connection: bye"


def test_an_answer_whose_link_drops_again_as_it_is_sent_again_waits_for_the_next() -> None:
    restored = LinkRestored(wire.Welcome(protocol=2, server="s", name="Rob", token="t" * 32,
                                         resumed=True, limits=welcome().limits))
    bot, conn = play([*dealt(PLAYING, at=1), After(1), LinkLost("cut"), restored, LINK_DOWN,
                      *BACK, LINK_UP, wire.SeatCommitted(seat=0),
                      wire.Goodbye(reason="quit", message="bye")],
                     player=Scripted(lambda view: Commit(1, 21)), join="t1")
    assert [m for _, m in conn.sent if isinstance(m, wire.Commit)] == \
        [wire.Commit(round=1, turn=1, card=21)] * 2  # before the drop, and once it is back
    assert bot.result.stopped == "the server closed the connection: bye"


# --- added after a second sample (seed 26) ------------------------------------------------


def test_a_guest_below_its_host_does_not_start_a_full_table() -> None:
    # seat 0 at a table its seat 1 hosts: the host starts it, not this bot
    full = wire.TableInfo(table_id="t2", name="", options=wire.TableOptions(seats=2),
                          seats=(seat("Rob"), seat("Ann")), host=1, status="waiting",
                          spectators=0)
    bot, conn = play([wire.Seated(table=full, seat=0), wire.TableUpdated(table=full)],
                     join="t2", table_wait=0)
    assert conn.kinds() == ["Join"] and not bot.hosting


def test_a_table_wait_below_0_says_nothing_before_a_second(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    theirs = table(["Ann", "Rob", None], table_id="t2")
    _, conn = play([wire.Seated(table=theirs, seat=1), After(0.5),
                    wire.TableUpdated(table=table(["Ann", "Rob", "Bob"], table_id="t2",
                                                  status="playing")), After(5)],
                   join="t2", table_wait=-1)
    assert warnings(caplog) == []


def test_a_refused_seat_is_the_last_word_nothing_after_it_is_read() -> None:
    bot, _ = play([wire.Error(code="table_full", message="full", request="join"),
                   wire.Goodbye(reason="quit", message="bye")], join="t9")
    assert bot.result.stopped == "could not take a seat at table t9: full"


def test_each_game_is_said_at_its_own_table(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    first = table(["Ann", "Rob"], status="playing")
    second = table(["Rob", "Bob"], table_id="t2", status="playing")
    bot, _ = play([wire.Seated(table=first, seat=1), over((2, 1), (20, 10)),
                   wire.Left(table_id="t1", reason="left"), After(1),
                   wire.Seated(table=second, seat=0), over((1, 2), (5, 30)), After(1)],
                  ladder=LadderAsk(seats=2), games=2)
    assert bot.result.tables == ["t1", "t2"]
    assert [w for w in warnings(caplog) if "over at" in w] == [
        "Rob: game 1 over at table t1: place 1 of 2; queueing again",
        "Rob: game 2 over at table t2: place 1 of 2"]
