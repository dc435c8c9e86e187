"""The game record (docs/RECORD.md): reading, writing, building one from a played
game, and replaying it through the engine."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nimmt.engine import (
    AwaitingCommits,
    ChooseRow,
    Commit,
    CommitAccepted,
    End,
    Event,
    Game,
    Options,
    Place,
    SeatCommitted,
)
from nimmt.engine.records import (
    InvalidRecord,
    Record,
    RecordContradiction,
    RecordError,
    ResultClaim,
    RowChoice,
    Start,
    TieChoice,
    record_from_bytes,
    record_from_json,
    record_from_game,
    replay,
)

DATA = Path(__file__).parent / "data"
WORKED = json.loads((DATA / "worked_example.json").read_text())


def worked() -> dict[str, Any]:
    return copy.deepcopy(WORKED)


def load(data: dict[str, Any]) -> Record:
    return record_from_json(json.dumps(data))


def run(data: dict[str, Any]):
    return replay(load(data)).run()


# ----------------------------------------------------------------- random play


def play(game: Game, rng: random.Random, limit: int) -> list[Event]:
    """Play ``game`` with random legal decisions (commits replaced now and then) for
    at most ``limit`` decisions; return every event, the opening's first."""
    events = list(game.opening_events)
    for _ in range(limit):
        pending = game.pending
        if pending is None:
            break
        if isinstance(pending, AwaitingCommits):
            # Mostly a seat still waiting, sometimes one replacing its commit.
            if pending.committed and rng.random() < 0.25:
                seat = rng.choice(sorted(pending.committed))
            else:
                seat = rng.choice(sorted(pending.waiting))
        else:
            seat = min(pending.seats)
        decisions = game.legal_decisions(seat)
        assert decisions, (pending, seat)
        events.extend(game.apply(rng.choice(decisions)))
    return events


def without_commit_order(events: list[Event]) -> list[Event]:
    """The order in which seats committed, and replaced commits, are not in a record."""
    return [e for e in events if not isinstance(e, (CommitAccepted, SeatCommitted))]


def replayed(record: Record) -> tuple[Game, list[Event]]:
    run = replay(record_from_json(record.to_json())).run()
    assert run.game is not None
    return run.game, [e for step in run.steps for e in step.events]


def assert_same_state(a: Game, b: Game) -> None:
    assert a.pending == b.pending
    assert a.result == b.result
    assert a.totals == b.totals
    for seat in [None, *range(a.options.players)]:
        assert a.view(seat) == b.view(seat)


options_strategy = st.builds(
    lambda players, tactic, draft, pro, end: Options(
        players=players,
        tactic_deck=tactic,
        draft=draft,
        professional=pro,
        point_limit=end[0],
        rounds=end[1],
    ),
    st.integers(2, 10),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.one_of(
        st.tuples(st.integers(1, 25), st.none()),
        st.tuples(st.none(), st.integers(1, 2)),
        st.tuples(st.integers(1, 40), st.integers(1, 2)),
    ),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=options_strategy,
    seed=st.integers(0, 2**32 - 1),
    stop=st.one_of(st.none(), st.integers(0, 400)),
)
def test_a_seeded_game_replays_identically_from_its_record(
    options: Options, seed: int, stop: int | None
) -> None:
    game = Game(options, seed=seed)
    events = play(game, random.Random(seed), 10**6 if stop is None else stop)
    record = record_from_game(game, seats=[f"P{s}" for s in range(options.players)])
    text = record.to_json()
    assert record_from_json(text) == record
    again, replay_events = replayed(record)
    assert without_commit_order(replay_events) == without_commit_order(events)
    assert_same_state(again, game)
    if stop is None:
        assert game.is_over and again.result == game.result


@settings(max_examples=80, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 9))
def test_a_game_from_a_hand_made_position_replays_from_its_record(
    options: Options, seed: int, turns: int
) -> None:
    # A real position, some turns into a seeded round, is the hand-made start.
    rng = random.Random(seed)
    source = Game(options, seed=seed)
    while not (
        isinstance(source.pending, AwaitingCommits)
        and not source.pending.committed
        and source.turn > turns
    ):
        play(source, rng, 1)
    start = Start.of(source)
    game = Game.from_position(
        options,
        start.rows,
        start.hands,
        totals=start.totals,
        penalties=start.penalties,
        round=start.round,
        turn=start.turn,
        rng=random.Random(seed + 1),
    )
    events = play(game, rng, 300)
    record = record_from_game(game, start=start)
    again, replay_events = replayed(record)
    assert without_commit_order(replay_events) == without_commit_order(events)
    assert_same_state(again, game)


