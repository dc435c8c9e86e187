"""The table's game flow (``nimmt.server.game``) as a player sees it, pinned exactly:
what the autopilot did while a player was away, the times a deadline's messages
arrive with a time bank or a paused clock, the refusals' words, who frees a seat.
Written for issue 43's mutation run over ``server/game/`` (docs/TESTING.md): each
test states a behaviour a bug there would change. Sans-IO, on tests/test_match.py's
``Harness`` (no trio)."""

from __future__ import annotations

import json
import logging

import pytest

from nimmt import protocol as P
from nimmt.bots import make_strategy
from nimmt.engine import Deal
from nimmt.server.game.io import BotDecided, Disconnected, Reconnected, Who
from nimmt.server.config import TableSettings
from nimmt.server.game.match import Match

from test_match import ANN, BOB, EVE, WALL, Harness, fixed, standard_deal
from test_match_over_and_host import over_table

CY = Who(4, "Cy", "human")

TIE_DEAL = Deal(rows=(20, 30, 60, 70),
                hands=((21, 22, 23, 24, 25, 26, 27, 28, 29, 31), tuple(range(81, 91))))


def away_and_back(h: Harness, who: Who, at: float) -> P.Seated:
    """``who`` drops at ``at`` and is back one second later: the ``seated`` it gets."""
    h.run_until(at)
    h.input(Disconnected(who.id, at))
    h.run_until(at + 1.0)
    h.input(Reconnected(who.id))
    return h.last(who, "seated")


# ====================================================================== seated.autoplayed
def test_a_row_choice_the_autopilot_made_while_away_is_told_when_back():
    """The autopilot's row choice (RULES.md's cheapest row) is in ``seated.autoplayed``
    with the commit it made after it, oldest first (it was left out: a bug)."""
    h = Harness.new(fixed(standard_deal(low_seat=0)), autoplay_when_away="immediately")
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))
    seated = away_and_back(h, ANN, 2.0)
    assert seated.autoplayed == (
        P.Autoplayed(kind="row", round=1, turn=1, card=1, row=1),
        P.Autoplayed(kind="commit", round=1, turn=2, card=2))
    assert (h.last(BOB, "row_taken").seat, h.last(BOB, "row_taken").row) == (0, 1)
    # told once: the next time back, nothing more was played for her
    assert away_and_back(h, ANN, 5.0).autoplayed == ()


def test_a_tie_choice_the_autopilot_made_while_away_is_told_when_back():
    h = Harness.new(fixed(TIE_DEAL), professional=True, autoplay_when_away="immediately")
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=25, id=3))  # 20 <25> 30: a tie
    h.send(BOB, P.Commit(round=1, turn=1, card=81, id=3))
    seated = away_and_back(h, ANN, 2.0)
    placed = h.of(BOB, "placed")[0]
    assert (placed.seat, placed.card, placed.row, placed.end) == (0, 25, 0, "right")
    assert seated.autoplayed[0] == P.Autoplayed(kind="tie", round=1, turn=1, card=25,
                                                row=0, end="right")
    assert [a.kind for a in seated.autoplayed] == ["tie", "commit"]


def test_a_draft_pick_the_autopilot_made_while_away_is_told_when_back():
    h = Harness.new(draft=True, tactic_deck=True, autoplay_when_away="immediately")
    h.start_two()
    seated = away_and_back(h, ANN, 1.0)
    picked = h.of(BOB, "draft_picked")
    assert [p.seat for p in picked] == [0]
    assert seated.autoplayed == (P.Autoplayed(kind="draft", round=1, turn=0,
                                              card=picked[0].card),)


def test_what_the_autopilot_did_for_a_player_connected_is_not_told_as_autoplayed():
    """A deadline passing for a player who is there is no 'while you were away'."""
    h = Harness.new(fixed(standard_deal(low_seat=0)), choice_time=5.0)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))
    h.run_until(5.0)  # the row is chosen for her: time ran out
    assert h.last(BOB, "row_taken").seat == 0
    assert away_and_back(h, ANN, 6.0).autoplayed == ()


