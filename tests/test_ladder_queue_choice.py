"""The ladder queue's choices nothing pinned before (issue 43), sans-IO
(``server/ladder/queue.py``): among windows of equal spread, the one holding the
longest waiting player; the window of least spread whatever its place; the places told;
a server no longer full; the tables filled with bots."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.server.ladder.queue import Entry, LadderQueue


# ---------------------------------------------------------------- the queue's windows
def _entry(who: int, rating: float, since: float) -> Entry:
    return Entry(who, f"p{who}", "k", 2, rating, since, None, "easy")


def test_of_windows_of_equal_spread_the_queue_takes_the_one_holding_the_longest_waiting():
    """Ratings 10, 20, 30, 40 (every window of two spreads 10); the player rated 30
    waits longest: the table is 20 and 30 (the first such window), in the order they
    queued; then 10 and 40 wait, and form the next."""
    q = LadderQueue()
    for who, rating, since in ((1, 10.0, 3.0), (2, 20.0, 4.0), (3, 30.0, 1.0),
                               (4, 40.0, 2.0), (5, 50.0, 5.0)):
        q.add(_entry(who, rating, since))
    formed = q.form(now=10.0, room=1)
    assert [[e.who for e in f.players] for f in formed] == [[3, 2]]
    assert [e.who for e in q] == [1, 4, 5]
    formed = q.form(now=10.0, room=1)  # 10, 40, 50: 40 and 50 spread least
    assert [[e.who for e in f.players] for f in formed] == [[4, 5]]


def test_of_equal_windows_holding_the_same_longest_waiting_the_lower_rated_is_taken():
    q = LadderQueue()
    for who, rating, since in ((1, 10.0, 2.0), (2, 20.0, 1.0), (3, 30.0, 3.0)):
        q.add(_entry(who, rating, since))
    assert [[e.who for e in f.players] for f in q.form(now=10.0, room=5)] == [[2, 1]]
    assert [e.who for e in q] == [3]


@settings(max_examples=80, deadline=None)
@given(ratings=st.lists(st.sampled_from([0.0, 5.0, 10.0, 15.0, 20.0]), min_size=3, max_size=7),
       seed=st.integers(0, 1000))
def test_the_pair_formed_spreads_least_and_holds_the_longest_waiting_of_such_pairs(
        ratings: list[float], seed: int):
    order = list(range(len(ratings)))
    random.Random(seed).shuffle(order)
    q = LadderQueue()
    for who, rating in enumerate(ratings):
        q.add(_entry(who, rating, float(order[who])))
    (formed,) = q.form(now=0.0, room=1)
    a, b = formed.players
    assert a.since < b.since
    spread = abs(a.rating - b.rating)
    by_rating = sorted(ratings)
    least = min(y - x for x, y in zip(by_rating, by_rating[1:]))
    assert spread == least
    # nobody waiting longer than both could have made a pair that close
    earliest = min(a.since, b.since)
    for e in q:
        if e.since < earliest:
            assert all(abs(e.rating - o.rating) > least for o in [*q, a, b] if o is not e), e


def _waiting(who: int, rating: float, since: float, *, seats: int = 4,
             fill_after: float | None = 10.0, kind: str = "k") -> Entry:
    return Entry(who, f"p{who}", kind, seats, rating, since, fill_after, "easy")


def test_each_waiting_player_is_told_its_own_place_in_line():
    q = LadderQueue()
    for who in (7, 3, 9, 1):
        q.add(_waiting(who, 0.0, float(who)))
    assert [q.position(who) for who in (7, 3, 9, 1)] == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_the_server_no_longer_full_is_told_though_nobody_moved():
    q = LadderQueue()
    q.add(_waiting(1, 0.0, 0.0))
    q.told(1, False)
    assert [(s.entry.who, s.server_full) for s in q.refresh(True)] == [(1, True)]
    assert not q.stale(True)
    assert q.stale(False)  # the server has room again: Ann must hear it
    assert [(s.entry.who, s.server_full) for s in q.refresh(False)] == [(1, False)]
    assert not q.stale(False)


def test_a_table_filled_with_bots_takes_those_who_accept_bots_earlier_or_later():
    """Cy's wait ran out: those of her kind who accept bots sit with her, whether they
    came before or after her (higher or lower rated); Eve, who never plays with bots,
    and a player of another kind wait on."""
    q = LadderQueue()
    q.add(_waiting(1, 0.0, 0.0, seats=6, fill_after=100.0))
    q.add(_waiting(2, 30.0, 1.0, seats=6, fill_after=100.0))
    q.add(_waiting(3, 10.0, 2.0, seats=6, fill_after=5.0))     # Cy: due at 7
    q.add(_waiting(4, 11.0, 3.0, seats=6, fill_after=None))    # Eve: no bots
    q.add(_waiting(5, 12.0, 4.0, seats=6, fill_after=100.0))
    q.add(_waiting(6, 10.0, 0.0, seats=6, fill_after=100.0, kind="other"))
    (table,) = q.form(now=7.0, room=5)
    assert (table.filled_for, [e.who for e in table.players], table.bots) == (
        3, [1, 2, 3, 5], 2)
    assert [e.who for e in q] == [4, 6]


def test_a_table_of_six_filled_for_one_takes_every_other_who_accepts_bots():
    q = LadderQueue()
    for who in range(1, 6):  # five of six seats wait; the first one's wait runs out
        q.add(_waiting(who, float(who), float(who), seats=6,
                       fill_after=1.0 if who == 1 else 100.0))
    (table,) = q.form(now=2.0, room=1)
    assert ([e.who for e in table.players], table.bots) == ([1, 2, 3, 4, 5], 1)


def test_an_entry_taken_into_anothers_filled_table_does_not_stop_the_next_due():
    q = LadderQueue()
    q.add(_waiting(1, 0.0, 0.0, fill_after=1.0))
    q.add(_waiting(2, 1.0, 0.5, fill_after=1.0))  # due too: taken into 1's table
    q.add(_waiting(3, 0.0, 1.0, fill_after=1.0, kind="other"))
    formed = q.form(now=5.0, room=5)
    assert [(f.filled_for, [e.who for e in f.players]) for f in formed] == [
        (1, [1, 2]), (3, [3])]
    assert len(q) == 0


def test_of_three_seats_the_window_with_the_least_spread_is_taken_not_the_longest_waiting():
    q = LadderQueue()
    for who, rating, since in ((1, 0.0, 0.0), (2, 1.0, 1.0), (3, 10.0, 2.0),
                               (4, 11.0, 3.0), (5, 12.0, 4.0)):
        q.add(_waiting(who, rating, since, seats=3, fill_after=None))
    (table,) = q.form(now=0.0, room=1)
    assert [e.who for e in table.players] == [3, 4, 5]


def test_of_three_the_best_pair_may_be_the_last_window():
    q = LadderQueue()
    for who, rating in ((1, 0.0), (2, 10.0), (3, 12.0)):
        q.add(_waiting(who, rating, float(who), seats=2, fill_after=None))
    (table,) = q.form(now=0.0, room=1)
    assert [e.who for e in table.players] == [2, 3]