# ----------------------------------------------------------------- building records


def test_the_worked_example_replays_and_round_trips() -> None:
    record = load(worked())
    assert record_from_json(record.to_json()) == record
    result = replay(record).run()
    assert result.stopped is None
    assert result.game.result.totals == (1, 6, 0, 0)
    assert result.game.rows == ((30, 36), (3, 9), (43, 44), (58, 61, 68, 93))


def test_record_from_a_hand_made_game_matches_the_file() -> None:
    data = worked()
    start = load(data).start
    game = start.game(Options(players=4, point_limit=None, rounds=1))
    taken = Start.of(game)
    for turn in data["rounds"][0]["turns"]:
        for seat, card in enumerate(turn["commits"]):
            game.apply(Commit(seat, card))
        for choice in turn.get("choices", []):
            game.apply(ChooseRow(choice["seat"], choice["row"]))
    record = record_from_game(game, seats=data["seats"], start=taken)
    expected = load(data)
    # The file writes the hands in play order and has comments; the rest is equal.
    assert record.rounds[0].turns == tuple(
        type(t)(t.commits, t.choices, t.rows_after) for t in expected.rounds[0].turns
    )
    assert (record.rounds[0].penalties, record.rounds[0].totals) == ((1, 6, 0, 0), (1, 6, 0, 0))
    assert record.result == expected.result
    assert record.start.hands == tuple(tuple(sorted(h)) for h in expected.start.hands)


def test_a_hand_made_game_needs_its_start() -> None:
    game = Game.from_position(Options(players=2, rounds=1), [[10], [20], [30], [40]], [[5], [50]])
    game.start = None  # a hand-made game that lost its start
    with pytest.raises(ValueError, match="start=Start.of"):
        record_from_game(game)
    with pytest.raises(ValueError, match="no start"):
        record_from_game(Game(Options(players=2), seed=1), start=Start.of(game))


def test_record_from_a_hand_made_game_takes_its_start_from_the_game() -> None:
    options = Options(players=3, rounds=3)
    rows, hands = [[12], [37], [43], [58]], [[14, 26, 3], [15, 30, 68], [44, 21, 9]]
    game = Game.from_position(options, rows, hands, totals=[4, 0, 7], round=2, rng=random.Random(3))
    play(game, random.Random(3), 10**6)
    assert game.is_over and game.round == 3
    record = record_from_game(game, seats=["Ann", "Bob", "Cid"])
    assert record.start == Start(
        rows=((12,), (37,), (43,), (58,)), hands=tuple(map(tuple, hands)), totals=(4, 0, 7), round=2
    )
    assert record.start.position == game.start
    again = record_from_json(record.to_json())
    assert again == record
    run = replay(again).run()
    assert run.stopped is None
    assert run.game.result == game.result and run.game.totals == game.totals
    # An explicit start (here with a comment) still wins over the game's own.
    commented = record_from_game(game, start=Start.at(game.start, comment="from the game"))
    assert commented.start.comment == "from the game"
    assert replay(commented).run().game.result == game.result


def test_record_without_claims() -> None:
    game = Game(Options(players=3, rounds=1), seed=4)
    play(game, random.Random(4), 10**6)
    record = record_from_game(game, claims=False)
    assert record.result is None and record.rounds[0].penalties is None
    assert all(t.rows_after is None for t in record.rounds[0].turns)
    assert replay(record).run().game.result == game.result


def test_seats_must_name_every_seat() -> None:
    with pytest.raises(ValueError, match="3 names"):
        record_from_game(Game(Options(players=3), seed=1), seats=["Ann"])


