"""Reading and writing a record file (docs/RECORD.md): every field read back as it was
written, and each kind of ill-formed record refused with the exact message a reader
sees (``nimmt-replay: FILE: round R, turn T, seat S: PATH: what is wrong``), its
JSON path and the round, turn and seat it carries. No trio, no hypothesis
(``tools/mutate.py --plain``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from nimmt.engine import Options
from nimmt.engine.moves import End, Place
from nimmt.engine.records import (
    FairDealClaim,
    InvalidRecord,
    Record,
    RecordContradiction,
    RecordError,
    ResultClaim,
    RoundRecord,
    RowChoice,
    Start,
    TableFacts,
    TieChoice,
    TurnRecord,
    load_json,
    record_from_bytes,
    record_from_dict,
    record_from_json,
)

H32 = "ab" * 32

# Two seats, two rounds (round 2 stops after a turn); every optional field present.
FULL: dict[str, Any] = {
    "format": "nimmt-record",
    "version": 1,
    "comment": "a whole record",
    "options": {"players": 2, "rounds": 2, "point_limit": None},
    "table": {"name": "Mo", "rated": True, "turn_time": 30, "time_bank": 5.5},
    "seats": ["Ann", "Bob"],
    "rounds": [
        {
            "comment": "round one",
            "hands": [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]],
            "rows": [21, 22, 23, 24],
            "turns": [
                {"comment": "first", "commits": [1, 11], "choices": [{"seat": 0, "row": 3}],
                 "rows_after": [[21], [22], [23], [1, 11]]},
            ],
            "penalties": [1, 0],
            "totals": [1, 0],
        },
        {"hands": [[31, 32, 33, 34, 35, 36, 37, 38, 39, 40],
                   [41, 42, 43, 44, 45, 46, 47, 48, 49, 50]],
         "rows": [51, 52, 53, 54],
         "turns": [{"commits": [31, None]}]},
    ],
    "result": {"totals": [1, 0], "places": [2, 1], "winners": [1]},
    "fair_deal": {"commitment": H32, "seed": "00" * 32, "contributions": ["", "0a0b"],
                  "hashes": ["", "cd" * 32], "withheld": [1]},
}


def full() -> dict[str, Any]:
    return copy.deepcopy(FULL)


def refused(data: Any) -> InvalidRecord:
    with pytest.raises(InvalidRecord) as caught:
        record_from_dict(data)
    return caught.value


def message(change: Any) -> str:
    data = full()
    change(data)
    return str(refused(data))


# ----------------------------------------------------------------- what is read


def test_every_field_is_read_into_its_place() -> None:
    record = record_from_dict(full())
    assert record.comment == "a whole record"
    assert record.options == Options(players=2, rounds=2, point_limit=None)
    assert record.table == TableFacts("Mo", True, 30.0, None, None, 5.5)
    assert record.seats == ("Ann", "Bob")
    assert record.start is None
    one, two = record.rounds
    assert one == RoundRecord(
        turns=(TurnRecord((1, 11), (RowChoice(0, 3),), ((21,), (22,), (23,), (1, 11)), "first"),),
        hands=(tuple(range(1, 11)), tuple(range(11, 21))), rows=(21, 22, 23, 24), picks=None,
        penalties=(1, 0), totals=(1, 0), comment="round one")
    assert two.turns == (TurnRecord((31, None)),)
    assert (two.penalties, two.totals, two.comment) == (None, None, None)
    assert record.result == ResultClaim((1, 0), (2, 1), (1,))
    assert record.fair_deal == FairDealClaim(H32, bytes(32), (b"", b"\x0a\x0b"),
                                             (b"", bytes.fromhex("cd" * 32)), (1,))


def test_a_start_is_read_with_its_round_turn_and_scores() -> None:
    data = {"format": "nimmt-record", "version": 1, "options": {"players": 2},
            "start": {"comment": "here", "round": 3, "turn": 8,
                      "rows": [[5], [6, 7], [8], [9]], "hands": [[1, 2, 3], [10, 11, 12]],
                      "totals": [4, 5], "penalties": [0, 2]},
            "rounds": [{"comment": "rest", "turns": [{"commits": [1, 10]}], "penalties": [0, 2]}]}
    record = record_from_dict(data)
    assert record.start == Start(((5,), (6, 7), (8,), (9,)), ((1, 2, 3), (10, 11, 12)),
                                 (4, 5), (0, 2), 3, 8, "here")
    assert record.first_round == 3
    assert record.rounds[0] == RoundRecord(turns=(TurnRecord((1, 10)),), penalties=(0, 2),
                                           comment="rest")
    # an error in the start's second turn says round 3, turn 9
    data["rounds"][0]["turns"] = [{"commits": [1, 10]}, {"commits": [2, 0]}]
    e = refused(data)
    assert (e.round, e.turn, e.seat) == (3, 9, 1)
    assert str(e) == "round 3, turn 9, seat 1: rounds[0].turns[1].commits[1]: a card must be at least 1, not 0"


def test_a_draft_round_reads_its_picks_and_a_tie_choice_its_place() -> None:
    data = {"format": "nimmt-record", "version": 1,
            "options": {"players": 2, "draft": True, "professional": True},
            "rounds": [{"picks": [[0, 5], [1, 9]], "rows": [1, 2, 3, 4],
                        "turns": [{"commits": [5, 9], "choices": [
                            {"seat": 1, "place": {"row": 2, "end": "left"}}]}]}]}
    r = record_from_dict(data).rounds[0]
    assert (r.picks, r.rows, r.hands) == (((0, 5), (1, 9)), (1, 2, 3, 4), None)
    assert r.turns[0].choices == (TieChoice(1, Place(2, End.LEFT)),)
    # a Draft game's last round may stop during the draft, without its rows
    data["rounds"] = [{"picks": [[0, 5]]}]
    assert record_from_dict(data).rounds[0].rows is None
    data["rounds"] = [{"picks": []}, {"picks": []}]
    e = refused(data)
    assert str(e) == ("round 1: rounds[0]: missing field 'rows': "
                      "a Draft round draws its 4 row cards after the picks")


def test_what_is_written_reads_back_the_same() -> None:
    record = record_from_dict(full())
    assert record_from_json(record.to_json()) == record
    assert record.to_dict() == {**full(), "options": record.to_dict()["options"],
                                "table": {"name": "Mo", "rated": True, "turn_time": 30.0,
                                          "time_bank": 5.5}}
    # with no hashes the fair deal is written as before the hashes were kept
    plain = FairDealClaim(H32, bytes(32), (b"", b"\x01"))
    assert plain.to_dict() == {"commitment": H32, "seed": "00" * 32, "contributions": ["", "01"]}


# ----------------------------------------------------------------- JSON itself


def test_json_a_record_may_not_hold() -> None:
    with pytest.raises(InvalidRecord) as caught:
        load_json('{"a": 1, "b": {"a": 2, "a": 3}}')
    assert str(caught.value) == "field 'a' appears twice in one object"
    for constant in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(InvalidRecord) as caught:
            load_json(f'{{"x": {constant}}}')
        assert str(caught.value) == f"{constant} is not a number a record may hold"
    with pytest.raises(InvalidRecord) as caught:
        load_json("[" * 100_000 + "]" * 100_000)
    assert str(caught.value) == "not valid JSON: nested too deeply"
    with pytest.raises(InvalidRecord) as caught:
        load_json('{"x": 1,\n "y": }')
    assert str(caught.value) == "not valid JSON: Expecting value at line 2, column 7"
    with pytest.raises(InvalidRecord) as caught:
        record_from_bytes(b'{"format": "\xff"}')
    assert str(caught.value) == "not UTF-8 text (invalid start byte at byte 12)"


# ----------------------------------------------------------------- each field refused


@pytest.mark.parametrize(("change", "text"), [
    (lambda d: d.update(extra=1),
     "unknown field 'extra' (a record has the fields: format, version, options, rounds, "
     "comment, table, seats, start, result, fair_deal)"),
    (lambda d: d.pop("rounds"),
     "missing field 'rounds' (a record must have: format, version, options, rounds)"),
    (lambda d: d.update(format="x" * 50),
     'format: must be \'nimmt-record\', not "' + "x" * 36 + '...'),
    (lambda d: d.update(format="x" * 38), 'format: must be \'nimmt-record\', not "' + "x" * 38 + '"'),
    (lambda d: d.update(version=0), "version: the version must be at least 1, not 0"),
    (lambda d: d.update(version=True), "version: the version must be a whole number, not true"),
    (lambda d: d.update(version=2), "version: this program reads version 1 records, not version 2"),
    (lambda d: d.update(options=[]), "options: options must be a JSON object, not []"),
    (lambda d: d["options"].pop("players"),
     "options: missing field 'players' (options must have: players)"),
    (lambda d: d.update(seats="Ann"), 'seats: seats (one name per seat) must be a JSON list, not "Ann"'),
    (lambda d: d.update(seats=["Ann", 2]), "seat 1: seats[1]: a seat's name must be a string, not 2"),
    (lambda d: d.update(rounds={}), "rounds: rounds must be a JSON list, not {}"),
    (lambda d: d["rounds"].__setitem__(1, 3), "round 2: rounds[1]: a round must be a JSON object, not 3"),
    (lambda d: d["rounds"][1].pop("rows"),
     "round 2: rounds[1]: missing field 'rows' (a round must have: hands, rows)"),
    (lambda d: d["rounds"][1].update(picks=[]),
     'round 2: rounds[1].picks: "picks" are for Draft rounds only (the options say "draft": false)'),
    (lambda d: d["rounds"][0].update(turn=[]),
     "round 1: rounds[0]: unknown field 'turn' (a round has the fields: hands, rows, comment, "
     "turns, penalties, totals)"),
    (lambda d: d["rounds"][0].update(rows=[21, 22, 23]),
     "round 1: rounds[0].rows: rows (the 4 cards that start the rows) must hold 4 entries, not 3"),
    (lambda d: d["rounds"][0]["hands"].pop(),
     "round 1: rounds[0].hands: hands (one list of cards per seat) must hold 2 entries, not 1"),
    (lambda d: d["rounds"][0]["hands"].__setitem__(1, 5),
     "round 1, seat 1: rounds[0].hands[1]: seat 1's hand must be a JSON list, not 5"),
    (lambda d: d["rounds"][0]["hands"][1].__setitem__(2, 0),
     "round 1, seat 1: rounds[0].hands[1][2]: a card must be at least 1, not 0"),
    (lambda d: d["rounds"][0].update(comment=1), "round 1: rounds[0].comment: a comment must be a string, not 1"),
    (lambda d: d["rounds"][0].update(totals=[1]),
     "round 1: rounds[0].totals: a total (one number per seat) must hold 2 entries, not 1"),
    (lambda d: d["rounds"][0].update(penalties=[0, -1]),
     "round 1, seat 1: rounds[0].penalties[1]: a penalty must be at least 0, not -1"),
    (lambda d: d["rounds"][0]["turns"][0].update(comment=False),
     "round 1, turn 1: rounds[0].turns[0].comment: a comment must be a string, not false"),
    (lambda d: d["rounds"][0]["turns"][0].update(commits=[1, None]),
     "round 1, turn 1, seat 1: rounds[0].turns[0].commits[1]: null (no commit) is allowed only in "
     "the record's last turn, where the record stops"),
    (lambda d: d["rounds"][1]["turns"][0].update(rows_after=[[1], [2], [3], [4]]),
     "round 2, turn 1: rounds[1].turns[0]: a turn where not every seat has committed is not "
     "resolved: it can have no choices or rows_after"),
    (lambda d: d["rounds"][1]["turns"][0].update(choices=[{"seat": 0, "row": 0}]),
     "round 2, turn 1: rounds[1].turns[0]: a turn where not every seat has committed is not "
     "resolved: it can have no choices or rows_after"),
    (lambda d: d["rounds"][0]["turns"][0].update(rows_after=[[21], [22], [23]]),
     "round 1, turn 1: rounds[0].turns[0].rows_after: rows_after (rows 0 to 3, each a list of "
     "cards) must hold 4 entries, not 3"),
    (lambda d: d["rounds"][0]["turns"][0]["rows_after"].__setitem__(2, [23, "x"]),
     'round 1, turn 1: rounds[0].turns[0].rows_after[2][1]: a card must be a whole number, not "x"'),
    (lambda d: d["rounds"][0]["turns"][0].update(choices=[3]),
     'round 1, turn 1: rounds[0].turns[0].choices[0]: a choice must be {"seat": S, "row": R} '
     'or {"seat": S, "place": {...}}, not 3'),
    (lambda d: d["rounds"][0]["turns"][0].update(choices=[{"seat": 2, "row": 0}]),
     "round 1, turn 1: rounds[0].turns[0].choices[0].seat: a seat must be 0 to 1, not 2"),
    (lambda d: d["rounds"][0]["turns"][0].update(choices=[{"seat": -1, "row": 0}]),
     "round 1, turn 1: rounds[0].turns[0].choices[0].seat: a seat must be 0 to 1, not -1"),
    (lambda d: d["rounds"][0]["turns"][0].update(choices=[{"seat": 1, "row": -1}]),
     "round 1, turn 1, seat 1: rounds[0].turns[0].choices[0].row: a row (rows are numbered "
     "0 to 3) must be 0 to 3, not -1"),
    (lambda d: d["rounds"][0]["turns"][0].update(choices=[{"seat": 1}]),
     "round 1, turn 1: rounds[0].turns[0].choices[0]: missing field 'row' (a choice must have: "
     "seat, row)"),
    (lambda d: d["rounds"][0]["turns"][0].update(
        choices=[{"seat": 1, "place": {"row": 4, "end": "left"}}]),
     "round 1, turn 1, seat 1: rounds[0].turns[0].choices[0].place.row: a row (rows are "
     "numbered 0 to 3) must be 0 to 3, not 4"),
    (lambda d: d["rounds"][0]["turns"][0].update(
        choices=[{"seat": 1, "place": {"row": 0, "end": "LEFT"}}]),
     'round 1, turn 1, seat 1: rounds[0].turns[0].choices[0].place.end: the end must be "left" '
     'or "right", not "LEFT"'),
    (lambda d: d.update(result={"places": [1, 2, 3]}),
     "result.places: a place (one number per seat) must hold 2 entries, not 3"),
    (lambda d: d.update(result={"totals": [0, -4]}),
     "seat 1: result.totals[1]: a total must be at least 0, not -4"),
    (lambda d: d.update(result={"winners": 1}),
     "result.winners: winners (a list of seats) must be a JSON list, not 1"),
    (lambda d: d.update(result={"winner": [1]}),
     "result: unknown field 'winner' (a result has the fields: totals, places, winners)"),
])
def test_a_record_with_a_wrong_field_is_refused_saying_where(change: Any, text: str) -> None:
    assert message(change) == text


@pytest.mark.parametrize(("change", "text"), [
    (lambda f: f.update(commitment="zz"),
     'fair_deal.commitment: the commitment must be hexadecimal digits, not "zz"'),
    (lambda f: f.update(commitment="AB" * 32),
     'fair_deal.commitment: the commitment must be 32 to 32 bytes as lowercase hex, not "'
     + "AB" * 18 + '...'),
    (lambda f: f.update(commitment="ab" * 31),
     'fair_deal.commitment: the commitment must be 32 to 32 bytes as lowercase hex, not "'
     + "ab" * 18 + '...'),
    (lambda f: f.update(seed="00" * 33),
     'fair_deal.seed: the seed must be 32 to 32 bytes as lowercase hex, not "' + "0" * 36 + '...'),
    (lambda f: f.update(seed=5), "fair_deal.seed: the seed must be a string, not 5"),
    (lambda f: f.update(contributions=[""]),
     "fair_deal.contributions: contributions (one per seat) must hold 2 entries, not 1"),
    (lambda f: f["contributions"].__setitem__(1, "00" * 33),
     'seat 1: fair_deal.contributions[1]: a contribution must be 0 to 32 bytes as lowercase hex, '
     'not "' + "0" * 36 + '...'),
    (lambda f: f.update(hashes=["", "cd" * 31]),
     'seat 1: fair_deal.hashes[1]: a hash is 32 bytes (or "" for none), not 31'),
    (lambda f: f.update(hashes=["cd" * 32]),
     "fair_deal.hashes: hashes (one per seat) must hold 2 entries, not 1"),
    (lambda f: f.update(withheld=[1, 0]),
     "fair_deal.withheld: withheld lists seats in ascending order, once each, not [1, 0]"),
    (lambda f: f.update(withheld=[1, 1]),
     "fair_deal.withheld: withheld lists seats in ascending order, once each, not [1, 1]"),
    (lambda f: f.update(withheld=[2]), "fair_deal.withheld[0]: a seat must be 0 to 1, not 2"),
    (lambda f: f.pop("seed"),
     "fair_deal: missing field 'seed' (fair_deal must have: commitment, seed, contributions)"),
])
def test_a_fair_deal_that_cannot_be_checked_is_refused(change: Any, text: str) -> None:
    data = full()
    change(data["fair_deal"])
    assert str(refused(data)) == text


def test_a_contribution_of_32_bytes_and_a_hash_of_none_are_read() -> None:
    data = full()
    data["fair_deal"]["contributions"] = ["ff" * 32, ""]
    data["fair_deal"]["withheld"] = [0, 1]
    claim = record_from_dict(data).fair_deal
    assert claim is not None
    assert (claim.contributions, claim.withheld) == ((b"\xff" * 32, b""), (0, 1))


@pytest.mark.parametrize(("start", "text"), [
    ({"round": 0}, "start.round: the round must be at least 1, not 0"),
    ({"turn": 0}, "round 2: start.turn: the turn must be at least 1, not 0"),
    ({"rows": [[5], [6], [7]]},
     "round 2: start.rows: rows (rows 0 to 3, each a list of cards) must hold 4 entries, not 3"),
    ({"rows": [[5], [6, 0], [7], [8]]}, "round 2: start.rows[1][1]: a card must be at least 1, not 0"),
    ({"rows": [[5], 6, [7], [8]]}, "round 2: start.rows[1]: row 1 must be a JSON list, not 6"),
    ({"hands": [[1], "x"]},
     'round 2, seat 1: start.hands[1]: seat 1\'s hand must be a JSON list, not "x"'),
    ({"totals": [1, -2]}, "round 2, seat 1: start.totals[1]: a total must be at least 0, not -2"),
    ({"penalties": [1]},
     "round 2: start.penalties: a penalty (one number per seat) must hold 2 entries, not 1"),
    ({"comment": 4}, "round 2: start.comment: a comment must be a string, not 4"),
    ({"deal": 1}, "start: unknown field 'deal' (a start has the fields: rows, hands, comment, "
                  "round, turn, totals, penalties)"),
])
def test_a_start_that_is_not_one(start: dict[str, Any], text: str) -> None:
    data = {"format": "nimmt-record", "version": 1, "options": {"players": 2},
            "start": {"round": 2, "rows": [[5], [6], [7], [8]], "hands": [[1], [2]], **start},
            "rounds": []}
    assert str(refused(data)) == text


def test_the_round_of_a_start_has_no_deal_and_takes_only_its_own_fields() -> None:
    base = {"format": "nimmt-record", "version": 1, "options": {"players": 2},
            "start": {"rows": [[5], [6], [7], [8]], "hands": [[1], [2]]}}
    e = refused({**base, "rounds": [{"hands": [[1], [2]], "rows": [1, 2, 3, 4]}]})
    assert str(e) == ('round 1: rounds[0].hands: the round of a hand-made start has no deal: '
                      'its rows and hands are in "start"')
    e = refused({**base, "rounds": [{"picks": []}]})
    assert str(e).startswith("round 1: rounds[0].picks: the round of a hand-made start has no deal")
    e = refused({**base, "rounds": [{"turn": []}]})
    assert str(e) == ("round 1: rounds[0]: unknown field 'turn' (the start's round has the "
                      "fields: comment, turns, penalties, totals)")
    # the round after the start's is an ordinary one, with its deal
    two = {**base, "options": {"players": 2, "rounds": 2},
           "rounds": [{}, {"turns": []}]}
    assert str(refused(two)) == ("round 2: rounds[1]: missing field 'hands' (a round must have: "
                                 "hands, rows)")


def test_picks_that_are_not_pairs_of_a_seat_and_a_card() -> None:
    base = {"format": "nimmt-record", "version": 1, "options": {"players": 2, "draft": True}}

    def picks(value: Any) -> str:
        return str(refused({**base, "rounds": [{"picks": value, "rows": [1, 2, 3, 4]}]}))

    assert picks([[0]]) == "round 1: rounds[0].picks[0]: a pick ([seat, card]) must hold 2 entries, not 1"
    assert picks([[0, 3], [2, 4]]) == "round 1: rounds[0].picks[1][0]: a seat must be 0 to 1, not 2"
    assert picks([[1, 0]]) == "round 1, seat 1: rounds[0].picks[0][1]: a card must be at least 1, not 0"
    assert picks(5) == "round 1: rounds[0].picks: picks must be a JSON list, not 5"
    e = refused({**base, "rounds": [{"picks": [], "rows": [1, 2, 3, 4], "hands": [[1], [2]]}]})
    assert str(e) == ('round 1: rounds[0].hands: in a Draft round the hands are picked: '
                      'give "picks" and "rows"')
    e = refused({**base, "rounds": [{"rows": [1, 2, 3, 4]}]})
    assert str(e) == ("round 1: rounds[0]: missing field 'picks' (a Draft round must have: picks)")


# ----------------------------------------------------------------- the error itself


def test_an_error_says_where_with_the_parts_it_knows() -> None:
    assert str(RecordContradiction("x", round=2, turn=3, seat=0)) == "round 2, turn 3, seat 0: x"
    assert str(RecordContradiction("x", turn=3)) == "turn 3: x"
    assert str(InvalidRecord("x", seat=1)) == "seat 1: x"
    e = RecordError("no place")
    assert (str(e), e.where, e.detail, e.round, e.turn, e.seat) == (
        "no place", "", "no place", None, None, None)
    e = InvalidRecord("bad", round=1, seat=2)
    assert (e.where, e.detail, e.args) == ("round 1, seat 2", "bad", ("round 1, seat 2: bad",))


def test_a_record_names_its_seats_or_numbers_them() -> None:
    record = Record(Options(players=2), seats=("Ann", "Bob"))
    assert [record.name(s) for s in (0, 1, 2, -1)] == ["Ann", "Bob", "seat 2", "seat -1"]
    assert Record(Options(players=2)).name(1) == "seat 1"


# ----------------------------------------------------------------- the text written


def test_the_json_text_keeps_short_lists_on_one_line_and_spreads_long_ones() -> None:
    record = record_from_dict({
        "format": "nimmt-record", "version": 1,
        "options": {"players": 3, "draft": True},
        "seats": ["Ann", "Bob", "Cid"],
        "rounds": [{"picks": [[s % 3, c] for s, c in enumerate(range(1, 31))],
                    "rows": [40, 50, 60, 70],
                    "turns": [{"commits": [1, 2, 3], "choices": [
                        {"seat": 0, "place": {"row": 1, "end": "right"}}]}]}],
    })
    text = record.to_json()
    assert text.endswith("\n") and not text.endswith("\n\n")
    lines = text.splitlines()
    assert lines[:3] == ["{", '  "format": "nimmt-record",', '  "version": 1,']
    assert '  "seats": ["Ann", "Bob", "Cid"],' in lines
    start = lines.index('      "picks": [')
    # as many pairs to a line as fit, then the next line (the layout of every file written)
    assert lines[start + 1:start + 5] == [
        "        [0, 1], [1, 2], [2, 3], [0, 4], [1, 5], [2, 6], [0, 7], [1, 8], [2, 9], [0, 10], [1, 11],",
        "        [2, 12], [0, 13], [1, 14], [2, 15], [0, 16], [1, 17], [2, 18], [0, 19], [1, 20], [2, 21],",
        "        [0, 22], [1, 23], [2, 24], [0, 25], [1, 26], [2, 27], [0, 28], [1, 29], [2, 30]",
        "      ],",
    ]
    assert lines[start + 5:start + 7] == [
        '      "rows": [40, 50, 60, 70],',
        '      "turns": [{"commits": [1, 2, 3], "choices": [{"seat": 0, "place": {"row": 1, "end": "right"}}]}]',
    ]
    assert lines[4:11] == ['    "players": 3,', '    "tactic_deck": false,', '    "draft": true,',
                           '    "professional": false,', '    "point_limit": 66,',
                           '    "rounds": null', "  },"]
    assert lines[-3:] == ["    }", "  ]", "}"]
    assert record_from_json(text) == record


def test_empty_lists_and_objects_are_written_short() -> None:
    record = Record(Options(players=2), rounds=(RoundRecord(hands=((1,), (2,)), rows=(3, 4, 5, 6)),))
    lines = record.to_json().splitlines()
    assert lines[-2:] == ['  "rounds": [{"hands": [[1], [2]], "rows": [3, 4, 5, 6], "turns": []}]', "}"]
    assert record.to_dict()["rounds"] == [{"hands": [[1], [2]], "rows": [3, 4, 5, 6], "turns": []}]
    assert Record(Options(players=2)).to_json().splitlines()[-2:] == ['  "rounds": []', "}"]
