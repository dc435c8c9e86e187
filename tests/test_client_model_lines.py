"""The client's model in words: for every kind of event the model turns into a log
line or a score-sheet row, the exact line a player should read, written by hand from
docs/CLIENT.md and docs/RULES.md (issue 43: a card put before a row was said to go
"before the row's last card", a round scored after the kept sheet came was listed
twice). Every message goes through the wire first (encoded as the server frames it,
decoded as the client reads it). Ann (seat 0) is us unless we watch."""

from __future__ import annotations

from typing import Any

import pytest
from test_client_model_wire import through_the_wire
from test_client_support import Clock, seat, table, welcome

from nimmt import protocol as P
from nimmt.client import LinkLost, LinkRestored, TableModel
from nimmt.client.records import GameResult, RoundResult

NAMES: list[str | None] = ["Ann", "Bob", "Cat", "Dan"]
HAND = (3, 14, 21, 50, 60, 70, 80, 90, 100, 104)
ROWS = ((12,), (37,), (43,), (58,))


def feed(m: TableModel, *msgs: Any) -> TableModel:
    for msg in msgs:
        m.apply(through_the_wire(msg))
    return m


def lines(m: TableModel) -> list[str]:
    return [line.text for line in m.log]


def said(m: TableModel, *msgs: Any) -> list[str]:
    """The log lines the messages add, in order."""
    before = len(m.log)
    feed(m, *msgs)
    return lines(m)[before:]


def game(rows: tuple[tuple[int, ...], ...] = ROWS, names: list[str | None] | None = None,
         **options: Any) -> TableModel:
    """Ann seated, round 1 dealt with ``rows``, turn 1 open."""
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(names or NAMES, **options), seat=0),
         P.RoundStarted(round=1), P.HandDealt(cards=HAND), P.RowsDealt(rows=rows),
         P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0))
    return m


def watched(rows: tuple[tuple[int, ...], ...] = ROWS, **options: Any) -> TableModel:
    """A spectator of Ann, Bob, Cat and Dan's game, round 1 dealt, turn 1 open."""
    m = TableModel(Clock())
    feed(m, welcome("Eve"), P.Watching(table=table(NAMES, status="playing", **options)),
         P.RoundStarted(round=1), P.RowsDealt(rows=rows),
         P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0))
    return m


def five_in_row_1(m: TableModel) -> TableModel:
    """Row 1 (dealt as 12) filled to 12 13 14 15 16 by turns of Bob's and Cat's."""
    for turn, (bob, cat) in enumerate(((13, 14), (15, 16)), 2):
        feed(m, P.TurnStarted(round=1, turn=turn, deadline=1e9, remaining=30.0),
             reveal([(1, bob), (2, cat)]), P.Placed(seat=1, card=bob, row=0, end="right"),
             P.Placed(seat=2, card=cat, row=0, end="right"))
    feed(m, P.TurnStarted(round=1, turn=4, deadline=1e9, remaining=30.0))
    assert m.rows[0] == [12, 13, 14, 15, 16]
    return m


def reveal(plays: list[tuple[int, int]]) -> P.Revealed:
    return P.Revealed(plays=tuple(sorted(plays, key=lambda p: p[1])))


def seats_at(names: list[str | None], *, connected: tuple[bool, ...] = (),
             host: int = 0, **options: Any) -> P.TableUpdated:
    t = table(names, host=host, **options)
    seats = tuple(seat(str(n), connected=connected[i] if i < len(connected) else True)
                  for i, n in enumerate(names))
    return P.TableUpdated(table=P.TableInfo(**{**_fields(t), "seats": seats}))


def _fields(obj: Any) -> dict[str, Any]:
    return {f: getattr(obj, f) for f in obj.__dataclass_fields__}


# -- the start of a game ------------------------------------------------------------

