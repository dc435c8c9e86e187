"""TableModel: scripted message sequences in, the state a screen or a bot reads out."""

from __future__ import annotations

import pytest
from test_client_support import Clock, table, welcome

from nimmt import protocol as P
from nimmt.client import COMMIT, DRAFT, ROW, TIE, LinkLost, LinkRestored, TableModel

NAMES = ["Ann", "Bob", "Cat", "Dan"]
# Ann (seat 0, us) plays RULES.md's worked example with Bob, Cat and Dan.
ANN_HAND = (3, 14, 21, 50, 60, 70, 80, 90, 100, 104)


def feed(model: TableModel, *msgs: object) -> TableModel:
    for m in msgs:
        model.apply(m)  # type: ignore[arg-type]
    return model


def texts(model: TableModel) -> list[str]:
    return [line.text for line in model.log]


def seated_game(clock: Clock | None = None, **options: object) -> TableModel:
    """Ann seated at a full table, round 1 dealt, turn 1 started."""
    m = TableModel(clock or Clock())
    t = table(NAMES, **options)
    feed(m, welcome(), P.Seated(table=t, seat=0), P.RoundStarted(round=1),
         P.HandDealt(cards=ANN_HAND), P.RowsDealt(rows=((12,), (37,), (43,), (58,))),
         P.TurnStarted(round=1, turn=1, deadline=1e9, remaining=30.0))
    return m


def play_turn(m: TableModel, plays: list[tuple[int, int]]) -> None:
    for s, _ in plays:
        m.apply(P.SeatCommitted(seat=s))
    m.apply(P.Revealed(plays=tuple(sorted(plays, key=lambda p: p[1]))))


def test_lobby_follows_table_list_updates_and_closures() -> None:
    m = feed(TableModel(), welcome())
    assert m.phase == "lobby" and m.my_name == "Ann" and m.token is not None
    assert {"create_table", "join", "watch"} <= m.legal_actions()
    feed(m, P.TableList(tables=(table(["Bob", None], table_id="t2"),)))
    feed(m, P.TableUpdated(table=table(["Cat", None, None], table_id="t3")))
    assert [t.table_id for t in m.tables] == ["t3", "t2"]  # newest first
    feed(m, P.TableUpdated(table=table(["Bob", "Eve"], table_id="t2", status="playing")))
    assert m.tables[1].status == "playing"
    feed(m, P.TableClosed(table_id="t3"))
    assert [t.table_id for t in m.tables] == ["t2"]


def test_host_actions_depend_on_free_seats() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(["Ann", None, None]), seat=0))
    assert m.phase == "waiting" and m.is_host
    assert "add_bot" in m.legal_actions() and "start" not in m.legal_actions()
    full = table(["Ann", "Bot-1", "Bot-2"], bots=(1, 2))
    feed(m, P.TableUpdated(table=full))
    acts = m.legal_actions()
    assert {"start", "remove_bot"} <= acts and "add_bot" not in acts
    assert "Bot-1 sits down at seat 2." in texts(m)