def test_a_part_way_record_says_where_it_stops() -> None:
    data = worked()
    turn = data["rounds"][0]["turns"][2]
    turn["commits"] = [3, None, 9, None]
    del turn["choices"], turn["rows_after"], data["rounds"][0]["penalties"]
    del data["rounds"][0]["totals"], data["result"]
    result = run(data)
    assert (
        result.stopped
        == "the record stops at round 1, turn 3: waiting for Bob, Dee to commit (Ann, Cid committed)"
    )
    assert result.game.pending.committed == frozenset({0, 2})

    turn["commits"] = [3, 68, 9, 93]
    result = run(data)
    assert result.stopped.startswith(
        "the record stops at round 1, turn 3: waiting for a choice: Ann's 3 fits no row"
    )


def test_a_record_may_stop_between_rounds_and_during_a_draft() -> None:
    game = Game(Options(players=2, draft=True), seed=9)
    play(game, random.Random(9), 7)  # seven picks of round 1
    record = record_from_game(game)
    assert len(record.rounds[0].picks) == 7 and record.rounds[0].rows is None
    result = replay(record).run()
    assert (
        result.stopped
        == "the record stops at round 1, during the draft: waiting for pick 8, seat 1's"
    )

    game = Game(Options(players=2), seed=9)
    rng = random.Random(9)
    while game.round < 2:
        play(game, rng, 1)
    record = record_from_game(game)  # the game's rng has dealt round 2 already
    assert len(record.rounds) == 2 and record.rounds[1].turns == ()
    assert (
        replay(record).run().stopped
        == "the record stops at round 2, turn 1: waiting for seat 0, seat 1 to commit"
    )
    first_round_only = dataclasses.replace(record, rounds=record.rounds[:1])
    assert replay(first_round_only).run().stopped == "the record stops before the deal of round 2"


# ----------------------------------------------------------------- contradictions


def contradiction(data: dict[str, Any]) -> RecordContradiction:
    with pytest.raises(RecordContradiction) as info:
        run(data)
    return info.value


def test_a_card_not_in_the_hand() -> None:
    data = worked()
    data["rounds"][0]["turns"][1]["commits"][1] = 31
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 2, 1)
    assert (
        str(e)
        == "round 1, turn 2, seat 1: Bob commits 31, which is not in their hand (they hold 30 68)"
    )


def test_the_same_card_twice() -> None:
    data = worked()
    data["rounds"][0]["turns"][0]["commits"][1] = 14
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 1, 1) and "not in their hand" in e.detail


def test_a_choice_by_the_wrong_seat() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"] = [{"seat": 2, "row": 1}]
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 3, 2)
    assert "Cid make a row choice, but Ann's 3 fits no row" in str(e)


def test_a_row_choice_where_none_was_needed() -> None:
    data = worked()
    data["rounds"][0]["turns"][0]["choices"] = [{"seat": 1, "row": 0}]
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 1, 1)
    assert "no choice was needed in this turn" in e.detail

    data = worked()
    data["rounds"][0]["turns"][2]["choices"].append({"seat": 1, "row": 2})
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 3, 1) and "no further choice" in e.detail


def test_a_missing_choice() -> None:
    data = worked()
    del data["rounds"][0]["turns"][2]["choices"]
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 3, 0)
    assert "gives no choice for it" in e.detail


def test_a_tie_choice_where_a_row_choice_is_needed() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"] = [{"seat": 0, "place": {"row": 1, "end": "right"}}]
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 3, 0) and "gives a tie choice" in e.detail


def tie_record() -> dict[str, Any]:
    """Professional rows: seat 0's 25 fits after 20 and before 30, both 5 away."""
    return {
        "format": "nimmt-record",
        "version": 1,
        "options": {"players": 2, "professional": True, "rounds": 1},
        "start": {"rows": [[20], [30, 31], [40], [50]], "hands": [[25], [60]]},
        "rounds": [
            {
                "turns": [
                    {
                        "commits": [25, 60],
                        "choices": [{"seat": 0, "place": {"row": 1, "end": "left"}}],
                        "rows_after": [[20], [25, 30, 31], [40], [50, 60]],
                    }
                ]
            }
        ],
    }


