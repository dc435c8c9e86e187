"""The variants: Professional rows, Draft, Tactic deck (RULES.md, "Variants")."""

from __future__ import annotations

import pytest

from nimmt.engine import (
    BULLHEADS,
    AwaitingCommits,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
    CardNotInHand,
    CardPlaced,
    CardsRevealed,
    ChooseRow,
    ChooseTie,
    Commit,
    Deal,
    DraftOpened,
    DraftPick,
    DraftPicked,
    End,
    Game,
    GameOver,
    HandDealt,
    InvalidPosition,
    IllegalPlace,
    InvalidDeal,
    NotYourDecision,
    Options,
    Phase,
    Place,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    TieChoiceNeeded,
    TurnStarted,
    WrongPhase,
    events_for,
    places_for,
)

from engine_helpers import assert_refused, play_turn, snapshot

R, L = End.RIGHT, End.LEFT


def pro(players: int = 2, **kw) -> Options:
    return Options(players=players, professional=True, rounds=1, **kw)


# ----------------------------------------------------------------- Professional


def test_pro_card_lower_than_every_first_goes_left_of_closest():
    rows = [[12], [37], [43], [58]]
    assert places_for(rows, 3, professional=True) == (Place(0, L),)
    game = Game.from_position(pro(), rows=rows, hands=[[3], [90]])
    events = play_turn(game, {0: 3, 1: 90})
    assert RowChoiceNeeded(0, 3) not in events
    assert events[-4:-2] == [CardPlaced(0, 3, 0, L), CardPlaced(1, 90, 3, R)]
    assert game.rows == ((3, 12), (37,), (43,), (58, 90))
    assert game.totals == (0, 0)
    # The same position under the basic rules is a row choice.
    basic = Game.from_position(Options(players=2, rounds=1), rows=rows, hands=[[3], [90]])
    assert play_turn(basic, {0: 3, 1: 90})[-1] == RowChoiceNeeded(0, 3)


def test_pro_closest_end_wins_over_a_farther_right_end():
    rows = [[10], [30, 40], [60], [80]]
    # 29: right of 10 (19) or left of 30 (1): left of row 1.
    assert places_for(rows, 29, professional=True) == (Place(1, L),)
    # 45: right of 40 (5) beats left of 60 (15).
    assert places_for(rows, 45, professional=True) == (Place(1, R),)
    # 35 lies inside row 1 (30..40): right of 10 and left of 60 are both 25 away: a tie.
    assert places_for(rows, 35, professional=True) == (Place(0, R), Place(2, L))
    game = Game.from_position(pro(), rows=rows, hands=[[29], [45]])
    play_turn(game, {0: 29, 1: 45})
    assert game.rows == ((10,), (29, 30, 40, 45), (60,), (80,))


@pytest.mark.parametrize("choice", [Place(0, R), Place(1, L)])
def test_pro_tie_player_chooses(choice):
    rows = [[20], [30, 31], [40], [50]]
    game = Game.from_position(pro(), rows=rows, hands=[[25, 1], [60, 2]])
    events = play_turn(game, {0: 25, 1: 60})
    places = (Place(0, R), Place(1, L))
    assert events[-2:] == [CardsRevealed(((0, 25), (1, 60))), TieChoiceNeeded(0, 25, places)]
    assert game.phase is Phase.TIE_CHOICE
    assert game.pending == AwaitingTieChoice(0, 25, places)
    assert game.legal_decisions(0) == tuple(ChooseTie(0, p) for p in places)
    assert game.legal_decisions(1) == ()
    assert game.view(1).unresolved == ((0, 25), (1, 60))
    assert game.rows == tuple(tuple(r) for r in rows)  # paused before placing anything
    events = game.apply(ChooseTie(0, choice))
    assert events == [
        CardPlaced(0, 25, choice.row, choice.end),
        CardPlaced(1, 60, 3, R),
        TurnStarted(1, 10),
    ]
    expected = (
        ((20, 25), (30, 31), (40,), (50, 60))
        if choice.end is R
        else ((20,), (25, 30, 31), (40,), (50, 60))
    )
    assert game.rows == expected
    assert game.history[-1] == ChooseTie(0, choice)


def test_pro_tie_place_given_as_plain_string_still_goes_left():
    """End is a str enum: Place(1, "left") equals Place(1, End.LEFT) and must act like it."""
    game = Game.from_position(pro(), rows=[[20], [30, 31], [40], [50]], hands=[[25], [60]])
    play_turn(game, {0: 25, 1: 60})
    events = game.apply(ChooseTie(0, Place(1, "left")))
    assert events[0] == CardPlaced(0, 25, 1, L)
    assert events[0].end is L
    assert game.rows[1] == (25, 30, 31)


