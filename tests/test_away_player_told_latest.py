"""A player away for a long time is told, when back, what the autopilot did for them:
at most ``P.MAX_AUTOPLAYED`` decisions, and those are the latest ones (a list cut
from the wrong end kept the first 200 and dropped what happened last: a bug planted
for issue 43 that no test caught). Sans-IO, on tests/test_match.py's ``Harness``."""

from __future__ import annotations

from nimmt import protocol as P
from nimmt.server.game.io import Disconnected, Reconnected

from test_match import ANN, Harness


def test_back_after_more_than_the_cap_of_autoplayed_decisions_the_latest_are_told():
    # 21 rounds of 10 turns: 210 commits (and a row choice or two) made for Ann
    h = Harness.new(seats=2, rounds=21, point_limit=0, autoplay_when_away="immediately")
    h.match.place_bot(1, "heuristic", None)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(ANN, P.Start(id=2))
    h.input(Disconnected(ANN.id, 0.0))  # the autopilot plays her whole game at once
    assert h.match.status == "over"
    h.input(Reconnected(ANN.id))
    told = h.last(ANN, "seated").autoplayed
    assert len(told) == P.MAX_AUTOPLAYED
    assert (told[-1].kind, told[-1].round, told[-1].turn) == ("commit", 21, 10)
    moments = [(a.round, a.turn) for a in told]
    assert moments == sorted(moments)  # oldest first
    commits = [(a.round, a.turn) for a in told if a.kind == "commit"]
    assert len(set(commits)) == len(commits)
    # the first rounds are the ones left out (21 x 10 commits alone are over the cap)
    assert told[0].round >= 2
