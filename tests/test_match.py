"""The table's game flow (``nimmt.server.game.match.Match``) without trio: requests and
times in, messages out. Every test drives a fake clock by hand."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import replace
from typing import Any

import pytest

from nimmt import protocol as P
from nimmt.bots import make_strategy
from nimmt.engine import Commit, Deal
from nimmt.server.config import TableSettings
from nimmt.server.game.match import Match
from nimmt.server.game.io import (
    BotDecided,
    Disconnected,
    Effects,
    Reconnected,
    Request,
    Who,
)
from nimmt.server.game.translate import random_deal

ANN = Who(1, "Ann", "human")
BOB = Who(2, "Bob", "human")
EVE = Who(3, "Eve", "spectator")
WALL = 1_000_000.0  # Unix time at now = 0


def fixed(*deals: Deal):
    """A dealer that deals ``deals`` first, then shuffles."""
    queue = list(deals)

    def dealer(options: Any, pending: Any, view: Any, rng: Any) -> Deal:
        if queue and not pending.rows_only:
            return queue.pop(0)
        return random_deal(options, pending, view, rng)

    return dealer


def standard_deal(low_seat: int | None = None, players: int = 2) -> Deal:
    """Rows 11..14; ``low_seat`` holds 1..10 (fits no row), the others cards from 15 up."""
    pool = list(range(15, 105))
    hands = []
    for seat in range(players):
        if seat == low_seat:
            hands.append(tuple(range(1, 11)))
        else:
            hands.append(tuple(pool[:10]))
            pool = pool[10:]
    return Deal(rows=(11, 12, 13, 14), hands=tuple(hands))


class Harness:
    """A match, a hand-driven clock, and what each member received (with times)."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.now = 0.0
        self.got: dict[int, list[tuple[float, P.Message]]] = defaultdict(list)
        self.facts: list[Any] = []
        self.finished: list[Any] = []  # the games kept (Effects.finished)
        self.charges: list[int] = []
        self.thinks: list[Any] = []
        self.bots: dict[Any, Any] = {}
        self.fallback = make_strategy(match.settings.fallback, 7)
        self.answer = True  # answer each Think at once (False: the test answers them)

    @classmethod
    def new(cls, dealer: Any = None, **settings: Any) -> Harness:
        base = TableSettings(seats=2, step_delay=0.0)
        match = Match("t1", "test", replace(base, **settings).validate(), now=0.0, seed=3,
                      dealer=dealer)
        return cls(match)

    # ------------------------------------------------------------------ driving
    def take(self, effects: Effects) -> Effects:
        self.facts += effects.facts
        if effects.finished is not None:
            self.finished.append(effects.finished)
        self.charges += [member for member, _ in effects.charges]
        for member, msg in effects.sends:
            self.got[member].append((self.now, msg))
        for think in effects.thinks:  # answered at once, as the trio actor does
            self.thinks.append(think)
            if not self.answer:
                continue
            if think.strategy is None:
                strategy = self.fallback
            else:
                key = (think.seat, think.strategy, think.seed)
                strategy = self.bots.setdefault(key, make_strategy(think.strategy,
                                                                   think.seed))
            decision = strategy.decide(think.view)
            self.take(self.match.handle(BotDecided(think.seat, think.key, decision),
                                        self.now, WALL + self.now))
        return effects

    def send(self, who: Who, msg: P.Message) -> Effects:
        return self.take(self.match.handle(Request(who, msg), self.now, WALL + self.now))

    def input(self, item: Any) -> Effects:
        return self.take(self.match.handle(item, self.now, WALL + self.now))

    def run_until(self, t: float) -> None:
        """Let time pass up to ``t``, waking the match whenever it asked to be."""
        while True:
            wake = self.match.next_wake()
            if wake > t:
                break
            self.now = max(self.now, wake)
            self.take(self.match.wake(self.now, WALL + self.now))
        self.now = t

    # ------------------------------------------------------------------ reading
    def of(self, who: Who, tag: str) -> list[Any]:
        return [m for _, m in self.got[who.id] if m.TYPE == tag]

    def last(self, who: Who, tag: str) -> Any:
        found = self.of(who, tag)
        assert found, f"{who.name} got no {tag}: {[m.TYPE for _, m in self.got[who.id]]}"
        return found[-1]

    def at(self, who: Who, msg: P.Message) -> float:
        return next(t for t, m in self.got[who.id] if m is msg)

    def hand(self, who: Who) -> tuple[int, ...]:
        return self.last(who, "hand_dealt").cards

    def start_two(self) -> None:
        seated = self.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
        assert seated.sends[0][1].TYPE == "seated"
        self.send(BOB, P.Join(table_id="t1", id=1))
        self.send(ANN, P.Start(id=2))


