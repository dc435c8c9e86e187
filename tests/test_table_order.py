"""Issue 22, one truth at every table, on the ``Match`` alone: every input in the order
it came (a connection's coming and going is never applied out of order behind paced
steps), a table with a player always has a host, and the lobby learns no more than
the table has been shown."""

from __future__ import annotations

import math

from nimmt import protocol as P
from nimmt.server.game.io import Disconnected, Reconnected, Who

from test_match import ANN, BOB, EVE, WALL, Harness, fixed, standard_deal


def playing_with_steps(**settings) -> Harness:
    """Ann (seat 0, holding 1..10: her card fits no row) and Bob playing, resolution
    steps paced by a second; both have committed turn 1: Ann must choose a row."""
    h = Harness.new(dealer=fixed(standard_deal(low_seat=0)), step_delay=1.0, **settings)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))
    h.run_until(5.0)
    assert h.of(ANN, "row_choice_request")
    return h


def test_a_return_and_a_second_drop_during_the_steps_leave_the_player_away():
    """Defect 2: a ``Reconnected`` held back behind the paced steps was applied after a
    later ``Disconnected``: Bob ended connected with no connection, and once everyone
    had gone the table never closed."""
    h = playing_with_steps(abandon_after=60.0)
    h.send(ANN, P.ChooseRow(round=1, turn=1, row=0, id=4))  # the steps of turn 1 begin
    assert h.match._backlog
    h.input(Disconnected(BOB.id, h.now))
    h.input(Reconnected(BOB.id))
    h.input(Disconnected(BOB.id, h.now))
    h.run_until(h.now + 10.0)  # the steps are out
    bob = h.match.members[BOB.id]
    assert not bob.connected and h.match.seats[1].away_since is not None
    assert not h.match.info().seats[1].connected
    # Ann goes too: nobody is connected; the autopilot plays the game out, and the
    # finished table closes after keep_finished
    h.input(Disconnected(ANN.id, h.now))
    assert h.match.next_wake() < math.inf
    h.run_until(h.now + 3600.0)
    assert h.match.closed


def test_a_player_back_during_the_steps_is_present_at_once_and_greeted_after_them():
    h = playing_with_steps()
    h.send(ANN, P.ChooseRow(round=1, turn=1, row=0, id=4))
    h.input(Disconnected(BOB.id, h.now))
    h.got[BOB.id].clear()
    h.input(Reconnected(BOB.id))
    assert h.match.members[BOB.id].connected  # present at once: the table knows
    assert h.got[BOB.id] == []  # but told nothing until the steps are out
    h.run_until(h.now + 10.0)
    tags = [m.TYPE for _, m in h.got[BOB.id]]
    assert tags[:2] == ["seated", "snapshot"] and tags.count("seated") == 1
    snapshot = h.last(BOB, "snapshot")
    assert (snapshot.round, snapshot.turn) == (1, 2)  # the turn the steps led to


def test_a_watch_held_behind_the_steps_then_a_drop_leaves_no_connected_spectator():
    """Defect 1c on the match: the spectator's drop came while its ``watch`` waited for
    the steps; the drop was ignored and the spectator joined as connected for ever."""
    h = playing_with_steps(abandon_after=60.0)
    h.send(ANN, P.ChooseRow(round=1, turn=1, row=0, id=4))
    h.send(EVE, P.Watch(table_id="t1", id=1))
    h.input(Disconnected(EVE.id, h.now))
    h.run_until(h.now + 10.0)
    eve = h.match.members[EVE.id]
    assert not eve.connected and eve.away_since is not None
    h.run_until(h.now + h.match.spectator_grace + 1.0)
    assert EVE.id not in h.match.members  # removed after its grace, as any spectator


def test_every_later_input_of_a_session_waits_behind_its_held_request():
    """A ``leave`` sent after a ``watch`` that waits for the steps is not handled first."""
    h = playing_with_steps()
    h.send(ANN, P.ChooseRow(round=1, turn=1, row=0, id=4))
    h.send(EVE, P.Watch(table_id="t1", id=1))
    h.send(EVE, P.Leave(id=2))
    h.run_until(h.now + 10.0)
    tags = [m.TYPE for _, m in h.got[EVE.id]]
    assert tags[0] == "watching" and "left" in tags and "error" not in tags
    assert EVE.id not in h.match.members


