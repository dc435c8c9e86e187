"""The server game's accounting over sequences a real game has (issue 43): a seat's
time bank spent over several commits, turns and rounds (a commit replaced three
times draws once, up to the last), a decision made for a seat exactly when its bank
runs out, a row choice and a draft pick on their own clocks, a player away then back
mid-turn, the host leaving while others are away, and each round's penalties, the
totals, the places and the game's end at the point limit or the round limit.
Every expectation is worked out by hand from docs/RULES.md, docs/SERVER.md and
docs/PROTOCOL.md. Sans-IO, on tests/test_match.py's ``Harness`` (no trio)."""

from __future__ import annotations

import pytest

from nimmt import protocol as P
from nimmt.engine import Deal
from nimmt.server.game.io import Disconnected, Reconnected, Who

from test_match import ANN, BOB, WALL, Harness, fixed, standard_deal

CY = Who(4, "Cy", "human")
DAN = Who(5, "Dan", "human")


def bank_facts(h: Harness) -> list[tuple[int, float]]:
    """(seat, bank left) of every decision that drew on a bank, in order."""
    return [(f.payload["seat"], f.payload["bank"]) for f in h.facts
            if f.kind == "decision" and "bank" in f.payload]


def turn_started(h: Harness, rnd: int, turn: int) -> float:
    msg = next(m for m in h.of(ANN, "turn_started") if (m.round, m.turn) == (rnd, turn))
    return h.at(ANN, msg)


def commit(h: Harness, who: Who, rnd: int, turn: int, card: int) -> None:
    h.send(who, P.Commit(round=rnd, turn=turn, card=card, id=100 + turn))
    assert h.last(who, "commit_accepted").re == 100 + turn


def play_out(h: Harness, rnd: int, turns: range, ann: list[int], bob: list[int]) -> None:
    """Both commit at once, the cards in order, for ``turns`` of round ``rnd``."""
    for turn, a, b in zip(turns, ann, bob, strict=True):
        commit(h, ANN, rnd, turn, a)
        commit(h, BOB, rnd, turn, b)


# ====================================================================== the time bank
def test_a_bank_spent_over_replacements_turns_and_rounds_is_charged_once_per_second():
    """Bank 20 s, turns of 30 s. Round 1 turn 1: Ann commits at 35, replaces at 37
    and 40 (10 s in all, not 5 + 7 + 10 nor only the last 3), Bob commits at 41
    (11 s). Turn 2 (from 41): Bob at +30.5 (0.5 s), Ann at +33 (3 s). Round 2
    turn 1: each is warned at the deadline with what is left, and played for when it
    runs out; with nothing left, turn 2 warns 5 s before the table's deadline."""
    h = Harness.new(fixed(standard_deal(), standard_deal()), time_bank=20.0)
    h.start_two()
    ann, bob = list(h.hand(ANN)), list(h.hand(BOB))
    for t, card in ((35.0, ann[0]), (37.0, ann[1]), (40.0, ann[2])):
        h.run_until(t)
        commit(h, ANN, 1, 1, card)
    h.run_until(41.0)
    commit(h, BOB, 1, 1, bob[0])
    assert h.last(BOB, "revealed").plays == ((0, ann[2]), (1, bob[0]))
    start = turn_started(h, 1, 2)
    assert start == 41.0
    h.run_until(start + 30.5)
    commit(h, BOB, 1, 2, bob[1])
    h.run_until(start + 33.0)
    commit(h, ANN, 1, 2, ann[0])
    assert bank_facts(h) == [(0, 15.0), (0, 13.0), (0, 10.0), (1, 9.0), (1, 8.5), (0, 7.0)]
    play_out(h, 1, range(3, 11), [c for c in ann if c not in (ann[0], ann[2])],
             [c for c in bob if c not in bob[:2]])
    assert [m.round for m in h.of(ANN, "round_scored")] == [1]
    r2 = turn_started(h, 2, 1)
    h.run_until(r2 + 60.0)
    warnings = [(h.at(ANN, w) - r2, w.kind, w.deadline - WALL - r2, w.remaining)
                for w in h.of(ANN, "deadline_warning") if w.round == 2]
    assert warnings[:1] == [(30.0, "commit", 37.0, 7.0)]
    assert [(h.at(BOB, w) - r2, w.deadline - WALL - r2, w.remaining)
            for w in h.of(BOB, "deadline_warning") if w.round == 2][:1] == [(30.0, 38.5, 8.5)]
    revealed = h.of(ANN, "revealed")[10:]  # round 1 had ten
    assert h.at(ANN, revealed[0]) - r2 == 38.5  # Ann's card at 37, Bob's at 38.5
    assert bank_facts(h)[6:] == [(0, 0.0), (1, 0.0)]
    r2t2 = turn_started(h, 2, 2)
    assert r2t2 - r2 == 38.5
    h.run_until(r2t2 + 30.0)
    assert [(h.at(ANN, w) - r2t2, w.deadline - WALL - r2t2, w.remaining)
            for w in h.of(ANN, "deadline_warning") if (w.round, w.turn) == (2, 2)] == [
        (25.0, 30.0, 5.0)]
    assert h.at(ANN, h.of(ANN, "revealed")[11]) - r2t2 == 30.0


