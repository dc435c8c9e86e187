"""Match rules nothing pinned before (issue 43): what a newcomer gets at a table whose
game is over, and who is host when every other member is away. Sans-IO, on the
``Match`` (tests/test_match.py's ``Harness``)."""

from __future__ import annotations

from nimmt import protocol as P
from nimmt.server.game.io import Disconnected, Reconnected, Who

from test_match import ANN, BOB, Harness, fixed, standard_deal

CY = Who(4, "Cy", "human")
DAN = Who(5, "Dan", "human")
EVE = Who(6, "Eve", "spectator")


def over_table(seats: int = 3) -> Harness:
    """Ann (host, seat 0) and Bob (seat 1) played a one-round game that is over; the
    other seats are empty (the bot that played seat 2 is removed)."""
    h = Harness.new(dealer=fixed(standard_deal(players=3)), seats=seats, rounds=1,
                    point_limit=0, autoplay_when_away="immediately")
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=seats), id=1))
    h.send(BOB, P.Join(table_id="t1", id=1))
    h.send(ANN, P.AddBot(strategy="heuristic", id=2))
    h.send(ANN, P.Start(id=3))
    h.input(Disconnected(ANN.id, 0.0))
    h.input(Disconnected(BOB.id, 0.0))
    h.run_until(10.0)  # the autopilot plays the round out for them
    h.input(Reconnected(ANN.id))
    h.input(Reconnected(BOB.id))
    assert h.match.status == "over"
    removed = h.send(ANN, P.RemoveBot(seat=2, id=4))
    assert [m.TYPE for _, m in removed.sends if _ == ANN.id] == ["table_updated"]
    return h


def test_a_join_at_a_table_whose_game_is_over_takes_the_first_free_seat():
    h = over_table()
    out = h.send(CY, P.Join(table_id="t1", id=9))
    mine = [m for member, m in out.sends if member == CY.id]
    assert [m.TYPE for m in mine] == ["seated", "table_updated"]
    seated = mine[0]
    assert (seated.seat, seated.re, seated.table.status) == (2, 9, "over")
    assert [s.name if s else None for s in seated.table.seats] == ["Ann", "Bob", "Cy"]
    assert seated.table.host == 0  # the host stays the host
    assert out.entered == [(CY.id, 2)] and h.match.status == "over"
    # the others are told, and may start the next game with Cy
    assert h.last(BOB, "table_updated").table.seats[2].name == "Cy"
    started = h.send(ANN, P.Start(id=10))
    assert h.match.status == "playing" and started.started


def test_a_join_at_a_full_table_whose_game_is_over_is_refused_table_full():
    h = over_table()
    h.send(CY, P.Join(table_id="t1", id=9))
    out = h.send(DAN, P.Join(table_id="t1", id=11))
    errors = [m for member, m in out.sends if member == DAN.id]
    assert [(e.TYPE, e.code, e.re) for e in errors] == [("error", "table_full", 11)]
    assert out.refused == [DAN.id] and DAN.id not in h.match.members


def test_create_table_routed_to_a_table_whose_game_is_over_seats_its_sender_as_host():
    """A ``create_table`` the lobby routes to a table (the table it made for it) is a
    join that makes its sender the host, whatever the status (over: taken)."""
    h = over_table()
    out = h.send(CY, P.CreateTable(options=P.TableOptions(seats=3), id=12))
    seated = [m for member, m in out.sends if member == CY.id]
    assert [m.TYPE for m in seated] == ["seated", "table_updated"]
    assert (seated[0].seat, seated[0].re) == (2, 12)
    assert h.match.host == 2 and seated[0].table.host == 2


def test_a_watch_at_a_table_whose_game_is_over_is_taken_without_a_snapshot():
    h = over_table()
    out = h.send(EVE, P.Watch(table_id="t1", id=13))
    assert [m.TYPE for member, m in out.sends if member == EVE.id] == ["watching",
                                                                       "table_updated"]


def four_seated() -> Harness:
    h = Harness.new(seats=4, turn_time=1000.0, grace_time=1000.0, abandon_after=10_000.0)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=4), id=1))
    for who in (BOB, CY, DAN):
        h.send(who, P.Join(table_id="t1", id=1))
    assert h.match.host == 0
    return h


def test_the_host_leaving_a_waiting_table_while_the_others_are_away_is_the_first_away_seat():
    """Dan (seat 3) went away first, then Bob (1) and Cy (2): the host is Bob, the
    first seat of a member away (never nobody: he may come back)."""
    h = four_seated()
    for who in (DAN, CY, BOB):
        h.input(Disconnected(who.id, h.now))
    h.send(ANN, P.Leave(id=5))
    assert h.match.host == 1
    assert h.match.info().host == 1
    h.input(Reconnected(CY.id))  # Cy back first: Bob stays the host
    assert h.match.host == 1


def test_the_host_leaving_a_game_while_the_others_are_away_is_the_first_away_seat():
    h = four_seated()
    h.send(ANN, P.Start(id=2))
    assert h.match.status == "playing"
    for who in (CY, BOB):
        h.input(Disconnected(who.id, h.now))
    h.send(ANN, P.Leave(id=5))
    # Dan is connected: he is the host, before the first away seat (Bob)
    assert h.match.host == 3
    h.send(DAN, P.Leave(id=6))
    assert h.match.host == 1
    assert h.match.info().host == 1
    h.input(Reconnected(CY.id))  # Cy back first: Bob stays the host
    assert h.match.host == 1
