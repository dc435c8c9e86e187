"""RULES.md's worked example (from seeds/001), turn by turn, through the public API,
and the "34" example of seeds/003."""

from nimmt.engine import (
    AwaitingCommits,
    AwaitingDeal,
    AwaitingRowChoice,
    CardPlaced,
    CardsRevealed,
    ChooseRow,
    Commit,
    CommitAccepted,
    End,
    Game,
    GameOver,
    GameResult,
    Options,
    Phase,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowTaken,
    SeatCommitted,
    TurnStarted,
    events_for,
)

R = End.RIGHT

# Seat s plays HANDS[s][t] on turn t+1 of the example.
TURN_CARDS = [(14, 15, 44, 61), (21, 26, 30, 36), (3, 9, 68, 93)]
HANDS = [tuple(turn[s] for turn in TURN_CARDS) for s in range(4)]


def example_game() -> Game:
    return Game.from_position(
        Options(players=4, rounds=1), rows=[[12], [37], [43], [58]], hands=HANDS
    )


def commit_all(game: Game, cards: tuple[int, ...]) -> list:
    """Commit cards[s] for every seat s in seat order; return the last commit's events."""
    events = []
    for seat, card in enumerate(cards):
        events = game.apply(Commit(seat, card, round=game.round, turn=game.turn))
        if seat < 3:
            assert events == [CommitAccepted(seat, card), SeatCommitted(seat)]
    return events


def test_start_position():
    game = example_game()
    assert game.rows == ((12,), (37,), (43,), (58,))
    assert game.opening_events == (TurnStarted(1, 8),)
    assert game.pending == AwaitingCommits(1, 8, frozenset(range(4)), frozenset())
    for seat in range(4):
        assert game.view(seat).hand == tuple(sorted(HANDS[seat]))


def test_worked_example_turn_by_turn():
    game = example_game()

    # Turn 1: 14 and 15 after 12; 44 after 43; 61 after 58.
    events = commit_all(game, TURN_CARDS[0])
    assert events == [
        CommitAccepted(3, 61),
        SeatCommitted(3),
        CardsRevealed(((0, 14), (1, 15), (2, 44), (3, 61))),
        CardPlaced(0, 14, 0, R),
        CardPlaced(1, 15, 0, R),
        CardPlaced(2, 44, 2, R),
        CardPlaced(3, 61, 3, R),
        TurnStarted(1, 9),
    ]
    assert game.rows == ((12, 14, 15), (37,), (43, 44), (58, 61))
    assert game.view(None).penalties == (0, 0, 0, 0)

    # Turn 2: 21, 26 fill row 1; 30 is its sixth card: its player (seat 2) takes
    # 12 14 15 21 26 = 6 bullheads and 30 starts row 1; 36 goes after 30.
    events = commit_all(game, TURN_CARDS[1])
    assert events == [
        CommitAccepted(3, 36),
        SeatCommitted(3),
        CardsRevealed(((0, 21), (1, 26), (2, 30), (3, 36))),
        CardPlaced(0, 21, 0, R),
        CardPlaced(1, 26, 0, R),
        RowTaken(2, 0, (12, 14, 15, 21, 26), 6),
        CardPlaced(2, 30, 0, R),
        CardPlaced(3, 36, 0, R),
        TurnStarted(1, 10),
    ]
    assert game.rows == ((30, 36), (37,), (43, 44), (58, 61))
    assert game.view(None).penalties == (0, 0, 6, 0)

    # Turn 3: 3 fits no row: resolution waits for its player's row choice,
    # with every row offered and nothing of this turn placed yet.
    events = commit_all(game, TURN_CARDS[2])
    assert events == [
        CommitAccepted(3, 93),
        SeatCommitted(3),
        CardsRevealed(((0, 3), (1, 9), (2, 68), (3, 93))),
        RowChoiceNeeded(0, 3),
    ]
    assert game.phase is Phase.ROW_CHOICE
    assert game.pending == AwaitingRowChoice(0, 3)
    assert game.pending.seats == frozenset({0})
    assert game.legal_decisions(0) == tuple(ChooseRow(0, r) for r in range(4))
    for other in (1, 2, 3):
        assert game.legal_decisions(other) == ()
    assert game.rows == ((30, 36), (37,), (43, 44), (58, 61))
    view = game.view(0)
    assert view.revealed == ((0, 3), (1, 9), (2, 68), (3, 93))
    assert view.unresolved == ((0, 3), (1, 9), (2, 68), (3, 93))
    # The autopilot would also take row 2 (37: 1 bullhead, the cheapest).
    assert game.autopilot(0) == ChooseRow(0, 1)

    # It chooses row 2 (index 1) and takes 37 (1 bullhead); 3 starts row 2.
    # 9 after 3; 68 after 61; 93 after 68. That was the last card: the round is scored.
    events = game.apply(ChooseRow(0, 1))
    result = GameResult(totals=(1, 0, 6, 0), places=(3, 1, 4, 1), winners=(1, 3))
    assert events == [
        RowTaken(0, 1, (37,), 1),
        CardPlaced(0, 3, 1, R),
        CardPlaced(1, 9, 1, R),
        CardPlaced(2, 68, 3, R),
        CardPlaced(3, 93, 3, R),
        RoundScored(1, (1, 0, 6, 0), (1, 0, 6, 0)),
        GameOver(result),
    ]
    assert game.rows == ((30, 36), (3, 9), (43, 44), (58, 61, 68, 93))
    assert game.is_over and game.pending is None
    assert game.result == result
    assert game.totals == (1, 0, 6, 0)
    assert events_for(events, None) == events  # every event of the resolution is public
    assert game.history == [
        *(Commit(s, c) for s, c in enumerate(TURN_CARDS[0])),
        *(Commit(s, c) for s, c in enumerate(TURN_CARDS[1])),
        *(Commit(s, c) for s, c in enumerate(TURN_CARDS[2])),
        ChooseRow(0, 1),
    ]


def test_worked_example_continues_to_next_round_without_rng():
    """Under the default end rule (66) the round's end starts round 2, which waits for a deal."""
    game = Game.from_position(Options(players=4), rows=[[12], [37], [43], [58]], hands=HANDS)
    for cards in TURN_CARDS:
        commit_all(game, cards)
    events = game.apply(ChooseRow(0, 1))
    assert events[-2:] == [RoundScored(1, (1, 0, 6, 0), (1, 0, 6, 0)), RoundStarted(2)]
    assert not game.is_over
    assert game.phase is Phase.DEAL
    assert game.pending == AwaitingDeal(2, rows_only=False)
    assert game.round == 2
    assert game.totals == (1, 0, 6, 0)


def test_34_example_from_003():
    """A 34, with rows ending in 32, 41 and 30, goes after the 32."""
    game = Game.from_position(
        Options(players=2, rounds=1),
        rows=[[15, 17, 32], [41], [30], [90]],
        hands=[[34], [100]],
    )
    game.apply(Commit(0, 34))
    events = game.apply(Commit(1, 100))
    assert CardPlaced(0, 34, 0, R) in events
    assert game.rows == ((15, 17, 32, 34), (41,), (30,), (90, 100))
    assert game.totals == (0, 0)
