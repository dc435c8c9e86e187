"""What ``nimmt-replay`` tells a reader, line by line and JSON line by JSON line
(docs/RECORD.md, "nimmt-replay"): the narrator's words for each kind of placement and
choice, the result line's places, the table line, the ``position_set`` and
``record_stopped`` lines. Exact text: a wrong word, row or order fails a test.
No trio, no hypothesis (``tools/mutate.py --plain``)."""

from __future__ import annotations

from nimmt.engine import Game, Options
from nimmt.engine.events import (
    CardPlaced,
    CardsRevealed,
    CommitAccepted,
    DraftOpened,
    DraftPicked,
    GameOver,
    GameResult,
    HandDealt,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    TieChoiceNeeded,
    TurnStarted,
)
from nimmt.engine.moves import End, Place
from nimmt.engine.records import (
    Narrator,
    Record,
    RoundRecord,
    Start,
    TableFacts,
    TurnRecord,
    event_to_json,
    position_set_json,
    record_stopped_json,
    replay,
    step_lines,
    table_line,
)

NAMES = ["Ann", "Bob", "Cid"]


def told(narrator: Narrator, *events: object) -> list[str]:
    return [line for e in events for line in narrator.lines_for(e)]  # type: ignore[arg-type]


def dealt(narrator: Narrator, rows: tuple[int, ...] = (10, 20, 30, 40)) -> None:
    narrator.lines_for(RowsDealt(rows))


# ----------------------------------------------------------------- the narrator's words


def test_a_round_is_told_from_its_start_to_its_scores() -> None:
    n = Narrator(NAMES)
    assert told(n, RoundStarted(2), HandDealt(1, (3, 5, 8))) == ["Round 2", "  Bob holds 3 5 8"]
    assert told(n, DraftOpened((1, 2, 3, 4, 5), 2), DraftPicked(0, 4)) == [
        "  draft: 5 cards lie face up; Cid picks first", "  Ann picks 4"]
    assert told(n, RowsDealt((10, 20, 30, 40))) == ["  rows: 10 | 20 | 30 | 40"]
    # commits are told at the reveal, the seats in seat order whatever the card order
    assert told(n, TurnStarted(2, 1), CommitAccepted(0, 22), SeatCommitted(0)) == []
    assert told(n, CardsRevealed(((2, 12), (0, 22), (1, 41)))) == [
        "Turn 1: Ann 22, Bob 41, Cid 12"]
    assert told(n, CardPlaced(2, 12, 0), CardPlaced(0, 22, 1), CardPlaced(1, 41, 3)) == [
        "  Cid's 12 goes after 10 in row 0",
        "  Ann's 22 goes after 20 in row 1",
        "  Bob's 41 goes after 40 in row 3",
    ]
    # the rows are told once, when the next turn starts (not twice, not before it)
    assert told(n, TurnStarted(2, 2)) == ["  rows: 10 12 | 20 22 | 30 | 40 41"]
    assert told(n, TurnStarted(2, 3)) == []
    assert told(n, CardsRevealed(((0, 31),)), CardPlaced(0, 31, 2),
                RoundScored(2, (0, 1, 5), (3, 1, 27))) == [
        "Turn 3: Ann 31",
        "  Ann's 31 goes after 30 in row 2",
        "  rows: 10 12 | 20 22 | 30 31 | 40 41",
        "Round 2 bullheads: Ann 0, Bob 1, Cid 5",
        "Totals: Ann 3, Bob 1, Cid 27",
    ]


def test_a_turn_before_any_turn_started_is_numbered_with_a_question_mark() -> None:
    assert told(Narrator(NAMES), CardsRevealed(((1, 5),))) == ["Turn ?: Bob 5"]


def test_a_seat_without_a_name_is_called_by_its_number() -> None:
    n = Narrator(["Ann"])
    assert n.name(0) == "Ann"
    assert n.name(1) == "seat 1"
    assert n.name(-1) == "seat -1"  # never the last name by a negative index