def test_a_deadline_exactly_at_the_end_of_the_bank():
    """Bank 10 s. Turn 1: Ann commits at 39.5, half a second before her bank runs
    out: her card is played and 0.5 s is left. Turn 2: she is played for at exactly
    +30.5, not before. Turn 3: nothing left, at exactly +30."""
    h = Harness.new(fixed(standard_deal()), time_bank=10.0)
    h.start_two()
    ann = h.hand(ANN)
    commit(h, BOB, 1, 1, h.hand(BOB)[0])
    h.run_until(39.5)
    assert not h.of(BOB, "revealed")
    commit(h, ANN, 1, 1, ann[5])
    assert h.last(BOB, "revealed").plays[0] == (0, ann[5])
    assert bank_facts(h) == [(0, 0.5)]
    t2 = turn_started(h, 1, 2)
    commit(h, BOB, 1, 2, h.hand(BOB)[1])
    h.run_until(t2 + 30.49)
    assert len(h.of(BOB, "revealed")) == 1
    assert [(h.at(ANN, w) - t2, w.remaining) for w in h.of(ANN, "deadline_warning")
            if w.turn == 2] == [(30.0, 0.5)]
    h.run_until(t2 + 30.5)
    assert h.at(BOB, h.of(BOB, "revealed")[1]) == t2 + 30.5
    assert bank_facts(h) == [(0, 0.5), (0, 0.0)]
    assert [(f.payload["seat"], f.payload["by"]) for f in h.facts if f.kind == "decision"] == [
        (1, "player"), (0, "player"), (1, "player"), (0, "autopilot")]
    t3 = turn_started(h, 1, 3)
    commit(h, BOB, 1, 3, h.hand(BOB)[2])
    h.run_until(t3 + 29.99)
    assert len(h.of(BOB, "revealed")) == 2
    h.run_until(t3 + 30.0)
    assert h.at(BOB, h.of(BOB, "revealed")[2]) == t3 + 30.0
    assert bank_facts(h) == [(0, 0.5), (0, 0.0)]  # nothing more drawn: none was left


def test_a_row_choice_runs_on_the_choice_time_then_the_bank():
    """Choice time 20 s, bank 10 s: Ann's 1 fits no row; unanswered, she is warned
    at 20 (deadline 30) and the autopilot takes the cheapest row at 30: row 1 (12,
    one bullhead; row 0's 11 has five, rows 1..3 tie: the lowest number)."""
    h = Harness.new(fixed(standard_deal(low_seat=0)), choice_time=20.0, time_bank=10.0)
    h.start_two()
    commit(h, ANN, 1, 1, 1)
    commit(h, BOB, 1, 1, 15)
    assert h.last(ANN, "row_choice_request").remaining == 20.0
    h.run_until(29.99)
    assert not h.of(BOB, "row_taken")
    assert [(h.at(ANN, w), w.kind, w.deadline, w.remaining)
            for w in h.of(ANN, "deadline_warning")] == [(20.0, "row", WALL + 30.0, 10.0)]
    h.run_until(30.0)
    taken = h.last(BOB, "row_taken")
    assert (h.at(BOB, taken), taken.seat, taken.row, taken.cards, taken.bullheads) == (
        30.0, 0, 1, (12,), 1)
    assert bank_facts(h) == [(0, 0.0)]


