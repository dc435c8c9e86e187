"""What a table does with its match's effects, what a restart brings back, and its bots'
kept states, as plain functions (issue 43; no server, no trio plugin): the writes
handed to the store in their order, the sessions linked and the spectators kept, the
notices the players read when the database fails, the new ratings a rated game's
last messages show, the seats, banks and seed a restored table has, and when a bot's
worker state is kept or forgotten."""

from __future__ import annotations

import logging
from dataclasses import asdict, replace
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from nimmt import protocol as P
from nimmt.engine import FairDeal
from nimmt.server.config import TableSettings
from nimmt.server.game.data import fair_to_data
from nimmt.server.game.deal_commitment import DealCommitment
from nimmt.server.game.io import Effects, Finished, Think
from nimmt.server.game.room import SeatState
from nimmt.server.sessions.session import Session
from nimmt.server.storage import Fact, StorageWriteError, hash_token
from nimmt.server.storage.rows import StoredSeat, StoredSpectator, StoredTable
from nimmt.server.tables.bots import TableBots, timed
from nimmt.server.tables.effects import (
    hand_in_writes,
    link_sessions,
    show_new_ratings,
    storage_notice,
    stored_settings,
)
from nimmt.server.tables.restore import (
    RestoreError,
    banks_left,
    deal_kept,
    restore_match,
    seats_left,
    skip_on_restore,
)
from nimmt.server.thinking.pool import MAX_STATE_BYTES, PoolStopped, ThinkFailed

TABLE = SimpleNamespace(id="t1")


def session(sid: int, name: str, kind: str = "human") -> Session:
    return Session(sid, f"tok_{sid:020d}", name, kind)