def test_a_round_s_start_the_hand_and_the_rows_in_words() -> None:
    m = TableModel(Clock())
    feed(m, welcome("Cat"))
    assert said(m, P.Seated(table=table(NAMES, name="Friday"), seat=2),
                P.RoundStarted(round=1), P.HandDealt(cards=(104, 3, 50)),
                P.RowsDealt(rows=((12,), (37,), (43,), (58,)))) == [
        "You sit at table t1 “Friday”, seat 3.", "Round 1 begins.",
        "Your hand: 3 50 104.", "The rows: 1: 12 | 2: 37 | 3: 43 | 4: 58."]


# -- a turn's cards going down -------------------------------------------------------

def test_a_turn_s_plays_in_card_order_a_low_card_s_row_and_each_card_s_place() -> None:
    m = game()
    assert said(m, reveal([(0, 14), (1, 38), (2, 44), (3, 3)]),
                P.RowChoiceNeeded(seat=3, card=3, deadline=1e9, remaining=20.0),
                P.RowTaken(seat=3, row=0, cards=(12,), bullheads=1),
                P.Placed(seat=3, card=3, row=0, end="right"),
                P.Placed(seat=0, card=14, row=0, end="right"),
                P.Placed(seat=1, card=38, row=1, end="right"),
                P.Placed(seat=2, card=44, row=2, end="right")) == [
        "Turn 1: Dan 3, you 14, Bob 38, Cat 44.",
        "Dan's 3 is lower than every row: Dan chooses a row to take.",
        "Dan takes row 1: 12 (1 bullhead).",
        "Dan's 3 starts row 1.",
        "Your 14 goes after 3 in row 1.",
        "Bob's 38 goes after 37 in row 2.",
        "Cat's 44 goes after 43 in row 3."]
    assert m.rows == [[3, 14], [37, 38], [43, 44], [58]]
    assert m.penalties == [0, 0, 0, 1]


def test_your_low_card_asks_you_for_a_row_and_a_row_of_many_bullheads_is_plural() -> None:
    m = game(rows=((55,), (37,), (43,), (58,)))
    assert said(m, reveal([(0, 3), (1, 38)]),
                P.RowChoiceNeeded(seat=0, card=3, deadline=1e9, remaining=20.0),
                P.RowChoiceRequest(round=1, turn=1, card=3, rows=(0, 1, 2, 3), deadline=1e9,
                                   remaining=20.0)) == [
        "Turn 1: you 3, Bob 38.",
        "Your 3 is lower than every row: choose the row to take (keys 1–4)."]
    m.answered(m.decision)  # type: ignore[arg-type]
    assert said(m, P.RowTaken(seat=0, row=0, cards=(55,), bullheads=7),
                P.Placed(seat=0, card=3, row=0, end="right")) == [
        "You take row 1: 55 (7 bullheads).", "Your 3 starts row 1."]
    assert m.penalties[0] == 7


@pytest.mark.parametrize(("who", "card", "taker", "owner"), [
    (1, 20, "Bob takes", "Bob's"), (0, 21, "You take", "Your")])
def test_a_sixth_card_takes_the_row_and_says_why(who: int, card: int, taker: str,
                                                 owner: str) -> None:
    m = five_in_row_1(game())
    assert said(m, reveal([(who, card), (3, 38)]),
                P.RowTaken(seat=who, row=0, cards=(12, 13, 14, 15, 16), bullheads=6),
                P.Placed(seat=who, card=card, row=0, end="right"))[1:] == [
        f"{taker} row 1: 12 13 14 15 16 (6 bullheads) — {card} is its sixth card.",
        f"{owner} {card} starts row 1."]
    assert m.rows[0] == [card] and m.penalties[who] == 6


def test_a_low_card_choosing_a_full_row_is_no_sixth_card() -> None:
    m = five_in_row_1(game())
    assert said(m, reveal([(3, 3)]),
                P.RowChoiceNeeded(seat=3, card=3, deadline=1e9, remaining=20.0),
                P.RowTaken(seat=3, row=0, cards=(12, 13, 14, 15, 16), bullheads=6),
                P.Placed(seat=3, card=3, row=0, end="right"))[2:] == [
        "Dan takes row 1: 12 13 14 15 16 (6 bullheads).", "Dan's 3 starts row 1."]