@pytest.mark.parametrize("away, said", [(False, "time ran out"), (True, "player away")])
def test_the_log_says_whether_the_autopilot_played_for_a_late_or_an_away_player(
        caplog: pytest.LogCaptureFixture, away: bool, said: str):
    caplog.set_level(logging.INFO, logger="nimmt.server")
    h = Harness.new(fixed(standard_deal(low_seat=0)), choice_time=5.0,
                    autoplay_when_away="immediately")
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))
    if away:
        h.input(Disconnected(ANN.id, 0.0))
    h.run_until(5.0)
    lines = [r.getMessage() for r in caplog.records if "chose row" in r.getMessage()]
    assert lines == [f"table=t1 seat=0 round=1 turn=1 autopilot ({said}): chose row 1"]


# ====================================================================== seats
def test_a_seat_number_past_the_table_is_refused_naming_the_seats_there_are():
    h = Harness.new(seats=3)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(BOB, P.Join(table_id="t1", seat=3, id=5))
    error = h.last(BOB, "error")
    assert (error.code, error.message, error.field, error.re) == (
        "no_such_seat", "seats are 0 to 2", "seat", 5)


def test_three_built_in_bots_of_one_level_are_given_three_different_seeds():
    """Bots that drew the same seed would play alike from the same view."""
    h = Harness.new(seats=4)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=4), id=1))
    for i in range(3):
        h.send(ANN, P.AddBot(strategy="heuristic", id=2 + i))
    h.send(ANN, P.Start(id=9))
    seeds = [t.seed for t in h.thinks[:3]]
    assert sorted(t.seat for t in h.thinks[:3]) == [1, 2, 3]
    assert len(set(seeds)) == 3 and all(0 <= s < 2**32 for s in seeds)


def test_a_player_leaving_a_game_that_is_over_frees_the_seat_at_once():
    h = over_table()
    h.send(BOB, P.Leave(id=8))
    assert h.last(BOB, "left").re == 8
    assert [s.name if s else None for s in h.last(ANN, "table_updated").table.seats] == [
        "Ann", None, None]
    assert [f.kind for f in h.facts[-1:]] == ["seat"]  # freed, not "left" (mid-game)
    out = h.send(CY, P.Join(table_id="t1", id=9))
    assert [m.seat for member, m in out.sends if member == CY.id and m.TYPE == "seated"] == [1]


def test_a_player_back_at_a_waiting_table_after_sending_a_hash_is_only_told_its_seat():
    """No reveal is asked for before the game's seats are fixed (status revealing)."""
    h = Harness.new(seats=3)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(BOB, P.Join(table_id="t1", entropy_hash="ab" * 32, id=1))
    h.input(Disconnected(BOB.id, 0.0))
    h.got[BOB.id].clear()
    h.input(Reconnected(BOB.id))
    assert [m.TYPE for _, m in h.got[BOB.id]] == ["seated", "table_updated"]


# ====================================================================== the clock
def test_with_a_time_bank_the_seat_is_told_its_extra_time_at_the_deadline_and_played_after():
    h = Harness.new(time_bank=10.0)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(60.0)
    timeline = [(t, m.TYPE, m.deadline, m.remaining) for t, m in h.got[ANN.id]
                if m.TYPE == "deadline_warning"]
    # no warning 5 s before the table's deadline: her bank carries her past it
    assert timeline == [(30.0, "deadline_warning", WALL + 40.0, 10.0)]
    assert h.at(ANN, h.of(ANN, "revealed")[0]) == 40.0


def test_a_paused_clock_moves_the_deadline_by_the_pause_and_says_so():
    h = Harness.new()
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(ANN, P.AddBot(id=2))
    h.send(ANN, P.Start(id=3))
    h.run_until(10.0)
    h.send(ANN, P.Pause(id=4))
    assert h.last(ANN, "clock_paused") == P.ClockPaused(
        paused=True, ends_in=600.0, deadline=WALL + 30.0, remaining=20.0, re=4)
    h.run_until(25.0)
    assert not h.of(ANN, "deadline_warning")  # 5 s before the old deadline: paused
    h.send(ANN, P.Resume(id=5))
    assert h.last(ANN, "clock_paused") == P.ClockPaused(
        paused=False, ends_in=0.0, deadline=WALL + 45.0, remaining=20.0, re=5)
    h.run_until(60.0)
    warning = h.last(ANN, "deadline_warning")
    assert (h.at(ANN, warning), warning.deadline, warning.remaining) == (40.0, WALL + 45.0, 5.0)
    assert h.at(ANN, h.of(ANN, "revealed")[0]) == 45.0