# ====================================================================== seats, start
def test_create_join_start_deals_each_hand_to_its_seat_only():
    h = Harness.new()
    h.start_two()
    for who in (ANN, BOB):
        assert len(h.hand(who)) == 10
        turn = h.last(who, "turn_started")
        assert (turn.round, turn.turn, turn.remaining) == (1, 1, 30.0)
        assert turn.deadline == WALL + 30.0
    assert set(h.hand(ANN)).isdisjoint(h.hand(BOB))
    assert len(h.of(ANN, "hand_dealt")) == 1  # never the other's
    kinds = [f.kind for f in h.facts]
    # the seed committed to is kept first (a restart deals from it)
    assert kinds[:5] == ["deal_commitment", "seat", "seat", "game_started", "deal"]


def test_join_refusals_say_why():
    h = Harness.new()
    h.start_two()
    carl = Who(4, "Carl", "human")
    h.send(carl, P.Join(table_id="t1", id=5))
    assert h.last(carl, "error").code == "already_started"
    h.send(Who(5, "Dan", "human", elsewhere=True), P.Watch(table_id="t1", id=1))
    assert h.of(Who(5, "", ""), "error")[-1].code == "not_allowed"
    h.send(BOB, P.Start(id=9))
    assert h.last(BOB, "error").code == "not_host"


def test_a_spectator_is_refused_a_seat_and_sees_no_hand():
    h = Harness.new()
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(EVE, P.Join(table_id="t1", id=1))
    assert h.last(EVE, "error").code == "not_allowed"
    h.send(EVE, P.Watch(table_id="t1", id=2))
    assert h.last(EVE, "watching").re == 2
    h.send(BOB, P.Join(table_id="t1", id=1))
    h.send(ANN, P.Start(id=2))
    assert not h.of(EVE, "hand_dealt") and h.of(EVE, "turn_started")


# ====================================================================== timers
def test_turn_deadline_warning_then_the_fallback_commits():
    h = Harness.new()
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(24.9)
    assert not h.of(ANN, "deadline_warning")
    h.run_until(25.0)
    warning = h.last(ANN, "deadline_warning")
    assert (warning.kind, warning.remaining) == ("commit", 5.0)
    assert not h.of(BOB, "deadline_warning")  # Bob has committed
    h.run_until(29.9)
    assert not h.of(ANN, "revealed")
    h.run_until(30.0)
    revealed = h.last(ANN, "revealed")
    assert h.at(ANN, revealed) == 30.0
    assert dict(revealed.plays)[0] in h.hand(ANN)
    assert [t.strategy for t in h.thinks] == [None]  # the table's fallback decided
    assert h.thinks[0].view.seat == 0  # from Ann's view only
    assert len(h.of(ANN, "deadline_warning")) == 1


def test_no_warning_when_the_time_given_is_shorter_than_warn_before():
    h = Harness.new(turn_time=4.0)
    h.start_two()
    h.run_until(4.0)
    assert not h.of(ANN, "deadline_warning") and h.of(ANN, "revealed")


def test_row_choice_deadline_takes_the_cheapest_row():
    h = Harness.new(fixed(standard_deal(low_seat=0)))
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))
    request = h.last(ANN, "row_choice_request")
    assert request.rows == (0, 1, 2, 3) and request.remaining == 20.0
    assert h.last(BOB, "row_choice_needed").seat == 0 and not h.of(BOB, "row_choice_request")
    h.run_until(15.0)
    assert h.last(ANN, "deadline_warning").kind == "row"
    h.run_until(20.0)
    taken = h.last(BOB, "row_taken")
    assert (taken.seat, taken.row, taken.cards) == (0, 1, (12,))  # fewest bullheads
    late = h.send(ANN, P.ChooseRow(round=1, turn=1, row=2, id=4))
    assert h.last(ANN, "error").code == "stale_turn" and late.charges == [(ANN.id, 0)]


