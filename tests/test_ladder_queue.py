"""Issue 27 item 3, the queue's decisions (sans-IO ``server.ladder_queue``): tables of
N as soon as N wait, the closest ratings first, bots after an entry's wait, a
full server, and entries that leave no trace."""

from __future__ import annotations

import math
import random

from nimmt.server.ladder.queue import Entry, LadderQueue, Standing


def entry(who: int, rating: float = 0.0, *, since: float = 0.0, seats: int = 4,
          fill_after: float | None = None, kind: str = "classic", level: str = "easy") -> Entry:
    return Entry(who, f"p{who}", kind, seats, rating, since, fill_after, level)


def seated(formed) -> list[list[int]]:
    return [[e.who for e in f.players] for f in formed]


def test_a_table_forms_as_soon_as_its_seats_wait():
    queue = LadderQueue()
    for who in (1, 2, 3):
        queue.add(entry(who, since=who))
        assert queue.form(10.0, room=5) == []
    queue.add(entry(4, since=4))
    (table,) = queue.form(10.0, room=5)
    assert [e.who for e in table.players] == [1, 2, 3, 4] and table.bots == 0
    assert len(queue) == 0 and queue.waiting("classic") == 0


def test_with_more_waiting_than_seats_the_closest_ratings_play_together():
    queue = LadderQueue()
    ratings = {1: 30.0, 2: 1.0, 3: 12.0, 4: 29.0, 5: 2.5, 6: 31.0, 7: 0.0}
    for who, rating in ratings.items():
        queue.add(entry(who, rating, since=who, seats=3))
    formed = queue.form(0.0, room=5)
    # 29, 30, 31 (spread 2) first, then 0, 1, 2.5 (spread 2.5); 12 waits
    assert seated(formed) == [[1, 4, 6], [2, 5, 7]]
    assert [e.who for e in queue] == [3]


def test_equal_spreads_go_to_the_group_holding_the_longest_waiting():
    queue = LadderQueue()
    for who, rating in ((1, 10.0), (2, 0.0), (3, 20.0)):
        queue.add(entry(who, rating, since=who, seats=2))
    assert seated(queue.form(0.0, room=1)) == [[1, 2]]


def test_a_wait_that_runs_out_fills_the_table_with_bots_of_the_level_asked():
    queue = LadderQueue()
    queue.add(entry(1, 5.0, since=0.0, fill_after=30.0, level="normal"))
    queue.add(entry(2, 9.0, since=1.0, fill_after=300.0))
    queue.add(entry(3, 5.5, since=2.0, fill_after=None))  # never with bots
    queue.add(entry(4, 0.0, since=3.0, fill_after=100.0, kind="pro"))
    assert queue.next_fill() == 30.0
    assert queue.form(29.9, room=5) == []
    (table,) = queue.form(30.0, room=5)
    # 1's wait ran out: with 2 (accepts bots), without 3 (never), not 4 (another kind)
    assert [e.who for e in table.players] == [1, 2]
    assert (table.bots, table.bot_level, table.filled_for) == (2, "normal", 1)
    assert sorted(e.who for e in queue) == [3, 4] and queue.next_fill() == 103.0
    (alone,) = queue.form(103.0, room=5)
    assert [e.who for e in alone.players] == [4] and alone.bots == 3
    assert queue.next_fill() == math.inf and [e.who for e in queue] == [3]


def test_a_full_server_keeps_the_queue_waiting():
    queue = LadderQueue()
    for who in range(1, 5):
        queue.add(entry(who, since=who, seats=2))
    queue.add(entry(9, since=0.0, seats=2, fill_after=0.0, kind="pro"))
    assert len(queue.form(5.0, room=0)) == 0 and len(queue) == 5
    assert seated(queue.form(5.0, room=1)) == [[1, 2]]
    assert seated(queue.form(5.0, room=2)) == [[3, 4], [9]]