def test_pro_two_ties_in_one_turn_resolve_in_card_order():
    game = Game.from_position(pro(3), rows=[[20], [30, 31], [40], [50]], hands=[[25], [45], [99]])
    events = play_turn(game, {0: 25, 1: 45, 2: 99})
    assert events[-1] == TieChoiceNeeded(0, 25, (Place(0, R), Place(1, L)))
    events = game.apply(ChooseTie(0, Place(1, L)))
    assert events == [CardPlaced(0, 25, 1, L), TieChoiceNeeded(1, 45, (Place(2, R), Place(3, L)))]
    assert game.pending == AwaitingTieChoice(1, 45, (Place(2, R), Place(3, L)))
    assert_refused(game, ChooseTie(0, Place(2, R)), NotYourDecision)
    events = game.apply(ChooseTie(1, Place(3, L)))
    assert events[:2] == [CardPlaced(1, 45, 3, L), CardPlaced(2, 99, 3, R)]
    assert game.rows == ((20,), (25, 30, 31), (40,), (45, 50, 99))


def test_pro_tie_onto_a_full_row_takes_it():
    rows = [[20], [30, 31, 32, 33, 34], [70], [80]]
    game = Game.from_position(pro(), rows=rows, hands=[[25], [90]])
    play_turn(game, {0: 25, 1: 90})
    assert game.pending == AwaitingTieChoice(0, 25, (Place(0, R), Place(1, L)))
    events = game.apply(ChooseTie(0, Place(1, L)))
    assert events[:2] == [
        RowTaken(0, 1, (30, 31, 32, 33, 34), 3 + 1 + 1 + 5 + 1),
        CardPlaced(0, 25, 1, L),
    ]
    assert game.rows[1] == (25,)
    assert game.totals == (11, 0)


@pytest.mark.parametrize(
    "decision, error",
    [
        (ChooseTie(0, Place(2, R)), IllegalPlace),
        (ChooseTie(0, Place(0, L)), IllegalPlace),  # right row, wrong end
        (ChooseTie(0, Place(1, R)), IllegalPlace),
        (ChooseTie(0, Place(5, R)), IllegalPlace),
        (ChooseTie(0, (0, "right")), IllegalPlace),
        (ChooseTie(0, None), IllegalPlace),
        (ChooseTie(1, Place(0, R)), NotYourDecision),
        (ChooseTie(2, Place(0, R)), NotYourDecision),
        (ChooseRow(0, 0), WrongPhase),
        (Commit(0, 1), WrongPhase),
        (DraftPick(0, 5), WrongPhase),
    ],
)
def test_pro_illegal_tie_choices(decision, error):
    game = Game.from_position(pro(), rows=[[20], [30, 31], [40], [50]], hands=[[25, 1], [60, 2]])
    play_turn(game, {0: 25, 1: 60})
    assert_refused(game, decision, error)


@pytest.mark.parametrize(
    "rows, card, end",
    [
        ([[10, 11, 12, 13, 14], [50], [70], [90]], 15, R),
        ([[10, 11, 12, 13, 14], [50], [70], [90]], 9, L),
    ],
)
def test_pro_sixth_card_at_either_end(rows, card, end):
    game = Game.from_position(pro(), rows=rows, hands=[[card], [100]])
    events = play_turn(game, {0: card, 1: 100})
    assert RowTaken(0, 0, (10, 11, 12, 13, 14), 3 + 5 + 1 + 1 + 1) in events
    taken = events.index(RowTaken(0, 0, (10, 11, 12, 13, 14), 11))
    assert events[taken + 1] == CardPlaced(0, card, 0, end)
    assert game.rows[0] == (card,)
    assert game.totals == (11, 0)


def test_pro_fifth_card_at_left_end_does_not_take():
    game = Game.from_position(pro(), rows=[[10, 11, 12, 13], [50], [70], [90]], hands=[[9], [100]])
    play_turn(game, {0: 9, 1: 100})
    assert game.rows[0] == (9, 10, 11, 12, 13)
    assert game.totals == (0, 0)