# ====================================================================== decisions
def test_a_row_choice_made_in_time():
    h = Harness.new(fixed(standard_deal(low_seat=0)))
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))
    h.send(BOB, P.ChooseRow(round=1, turn=1, row=3, id=4))
    assert h.last(BOB, "error").code == "not_your_turn"
    h.send(ANN, P.ChooseRow(round=1, turn=1, row=3, id=6))
    taken = h.last(BOB, "row_taken")
    assert (taken.seat, taken.row, taken.cards) == (0, 3, (14,))
    assert h.last(BOB, "turn_started").turn == 2
    assert [("decision", "player")] == [(f.kind, f.payload["by"]) for f in h.facts[-1:]]


def test_professional_tie_choice():
    ann_hand = (21, 22, 23, 24, 25, 26, 27, 28, 29, 31)
    deal = Deal(rows=(20, 30, 60, 70), hands=(ann_hand, tuple(range(81, 91))))
    h = Harness.new(fixed(deal), professional=True)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=25, id=3))  # 20 <25> 30: a tie
    h.send(BOB, P.Commit(round=1, turn=1, card=81, id=3))
    request = h.last(ANN, "tie_choice_request")
    assert [(p.row, p.end) for p in request.places] == [(0, "right"), (1, "left")]
    assert h.last(BOB, "tie_choice_needed").card == 25
    h.send(ANN, P.ChooseTie(round=1, turn=1, place=P.Place(row=2, end="left"), id=4))
    assert h.last(ANN, "error").code == "illegal_choice"
    h.send(ANN, P.ChooseTie(round=1, turn=1, place=P.Place(row=1, end="left"), id=5))
    placed = h.of(BOB, "placed")[0]
    assert (placed.seat, placed.card, placed.row, placed.end) == (0, 25, 1, "left")


def test_draft_picks_in_turn_then_the_deadline_picks():
    h = Harness.new(draft=True, tactic_deck=True)
    h.start_two()
    request = h.last(ANN, "draft_pick_request")
    assert request.pick == 1 and request.pool == tuple(range(1, 25))
    assert h.last(BOB, "draft_pick_needed").seat == 0 and not h.of(BOB, "draft_pick_request")
    h.send(BOB, P.DraftPick(round=1, pick=1, card=3, id=3))
    assert h.last(BOB, "error").code == "not_your_turn"
    h.send(ANN, P.DraftPick(round=1, pick=2, card=3, id=4))
    assert h.last(ANN, "error").code == "stale_turn" and h.last(ANN, "error").field == "pick"
    h.send(ANN, P.DraftPick(round=1, pick=1, card=99, id=5))
    assert h.last(ANN, "error").code == "illegal_card"
    h.send(ANN, P.DraftPick(round=1, pick=1, card=7, id=6))
    assert h.last(BOB, "draft_picked").card == 7
    assert h.last(BOB, "draft_pick_request").pick == 2
    h.run_until(15.0)  # Bob's pick times out
    assert h.of(ANN, "draft_picked")[-1].seat == 1
    assert h.last(ANN, "draft_pick_request").pick == 3


def test_a_refused_or_replaced_commit_is_charged():
    h = Harness.new()
    h.start_two()
    card = h.hand(ANN)[0]
    assert h.send(ANN, P.Commit(round=1, turn=1, card=card, id=3)).charges == []
    assert h.last(ANN, "commit_accepted").re == 3
    assert h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[1], id=4)).charges == [(1, 0)]
    assert h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=5)).charges == [(1, 0)]
    assert h.last(ANN, "error").code == "illegal_card"
    assert h.send(ANN, P.Commit(round=1, turn=2, card=card, id=6)).charges == [(1, 0)]
    assert h.last(ANN, "error").code == "stale_turn"
    assert len(h.of(BOB, "seat_committed")) == 1


