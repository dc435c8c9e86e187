"""The think queue keeps a worker free for another address (issue 42, attack 3),
exactly: which decision each worker takes, and when, for given arrivals. Plain code,
no trio: a small simulation of N workers (times in ms, each decision 100 ms).

A flooding address keeps the queue full; a victim's bot asks 150 ms in, then again
5 ms after each answer (a bot-only table). With the turns alone the victim's second
and third decisions wait 95 ms for a flooding one to end; with workers kept, none
after its first: the flood holds one worker while the victim is about."""

from __future__ import annotations

import heapq

import pytest
from collections.abc import Iterable

from nimmt.server.thinking.queue import ThinkQueue

Arrival = tuple[int, str, str]  # (time, group, item); an item's owner is its first letter


def simulate(q: ThinkQueue[str], workers: int, arrivals: Iterable[Arrival],
             then: dict[str, str] | None = None, gap: int = 5,
             duration: int = 100) -> list[tuple[int, str]]:
    """(time, item) as the workers take them. ``then[item]``: the item its group asks
    for ``gap`` ms after ``item`` is answered."""
    then = then or {}
    pending = sorted(arrivals, key=lambda a: a[0])  # (stable: in order at one time)
    running: list[tuple[int, int, str]] = []  # (end, order taken, item)
    group_of = {item: group for _, group, item in pending}
    taken: list[tuple[int, str]] = []
    now = 0
    while True:
        while running and running[0][0] == now:
            _, _, item = heapq.heappop(running)
            q.finished(item, now / 1000)
            if item in then:
                follow = then[item]
                group_of[follow] = group_of[item]
                pending.append((now + gap, group_of[item], follow))
                pending.sort(key=lambda a: a[0])
        while pending and pending[0][0] == now:
            _, group, item = pending.pop(0)
            assert q.push(item[0], item, group, now / 1000) is None
        while len(running) < workers and (item := q.pop(now / 1000)) is not None:
            taken.append((now, item))
            heapq.heappush(running, (now + duration, len(taken), item))
        times = [running[0][0]] if running else []
        times += [pending[0][0]] if pending else []
        wake = q.wake_at()
        if len(q) and len(running) < workers and wake is not None:
            times.append(round(wake * 1000))
        if not times:
            return taken
        now = min(times)


def flood(count: int, group: str = "flood", letter: str = "F") -> list[Arrival]:
    return [(0, group, f"{letter}{n}") for n in range(1, count + 1)]


VICTIM = [(150, "victim", "v1")]
THEN = {"v1": "v2", "v2": "v3"}


def victim_waits(taken: list[tuple[int, str]]) -> list[int]:
    """The victim's decisions: how long each waited for a worker."""
    asked = {"v1": 150}
    out = []
    for time, item in taken:
        if item.startswith("v"):
            out.append(time - asked[item])
            if item in THEN:
                asked[THEN[item]] = time + 100 + 5
    return out


def queue(workers: int | None) -> ThinkQueue[str]:
    return ThinkQueue[str](per_owner=50, total=100, workers=workers, active_for=1.0)


def test_with_turns_alone_the_victim_waits_for_a_flooding_decision_each_time() -> None:
    taken = simulate(queue(None), 2, flood(12) + VICTIM, THEN)
    assert taken[:12] == [(0, "F1"), (0, "F2"), (100, "F3"), (100, "F4"),
                          (200, "v1"), (200, "F5"), (300, "F6"), (300, "F7"),
                          (400, "v2"), (400, "F8"), (500, "F9"), (500, "F10")]
    assert victim_waits(taken) == [50, 95, 95]


def test_a_worker_is_kept_for_the_victim_while_it_is_about() -> None:
    taken = simulate(queue(2), 2, flood(16) + VICTIM, THEN)
    assert taken == [
        (0, "F1"), (0, "F2"),  # nobody else about: the flood takes both workers
        (100, "F3"), (100, "F4"),
        (200, "v1"), (200, "F5"),  # the victim's first waited for a running decision
        (300, "F6"),  # the victim was answered: the other worker is kept for it
        (305, "v2"),  # taken at once
        (400, "F7"),
        (410, "v3"),
        (500, "F8"), (600, "F9"), (700, "F10"), (800, "F11"), (900, "F12"),
        (1000, "F13"), (1100, "F14"), (1200, "F15"),
        (1300, "F16"),
    ]
    assert victim_waits(taken) == [50, 0, 0]


