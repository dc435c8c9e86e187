"""Behaviours of ``server/game`` a fresh sample of mutants (issue 43, session 25, seed
25) showed nothing pinned: what the lobby lists for a waiting table's seats, and when
the table needs the match next. Sans-IO, on tests/test_match.py's ``Harness``."""

from __future__ import annotations

from nimmt import protocol as P

from test_match import ANN, BOB, Harness


def test_the_lobby_lists_a_waiting_table_s_seats_at_0_points_with_ratings_and_games():
    """Before a game: 0 points, 0 bullheads; a claimed player's rating and games as
    the ladder has them (an unclaimed name shows none, even if rated)."""
    h = Harness.new(seats=3)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    h.send(BOB, P.Join(table_id="t1", id=1))
    h.match.claimed_names = {"ann"}
    h.match.seat_ratings = {"ann": (31.5, 12), "bob": (20.0, 3)}
    info = h.match.info()
    assert info.status == "waiting"
    assert [(s.name, s.total, s.penalties, s.claimed, s.rating, s.games)
            for s in info.seats if s is not None] == [
        ("Ann", 0, 0, True, 31.5, 12), ("Bob", 0, 0, False, None, 0)]
    assert info.seats[2] is None


def test_a_table_restored_with_its_game_over_but_not_kept_asks_to_be_woken_at_once():
    """The restart's table task wakes it right away (``next_wake`` in the past): the
    game's last event goes out and the game is kept without waiting for any input."""
    from nimmt.engine import Options
    from nimmt.server.tables.restore import restore_match

    from storage_helpers import play_game
    from test_restore import stored

    game, facts = play_game(Options(players=3, rounds=2), seed=6)
    match, _ = restore_match(stored(facts), now=50.0, members=[1])
    assert match.next_wake() <= 50.0
    effects = match.wake(50.0, 900.0)
    assert effects.finished is not None and match.status == "over"


def test_a_kept_game_names_each_seat_s_kind_a_client_bot_a_built_in_bot_and_a_human():
    """The kinds kept with the game (the leaderboard and the ladder tell bots apart by
    them): a bot client's seat is "bot", not "human"."""
    from nimmt.server.game.io import Who

    rob = Who(7, "Rob", "bot")
    h = Harness.new(seats=3, rounds=1, turn_time=5.0)
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3, rounds=1), id=1))
    h.send(rob, P.Join(table_id="t1", id=1))
    h.send(ANN, P.AddBot(id=2))
    h.send(ANN, P.Start(id=3))
    h.run_until(1000.0)  # the deadlines pass: the autopilot plays for Ann and Rob
    (finished,) = h.finished
    assert finished.kinds == ("human", "bot", "builtin")
    assert list(finished.record.seats) == ["Ann", "Rob", h.match.seats[2].name]


def test_every_input_a_match_keeps_reads_back_from_its_plain_data_as_it_was():
    """``Match.to_data`` keeps the inputs that wait for the paced steps as JSON-able
    data: each kind reads back equal, a bot's answer too."""
    import json

    from nimmt.engine import ChooseRow, Commit
    from nimmt.server.game.data import input_from_data, input_to_data
    from nimmt.server.game.io import BotDecided, Disconnected, Greet, Reconnected, Request

    inputs = [Request(ANN, P.Commit(round=1, turn=2, card=33, id=4)),
              Disconnected(5, 12.5), Reconnected(5), Greet(6),
              BotDecided(1, ("commit", 1, 2), Commit(1, 44)),
              BotDecided(0, ("row", 1, 3), ChooseRow(0, 2))]
    assert [input_from_data(json.loads(json.dumps(input_to_data(i)))) for i in inputs] == inputs