def test_a_draft_pick_runs_on_the_draft_time_then_the_bank():
    """Draft time 15 s, bank 5 s: seat 0 picks first in round 1; unanswered it is
    picked for at 20; Bob, who has a bank too, picks in time at 21 and keeps it."""
    h = Harness.new(draft=True, tactic_deck=True, draft_time=15.0, time_bank=5.0)
    h.start_two()
    h.run_until(19.99)
    assert not h.of(BOB, "draft_picked")
    assert [(h.at(ANN, w), w.kind, w.deadline, w.remaining)
            for w in h.of(ANN, "deadline_warning")] == [(15.0, "draft", WALL + 20.0, 5.0)]
    h.run_until(20.0)
    first = h.last(BOB, "draft_picked")
    assert (h.at(BOB, first), first.seat) == (20.0, 0)
    request = h.last(BOB, "draft_pick_request")
    assert (h.at(BOB, request), request.pick, request.deadline) == (20.0, 2, WALL + 35.0)
    h.run_until(21.0)
    h.send(BOB, P.DraftPick(round=1, pick=request.pick, card=request.pool[0], id=9))
    assert h.last(ANN, "draft_picked").seat == 1
    assert bank_facts(h) == [(0, 0.0)]


# ====================================================================== away and back
def test_a_player_away_then_back_mid_turn_gets_a_new_grace_when_away_again():
    """Grace 30 s, turn 100 s. Away at 10, back at 39.5: not played for. Away again
    at 60: played for at exactly 90 (the grace runs from the second drop, not the
    first), and told so when back."""
    h = Harness.new(turn_time=100.0, grace_time=30.0, autoplay_when_away="grace")
    h.start_two()
    commit(h, BOB, 1, 1, h.hand(BOB)[0])
    h.run_until(10.0)
    h.input(Disconnected(ANN.id, 10.0))
    h.run_until(39.5)
    h.input(Reconnected(ANN.id))
    h.run_until(60.0)
    assert not h.of(BOB, "revealed")
    h.input(Disconnected(ANN.id, 60.0))
    h.run_until(89.99)
    assert not h.of(BOB, "revealed")
    h.run_until(90.0)
    revealed = h.last(BOB, "revealed")
    assert h.at(BOB, revealed) == 90.0
    card = dict(revealed.plays)[0]
    h.run_until(95.0)
    h.input(Reconnected(ANN.id))
    assert h.last(ANN, "seated").autoplayed == (
        P.Autoplayed(kind="commit", round=1, turn=1, card=card),)
    assert [f.payload["by"] for f in h.facts if f.kind == "decision"] == [
        "player", "autopilot"]


# ====================================================================== the host
def four_playing(autoplay: str = "grace") -> Harness:
    h = Harness.new(seats=4, turn_time=100.0, autoplay_when_away=autoplay)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=4), id=1))
    for who in (BOB, CY, DAN):
        h.send(who, P.Join(table_id="t1", id=1))
    h.send(ANN, P.Start(id=2))
    assert h.match.status == "playing" and h.match.host == 0
    return h


def test_the_host_leaving_while_the_next_seat_is_away_hands_over_to_the_first_connected():
    h = four_playing()
    h.input(Disconnected(BOB.id, 1.0))
    h.send(ANN, P.Leave(id=7))
    assert h.match.host == 2
    assert h.last(CY, "table_updated").table.host == 2
    h.input(Reconnected(BOB.id))
    assert h.match.host == 2  # coming back does not take it back


def test_the_host_leaving_while_everyone_else_is_away_hands_over_to_the_first_away_seat():
    h = four_playing()
    for who in (CY, BOB, DAN):
        h.input(Disconnected(who.id, 1.0))
    h.send(ANN, P.Leave(id=7))
    assert h.match.host == 1
    h.input(Reconnected(DAN.id))
    assert h.match.host == 1
    assert h.last(DAN, "seated").table.host == 1


# ====================================================================== scores and the end
ROWS = (10, 30, 50, 70)
ANN_CARDS = tuple(range(11, 21))


def own_rows_deal(bob: tuple[int, ...]) -> Deal:
    """Each keeps to a row: Ann's 11..20 after the 10, Bob's after the 30."""
    return Deal(rows=ROWS, hands=(ANN_CARDS, bob))


# Ann: her 15 is row 0's sixth card: 10 11 12 13 14 = 3+5+1+1+1 = 11; her 20 takes
# 15 16 17 18 19 = 2+1+1+1+1 = 6: 17 a round. Bob's 31..40 likewise: 30 31 32 33 34 =
# 3+1+1+5+1 = 11, then 35..39 = 6: 17. With 71 for his 40 he skips the second take: 11.
EVEN = tuple(range(31, 41))
UNEVEN = tuple(range(31, 40)) + (71,)


