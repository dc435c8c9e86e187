"""The basic rules on hand-made positions: cards, placement (Rules 1-4), end of the
game, places, autopilot, commit replacement, chance, and illegal decisions."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from nimmt.engine import (
    BULLHEADS,
    FULL_DECK,
    AwaitingCommits,
    AwaitingDeal,
    AwaitingRowChoice,
    CardNotInHand,
    CardPlaced,
    CardsRevealed,
    ChooseRow,
    ChooseTie,
    Commit,
    CommitAccepted,
    Deal,
    DraftPick,
    End,
    Game,
    GameOver,
    GameResult,
    HandDealt,
    IllegalDecision,
    IllegalRow,
    InvalidDeal,
    InvalidOptions,
    InvalidPosition,
    NimmtError,
    NotYourDecision,
    Options,
    Phase,
    Place,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    StaleTurn,
    TurnStarted,
    WrongPhase,
    bullheads,
    cheapest_row,
    events_for,
    first_place,
    places_for,
    row_bullheads,
)

from engine_helpers import assert_refused, play_turn, snapshot

R, L = End.RIGHT, End.LEFT


# ----------------------------------------------------------------- helpers


def simple_policy(game: Game) -> list:
    """Let every pending seat take its first legal decision; return the events."""
    pending = game.pending
    if isinstance(pending, AwaitingCommits):
        events: list = []
        for seat in sorted(pending.waiting):
            events.extend(game.apply(game.legal_decisions(seat)[0]))
        return events
    (seat,) = pending.seats
    return game.apply(game.legal_decisions(seat)[0])


def play_out(game: Game, limit: int = 20_000) -> list:
    events = list(game.opening_events)
    for _ in range(limit):
        if game.is_over:
            return events
        events.extend(simple_policy(game))
    raise AssertionError("the game did not end")


# ----------------------------------------------------------------- cards


def test_bullheads_of_every_card():
    expected = {}
    for card in range(1, 105):
        if card == 55:
            expected[card] = 7
        elif card in (11, 22, 33, 44, 66, 77, 88, 99):
            expected[card] = 5
        elif card % 10 == 0:
            expected[card] = 3
        elif card % 10 == 5:
            expected[card] = 2
        else:
            expected[card] = 1
    assert {c: bullheads(c) for c in range(1, 105)} == expected
    assert all(BULLHEADS[c] == expected[c] for c in range(1, 105))
    assert FULL_DECK == tuple(range(1, 105))


def test_deck_totals_171_and_counts_per_value():
    assert sum(bullheads(c) for c in FULL_DECK) == 171
    assert row_bullheads(FULL_DECK) == 171
    assert Counter(bullheads(c) for c in FULL_DECK) == {1: 76, 2: 9, 3: 10, 5: 8, 7: 1}


@pytest.mark.parametrize("card", [0, 105, -1])
def test_no_such_card(card):
    with pytest.raises(ValueError):
        bullheads(card)


# ----------------------------------------------------------------- placement


def test_rule1_rule2_smallest_positive_difference():
    rows = [[50], [10], [70], [33]]
    # 60: only rows ending lower (50, 10, 33) qualify; 50 is closest below.
    assert places_for(rows, 60, professional=False) == (Place(0, R),)
    assert places_for(rows, 34, professional=False) == (Place(3, R),)
    assert places_for(rows, 104, professional=False) == (Place(2, R),)
    assert places_for(rows, 5, professional=False) == ()


def test_rule2_in_a_game_with_rows_updated_card_by_card():
    game = Game.from_position(
        Options(players=3, rounds=1), rows=[[10], [20], [30], [40]], hands=[[21], [22], [35]]
    )
    events = play_turn(game, {0: 21, 1: 22, 2: 35})
    assert events[-6:] == [
        CardsRevealed(((0, 21), (1, 22), (2, 35))),
        CardPlaced(0, 21, 1, R),
        CardPlaced(1, 22, 1, R),  # after the 21 just placed, not after the 20
        CardPlaced(2, 35, 2, R),
        RoundScored(1, (0, 0, 0), (0, 0, 0)),
        GameOver(GameResult((0, 0, 0), (1, 1, 1), (0, 1, 2))),
    ]
    assert game.rows == ((10,), (20, 21, 22), (30, 35), (40,))


def test_rule3_sixth_card_takes_five_cards_and_starts_row():
    game = Game.from_position(
        Options(players=2, rounds=1),
        rows=[[50, 51, 55, 60, 66], [10], [20], [30]],
        hands=[[70, 1], [31, 2]],
    )
    events = play_turn(game, {0: 70, 1: 31})
    assert events[2:] == [
        CommitAccepted(1, 31),
        SeatCommitted(1),
        CardsRevealed(((1, 31), (0, 70))),
        CardPlaced(1, 31, 3, R),
        RowTaken(0, 0, (50, 51, 55, 60, 66), 3 + 1 + 7 + 3 + 5),
        CardPlaced(0, 70, 0, R),
        TurnStarted(1, 10),
    ]
    assert game.rows == ((70,), (10,), (20,), (30, 31))
    assert game.view(0).penalties == (19, 0)
    # The taken cards go to the penalty pile, never to the hand.
    assert game.view(0).hand == (1,)


def test_rule3_a_row_of_four_takes_a_fifth_card():
    game = Game.from_position(
        Options(players=2, rounds=1), rows=[[50, 51, 52, 53], [10], [20], [30]], hands=[[54], [31]]
    )
    play_turn(game, {0: 54, 1: 31})
    assert game.rows[0] == (50, 51, 52, 53, 54)
    assert game.totals == (0, 0)


def test_rule4_lowest_card_chooses_any_row_even_a_full_one():
    game = Game.from_position(
        Options(players=3, rounds=1),
        rows=[[10, 11, 12, 13, 14], [20], [30], [40]],
        hands=[[5], [45], [15]],
    )
    events = play_turn(game, {0: 5, 1: 45, 2: 15})
    assert events[-2:] == [CardsRevealed(((0, 5), (2, 15), (1, 45))), RowChoiceNeeded(0, 5)]
    assert game.pending == AwaitingRowChoice(0, 5)
    assert game.rows == ((10, 11, 12, 13, 14), (20,), (30,), (40,))  # nothing placed yet
    events = game.apply(ChooseRow(0, 0))
    assert events == [
        RowTaken(0, 0, (10, 11, 12, 13, 14), 3 + 5 + 1 + 1 + 1),
        CardPlaced(0, 5, 0, R),
        CardPlaced(2, 15, 0, R),
        CardPlaced(1, 45, 3, R),
        RoundScored(1, (11, 0, 0), (11, 0, 0)),
        GameOver(GameResult((11, 0, 0), (3, 1, 1), (1, 2))),
    ]


@pytest.mark.parametrize("row", [0, 1, 2, 3])
def test_rule4_card_starts_the_chosen_row(row):
    rows = [[10, 20], [30], [40, 44], [60]]
    game = Game.from_position(Options(players=2, rounds=1), rows=rows, hands=[[3], [99]])
    play_turn(game, {0: 3, 1: 99})
    events = game.apply(ChooseRow(0, row))
    assert events[:2] == [
        RowTaken(0, row, tuple(rows[row]), row_bullheads(rows[row])),
        CardPlaced(0, 3, row, R),
    ]
    assert game.rows[row][0] == 3
    assert game.totals[0] == row_bullheads(rows[row])


# ----------------------------------------------------------------- autopilot


def test_autopilot_row_choice_fewest_bullheads_lowest_row_on_tie():
    rows = [[60], [70], [56, 57], [81, 82]]  # 3, 3, 2, 2 bullheads
    assert cheapest_row(rows) == 2
    assert cheapest_row([[10], [2, 3], [20], [4, 6]]) == 1  # 3, 2, 3, 2
    game = Game.from_position(Options(players=2, rounds=1), rows=rows, hands=[[1], [90]])
    assert game.autopilot(0) is None and game.autopilot(1) is None  # commit: no default
    play_turn(game, {0: 1, 1: 90})
    assert game.autopilot(0) == ChooseRow(0, 2)
    assert game.autopilot(1) is None
    assert game.autopilot(0) in game.legal_decisions(0)
    game.apply(game.autopilot(0))
    assert game.totals == (2, 0)


def test_autopilot_row_choice_prefers_fewest_over_row_number():
    rows = [[55], [10], [11], [3]]  # 7, 3, 5, 1
    game = Game.from_position(Options(players=2, rounds=1), rows=rows, hands=[[1], [90]])
    play_turn(game, {0: 1, 1: 90})
    assert game.autopilot(0) == ChooseRow(0, 3)


def test_autopilot_tie_first_place_in_row_order():
    assert first_place((Place(2, L), Place(0, R))) == Place(0, R)
    assert first_place((Place(1, R), Place(0, L))) == Place(0, L)
    for rows, expected in (
        ([[20], [30, 31], [40], [50]], Place(0, R)),
        ([[30, 31], [20], [60], [70]], Place(0, L)),
    ):
        game = Game.from_position(
            Options(players=2, professional=True, rounds=1), rows=rows, hands=[[25], [90]]
        )
        play_turn(game, {0: 25, 1: 90})
        assert game.phase is Phase.TIE_CHOICE
        assert game.autopilot(0) == ChooseTie(0, expected)
        assert game.autopilot(1) is None
        game.apply(game.autopilot(0))
        assert 25 in game.rows[expected.row]


# ----------------------------------------------------------------- commits


def commit_game() -> Game:
    return Game.from_position(
        Options(players=3, rounds=1),
        rows=[[10], [20], [30], [40]],
        hands=[[11, 41], [21, 42], [31, 43]],
    )


def test_replaced_commit_counts_and_is_hidden():
    game = commit_game()
    assert game.apply(Commit(0, 11)) == [CommitAccepted(0, 11), SeatCommitted(0)]
    seen_by_others = (game.view(1), game.view(2), game.view(None))
    # Replace: only the private CommitAccepted, no second SeatCommitted.
    events = game.apply(Commit(0, 41))
    assert events == [CommitAccepted(0, 41)]
    assert events_for(events, 1) == [] and events_for(events, None) == []
    assert events_for(events, 0) == [CommitAccepted(0, 41)]
    assert (game.view(1), game.view(2), game.view(None)) == seen_by_others  # nobody sees the change
    assert game.view(0).own_commit == 41
    assert game.view(0).hand == (11, 41)  # face down, still in hand until the reveal
    assert game.pending == AwaitingCommits(1, 9, frozenset({1, 2}), frozenset({0}))
    events = game.apply(Commit(1, 21)) + game.apply(Commit(2, 31))
    assert [e for e in events if isinstance(e, SeatCommitted)] == [
        SeatCommitted(1),
        SeatCommitted(2),
    ]
    assert CardsRevealed(((1, 21), (2, 31), (0, 41))) in events
    assert game.view(0).hand == (11,)
    assert game.rows == ((10,), (20, 21), (30, 31), (40, 41))
    assert game.history == [Commit(0, 11), Commit(0, 41), Commit(1, 21), Commit(2, 31)]


def test_commit_accepted_is_private_to_its_seat():
    game = commit_game()
    events = game.apply(Commit(1, 42))
    accepted = events[0]
    assert accepted == CommitAccepted(1, 42)
    assert accepted.visible_to == 1
    assert accepted.visible(1) and not accepted.visible(0) and not accepted.visible(2)
    assert not accepted.visible(None)
    assert events_for(events, 0) == [SeatCommitted(1)]
    assert events[1].visible_to is None
    assert game.view(0).own_commit is None and game.view(None).own_commit is None
    assert game.view(0).committed == frozenset({1})


def test_views_do_not_depend_on_what_another_seat_committed():
    a, b = commit_game(), commit_game()
    a.apply(Commit(0, 11))
    b.apply(Commit(0, 41))
    b.apply(Commit(0, 11))  # replaced twice, ends on the same card
    b2 = commit_game()
    b2.apply(Commit(0, 41))
    for seat in (1, 2, None):
        assert a.view(seat) == b.view(seat) == b2.view(seat)


def test_commit_tagged_with_current_turn_is_accepted():
    game = commit_game()
    assert game.apply(Commit(0, 11, round=1, turn=9))[0] == CommitAccepted(0, 11)
    assert game.apply(Commit(1, 21, round=1))[0] == CommitAccepted(1, 21)
    assert game.apply(Commit(2, 31, turn=9))[-1] == TurnStarted(1, 10)


# ----------------------------------------------------------------- illegal decisions


@pytest.mark.parametrize(
    "decision, error",
    [
        (Commit(0, 99), CardNotInHand),
        (Commit(0, 21), CardNotInHand),  # another seat's card
        (Commit(0, 10), CardNotInHand),  # a card on a row
        (Commit(0, 0), CardNotInHand),
        (Commit(0, 11.0), CardNotInHand),
        (Commit(0, "11"), CardNotInHand),
        (Commit(0, None), CardNotInHand),
        (Commit(3, 11), NotYourDecision),
        (Commit(-1, 11), NotYourDecision),
        (Commit("0", 11), NotYourDecision),
        (Commit(True, 21), NotYourDecision),
        (Commit(0, 11, round=1, turn=8), StaleTurn),
        (Commit(0, 11, round=2, turn=9), StaleTurn),
        (Commit(0, 11, turn=10), StaleTurn),
        (Commit(0, 11, round=0), StaleTurn),
        (ChooseRow(0, 0), WrongPhase),
        (ChooseTie(0, Place(0, R)), WrongPhase),
        (DraftPick(0, 50), WrongPhase),
    ],
)
def test_illegal_in_commit_phase(decision, error):
    game = commit_game()
    game.apply(Commit(1, 42))  # a commit already face down must survive the refusal
    assert_refused(game, decision, error)
    assert game.view(1).own_commit == 42


def test_illegal_replacement_keeps_previous_commit():
    game = commit_game()
    game.apply(Commit(0, 11))
    assert_refused(game, Commit(0, 21), CardNotInHand)
    assert game.view(0).own_commit == 11


def test_not_a_decision_is_a_type_error_and_changes_nothing():
    game = commit_game()
    assert_refused(game, ("commit", 0, 11), TypeError)
    assert_refused(game, None, TypeError)


def row_choice_game() -> Game:
    game = Game.from_position(
        Options(players=3, rounds=1),
        rows=[[10], [20], [30], [40]],
        hands=[[5, 50], [21, 51], [31, 52]],
    )
    play_turn(game, {0: 5, 1: 21, 2: 31})
    assert game.pending == AwaitingRowChoice(0, 5)
    return game


@pytest.mark.parametrize(
    "decision, error",
    [
        (ChooseRow(1, 0), NotYourDecision),
        (ChooseRow(2, 1), NotYourDecision),
        (ChooseRow(3, 1), NotYourDecision),
        (ChooseRow(None, 1), NotYourDecision),
        (ChooseRow(0, 4), IllegalRow),
        (ChooseRow(0, -1), IllegalRow),
        (ChooseRow(0, 1.0), IllegalRow),
        (ChooseRow(0, "1"), IllegalRow),
        (ChooseRow(0, True), IllegalRow),
        (ChooseRow(0, None), IllegalRow),
        (Commit(0, 50), WrongPhase),
        (Commit(1, 51), WrongPhase),
        (ChooseTie(0, Place(0, R)), WrongPhase),
        (DraftPick(0, 60), WrongPhase),
    ],
)
def test_illegal_in_row_choice(decision, error):
    assert_refused(row_choice_game(), decision, error)


def test_deal_refused_while_playing():
    game = row_choice_game()
    before = snapshot(game)
    with pytest.raises(WrongPhase):
        game.deal(Deal(rows=(1, 2, 3, 4), hands=((60,) * 10,) * 3))
    with pytest.raises(WrongPhase):
        game.deal()
    assert snapshot(game) == before


def over_game() -> Game:
    game = Game.from_position(
        Options(players=2, rounds=1), rows=[[10], [20], [30], [40]], hands=[[11], [21]]
    )
    play_turn(game, {0: 11, 1: 21})
    assert game.is_over and game.phase is Phase.OVER and game.pending is None
    return game


@pytest.mark.parametrize(
    "decision",
    [
        Commit(0, 11),
        Commit(0, 50),
        ChooseRow(0, 0),
        ChooseTie(0, Place(0, R)),
        DraftPick(0, 50),
        Commit(5, 1),
    ],
)
def test_decisions_after_game_over(decision):
    game = over_game()
    assert_refused(game, decision, WrongPhase)
    assert all(game.legal_decisions(s) == () for s in range(2))
    assert all(game.view(s).legal == () and not game.view(s).my_turn for s in range(2))


def test_deal_after_game_over():
    game = over_game()
    before = snapshot(game)
    with pytest.raises(WrongPhase):
        game.deal(Deal(rows=(1, 2, 3, 4), hands=(tuple(range(5, 15)), tuple(range(15, 25)))))
    assert snapshot(game) == before


@pytest.mark.parametrize("seat", [-1, 3, 10, "0", 1.0])
def test_bad_seat_numbers_in_queries(seat):
    game = commit_game()
    with pytest.raises(NotYourDecision):
        game.view(seat)
    assert game.legal_decisions(seat) == ()
    assert game.autopilot(seat) is None


def test_errors_are_narrow_value_errors():
    for error in (WrongPhase, NotYourDecision, CardNotInHand, IllegalRow, StaleTurn):
        assert issubclass(error, IllegalDecision) and issubclass(error, NimmtError)
        assert issubclass(error, ValueError)
    for error in (InvalidDeal, InvalidOptions, InvalidPosition):
        assert not issubclass(error, IllegalDecision) and issubclass(error, NimmtError)


# ----------------------------------------------------------------- options & positions


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(players=1),
        dict(players=11),
        dict(players="4"),
        dict(players=4, point_limit=None, rounds=None),
        dict(players=4, point_limit=0),
        dict(players=4, rounds=0),
        dict(players=4, draft=1),
        dict(players=4, professional="yes"),
    ],
)
def test_invalid_options(kwargs):
    with pytest.raises(InvalidOptions):
        Options(**kwargs)


@pytest.mark.parametrize(
    "rows, hands",
    [
        ([[10], [20], [30]], [[1], [2]]),  # 3 rows
        ([[10], [20], [30], [40]], [[1]]),  # 1 hand for 2 players
        ([[10], [20], [30], [40]], [[1, 2], [3]]),  # unequal hands
        ([[10], [20], [30], [40]], [[], []]),  # empty hands
        ([[10], [20], [30], [40]], [[1, 10], [2, 3]]),  # a card twice
        ([[10, 9], [20], [30], [40]], [[1], [2]]),  # a row not ascending
        ([[10, 11, 12, 13, 14, 15], [20], [30], [40]], [[1], [2]]),  # a row of 6
        ([[], [20], [30], [40]], [[1], [2]]),  # an empty row
        ([[10], [20], [30], [40]], [[105], [2]]),  # no such card
    ],
)
def test_invalid_positions(rows, hands):
    with pytest.raises(InvalidPosition):
        Game.from_position(Options(players=2), rows=rows, hands=hands)


# ----------------------------------------------------------------- end of the game


def limit_game(total0: int, options: Options, round: int = 2) -> Game:
    """Seat 0's 17 takes 12 13 14 15 16 (6 bullheads) at the round's last turn.

    Totals count earlier rounds, so such a position starts in round 2 or later."""
    return Game.from_position(
        options,
        rows=[[12, 13, 14, 15, 16], [50], [60], [70]],
        hands=[[17], [80]],
        totals=[total0, 3],
        round=round,
    )


def test_exactly_66_ends_the_game():
    game = limit_game(60, Options(players=2))
    events = play_turn(game, {0: 17, 1: 80})
    result = GameResult((66, 3), (2, 1), (1,))
    assert events[-2:] == [RoundScored(2, (6, 0), (66, 3)), GameOver(result)]
    assert game.is_over and game.result == result and game.view(None).result == result


def test_more_than_66_ends_the_game():
    game = limit_game(65, Options(players=2))
    play_turn(game, {0: 17, 1: 80})
    assert game.is_over and game.totals == (71, 3)


def test_65_does_not_end_the_game():
    game = limit_game(59, Options(players=2))
    events = play_turn(game, {0: 17, 1: 80})
    assert events[-2:] == [RoundScored(2, (6, 0), (65, 3)), RoundStarted(3)]
    assert not game.is_over and game.result is None
    assert game.pending == AwaitingDeal(3, rows_only=False)


def test_other_point_limit():
    game = limit_game(4, Options(players=2, point_limit=10))
    play_turn(game, {0: 17, 1: 80})
    assert game.is_over
    game = limit_game(3, Options(players=2, point_limit=10))
    play_turn(game, {0: 17, 1: 80})
    assert not game.is_over


def test_fixed_number_of_rounds_ignores_points():
    game = limit_game(0, Options(players=2, point_limit=None, rounds=3), round=2)
    play_turn(game, {0: 17, 1: 80})
    assert not game.is_over and game.round == 3
    game = limit_game(500, Options(players=2, point_limit=None, rounds=10), round=9)
    play_turn(game, {0: 17, 1: 80})
    assert not game.is_over  # 506 bullheads, but no point limit
    game = limit_game(0, Options(players=2, point_limit=None, rounds=2), round=2)
    play_turn(game, {0: 17, 1: 80})
    assert game.is_over and game.result.totals == (6, 3)


def test_both_end_rules_first_reached_ends():
    both = Options(players=2, point_limit=66, rounds=3)
    game = limit_game(60, both, round=2)  # the point limit comes first
    play_turn(game, {0: 17, 1: 80})
    assert game.is_over and game.round == 2
    game = limit_game(0, both, round=3)  # the rounds come first
    play_turn(game, {0: 17, 1: 80})
    assert game.is_over and game.totals == (6, 3)
    game = limit_game(0, both, round=2)  # neither yet
    play_turn(game, {0: 17, 1: 80})
    assert not game.is_over


@pytest.mark.parametrize(
    "options, rounds",
    [
        (Options(players=4, point_limit=None, rounds=2), 2),
        (Options(players=3, point_limit=None, rounds=1), 1),
    ],
)
def test_seeded_game_plays_exactly_the_rounds(options, rounds):
    game = Game(options, seed=3)
    events = play_out(game)
    scored = [e for e in events if isinstance(e, RoundScored)]
    assert [e.round for e in scored] == list(range(1, rounds + 1))
    assert sum(isinstance(e, TurnStarted) for e in events) == 10 * rounds
    assert isinstance(events[-1], GameOver)


def test_seeded_game_to_66_ends_after_the_round_reaching_it():
    game = Game(Options(players=4), seed=11)
    events = play_out(game)
    scored = [e for e in events if isinstance(e, RoundScored)]
    assert all(max(e.totals) < 66 for e in scored[:-1])
    assert max(scored[-1].totals) >= 66
    assert events[-1] == GameOver(GameResult.from_totals(scored[-1].totals))
    assert game.totals == scored[-1].totals


@pytest.mark.parametrize(
    "totals, places, winners",
    [
        ((5, 3, 5, 3), (3, 1, 3, 1), (1, 3)),
        ((7, 7, 7), (1, 1, 1), (0, 1, 2)),
        ((1, 2, 2, 9), (1, 2, 2, 4), (0,)),
    ],
)
def test_equal_totals_share_a_place(totals, places, winners):
    n = len(totals)
    game = Game.from_position(
        Options(players=n, rounds=2),
        rows=[[10], [20], [30], [40]],
        hands=[[41 + s] for s in range(n)],
        totals=totals,
        round=2,
    )
    events = play_turn(game, {s: 41 + s for s in range(n)})
    assert events[-1] == GameOver(GameResult(totals, places, winners))
    assert game.result.places == places and game.result.winners == winners


# ----------------------------------------------------------------- chance


def full_deal(players: int, deck=FULL_DECK) -> Deal:
    cards = list(deck)
    hands = tuple(tuple(cards[s * 10 : s * 10 + 10]) for s in range(players))
    return Deal(rows=tuple(cards[players * 10 : players * 10 + 4]), hands=hands)


def test_game_without_rng_waits_for_deal():
    game = Game(Options(players=3))
    assert game.opening_events == (RoundStarted(1),)
    assert game.phase is Phase.DEAL
    assert game.pending == AwaitingDeal(1, rows_only=False)
    assert game.pending.seats == frozenset()
    assert game.view(0).hand == () and game.rows == ()
    assert all(game.legal_decisions(s) == () for s in range(3))
    assert_refused(game, Commit(0, 1), WrongPhase)
    before = snapshot(game)
    with pytest.raises(WrongPhase):
        game.deal()  # no random source
    assert snapshot(game) == before
    deal = Deal(
        rows=(40, 3, 77, 104),
        hands=((10, 9) + tuple(range(11, 19)), tuple(range(20, 30)), tuple(range(30, 40))),
    )
    events = game.deal(deal)
    assert events == [
        HandDealt(0, tuple(range(9, 19))),  # sorted
        HandDealt(1, tuple(range(20, 30))),
        HandDealt(2, tuple(range(30, 40))),
        RowsDealt((40, 3, 77, 104)),
        TurnStarted(1, 1),
    ]
    assert [e.visible_to for e in events] == [0, 1, 2, None, None]
    assert events_for(events, 1) == [
        HandDealt(1, tuple(range(20, 30))),
        RowsDealt((40, 3, 77, 104)),
        TurnStarted(1, 1),
    ]
    assert game.rows == ((40,), (3,), (77,), (104,))
    assert game.view(0).hand == tuple(range(9, 19))
    assert game.pending == AwaitingCommits(1, 1, frozenset({0, 1, 2}), frozenset())
    assert game.history == [deal]


def _bad_deals():
    good = full_deal(3)
    h = good.hands
    return [
        ("duplicate in hands", Deal(good.rows, (h[0], h[1][:9] + (h[0][0],), h[2]))),
        ("duplicate hand/row", Deal((h[0][0],) + good.rows[1:], h)),
        ("duplicate rows", Deal((good.rows[0],) * 4, h)),
        ("3 rows", Deal(good.rows[:3], h)),
        ("5 rows", Deal(good.rows + (100,), h)),
        ("2 hands", Deal(good.rows, h[:2])),
        ("4 hands", Deal(good.rows, h + (tuple(range(60, 70)),))),
        ("9 cards each", Deal(good.rows, tuple(x[:9] for x in h))),
        ("3 cards each", Deal(good.rows, tuple(x[:3] for x in h))),
        ("11 cards", Deal(good.rows, (h[0] + (99,), h[1], h[2]))),
        ("unequal", Deal(good.rows, (h[0][:9], h[1], h[2]))),
        ("card 0", Deal((0,) + good.rows[1:], h)),
        ("card 105", Deal(good.rows, ((105,) + h[0][1:], h[1], h[2]))),
        ("float", Deal(good.rows, ((1.0,) + h[0][1:], h[1], h[2]))),
        ("str", Deal(good.rows, (("1",) + h[0][1:], h[1], h[2]))),
        ("no hands", Deal(good.rows, None)),
    ]


@pytest.mark.parametrize("name, deal", _bad_deals(), ids=[n for n, _ in _bad_deals()])
def test_invalid_deal_changes_nothing(name, deal):
    game = Game(Options(players=3))
    before = snapshot(game)
    with pytest.raises(InvalidDeal):
        game.deal(deal)
    assert snapshot(game) == before
    game.deal(full_deal(3))  # still waiting for a valid one
    assert game.phase is Phase.COMMIT


def test_invalid_deal_outside_tactic_deck():
    options = Options(players=3, tactic_deck=True)
    game = Game(options)
    deal = full_deal(3, range(1, 35))
    bad = Deal(rows=deal.rows[:3] + (35,), hands=deal.hands)
    before = snapshot(game)
    with pytest.raises(InvalidDeal):
        game.deal(bad)
    assert snapshot(game) == before
    game.deal(deal)
    assert game.rows == ((31,), (32,), (33,), (34,))


def _first_legal_run(game: Game, steps: int = 400) -> list:
    events = list(game.opening_events)
    for _ in range(steps):
        if game.is_over:
            break
        events.extend(simple_policy(game))
    return events


@pytest.mark.parametrize(
    "options",
    [
        Options(players=4, rounds=2),
        Options(players=5, draft=True, professional=True, tactic_deck=True, rounds=2),
    ],
)
def test_seeded_games_are_deterministic(options):
    a = _first_legal_run(Game(options, seed=42))
    b = _first_legal_run(Game(options, seed=42))
    c = _first_legal_run(Game(options, rng=random.Random(42)))
    assert a == b == c
    d = _first_legal_run(Game(options, seed=43))
    assert a != d


def test_history_replays_through_explicit_deals():
    options = Options(players=4, rounds=2)
    seeded = Game(options, seed=9)
    events = _first_legal_run(seeded)
    assert seeded.is_over
    replay = Game(options)
    replayed = list(replay.opening_events)
    for item in seeded.history:
        replayed.extend(replay.deal(item) if isinstance(item, Deal) else replay.apply(item))
    assert replayed == events
    assert replay.result == seeded.result


def test_a_view_says_who_played_each_card_revealed_this_round():
    """``View.plays``: this round's revealed (seat, card), turn by turn, lowest
    first, the same for every seat and a spectator; empty again in a new round."""
    game = Game(Options(players=3, rounds=2), seed=5)
    assert game.view(0).plays == ()
    expected: list[tuple[int, int]] = []
    for turn in range(1, 11):
        cards = [game.view(s).hand[-1] for s in range(3)]
        for seat, card in enumerate(cards):
            game.apply(Commit(seat, card))
        while game.view(0).phase is Phase.ROW_CHOICE or game.view(1).phase is Phase.ROW_CHOICE:
            seat = game.pending.seat
            game.apply(game.legal_decisions(seat)[0])
        expected += sorted(((s, c) for s, c in enumerate(cards)), key=lambda sc: sc[1])
        if turn < 10:
            assert game.view(0).plays == tuple(expected)
            assert game.view(2).plays == game.view(None).plays == tuple(expected)
    assert game.round == 2 and game.view(1).plays == ()