def test_the_kept_worker_is_released_when_the_victim_has_been_quiet_for_active_for() -> None:
    q = queue(2)
    taken = simulate(q, 2, flood(30) + VICTIM, THEN)
    # the victim's last answer: 510 ms; kept until 1510 ms, then both workers flood
    late = [(t, item) for t, item in taken if 1400 <= t <= 1700]
    assert late == [(1400, "F17"), (1500, "F18"), (1510, "F19"), (1600, "F20"),
                    (1610, "F21"), (1700, "F22")]
    assert q.holding("flood") == 0 and len(q) == 0


def test_one_address_alone_gets_every_worker() -> None:
    taken = simulate(queue(3), 3, flood(6))
    assert taken == [(0, "F1"), (0, "F2"), (0, "F3"), (100, "F4"), (100, "F5"), (100, "F6")]


def test_with_one_worker_nothing_is_kept_and_the_victim_goes_next() -> None:
    kept = simulate(queue(1), 1, flood(8) + VICTIM, THEN)
    alone = simulate(queue(None), 1, flood(8) + VICTIM, THEN)
    assert kept == alone
    assert kept[:6] == [(0, "F1"), (100, "F2"), (200, "v1"), (300, "F3"), (400, "v2"),
                        (500, "F4")]
    assert victim_waits(kept) == [50, 95, 95]


def test_two_flooding_addresses_share_what_is_not_kept() -> None:
    arrivals = flood(8) + flood(8, "flood2", "G") + VICTIM
    taken = simulate(queue(2), 2, arrivals, THEN)
    assert taken[:9] == [
        (0, "F1"), (0, "G1"), (100, "F2"), (100, "G2"),
        (200, "v1"), (200, "F3"),  # the victim first: it is new; then F's turn
        (300, "G3"),  # one worker kept for the victim: the floods take turns on the other
        (305, "v2"),
        (400, "F4"),
    ]
    assert victim_waits(taken) == [50, 0, 0]


def test_a_group_holding_no_worker_goes_before_one_holding_one() -> None:
    q = queue(3)
    for owner, group in (("F", "flood"), ("G", "other")):
        for n in (1, 2, 3):
            q.push(owner, f"{owner}{n}", group)
    assert [q.pop(), q.pop()] == ["F1", "G1"]
    q.finished("G1", 0.0)
    q.finished("G1", 0.0)  # again: nothing
    assert (q.holding("flood"), q.holding("other")) == (1, 0)
    # F's turn comes first, but F holds a worker and G none
    assert q.pop(0.0) == "G2"
    assert q.pop(0.0) == "F2"  # (the third worker: nobody is kept for)
    q.finished("G2", 0.2)
    q.finished("F1", 0.2)
    q.remove("G", "G3")  # G has nothing waiting now, and was answered at 0.2
    assert q.pop(0.5) == "F3"  # two workers free: F takes one, the other is kept
    q.push("F", "F4", "flood", 0.5)
    assert q.pop(0.5) is None and q.wake_at() == 1.2  # kept for G until 1.2
    assert q.pop(1.2) == "F4"


def test_an_item_given_back_is_not_running_any_more() -> None:
    q = queue(2)
    q.push("F", "F1", "flood")
    assert q.pop() == "F1" and q.holding("flood") == 1
    q.finished("F1", 0.0)  # its worker died before it ran: given back
    q.push_front("F", "F1", "flood")
    assert q.holding("flood") == 0 and q.pop() == "F1" and q.holding("flood") == 1


def test_no_worker_idles_while_the_groups_waiting_need_it_and_nobody_else_is_about() -> None:
    """Two groups waiting, one worker busy with a third's: the free one is taken (the
    groups waiting are not "about" for each other: nothing is kept for them)."""
    q = queue(2)
    q.push("B", "B1", "b")
    assert q.pop() == "B1"
    q.push("F", "F1", "f")
    q.push("G", "G1", "g")
    assert q.pop() == "F1"


# ------------------------------------------------------------- the keeping's bounds, exactly
def answered(q: ThinkQueue[str], group: str, item: str, at: float) -> None:
    """``group`` asks for ``item`` at ``at``, a worker takes it and answers at once."""
    assert q.push(item, item, group, at) is None
    assert q.pop(at) == item
    q.finished(item, at)


def flood_taken(q: ThinkQueue[str], count: int, at: float) -> list[str]:
    """A flood of ``count`` decisions queued at ``at``: the ones the free workers take."""
    for n in range(1, count + 1):
        q.push(f"F{n}", f"F{n}", "flood", at)
    taken = []
    while (item := q.pop(at)) is not None:
        taken.append(item)
    return taken


