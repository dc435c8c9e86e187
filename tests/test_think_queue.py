"""The think pool's queue (server/thinking/queue.py), exactly: its bounds, which line
gives up a place when the queue is full, the tables' turns, and taking items out.

The queue decides which table's bot thinks next and which bot falls back to the
cheap strategy when the workers are busy; a player notices a wrong choice as a
bot that plays badly (it was refused) or late (it waited for another table's many).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.server.thinking.queue import ThinkQueue


def fill(q: ThinkQueue[str], owner: str, count: int) -> list[str]:
    items = [f"{owner}{i}" for i in range(1, count + 1)]
    for item in items:
        assert q.push(owner, item) is None
    return items


def drain(q: ThinkQueue[str]) -> list[str]:
    out = []
    while (item := q.pop()) is not None:
        out.append(item)
    return out


@pytest.mark.parametrize("per_owner, total", [(0, 5), (5, 0), (-1, 5), (0, 0)])
def test_a_queue_that_could_hold_nothing_is_refused(per_owner: int, total: int) -> None:
    with pytest.raises(ValueError, match="at least one decision per table and in all"):
        ThinkQueue[str](per_owner=per_owner, total=total)


def test_the_smallest_queue_holds_one() -> None:
    q = ThinkQueue[str](per_owner=1, total=1)
    assert q.push("A", "a1") is None
    assert q.push("A", "a2") == "a2"
    assert q.push("B", "b1") == "b1"  # B's line would be as long as A's: it waits its turn
    assert (len(q), q.waiting("A"), q.waiting("B")) == (1, 1, 0)
    assert drain(q) == ["a1"]


def test_a_line_takes_exactly_per_owner_items() -> None:
    q = ThinkQueue[str](per_owner=3, total=100)
    assert fill(q, "A", 3) == ["A1", "A2", "A3"]
    assert q.push("A", "A4") == "A4"  # the first over the bound is refused
    assert q.waiting("A") == 3 and len(q) == 3
    assert q.pop() == "A1"
    assert q.push("A", "A5") is None  # room again: the last under the bound waits
    assert drain(q) == ["A2", "A3", "A5"]


def test_when_full_the_newest_of_the_longest_line_makes_room_for_a_shorter_one() -> None:
    q = ThinkQueue[str](per_owner=5, total=4)
    fill(q, "A", 3)
    fill(q, "B", 1)
    assert len(q) == 4
    # C's line would be 1 long, A's is 3: A gives up its newest
    assert q.push("C", "C1") == "A3"
    assert (len(q), q.waiting("A"), q.waiting("B"), q.waiting("C")) == (4, 2, 1, 1)
    assert drain(q) == ["A1", "B1", "C1", "A2"]


def test_when_full_a_line_exactly_as_long_as_the_newcomers_would_be_keeps_its_place() -> None:
    q = ThinkQueue[str](per_owner=5, total=4)
    fill(q, "A", 2)
    fill(q, "B", 2)
    # B's line would be 3; A's is 2 < 3: A is shorter, so B's newcomer is refused
    assert q.push("B", "B3") == "B3"
    q2 = ThinkQueue[str](per_owner=5, total=3)
    fill(q2, "A", 2)
    fill(q2, "B", 1)
    # B's line would be 2, A's is exactly 2: nobody is longer, the newcomer is refused
    assert q2.push("B", "B2") == "B2"
    assert drain(q2) == ["A1", "B1", "A2"]
    q3 = ThinkQueue[str](per_owner=5, total=3)
    fill(q3, "A", 3)
    # a new line would be 1; A's 3 is longer by 2: A gives up A3
    assert q3.push("B", "B1") == "A3"


def test_between_equally_long_lines_the_oldest_line_gives_up_its_newest() -> None:
    q = ThinkQueue[str](per_owner=5, total=6)
    fill(q, "A", 3)
    fill(q, "B", 3)
    assert q.push("C", "C1") == "A3"
    assert q.push("C", "C2") == "B3"
    assert q.push("C", "C3") == "C3"  # every line is now 2 long: C's third is refused
    assert drain(q) == ["A1", "B1", "C1", "A2", "B2", "C2"]


def test_lines_take_turns_and_a_line_that_empties_leaves_the_round() -> None:
    q = ThinkQueue[str](per_owner=10, total=100)
    fill(q, "A", 3)
    fill(q, "B", 1)
    fill(q, "C", 2)
    assert [q.pop(), q.pop(), q.pop()] == ["A1", "B1", "C1"]
    # B comes back, having had nothing waiting: first (issue 42: a table, or client,
    # with nothing waiting goes before those that keep waiting; it was "at the end of
    # the round", after A2 and C2, when the tables alone took turns)
    assert q.push("B", "B2") is None
    assert drain(q) == ["B2", "A2", "C2", "A3"]
    assert q.pop() is None and len(q) == 0


def test_an_item_given_back_goes_first_in_its_line_and_is_never_refused() -> None:
    q = ThinkQueue[str](per_owner=2, total=2)
    fill(q, "A", 2)
    q.push_front("A", "A0")  # over both bounds: still taken
    assert (len(q), q.waiting("A")) == (3, 3)
    q.push_front("B", "B0")  # a new line joins the round
    assert drain(q) == ["A0", "B0", "A1", "A2"]


def test_removing_items() -> None:
    q = ThinkQueue[str](per_owner=5, total=10)
    fill(q, "A", 2)
    fill(q, "B", 2)
    assert q.remove("C", "C1") is False  # no such line
    assert q.remove("A", "B1") is False  # not in this line
    assert len(q) == 4
    assert q.remove("A", "A2") is True
    assert (len(q), q.waiting("A")) == (3, 1)
    assert drain(q) == ["A1", "B1", "B2"]


def test_removing_a_tables_last_item_takes_it_out_of_the_round() -> None:
    q = ThinkQueue[str](per_owner=5, total=10)
    fill(q, "A", 1)
    fill(q, "B", 2)
    fill(q, "C", 1)
    assert q.remove("A", "A1") is True
    assert q.waiting("A") == 0 and len(q) == 3
    assert q.pop() == "B1"  # A's turn is gone, the next is B's
    # A joins again, having nothing waiting: before B, which had its turn, after C,
    # which has not had one yet (issue 42; "at the back of the round", after B2, when
    # the tables alone took turns)
    assert q.push("A", "A2") is None
    assert drain(q) == ["C1", "A2", "B2"]
    assert q.remove("A", "A2") is False  # its line is gone


def test_a_removed_item_frees_its_place_in_the_bounds() -> None:
    q = ThinkQueue[str](per_owner=2, total=3)
    fill(q, "A", 2)
    fill(q, "B", 1)
    assert q.remove("A", "A1") is True
    assert q.push("A", "A3") is None  # A's line had room again, and so had the queue
    assert q.push("C", "C1") == "A3"  # full: A's 2 is longer than C's 1 would be
    assert drain(q) == ["A2", "B1", "C1"]



def remove_or_pop(q: ThinkQueue[str], model: dict[str, list[str]], op: str, owner: str,
                  index: int) -> None:
    """``remove`` the ``index``-th item of ``owner``'s line (or one it does not hold), or
    ``pop``: in the queue and in the model of its lines, checking the queue's answer."""
    if op == "remove":
        line = model.get(owner, [])
        item = line[index] if index < len(line) else f"{owner}missing"
        assert q.remove(owner, item) is (item in line)
        if item in line:
            line.remove(item)
        return
    popped = q.pop()
    if popped is None:
        assert not any(model.values())
    else:
        assert model[popped[0]][0] == popped  # the first of its line
        model[popped[0]].pop(0)

