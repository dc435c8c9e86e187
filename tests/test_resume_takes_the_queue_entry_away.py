"""A ladder queue entry belongs to the connection that queued (server/lobby/seating.py):
when a hello with the session's token replaces that connection, still open, the
entry goes with the old connection; the player is not seated from a queue it can
no longer hear about, and must queue again."""

from __future__ import annotations

from nimmt import protocol as P
from nimmt.server.ladder.claims import new_key
from nimmt.server.lobby.lobby import Lobby

from lobby_helpers import Link
from test_welcome_units import hello, run


def test_a_resume_that_replaces_the_connection_takes_its_queue_entry_away():
    async def test(lobby: Lobby) -> None:
        key = new_key()
        first = Link(1)
        session = lobby.hello(first, hello("Ann", key=key))
        assert session is not None and session.claimed
        lobby.ladder_queue.request(session, P.Queue(seats=4, fill_after=None, id=2))
        assert [m.TYPE for m in first.sent][-1] == "queued"
        assert lobby.ladder_queue.queued(session)
        second = Link(2)
        assert lobby.hello(second, hello("Ann", token=session.token, key=key, mid=3)) is session
        assert first.closed is not None and first.closed[0] == "replaced"
        assert not lobby.ladder_queue.queued(session)
        assert len(lobby.ladder_queue.queue) == 0

    run(test)