def test_pro_mid_turn_row_choice_pauses_and_resumes():
    """5 goes left of row 0; 50 then fits no end of any row (not the lowest card);
    resolution waits for its row choice, then 95 is placed."""
    rows = [[10, 90], [20, 80], [30, 70], [41, 61]]
    game = Game.from_position(pro(3), rows=rows, hands=[[50, 1], [5, 2], [95, 3]])
    events = play_turn(game, {0: 50, 1: 5, 2: 95})
    assert events[-3:] == [
        CardsRevealed(((1, 5), (0, 50), (2, 95))),
        CardPlaced(1, 5, 0, L),
        RowChoiceNeeded(0, 50),
    ]
    assert game.phase is Phase.ROW_CHOICE
    assert game.pending == AwaitingRowChoice(0, 50)
    assert game.rows == ((5, 10, 90), (20, 80), (30, 70), (41, 61))
    assert game.view(2).unresolved == ((0, 50), (2, 95))
    assert game.legal_decisions(0) == tuple(ChooseRow(0, r) for r in range(4))
    assert game.legal_decisions(1) == game.legal_decisions(2) == ()
    assert_refused(game, ChooseRow(2, 0), NotYourDecision)
    assert_refused(game, Commit(2, 3), WrongPhase)
    assert game.autopilot(0) == ChooseRow(0, 3)  # 41 61: 2 bullheads, the cheapest
    events = game.apply(ChooseRow(0, 2))
    assert events == [
        RowTaken(0, 2, (30, 70), 6),
        CardPlaced(0, 50, 2, R),
        CardPlaced(2, 95, 0, R),
        TurnStarted(1, 10),
    ]
    assert game.rows == ((5, 10, 90, 95), (20, 80), (50,), (41, 61))
    assert game.view(0).penalties == (6, 0, 0)
    assert game.pending == AwaitingCommits(1, 10, frozenset({0, 1, 2}), frozenset())


# ----------------------------------------------------------------- Tactic deck


@pytest.mark.parametrize("players, top", [(2, 24), (3, 34), (4, 44), (9, 94), (10, 104)])
def test_tactic_deck_sizes(players, top):
    assert Options(players=players, tactic_deck=True).deck == tuple(range(1, top + 1))
    assert Options(players=players).deck == tuple(range(1, 105))


def test_tactic_deck_deal_uses_exactly_the_small_deck_and_same_bullheads():
    game = Game(Options(players=3, tactic_deck=True, rounds=1), seed=5)
    hands = [e.hand for e in game.opening_events if isinstance(e, HandDealt)]
    rows = next(e.rows for e in game.opening_events if isinstance(e, RowsDealt))
    dealt = [c for h in hands for c in h] + list(rows)
    assert sorted(dealt) == list(range(1, 35))
    assert [len(h) for h in hands] == [10, 10, 10]
    assert BULLHEADS[33] == 5 and BULLHEADS[30] == 3 and BULLHEADS[25] == 2


def test_tactic_deck_position_refuses_higher_cards():
    with pytest.raises(InvalidPosition):
        Game.from_position(
            Options(players=3, tactic_deck=True), rows=[[1], [2], [3], [35]], hands=[[4], [5], [6]]
        )


# ----------------------------------------------------------------- Draft


def run_draft(game: Game, first: int, pool: tuple[int, ...]) -> list:
    """Everyone picks the lowest card left; check order, publicity and pool on the way."""
    n = game.options.players
    picks = []
    events: list = []
    pool = list(pool)
    for k in range(10 * n):
        seat = (first + k) % n
        assert game.pending == AwaitingDraftPick(seat, game.round, k + 1)
        assert game.view(None).draft_pool == tuple(pool)
        assert game.legal_decisions(seat) == tuple(DraftPick(seat, c) for c in pool)
        for other in range(n):
            if other != seat:
                assert game.legal_decisions(other) == ()
                if k < 3:
                    assert_refused(game, DraftPick(other, pool[0]), NotYourDecision)
        card = pool.pop(0)
        events = game.apply(DraftPick(seat, card))
        assert events[0] == DraftPicked(seat, card)
        assert events_for(events, None)[0] == DraftPicked(seat, card)  # public
        picks.append((seat, card))
        assert game.view((seat + 1) % n).draft_picks == tuple(picks)
        assert card in game.view(seat).hand
    assert all(len(game.view(s).hand) == 10 for s in range(n))
    return events