def test_a_name_ending_in_s_takes_an_apostrophe_alone() -> None:
    m = game(names=["Ann", "Gus", "Cat", "Dan"])
    assert said(m, reveal([(1, 40)]), P.Placed(seat=1, card=40, row=1, end="right")) == [
        "Turn 1: Gus 40.", "Gus' 40 goes after 37 in row 2."]


# -- Professional rows ---------------------------------------------------------------

def test_professional_a_card_before_a_row_goes_before_its_first_card() -> None:
    m = game(rows=((12,), (37,), (43,), (58,)), professional=True)
    assert said(m, P.Placed(seat=1, card=40, row=1, end="right"),
                P.Placed(seat=2, card=30, row=1, end="left"),
                P.Placed(seat=3, card=29, row=1, end="left"),
                P.Placed(seat=0, card=10, row=0, end="left")) == [
        "Bob's 40 goes after 37 in row 2.", "Cat's 30 goes before 37 in row 2.",
        "Dan's 29 goes before 30 in row 2.", "Your 10 goes before 12 in row 1."]
    assert m.rows[:2] == [[10, 12], [29, 30, 37, 40]]


def test_professional_a_sixth_card_at_the_left_end_takes_the_row() -> None:
    m = five_in_row_1(game(professional=True))
    assert said(m, reveal([(2, 11)]),
                P.RowTaken(seat=2, row=0, cards=(12, 13, 14, 15, 16), bullheads=6),
                P.Placed(seat=2, card=11, row=0, end="left"))[1:] == [
        "Cat takes row 1: 12 13 14 15 16 (6 bullheads) — 11 is its sixth card.",
        "Cat's 11 starts row 1."]


@pytest.mark.parametrize(("who", "chooser"), [
    (2, "Cat chooses"), (0, "you choose (←/→, Enter)")])
def test_professional_a_tie_between_two_places_names_both(who: int, chooser: str) -> None:
    m = feed(game(rows=((30,), (50,), (70,), (90,)), professional=True),
             P.Placed(seat=3, card=60, row=1, end="right"))  # row 2: 50 60
    owner = "Your" if who == 0 else "Cat's"
    places = (P.Place(row=0, end="right"), P.Place(row=1, end="left"))
    assert said(m, reveal([(who, 40)]),
                P.TieChoiceNeeded(seat=who, card=40, places=places, deadline=1e9,
                                  remaining=20.0))[1:] == [
        f"{owner} 40 may go after 30 in row 1 or before 50 in row 2: {chooser}."]
    if who == 0:
        feed(m, P.TieChoiceRequest(round=1, turn=1, card=40, places=places, deadline=1e9,
                                   remaining=20.0))
        m.answered(m.decision)  # type: ignore[arg-type]
    assert said(m, P.Placed(seat=who, card=40, row=1, end="left")) == [
        f"{owner} 40 goes before 50 in row 2."]
    assert m.pending is None


# -- the autopilot -------------------------------------------------------------------

def test_the_autopilot_s_commit_for_you_is_said_and_your_own_is_not() -> None:
    m = game()
    assert said(m, P.CommitAccepted(round=1, turn=1, card=14, re=7)) == []
    assert said(m, P.TurnStarted(round=1, turn=2, deadline=1e9, remaining=30.0),
                P.CommitAccepted(round=1, turn=2, card=21)) == [
        "Time ran out: the autopilot played 21 for you."]
    assert [n.text for n in m.notices] == ["Time ran out: the autopilot played 21 for you."]