class Recorder:
    """A store's ``Writes`` that keeps every call, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> None:
            self.calls.append((name, *args, *sorted(kwargs.items())))
        return call


# ----------------------------------------------------------------- linking sessions

def test_who_sits_down_or_watches_is_linked_and_the_spectators_are_kept_up_to_date() -> None:
    ann, sue, tom = session(1, "Ann"), session(2, "Sue", "spectator"), session(3, "Tom")
    sessions = {1: ann, 2: sue, 3: tom}
    watchers: set[int] = {3}  # Tom watched before
    match = SimpleNamespace(members={1: None, 2: None, 3: None})
    effects = Effects(entered=[(9, 2), (1, 0), (2, None), (3, 1)])  # 9: no session
    watch, unwatch = link_sessions(TABLE, match, effects, sessions, watchers)
    assert (ann.table, ann.seat, sue.table, sue.seat, tom.table, tom.seat) == (
        TABLE, 0, TABLE, None, TABLE, 1)
    assert (watch, unwatch, watchers) == ([sue], [tom], {2})


def test_a_spectator_who_leaves_is_no_spectator_unless_back_in_the_same_call() -> None:
    sue, eve = session(2, "Sue", "spectator"), session(4, "Eve", "spectator")
    watchers = {2, 4, 7}
    match = SimpleNamespace(members={4: None})  # Eve left and came back
    effects = Effects(released=[2, 4, 7, 1])  # 7: gone already; 1: never watched
    watch, unwatch = link_sessions(TABLE, match, effects, {2: sue, 4: eve}, watchers)
    assert (watch, unwatch, watchers) == ([], [sue], {4})


# ----------------------------------------------------------------- the writes, in order

def seat_fact(seat: int, name: str | None, member: int | None = None) -> Fact:
    payload: dict[str, Any] = {"seat": seat, "name": name, "kind": "human", "strategy": None}
    if member is not None:
        payload["member"] = member
    return Fact("seat", payload)


def test_facts_go_in_order_a_seat_change_between_them_as_its_own_write() -> None:
    writes = Recorder()
    ann = session(1, "Ann")
    started, left, deal = Fact("game_started", {}), Fact("left", {"seat": 1}), Fact("deal", {})
    effects = Effects(facts=[started, seat_fact(0, "Ann", member=1), deal, left,
                             seat_fact(1, None), seat_fact(2, "Bob", member=5)])
    match = SimpleNamespace(status="playing", name="Friday")
    hand_in_writes(writes, "t1", match, effects, {1: ann}, [], [])
    assert writes.calls == [
        ("append", "t1", [started]),
        ("set_seat", "t1", 0, "Ann", "human", ("strategy", None), ("token", ann.token)),
        ("append", "t1", [deal, left]),
        ("free_seat", "t1", 1),
        ("set_seat", "t1", 2, "Bob", "human", ("strategy", None), ("token", None)),
    ]


def test_once_the_game_is_over_a_seat_change_is_logged_as_a_fact_too() -> None:
    writes = Recorder()
    effects = Effects(facts=[seat_fact(0, "Ann", member=1), seat_fact(1, None)])
    match = SimpleNamespace(status="over", name="Friday")
    hand_in_writes(writes, "t1", match, effects, {}, [], [])
    logged = [Fact("seat", {"seat": 0, "name": "Ann", "kind": "human", "strategy": None}),
              seat_fact(1, None)]
    assert writes.calls == [
        ("set_seat", "t1", 0, "Ann", "human", ("strategy", None), ("token", None)),
        ("append", "t1", logged[:1]),
        ("free_seat", "t1", 1),
        ("append", "t1", logged[1:]),
    ]
    assert "member" not in writes.calls[1][2][0].payload


def test_spectators_start_the_game_end_and_the_close_follow_the_facts() -> None:
    writes = Recorder()
    sue, tom = session(2, "Sue", "spectator"), session(3, "Tom")
    done = Finished(4, object(), ("human", "builtin"), 10.0, 20.0)  # type: ignore[arg-type]
    ratings = ["rating"]
    effects = Effects(facts=[Fact("deal", {})], started=True, finished=done, closed="empty")
    match = SimpleNamespace(status="over", name="Friday")
    hand_in_writes(writes, "t1", match, effects, {}, [sue], [tom], ratings)  # type: ignore[list-item]
    assert writes.calls == [
        ("append", "t1", [Fact("deal", {})]),
        ("watch", "t1", sue.token_hash, "Sue", "spectator"),
        ("unwatch", "t1", tom.token_hash),
        ("update_table", "t1", ("status", "playing")),
        ("finish_game", "t1", "Friday", 4, done.record, ("human", "builtin"), 10.0, 20.0,
         ratings),
        ("update_table", "t1", ("status", "over")),
        ("close_table", "t1"),
    ]


def test_a_table_stopped_by_the_server_shutting_down_stays_open_in_the_database() -> None:
    for closed, calls in (("server shutdown", []), ("stopped", [("close_table", "t1")])):
        writes = Recorder()
        hand_in_writes(writes, "t1", SimpleNamespace(status="waiting", name="x"),
                       Effects(closed=closed), {}, [], [])
        assert writes.calls == calls
    writes = Recorder()
    hand_in_writes(writes, "t1", SimpleNamespace(status="waiting", name="x"), Effects(), {},
                   [], [])
    assert writes.calls == []


# ----------------------------------------------------------------- notices and settings

def test_what_the_players_read_when_the_database_fails_and_comes_back() -> None:
    error = StorageWriteError(None, "the disk is full", "disk_full")
    texts = [storage_notice(error, "2 tables' writes"), storage_notice(error),
             storage_notice(None, "2 tables' writes"), storage_notice(None)]
    assert all((m.name, m.seat) == ("server", None) for m in texts)
    assert [m.text for m in texts] == [
        "server notice: the database could not be written for too long (disk_full): 2 "
        "tables' writes were DROPPED; those tables go on in memory only and will not come "
        "back after a restart. What comes next is saved once the database can be written",
        "server notice: the database cannot be written (disk_full): games continue in "
        "memory; a restart now would lose what is not saved",
        "server notice: the database is written again; 2 tables' writes were LOST: those "
        "tables go on in memory only and will not come back after a restart",
        "server notice: the database is written again: nothing was lost",
    ]


def test_the_settings_kept_are_what_a_restore_reads_back() -> None:
    settings = TableSettings(seats=3, rounds=2, turn_time=45.0).validate()
    match = SimpleNamespace(settings=settings, persistent=True, autostart=False)
    assert stored_settings(match) == {"table": asdict(settings), "persistent": True,
                                      "autostart": False}


# ----------------------------------------------------------------- ratings after a game

def seat_info(name: str, rating: float | None = None, games: int = 0) -> P.SeatInfo:
    return P.SeatInfo(name=name, kind="human", connected=True, total=0, penalties=0,
                      rating=rating, games=games)


def table_info(*seats: P.SeatInfo | None) -> P.TableInfo:
    return P.TableInfo(table_id="t1", name="Friday", options=P.TableOptions(seats=len(seats)),
                       seats=seats, host=0, status="over", spectators=0)


def test_the_table_updates_after_the_game_over_show_the_new_ratings() -> None:
    before = table_info(seat_info("Ann", 10.0, 3), seat_info("Bob", 5.0, 3), None,
                        seat_info("Cy"))
    now = table_info(seat_info("Ann", 12.5, 4), seat_info("Rob", 1.0, 1), seat_info("Dee", 2.0, 1),
                     None)
    early, late = P.TableUpdated(table=before), P.TableUpdated(table=before)
    over = P.GameOver(totals=(3, 9, 0, 5), places=(1, 4, 2, 3), winners=(0,))
    effects = Effects(sends=[(1, early), (1, over), (1, late), (2, late), (1, P.Chat(text="x"))])
    show_new_ratings(effects, now)
    (_, first), (_, second), (_, a), (_, b), (_, chat) = effects.sends
    assert first is early and second is over and chat.TYPE == "chat"
    assert a is b  # one message to many stays one
    assert [(s.name, s.rating, s.games) if s else None for s in a.table.seats] == [
        ("Ann", 12.5, 4), ("Bob", 5.0, 3), None, ("Cy", None, 0)]  # (Bob's seat is
    # someone else's now; a seat free then, or free now, is as it was)


def test_no_game_over_no_change() -> None:
    update = P.TableUpdated(table=table_info(seat_info("Ann", 10.0, 3), None))
    effects = Effects(sends=[(1, update)])
    show_new_ratings(effects, table_info(seat_info("Ann", 20.0, 4), None))
    assert effects.sends == [(1, update)] and effects.sends[0][1] is update


# ----------------------------------------------------------------- restore: what the facts say

def test_the_seats_left_are_those_of_the_last_game_not_taken_since() -> None:
    assert seats_left([Fact("left", {"seat": 0}), Fact("game_started", {}),
                       Fact("left", {"seat": 1}), Fact("left", {"seat": "2"}),
                       Fact("left", {"seat": 3}), Fact("seat", {"seat": 3, "name": "Dan"}),
                       Fact("left", {"seat": 4})]) == {1, 4}
    assert seats_left([]) == set()


def test_each_seat_s_bank_is_what_it_had_left_after_its_last_decision() -> None:
    facts = [Fact("decision", {"seat": 0, "bank": 1.0}), Fact("game_started", {}),
             Fact("decision", {"seat": 0, "bank": 12.5}), Fact("decision", {"seat": 1, "bank": 50}),
             Fact("decision", {"seat": 2, "bank": -3.0}), Fact("decision", {"seat": 0, "bank": 8}),
             Fact("decision", {"seat": 3, "bank": 1.0}), Fact("decision", {"seat": -1, "bank": 1.0}),
             Fact("decision", {"seat": 1}), Fact("decision", {"seat": "1", "bank": 2.0})]
    assert banks_left(facts, 2, 4, 30.0) == {
        "game": 2, "left": [[0, 8.0], [1, 30.0], [2, 0.0], [3, 1.0]]}
    assert banks_left(facts, 2, 3, 30.0) == {
        "game": 2, "left": [[0, 8.0], [1, 30.0], [2, 0.0]]}  # no seat 3 at this table
    assert banks_left([Fact("decision", {"seat": 0, "bank": 2.0}), Fact("game_started", {}),
                       Fact("decision", {"seat": 0})], 1, 2, 30.0) is None


def test_the_seed_kept_is_the_game_s_while_it_plays_and_the_next_one_s_after() -> None:
    fair = FairDeal(bytes(range(32)), (b"a", b"b"))
    first = DealCommitment(bytes(32))
    later = DealCommitment(bytes([7] * 32)).contribute(1, b"\xb0")
    started = Fact("game_started", {"fair": fair_to_data(fair)})
    facts = [first.fact(), started, Fact("deal", {}), later.fact(), Fact("seat", {})]
    assert deal_kept(facts, playing=False) == (None, later)
    assert deal_kept(facts, playing=True) == (fair, DealCommitment.of_game(fair))
    assert deal_kept([first.fact(), started], playing=False) == (None, None)
    assert deal_kept([Fact("game_started", {"fair": None})], playing=True) == (None, None)
    assert deal_kept([first.fact()], playing=False) == (None, first)


# ----------------------------------------------------------------- restore: the table

SETTINGS = TableSettings(seats=3, rounds=1, step_delay=0.0, turn_time=45.0).validate()


def stored(seats: tuple[StoredSeat, ...], facts: tuple[Fact, ...] = (), *,
           settings: Any = None, spectators: tuple[StoredSpectator, ...] = (),
           persistent: bool = False) -> StoredTable:
    kept = {"table": asdict(SETTINGS), "persistent": persistent, "autostart": False}
    if settings is not None:
        kept = settings
    return StoredTable("t4", "Friday", {}, kept, "waiting", 100.0, 100.0, seats, facts,
                       len(facts), spectators)


def player(seat: int, name: str, token: str | None = "tok", kind: str = "human") -> StoredSeat:
    return StoredSeat(seat, name, kind, hash_token(f"{token}_{name:0>20}") if token else None,
                      None)


def test_a_waiting_table_comes_back_with_its_players_away_and_the_first_one_host() -> None:
    table = stored((StoredSeat(0, "Bot 1", "builtin", None, "random"), player(1, "Bea"),
                    player(2, "Cy", kind="bot")),
                   spectators=(StoredSpectator("Sue", "spectator", "h-sue"),
                               StoredSpectator("Bea", "human", player(1, "Bea").token_hash)))
    match, people = restore_match(table, now=50.0, members=[7, 8, 9, 10])
    assert [(p.member, p.seat, p.name, p.kind) for p in people] == [
        (7, 1, "Bea", "human"), (8, 2, "Cy", "bot"), (9, None, "Sue", "spectator")]
    assert people[0].token_hash == player(1, "Bea").token_hash
    assert match.status == "waiting" and match.info().host == 1
    bot, bea, cy = match.seats
    assert (bot.name, bot.strategy, bot.member) == ("Bot 1", "random", None)
    assert (bea.member, bea.away_since, bea.gone, cy.member, cy.client_kind) == (
        7, 50.0, False, 8, "bot")
    assert {m: (x.seat, x.connected, x.away_since) for m, x in match.members.items()} == {
        7: (1, False, None), 8: (2, False, None), 9: (None, False, 50.0)}


def test_a_waiting_table_s_seat_without_a_token_is_free() -> None:
    match, people = restore_match(stored((player(0, "Ann"), player(1, "Bob", token=None))),
                                  now=0.0, members=[1, 2])
    assert [p.name for p in people] == ["Ann"]
    assert match.seats[1] is None and match.info().host == 0


@pytest.mark.parametrize(("table", "message"), [
    (stored((), settings={}), "table t4: its stored settings cannot be used: 'table'"),
    (stored((), settings={"table": {"seats": 3, "colour": "red"}}),
     "table t4: its stored settings cannot be used: "),
    (stored((), settings={"table": {**asdict(SETTINGS), "seats": 11}}),
     "table t4: its stored settings cannot be used: "),
    (stored((player(3, "Dan"),)), "table t4: no seat 3"),
    (stored((player(4, "Eve"),)), "table t4: no seat 4"),
    (stored((player(-1, "Dan"),)), "table t4: no seat -1"),
])
def test_a_stored_table_that_cannot_be_used_says_why(table, message) -> None:
    with pytest.raises(RestoreError) as caught:
        restore_match(table, now=0.0, members=[1, 2, 3])
    assert str(caught.value).startswith(message)


def test_skip_only_a_bots_table_whose_game_never_started() -> None:
    assert skip_on_restore(stored((), persistent=True))
    assert not skip_on_restore(stored((), (Fact("game_started", {}),), persistent=True))
    assert not skip_on_restore(stored((), persistent=False))


# ----------------------------------------------------------------- the bots' kept states

def bots_at(*seats: SeatState | None, **settings: Any) -> TableBots:
    match = SimpleNamespace(seats=list(seats),
                            settings=replace(SETTINGS, **settings).validate())
    return TableBots("t1", match)  # type: ignore[arg-type]


def think(seat: int, strategy: str | None = None, seed: int | None = None,
          key: tuple[Any, ...] = ("commit", 1, 1)) -> Think:
    return Think(seat, key, None, strategy, seed)  # type: ignore[arg-type]


def test_which_strategies_think_for_a_while() -> None:
    assert [timed(s) for s in ("search", "hard", "mcs", "heuristic", "random", "easy")] == [
        True, True, True, False, False, False]


def test_a_bot_s_state_is_kept_while_it_holds_its_seat() -> None:
    bots = bots_at(SeatState(0, "Bot 1", strategy="search", seed=5),
                   SeatState(1, "Ann", member=1), None)
    bots.keep_state((0, "search", 5), b"bot", closed=False)
    bots.keep_state((1, None, None), b"fallback", closed=False)
    bots.keep_state((0, "search", 6), b"other seed", closed=False)  # not the bot seated
    bots.keep_state((0, "mcs", 5), b"other strategy", closed=False)
    bots.keep_state((2, None, None), b"free seat", closed=False)
    bots.keep_state((3, None, None), b"no such seat", closed=False)
    bots.keep_state((-1, None, None), b"no such seat", closed=False)
    assert [bots.state(s) for s in range(4)] == [b"bot", b"fallback", None, None]
    bots.keep_state((1, None, None), None, closed=False)  # a worker says: start afresh
    assert bots.state(1) is None
    bots.keep_state((1, None, None), b"late", closed=True)
    assert bots.state(1) is None


def test_a_state_too_big_is_not_kept(caplog: pytest.LogCaptureFixture) -> None:
    bots = bots_at(SeatState(0, "Bot 1", strategy="search", seed=5))
    bots.keep_state((0, "search", 5), bytes(MAX_STATE_BYTES), closed=False)
    assert bots.state(0) == bytes(MAX_STATE_BYTES)
    with caplog.at_level(logging.WARNING, "nimmt.server.table"):
        bots.keep_state((0, "search", 5), bytes(MAX_STATE_BYTES + 1), closed=False)
    assert bots.state(0) is None
    assert caplog.messages == [f"table=t1 seat=0: a strategy state of {MAX_STATE_BYTES + 1} "
                               f"bytes, more than {MAX_STATE_BYTES}: the bot starts afresh"]


def test_the_fallback_is_no_bot_at_a_bot_s_seat() -> None:
    bots = bots_at(SeatState(0, "Bot 1", strategy="search", seed=5))
    assert not bots.seated((0, None, None)) and bots.seated((0, "search", 5))
    assert not bots.seated((0, "mcs", 5)) and not bots.seated((0, "search", 4))
    big = SeatState(0, "Bot 1", strategy="search", seed=int("4000000000"))  # a drawn seed
    assert bots_at(big).seated((0, "search", int("4000000000")))  # equal, not the same object


def test_bots_gone_from_their_seats_are_forgotten_all_once_the_table_closes() -> None:
    seats: list[SeatState | None] = [SeatState(0, "Bot 1", strategy="heuristic", seed=5),
                                     SeatState(1, "Ann", member=1)]
    bots = bots_at(*seats)
    mine, fallback = bots.strategy(think(0, "heuristic", 5)), bots.strategy(think(1))
    assert bots.strategy(think(0, "heuristic", 5)) is mine  # made once, kept
    assert bots.strategy(think(1)) is fallback
    bots.keep_state((0, "heuristic", 5), b"s0", closed=False)
    bots.keep_state((1, None, None), b"s1", closed=False)
    bots.match.seats[0] = None  # the bot left its seat
    bots.forget_gone(closed=False)
    assert bots.state(0) is None and bots.state(1) == b"s1"
    assert bots.strategy(think(1)) is fallback
    bots.forget_gone(closed=True)
    assert bots.state(1) is None and bots.strategy(think(1)) is not fallback


def test_the_fallback_plays_the_table_s_fallback_strategy() -> None:
    bots = bots_at(SeatState(0, "Ann", member=1), fallback="random")
    assert type(bots.strategy(think(0))).__name__ == "RandomStrategy"
    assert type(bots.strategy(think(0, "heuristic", 3))).__name__ == "HeuristicStrategy"


def test_a_bot_has_as_long_as_a_person_for_each_kind_of_decision() -> None:
    bots = bots_at(None, turn_time=45.0, choice_time=20.0, draft_time=33.0)
    assert [bots.think_time(think(0, key=key)) for key in (
        ("commit", 1, 1), ("choice", 1, 1), ("draft", 1, 1), ())] == [45.0, 20.0, 33.0, 45.0]


class Pool:
    """A think pool that answers as it is told, and keeps what it was asked."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[tuple[Any, ...]] = []

    async def think(self, spec, seed, view, timeout, state=None, *, owner=None, group=None):
        self.asked.append((spec, seed, view, timeout, state, owner, group))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_a_worker_s_answer_and_its_state_are_kept_for_the_bot_s_next_decision() -> None:
    bots = bots_at(SeatState(0, "Bot 1", strategy="search", seed=5), turn_time=45.0)
    bots.group = "10.0.0.7"
    bots.keep_state((0, "search", 5), b"before", closed=False)
    pool = Pool(SimpleNamespace(decision="card 7", state=b"after", note=None, worker=99))
    decided = trio.run(bots.decide_away, pool, think(0, "search", 5), "search", lambda: False)
    assert decided == "card 7" and bots.state(0) == b"after"
    assert pool.asked == [("search", 5, None, 45.0, b"before", "t1", "10.0.0.7")]
    decided = trio.run(bots.decide_away, pool, think(0, "search", 5), "search", lambda: True)
    assert bots.state(0) is None  # the table closed meanwhile