def test_left_and_replaced_entries_leave_no_trace():
    queue = LadderQueue()
    queue.add(entry(1, since=0.0, seats=2, fill_after=10.0))
    assert queue.remove(1) is not None and queue.remove(1) is None
    assert (len(queue), queue.waiting("classic"), queue.next_fill()) == (0, 0, math.inf)
    assert queue.by_name("p1") is None and queue._kinds == {}
    assert queue.form(100.0, room=5) == []
    # a second queue request of one session replaces the first: one entry, the new kind
    queue.add(entry(2, since=0.0, seats=2, kind="classic"))
    old = queue.add(entry(2, since=1.0, seats=2, kind="pro"))
    assert old is not None and old.kind == "classic"
    assert (queue.waiting("classic"), queue.waiting("pro"), queue.position(2)) == (0, 1, (1, 1))
    queue.add(entry(3, since=2.0, seats=2, kind="classic"))
    assert queue.form(5.0, room=5) == []  # 2 no longer waits for "classic"


def test_under_random_arrivals_leaves_and_waits_no_one_is_seated_twice_or_forgotten():
    rng = random.Random(27)
    queue = LadderQueue()
    queued: set[int] = set()
    left: set[int] = set()
    seated_once: list[int] = []
    now = 0.0
    for who in range(1, 2001):
        now += rng.random()
        seats = rng.choice((2, 3, 4, 10))
        fill = rng.choice((None, 5.0, 30.0))
        queue.add(entry(who, rng.gauss(0, 10), since=now, seats=seats, fill_after=fill,
                        kind=f"k{seats}"))
        queued.add(who)
        if rng.random() < 0.1:
            gone = rng.choice(sorted(queued - left - set(seated_once)))
            assert queue.remove(gone) is not None
            left.add(gone)
        for table in queue.form(now, room=rng.choice((0, 1, 3, 100))):
            players = [e.who for e in table.players]
            assert len(players) + table.bots == table.seats
            assert all(e.kind == table.kind for e in table.players)
            assert table.bots == 0 or table.filled_for in players
            assert not set(players) & left
            seated_once += players
    assert len(seated_once) == len(set(seated_once))  # no one seated twice
    waiting = {e.who for e in queue}
    assert waiting | set(seated_once) | left == queued  # no one forgotten
    assert not waiting & set(seated_once) and not waiting & left


def told(standings: list[Standing]) -> dict[int, tuple[int, int, bool]]:
    return {s.entry.who: (s.position, s.waiting, s.server_full) for s in standings}


def test_those_waiting_are_told_again_when_their_place_count_or_a_full_server_changes():
    queue = LadderQueue()
    for who in (1, 2, 3):
        queue.add(entry(who, since=who, seats=3))
        queue.told(who, False)  # the reply to each queue request
    queue.add(entry(7, since=7, seats=2, kind="pair"))
    queue.told(7, False)
    # 1 was told "1 waiting", 2 "2 waiting": both hear 3 wait now; 3 and 7 know
    assert told(queue.refresh(False)) == {1: (1, 3, False), 2: (2, 3, False)}
    assert not queue.stale(False) and queue.refresh(False) == []
    queue.remove(2)  # left the queue: 3 moves up, 1 hears the count
    assert queue.stale(False)
    assert told(queue.refresh(False)) == {1: (1, 2, False), 3: (2, 2, False)}
    # the server fills up: everyone waiting, of every kind, hears it once
    assert queue.stale(True)
    assert told(queue.refresh(True)) == {1: (1, 2, True), 3: (2, 2, True), 7: (1, 1, True)}
    assert queue.refresh(True) == []
    # a table formed without 1 and 3 (another kind) tells them nothing
    queue.add(entry(8, since=8, seats=2, kind="pair"))
    queue.told(8, True)
    assert seated(queue.form(9.0, room=1)) == [[7, 8]]
    assert queue.refresh(True) == []
    # room again: 1 and 3 hear it
    assert told(queue.refresh(False)) == {1: (1, 2, False), 3: (2, 2, False)}


def test_many_changes_between_refreshes_tell_each_waiting_entry_once():
    queue = LadderQueue()
    for who in range(1, 501):  # a crowd arrives, and some leave, before one refresh
        queue.add(entry(who, since=who, seats=10, kind="big"))
        if who % 5 == 0:
            queue.remove(who - 1)
    standings = queue.refresh(False)
    assert sorted(s.entry.who for s in standings) == sorted(e.who for e in queue)
    assert [s.position for s in standings] == list(range(1, 401))
    assert {s.waiting for s in standings} == {400}
    assert queue.refresh(False) == []