def test_tie_choices() -> None:
    result = run(tie_record())
    assert result.game.rows == ((20,), (25, 30, 31), (40,), (50, 60))

    data = tie_record()
    data["rounds"][0]["turns"][0]["choices"] = [{"seat": 0, "place": {"row": 2, "end": "left"}}]
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 10, 0)
    assert "the left end of row 2 is not one of the places 25 fits equally well" in e.detail

    data["rounds"][0]["turns"][0]["choices"] = [{"seat": 0, "row": 1}]
    e = contradiction(data)
    assert "gives a row choice" in e.detail and "equally well" in e.detail

    data["rounds"][0]["turns"][0]["choices"] = []
    e = contradiction(data)
    assert (e.seat, e.detail) == (
        0,
        "seat 0's 25 fits the right end of row 0 and the left end of row 1 equally well, "
        "so seat 0 chooses between them, but the record gives no choice for it",
    )


def test_claims_that_do_not_follow() -> None:
    data = worked()
    data["rounds"][0]["turns"][1]["rows_after"][0] = [30]
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, 2, None)
    assert "but by the rules they are 30 36 | 37 | 43 44 | 58 61 (row 0 differs)" in str(e)

    data = worked()
    data["rounds"][0]["penalties"] = [6, 1, 0, 0]
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (1, None, 0)
    assert str(e) == (
        "round 1, seat 0: the record claims Ann took 6 bullheads this round, "
        "but by the rules Ann took 1 bullhead"
    )

    data = worked()
    data["result"]["winners"] = [2]
    e = contradiction(data)
    assert e.seat == 3 and "the winners (fewest bullheads) are Cid, Dee" in e.detail

    data = worked()
    data["result"]["places"] = [2, 4, 1, 1]
    assert contradiction(data).seat == 0


def test_a_claim_on_a_part_way_record() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["commits"] = [3, 68, None, None]
    del data["rounds"][0]["turns"][2]["choices"], data["rounds"][0]["turns"][2]["rows_after"]
    e = contradiction(data)
    assert e.round == 1 and "stops before the round ends" in e.detail


def test_rounds_after_the_game_is_over() -> None:
    data = worked()
    data["rounds"].append(
        {
            "hands": [list(range(1 + 10 * s, 11 + 10 * s)) for s in range(4)],
            "rows": [41, 42, 43, 44],
        }
    )
    e = contradiction(data)
    assert e.round == 2 and "the game is over after round 1 (its one round is played)" in e.detail


def test_a_turn_too_many_and_a_round_too_short() -> None:
    data = worked()
    data["rounds"][0]["turns"].append({"commits": [1, 2, 4, 5]})
    e = contradiction(data)
    assert (e.round, e.turn) == (1, 4) and "the hands are empty" in e.detail

    data = worked()
    data["options"]["rounds"] = 2
    del (
        data["rounds"][0]["turns"][2],
        data["rounds"][0]["penalties"],
        data["rounds"][0]["totals"],
        data["result"],
    )
    data["rounds"].append(
        {
            "hands": [list(range(1 + 10 * s, 11 + 10 * s)) for s in range(4)],
            "rows": [41, 42, 43, 45],
        }
    )
    e = contradiction(data)
    assert e.round == 1 and "round 1 is not over" in e.detail


def test_a_bad_deal_and_a_bad_start() -> None:
    data = worked()
    data["start"]["hands"][1][0] = 14
    e = contradiction(data)
    assert e.round == 1 and "twice" in e.detail

    game = Game(Options(players=2, rounds=1), seed=3)
    record = json.loads(record_from_game(game).to_json())
    record["rounds"][0]["rows"][0] = record["rounds"][0]["hands"][0][0]
    e = contradiction(record)
    assert e.round == 1 and e.detail.startswith("the deal:")


@pytest.mark.parametrize(
    "change, round, words",
    [
        ({"totals": [3, 0, 0, 0]}, 1, "in round 1"),
        ({"round": 2, "totals": [66, 0, 0, 0]}, 2, "reached the point limit (66)"),
        ({"round": 2, "totals": [65, 65, 65, 65]}, 2, "hand out at most"),
        ({"penalties": [1, 0, 0, 0]}, 1, "carry at most 0"),  # turn 1: nothing taken yet
    ],
)
def test_a_start_no_game_can_reach(change: dict[str, Any], round: int, words: str) -> None:
    data = worked()
    data["options"] = {"players": 4, "point_limit": 66, "rounds": 3}
    data["start"].update(change)
    data["rounds"][0].pop("totals", None)
    data.pop("result", None)
    e = contradiction(data)
    assert e.round == round and e.detail.startswith("start: ") and words in e.detail