def test_whole_game_of_the_worked_example() -> None:
    clock = Clock()
    m = seated_game(clock)
    assert m.phase == "commit" and (m.round, m.turn) == (1, 1)
    assert m.hand == list(ANN_HAND)
    assert m.rows == [[12], [37], [43], [58]]
    assert m.seconds_left() == 30.0
    clock.now += 12
    assert m.seconds_left() == 18.0

    d = m.decision
    assert d is not None and d.kind == COMMIT and d.committed is None
    assert d.answer(14) == P.Commit(round=1, turn=1, card=14)
    with pytest.raises(ValueError):
        d.answer(15)  # not in Ann's hand

    # turn 1: Ann commits 14, then replaces it, then back to 14
    feed(m, P.SeatCommitted(seat=1), P.CommitAccepted(round=1, turn=1, card=21),
         P.SeatCommitted(seat=0), P.CommitAccepted(round=1, turn=1, card=14))
    assert m.my_commit == 14 and m.committed == {0, 1}
    assert [s.committed for s in m.seats] == [True, True, False, False]
    assert m.decision is not None and m.decision.committed == 14  # may still replace
    feed(m, P.SeatCommitted(seat=2), P.SeatCommitted(seat=3),
         P.Revealed(plays=((0, 14), (1, 15), (2, 44), (3, 61))))
    assert m.phase == "resolve" and m.decision is None
    assert 14 not in m.hand and len(m.hand) == 9
    assert m.unresolved == [(0, 14), (1, 15), (2, 44), (3, 61)]
    feed(m, P.Placed(seat=0, card=14, row=0, end="right"))
    assert m.unresolved == [(1, 15), (2, 44), (3, 61)]
    feed(m, P.Placed(seat=1, card=15, row=0, end="right"),
         P.Placed(seat=2, card=44, row=2, end="right"),
         P.Placed(seat=3, card=61, row=3, end="right"))
    assert m.rows == [[12, 14, 15], [37], [43, 44], [58, 61]]
    assert m.unresolved == []
    assert "Your 14 goes after 12 in row 1." in texts(m)
    assert "Bob's 15 goes after 14 in row 1." in texts(m)
    assert "Turn 1: you 14, Bob 15, Cat 44, Dan 61." in texts(m)

    # turn 2: 30 is the sixth card of row 1: Bob takes it
    feed(m, P.TurnStarted(round=1, turn=2, deadline=1e9, remaining=30.0))
    assert m.committed == set() and m.my_commit is None
    play_turn(m, [(0, 21), (2, 26), (1, 30), (3, 36)])
    feed(m, P.Placed(seat=0, card=21, row=0, end="right"),
         P.Placed(seat=2, card=26, row=0, end="right"),
         P.RowTaken(seat=1, row=0, cards=(12, 14, 15, 21, 26), bullheads=6))
    assert m.rows[0] == [] and m.penalties == [0, 6, 0, 0]
    assert "Bob takes row 1: 12 14 15 21 26 (6 bullheads) — 30 is its sixth card." in texts(m)
    feed(m, P.Placed(seat=1, card=30, row=0, end="right"),
         P.Placed(seat=3, card=36, row=0, end="right"))
    assert m.rows == [[30, 36], [37], [43, 44], [58, 61]]
    assert "Bob's 30 starts row 1." in texts(m)

    # turn 3: Ann's 3 fits no row: she must choose
    feed(m, P.TurnStarted(round=1, turn=3, deadline=1e9, remaining=30.0))
    play_turn(m, [(0, 3), (2, 9), (1, 68), (3, 93)])
    feed(m, P.RowChoiceNeeded(seat=0, card=3, deadline=1e9, remaining=20.0))
    assert m.pending is not None and m.pending.mine and m.decision is None  # no request yet
    feed(m, P.RowChoiceRequest(round=1, turn=3, card=3, rows=(0, 1, 2, 3), deadline=1e9,
                               remaining=20.0))
    d = m.decision
    assert d is not None and d.kind == ROW and d.card == 3 and d.rows == (0, 1, 2, 3)
    assert "choose_row" in m.legal_actions()
    assert [m.row_cost(r) for r in range(4)] == [4, 1, 6, 2]  # 30³ 36¹ | 37 | 43 44⁵ | 58 61
    assert d.answer(1) == P.ChooseRow(round=1, turn=3, row=1)
    assert m.seats[0].deciding and not m.seats[1].deciding
    assert "Your 3 is lower than every row: choose the row to take (keys 1–4)." in texts(m)
    feed(m, P.RowTaken(seat=0, row=1, cards=(37,), bullheads=1),
         P.Placed(seat=0, card=3, row=1, end="right"))
    assert m.pending is None and m.penalties == [1, 6, 0, 0]
    assert "You take row 2: 37 (1 bullhead)." in texts(m)
    feed(m, P.Placed(seat=2, card=9, row=1, end="right"),
         P.Placed(seat=1, card=68, row=3, end="right"),
         P.Placed(seat=3, card=93, row=3, end="right"))
    assert m.rows == [[30, 36], [3, 9], [43, 44], [58, 61, 68, 93]]

    # the round and the game end
    feed(m, P.RoundScored(round=1, penalties=(1, 6, 0, 0), totals=(1, 66, 0, 0)))
    assert m.phase == "scored" and m.totals == [1, 66, 0, 0]
    assert m.last_round is not None and m.last_round.penalties == (1, 6, 0, 0)
    assert "Round 1 scored: you +1, Bob +6, Cat +0, Dan +0." in texts(m)
    feed(m, P.GameOver(totals=(1, 66, 0, 0), places=(3, 4, 1, 1), winners=(2, 3)))
    assert m.phase == "over" and not m.in_game
    assert m.result is not None and m.result.winners == (2, 3)
    assert texts(m)[-1] == "Game over: Cat and Dan share first place with 0 bullheads."
    assert m.decision is None


