"""Spectators whose connections dropped at different times are each removed from the
table ``spectator_grace`` seconds after their own drop: the first one away does not
wait for the grace of one who dropped later."""

from __future__ import annotations

from nimmt import protocol as P
from nimmt.server.game.io import Disconnected, Who

from test_match import EVE, Harness

ZOE = Who(4, "Zoe", "spectator")


def test_each_spectator_away_is_removed_when_its_own_grace_ends():
    h = Harness.new()
    h.match.spectator_grace = 50.0
    h.start_two()
    for who in (EVE, ZOE):
        h.send(who, P.Watch(table_id="t1", id=1))
        assert h.last(who, "watching").re == 1
    h.input(Disconnected(EVE.id, 0.0))
    h.run_until(30.0)
    h.input(Disconnected(ZOE.id, 30.0))
    h.run_until(49.0)
    assert EVE.id in h.match.members and ZOE.id in h.match.members
    h.run_until(50.0)  # Eve's grace is over; Zoe's runs to 80.0
    assert EVE.id not in h.match.members and ZOE.id in h.match.members
    assert h.match.info().spectators == 1
    h.run_until(79.0)
    assert ZOE.id in h.match.members
    h.run_until(80.0)
    assert ZOE.id not in h.match.members and h.match.info().spectators == 0