def test_the_autopilot_s_row_for_you() -> None:
    m = game()
    assert said(m, reveal([(0, 3)]),
                P.RowChoiceNeeded(seat=0, card=3, deadline=1e9, remaining=20.0),
                P.RowChoiceRequest(round=1, turn=1, card=3, rows=(0, 1, 2, 3), deadline=1e9,
                                   remaining=20.0),
                P.RowTaken(seat=0, row=1, cards=(37,), bullheads=1))[2:] == [
        "Time ran out: the autopilot took row 2 for you.",
        "You take row 2: 37 (1 bullhead)."]


def test_the_autopilot_s_place_for_you_names_the_card_it_goes_before() -> None:
    m = feed(game(rows=((30,), (50,), (70,), (90,)), professional=True),
             P.Placed(seat=3, card=60, row=1, end="right"))  # row 2: 50 60
    places = (P.Place(row=0, end="right"), P.Place(row=1, end="left"))
    assert said(m, reveal([(0, 40)]),
                P.TieChoiceNeeded(seat=0, card=40, places=places, deadline=1e9,
                                  remaining=20.0),
                P.TieChoiceRequest(round=1, turn=1, card=40, places=places, deadline=1e9,
                                   remaining=20.0),
                P.Placed(seat=0, card=40, row=1, end="left"))[2:] == [
        "Time ran out: the autopilot put 40 before 50 in row 2 for you.",
        "Your 40 goes before 50 in row 2."]


def test_another_seat_s_autopilot_is_not_said_as_yours() -> None:
    m = game()
    assert said(m, reveal([(1, 3)]),
                P.RowChoiceNeeded(seat=1, card=3, deadline=1e9, remaining=20.0),
                P.RowTaken(seat=1, row=3, cards=(58,), bullheads=1))[1:] == [
        "Bob's 3 is lower than every row: Bob chooses a row to take.",
        "Bob takes row 4: 58 (1 bullhead)."]
    assert m.notices == []


def test_a_deadline_warning_and_a_paused_clock_in_words() -> None:
    m = game()
    assert said(m, P.DeadlineWarning(kind="commit", round=1, turn=1, pick=0, deadline=1e9,
                                     remaining=5.2),
                P.ClockPaused(paused=True, ends_in=60.0, deadline=1e9, remaining=5.0),
                P.ClockPaused(paused=False, ends_in=0.0, deadline=1e9, remaining=5.0)) == [
        "5 seconds left to play a card — the autopilot plays one for you after that.",
        "The clock is paused while you read.", "The clock runs again."]


# -- the Draft -----------------------------------------------------------------------

def test_a_draft_s_picks_in_words_and_the_autopilot_s_pick() -> None:
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(["Ann", "Bob"], draft=True), seat=0))
    assert said(m, P.RoundStarted(round=1),
                P.DraftOpened(round=1, pool=(77, 3, 12, 40), first_picker=1),
                P.DraftPicked(seat=1, card=12),
                P.DraftPickNeeded(seat=0, round=1, pick=1, deadline=1e9, remaining=15.0),
                P.DraftPickRequest(round=1, pick=1, pool=(3, 40, 77), deadline=1e9,
                                   remaining=15.0),
                P.DraftPicked(seat=0, card=40)) == [
        "Round 1 begins.", "Draft: 4 cards lie open; Bob picks first.", "Bob picks 12.",
        "Time ran out: the autopilot picked 40 for you.", "You pick 40."]
    assert (m.hand, m.draft_pool, m.draft_picks) == ([40], [3, 77], [(1, 12), (0, 40)])
    assert said(m, P.RoundStarted(round=2),
                P.DraftOpened(round=2, pool=(5, 6), first_picker=0)) == [
        "Round 2 begins.", "Draft: 2 cards lie open; you pick first."]


def test_a_draft_pick_you_answered_is_not_the_autopilot_s() -> None:
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(["Ann", "Bob"], draft=True), seat=0),
         P.RoundStarted(round=1), P.DraftOpened(round=1, pool=(3, 12), first_picker=0),
         P.DraftPickRequest(round=1, pick=1, pool=(3, 12), deadline=1e9, remaining=15.0))
    m.answered(m.decision)  # type: ignore[arg-type]
    assert said(m, P.DraftPicked(seat=0, card=3)) == ["You pick 3."]


