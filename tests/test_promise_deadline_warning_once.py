"""docs/PROTOCOL.md, *The deadline warning*: "It is sent **at most once per decision**
... It is never sent once the deadline has passed, and it is not sent again to a
client that reconnects after it was due (the snapshot's deadline tells the time
left)." Attacked with a link that drops and comes back around the moment the warning
is due (turn_time 30, warn_before 5: due at 25), the seat kept meanwhile (grace 60).
Sans-IO, on tests/test_match.py's ``Harness``."""

from __future__ import annotations

import pytest

from nimmt import protocol as P
from nimmt.server.game.io import Disconnected, Reconnected

from test_match import ANN, BOB, WALL, Harness, fixed, standard_deal


@pytest.mark.parametrize("away, back, warned_at", [
    (26.0, 27.0, [25.0]),  # warned, dropped, back before the deadline: not warned again
    (20.0, 27.0, []),      # away when it was due, back after: the snapshot tells the time
    (20.0, 24.0, [25.0]),  # away and back before it was due: warned once, when due
    (20.0, 31.0, []),      # back after the deadline: never warned for a passed deadline
])
def test_a_seat_is_warned_at_most_once_a_decision_whenever_its_link_drops(
        away: float, back: float, warned_at: list[float]):
    h = Harness.new(fixed(standard_deal()), turn_time=30.0, grace_time=60.0)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(away)
    h.input(Disconnected(ANN.id, away))
    h.run_until(back)
    h.input(Reconnected(ANN.id))
    if back < 30.0:  # the snapshot tells the time left instead
        snapshot = h.last(ANN, "snapshot")
        assert (snapshot.round, snapshot.turn, snapshot.deadline) == (1, 1, WALL + 30.0)
    h.run_until(45.0)  # well past the deadline (turn 2's warning would be due at 55)
    assert [(h.at(ANN, w), w.kind, w.round, w.turn, w.remaining)
            for w in h.of(ANN, "deadline_warning")] == [
        (t, "commit", 1, 1, 5.0) for t in warned_at]
    assert h.of(BOB, "deadline_warning") == []  # Bob committed in time