def test_a_player_back_after_the_host_left_is_the_host():
    """Defect 7: the host left while the only other player was away; that player came
    back to ``host`` nil: nobody could add a bot or start."""
    h = Harness.new(seats=3)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(BOB, P.Join(table_id="t1", id=1))
    h.input(Disconnected(BOB.id, 1.0))
    h.send(ANN, P.Leave(id=2))
    h.input(Reconnected(BOB.id))
    assert h.match.host == 1
    assert h.last(BOB, "seated").table.host == 1
    reply = h.send(BOB, P.AddBot(strategy="heuristic", id=2))
    assert [m.TYPE for _, m in reply.sends if _ == BOB.id][-1] == "table_updated"
    h.send(BOB, P.AddBot(strategy="heuristic", id=3))
    h.send(BOB, P.Start(id=4))
    assert h.match.status == "playing"


def _scores_shown(h: Harness, who: Who) -> tuple[list[int], list[int]]:
    """(totals, this round's penalties) as ``who`` has been shown them."""
    totals, penalties = [0, 0], [0, 0]
    for _, msg in h.got[who.id]:
        if msg.TYPE == "row_taken":
            penalties[msg.seat] += msg.bullheads
        elif msg.TYPE == "round_scored":
            totals, penalties = list(msg.totals), [0, 0]
    return totals, penalties


def test_the_lobby_learns_the_scores_only_once_the_table_has_been_shown_them():
    """The "Also" of issue 22: ``table_updated`` to the lobby carried a turn's penalties
    (and a round's totals) while its paced steps were still going out. A round played
    out: Ann (1..10) takes a row at turn 1 and every sixth card; Bob's 19 at turn 5 is
    the sixth card of row 3, a penalty shown only at a later step of that turn."""
    h = Harness.new(dealer=fixed(standard_deal(low_seat=0)), step_delay=1.0, rounds=2)
    h.start_two()
    checked = 0
    while h.match._game is not None and h.match._game.round == 1:
        if h.match._backlog:
            info = h.match.info()
            totals, penalties = _scores_shown(h, BOB)
            assert [s.total for s in info.seats] == totals
            assert [s.penalties for s in info.seats] == penalties
            checked += 1
            h.run_until(h.match.next_wake())
            continue
        pending = h.match._game.pending
        round_, turn = h.match._game.round, h.match._game.turn
        if pending.__class__.__name__ == "AwaitingRowChoice":
            h.send(ANN, P.ChooseRow(round=round_, turn=turn, row=0, id=9))
        else:
            for who in (ANN, BOB):
                h.send(who, P.Commit(round=round_, turn=turn, card=min(h.match._game.view(
                    who.id - 1).hand), id=9))
    assert checked > 20
    assert any(m.seat == 1 for m in h.of(BOB, "row_taken"))  # Bob's penalty was paced too


def test_a_player_back_within_the_grace_who_then_waits_is_not_played_for_before_the_deadline():
    """Limits lacked: a player who drops, returns within the grace, then waits past it:
    no autopilot and no reveal before the deadline."""
    h = Harness.new(grace_time=5.0, turn_time=30.0)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(1.0)
    h.input(Disconnected(ANN.id, 1.0))
    h.run_until(3.0)
    h.input(Reconnected(ANN.id))
    h.run_until(29.0)  # long past the grace that ran from her drop
    assert not h.of(ANN, "commit_accepted") and not h.of(BOB, "revealed")
    h.run_until(31.0)  # the deadline: now the autopilot plays for her
    assert h.of(ANN, "commit_accepted") and h.of(BOB, "revealed")


def test_a_refused_entry_releases_the_session_a_refused_repeat_of_a_member_does_not():
    h = Harness.new()
    h.start_two()
    eve = Who(9, "Eve", "human")
    refused = h.send(eve, P.Join(table_id="t1", id=1))  # the game is running
    assert refused.refused == [9]
    again = h.send(BOB, P.Join(table_id="t1", id=9))  # Bob is seated: he stays
    assert again.refused == [] and BOB.id in h.match.members


def test_a_request_held_when_the_table_closes_is_answered_and_its_session_released():
    h = playing_with_steps()
    h.send(ANN, P.ChooseRow(round=1, turn=1, row=0, id=4))
    h.send(EVE, P.Watch(table_id="t1", id=5))
    out = h.take(h.match.close("stopped", h.now, WALL + h.now))
    assert EVE.id in out.refused
    assert h.last(EVE, "error").code == "no_such_table" and h.last(EVE, "error").re == 5