def test_built_in_bots_and_the_autopilot_play_a_whole_game_each_from_its_own_view():
    h = Harness.new(seats=4, rounds=2, point_limit=0, autoplay_when_away="immediately")
    for seat in range(1, 4):
        h.match.place_bot(seat, "heuristic", None)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=4), id=1))
    assert [(f.kind, f.payload["strategy"]) for f in h.facts[1:5]] == [
        ("seat", "heuristic")] * 3 + [("seat", None)]
    h.send(ANN, P.Start(id=2))
    assert {t.view.seat for t in h.thinks} == {1, 2, 3}  # the bots commit at once
    h.input(Disconnected(ANN.id, 0.0))  # Ann goes: the autopilot plays for her at once
    assert h.match.status == "over" and len(h.finished) == 1
    assert {(t.view.seat, t.strategy) for t in h.thinks} == {
        (0, None), (1, "heuristic"), (2, "heuristic"), (3, "heuristic")}
    assert not h.of(ANN, "round_scored")  # nothing is sent to a member who is away


def test_strategies_may_answer_later_and_the_clock_goes_on_meanwhile():
    """The shape a bot thinking in another process needs: every due Think is asked at
    once, deadlines still run for the others, and an answer is taken when it comes."""
    h = Harness.new(seats=3, turn_time=10.0)
    h.answer = False
    for seat in (1, 2):
        h.match.place_bot(seat, "heuristic", None)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(ANN, P.Start(id=2))
    assert [t.seat for t in h.thinks] == [1, 2]  # both at once, each from its own view
    assert [t.view.seat for t in h.thinks] == [1, 2]
    h.run_until(10.0)  # Ann's deadline: the fallback is asked for her too
    assert [t.seat for t in h.thinks] == [1, 2, 0] and h.thinks[2].strategy is None
    assert h.match.next_wake() > 10.0  # nothing left to wake for: no busy loop
    for think in h.thinks:
        strategy = h.fallback if think.strategy is None else make_strategy("heuristic", 1)
        h.input(BotDecided(think.seat, think.key, strategy.decide(think.view)))
    assert h.last(ANN, "revealed") and h.last(ANN, "turn_started").turn == 2
    stale = h.thinks[0]
    before = len(h.got[ANN.id])
    h.input(BotDecided(stale.seat, stale.key, stale.view.legal[0]))  # a late answer
    assert len(h.got[ANN.id]) == before  # ignored


# ====================================================================== pacing
def test_steps_are_paced_while_a_person_watches_and_requests_are_answered_meanwhile():
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=0.8)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    assert h.of(BOB, "revealed") and not h.of(BOB, "placed")
    assert h.match.next_wake() == 0.8
    # while the steps are paced: a request that needs nothing shown is answered at once
    carl = Who(4, "Carl", "human")
    h.send(carl, P.Join(table_id="t1", id=1))
    assert h.last(carl, "error").code == "already_started"
    # one that needs the steps shown (a decision, a snapshot) waits for them
    h.send(EVE, P.Watch(table_id="t1", id=1))
    h.send(ANN, P.Commit(round=1, turn=2, card=h.hand(ANN)[1], id=4))
    assert not h.of(EVE, "watching") and not h.of(ANN, "commit_accepted")[1:]
    h.run_until(10.0)
    placed = h.of(BOB, "placed")
    assert [h.at(BOB, p) for p in placed] == pytest.approx([0.8, 1.6])
    turn = h.last(BOB, "turn_started")
    assert h.at(BOB, turn) == pytest.approx(2.4) and turn.remaining == 30.0
    snapshot = h.last(EVE, "snapshot")
    assert (snapshot.round, snapshot.turn, snapshot.phase) == (1, 2, "commit")
    assert h.at(EVE, snapshot) == pytest.approx(2.4) and not h.of(EVE, "placed")
    assert h.last(ANN, "commit_accepted").re == 4