def test_the_lobby_sees_a_penalty_as_soon_as_its_row_taken_step_is_out():
    """While the steps are paced, the table's listing shows what was shown: the row
    just taken, and the round's penalties while the game is played."""
    h = Harness.new(fixed(standard_deal(low_seat=0)), step_delay=1.0)
    h.start_two()
    h.run_until(1.0)
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))
    h.run_until(5.0)
    h.send(ANN, P.ChooseRow(round=1, turn=1, row=3, id=4))  # 14: one bullhead
    h.run_until(5.5)  # row_taken is out, the next steps are not
    assert [m.TYPE for t, m in h.got[BOB.id] if t == 5.0] == ["row_taken", "placed"]
    assert [(s.total, s.penalties) for s in h.match.info().seats] == [(0, 1), (0, 0)]
    h.run_until(7.0)  # the steps are out
    assert [(s.total, s.penalties) for s in h.match.info().seats] == [(0, 1), (0, 0)]


def test_the_seat_of_a_player_who_left_mid_game_is_freed_when_the_game_ends():
    h = Harness.new(rounds=1, point_limit=0, turn_time=1.0, choice_time=1.0)
    h.start_two()
    h.send(ANN, P.Leave(id=7))
    assert [s.name if s else None for s in h.last(BOB, "table_updated").table.seats] == [
        "Ann", "Bob"]  # played by the autopilot while the game goes on
    h.run_until(30.0)
    table = h.last(BOB, "table_updated").table
    assert (table.status, [s.name if s else None for s in table.seats]) == ("over", [None, "Bob"])


def test_a_match_written_while_the_reveals_are_awaited_keeps_their_deadline():
    from test_commit_reveal import BOB_ENTROPY, digest, three_seats
    h = three_seats()
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    h.send(CY, P.Join(table_id="t1", id=1))
    h.send(ANN, P.Start(id=2))
    h.run_until(3.0)
    copy = Harness(Match.from_data(json.loads(json.dumps(h.match.to_data()))))
    copy.now = 3.0
    assert copy.match.status == "revealing" and copy.match.next_wake() == 10.0
    copy.run_until(10.0)  # Bob's reveal is withheld: the game starts
    assert copy.match.status == "playing"


def test_only_the_host_s_table_updated_answers_its_add_bot():
    h = Harness.new(seats=3)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(BOB, P.Join(table_id="t1", id=1))
    out = h.send(ANN, P.AddBot(id=4))
    assert [(member, m.TYPE, m.re) for member, m in out.sends] == [
        (ANN.id, "table_updated", 4), (BOB.id, "table_updated", None)]


def test_the_listing_tells_a_person_s_seat_from_a_bot_client_s_and_a_built_in_bot_s():
    h = Harness.new(seats=4)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=4), id=1))
    h.send(Who(7, "Robo", "bot"), P.Join(table_id="t1", id=1))
    h.send(ANN, P.AddBot(id=4))
    h.send(BOB, P.Join(table_id="t1", id=1))
    assert [(s.name, s.kind) for s in h.match.info().seats] == [
        ("Ann", "human"), ("Robo", "bot"), ("Bot 1", "bot"), ("Bob", "human")]


def test_after_a_draft_each_seat_is_told_the_hand_it_picked():
    h = Harness.new(draft=True, tactic_deck=True, draft_time=1.0)
    h.start_two()
    h.run_until(40.0)
    picks: dict[int, list[int]] = {0: [], 1: []}
    for p in h.of(BOB, "draft_picked"):
        picks[p.seat].append(p.card)
    assert len(picks[0]) == len(picks[1]) == 10
    for seat, who in enumerate((ANN, BOB)):
        assert [m.cards for m in h.of(who, "hand_dealt")] == [tuple(sorted(picks[seat]))]


def test_a_draft_written_as_plain_data_goes_on_exactly_as_the_original():
    h = Harness.new(draft=True, tactic_deck=True, draft_time=1.0)
    h.start_two()
    h.run_until(3.5)  # three picks made by the deadlines
    data = json.loads(json.dumps(h.match.to_data()))
    copy = Harness(Match.from_data(data))
    copy.now, copy.fallback = h.now, make_strategy(h.match.settings.fallback, 7)
    h.fallback = make_strategy(h.match.settings.fallback, 7)
    for harness in (h, copy):
        harness.got.clear()
        harness.run_until(40.0)
    assert copy.got[BOB.id] == h.got[BOB.id] and copy.of(BOB, "rows_dealt")