def play_game(h: Harness, rounds: int, bob: tuple[int, ...]) -> None:
    h.start_two()
    for rnd in range(1, rounds + 1):
        play_out(h, rnd, range(1, 11), list(ANN_CARDS), list(bob))


@pytest.mark.parametrize("limit, rounds", [(34, 2), (35, 3)])
def test_the_game_ends_after_the_round_a_total_reaches_the_point_limit_with_a_shared_first(
        limit: int, rounds: int):
    h = Harness.new(fixed(*[own_rows_deal(EVEN)] * 3), point_limit=limit)
    play_game(h, rounds, EVEN)
    assert [(m.round, m.penalties, m.totals) for m in h.of(BOB, "round_scored")] == [
        (r, (17, 17), (17 * r, 17 * r)) for r in range(1, rounds + 1)]
    over = h.last(BOB, "game_over")
    assert (over.totals, over.places, over.winners) == (
        (17 * rounds, 17 * rounds), (1, 1), (0, 1))
    assert h.match.status == "over" and len(h.finished) == 1


def test_the_row_taken_messages_carry_the_cards_and_bullheads_a_round_adds_up():
    h = Harness.new(fixed(own_rows_deal(UNEVEN)), rounds=1, point_limit=0)
    play_game(h, 1, UNEVEN)
    assert [(m.seat, m.row, m.cards, m.bullheads) for m in h.of(ANN, "row_taken")] == [
        (0, 0, (10, 11, 12, 13, 14), 11), (1, 1, (30, 31, 32, 33, 34), 11),
        (0, 0, (15, 16, 17, 18, 19), 6)]
    assert h.last(ANN, "game_over").totals == (17, 11)


@pytest.mark.parametrize("rated", [False, True])
def test_the_game_ends_at_the_round_limit_with_places_and_its_record_says_if_rated(
        rated: bool):
    h = Harness.new(fixed(*[own_rows_deal(UNEVEN)] * 2), rounds=2, point_limit=0,
                    rated=rated)
    play_game(h, 2, UNEVEN)
    assert [(m.round, m.penalties, m.totals) for m in h.of(ANN, "round_scored")] == [
        (1, (17, 11), (17, 11)), (2, (17, 11), (34, 22))]
    over = h.last(ANN, "game_over")
    assert (over.totals, over.places, over.winners) == ((34, 22), (2, 1), (1,))
    assert len(h.finished) == 1
    record = h.finished[0].record
    assert record.table.rated is rated
    assert (record.result.totals if record.result else None) == (34, 22)


def test_a_commit_replaced_after_the_bank_ran_out_leaves_it_empty_not_owed():
    """Bank 10 s. Turn 1: Ann commits at 36 (4 s left). Turn 2: she commits at +33
    (1 s left), and while Bob still thinks on his own bank replaces it at +38: the
    bank is empty (0), never below. Turn 3: she has the table's whole 30 s, warned at
    +25 and played for at exactly +30, not earlier."""
    h = Harness.new(fixed(standard_deal()), time_bank=10.0)
    h.start_two()
    ann, bob = h.hand(ANN), h.hand(BOB)
    commit(h, BOB, 1, 1, bob[0])
    h.run_until(36.0)
    commit(h, ANN, 1, 1, ann[0])
    t2 = turn_started(h, 1, 2)
    assert t2 == 36.0
    h.run_until(t2 + 33.0)
    commit(h, ANN, 1, 2, ann[1])
    h.run_until(t2 + 38.0)
    commit(h, ANN, 1, 2, ann[2])
    h.run_until(t2 + 39.0)
    commit(h, BOB, 1, 2, bob[1])
    assert h.last(BOB, "revealed").plays == ((0, ann[2]), (1, bob[1]))
    assert bank_facts(h) == [(0, 4.0), (0, 1.0), (0, 0.0), (1, 1.0)]
    t3 = turn_started(h, 1, 3)
    commit(h, BOB, 1, 3, bob[2])
    h.run_until(t3 + 29.99)
    assert len(h.of(BOB, "revealed")) == 2
    assert [(h.at(ANN, w) - t3, w.remaining) for w in h.of(ANN, "deadline_warning")
            if w.turn == 3] == [(25.0, 5.0)]
    h.run_until(t3 + 30.0)
    assert h.at(BOB, h.of(BOB, "revealed")[2]) == t3 + 30.0