def test_a_table_of_bot_clients_is_not_paced():
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=0.8)
    ann, bob = Who(1, "A", "bot"), Who(2, "B", "bot")
    h.send(ann, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(bob, P.Join(table_id="t1", id=1))
    h.send(ann, P.Start(id=2))
    h.send(ann, P.Commit(round=1, turn=1, card=h.hand(ann)[0], id=3))
    h.send(bob, P.Commit(round=1, turn=1, card=h.hand(bob)[0], id=3))
    assert len(h.of(bob, "placed")) == 2 and h.last(bob, "turn_started").turn == 2


# ====================================================================== away, back, leaving
@pytest.mark.parametrize("mode, at", [("grace", 31.0), ("immediately", 1.0)])
def test_a_player_away_is_played_for_after_the_grace_or_at_once(mode, at):
    h = Harness.new(turn_time=100.0, grace_time=30.0, autoplay_when_away=mode)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(1.0)
    h.input(Disconnected(ANN.id, 1.0))
    assert not h.last(BOB, "table_updated").table.seats[0].connected
    h.run_until(60.0)
    assert h.at(BOB, h.last(BOB, "revealed")) == at


def test_reconnection_gets_the_table_a_snapshot_and_the_pending_request():
    h = Harness.new(fixed(standard_deal(low_seat=0)))
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))
    h.run_until(2.0)
    h.input(Disconnected(ANN.id, 2.0))
    h.run_until(5.0)
    assert not h.got[ANN.id][-1][1].TYPE == "table_updated"  # the drop is not told to her
    h.got[ANN.id].clear()
    h.input(Reconnected(ANN.id))
    tags = [m.TYPE for _, m in h.got[ANN.id]]
    # first what she is told on her new connection: her seat, then the game
    assert tags[:3] == ["seated", "snapshot", "row_choice_request"]
    snapshot = h.last(ANN, "snapshot")
    assert snapshot.hand == tuple(range(2, 11)) and snapshot.pending.kind == "row"
    assert h.last(ANN, "row_choice_request").remaining == pytest.approx(15.0)
    assert h.last(BOB, "table_updated").table.seats[0].connected


def test_leaving_during_a_game_hands_the_seat_to_the_autopilot_and_the_host_moves():
    h = Harness.new(turn_time=100.0)
    h.start_two()
    left = h.send(ANN, P.Leave(id=7))
    assert h.last(ANN, "left").re == 7 and left.released == [ANN.id]
    assert not h.of(BOB, "revealed")  # the autopilot has committed for Ann: Bob has not
    assert h.last(BOB, "seat_committed").seat == 0
    assert h.match.host == 1
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    assert h.of(BOB, "revealed")
    assert h.last(BOB, "table_updated").table.seats[0].name == "Ann"


def test_everyone_leaving_a_waiting_table_closes_it():
    h = Harness.new()
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    closed = h.send(ANN, P.Leave(id=2))
    assert closed.closed == "everyone left" and h.match.closed


def test_a_table_nobody_is_connected_to_is_abandoned():
    h = Harness.new(abandon_after=60.0, turn_time=3600.0, grace_time=3600.0)
    h.start_two()
    h.input(Disconnected(ANN.id, 0.0))
    h.run_until(10.0)
    h.input(Disconnected(BOB.id, 10.0))
    h.run_until(69.9)
    assert not h.match.closed
    h.run_until(70.0)
    assert h.match.closed and h.match.next_wake() == math.inf


# ====================================================================== as data
def test_the_state_as_plain_data_goes_on_exactly_as_the_original():
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=0.8)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.send(EVE, P.Watch(table_id="t1", id=1))  # waits for the paced steps
    data = json.loads(json.dumps(h.match.to_data()))  # plain data only
    copy = Harness(Match.from_data(data))
    copy.now, copy.fallback = h.now, make_strategy("heuristic", 7)
    assert copy.match.next_wake() == h.match.next_wake()
    for harness in (h, copy):
        harness.got.clear()
        harness.run_until(40.0)  # the steps, Eve's snapshot, then the autopilot for both
    assert [(t, m) for t, m in copy.got[BOB.id]] == [(t, m) for t, m in h.got[BOB.id]]
    assert copy.last(EVE, "snapshot") == h.last(EVE, "snapshot")
    assert copy.match.to_data() == h.match.to_data()