# -- the Tactic deck -----------------------------------------------------------------

def test_tactic_deck_only_its_cards_could_still_come() -> None:
    m = game(tactic_deck=True)  # 4 seats: cards 1..44
    assert sorted(m.could_come()) == [c for c in range(1, 45)
                                      if c not in (3, 14, 21, 12, 37, 43)]
    feed(m, reveal([(1, 44), (0, 14)]))
    assert 44 not in m.could_come() and 45 not in m.could_come()


# -- people at the table -------------------------------------------------------------

def test_away_back_sitting_down_leaving_and_the_host_in_words() -> None:
    m = game()
    assert said(m, seats_at(NAMES, connected=(True, False, True, True)),
                seats_at(NAMES), seats_at(NAMES, host=1)) == [
        "Bob is away (the autopilot may play for them).", "Bob is back.",
        "Bob is the host now."]
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(["Ann", None, "Cat"]), seat=0))
    assert said(m, P.TableUpdated(table=table(["Ann", "Bob", "Cat"])),
                P.TableUpdated(table=table(["Ann", "Bob", None])),
                P.TableUpdated(table=table(["Ann", "Bob", None], host=None)),
                P.TableUpdated(table=table(["Ann", "Bob", None], host=0))) == [
        "Bob sits down at seat 2.", "Cat leaves seat 3.", "You are the host now."]
    assert said(m, P.TableUpdated(table=table(["Ann", "Bob", "Dan"], host=0)),
                P.TableUpdated(table=table(["Ann", None, "Dan"], host=0))) == [
        "Dan sits down at seat 3.", "Bob leaves seat 2."]


def test_your_own_seat_away_and_back_is_said_to_you() -> None:
    m = game()
    assert said(m, seats_at(NAMES, connected=(False, True, True, True)), seats_at(NAMES)) == [
        "You are away (the autopilot may play for you).", "You are back."]


def test_chat_yours_another_s_and_a_namesake_s() -> None:
    m = game()
    m.said("hi all")
    assert said(m, P.ChatMessage(name="Bob", seat=1, text="hello"),
                P.ChatMessage(name="Ann", seat=0, text="hi all"),
                P.ChatMessage(name="Ann", seat=None, text="lobby hi"),
                P.ChatMessage(name="Zed", seat=2, text="odd")) == [
        "<Bob> hello", "<Ann> hi all", "<Ann (not you)> lobby hi", "<Zed, seat 3> odd"]


# -- a round's end, the game's end ---------------------------------------------------

def test_a_round_s_end_in_words_and_on_the_score_sheet() -> None:
    m = game()
    assert said(m, P.RoundScored(round=1, penalties=(3, 0, 7, 1), totals=(3, 0, 7, 1)),
                P.RoundStarted(round=2),
                P.RoundScored(round=2, penalties=(2, 11, 0, 5), totals=(5, 11, 7, 6))) == [
        "Round 1 scored: you +3, Bob +0, Cat +7, Dan +1.", "Round 2 begins.",
        "Round 2 scored: you +2, Bob +11, Cat +0, Dan +5."]
    assert m.scores == [RoundResult(1, (3, 0, 7, 1), (3, 0, 7, 1)),
                        RoundResult(2, (2, 11, 0, 5), (5, 11, 7, 6))]
    assert m.last_round == m.scores[-1] and m.totals == [5, 11, 7, 6]


