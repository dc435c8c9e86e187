"""Replaying a record that the rules contradict (docs/RECORD.md, "Checks"): the exact
sentence a reader gets, with its round, turn and seat, for each kind of
contradiction; where a record that stops part-way stops, in words; and
``nimmt-replay --verify``'s refusals. Built on RULES.md's worked example
(tests/data/worked_example.json) and small hand-made games. No trio, no hypothesis
(``tools/mutate.py --plain``)."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from nimmt.engine import Game, Options
from nimmt.engine.fair_deal import FairDeal, UnfairDeal, commitment_of, deal_round
from nimmt.engine.moves import DraftPick
from nimmt.engine.records import (
    RecordContradiction,
    claim_for,
    describe_pending,
    record_from_dict,
    record_from_game,
    replay,
    verify_deals,
)

WORKED = json.loads((Path(__file__).parent / "data" / "worked_example.json").read_text())


def worked() -> dict[str, Any]:
    return copy.deepcopy(WORKED)


def contradiction(data: dict[str, Any]) -> RecordContradiction:
    with pytest.raises(RecordContradiction) as caught:
        replay(record_from_dict(data)).run()
    return caught.value


def where(e: RecordContradiction) -> tuple[int | None, int | None, int | None]:
    return e.round, e.turn, e.seat


# ----------------------------------------------------------------- turns and choices


def test_a_choice_given_where_the_cards_had_one_place_to_go() -> None:
    data = worked()
    data["rounds"][0]["turns"][1]["choices"] = [{"seat": 2, "row": 0}]
    e = contradiction(data)
    assert where(e) == (1, 2, 2)
    assert e.detail == ("the record gives Cid a row choice, but no choice was needed in this "
                        "turn: every card had one place to go (rules 1 to 3)")
    data = worked()
    data["rounds"][0]["turns"][2]["choices"].append(
        {"seat": 3, "place": {"row": 0, "end": "left"}})
    e = contradiction(data)
    assert where(e) == (1, 3, 3)
    assert e.detail == ("the record gives Dee a tie choice, but no further choice was needed "
                        "in this turn: the cards after it each had one place to go")


def test_a_choice_by_another_seat_or_of_the_other_kind() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["choices"] = [{"seat": 1, "row": 1}]
    e = contradiction(data)
    assert where(e) == (1, 3, 1)
    assert e.detail == ("the record has Bob make a row choice, but Ann's 3 fits no row (it is "
                        "lower than the last card of every row), so Ann chooses a row to take")
    data["rounds"][0]["turns"][2]["choices"] = [{"seat": 0, "place": {"row": 1, "end": "left"}}]
    e = contradiction(data)
    assert where(e) == (1, 3, 0)
    assert e.detail == ("the record gives a tie choice (a place), but Ann's 3 fits no row (it is "
                        "lower than the last card of every row), so Ann chooses a row to take: "
                        'write {"seat": 0, "row": R}')


TIE: dict[str, Any] = {
    "format": "nimmt-record", "version": 1,
    "options": {"players": 2, "professional": True, "rounds": 1},
    "seats": ["Ann", "Bob"],
    "start": {"rows": [[20], [30, 31], [40], [50]], "hands": [[25], [60]]},
    "rounds": [{"turns": [{"commits": [25, 60],
                           "choices": [{"seat": 0, "place": {"row": 1, "end": "left"}}]}]}],
}


def test_a_tie_choice_of_another_seat_another_kind_or_another_place() -> None:
    data = copy.deepcopy(TIE)
    assert replay(record_from_dict(data)).run().game.rows == ((20,), (25, 30, 31), (40,), (50, 60))
    data["rounds"][0]["turns"][0]["choices"] = [{"seat": 1, "place": {"row": 1, "end": "left"}}]
    e = contradiction(data)
    assert where(e) == (1, 10, 1)
    assert e.detail == ("the record has Bob make a tie choice, but Ann's 25 fits the right end "
                        "of row 0 and the left end of row 1 equally well, so Ann chooses between "
                        "them")
    data["rounds"][0]["turns"][0]["choices"] = [{"seat": 0, "row": 1}]
    e = contradiction(data)
    assert e.detail == ("the record gives a row choice, but Ann's 25 fits the right end of row 0 "
                        "and the left end of row 1 equally well, so Ann chooses between them: "
                        'write {"seat": 0, "place": {"row": R, "end": "left" or "right"}}')
    data["rounds"][0]["turns"][0]["choices"] = [{"seat": 0, "place": {"row": 1, "end": "right"}}]
    e = contradiction(data)
    assert where(e) == (1, 10, 0)
    assert e.detail == ("the right end of row 1 is not one of the places 25 fits equally well "
                        "(the right end of row 0 and the left end of row 1)")


def test_a_record_that_stops_waiting_for_a_choice_and_one_that_claims_past_it() -> None:
    data = worked()
    del data["rounds"][0]["turns"][2]["choices"], data["rounds"][0]["turns"][2]["rows_after"]
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"], data["result"]
    run = replay(record_from_dict(data)).run()
    assert run.stopped == ("the record stops at round 1, turn 3: waiting for a choice: Ann's 3 "
                           "fits no row (it is lower than the last card of every row), so Ann "
                           "chooses a row to take")
    for claim in ({"penalties": [1, 6, 0, 0]}, {"totals": [1, 6, 0, 0]}):
        claimed = copy.deepcopy(data)
        claimed["rounds"][0].update(claim)
        e = contradiction(claimed)
        assert where(e) == (1, 3, 0)
        assert e.detail.endswith("so Ann chooses a row to take, but the record gives no choice for it")
    claimed = copy.deepcopy(data)
    claimed["result"] = {"winners": [2, 3]}
    assert where(contradiction(claimed)) == (1, 3, 0)


def test_rows_claimed_after_a_turn_name_the_first_row_that_differs() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["rows_after"][3] = [58, 61, 68]
    e = contradiction(data)
    assert where(e) == (1, 3, None)
    assert e.detail == ("the record claims the rows after this turn are 30 36 | 3 9 | 43 44 | "
                        "58 61 68, but by the rules they are 30 36 | 3 9 | 43 44 | 58 61 68 93 "
                        "(row 3 differs)")


def test_a_turn_after_the_hands_are_empty() -> None:
    data = worked()
    data["rounds"][0]["turns"].append({"commits": [1, 2, 4, 5]})
    e = contradiction(data)
    assert where(e) == (1, 4, None)
    assert e.detail == ("round 1 is over after turn 3: the hands are empty, but the record has "
                        "a turn 4")


# ----------------------------------------------------------------- rounds and the result


def test_claimed_penalties_totals_and_result_that_do_not_follow() -> None:
    data = worked()
    data["rounds"][0]["totals"] = [1, 6, 0, 1]
    e = contradiction(data)
    assert where(e) == (1, None, 3)
    assert e.detail == ("the record claims Dee has a total of 1 bullhead after this round, but "
                        "by the rules Dee has a total of 0 bullheads")
    data = worked()
    data["result"]["totals"] = [1, 7, 0, 0]
    e = contradiction(data)
    assert where(e) == (None, None, 1)
    assert str(e) == "seat 1: the result claims Bob's total is 7, but by the rules it is 6"
    data = worked()
    data["result"]["places"] = [3, 4, 2, 1]
    e = contradiction(data)
    assert str(e) == "seat 2: the result claims Cid's place is 2, but by the rules it is 1"
    data = worked()
    data["result"]["winners"] = [3, 1]
    e = contradiction(data)
    assert str(e) == ("seat 1: the result claims the winners are Dee, Bob, but by the rules "
                      "the winners (fewest bullheads) are Cid, Dee")
    data = worked()
    data["result"]["winners"] = [3, 2]  # the same seats in another order
    assert replay(record_from_dict(data)).run().game.result.winners == (2, 3)


def test_a_result_claimed_by_a_record_that_stops() -> None:
    data = worked()
    data["rounds"][0]["turns"][2]["commits"] = [3, None, None, None]
    del data["rounds"][0]["turns"][2]["choices"], data["rounds"][0]["turns"][2]["rows_after"]
    del data["rounds"][0]["penalties"], data["rounds"][0]["totals"]
    e = contradiction(data)
    assert where(e) == (None, None, None)
    assert str(e) == ("the record claims a result, but the record stops at round 1, turn 3: "
                      "waiting for Bob, Cid, Dee to commit (Ann committed)")
    data["rounds"][0]["penalties"] = [0, 6, 0, 0]
    e = contradiction(data)
    assert str(e) == ("round 1: the record claims this round's penalties or totals, but it "
                      "stops before the round ends")


def _dealt(options: Options, seed: int, rounds: int) -> dict[str, Any]:
    game = Game(options, seed=seed)
    rng = random.Random(seed)
    while not game.is_over and game.round <= rounds:
        seat = min(game.pending.seats)
        game.apply(rng.choice(game.legal_decisions(seat)))
    return json.loads(record_from_game(game, seats=["Ann", "Bob"]).to_json())


def test_the_game_over_and_the_record_going_on() -> None:
    one = _dealt(Options(players=2, rounds=1), 3, 1)
    extra = copy.deepcopy(one["rounds"][0])
    one["rounds"].append(extra)
    e = contradiction(one)
    assert where(e) == (2, None, None)
    assert e.detail == ("the game is over after round 1 (its one round is played), but the "
                        "record goes on")
    two = _dealt(Options(players=2, rounds=2), 4, 2)
    two["rounds"].append(copy.deepcopy(two["rounds"][0]))
    e = contradiction(two)
    assert where(e) == (3, None, None)
    assert e.detail == ("the game is over after round 2 (its 2 rounds are played), but the "
                        "record goes on")
    limit = _dealt(Options(players=2, point_limit=10), 5, 99)
    assert max(limit["result"]["totals"]) >= 10
    limit["rounds"].append(copy.deepcopy(limit["rounds"][0]))
    e = contradiction(limit)
    assert e.detail == (f"the game is over after round {len(limit['rounds']) - 1} (a total "
                        "reached the point limit of 10), but the record goes on")


def test_a_round_cut_short_before_the_next() -> None:
    data = _dealt(Options(players=2, rounds=2), 4, 2)
    first = data["rounds"][0]
    del first["turns"][7:], first["penalties"], first["totals"]
    del data["result"]
    e = contradiction(data)
    assert where(e) == (1, None, None)
    assert e.detail == ("the record goes on to round 2, but round 1 is not over: the record has "
                        "7 turns and the hands still hold 3 cards")


def test_where_a_record_stops_between_rounds_and_before_a_deal() -> None:
    data = _dealt(Options(players=2, rounds=2), 4, 2)
    del data["rounds"][1:], data["result"]
    run = replay(record_from_dict(data)).run()
    assert run.stopped == "the record stops before the deal of round 2"
    data["rounds"][0]["turns"][-1]["commits"][1] = None
    del data["rounds"][0]["turns"][-1]["rows_after"], data["rounds"][0]["penalties"]
    del data["rounds"][0]["totals"]
    data["rounds"][0]["turns"][-1].pop("choices", None)
    run = replay(record_from_dict(data)).run()
    assert run.stopped == "the record stops at round 1, turn 10: waiting for Bob to commit (Ann committed)"
    data["rounds"][0]["turns"][-1]["commits"][0] = None
    run = replay(record_from_dict(data)).run()
    assert run.stopped == "the record stops at round 1, turn 10: waiting for Ann, Bob to commit"


def test_a_finished_game_has_not_stopped_anywhere_and_a_replay_runs_once() -> None:
    run = replay(record_from_dict(worked()))
    run.run()
    assert run.stopped is None
    assert describe_pending(run.game) == "the game is over"
    with pytest.raises(RuntimeError, match="runs once"):
        run.run()


# ----------------------------------------------------------------- Draft rounds


def _draft(seed: int = 5) -> dict[str, Any]:
    game = Game(Options(players=2, draft=True, rounds=2), seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_decisions(min(game.pending.seats))))
    return json.loads(record_from_game(game, seats=["Ann", "Bob"]).to_json())


def test_draft_picks_the_rules_refuse() -> None:
    data = _draft()
    picks = data["rounds"][1]["picks"]
    assert picks[0][0] == 1  # round 2's first picker is seat 1
    picks[0][0] = 0
    e = contradiction(data)
    assert where(e) == (2, None, 0)
    assert e.detail == ("pick 1 of this round is Bob's (seat 1), not seat 0's: the seats pick "
                        "in turn, one card each, from seat 1 this round")
    data = _draft()
    picks = data["rounds"][0]["picks"]
    picks[3][1] = picks[0][1]
    e = contradiction(data)
    assert where(e) == (1, None, 1)
    assert e.detail == (f"pick 4: Bob picks {picks[0][1]}, which is not in the pool: Ann picked "
                        "it earlier")
    data = _draft()
    data["rounds"][0]["picks"][2][1] = 105
    e = contradiction(data)
    assert e.detail == ("pick 3: Ann picks 105, which is not in the pool: it is not in the deck "
                        "in use (1 to 104)")
    data = _draft()
    data["rounds"][0]["picks"].append([0, 1])
    e = contradiction(data)
    assert where(e) == (1, None, 0)
    assert e.detail == ("pick 21: every seat already holds 10 cards; the draft is over after "
                        "20 picks")
    data = _draft()
    del data["rounds"][0]["picks"][-2:]
    e = contradiction(data)
    assert where(e) == (1, None, 0)
    assert e.detail == ("the draft is not over after 18 picks (each seat picks 10 cards, 20 in "
                        "all), but the record goes on")


def test_a_draft_record_that_stops_during_the_draft_or_before_its_rows() -> None:
    data = _draft()
    del data["rounds"][1:], data["result"]
    data["rounds"][0] = {"picks": data["rounds"][0]["picks"][:5]}
    run = replay(record_from_dict(data)).run()
    assert run.stopped == "the record stops at round 1, during the draft: waiting for pick 6, Bob's"
    data = _draft()
    del data["rounds"][1:], data["result"]
    data["rounds"][0] = {"picks": data["rounds"][0]["picks"]}
    run = replay(record_from_dict(data)).run()
    assert run.stopped == "the record stops before the draw of the 4 row cards of round 1"


# ----------------------------------------------------------------- verifying the deals


def _fair_record(options: Options, fair: FairDeal) -> Any:
    game = Game(options)
    game.deal(deal_round(options, 1, fair))
    while not game.is_over:
        game.apply(game.legal_decisions(min(game.pending.seats))[0])
    return record_from_game(game, fair_deal=claim_for(fair))


def test_verify_counts_the_deals_and_refuses_what_it_cannot_check() -> None:
    fair = FairDeal(bytes(32), (b"", b"\x07"))
    record = _fair_record(Options(players=2, rounds=1), fair)
    assert verify_deals(record) == 1
    stopped = replace(record, rounds=(replace(record.rounds[0], rows=None, hands=None,
                                              turns=()),), result=None)
    assert verify_deals(stopped) == 0
    with pytest.raises(UnfairDeal) as caught:
        verify_deals(replace(record, fair_deal=None))
    assert str(caught.value) == ("the record has no fair_deal: it was not dealt verifiably (or "
                                 "its seed was never revealed)")
    with pytest.raises(UnfairDeal) as caught:
        verify_deals(replace(record, fair_deal=claim_for(FairDeal(bytes(32), (b"",)))))
    assert str(caught.value) == "fair_deal has 1 contributions for 2 seats"
    claim = claim_for(fair)
    seed = b"\x01" * 32
    other = replace(claim, seed=seed)
    with pytest.raises(UnfairDeal) as caught:
        verify_deals(replace(record, fair_deal=other))
    assert str(caught.value) == (
        "the seed revealed does not match the commitment: its SHA-256 is "
        f"{commitment_of(seed)}, the commitment {claim.commitment}")
    start = record_from_dict({"format": "nimmt-record", "version": 1,
                              "options": {"players": 2},
                              "start": {"rows": [[5], [6], [7], [8]], "hands": [[1], [2]]},
                              "rounds": []})
    with pytest.raises(UnfairDeal) as caught:
        verify_deals(replace(start, fair_deal=claim))
    assert str(caught.value) == ("the record starts from a hand-made position: its deals are "
                                 "not derived from a seed")


def test_verify_checks_every_round_and_a_draft_round_by_its_picks() -> None:
    fair = FairDeal(b"\x05" * 32, (b"\x01", b"", b"\x02"))
    options = Options(players=3, rounds=2)
    game = Game(options)
    while not game.is_over:
        if game.pending.__class__.__name__ == "AwaitingDeal":
            game.deal(deal_round(options, game.round if game.round else 1, fair))
            continue
        game.apply(game.legal_decisions(min(game.pending.seats))[0])
    record = record_from_game(game, fair_deal=claim_for(fair))
    assert verify_deals(record) == 2
    second = record.rounds[1]
    swapped = replace(second, hands=(second.hands[1], second.hands[0], second.hands[2]))
    with pytest.raises(UnfairDeal, match="^round 2: "):
        verify_deals(replace(record, rounds=(record.rounds[0], swapped)))


def test_a_commit_of_a_card_not_held_names_the_hand() -> None:
    data = worked()
    data["rounds"][0]["turns"][0]["commits"][2] = 45
    e = contradiction(data)
    assert where(e) == (1, 1, 2)
    assert e.detail == "Cid commits 45, which is not in their hand (they hold 9 21 44)"





def test_a_third_round_that_stops_at_a_choice_is_judged_by_its_own_claims() -> None:
    """Round 3 stops waiting for a row choice and claims nothing: the record stops there,
    whatever the rounds before it claim (their penalties and totals are kept)."""
    data = _dealt(Options(players=2, rounds=3), 0, 3)
    third = data["rounds"][2]
    at = next(i for i, t in enumerate(third["turns"]) if t.get("choices"))
    assert at == 4
    del third["turns"][at + 1:], third["penalties"], third["totals"], data["result"]
    del third["turns"][at]["choices"], third["turns"][at]["rows_after"]
    assert data["rounds"][1]["penalties"] is not None
    run = replay(record_from_dict(data)).run()
    assert run.stopped is not None
    assert run.stopped.startswith("the record stops at round 3, turn 5: waiting for a choice: ")
    third["totals"] = data["rounds"][1]["totals"]  # a claim on round 3 needs the choice
    e = contradiction(data)
    assert where(e)[:2] == (3, 5)
    assert e.detail.endswith("but the record gives no choice for it")


def test_the_first_picker_of_each_round_moves_one_seat_on() -> None:
    game = Game(Options(players=3, draft=True, rounds=3), seed=9)
    rng = random.Random(9)
    while not game.is_over:
        game.apply(rng.choice(game.legal_decisions(min(game.pending.seats))))
    record = json.loads(record_from_game(game, seats=["Ann", "Bob", "Cid"]).to_json())
    for number, first in ((1, 0), (2, 1), (3, 2)):
        data = copy.deepcopy(record)
        picks = data["rounds"][number - 1]["picks"]
        assert picks[0][0] == first
        picks[0][0] = (first + 1) % 3
        e = contradiction(data)
        assert where(e) == (number, None, (first + 1) % 3)
        assert e.detail == (
            f"pick 1 of this round is {['Ann', 'Bob', 'Cid'][first]}'s (seat {first}), not seat "
            f"{(first + 1) % 3}'s: the seats pick in turn, one card each, from seat {first} "
            "this round")


# ----------------------------------------------------------------- building a record


def test_a_draft_game_is_recorded_pick_by_pick_then_its_rows() -> None:
    game = Game(Options(players=2, draft=True, rounds=2), seed=4)
    rng = random.Random(4)
    picked: list[list[tuple[int, int]]] = [[], []]
    while not game.is_over and not (game.round == 2 and len(picked[1]) == 5):
        decision = rng.choice(game.legal_decisions(min(game.pending.seats)))
        if isinstance(decision, DraftPick):
            picked[game.round - 1].append((decision.seat, decision.card))
        game.apply(decision)
    record = record_from_game(game, seats=["Ann", "Bob"])
    one, two = record.rounds
    assert list(one.picks or ()) == picked[0] and len(picked[0]) == 20
    assert one.rows is not None and one.hands is None and len(one.turns) == 10
    assert one.totals is not None and sum(one.totals) == sum(one.penalties or ())
    assert list(two.picks or ()) == picked[1] and len(picked[1]) == 5
    assert (two.rows, two.turns, two.penalties, record.result) == (None, (), None, None)
    run = replay(record).run()
    assert run.stopped == "the record stops at round 2, during the draft: waiting for pick 6, Ann's"


def test_a_record_without_claims_keeps_the_moves_only() -> None:
    game = Game(Options(players=2, rounds=1), seed=8)
    while not game.is_over:
        game.apply(game.legal_decisions(min(game.pending.seats))[0])
    full = record_from_game(game)
    bare = record_from_game(game, claims=False)
    assert full.result is not None and full.rounds[0].totals is not None
    assert all(t.rows_after is not None for t in full.rounds[0].turns)
    assert (bare.result, bare.rounds[0].penalties, bare.rounds[0].totals) == (None, None, None)
    assert [t.rows_after for t in bare.rounds[0].turns] == [None] * 10
    assert [t.commits for t in bare.rounds[0].turns] == [t.commits for t in full.rounds[0].turns]
    assert [t.choices for t in bare.rounds[0].turns] == [t.choices for t in full.rounds[0].turns]
    with pytest.raises(ValueError) as caught:
        record_from_game(game, seats=["Ann"])
    assert str(caught.value) == "seats must be 2 names, one per seat"
    with pytest.raises(ValueError):
        record_from_game(game, seats=["Ann", 2])  # type: ignore[list-item]