def warning(kind: str, round: int = 1, turn: int = 1, pick: int = 0,
            remaining: float = 5.0) -> P.DeadlineWarning:
    return P.DeadlineWarning(kind=kind, round=round, turn=turn, pick=pick, deadline=1e9,
                             remaining=remaining)


def test_a_deadline_warning_is_logged_and_makes_the_clock_hot_until_we_decide() -> None:
    clock = Clock()
    m = seated_game(clock)
    assert not m.hurry
    clock.now += 25.3  # our clock runs a little late: the warning's count wins
    feed(m, warning("commit", remaining=4.6))
    assert m.hurry and m.seconds_left() == pytest.approx(4.6)
    assert m.log[-1].kind == "warn"
    assert m.log[-1].text == ("5 seconds left to play a card — the autopilot plays one for "
                              "you after that.")
    feed(m, P.CommitAccepted(round=1, turn=1, card=14))
    assert not m.hurry  # decided (the commit may still be replaced, but nothing is due)
    feed(m, P.TurnStarted(round=1, turn=2, deadline=1e9, remaining=30.0))
    assert m.warning is None and not m.hurry

    # a warning that crossed our commit on the wire is moot: no line, no hot clock
    feed(m, P.CommitAccepted(round=1, turn=2, card=21))
    lines = len(m.log)
    feed(m, warning("commit", turn=2))
    assert not m.hurry and len(m.log) == lines
    # ... and so is one for another turn
    feed(m, P.TurnStarted(round=1, turn=3, deadline=1e9, remaining=30.0), warning("commit"))
    assert not m.hurry and len(m.log) == lines

    # a row choice
    play_turn(m, [(0, 3), (1, 40), (2, 50), (3, 60)])
    feed(m, P.RowChoiceNeeded(seat=0, card=3, deadline=1e9, remaining=20.0),
         P.RowChoiceRequest(round=1, turn=3, card=3, rows=(0, 1, 2, 3), deadline=1e9,
                            remaining=20.0),
         warning("row", turn=3))
    assert m.hurry and "the row you take" in m.log[-1].text
    feed(m, P.RowTaken(seat=0, row=1, cards=(37,), bullheads=1))
    assert not m.hurry


def test_a_paused_clock_stands_still_and_runs_on_from_the_server_s_count() -> None:
    clock = Clock()
    m = seated_game(clock)
    clock.now += 10.0
    feed(m, P.ClockPaused(paused=True, ends_in=600.0, deadline=1e9, remaining=20.0))
    assert m.seconds_left() == 20.0 and texts(m)[-1] == "The clock is paused while you read."
    clock.now += 300.0
    assert m.seconds_left() == 20.0  # the countdown stands still while paused
    feed(m, P.ClockPaused(paused=False, ends_in=0.0, deadline=1e9 + 300, remaining=19.5))
    assert m.seconds_left() == pytest.approx(19.5) and texts(m)[-1] == "The clock runs again."
    clock.now += 5.0
    assert m.seconds_left() == pytest.approx(14.5)


