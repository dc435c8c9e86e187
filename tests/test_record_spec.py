"""docs/RECORD.md, statement by statement: each test is one sentence of the page
(a field, its default, its allowed values, what reading refuses and with which
message, what a replay and `nimmt-replay verify` check or refuse, what `show`
prints, what writing back keeps). Records are small hand-written JSON dicts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from nimmt.engine.fair_deal import FairDeal, UnfairDeal, deal_round
from nimmt.engine.options import Options
from nimmt.engine.records import (
    InvalidRecord,
    RecordContradiction,
    record_from_bytes,
    record_from_dict,
    record_from_json,
    replay,
    verify_deals,
)
from nimmt.server.records.replay import main as replay_main

DOC = (Path(__file__).resolve().parent.parent / "docs" / "RECORD.md").read_text(encoding="utf-8")


def worked() -> dict[str, Any]:
    """RULES.md's worked example, written out by hand (docs/RECORD.md's last example)."""
    return {
        "format": "nimmt-record",
        "version": 1,
        "options": {"players": 4, "point_limit": None, "rounds": 1},
        "seats": ["Ann", "Bob", "Cid", "Dee"],
        "start": {
            "round": 1,
            "turn": 1,
            "rows": [[12], [37], [43], [58]],
            "hands": [[14, 26, 3], [15, 30, 68], [44, 21, 9], [61, 36, 93]],
        },
        "rounds": [{"turns": [
            {"commits": [14, 15, 44, 61], "rows_after": [[12, 14, 15], [37], [43, 44], [58, 61]]},
            {"commits": [26, 30, 21, 36], "rows_after": [[30, 36], [37], [43, 44], [58, 61]]},
            {"commits": [3, 68, 9, 93], "choices": [{"seat": 0, "row": 1}],
             "rows_after": [[30, 36], [3, 9], [43, 44], [58, 61, 68, 93]]},
        ], "penalties": [1, 6, 0, 0], "totals": [1, 6, 0, 0]}],
        "result": {"totals": [1, 6, 0, 0], "places": [3, 4, 1, 1], "winners": [2, 3]},
    }


def bare(**options: Any) -> dict[str, Any]:
    return {"format": "nimmt-record", "version": 1, "options": {"players": 2, **options},
            "rounds": []}


def invalid(data: dict[str, Any]) -> str:
    with pytest.raises(InvalidRecord) as e:
        record_from_dict(data)
    return str(e.value)


def contradiction(data: dict[str, Any]) -> str:
    with pytest.raises(RecordContradiction) as e:
        replay(record_from_dict(data)).run()
    return str(e.value)


def show(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, *args: str,
         name: str = "game.json") -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    status = replay_main([*args, str(path)])
    out, err = capsys.readouterr()
    return status, out, err.replace(str(path), "FILE")


# ----------------------------------------------------------------- conventions


def test_a_byte_order_mark_is_tolerated() -> None:
    text = json.dumps(bare(rounds=1))
    assert record_from_bytes(b"\xef\xbb\xbf" + text.encode()) == record_from_json(text)


def test_a_file_that_is_not_utf8_is_invalid() -> None:
    with pytest.raises(InvalidRecord) as e:
        record_from_bytes(b'{"format": "\xff"}')
    assert str(e.value) == "not UTF-8 text (invalid start byte at byte 12)"


def test_an_unknown_field_is_an_error_naming_the_allowed_ones() -> None:
    data = bare(rounds=1)
    data["coment"] = "typo"
    assert invalid(data) == ("unknown field 'coment' (a record has the fields: format, version, "
                             "options, rounds, comment, table, seats, start, result, fair_deal)")


def test_a_field_given_twice_is_an_error() -> None:
    text = '{"format": "nimmt-record", "version": 1, "version": 1, "options": {"players": 2}, "rounds": []}'
    with pytest.raises(InvalidRecord) as e:
        record_from_json(text)
    assert str(e.value) == "field 'version' appears twice in one object"


@pytest.mark.parametrize("card, shown", [(True, "true"), (14.0, "14.0"), ("14", '"14"')])
def test_true_14_0_and_the_string_14_are_not_cards(card: Any, shown: str) -> None:
    data = worked()
    data["rounds"][0]["turns"][0]["commits"][0] = card
    assert invalid(data) == (f"round 1, turn 1, seat 0: rounds[0].turns[0].commits[0]: "
                             f"a card must be a whole number, not {shown}")


def test_a_comment_is_allowed_on_record_start_round_and_turn_and_changes_nothing() -> None:
    plain = worked()
    commented = worked()
    commented["comment"] = "c"
    commented["start"]["comment"] = "c"
    commented["rounds"][0]["comment"] = "c"
    commented["rounds"][0]["turns"][1]["comment"] = "c"
    a = replay(record_from_dict(plain)).run()
    b = replay(record_from_dict(commented)).run()
    assert [s.events for s in b.steps] == [s.events for s in a.steps]
    assert b.game.result == a.game.result


def test_a_comment_on_a_choice_is_not_allowed() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"][0]["comment"] = "c"
    assert invalid(data) == ("round 1, turn 3: rounds[0].turns[2].choices[0]: unknown field "
                             "'comment' (a choice has the fields: seat, row)")


def test_a_field_not_marked_or_null_must_not_be_null() -> None:
    data = bare(rounds=1)
    data["seats"] = None
    assert invalid(data) == "seats: seats (one name per seat) must be a JSON list, not null"


# ----------------------------------------------------------------- the record object


def test_format_must_be_nimmt_record() -> None:
    data = bare(rounds=1)
    data["format"] = "nimmt-game"
    assert invalid(data) == "format: must be 'nimmt-record', not \"nimmt-game\""


def test_version_must_be_1() -> None:
    data = bare(rounds=1)
    data["version"] = 2
    assert invalid(data) == "version: this program reads version 1 records, not version 2"


@pytest.mark.parametrize("missing", ["format", "version", "options", "rounds"])
def test_the_required_record_fields(missing: str) -> None:
    data = bare(rounds=1)
    del data[missing]
    assert invalid(data) == (f"missing field '{missing}' (a record must have: format, version, "
                             f"options, rounds)")


def test_seats_hold_one_name_per_seat() -> None:
    data = bare(rounds=1)
    data["seats"] = ["Ann"]
    assert invalid(data) == "seats: seats (one name per seat) must hold 2 entries, not 1"


def test_without_seats_a_seat_is_called_seat_n() -> None:
    assert record_from_dict(bare(rounds=1)).name(1) == "seat 1"


# ----------------------------------------------------------------- options


def test_only_players_is_required_and_the_others_default_as_the_table_says() -> None:
    options = record_from_dict(bare()).options
    assert (options.players, options.tactic_deck, options.draft, options.professional,
            options.point_limit, options.rounds) == (2, False, False, False, 66, None)


def test_players_must_be_2_to_10() -> None:
    assert invalid(bare() | {"options": {"players": 11}}) == \
        "options: players must be 2 to 10, not 11"
    assert invalid(bare() | {"options": {"players": 1}}) == \
        "options: players must be 2 to 10, not 1"


def test_one_of_point_limit_and_rounds_must_be_set() -> None:
    assert invalid(bare(point_limit=None)) == \
        "options: set a point_limit or a number of rounds, or the game never ends"


@pytest.mark.parametrize("field, value, span", [("point_limit", 10001, "1 to 10000"),
                                                ("rounds", 1001, "1 to 1000"),
                                                ("point_limit", 0, "1 to 10000"),
                                                ("rounds", 0, "1 to 1000")])
def test_point_limit_and_rounds_bounds(field: str, value: int, span: str) -> None:
    assert invalid(bare(**{field: value})) == f"options: {field} must be {span} or None, not {value}"


def test_the_upper_bounds_are_allowed() -> None:
    options = record_from_dict(bare(point_limit=10000, rounds=1000)).options
    assert (options.point_limit, options.rounds) == (10000, 1000)


def test_writing_a_record_writes_every_option_out() -> None:
    written = json.loads(record_from_dict(bare()).to_json())
    assert written["options"] == {"players": 2, "tactic_deck": False, "draft": False,
                                  "professional": False, "point_limit": 66, "rounds": None}


# ----------------------------------------------------------------- table


def test_a_record_without_a_table_has_none() -> None:
    assert record_from_dict(bare()).table is None


def test_an_empty_table_is_not_rated_untimed_and_has_no_bank() -> None:
    table = record_from_dict(bare() | {"table": {}}).table
    assert table is not None
    assert (table.name, table.rated, table.turn_time, table.choice_time, table.draft_time,
            table.time_bank) == (None, False, None, None, None, 0.0)


def test_a_table_that_does_not_say_rated_is_not_rated() -> None:
    table = record_from_dict(bare() | {"table": {"name": "T", "turn_time": 30}}).table
    assert table is not None and table.rated is False


def test_a_table_that_says_rated_is_rated() -> None:
    table = record_from_dict(bare() | {"table": {"rated": True}}).table
    assert table is not None and table.rated is True


def test_rated_must_be_a_boolean() -> None:
    assert invalid(bare() | {"table": {"rated": 1}}) == "table.rated: rated must be true or false, not 1"


@pytest.mark.parametrize("field", ["turn_time", "choice_time", "draft_time"])
def test_a_decision_time_must_be_more_than_0(field: str) -> None:
    assert invalid(bare() | {"table": {field: 0}}) == f"table.{field}: {field} must be more than 0, not 0"


def test_a_time_bank_may_be_0_but_not_less() -> None:
    assert record_from_dict(bare() | {"table": {"time_bank": 0}}).table.time_bank == 0.0
    assert invalid(bare() | {"table": {"time_bank": -1}}) == \
        "table.time_bank: time_bank must be at least 0, not -1"


def test_times_may_have_a_fraction_and_30_is_30_0() -> None:
    a = record_from_dict(bare() | {"table": {"turn_time": 30}}).table
    b = record_from_dict(bare() | {"table": {"turn_time": 30.0}}).table
    c = record_from_dict(bare() | {"table": {"turn_time": 45.5}}).table
    assert a == b and a.turn_time == 30.0 and c.turn_time == 45.5


def test_the_table_is_never_checked_a_replay_is_the_same_with_or_without_it() -> None:
    with_table = worked() | {"table": {"name": "Friday night", "rated": True, "turn_time": 30.0}}
    a = replay(record_from_dict(worked())).run()
    b = replay(record_from_dict(with_table)).run()
    assert [s.events for s in a.steps] == [s.events for s in b.steps]


def test_the_pages_table_example_writes_back_as_it_was() -> None:
    table = {"name": "Friday night", "rated": True, "turn_time": 30.0, "choice_time": 20.0,
             "draft_time": 15.0, "time_bank": 60.0}
    assert record_from_dict(bare() | {"table": table}).to_dict()["table"] == table


def test_a_time_bank_is_written_only_when_the_table_had_one() -> None:
    written = record_from_dict(bare() | {"table": {"rated": False, "time_bank": 0}}).to_dict()
    assert written["table"] == {"rated": False}


def test_show_prints_the_table_first_in_the_pages_words(tmp_path: Path, capsys: Any) -> None:
    data = worked() | {"table": {"name": "Friday night", "rated": True, "turn_time": 30.0,
                                 "choice_time": 20.0, "draft_time": 15.0, "time_bank": 60.0}}
    status, out, _ = show(tmp_path, capsys, data)
    assert status == 0
    assert out.splitlines()[:2] == [
        "Table “Friday night”: rated · 30 s a turn, 20 s a row or tie choice, 15 s a draft pick"
        " · a time bank of 60 s",
        "Start (a hand-made position): round 1, turn 1",
    ]


def test_show_says_not_rated_for_a_table_without_rated(tmp_path: Path, capsys: Any) -> None:
    status, out, _ = show(tmp_path, capsys, worked() | {"table": {"name": "Home"}})
    assert out.splitlines()[0] == "Table “Home”: not rated"


def test_show_json_prints_the_events_only(tmp_path: Path, capsys: Any) -> None:
    status, out, _ = show(tmp_path, capsys, worked() | {"table": {"name": "Home"}}, "--json")
    assert json.loads(out.splitlines()[0])["event"] == "position_set"


def test_spectator_without_a_table_watches_the_files_name_not_rated_3600_s(
        tmp_path: Path, capsys: Any) -> None:
    status, out, _ = show(tmp_path, capsys, worked(), "spectator", name="sheet.json")
    watching = json.loads(out.splitlines()[0])
    assert status == 0 and watching["type"] == "watching"
    table = watching["table"]
    assert (table["name"], table["options"]["rated"], table["options"]["turn_time"],
            table["options"]["choice_time"]) == ("sheet", False, 3600, 3600)


def test_spectator_with_a_table_that_does_not_say_rated_is_not_rated(
        tmp_path: Path, capsys: Any) -> None:
    data = worked() | {"table": {"name": "Home", "turn_time": 30}}
    status, out, _ = show(tmp_path, capsys, data, "spectator")
    table = json.loads(out.splitlines()[0])["table"]
    assert (table["name"], table["options"]["rated"], table["options"]["turn_time"],
            table["options"]["choice_time"]) == ("Home", False, 30, 3600)


# ----------------------------------------------------------------- start


def test_start_round_defaults_to_1_and_turn_to_11_minus_the_hand_size() -> None:
    data = worked()
    del data["start"]["round"], data["start"]["turn"]
    del data["rounds"][0]["turns"][1:]
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"], data["result"]
    run = replay(record_from_dict(data)).run()
    assert (run.steps[0].round, run.steps[0].turn) == (1, 8)
    assert run.stopped == "the record stops at round 1, turn 9: waiting for Ann, Bob, Cid, Dee to commit"


def test_start_totals_and_penalties_default_to_0_in_the_position_set_line(
        tmp_path: Path, capsys: Any) -> None:
    status, out, _ = show(tmp_path, capsys, worked(), "--json")
    assert json.loads(out.splitlines()[0]) == {
        "event": "position_set", "round": 1, "turn": 1,
        "rows": [[12], [37], [43], [58]],
        "hands": [[3, 14, 26], [15, 30, 68], [9, 21, 44], [36, 61, 93]],
        "totals": [0, 0, 0, 0], "penalties": [0, 0, 0, 0]}


def test_start_requires_rows_and_hands() -> None:
    data = worked()
    del data["start"]["hands"]
    assert invalid(data) == ("start: missing field 'hands' (a start must have: rows, hands)")


def test_a_start_with_totals_in_round_1_is_refused_as_a_contradiction_at_start() -> None:
    data = worked()
    data["start"]["totals"] = [1, 0, 0, 0]
    assert contradiction(data) == (
        "round 1: start: totals [1, 0, 0, 0] in round 1: totals count earlier rounds, so they are 0 "
        "in round 1 (give round 2 or later, or put this round's bullheads in penalties)")


def test_a_start_in_round_2_may_have_totals() -> None:
    data = worked()
    data["start"] |= {"round": 2, "totals": [5, 0, 0, 0]}
    data["options"]["rounds"] = 2
    data["rounds"][0]["totals"] = [6, 6, 0, 0]
    data["result"] = {"totals": [6, 6, 0, 0], "places": [3, 3, 1, 1], "winners": [2, 3]}
    run = replay(record_from_dict(data)).run()
    assert run.game.result.totals == (6, 6, 0, 0)


def test_a_start_with_a_total_at_the_point_limit_is_refused() -> None:
    data = worked()
    data["options"] = {"players": 4, "point_limit": 10}
    data["start"] |= {"round": 2, "totals": [10, 0, 0, 0]}
    del data["rounds"][0]["totals"], data["result"]
    assert contradiction(data) == (
        "round 2: start: a total of 10 had reached the point limit (10), so the game ended after "
        "round 1: totals at the start of a round are below the limit")


def test_a_start_with_more_row_cards_than_turn_1_allows_is_refused() -> None:
    data = worked()
    data["start"]["rows"] = [[12, 13], [37], [43], [58]]
    assert contradiction(data) == (
        "round 1: start: the rows hold 5 cards, but at the start of turn 1 only 4 have reached the "
        "table (the 4 that start the rows and 4 a turn before it)")


def test_a_start_whose_rows_hold_exactly_what_turn_2_allows_replays() -> None:
    # 4 + players × (turn − 1) = 8 cards on the rows at turn 2
    data = worked()
    data["start"] |= {"turn": 2, "rows": [[12, 14, 15], [37], [43, 44], [58, 61]],
                      "hands": [[26, 3], [30, 68], [21, 9], [36, 93]]}
    del data["rounds"][0]["turns"][0]
    assert replay(record_from_dict(data)).run().game.result.totals == (1, 6, 0, 0)


@pytest.mark.parametrize("totals, ok", [([79, 0], True), ([40, 39], True), ([80, 0], False),
                                        ([40, 40], False)])
def test_totals_at_most_what_the_rounds_before_could_hand_out_79_with_2_players(
        totals: list[int], ok: bool) -> None:
    data = bare(rounds=2, point_limit=None)
    data["start"] = {"round": 2, "totals": totals, "rows": [[1], [2], [3], [4]], "hands": [[5], [6]]}
    data["rounds"] = [{}]
    if ok:
        assert replay(record_from_dict(data)).run().game.totals == tuple(totals)
    else:
        assert contradiction(data) == (
            f"round 2: start: totals {totals} add up to 80 bullheads, but 1 round(s) hand out at "
            f"most 79 (79 a round)")


def test_a_card_twice_in_a_start_is_refused() -> None:
    data = worked()
    data["start"]["hands"][0][0] = 15
    assert contradiction(data) == "round 1: start: card 15 appears twice in the position"


def test_the_starts_round_has_no_deal() -> None:
    data = worked()
    data["rounds"][0]["rows"] = [1, 2, 4, 5]
    assert invalid(data) == ("round 1: rounds[0].rows: the round of a hand-made start has no deal: "
                             "its rows and hands are in \"start\"")


# ----------------------------------------------------------------- rounds


def dealt_round() -> dict[str, Any]:
    return {"hands": [list(range(1, 11)), list(range(11, 21))], "rows": [101, 102, 103, 104]}


def test_a_dealt_round_needs_hands_and_rows() -> None:
    data = bare(rounds=1)
    data["rounds"] = [{"hands": dealt_round()["hands"]}]
    assert invalid(data) == "round 1: rounds[0]: missing field 'rows' (a round must have: hands, rows)"


def test_picks_are_for_draft_rounds_only() -> None:
    data = bare(rounds=1)
    data["rounds"] = [dealt_round() | {"picks": []}]
    assert invalid(data) == ("round 1: rounds[0].picks: \"picks\" are for Draft rounds only "
                             "(the options say \"draft\": false)")


def test_a_draft_round_has_no_hands() -> None:
    data = bare(rounds=1, draft=True)
    data["rounds"] = [dealt_round()]
    assert invalid(data) == ("round 1: rounds[0].hands: in a Draft round the hands are picked: "
                             "give \"picks\" and \"rows\"")


def test_the_first_picker_of_round_1_is_seat_0() -> None:
    data = bare(rounds=1, draft=True)
    data["rounds"] = [{"picks": [[1, 5]]}]
    assert contradiction(data) == (
        "round 1, seat 1: pick 1 of this round is seat 0's (seat 0), not seat 1's: the seats pick in turn, "
        "one card each, from seat 0 this round")


def test_a_draft_may_stop_during_the_picks() -> None:
    data = bare(rounds=1, draft=True)
    data["rounds"] = [{"picks": [[0, 5], [1, 7]]}]
    assert replay(record_from_dict(data)).run().stopped == (
        "the record stops at round 1, during the draft: waiting for pick 3, seat 0's")


def test_turns_default_to_none_and_the_record_stops_before_turn_1() -> None:
    data = bare(rounds=1)
    data["rounds"] = [dealt_round()]
    assert replay(record_from_dict(data)).run().stopped == (
        "the record stops at round 1, turn 1: waiting for seat 0, seat 1 to commit")


def test_a_deal_with_a_card_outside_the_deck_is_a_contradiction() -> None:
    data = bare(rounds=1, tactic_deck=True)  # 2 players: cards 1 to 24
    data["rounds"] = [{"hands": [list(range(1, 11)), list(range(11, 21))], "rows": [21, 22, 23, 25]}]
    assert contradiction(data) == ("round 1: the deal: card 25 cannot be dealt: it is not among "
                                   "the cards available")


# ----------------------------------------------------------------- turns and choices


def test_null_commits_only_in_the_last_turn() -> None:
    data = worked()
    data["rounds"][0]["turns"][0]["commits"][1] = None
    assert invalid(data) == ("round 1, turn 1, seat 1: rounds[0].turns[0].commits[1]: null (no commit) "
                             "is allowed only in the record's last turn, where the record stops")


def test_a_turn_with_null_commits_has_no_choices_or_rows_after() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["commits"][1] = None
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"], data["result"]
    assert invalid(data) == ("round 1, turn 3: rounds[0].turns[2]: a turn where not every seat has "
                             "committed is not resolved: it can have no choices or rows_after")


def test_show_says_where_a_record_stops_in_the_pages_words(tmp_path: Path, capsys: Any) -> None:
    data = worked()
    data["rounds"][0]["turns"][2] = {"commits": [3, None, 9, None]}
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"], data["result"]
    status, out, _ = show(tmp_path, capsys, data)
    assert status == 0
    assert out.splitlines()[-1] == ("The record stops at round 1, turn 3: waiting for Bob, Dee to "
                                    "commit (Ann, Cid committed).")
    status, out, _ = show(tmp_path, capsys, data, "--json")
    assert json.loads(out.splitlines()[-1]) == {"event": "record_stopped", "round": 1, "turn": 3,
                                                "waiting": "commits", "seats": [1, 3]}


def test_a_record_may_stop_waiting_for_a_choice_if_it_claims_nothing_after() -> None:
    data = worked()
    del data["rounds"][0]["turns"][2]["choices"], data["rounds"][0]["turns"][2]["rows_after"]
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"], data["result"]
    assert replay(record_from_dict(data)).run().stopped == (
        "the record stops at round 1, turn 3: waiting for a choice: Ann's 3 fits no row (it is "
        "lower than the last card of every row), so Ann chooses a row to take")


def test_a_missing_choice_with_a_claim_after_it_is_a_contradiction() -> None:
    data = worked()
    del data["rounds"][0]["turns"][2]["choices"]
    assert contradiction(data) == (
        "round 1, turn 3, seat 0: Ann's 3 fits no row (it is lower than the last card of every "
        "row), so Ann chooses a row to take, but the record gives no choice for it")


def test_a_row_is_0_to_3() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"][0]["row"] = 4
    assert invalid(data) == ("round 1, turn 3, seat 0: rounds[0].turns[2].choices[0].row: a row "
                             "(rows are numbered 0 to 3) must be 0 to 3, not 4")


def test_an_end_is_left_or_right() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"][0] = {"seat": 0, "place": {"row": 1, "end": "middle"}}
    assert invalid(data) == ("round 1, turn 3, seat 0: rounds[0].turns[2].choices[0].place.end: "
                             "the end must be \"left\" or \"right\", not \"middle\"")


def test_a_choice_by_another_seat_is_refused_in_the_pages_words(tmp_path: Path, capsys: Any) -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"][0]["seat"] = 1
    status, out, err = show(tmp_path, capsys, data)
    assert status == 1
    expected = DOC.split("Change turn 3's choice to")[1].split("\n\n")[1].strip()
    assert err.strip() == expected.replace("tests/data/worked_example.json", "FILE")
    assert out.splitlines()[-3:] == [
        "  rows: 30 36 | 37 | 43 44 | 58 61",
        "Turn 3: Ann 3, Bob 68, Cid 9, Dee 93",
        "  Ann's 3 is lower than the last card of every row: Ann chooses a row to take"]


def test_a_choice_where_none_was_needed_is_refused() -> None:
    data = worked()
    data["rounds"][0]["turns"][0]["choices"] = [{"seat": 0, "row": 0}]
    assert contradiction(data) == (
        "round 1, turn 1, seat 0: the record gives Ann a row choice, but no choice was needed in "
        "this turn: every card had one place to go (rules 1 to 3)")


def test_a_tie_choice_in_a_row_choices_place_is_refused() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"][0] = {"seat": 0, "place": {"row": 1, "end": "left"}}
    assert contradiction(data) == (
        "round 1, turn 3, seat 0: the record gives a tie choice (a place), but Ann's 3 fits no row "
        "(it is lower than the last card of every row), so Ann chooses a row to take: "
        "write {\"seat\": 0, \"row\": R}")


def test_a_card_not_in_the_hand_is_a_contradiction() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["commits"][0] = 14  # played in turn 1
    assert contradiction(data) == ("round 1, turn 3, seat 0: Ann commits 14, which is not in their "
                                   "hand (they hold 3)")


def test_a_turn_after_the_hands_are_empty_is_a_contradiction() -> None:
    data = worked()
    data["rounds"][0]["turns"].append({"commits": [1, 2, 4, 5]})
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"], data["result"]
    assert contradiction(data) == ("round 1, turn 4: round 1 is over after turn 3: the hands are "
                                   "empty, but the record has a turn 4")


def test_a_round_after_the_game_is_over_is_a_contradiction() -> None:
    data = worked()
    data["rounds"].append({"hands": [list(range(k, k + 10)) for k in (1, 11, 21, 31)],
                           "rows": [101, 102, 103, 104]})
    assert contradiction(data) == ("round 2: the game is over after round 1 (its one round is "
                                   "played), but the record goes on")


# ----------------------------------------------------------------- claims and result


def test_a_wrong_rows_after_claim_names_the_row() -> None:
    data = worked()
    data["rounds"][0]["turns"][0]["rows_after"][2] = [43]
    assert contradiction(data) == (
        "round 1, turn 1: the record claims the rows after this turn are 12 14 15 | 37 | 43 | 58 61, "
        "but by the rules they are 12 14 15 | 37 | 43 44 | 58 61 (row 2 differs)")


def test_a_wrong_penalty_claim_is_refused() -> None:
    data = worked()
    data["rounds"][0]["penalties"] = [1, 5, 0, 0]
    assert contradiction(data) == ("round 1, seat 1: the record claims Bob took 5 bullheads this "
                                   "round, but by the rules Bob took 6 bullheads")


def test_places_share_a_place_for_equal_totals() -> None:
    data = worked()
    data["result"]["places"] = [3, 4, 1, 2]
    assert contradiction(data) == ("seat 3: the result claims Dee's place is 2, but by the rules it is 1")


def test_winners_are_in_any_order() -> None:
    data = worked()
    data["result"]["winners"] = [3, 2]
    assert replay(record_from_dict(data)).run().stopped is None


def test_a_result_on_an_unfinished_game_is_refused() -> None:
    data = worked()
    del data["rounds"][0]["turns"][2]
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"]
    assert contradiction(data) == ("the record claims a result, but the record stops at round 1, "
                                   "turn 3: waiting for Ann, Bob, Cid, Dee to commit")


# ----------------------------------------------------------------- show


def test_show_prints_the_worked_example_exactly_as_the_page_does(tmp_path: Path, capsys: Any) -> None:
    expected = DOC.split("```text\n")[-1].split("```")[0]
    status, out, err = show(tmp_path, capsys, worked())
    assert (status, out, err) == (0, expected, "")


def test_the_pages_example_json_line() -> None:
    from nimmt.engine.records import event_to_json
    from nimmt.engine.events import CardPlaced
    line = re.search(r"Example line: `(.*?)`", DOC).group(1)
    assert json.dumps(event_to_json(CardPlaced(0, 14, 0))) == line


def test_exit_status_2_for_a_file_that_cannot_be_read(tmp_path: Path, capsys: Any) -> None:
    assert replay_main([str(tmp_path / "none.json")]) == 2


def test_exit_status_1_for_an_invalid_record(tmp_path: Path, capsys: Any) -> None:
    status, out, err = show(tmp_path, capsys, "{")
    assert (status, err) == (1, "nimmt-replay: FILE: not valid JSON: Expecting property name "
                                "enclosed in double quotes at line 1, column 2\n")


# ----------------------------------------------------------------- writing back


def test_a_records_json_reads_back_and_writes_again_byte_for_byte() -> None:
    data = worked() | {"comment": "c", "table": {"name": "T", "rated": True, "turn_time": 30.0}}
    data["options"] = {"players": 4, "tactic_deck": False, "draft": False, "professional": False,
                       "point_limit": None, "rounds": 1}
    text = record_from_dict(data).to_json()
    assert record_from_json(text).to_json() == text
    assert json.loads(text) == data


def test_the_page_example_is_the_test_data_file() -> None:
    block = DOC.split("## A complete example")[1].split("```json\n")[1].split("```")[0]
    on_disk = (Path(__file__).resolve().parent / "data" / "worked_example.json").read_text()
    assert json.loads(block) == json.loads(on_disk)
    page = json.loads(block)
    for r in (page, worked()):
        r.pop("comment", None)
        for t in r["rounds"][0]["turns"]:
            t.pop("comment", None)
    assert page == worked()


# ----------------------------------------------------------------- fair deal and verify


def fair_record(contributions: tuple[bytes, ...] = (b"", b"\x07")) -> dict[str, Any]:
    fair = FairDeal(bytes(32), contributions)
    options = Options(players=2, rounds=1)
    deal = deal_round(options, 1, fair)
    data = bare(rounds=1, point_limit=None)
    data["rounds"] = [{"hands": [sorted(h) for h in deal.hands], "rows": list(deal.rows)}]
    data["fair_deal"] = {"commitment": fair.commitment, "seed": "00" * 32,
                         "contributions": ["", "07"]}
    return data


def test_verify_checks_a_deal_the_seed_gives() -> None:
    assert verify_deals(record_from_dict(fair_record())) == 1


def test_verify_refuses_a_record_without_fair_deal() -> None:
    data = fair_record()
    del data["fair_deal"]
    with pytest.raises(UnfairDeal) as e:
        verify_deals(record_from_dict(data))
    assert str(e.value) == ("the record has no fair_deal: it was not dealt verifiably (or its "
                            "seed was never revealed)")


def test_verify_refuses_a_record_with_a_start_even_with_a_fair_deal() -> None:
    data = worked()
    data["fair_deal"] = fair_record()["fair_deal"] | {"contributions": ["", "07", "", ""]}
    with pytest.raises(UnfairDeal) as e:
        verify_deals(record_from_dict(data))
    assert str(e.value) == ("the record starts from a hand-made position: its deals are not "
                            "derived from a seed")


def test_verify_command_with_a_start_says_not_verified(tmp_path: Path, capsys: Any) -> None:
    data = worked()
    data["fair_deal"] = fair_record()["fair_deal"] | {"contributions": ["", "07", "", ""]}
    status, out, err = show(tmp_path, capsys, data, "verify")
    assert (status, out) == (1, "")
    assert err == ("nimmt-replay: FILE: NOT VERIFIED: the record starts from a hand-made position: "
                   "its deals are not derived from a seed\n")


def test_verify_refuses_a_seed_that_does_not_hash_to_the_commitment() -> None:
    data = fair_record()
    data["fair_deal"]["seed"] = "01" + "00" * 31
    with pytest.raises(UnfairDeal) as e:
        verify_deals(record_from_dict(data))
    assert str(e.value).startswith("the seed revealed does not match the commitment: ")


def test_verify_refuses_a_deal_the_seed_does_not_give() -> None:
    data = fair_record()
    data["fair_deal"]["contributions"] = ["", ""]
    with pytest.raises(UnfairDeal) as e:
        verify_deals(record_from_dict(data))
    assert str(e.value) == ("round 1: the rows [41, 33, 10, 50] are not the ones the seed gives, "
                            "[37, 40, 22, 63]")


def test_verify_command_prints_verified_and_the_commitment(tmp_path: Path, capsys: Any) -> None:
    data = fair_record()
    status, out, err = show(tmp_path, capsys, data, "verify")
    assert status == 0 and err == ""
    assert out.replace(str(tmp_path / "game.json"), "FILE") == (
        f"FILE: verified: the seed matches the commitment {data['fair_deal']['commitment']} and "
        "all 1 deals are the ones it gives with the players' contributions\n")


def test_a_commitment_must_be_64_lowercase_hex_digits() -> None:
    data = fair_record()
    data["fair_deal"]["commitment"] = data["fair_deal"]["commitment"].upper()
    assert invalid(data).startswith("fair_deal.commitment: the commitment must be 32 to 32 bytes as lowercase hex")


def test_withheld_is_ascending_once_each() -> None:
    data = fair_record()
    data["fair_deal"] |= {"hashes": ["", ""], "withheld": [1, 0]}
    assert invalid(data) == "fair_deal.withheld: withheld lists seats in ascending order, once each, not [1, 0]"