def test_a_card_lower_than_every_row_and_the_row_taken() -> None:
    n = Narrator(NAMES)
    dealt(n, (10, 20, 30, 40))
    n.lines_for(CardPlaced(0, 12, 0))  # row 0 is 10 12: two cards, 2 bullheads claimed
    assert told(n, RowChoiceNeeded(1, 3)) == [
        "  Bob's 3 is lower than the last card of every row: Bob chooses a row to take"]
    assert told(n, RowTaken(1, 0, (10, 12), 2), CardPlaced(1, 3, 0)) == [
        "  Bob chooses row 0 and takes 10 12 (2 bullheads); 3 starts row 0"]
    assert n.rows == [[3], [20], [30], [40]]
    # the choice is told once: the next card placed is an ordinary one
    assert told(n, CardPlaced(2, 25, 1)) == ["  Cid's 25 goes after 20 in row 1"]


def test_a_sixth_card_takes_the_row_one_bullhead_said_in_the_singular() -> None:
    n = Narrator(NAMES)
    dealt(n, (10, 20, 30, 40))
    for card in (11, 12, 13, 14):
        n.lines_for(CardPlaced(2, card, 0))
    assert told(n, RowTaken(0, 0, (10, 11, 12, 13, 14), 1), CardPlaced(0, 15, 0)) == [
        "  Ann's 15 would be the sixth card of row 0 (after 14): "
        "Ann takes 10 11 12 13 14 (1 bullhead); 15 starts row 0"]
    assert n.rows[0] == [15]


def test_professional_places_at_the_left_end_and_a_tie_chosen() -> None:
    n = Narrator(NAMES)
    dealt(n, (10, 20, 30, 40))
    assert told(n, CardPlaced(0, 8, 1, End.LEFT)) == ["  Ann's 8 goes before 20 in row 1"]
    assert n.rows[1] == [8, 20]
    assert told(n, TieChoiceNeeded(1, 25, (Place(1, End.RIGHT), Place(2, End.LEFT)))) == [
        "  Bob's 25 fits after 20 in row 1 and before 30 in row 2 equally well: Bob chooses"]
    assert told(n, CardPlaced(1, 25, 2, End.LEFT)) == [
        "  Bob chooses the left end of row 2: 25 goes before 30 in row 2"]
    assert told(n, TieChoiceNeeded(2, 35, (Place(2, End.RIGHT), Place(3, End.LEFT))),
                CardPlaced(2, 35, 2)) == [
        "  Cid's 35 fits after 30 in row 2 and before 40 in row 3 equally well: Cid chooses",
        "  Cid chooses the right end of row 2: 35 goes after 30 in row 2"]


def test_a_tie_chosen_on_a_full_row_and_a_sixth_card_at_the_left_end() -> None:
    n = Narrator(NAMES)
    dealt(n, (10, 20, 30, 40))
    for card in (21, 22, 23, 24):
        n.lines_for(CardPlaced(0, card, 1))
    n.lines_for(TieChoiceNeeded(2, 25, (Place(1, End.RIGHT), Place(2, End.LEFT))))
    assert told(n, RowTaken(2, 1, (20, 21, 22, 23, 24), 7), CardPlaced(2, 25, 1)) == [
        "  Cid chooses the right end of row 1: Cid's 25 would be the sixth card of row 1 "
        "(after 24): Cid takes 20 21 22 23 24 (7 bullheads); 25 starts row 1"]
    for card in (41, 42, 43, 44):
        n.lines_for(CardPlaced(0, card, 3))
    assert told(n, RowTaken(1, 3, (40, 41, 42, 43, 44), 9), CardPlaced(1, 39, 3, End.LEFT)) == [
        "  Bob's 39 would be the sixth card of row 3 (before 40): "
        "Bob takes 40 41 42 43 44 (9 bullheads); 39 starts row 3"]


def test_the_result_names_the_winners_and_every_place_in_order() -> None:
    n = Narrator(NAMES)
    one = GameResult(totals=(9, 1, 30), places=(2, 1, 3), winners=(1,))
    assert told(n, GameOver(one)) == [
        "Game over: Bob wins. 1st Bob (1 bullhead), 2nd Ann (9 bullheads), 3rd Cid (30 bullheads)"]
    tie = GameResult(totals=(4, 9, 4), places=(1, 3, 1), winners=(0, 2))
    assert told(n, GameOver(tie)) == [
        "Game over: Ann and Cid win. 1st Ann (4 bullheads), 1st Cid (4 bullheads), "
        "3rd Bob (9 bullheads)"]