def test_a_worker_that_fails_leaves_the_state_and_the_heuristic_decides(caplog) -> None:
    bots = bots_at(SeatState(0, "Bot 1", strategy="search", seed=5))
    assert TableBots("t2", bots.match).group == "t2"  # a table alone by default
    bots.keep_state((0, "search", 5), b"before", closed=False)
    view = SimpleNamespace()
    heuristic = SimpleNamespace(decide=lambda v: ("heuristic", v))
    import nimmt.server.tables.bots as bots_module
    with pytest.MonkeyPatch.context() as mp, caplog.at_level(logging.INFO, "nimmt.server.table"):
        mp.setattr(bots_module, "_EMERGENCY", heuristic)
        for failure, level in ((ThinkFailed("worker died"), logging.WARNING),
                               (PoolStopped("stopping"), logging.INFO)):
            caplog.clear()
            decided = trio.run(bots.decide_away, Pool(failure),
                               Think(0, ("commit", 1, 1), view, "search", 5),  # type: ignore[arg-type]
                               "search", lambda: False)
            assert decided == ("heuristic", view) and bots.state(0) == b"before"
            assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
                (level, f"table=t1 seat=0: {failure}; the heuristic decides")]


def test_a_worker_s_note_is_logged_with_its_pid(caplog) -> None:
    bots = bots_at(SeatState(0, "Bot 1", strategy="search", seed=5))
    pool = Pool(SimpleNamespace(decision="d", state=None, note="state not loaded", worker=42))
    with caplog.at_level(logging.WARNING, "nimmt.server.table"):
        trio.run(bots.decide_away, pool, think(0, "search", 5), "search", lambda: False)
    assert caplog.messages == ["table=t1 seat=0: search (worker pid 42): state not loaded"]