def test_draft_order_moves_one_seat_each_round():
    options = Options(players=3, draft=True, tactic_deck=True, point_limit=None, rounds=4)
    game = Game(options, seed=8)
    assert game.opening_events == (RoundStarted(1), DraftOpened(tuple(range(1, 35)), 0))
    firsts = []
    for round in range(1, 5):
        assert game.round == round and game.phase is Phase.DRAFT
        first = game.pending.seat
        firsts.append(first)
        last = run_draft(game, first, tuple(range(1, 35)))
        # Tactic deck: exactly 4 cards left, and they start the rows.
        rows_dealt = next(e for e in last if isinstance(e, RowsDealt))
        assert sorted(rows_dealt.rows) == list(range(31, 35))
        assert game.phase is Phase.COMMIT and game.turn == 1
        for _ in range(10):
            events = []
            for seat in range(3):
                events += game.apply(game.legal_decisions(seat)[0])
            while game.phase in (Phase.ROW_CHOICE, Phase.TIE_CHOICE):
                (seat,) = game.pending.seats
                events += game.apply(game.autopilot(seat))
        assert isinstance(events[-3 if round < 4 else -2], RoundScored)
        if round < 4:
            assert events[-2:] == [
                RoundStarted(round + 1),
                DraftOpened(tuple(range(1, 35)), round % 3),
            ]
        else:
            assert isinstance(events[-1], GameOver)
    assert firsts == [0, 1, 2, 0]


def test_draft_full_deck_rows_drawn_from_leftovers_without_rng():
    options = Options(players=2, draft=True, rounds=1)
    game = Game(options)
    assert game.opening_events == (RoundStarted(1), DraftOpened(tuple(range(1, 105)), 0))
    assert game.pending == AwaitingDraftPick(0, 1, 1)
    before = snapshot(game)
    with pytest.raises(WrongPhase):
        game.deal(Deal(rows=(101, 102, 103, 104)))
    assert snapshot(game) == before
    # Seat 0 takes the odd cards, seat 1 the even ones, of 1..20.
    for k in range(20):
        seat, card = k % 2, k + 1
        events = game.apply(DraftPick(seat, card))
        assert events == [DraftPicked(seat, card)]
    assert game.view(0).hand == tuple(range(1, 21, 2))
    assert game.view(1).hand == tuple(range(2, 21, 2))
    assert game.phase is Phase.DEAL
    assert game.pending == AwaitingDeal(1, rows_only=True)
    for bad in (
        Deal(
            rows=(50, 60, 70, 80), hands=(tuple(range(21, 31)), tuple(range(31, 41)))
        ),  # hands in a draft
        Deal(rows=(1, 60, 70, 80)),  # a picked card
        Deal(rows=(50, 60, 70)),
        Deal(rows=(50, 50, 70, 80)),
        Deal(rows=(50, 60, 70, 105)),
    ):
        before = snapshot(game)
        with pytest.raises(InvalidDeal):
            game.deal(bad)
        assert snapshot(game) == before
    events = game.deal(Deal(rows=(50, 60, 70, 80)))
    assert events == [RowsDealt((50, 60, 70, 80)), TurnStarted(1, 1)]
    assert game.rows == ((50,), (60,), (70,), (80,))
    assert game.pending == AwaitingCommits(1, 1, frozenset({0, 1}), frozenset())


@pytest.mark.parametrize(
    "decision, error",
    [
        (DraftPick(1, 50), NotYourDecision),
        (DraftPick(2, 50), NotYourDecision),
        (DraftPick(0, 1), CardNotInHand),  # already picked
        (DraftPick(0, 105), CardNotInHand),
        (DraftPick(0, 50.0), CardNotInHand),
        (DraftPick(0, "50"), CardNotInHand),
        (Commit(0, 1), WrongPhase),
        (ChooseRow(0, 1), WrongPhase),
    ],
)
def test_draft_illegal_picks(decision, error):
    game = Game(Options(players=2, draft=True), seed=1)
    game.apply(DraftPick(0, 1))
    game.apply(DraftPick(1, 2))
    assert game.pending == AwaitingDraftPick(0, 1, 3)
    assert_refused(game, decision, error)


def test_draft_ten_players_full_deck_leaves_four():
    game = Game(Options(players=10, draft=True, rounds=1), seed=2)
    last = run_draft(game, 0, tuple(range(1, 105)))
    rows = next(e for e in last if isinstance(e, RowsDealt)).rows
    assert sorted(rows) == [101, 102, 103, 104]


def test_draft_with_rng_draws_rows_from_the_leftovers():
    game = Game(Options(players=2, draft=True, rounds=1), seed=4)
    last = run_draft(game, 0, tuple(range(1, 105)))
    rows = next(e for e in last if isinstance(e, RowsDealt)).rows
    assert len(set(rows)) == 4 and all(21 <= c <= 104 for c in rows)
    assert last[-1] == TurnStarted(1, 1)
    assert [len(r) for r in game.rows] == [1, 1, 1, 1]