@pytest.mark.parametrize(("totals", "places", "winners", "line"), [
    ((70, 12, 30, 44), (4, 1, 2, 3), (1,), "Game over: Bob wins with 12 bullheads."),
    ((9, 12, 30, 70), (1, 2, 3, 4), (0,), "Game over: You win with 9 bullheads."),
    ((12, 12, 30, 70), (1, 1, 3, 4), (0, 1), "Game over: You and Bob share first place "
                                             "with 12 bullheads."),
    ((70, 12, 12, 30), (4, 1, 1, 3), (1, 2), "Game over: Bob and Cat share first place "
                                             "with 12 bullheads."),
    ((5, 5, 5, 70), (1, 1, 1, 4), (0, 1, 2), "Game over: You, Bob and Cat share first "
                                             "place with 5 bullheads."),
])
def test_game_over_names_the_winners_and_shares_a_tied_first_place(
        totals: tuple[int, ...], places: tuple[int, ...], winners: tuple[int, ...],
        line: str) -> None:
    m = game()
    assert said(m, P.GameOver(totals=totals, places=places, winners=winners)) == [line]
    assert m.result == GameResult(totals, places, winners) and m.phase == "over"


@pytest.mark.parametrize(("winners", "line"), [
    ((0, 2), "Game over: Ann and you share first place with 12 bullheads."),
    ((0, 1, 2), "Game over: Ann, Bob and you share first place with 12 bullheads."),
])
def test_game_over_says_you_mid_sentence_when_you_are_not_the_first_winner(
        winners: tuple[int, ...], line: str) -> None:
    m = TableModel(Clock())
    feed(m, welcome(), P.Seated(table=table(["Ann", "Bob", "Cat"]), seat=2))
    totals = tuple(12 if s in winners else 40 for s in range(3))
    places = tuple(1 if s in winners else 3 for s in range(3))
    assert said(m, P.GameOver(totals=totals, places=places, winners=winners)) == [line]


def test_game_over_with_countdown_says_the_points_left() -> None:
    m = game(countdown=True, point_limit=50)
    assert said(m, P.GameOver(totals=(60, 12, 30, 44), places=(4, 1, 2, 3), winners=(1,))) \
        == ["Game over: Bob wins with 38 points left."]


def test_a_rated_game_s_end_says_each_rating_s_change() -> None:
    m = game(rated=True)
    feed(m, P.GameOver(totals=(70, 12, 30, 44), places=(4, 1, 2, 3), winners=(1,)))
    t = m.table
    assert t is not None
    rated = tuple(P.SeatInfo(**{**_fields(s), "rating": r, "games": g}) for s, r, g in
                  zip(t.seats, (-1.25, 2.5, None, 0.0), (1, 1, 0, 1), strict=True))
    assert said(m, P.TableUpdated(table=P.TableInfo(**{**_fields(t), "seats": rated}))) == [
        "Ratings after this game: Ann 0.0 → -1.2, Bob 0.0 → 2.5, Dan 0.0 → 0.0."]


def test_a_finished_game_found_again_ranks_tied_totals_alike() -> None:
    t = table(NAMES, status="over")
    seats = tuple(P.SeatInfo(**{**_fields(s), "total": tot})
                  for s, tot in zip(t.seats, (40, 21, 21, 66), strict=True))
    m = feed(TableModel(Clock()), welcome(),
             P.Seated(table=P.TableInfo(**{**_fields(t), "seats": seats}), seat=0))
    assert m.result == GameResult((40, 21, 21, 66), (3, 1, 1, 4), (1, 2))


# -- a spectator's view --------------------------------------------------------------