def test_requests_waiting_for_the_steps_are_bounded_per_member():
    """Issue 8: a member's decisions that wait for the paced steps are at most
    ``max_deferred``; more are refused ``rate_limited`` and charged to the
    connection that sent them (``Who.conn``), and the other player's still wait."""
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=0.8)
    h.match.max_deferred = 3
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    assert h.match.next_wake() == 0.8  # the steps are paced
    flooder = Who(ANN.id, ANN.name, ANN.kind, conn=9)
    charged = [h.send(flooder, P.Commit(round=1, turn=2, card=h.hand(ANN)[1], id=10 + i))
               .charges for i in range(5)]
    assert charged == [[], [], [], [(ANN.id, 9)], [(ANN.id, 9)]]
    refused = [e for e in h.of(ANN, "error") if e.code == "rate_limited"]
    assert [e.re for e in refused] == [13, 14] and "3 of your requests" in refused[0].message
    h.send(BOB, P.Commit(round=1, turn=2, card=h.hand(BOB)[1], id=4))  # waits: not refused
    h.run_until(10.0)
    assert h.last(BOB, "commit_accepted").re == 4
    assert not [e for e in h.of(BOB, "error")]


def test_spectators_are_capped_and_removed_after_their_grace():
    h = Harness.new()
    h.match.max_spectators, h.match.spectator_grace = 2, 50.0
    h.start_two()
    eves = [Who(10 + i, f"Eve{i}", "spectator") for i in range(3)]
    for eve in eves:
        h.send(eve, P.Watch(table_id="t1", id=1))
    assert h.of(eves[0], "watching") and h.of(eves[1], "watching")
    error = h.last(eves[2], "error")
    assert error.code == "table_full" and "2 spectators" in error.message
    h.input(Disconnected(eves[0].id, 0.0))
    h.run_until(49.0)
    assert h.match.info().spectators == 2
    h.run_until(51.0)
    assert h.match.info().spectators == 1 and eves[0].id not in h.match.members
    h.send(eves[2], P.Watch(table_id="t1", id=2))
    assert h.last(eves[2], "watching").re == 2


def test_built_in_bots_are_numbered_in_the_order_they_sit_down():
    h = Harness.new(seats=5)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=5), id=1))
    for seat in (3, 1, 4):
        h.match.place_bot(seat, "heuristic", None)
    names = {i: s.name for i, s in enumerate(h.match.seats) if s is not None and s.strategy}
    assert names == {3: "Bot 1", 1: "Bot 2", 4: "Bot 3"}


def test_a_late_fallback_commit_is_dropped_once_the_player_committed_and_must_choose_a_row():
    """The autopilot is asked for Ann's card when her time runs out; she commits
    herself; her card fits no row, so the game waits for her row choice while the
    reveal is still being paced out. The autopilot's late commit is not hers to make."""
    ann = Who(1, "Ann", "human")
    deal = Deal(rows=(11, 12, 13, 14), hands=(tuple(range(1, 11)), tuple(range(15, 25))))
    settings = replace(TableSettings(seats=2), step_delay=1.0, turn_time=10.0).validate()
    m = Match("t", "x", settings, now=0.0, seed=1, dealer=lambda *a: deal)
    wall = 1e6
    m.handle(Request(ann, P.CreateTable()), 0, wall)
    m.place_bot(1, "easy", None)
    for think in m.handle(Request(ann, P.Start()), 0, wall).thinks:
        m.handle(BotDecided(think.seat, think.key, Commit(1, 15)), 0, wall)
    (fallback,) = m.wake(10.0, wall + 10).thinks  # Ann's time ran out
    m.handle(Request(ann, P.Commit(round=1, turn=1, card=1)), 10.0, wall + 10)
    late = m.handle(BotDecided(0, fallback.key, Commit(0, 2)), 10.0, wall + 10)
    assert not late.sends and not late.facts and late.closed is None
    effects = m.wake(11.0, wall + 11)  # the reveal's step is shown: Ann is asked for a row
    assert any(isinstance(msg, P.RowChoiceRequest) for _, msg in effects.sends)