def test_ten_seats_are_placed_first_to_tenth() -> None:
    names = [f"P{s}" for s in range(10)]
    result = GameResult(totals=tuple(range(10)), places=tuple(range(1, 11)), winners=(0,))
    line = told(Narrator(names), GameOver(result))[0]
    assert line == ("Game over: P0 wins. 1st P0 (0 bullheads), 2nd P1 (1 bullhead), "
                    "3rd P2 (2 bullheads), 4th P3 (3 bullheads), 5th P4 (4 bullheads), "
                    "6th P5 (5 bullheads), 7th P6 (6 bullheads), 8th P7 (7 bullheads), "
                    "9th P8 (8 bullheads), 10th P9 (9 bullheads)")


def test_ordinals_of_the_teens_and_after() -> None:
    from nimmt.engine.records.narrate import _ordinal

    assert [_ordinal(n) for n in (1, 2, 3, 4, 10, 11, 12, 13, 20, 21, 22, 23, 101, 111, 112)] == [
        "1st", "2nd", "3rd", "4th", "10th", "11th", "12th", "13th", "20th", "21st", "22nd",
        "23rd", "101st", "111th", "112th"]


def test_a_hand_made_start_is_told_with_its_totals_and_penalties_only_when_any() -> None:
    n = Narrator(["Ann", "Bob"])
    start = Start(rows=((12,), (37,), (43, 44), (58,)), hands=((61, 5), (9, 70)),
                  totals=(3, 0), penalties=(0, 2), round=2, turn=4)
    assert n.start_lines(start, 4) == [
        "Start (a hand-made position): round 2, turn 4",
        "  rows: 12 | 37 | 43 44 | 58",
        "  Ann holds 5 61",
        "  Bob holds 9 70",
        "  totals: Ann 3, Bob 0",
        "  this round so far: Ann 0, Bob 2",
    ]
    assert n.rows == [[12], [37], [43, 44], [58]]
    quiet = Start(rows=((1,), (2,), (3,), (4,)), hands=((9,), (8,)), totals=(0, 0),
                  penalties=(0, 0))
    assert Narrator(["Ann", "Bob"]).start_lines(quiet, 10) == [
        "Start (a hand-made position): round 1, turn 10",
        "  rows: 1 | 2 | 3 | 4",
        "  Ann holds 9",
        "  Bob holds 8",
    ]


def test_step_lines_of_a_replayed_start_and_its_turn() -> None:
    record = Record(
        Options(players=2, rounds=1),
        rounds=(RoundRecord(turns=(TurnRecord(commits=(5, 41)),)),),
        seats=("Ann", "Bob"),
        start=Start(rows=((10,), (20,), (30,), (40,)), hands=((5,), (41,))),
    )
    run = replay(record)
    n = Narrator(["Ann", "Bob"])
    steps = list(run)
    assert step_lines(n, steps[0]) == [
        "Start (a hand-made position): round 1, turn 10",
        "  rows: 10 | 20 | 30 | 40", "  Ann holds 5", "  Bob holds 41"]
    assert n.turn == 10
    lines = [line for step in steps[1:] for line in step_lines(n, step)]
    assert lines == [
        "Turn 10: Ann 5, Bob 41",
        "  Ann's 5 is lower than the last card of every row: Ann chooses a row to take",
    ]
    assert run.stopped == ("the record stops at round 1, turn 10: waiting for a choice: "
                           "Ann's 5 fits no row (it is lower than the last card of every row), "
                           "so Ann chooses a row to take")


# ----------------------------------------------------------------- the table line