def test_a_strategy_s_late_answer_is_dropped_while_the_next_turn_s_steps_are_shown():
    """The fallback asked for Ann at her deadline answers after she committed herself
    and the turn moved on (its steps still paced): nothing is applied, nobody hears."""
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=1.0, turn_time=5.0)
    h.answer = False
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(5.0)  # Ann's deadline: the fallback is asked
    asked = h.thinks[-1]
    assert asked.seat == 0 and asked.key == ("commit", 1, 1)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=4))  # in before it
    assert h.match._game.pending.seats == frozenset({0, 1})  # turn 2's commits (paced)
    before = {who.id: list(h.got[who.id]) for who in (ANN, BOB)}
    effects = h.input(BotDecided(asked.seat, asked.key, asked.view.legal[1]))
    assert effects.sends == [] and effects.facts == []
    h.run_until(20.0)
    assert [m.TYPE for _, m in h.got[BOB.id][len(before[BOB.id]):]].count("seat_committed") == 0


# ====================================================================== more of the clock
def test_a_warning_one_second_before_the_deadline_when_the_table_says_one():
    h = Harness.new(warn_before=1.0)
    h.start_two()
    h.run_until(30.0)
    assert [(t, m.remaining, m.deadline) for t, m in h.got[ANN.id]
            if m.TYPE == "deadline_warning"] == [(29.0, 1.0, WALL + 30.0)]


def test_the_time_bank_keeps_what_a_late_decision_left_of_it_for_the_next():
    h = Harness.new(fixed(standard_deal(players=2)), time_bank=10.0)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(34.0)  # 4 s of her 10 used
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.send(BOB, P.Commit(round=1, turn=2, card=h.hand(BOB)[1], id=4))
    h.run_until(100.0)
    assert [(t, m.turn, m.deadline - WALL, m.remaining) for t, m in h.got[ANN.id]
            if m.TYPE == "deadline_warning"][:2] == [(30.0, 1, 40.0, 10.0), (64.0, 2, 70.0, 6.0)]
    assert [t for t, m in h.got[ANN.id] if m.TYPE == "revealed"][:2] == [34.0, 70.0]


def test_with_nobody_watching_the_next_turn_waits_the_unwatched_delay_for_each_step():
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=0.8, unwatched_step_delay=0.5)
    ann, bob = Who(1, "A", "bot"), Who(2, "B", "bot")
    h.send(ann, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(bob, P.Join(table_id="t1", id=1))
    h.send(ann, P.Start(id=2))
    h.send(ann, P.Commit(round=1, turn=1, card=h.hand(ann)[0], id=3))
    h.send(bob, P.Commit(round=1, turn=1, card=h.hand(bob)[0], id=3))
    h.run_until(5.0)
    assert [(t, m.TYPE) for t, m in h.got[bob.id]][-4:] == [
        (0.0, "revealed"), (0.0, "placed"), (0.0, "placed"), (1.5, "turn_started")]


def test_no_warning_is_sent_while_the_turn_s_steps_are_still_being_shown():
    """The old decision's warning time passing during the steps warns nobody; the new
    turn's deadline is warned 5 s before it, once."""
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=1.0)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(24.5)
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.run_until(70.0)
    warnings = [(t, m.turn, m.deadline) for t, m in h.got[ANN.id] if m.TYPE == "deadline_warning"]
    start = h.at(ANN, h.of(ANN, "turn_started")[1])  # after 3 steps of 1 s
    assert start == 27.5 and warnings[0] == (start + 25.0, 2, WALL + start + 30.0)


def test_a_new_game_with_a_dealer_and_no_seed_kept_is_dealt_new_hands():
    from nimmt.server.game.translate import random_deal
    h = Harness.new(dealer=random_deal, rounds=1, point_limit=0, turn_time=1.0,
                    choice_time=1.0)
    h.start_two()
    first = h.hand(ANN)
    h.run_until(30.0)
    assert h.match.status == "over"
    h.send(ANN, P.Start(id=5))
    assert h.hand(ANN) != first and set(h.hand(ANN)).isdisjoint(h.hand(BOB))