def test_a_draft_warning_and_a_spectator_that_should_never_get_one() -> None:
    m = TableModel(Clock())
    t = table(["Ann", "Bob"], draft=True, tactic_deck=True)
    feed(m, welcome(), P.Seated(table=t, seat=0), P.RoundStarted(round=1),
         P.DraftOpened(round=1, pool=tuple(range(1, 25)), first_picker=0),
         P.DraftPickNeeded(seat=0, round=1, pick=1, deadline=1e9, remaining=15.0),
         P.DraftPickRequest(round=1, pick=1, pool=tuple(range(1, 25)), deadline=1e9,
                            remaining=15.0),
         warning("draft", turn=0, pick=1, remaining=1.0))
    assert m.hurry and m.log[-1].text.startswith("1 second left to pick a card")
    feed(m, P.DraftPicked(seat=0, card=3))
    assert not m.hurry
    spectator = feed(TableModel(Clock()), welcome(), P.Watching(table=t), warning("commit"))
    assert not spectator.hurry and spectator.log[-1].kind == "info"


def test_someone_elses_row_choice_is_shown_but_not_ours_to_answer() -> None:
    m = seated_game()
    play_turn(m, [(1, 2), (0, 14), (2, 44), (3, 61)])
    feed(m, P.RowChoiceNeeded(seat=1, card=2, deadline=1e9, remaining=20.0))
    assert m.pending is not None and m.pending.seat == 1 and not m.pending.mine
    assert m.decision is None and "choose_row" not in m.legal_actions()
    assert m.seats[1].deciding
    assert "Bob's 2 is lower than every row: Bob chooses a row to take." in texts(m)
    feed(m, P.RowTaken(seat=1, row=3, cards=(58,), bullheads=1))
    assert m.pending is None


def test_draft_picks_build_the_hand() -> None:
    m = TableModel(Clock())
    t = table(["Ann", "Bob"], draft=True, tactic_deck=True)
    feed(m, welcome(), P.Seated(table=t, seat=0), P.RoundStarted(round=1))
    assert m.phase == "draft"
    pool = tuple(range(1, 25))
    feed(m, P.DraftOpened(round=1, pool=pool, first_picker=1))
    assert m.draft_pool == list(pool)
    feed(m, P.DraftPickNeeded(seat=1, round=1, pick=1, deadline=1e9, remaining=15.0))
    assert m.decision is None and m.pending is not None and m.pending.seat == 1
    feed(m, P.DraftPicked(seat=1, card=24))
    assert 24 not in m.draft_pool and m.draft_picks == [(1, 24)] and m.hand == []
    feed(m, P.DraftPickNeeded(seat=0, round=1, pick=2, deadline=1e9, remaining=15.0),
         P.DraftPickRequest(round=1, pick=2, pool=tuple(range(1, 24)), deadline=1e9,
                            remaining=15.0))
    d = m.decision
    assert d is not None and d.kind == DRAFT and d.cards == tuple(range(1, 24))
    assert d.answer(7) == P.DraftPick(round=1, pick=2, card=7)
    assert "draft_pick" in m.legal_actions()
    feed(m, P.DraftPicked(seat=0, card=7))
    assert m.hand == [7] and m.decision is None
    assert "You pick 7." in texts(m) and "Bob picks 24." in texts(m)
    feed(m, P.HandDealt(cards=(2, 7, 9, 11, 13, 15, 17, 19, 21, 23)),
         P.RowsDealt(rows=((1,), (3,), (5,), (6,))))
    assert m.hand[0] == 2 and m.phase == "deal"


