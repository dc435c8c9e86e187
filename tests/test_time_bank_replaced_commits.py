"""The time bank and a commit replaced more than once in its extra time: each
replacement draws only the seconds since the one before, so what the seat used is
the time from the deadline to its last commit, taken once. Planted-bug survivor 03 of
the second sample (issue 43): the existing test replaces once, where charging the
latest draw alone gives the same bank."""

from __future__ import annotations

import pytest
from test_match import ANN, BOB, Harness, fixed, standard_deal
from test_server_time_bank import _turn_started

from nimmt import protocol as P


def test_a_commit_replaced_twice_in_the_extra_time_uses_the_time_up_to_the_last_once():
    h = Harness.new(fixed(standard_deal()), time_bank=20.0)
    h.start_two()
    h.run_until(35.0)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))  # 5 s of the bank
    h.run_until(36.0)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[1], id=4))  # 6 s
    h.run_until(38.0)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[2], id=5))  # 8 s in all
    h.run_until(39.0)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[3], id=6))  # 9 s in all
    h.run_until(40.0)
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    assert dict(h.last(ANN, "revealed").plays)[0] == h.hand(ANN)[3]
    start = _turn_started(h, 2)
    h.run_until(start + 30.0)
    assert h.last(ANN, "deadline_warning").remaining == pytest.approx(11.0)  # 20 - 9
    assert h.last(BOB, "deadline_warning").remaining == pytest.approx(10.0)  # 20 - 10
