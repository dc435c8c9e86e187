"""A table's held output (``tables.held.HeldOutput``) alone, without trio: what is held,
when it is ready, and what is delivered, on the effects a real ``Match`` makes."""

from __future__ import annotations

import math

import pytest

from nimmt import protocol as P
from nimmt.server.config import TableSettings
from nimmt.server.game.io import Effects, Request, Who
from nimmt.server.game.match import Match
from nimmt.server.storage import Fact, PendingWrite
from nimmt.server.tables.held import ACK_WAIT, HeldOutput

ANN = Who(1, "Ann", "human")
BOB = Who(2, "Bob", "human")
WALL = 1_700_000_000.0


class Game:
    """A two-seat match with a game started, fed by hand."""

    def __init__(self) -> None:
        self.match = Match("t1", "test", TableSettings(seats=2, step_delay=0.0).validate(),
                           now=0.0, seed=3)
        self.seated = self.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
        self.send(BOB, P.Join(table_id="t1", id=1))
        started = self.send(ANN, P.Start(id=2))
        self.hands = {who: next(m.cards for sid, m in started.sends
                                if sid == who.id and isinstance(m, P.HandDealt))
                      for who in (ANN, BOB)}

    def send(self, who: Who, msg: P.Message) -> Effects:
        return self.match.handle(Request(who, msg), 0.0, WALL)

    def commit(self, who: Who) -> Effects:
        return self.send(who, P.Commit(round=1, turn=1, card=self.hands[who][0], id=9))


def write() -> PendingWrite:
    return PendingWrite("append", ("t1", []), {}, "t1")


@pytest.fixture
def game() -> Game:
    return Game()


def test_an_acknowledgement_alone_is_held_and_ready_exactly_ack_wait_after(game):
    ack = game.commit(ANN)  # not the turn's last: commit_accepted and seat_committed
    assert {type(m) for _, m in ack.sends} == {P.CommitAccepted, P.SeatCommitted}
    woken: list[str] = []
    held: HeldOutput[PendingWrite] = HeldOutput(lambda: woken.append("wake"))
    assert held.may_hold(ack, inputs_waiting=False)
    w = write()
    held.hold(ack, w, 100.0)
    due = 100.0 + ACK_WAIT
    assert held.deadline == due
    assert not held.ready(100.0)
    assert not held.ready(math.nextafter(due, -math.inf))  # not a tick before
    assert held.ready(due)
    # the store tells when another table's transaction wrote it: ready before that
    assert w.on_tried is not None
    w.on_tried()
    assert woken == ["wake"]
    w.tried = True
    assert held.ready(100.0)


def test_the_first_held_sets_the_deadline_later_acknowledgements_do_not_move_it(game):
    held: HeldOutput[PendingWrite] = HeldOutput()
    held.hold(game.commit(ANN), write(), 100.0)
    held.hold(game.commit(ANN), write(), 100.005)  # a replaced commit: acknowledged again
    assert held.deadline == 100.0 + ACK_WAIT and len(held) == 2


def test_a_turns_last_commit_is_never_held_while_no_input_waits(game):
    game.commit(ANN)
    last = game.commit(BOB)
    assert any(isinstance(m, P.Revealed) for _, m in last.sends)
    held: HeldOutput[PendingWrite] = HeldOutput()
    assert not held.may_hold(last, inputs_waiting=False)
    # with inputs waiting it is held, and ready once none waits, whenever that is
    assert held.may_hold(last, inputs_waiting=True)
    w = write()
    held.hold(last, w, 100.0)
    assert held.deadline == -math.inf and held.ready(100.0) and held.ready(-1e9)
    assert w.on_tried is None  # the task waits for it itself: nobody need wake it


def test_a_turns_last_commit_behind_a_held_acknowledgement_makes_all_ready_at_once(game):
    ack = game.commit(ANN)
    last = game.commit(BOB)
    held: HeldOutput[PendingWrite] = HeldOutput()
    first, second = write(), write()
    held.hold(ack, first, 100.0)
    assert held.may_hold(last, inputs_waiting=False)  # something is held already
    held.hold(last, second, 100.0)
    assert held.deadline == -math.inf and held.ready(100.0)
    # the last write handed in is the one waited for; everything, in order
    assert held.take() == (second, [ack, last])
    assert not held and held.deadline == math.inf and not held.ready(1e9)
    assert held.take() == (None, [])


def test_what_seats_starts_or_closes_is_never_held(game):
    held: HeldOutput[PendingWrite] = HeldOutput()
    assert not held.may_hold(game.seated, inputs_waiting=True)  # a seat: a token's fact
    for effects in (Effects(facts=[Fact("seat", {"seat": 0, "name": "Ann"})]),
                    Effects(entered=[(1, None)]), Effects(released=[1]), Effects(refused=[1]),
                    Effects(started=True), Effects(closed="stopped")):
        assert not held.may_hold(effects, inputs_waiting=True), effects
    # facts and messages, with no input waiting and nothing held: carried out at once
    chat = Effects(sends=[(1, P.ChatMessage(name="Ann", seat=0, text="hi"))])
    assert held.may_hold(chat, inputs_waiting=True)
    assert not held.may_hold(chat, inputs_waiting=False)


def test_messages_without_a_write_wait_for_the_write_held_before_them(game):
    held: HeldOutput[PendingWrite] = HeldOutput()
    chat = Effects(sends=[(1, P.ChatMessage(name="Ann", seat=0, text="hi"))])
    held.hold(chat, None, 100.0)
    assert held.ready(100.0)  # nothing to wait for
    held.take()
    ack, w = game.commit(ANN), write()
    held.hold(ack, w, 100.0)
    held.hold(chat, None, 100.001)  # told while inputs waited: ready once none does
    assert held.deadline == -math.inf
    assert held.take() == (w, [ack, chat])


def test_an_acknowledgement_waits_at_most_the_documented_ten_milliseconds(game):
    # docs/SERVER.md, "The path of one commit": held for at most 10 ms
    held: HeldOutput[PendingWrite] = HeldOutput()
    held.hold(game.commit(ANN), write(), 5.0)
    assert held.deadline == pytest.approx(5.010, abs=1e-12)
    assert HeldOutput(ack_wait=0.5).ack_wait == 0.5