def test_professional_tie_choice_and_a_card_before_a_row() -> None:
    m = seated_game(professional=True)
    play_turn(m, [(0, 14), (1, 40), (2, 50), (3, 60)])
    places = (P.Place(row=0, end="right"), P.Place(row=1, end="left"))
    feed(m, P.TieChoiceNeeded(seat=0, card=14, places=places, deadline=1e9, remaining=20.0),
         P.TieChoiceRequest(round=1, turn=1, card=14, places=places, deadline=1e9,
                            remaining=20.0))
    d = m.decision
    assert d is not None and d.kind == TIE and d.places == places
    assert d.answer(places[1]) == P.ChooseTie(round=1, turn=1, place=places[1])
    with pytest.raises(ValueError):
        d.answer(P.Place(row=3, end="left"))
    assert ("Your 14 may go after 12 in row 1 or before 37 in row 2: you choose (←/→, Enter)."
            in texts(m))
    feed(m, P.Placed(seat=0, card=14, row=1, end="left"))
    assert m.rows[1] == [14, 37] and m.pending is None
    assert "Your 14 goes before 37 in row 2." in texts(m)


def test_snapshot_rebuilds_a_turn_in_progress() -> None:
    clock = Clock()
    m = feed(TableModel(clock), welcome())
    snap = P.Snapshot(
        table=table(NAMES, status="playing"), seat=0, round=2, turn=4, phase="commit",
        hand=(5, 9, 70, 88), commit=70, rows=((10, 11), (30,), (44, 45, 46), (99,)),
        deadline=1e9, remaining=12.5, committed=(0, 2), revealed=(), draft_pool=(),
        draft_picks=(), pending=None)
    feed(m, P.Seated(table=snap.table, seat=0), snap)
    assert m.phase == "commit" and (m.round, m.turn) == (2, 4)
    assert m.hand == [5, 9, 70, 88] and m.my_commit == 70
    assert m.rows == [[10, 11], [30], [44, 45, 46], [99]]
    assert m.committed == {0, 2} and m.seconds_left() == 12.5
    d = m.decision
    assert d is not None and d.kind == COMMIT and d.committed == 70
    assert d.answer(9) == P.Commit(round=2, turn=4, card=9)
    assert "Table t1: the game is at round 2, turn 4." in texts(m)


def test_snapshot_during_our_row_choice_lets_us_answer() -> None:
    m = feed(TableModel(Clock()), welcome())
    pending = P.Pending(kind="row", seat=0, deadline=1e9, remaining=8.0, card=2,
                        rows=(0, 1, 2, 3))
    snap = P.Snapshot(
        table=table(NAMES, status="playing"), seat=0, round=1, turn=6, phase="resolve",
        hand=(50, 60, 70, 80), commit=None, rows=((10,), (20,), (30,), (40,)),
        deadline=None, remaining=None, committed=(0, 1, 2, 3),
        revealed=((0, 2), (1, 33), (3, 41)), draft_pool=(), draft_picks=(), pending=pending)
    feed(m, snap)
    assert m.phase == "resolve" and m.unresolved == [(0, 2), (1, 33), (3, 41)]
    d = m.decision
    assert d is not None and d.kind == ROW and d.card == 2
    assert d.answer(3) == P.ChooseRow(round=1, turn=6, row=3)
    assert m.seconds_left() == 8.0
    # the server repeats the request after the snapshot: nothing changes for us
    feed(m, P.RowChoiceRequest(round=1, turn=6, card=2, rows=(0, 1, 2, 3), deadline=1e9,
                               remaining=7.5))
    assert m.decision is not None and m.decision.answer(0).turn == 6  # type: ignore[attr-defined]


def test_spectator_snapshot_has_no_hand_and_no_decisions() -> None:
    m = feed(TableModel(Clock()), welcome())
    t = table(NAMES, status="playing")
    pending = P.Pending(kind="row", seat=2, deadline=1e9, remaining=8.0, card=2)
    snap = P.Snapshot(
        table=t, seat=None, round=1, turn=1, phase="resolve", hand=(), commit=None,
        rows=((10,), (20,), (30,), (40,)), deadline=None, remaining=None,
        committed=(0, 1, 2, 3), revealed=((2, 2),), draft_pool=(), draft_picks=(),
        pending=pending)
    feed(m, P.Watching(table=t), snap)
    assert m.watching and m.seat is None and m.hand == []
    assert m.decision is None and m.seats[2].deciding
    assert "choose_row" not in m.legal_actions()