def test_a_spectator_reads_every_seat_by_its_name() -> None:
    m = watched()
    assert lines(m) == ["Connected to nimmt-test 1 as Eve.", "You watch table t1.",
                        "Round 1 begins.", "The rows: 1: 12 | 2: 37 | 3: 43 | 4: 58."]
    assert said(m, reveal([(0, 14), (3, 3)]),
                P.RowChoiceNeeded(seat=3, card=3, deadline=1e9, remaining=20.0),
                P.RowTaken(seat=3, row=2, cards=(43,), bullheads=1),
                P.Placed(seat=3, card=3, row=2, end="right"),
                P.Placed(seat=0, card=14, row=0, end="right"),
                P.RoundScored(round=1, penalties=(0, 0, 0, 1), totals=(0, 0, 0, 1)),
                P.GameOver(totals=(0, 4, 4, 1), places=(1, 3, 3, 2), winners=(0,))) == [
        "Turn 1: Dan 3, Ann 14.",
        "Dan's 3 is lower than every row: Dan chooses a row to take.",
        "Dan takes row 3: 43 (1 bullhead).", "Dan's 3 starts row 3.",
        "Ann's 14 goes after 12 in row 1.",
        "Round 1 scored: Ann +0, Bob +0, Cat +0, Dan +1.",
        "Game over: Ann wins with 0 bullheads."]
    assert m.notices == []


# -- a resumed game's sheet ----------------------------------------------------------

def test_a_resumed_game_s_sheet_its_line_and_the_round_scored_after_it() -> None:
    m = game()
    feed(m, P.RoundScored(round=1, penalties=(3, 0, 7, 1), totals=(3, 0, 7, 1)),
         P.RoundStarted(round=2))
    playing = table(NAMES, status="playing")
    sheet = ((3, 0, 7, 1), (2, 11, 0, 5))
    snapshot = P.Snapshot(table=playing, seat=0, round=3, turn=2, phase="commit",
                          hand=(50, 60), commit=None, rows=ROWS, deadline=1e9,
                          remaining=30.0, committed=(), revealed=(), draft_pool=(),
                          draft_picks=(), pending=None)
    assert said(m, LinkLost("the server closed the connection"),
                LinkRestored(welcome(resumed=True)),
                P.Seated(table=playing, seat=0, round_penalties=sheet), snapshot) == [
        "Connection lost (the server closed the connection) — reconnecting…",
        "Reconnected: you are at table t1, seat 1; the game is at round 3, turn 2.",
        "While you were away the autopilot played your turns from round 2 to round 3."]
    assert m.scores == [RoundResult(1, (3, 0, 7, 1), (3, 0, 7, 1)),
                        RoundResult(2, (2, 11, 0, 5), (5, 11, 7, 6))]
    assert said(m, P.RoundScored(round=3, penalties=(1, 0, 0, 0), totals=(6, 11, 7, 6))) == [
        "Round 3 scored: you +1, Bob +0, Cat +0, Dan +0."]
    assert [(r.round, r.totals) for r in m.scores] == [
        (1, (3, 0, 7, 1)), (2, (5, 11, 7, 6)), (3, (6, 11, 7, 6))]


def test_a_round_the_server_scores_again_after_the_sheet_is_on_it_once() -> None:
    m = feed(TableModel(Clock()), welcome(),
             P.Seated(table=table(["Ann", "Bob"], status="playing"), seat=0,
                      round_penalties=((3, 0), (1, 2))))
    assert said(m, P.RoundScored(round=2, penalties=(1, 2), totals=(4, 2))) == [
        "Round 2 scored: you +1, Bob +2."]
    assert m.scores == [RoundResult(1, (3, 0), (3, 0)), RoundResult(2, (1, 2), (4, 2))]


def test_a_spectator_s_sheet_comes_with_watching() -> None:
    m = feed(TableModel(Clock()), welcome("Eve"),
             P.Watching(table=table(["Ann", "Bob"], status="playing"),
                        round_penalties=((0, 4), (6, 1), (2, 2))))
    assert m.scores == [RoundResult(1, (0, 4), (0, 4)), RoundResult(2, (6, 1), (6, 5)),
                        RoundResult(3, (2, 2), (8, 7))]
    assert m.last_round == RoundResult(3, (2, 2), (8, 7))


def test_leaving_the_table_in_words() -> None:
    for reason, line in (("left", "You left table t1."),
                         ("kicked", "You were removed from table t1."),
                         ("table_closed", "The server closed table t1.")):
        m = game()
        assert said(m, P.Left(table_id="t1", reason=reason)) == [line], reason