# ----------------------------------------------------------------- restore: a game in progress

def in_progress(players: int = 3) -> list[Fact]:
    """A game started and dealt, its first commits not made yet."""
    from nimmt.engine import Options

    from storage_helpers import play_game

    _, facts = play_game(Options(players=players, rounds=2), seed=5)
    return facts[:2]


def test_a_player_who_left_the_game_in_progress_is_played_for_at_once() -> None:
    facts = in_progress() + [Fact("left", {"seat": 1})]
    table = stored((player(0, "Ann"), player(1, "Bob"), player(2, "Cy", token=None)),
                   tuple(facts))
    match, people = restore_match(table, now=70.0, members=[5, 6, 7])
    assert [(p.member, p.seat) for p in people] == [(5, 0)]
    assert match.status == "playing" and match.info().host == 0
    ann, bob, cy = match.seats
    assert (ann.member, ann.gone, ann.away_since) == (5, False, 70.0)
    assert (bob.member, bob.gone, bob.away_since, bob.name) == (None, True, 70.0, "Bob")
    assert (cy.member, cy.gone, cy.away_since) == (None, True, 70.0)  # no token: gone too


def test_a_game_in_progress_needs_every_seat_and_as_many_players_as_seats() -> None:
    seats = (player(0, "Ann"), player(1, "Bob"))
    with pytest.raises(RestoreError) as caught:
        restore_match(stored(seats, tuple(in_progress())), now=0.0, members=[1, 2])
    assert str(caught.value) == "table t4: a game in progress with a free seat"
    with pytest.raises(RestoreError) as caught:
        restore_match(stored(seats, tuple(in_progress(2))), now=0.0, members=[1, 2])
    assert str(caught.value) == "table t4: its game has 2 players and the table 3 seats"