def test_countdown_shows_points_left() -> None:
    m = seated_game(countdown=True, point_limit=66)
    feed(m, P.RoundScored(round=1, penalties=(10, 3, 0, 25), totals=(10, 3, 0, 25)))
    assert [m.display_total(s) for s in range(4)] == [56, 63, 66, 41]
    m2 = seated_game(point_limit=66)
    feed(m2, P.RoundScored(round=1, penalties=(10, 3, 0, 25), totals=(10, 3, 0, 25)))
    assert [m2.display_total(s) for s in range(4)] == [10, 3, 0, 25]


def test_presence_changes_and_errors_are_logged() -> None:
    m = seated_game()
    away = table(NAMES)
    seats = list(away.seats)
    seats[1] = P.SeatInfo(name="Bob", kind="human", connected=False, total=0, penalties=0)
    feed(m, P.TableUpdated(table=P.TableInfo(
        table_id="t1", name="", options=away.options, seats=tuple(seats), host=0,
        status="playing", spectators=0)))
    assert not m.seats[1].connected
    assert "Bob is away (the autopilot may play for them)." in texts(m)
    feed(m, P.Error(code="illegal_card", message="card 5 is not in your hand",
                    request="commit", field="card", seq=9, re=3))
    assert m.last_error is not None and m.last_error.code == "illegal_card"
    assert texts(m)[-1] == "Refused: card 5 is not in your hand. Pick a card from your hand."
    feed(m, P.ChatMessage(name="Bob", seat=1, text="gg"))
    assert m.log[-1].text == "<Bob> gg" and m.log[-1].kind == "chat"


def test_link_loss_and_an_expired_session() -> None:
    m = seated_game()
    assert m.decision is not None
    feed(m, LinkLost("the server closed the connection"))
    assert not m.online and m.decision is None
    feed(m, LinkRestored(welcome(resumed=True)))
    assert m.online and m.table is not None  # seat kept; seated + snapshot follow
    playing = table(NAMES, status="playing")
    feed(m, P.Seated(table=playing, seat=0))
    assert m.resyncing and m.decision is None  # not before the snapshot
    feed(m, P.Snapshot(table=playing, seat=0, round=1, turn=1, phase="commit", hand=(3, 14),
                       commit=None, rows=((12,), (37,), (43,), (58,)), deadline=1e9,
                       remaining=9.0, committed=(1,), revealed=(), draft_pool=(),
                       draft_picks=(), pending=None))
    d = m.decision
    assert d is not None and d.kind == COMMIT and d.cards == (3, 14)
    feed(m, LinkLost("gone"), LinkRestored(welcome(resumed=False, token="tok_new_0123456789")))
    assert m.table is None and m.phase == "lobby" and m.token == "tok_new_0123456789"
    assert any("no longer knows your session (it was probably restarted)" in t
               for t in texts(m))
    assert not any("expired" in t for t in texts(m))


def test_leaving_and_a_second_game_reset_the_table() -> None:
    m = seated_game()
    feed(m, P.RoundScored(round=1, penalties=(5, 0, 0, 70), totals=(5, 0, 0, 70)),
         P.GameOver(totals=(5, 0, 0, 70), places=(4, 1, 1, 3), winners=(1, 2)))
    assert m.phase == "over" and m.result is not None
    feed(m, P.RoundStarted(round=1))
    assert m.result is None and m.totals == [0, 0, 0, 0] and m.phase == "deal"
    feed(m, P.Left(table_id="t1", reason="left"))
    assert m.table is None and m.phase == "lobby" and m.hand == []
    assert texts(m)[-1] == "You left table t1."


def test_docstring_examples_of_the_client_hold() -> None:
    import doctest

    import nimmt.client.cards
    import nimmt.client.words

    for module in (nimmt.client.cards, nimmt.client.words):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0