def test_with_three_workers_each_quiet_address_keeps_one_and_the_flood_keeps_one():
    """Kept: one worker for each other address that is about, at most workers - 1."""
    q: ThinkQueue[str] = ThinkQueue(per_owner=10, total=100, workers=3)
    answered(q, "ann", "a1", 0.0)
    assert flood_taken(q, 5, 0.1) == ["F1", "F2"]  # one kept for Ann
    q = ThinkQueue(per_owner=10, total=100, workers=3)
    answered(q, "ann", "a1", 0.0)
    answered(q, "bob", "b1", 0.0)
    assert flood_taken(q, 5, 0.1) == ["F1"]  # one each for Ann and Bob
    q = ThinkQueue(per_owner=10, total=100, workers=3)
    for name in ("ann", "bob", "cy"):
        answered(q, name, name[0] + "1", 0.0)
    assert flood_taken(q, 5, 0.1) == ["F1"]  # never more than workers - 1 kept
    q = ThinkQueue(per_owner=10, total=100, workers=2)
    for name in ("ann", "bob"):
        answered(q, name, name[0] + "1", 0.0)
    assert flood_taken(q, 5, 0.1) == ["F1"]  # of two workers, one kept however many wait


def test_an_address_is_about_for_five_seconds_after_its_answer_then_the_flood_has_every_worker():
    q: ThinkQueue[str] = ThinkQueue(per_owner=10, total=100, workers=2)
    answered(q, "ann", "a1", 10.0)
    assert flood_taken(q, 5, 14.99) == ["F1"]
    assert q.wake_at() == 15.0  # when Ann's worker stops being kept
    assert q.pop(15.5) == "F2"  # 5 s after her answer: she is quiet
    q.finished("F1", 16.0)
    assert q.pop(16.0) == "F3"  # and stays so: both workers the flood's
    assert q.wake_at() is None


def test_a_queue_that_keeps_workers_needs_at_least_one():
    with pytest.raises(ValueError, match="at least one worker"):
        ThinkQueue(per_owner=1, total=1, workers=0)
    assert ThinkQueue(per_owner=1, total=1, workers=1).workers == 1


def test_with_four_workers_two_quiet_addresses_leave_the_flood_two():
    q: ThinkQueue[str] = ThinkQueue(per_owner=10, total=100, workers=4)
    answered(q, "ann", "a1", 0.0)
    answered(q, "bob", "b1", 0.0)
    assert flood_taken(q, 5, 0.1) == ["F1", "F2"]


def test_an_address_that_asked_is_about_even_if_its_question_was_withdrawn():
    """Asking counts as being about (not only an answer): a table that asked and then
    went (its question taken back) still keeps a worker for a while."""
    q: ThinkQueue[str] = ThinkQueue(per_owner=10, total=100, workers=2)
    assert q.push("a1", "a1", "ann", 0.0) is None
    assert q.remove("a1", "a1")
    assert flood_taken(q, 5, 0.1) == ["F1"]
    assert q.wake_at() == 5.0


def test_nothing_is_kept_for_an_address_that_only_waits_for_a_worker():
    """A waiting address is not kept a worker by time: it waits for the next free one
    (it goes first then), so no wake-up time is set for it."""
    q: ThinkQueue[str] = ThinkQueue(per_owner=10, total=100, workers=2)
    for n in range(1, 6):
        q.push(f"F{n}", f"F{n}", "flood", 0.0)
    assert [q.pop(0.0), q.pop(0.0)] == ["F1", "F2"]  # both workers busy
    assert q.push("v1", "v1", "victim", 1.0) is None
    assert q.wake_at() is None
    q.finished("F1", 1.1)
    assert q.pop(1.1) == "v1"


def test_when_full_the_newest_of_the_longest_address_s_longest_line_is_refused_not_another_s():
    """The longest address (most waiting) gives up a place, from its own longest line,
    even when another address has a longer single line."""
    for other in ("b", "x"):  # an address that sorts before the longest one, and after
        q: ThinkQueue[str] = ThinkQueue(per_owner=10, total=11)
        for table in ("M1", "M2", "M3"):
            for n in range(2):
                assert q.push(table, f"{table}.{n}", "m") is None
        for n in range(5):
            assert q.push("O", f"O.{n}", other) is None
        assert q.push("N", "N.0", "a" if other == "x" else "z") == "M1.1"