def test_a_seat_left_in_a_game_that_is_over_and_kept_is_free_and_the_others_come_back() -> None:
    from nimmt.engine import Options

    from storage_helpers import play_game

    _, facts = play_game(Options(players=3, rounds=1), seed=9)
    facts += [Fact("left", {"seat": 2}), Fact("game_over", {"game": 1, "game_id": 4})]
    table = stored((player(0, "Ann"), StoredSeat(1, "Bot 1", "builtin", None, "heuristic"),
                    player(2, "Cy")), tuple(facts))
    match, people = restore_match(table, now=5.0, members=[3, 4])
    assert match.status == "over" and match.seats[2] is None
    assert [(p.member, p.seat) for p in people] == [(3, 0)]
    assert (match.seats[1].strategy, match.seats[1].name) == ("heuristic", "Bot 1")


def test_a_restored_game_dealt_from_a_seed_is_kept_with_its_seed() -> None:
    """Killed after the last decision of a game dealt verifiably, before it was kept:
    the table keeps it on its first wake with the seed and contributions it was dealt
    from (what ``nimmt-replay verify`` checks)."""
    from nimmt.engine import AwaitingDeal, Game, deal_round
    from nimmt.engine.records import claim_for
    from nimmt.server.storage.facts import deal_fact, decision_fact, game_started_fact

    options = SETTINGS.game_options()  # (the table's: 3 seats, one round)
    fair = FairDeal(bytes(range(32)), (b"a", b"b", b"c"))
    game = Game(options)
    facts = [game_started_fact(1, options, fair_to_data(fair))]
    while not game.is_over:
        if isinstance(game.pending, AwaitingDeal):
            deal = deal_round(options, game.round, fair, [])
            game.deal(deal)
            facts.append(deal_fact(deal))
            continue
        decision = game.legal_decisions(min(game.pending.seats))[0]
        game.apply(decision)
        facts.append(decision_fact(decision, by="player"))
    table = stored((player(0, "Ann"), player(1, "Bob"), player(2, "Cy")), tuple(facts))
    match, _ = restore_match(table, now=0.0, members=[1, 2, 3])
    done = match.wake(0.0, 1000.0).finished
    assert done is not None and done.record.fair_deal == claim_for(fair)