def test_draft_picks_out_of_turn_or_not_in_the_pool() -> None:
    game = Game(Options(players=3, draft=True, rounds=1), seed=5)
    play(game, random.Random(5), 10**6)
    data = json.loads(record_from_game(game).to_json())
    picks = data["rounds"][0]["picks"]
    picks[1][0] = 2
    e = contradiction(data)
    assert (e.round, e.turn, e.seat) == (
        1,
        None,
        2,
    ) and "pick 2 of this round is seat 1's" in e.detail

    data = json.loads(record_from_game(game).to_json())
    data["rounds"][0]["picks"][1][1] = data["rounds"][0]["picks"][0][1]
    e = contradiction(data)
    assert e.seat == 1 and "seat 0 picked it earlier" in e.detail

    data = json.loads(record_from_game(game).to_json())
    del data["rounds"][0]["picks"][-1]
    e = contradiction(data)
    assert e.round == 1 and "the draft is not over after 29 picks" in e.detail


# ----------------------------------------------------------------- malformed records


def invalid(text: str) -> InvalidRecord:
    with pytest.raises(InvalidRecord) as info:
        record_from_json(text)
    return info.value


def with_change(change) -> str:
    data = worked()
    change(data)
    return json.dumps(data)


def test_not_json() -> None:
    assert str(invalid('{"format": ')).startswith(
        "not valid JSON: Expecting value at line 1, column 12"
    )
    assert "NaN" in str(invalid('{"format": NaN}'))
    assert "appears twice" in str(invalid('{"format": 1, "format": 2}'))
    assert str(invalid("[]")) == "a record must be a JSON object, not []"
    with pytest.raises(InvalidRecord, match="not UTF-8"):
        record_from_bytes(b'{"format": "\xff"}')
    assert record_from_bytes(b"\xef\xbb\xbf" + json.dumps(WORKED).encode()) == load(worked())


def test_unknown_and_missing_fields() -> None:
    e = invalid(with_change(lambda d: d["rounds"][0]["turns"][0].update(comits=[1])))
    assert (e.round, e.turn) == (1, 1)
    assert str(e) == (
        "round 1, turn 1: rounds[0].turns[0]: unknown field 'comits' "
        "(a turn has the fields: commits, comment, choices, rows_after)"
    )
    e = invalid(with_change(lambda d: d.pop("format")))
    assert "missing field 'format'" in str(e)
    e = invalid(with_change(lambda d: d["options"].update(variant="x")))
    assert "options: unknown field 'variant'" in str(e)


def test_wrong_values() -> None:
    cases = [
        (lambda d: d.update(format="pgn"), "format: must be 'nimmt-record'"),
        (lambda d: d.update(version=2), "reads version 1 records, not version 2"),
        (lambda d: d["options"].update(players=11), "options: players must be 2 to 10, not 11"),
        (lambda d: d["options"].update(draft=1), "options: draft must be true or false"),
        (
            lambda d: d.update(seats=["Ann"]),
            "seats: seats (one name per seat) must hold 4 entries, not 1",
        ),
        (lambda d: d["start"].update(rows=[[12], [37], [43]]), "must hold 4 entries, not 3"),
        (
            lambda d: d["start"]["hands"][0].__setitem__(0, True),
            "start.hands[0][0]: a card must be a whole number, not true",
        ),
        (
            lambda d: d["start"]["hands"][0].__setitem__(0, 14.0),
            "a card must be a whole number, not 14.0",
        ),
        (
            lambda d: d["rounds"][0]["turns"][0]["commits"].pop(),
            "commits (one card per seat, in seat order) must hold 4",
        ),
        (
            lambda d: d["rounds"][0]["turns"][0]["commits"].__setitem__(2, None),
            "null (no commit) is allowed only in the record's last turn",
        ),
        (
            lambda d: d["rounds"][0]["turns"][2]["choices"][0].update(row=4),
            "a row (rows are numbered 0 to 3) must be 0 to 3, not 4",
        ),
        (
            lambda d: d["rounds"][0]["turns"][2]["choices"][0].update(
                place={"row": 1, "end": "right"}
            ),
            "unknown field 'row'",
        ),
        (
            lambda d: d["rounds"][0]["turns"][2]["choices"].__setitem__(
                0, {"seat": 0, "place": {"row": 1, "end": "middle"}}
            ),
            'the end must be "left" or "right"',
        ),
        (
            lambda d: d["rounds"][0]["turns"][2]["choices"][0].update(seat=4),
            "a seat must be 0 to 3, not 4",
        ),
        (
            lambda d: d["rounds"][0].update(rows=[1, 2, 3, 4]),
            "the round of a hand-made start has no deal",
        ),
        (
            lambda d: d["rounds"][0].update(penalties=[1, 6, 0, -1]),
            "a penalty must be at least 0, not -1",
        ),
        (
            lambda d: d["result"].update(winners=[9]),
            "result.winners[0]: a seat must be 0 to 3, not 9",
        ),
        (lambda d: d.update(comment=3), "comment: a comment must be a string, not 3"),
    ]
    for change, message in cases:
        e = invalid(with_change(change))
        assert message in str(e), (message, str(e))
        assert isinstance(e, RecordError) and isinstance(e, ValueError)