# ====================================================================== read back, presence
def test_a_match_read_back_keeps_the_seed_it_committed_to():
    h = Harness.new()  # no dealer: dealt from a committed seed
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    committed = h.match.commitment
    assert committed is not None
    copy = Harness(Match.from_data(json.loads(json.dumps(h.match.to_data()))))
    assert copy.match.commitment == committed
    copy.send(BOB, P.Join(table_id="t1", id=1))
    copy.send(ANN, P.Start(id=2))
    assert copy.last(ANN, "round_started").commitment == committed


def test_a_match_read_back_still_tells_the_commit_the_autopilot_made_while_away():
    h = Harness.new(fixed(standard_deal(players=2)), turn_time=100.0, grace_time=30.0)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.input(Disconnected(ANN.id, 0.0))
    h.run_until(5.0)
    copy = Harness(Match.from_data(json.loads(json.dumps(h.match.to_data()))))
    copy.now = 5.0
    copy.run_until(31.0)  # her grace is over: the fallback commits for her (turn 2 too)
    copy.input(Reconnected(ANN.id))
    assert [(a.kind, a.round, a.turn) for a in copy.last(ANN, "seated").autoplayed] == [
        ("commit", 1, 1), ("commit", 1, 2)]


def test_only_a_game_s_start_is_reported_started():
    h = Harness.new()
    assert not h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1)).started
    assert not h.send(BOB, P.Join(table_id="t1", id=1)).started
    assert h.send(ANN, P.Start(id=2)).started
    assert not h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3)).started


def test_a_chat_is_not_held_back_by_another_player_s_decision_waiting_for_the_steps():
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=1.0)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))  # steps: 3 s
    h.run_until(0.5)
    h.send(ANN, P.Commit(round=1, turn=2, card=h.hand(ANN)[1], id=4))  # waits for them
    assert h.match.has_deferred(ANN.id) and not h.match.has_deferred(BOB.id)
    h.send(BOB, P.Chat(text="hi", id=5))
    assert [(t, m.text) for t, m in h.got[ANN.id] if m.TYPE == "chat_message"] == [(0.5, "hi")]


def test_a_player_back_within_the_grace_is_not_played_for():
    h = Harness.new(fixed(standard_deal(players=2)), turn_time=100.0, grace_time=30.0)
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.input(Disconnected(ANN.id, 1.0))
    h.run_until(10.0)
    h.input(Reconnected(ANN.id))
    h.run_until(60.0)
    assert not h.of(BOB, "revealed") and h.match.info().seats[0].connected
    h.run_until(100.0)  # her deadline
    assert h.at(BOB, h.last(BOB, "revealed")) == 100.0


def test_a_match_read_back_mid_turn_keeps_the_deadline_it_announced():
    h = Harness.new(fixed(standard_deal(players=2)))
    h.start_two()
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))
    h.run_until(10.0)
    copy = Harness(Match.from_data(json.loads(json.dumps(h.match.to_data()))))
    copy.now = 10.0
    assert copy.match.next_wake() == 25.0  # the warning, then the deadline at 30
    copy.run_until(60.0)
    assert [(t, m.deadline) for t, m in copy.got[ANN.id] if m.TYPE == "deadline_warning"][
        0] == (25.0, WALL + 30.0)
    assert copy.at(ANN, copy.of(ANN, "revealed")[0]) == 30.0


def test_a_snapshot_carries_the_commit_deadline_only_while_cards_are_committed():
    h = Harness.new(fixed(standard_deal(low_seat=0)), choice_time=20.0)
    h.start_two()
    h.input(Disconnected(ANN.id, 0.0))
    h.run_until(12.0)
    h.input(Reconnected(ANN.id))
    snap = h.last(ANN, "snapshot")
    assert (snap.phase, snap.deadline, snap.remaining, snap.pending) == (
        "commit", WALL + 30.0, 18.0, None)
    h.send(ANN, P.Commit(round=1, turn=1, card=1, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=15, id=3))  # Ann must choose a row
    h.input(Disconnected(ANN.id, 12.0))
    h.run_until(15.0)
    h.input(Reconnected(ANN.id))
    snap = h.last(ANN, "snapshot")
    assert (snap.phase, snap.deadline, snap.remaining) == ("resolve", None, None)
    assert (snap.pending.kind, snap.pending.deadline, snap.pending.remaining) == (
        "row", WALL + 32.0, 17.0)


