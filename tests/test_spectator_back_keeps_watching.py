"""A spectator whose connection dropped and who came back within ``spectator_grace`` is
a spectator like any other: the grace of its drop no longer runs, so it is not removed
from the table when that grace would have ended (only a spectator still away is)."""

from __future__ import annotations

from nimmt import protocol as P
from nimmt.server.game.io import Disconnected, Reconnected

from test_match import EVE, Harness


def test_a_spectator_back_within_its_grace_still_watches_after_the_grace():
    h = Harness.new()
    h.match.spectator_grace = 50.0
    h.start_two()
    h.send(EVE, P.Watch(table_id="t1", id=1))
    assert h.last(EVE, "watching").re == 1
    h.input(Disconnected(EVE.id, 0.0))
    h.run_until(20.0)
    h.input(Reconnected(EVE.id))
    h.run_until(51.0)  # the grace of the drop at 0.0 would have ended at 50.0
    assert EVE.id in h.match.members and h.match.members[EVE.id].connected
    assert h.match.info().spectators == 1
    # still away from 60.0: removed 50 s later, not before
    h.input(Disconnected(EVE.id, 60.0))
    h.run_until(109.0)
    assert EVE.id in h.match.members
    h.run_until(111.0)
    assert EVE.id not in h.match.members and h.match.info().spectators == 0