def test_a_seat_named_in_the_error() -> None:
    e = invalid(with_change(lambda d: d["rounds"][0]["turns"][1]["commits"].__setitem__(3, "x")))
    assert (e.round, e.turn, e.seat) == (1, 2, 3)
    assert str(e).startswith(
        "round 1, turn 2, seat 3: rounds[0].turns[1].commits[3]: a card must be a whole number"
    )


def test_round_shapes_by_variant() -> None:
    base: dict[str, Any] = {
        "format": "nimmt-record",
        "version": 1,
        "options": {"players": 2},
        "rounds": [{"rows": [1, 2, 3, 4]}],
    }
    assert "missing field 'hands'" in str(invalid(json.dumps(base)))
    base["options"]["draft"] = True
    assert "missing field 'picks'" in str(invalid(json.dumps(base)))
    base["rounds"] = [{"picks": [], "hands": [[1], [2]]}]
    assert "in a Draft round the hands are picked" in str(invalid(json.dumps(base)))
    base["rounds"] = [{"picks": [[0, 1]], "turns": [{"commits": [1, None]}]}]
    assert "missing field 'rows'" in str(invalid(json.dumps(base)))


def test_replay_checks_records_built_in_code() -> None:
    record = load(worked())
    bad = Record(options=record.options, rounds=record.rounds, seats=("Ann",))
    with pytest.raises(InvalidRecord, match="seats"):
        replay(bad).run()


def test_dataclass_values() -> None:
    record = load(worked())
    assert record.rounds[0].turns[2].choices == (RowChoice(0, 1),)
    assert record.result == ResultClaim((1, 6, 0, 0), (3, 4, 1, 1), (2, 3))
    assert load(tie_record()).rounds[0].turns[0].choices[0] == TieChoice(0, Place(1, End.LEFT))


# ----------------------------------------------------------------- never a traceback

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 110)
    | st.floats(allow_nan=False)
    | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += paths(item, (*prefix, index))
    return out


def draft_record() -> dict[str, Any]:
    game = Game(Options(players=2, draft=True, professional=True, rounds=1), seed=11)
    play(game, random.Random(11), 10**6)
    data: dict[str, Any] = json.loads(record_from_game(game).to_json())
    return data


DRAFT_RECORD = draft_record()


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_any_damage_to_a_record_is_an_error_not_a_crash(data: st.DataObject) -> None:
    record = data.draw(st.sampled_from([worked, tie_record, lambda: copy.deepcopy(DRAFT_RECORD)]))()
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(paths(record)[1:]))
        parent = record
        for key in where[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[where[-1]]
        elif data.draw(st.booleans()) and type(parent[where[-1]]) is int:
            parent[where[-1]] += data.draw(st.sampled_from([-1, 1, 50]))  # a near miss
        else:
            parent[where[-1]] = data.draw(json_values)
    try:
        replay(load(record)).run()
    except RecordError as e:
        assert str(e)