def test_a_player_who_is_not_the_host_cannot_add_a_bot_or_start():
    h = Harness.new(seats=3)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(BOB, P.Join(table_id="t1", id=1))
    before = [s.name if s else None for s in h.match.seats]
    out = h.send(BOB, P.AddBot(id=2))
    assert [(member, m.TYPE, m.code, m.re) for member, m in out.sends] == [
        (BOB.id, "error", "not_host", 2)]
    assert [s.name if s else None for s in h.match.seats] == before == ["Ann", "Bob", None]
    h.send(ANN, P.AddBot(id=3))
    out = h.send(BOB, P.Start(id=4))
    assert [(m.TYPE, m.code) for _, m in out.sends] == [("error", "not_host")]
    assert h.match.status == "waiting" and not out.started


def test_the_bots_table_waits_on_when_its_player_leaves_before_the_game_and_closes_after():
    settings = TableSettings(seats=2, step_delay=0.0).validate()
    h = Harness(Match("t1", "bots", settings, now=0.0, seed=3, persistent=True))
    h.match.place_bot(1, "heuristic", None)
    h.send(ANN, P.Join(table_id="t1", id=1))
    out = h.send(ANN, P.Leave(id=2))
    assert out.closed is None and h.match.status == "waiting"
    h.send(BOB, P.Join(table_id="t1", id=3))
    h.send(BOB, P.Start(id=4))
    out = h.send(BOB, P.Leave(id=5))  # mid-game: the bot does not play on alone
    assert out.closed == "its player left: the bots do not play on for nobody"


def read_back(h: Harness) -> Harness:
    """A copy of ``h``'s match through plain data (JSON), at the same time."""
    copy = Harness(Match.from_data(json.loads(json.dumps(h.match.to_data()))))
    copy.now, copy.fallback = h.now, make_strategy(h.match.settings.fallback, 7)
    h.fallback = make_strategy(h.match.settings.fallback, 7)
    return copy


def test_a_game_read_back_after_a_tie_choice_goes_on_exactly_as_the_original():
    h = Harness.new(fixed(TIE_DEAL), professional=True)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=25, id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=81, id=3))
    h.send(ANN, P.ChooseTie(round=1, turn=1, place=P.Place(row=1, end="left"), id=4))
    copy = read_back(h)
    assert copy.match.info() == h.match.info()
    for harness in (h, copy):
        harness.got.clear()
        harness.run_until(100.0)
    assert copy.got[BOB.id] == h.got[BOB.id] and copy.of(BOB, "revealed")


def test_a_spectator_s_watch_and_drop_waiting_for_the_steps_are_kept_as_data():
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=1.0)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))  # 3 paced steps
    h.send(EVE, P.Watch(table_id="t1", id=1))  # waits for them
    h.input(Disconnected(EVE.id, 0.0))  # so does her drop, behind her watch
    h.input(Reconnected(EVE.id))
    copy = read_back(h)
    for harness in (h, copy):
        harness.got.clear()
        harness.run_until(5.0)
        # her watch is answered once the steps are out, then her drop and return are
        # taken in their order: she is greeted again
        assert [(t, m.TYPE) for t, m in harness.got[EVE.id]] == [
            (3.0, "watching"), (3.0, "snapshot"), (3.0, "table_updated")] * 2
        assert harness.match.members[EVE.id].connected
    assert copy.match.to_data() == h.match.to_data()


def test_the_decision_facts_say_who_decided():
    h = Harness.new(fixed(standard_deal(players=3)), seats=3, turn_time=10.0)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(BOB, P.Join(table_id="t1", id=1))
    h.send(ANN, P.AddBot(id=2))
    h.send(ANN, P.Start(id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=4))
    h.run_until(10.0)  # Ann's deadline: the fallback commits for her
    decided = [(f.payload["seat"], f.payload["by"]) for f in h.facts
               if f.kind == "decision"]
    assert sorted(decided[:3]) == [(0, "autopilot"), (1, "player"), (2, "bot")]