operations = st.lists(
    st.tuples(st.sampled_from(["push", "pop", "remove", "front"]), st.sampled_from("ABCD"),
              st.integers(0, 5)),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(per_owner=st.integers(1, 4), total=st.integers(1, 8), ops=operations)
def test_bounds_and_turns_hold_whatever_happens(per_owner: int, total: int,
                                                ops: list[tuple[str, str, int]]) -> None:
    q = ThinkQueue[str](per_owner=per_owner, total=total)
    model: dict[str, list[str]] = {}  # each owner's line, as the queue should hold it
    fronts = 0  # items given back may go over the bounds
    serial = 0
    for op, owner, index in ops:
        serial += 1
        if op == "push":
            item = f"{owner}{serial}"
            mine = len(model.get(owner, []))
            refused = q.push(owner, item)
            if mine >= per_owner:
                assert refused == item
            elif sum(map(len, model.values())) >= total:
                longest = max((len(line) for line in model.values()), default=0)
                if longest <= mine + 1:
                    assert refused == item
                else:
                    victim = next(o for o, line in model.items() if len(line) == longest)
                    assert refused == model[victim].pop()
                    model.setdefault(owner, []).append(item)
            else:
                assert refused is None
                model.setdefault(owner, []).append(item)
        elif op == "front":
            item = f"{owner}{serial}"
            q.push_front(owner, item)
            model.setdefault(owner, []).insert(0, item)
            fronts += 1
        else:
            remove_or_pop(q, model, op, owner, index)
        model = {o: line for o, line in model.items() if line}
        assert len(q) == sum(map(len, model.values()))
        for o in "ABCD":
            assert q.waiting(o) == len(model.get(o, []))
        if not fronts:
            assert len(q) <= total
            assert all(len(line) <= per_owner for line in model.values())


def test_every_waiting_table_gets_a_turn_before_any_gets_two() -> None:
    q = ThinkQueue[str](per_owner=10, total=100)
    fill(q, "A", 6)
    fill(q, "B", 2)
    fill(q, "C", 4)
    order = drain(q)
    assert order == ["A1", "B1", "C1", "A2", "B2", "C2", "A3", "C3", "A4", "C4", "A5", "A6"]


def test_a_line_over_its_bound_by_items_given_back_takes_no_new_item() -> None:
    q = ThinkQueue[str](per_owner=2, total=100)
    fill(q, "A", 2)
    q.push_front("A", "A0")  # 3 wait now, one over the bound
    assert q.push("A", "A3") == "A3"
    assert drain(q) == ["A0", "A1", "A2"]


# ---------------------------------------------------------------- clients (groups)
# A table's line belongs to a group: the address that caused the table (issue 42,
# attack 3: 64 addresses' worth of bot-filled ladder tables from one client took a
# victim's bot answer from 0.1 s to 2.5 s). The groups take turns, then their tables.
# (The tests above push without a group: each table is a group of its own, and the
# queue behaves exactly as when the tables alone took turns.)


def fill_in(q: ThinkQueue[str], group: str, owner: str, count: int) -> None:
    for i in range(1, count + 1):
        assert q.push(owner, f"{owner}{i}", group) is None


def test_an_address_with_one_table_gets_every_other_turn_against_one_with_five() -> None:
    q = ThinkQueue[str](per_owner=10, total=100)
    for table in ("T", "U", "W", "X", "Y"):
        fill_in(q, "10.0.0.1", table, 2)
    fill_in(q, "10.0.0.2", "V", 6)
    assert (q.waiting_in("10.0.0.1"), q.waiting_in("10.0.0.2"), q.waiting("T")) == (10, 6, 2)
    assert drain(q) == ["T1", "V1", "U1", "V2", "W1", "V3", "X1", "V4", "Y1", "V5",
                        "T2", "V6", "U2", "W2", "X2", "Y2"]
    assert q.waiting_in("10.0.0.1") == 0 and len(q) == 0


def test_a_group_that_had_nothing_waiting_goes_before_those_that_keep_waiting() -> None:
    """(FQ-CoDel's new flows: a client asking for a decision now and then is taken by
    the next free worker, not after a turn of each address that floods.)"""
    q = ThinkQueue[str](per_owner=10, total=100)
    fill_in(q, "a", "A", 1)
    fill_in(q, "b", "B", 3)
    fill_in(q, "c", "C", 2)
    assert q.pop() == "A1"  # a's only line is empty: a leaves the round
    assert q.pop() == "B1"  # b had its first turn: to the back of the round
    fill_in(q, "a", "D", 2)  # a new table of a: a comes in again, before b
    fill_in(q, "d", "E", 1)  # d comes in after a: after a's first turn
    # c came in before any turn and has not had one: it goes first still
    assert drain(q) == ["C1", "D1", "E1", "B2", "C2", "D2", "B3"]


def test_the_per_table_and_total_bounds_are_exact_with_groups() -> None:
    q = ThinkQueue[str](per_owner=2, total=5)
    fill_in(q, "a", "A", 2)
    assert q.push("A", "A3", "a") == "A3"  # a table's bound, whatever its group
    fill_in(q, "a", "B", 2)
    assert q.push("C", "C1", "b") is None  # 5: full
    assert len(q) == 5
    # b (1 waiting, 2 with this one) is shorter than a (4): a's newest of its longest
    # line (A and B are as long: A came first) makes room
    assert q.push("C", "C2", "b") == "A2"
    assert len(q) == 5 and q.waiting_in("a") == 3 and q.waiting_in("b") == 2
    # b would have 3, a has 3: no group is longer than b would be: b's is refused
    assert q.push("D", "D1", "b") == "D1"
    assert len(q) == 5
    assert drain(q) == ["A1", "C1", "B1", "C2", "B2"]


def test_when_full_the_longest_address_makes_room_even_if_each_of_its_lines_is_short() -> None:
    """Longest is counted per address: six tables of one address with one decision
    each give one up for another address's first (counted per table, every line is
    as long as the newcomer's would be, and the newcomer was the one refused)."""
    q = ThinkQueue[str](per_owner=3, total=6)
    for table in "ABCDEF":
        fill_in(q, "attacker", table, 1)
    assert q.push("V", "V1", "victim") == "A1"  # the oldest of the equally long lines
    assert q.waiting_in("attacker") == 5 and q.waiting("A") == 0
    assert drain(q) == ["B1", "V1", "C1", "D1", "E1", "F1"]


def test_a_tables_group_is_the_one_it_had_while_its_line_waits() -> None:
    q = ThinkQueue[str](per_owner=5, total=100)
    assert q.push("T", "T1", "a") is None
    assert q.push("T", "T2", "b") is None  # still a's: a table does not change address
    assert (q.waiting_in("a"), q.waiting_in("b")) == (2, 0)
    q.push_front("T", "T0", "b")
    assert q.waiting_in("a") == 3
    assert q.remove("T", "T1") and q.waiting_in("a") == 2
    assert drain(q) == ["T0", "T2"] and q.waiting_in("a") == 0
    assert q.push("T", "T3", "b") is None and q.waiting_in("b") == 1  # a new line: b's


grouped_operations = st.lists(
    st.tuples(st.sampled_from(["push", "pop", "remove"]), st.sampled_from("ABCDE"),
              st.integers(0, 5)),
    max_size=60,
)
GROUP = {"A": "x", "B": "x", "C": "x", "D": "y", "E": "z"}


@settings(max_examples=300, deadline=None)
@given(per_owner=st.integers(1, 4), total=st.integers(1, 8), ops=grouped_operations)
def test_grouped_bounds_and_turns_hold_whatever_happens(per_owner: int, total: int,
                                                        ops: list[tuple[str, str, int]]) -> None:
    """A model of the queue with groups: the bounds, who makes room (the longest
    group's longest line, oldest first), and the first of a line is taken first."""
    q = ThinkQueue[str](per_owner=per_owner, total=total)
    model: dict[str, list[str]] = {}  # each owner's line, in the order the lines came
    groups: list[str] = []  # the groups waiting, in the order they came (since waiting)
    serial = 0

    def size(group: str) -> int:
        return sum(len(line) for o, line in model.items() if GROUP[o] == group)

    for op, owner, index in ops:
        serial += 1
        if op == "push":
            item = f"{owner}{serial}"
            mine, group = len(model.get(owner, [])), GROUP[owner]
            refused = q.push(owner, item, group)
            if mine >= per_owner:
                assert refused == item
            elif sum(map(len, model.values())) >= total:
                longest = max(groups, key=size)  # the first of the equally long
                if size(longest) <= size(group) + 1:
                    assert refused == item
                else:
                    lines = [o for o in model if GROUP[o] == longest]
                    victim = max(lines, key=lambda o: len(model[o]))
                    assert refused == model[victim].pop()
                    model.setdefault(owner, []).append(item)
            else:
                assert refused is None
                model.setdefault(owner, []).append(item)
        else:
            remove_or_pop(q, model, op, owner, index)
        model = {o: line for o, line in model.items() if line}
        groups = [g for g in groups if size(g)]
        groups += [g for g in dict.fromkeys(GROUP[o] for o in model) if g not in groups]
        assert len(q) == sum(map(len, model.values())) <= total
        assert all(len(line) <= per_owner for line in model.values())
        for g in "xyz":
            assert q.waiting_in(g) == size(g)