def test_the_table_line_says_what_the_table_kept_and_leaves_out_what_it_did_not() -> None:
    assert table_line(TableFacts("Friday", True, 30.0, 20.0, 15.0, 60.0)) == (
        "Table “Friday”: rated · 30 s a turn, 20 s a row or tie choice, 15 s a draft pick"
        " · a time bank of 60 s")
    assert table_line(TableFacts()) == "Table: not rated"
    assert table_line(TableFacts(name="")) == "Table: not rated"
    assert table_line(TableFacts(name="Mo", choice_time=7.5)) == (
        "Table “Mo”: not rated · 7.5 s a row or tie choice")
    assert table_line(TableFacts(draft_time=12.0, time_bank=0.5)) == (
        "Table: not rated · 12 s a draft pick · a time bank of 0.5 s")
    assert table_line(TableFacts(rated=True, time_bank=90.0)) == (
        "Table: rated · a time bank of 90 s")


# ----------------------------------------------------------------- JSON lines


def test_events_as_json_lines_name_the_event_in_snake_case() -> None:
    assert event_to_json(RowChoiceNeeded(1, 3)) == {
        "event": "row_choice_needed", "seat": 1, "card": 3}
    assert event_to_json(TieChoiceNeeded(0, 25, (Place(1), Place(2, End.LEFT)))) == {
        "event": "tie_choice_needed", "seat": 0, "card": 25,
        "places": [{"row": 1, "end": "right"}, {"row": 2, "end": "left"}]}
    assert event_to_json(GameOver(GameResult((4, 9), (1, 2), (0,)))) == {
        "event": "game_over", "result": {"totals": [4, 9], "places": [1, 2], "winners": [0]}}
    assert event_to_json(CardsRevealed(((1, 5), (0, 9)))) == {
        "event": "cards_revealed", "plays": [[1, 5], [0, 9]]}


def test_position_set_sorts_the_hands_and_fills_missing_scores_with_zeros() -> None:
    start = Start(rows=((12,), (37,), (43, 44), (58,)), hands=((61, 5), (9, 70)),
                  totals=(3, 0), penalties=(1, 2), round=2, turn=4)
    assert position_set_json(start, 4) == {
        "event": "position_set", "round": 2, "turn": 4,
        "rows": [[12], [37], [43, 44], [58]], "hands": [[5, 61], [9, 70]],
        "totals": [3, 0], "penalties": [1, 2]}
    bare = Start(rows=((1,), (2,), (3,), (4,)), hands=((9,), (8,), (7,)))
    line = position_set_json(bare, None)
    assert (line["turn"], line["round"], line["totals"], line["penalties"]) == (
        None, 1, [0, 0, 0], [0, 0, 0])


def _stopped(game: Game) -> dict[str, object]:
    run = replay(Record(Options(players=2, rounds=1)))
    run.game = game
    return record_stopped_json(run)


def test_record_stopped_says_what_the_game_waits_for_and_who_decides() -> None:
    options = Options(players=3, rounds=1)
    game = Game(options)
    assert _stopped(game) == {"event": "record_stopped", "round": 1, "turn": None,
                              "waiting": "deal", "seats": []}
    game = Game.from_position(options, ((10,), (20,), (30,), (40,)), ((5, 50), (41, 42), (1, 2)))
    assert _stopped(game) == {"event": "record_stopped", "round": 1, "turn": 9,
                              "waiting": "commits", "seats": [0, 1, 2]}
    game.apply(game.legal_decisions(1)[0])
    assert _stopped(game)["seats"] == [0, 2]
    from nimmt.engine.moves import Commit

    game.apply(Commit(0, 5))
    game.apply(Commit(2, 2))
    assert _stopped(game) == {"event": "record_stopped", "round": 1, "turn": 9,
                              "waiting": "row_choice", "seats": [2]}


def test_record_stopped_in_a_draft_and_at_a_tie() -> None:
    from nimmt.engine.moves import Commit

    draft = Game(Options(players=2, rounds=1, draft=True), seed=3)
    assert _stopped(draft) == {"event": "record_stopped", "round": 1, "turn": None,
                               "waiting": "draft_pick", "seats": [0]}
    pro = Options(players=2, rounds=1, professional=True)
    game = Game.from_position(pro, ((10,), (20,), (30,), (40,)), ((15, 60), (50, 61)))
    game.apply(Commit(0, 15))
    game.apply(Commit(1, 50))
    assert _stopped(game) == {"event": "record_stopped", "round": 1, "turn": 9,
                              "waiting": "tie_choice", "seats": [0]}