def test_the_log_calls_the_autopilot_s_commit_so_and_a_built_in_bot_s_not(
        caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.INFO, logger="nimmt.server")
    h = Harness.new(fixed(standard_deal(players=3)), seats=3, turn_time=10.0)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(BOB, P.Join(table_id="t1", id=1))
    h.send(ANN, P.AddBot(id=2))
    h.send(ANN, P.Start(id=3))
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=4))
    h.run_until(10.0)  # Ann's deadline: the fallback commits for her
    lines = sorted(r.getMessage() for r in caplog.records
                   if "round=1 turn=1 " in r.getMessage() and "a card" in r.getMessage())
    assert lines == ["table=t1 seat=0 round=1 turn=1 autopilot (time ran out): committed a card",
                     "table=t1 seat=1 round=1 turn=1 committed a card",
                     "table=t1 seat=2 round=1 turn=1 committed a card"]


def test_a_pause_ends_by_itself_after_its_longest_time():
    h = Harness.new()
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(ANN, P.AddBot(id=2))
    h.send(ANN, P.Start(id=3))
    h.run_until(10.0)
    h.send(ANN, P.Pause(id=4))
    h.run_until(609.9)
    assert h.last(ANN, "clock_paused").paused and h.match.next_wake() == 610.0
    h.now = 610.0  # one wake-up, not run_until: a pause that never ends would loop
    h.take(h.match.wake(h.now, WALL + h.now))
    assert (h.at(ANN, h.last(ANN, "clock_paused")), h.last(ANN, "clock_paused")) == (
        610.0, P.ClockPaused(paused=False, ends_in=0.0, deadline=WALL + 630.0,
                             remaining=20.0))
    h.run_until(700.0)
    assert h.at(ANN, h.of(ANN, "revealed")[0]) == 630.0


def test_the_players_are_told_when_a_spectator_away_too_long_is_removed():
    h = Harness.new()
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(EVE, P.Watch(table_id="t1", id=1))
    h.input(Disconnected(EVE.id, 0.0))
    h.got[ANN.id].clear()
    h.run_until(119.9)
    assert h.got[ANN.id] == []
    h.run_until(300.0)
    assert [(t, m.TYPE, m.table.spectators) for t, m in h.got[ANN.id]] == [
        (120.0, "table_updated", 0)]


def test_a_half_second_pause_moves_the_deadline_by_half_a_second():
    h = Harness.new()
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=2), id=1))
    h.send(ANN, P.AddBot(id=2))
    h.send(ANN, P.Start(id=3))
    h.run_until(10.0)
    h.send(ANN, P.Pause(id=4))
    h.run_until(10.5)
    h.send(ANN, P.Resume(id=5))
    resumed = h.last(ANN, "clock_paused")
    assert (resumed.paused, resumed.deadline, resumed.remaining) == (False, WALL + 30.5, 20.0)
    h.run_until(60.0)
    assert h.at(ANN, h.of(ANN, "revealed")[0]) == 30.5


def test_a_player_back_while_the_steps_are_shown_is_greeted_once_they_are_out():
    h = Harness.new(fixed(standard_deal(players=2)), step_delay=1.0)
    h.start_two()
    h.send(ANN, P.Commit(round=1, turn=1, card=h.hand(ANN)[0], id=3))
    h.input(Disconnected(ANN.id, 0.0))
    h.send(BOB, P.Commit(round=1, turn=1, card=h.hand(BOB)[0], id=3))  # 3 paced steps
    h.got[ANN.id].clear()
    h.run_until(0.5)
    h.input(Reconnected(ANN.id))
    h.run_until(5.0)
    # nothing until then (a step of a turn her snapshot shows as done), then once
    assert [(t, m.TYPE) for t, m in h.got[ANN.id]] == [(3.0, "seated"), (3.0, "snapshot")]
    assert h.last(ANN, "snapshot").turn == 2


def test_closing_a_table_tells_each_member_it_is_closed():
    h = Harness.new()
    h.start_two()
    h.send(EVE, P.Watch(table_id="t1", id=1))
    out = h.match.close("the server stops", 1.0, WALL + 1.0)
    assert [(member, m) for member, m in out.sends] == [
        (member, P.Left(table_id="t1", reason="table_closed")) for member in (ANN.id, BOB.id,
                                                                              EVE.id)]
    assert out.released == [ANN.id, BOB.id, EVE.id] and out.closed == "the server stops"


def test_the_log_of_a_game_s_start_names_no_round_yet(caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.INFO, logger="nimmt.server")
    Harness.new().start_two()
    lines = [r.getMessage() for r in caplog.records]
    assert "table=t1 game 1 starts: 0=Ann, 1=Bob" in lines
    assert "table=t1 round=1 round 1 starts" in lines
