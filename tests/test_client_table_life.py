"""Around the game, as a player notices it: the rules in the title, the clock (untimed
tables, the time bank's extra time), the score sheet, what is kept when the client
is run again, and replays (the server's spectator messages played on the board)."""

from __future__ import annotations

import json

from prompt_toolkit.data_structures import Size
from storage_helpers import play_game
from test_client_model import feed, seated_game, texts
from test_client_support import Clock, table, welcome
from test_client_tui import text_of
from test_client_watch import controller

from nimmt import protocol as P
from nimmt.client.keep import RESTART_LINE, TableKeeper
from nimmt.client.model import TableModel
from nimmt.client.replay import ReplayPlayer
from nimmt.client.tui import render, sheets
from nimmt.client.tui.layout import Screen
from nimmt.client.tui.state import FORM_FIELDS, CreateForm
from nimmt.engine import Options, record_from_game
from nimmt.server.records.replay import main as replay_main
from nimmt.server.records.replay import spectator_messages

NAMES = ["Ann", "Bob", "Cat", "Dan"]


def scored(m: TableModel, rnd: int, penalties: tuple[int, ...], totals: tuple[int, ...]) -> None:
    feed(m, P.RoundScored(round=rnd, penalties=penalties, totals=totals))


# ------------------------------------------------------------------ rules, clock
def test_the_title_says_the_rules_in_force_at_every_width() -> None:
    m = seated_game(professional=True, tactic_deck=True)
    c = controller(m)
    for width in (60, 80, 160):
        title = text_of(render.title_bar(c, width))
        assert len(title) <= width, title
        assert "pro · tactic · 66" in title and "turn 1/10" in title
    m2 = seated_game(draft=True, point_limit=None, rounds=3)
    assert "draft · 3 rounds" in text_of(render.title_bar(controller(m2), 80))


def test_the_help_explains_the_variants_of_this_table_first() -> None:
    c = controller(seated_game(professional=True, time_bank=60.0))
    lines = sheets.help_lines(c, 60)
    first = " ".join(" ".join(line.split()) for line in lines[:8])
    assert "This table: Professional rows." in first
    assert "✓ Professional rows: a card may also go before a row's first card" in first
    assert "Time bank: 60 s of extra time" in " ".join(" ".join(x.split()) for x in lines)


def test_an_untimed_table_shows_no_clock() -> None:
    m = seated_game(turn_time=3600.0, choice_time=3600.0, draft_time=3600.0)
    c = controller(m)
    assert m.untimed and "untimed" in text_of(render.title_bar(c, 80))
    assert "⏱" not in text_of(render.prompt_line(c, m.clock()))
    assert "⏱" in text_of(render.prompt_line(controller(seated_game()), 0.0))


def test_the_time_bank_warning_is_shown_as_extra_time() -> None:
    clock = Clock()
    m = seated_game(clock, time_bank=40.0)
    c = controller(m, clock)
    clock.now += 30.0  # the turn's 30 s are up: the server says how long the bank lasts
    feed(m, P.DeadlineWarning(kind="commit", round=1, turn=1, pick=0, deadline=1e9 + 40,
                              remaining=40.0))
    assert m.extra_time and m.hurry
    assert texts(m)[-1] == ("Your time is up: 40 seconds of extra time (your time bank) "
                            "to play a card.")
    assert "⏱ extra 0:40" in text_of(render.prompt_line(c, clock.now))


def test_the_form_sets_the_time_bank_and_untimed_tables() -> None:
    form = CreateForm()
    assert form.fill_level == "hard" and form.options().time_bank == 60.0
    form.values["turn_time"] = 3600.0
    form.values["fill"] = False
    opts = form.options()
    assert (opts.turn_time, opts.choice_time, opts.draft_time) == (3600.0,) * 3
    assert form.fill_level is None
    assert not opts.rated  # a casual table unless the form says Rated
    form.values["rated"] = True
    assert form.options().rated


def test_the_form_at_60x20_keeps_the_option_under_the_cursor_and_its_help_on_screen() -> None:
    c = controller(TableModel())
    screen = Screen(c)
    screen.size = lambda: Size(rows=20, columns=60)
    c.open_form()
    assert c.ui.form is not None
    scrolled = False
    for cursor, field in enumerate(FORM_FIELDS):
        c.ui.form.cursor = cursor
        text = text_of(screen._lobby_text())
        # 20 lines less the title, the frame and the keys line
        assert len(text.splitlines()) <= 20 - 4, (field.key, text)
        assert f"▶ {field.label}" in text and field.help.split()[-1] in text
        missing = [f.label for f in FORM_FIELDS if f.label not in text]
        if missing:  # a long help: the options scroll, an arrow says more are there
            scrolled = True
            assert "↑ " in text or "↓ " in text
    assert scrolled  # (Rated's help takes three lines at 60 columns)
    wide = Screen(c)
    wide.size = lambda: Size(rows=40, columns=100)
    every = text_of(wide._lobby_text())  # room for every option: nothing scrolls
    assert all(f.label in every for f in FORM_FIELDS)
    assert "↑ " not in every and "↓ " not in every


# ------------------------------------------------------------------ score sheet
def test_the_score_sheet_lists_each_round_per_seat_and_the_totals() -> None:
    m = seated_game()
    c = controller(m)
    scored(m, 1, (1, 6, 0, 0), (1, 6, 0, 0))
    feed(m, P.RoundStarted(round=2))
    scored(m, 2, (10, 0, 3, 0), (11, 6, 3, 0))
    sheet = text_of(sheets.score_lines(c, 58)).splitlines()
    assert sheet[0].split() == ["R1", "R2", "total"]
    assert sheet[1].split() == ["▶", "you", "1", "10", "11"]
    assert sheet[2].split() == ["Bob", "6", "0", "6"]
    feed(m, P.GameOver(totals=(11, 6, 3, 0), places=(4, 3, 2, 1), winners=(3,)))
    final = text_of(sheets.score_lines(c, 58)).splitlines()
    assert final[1].split()[:3] == ["1.", "Dan", "0"]  # best first once the game is over


def test_the_sheet_opens_at_a_round_end_and_closes_when_the_next_round_is_played() -> None:
    m = seated_game()
    c = controller(m)
    c.on_message(P.RoundScored(round=1, penalties=(1, 6, 0, 0), totals=(1, 6, 0, 0)))
    assert c.ui.sheet_open
    c.on_message(P.RoundStarted(round=2))
    c.on_message(P.HandDealt(cards=(3, 14, 21)))
    c.on_message(P.TurnStarted(round=2, turn=1, deadline=1e9, remaining=30.0))
    assert c.ui.sheet_open  # still there to be read ...

    async def commit() -> None:
        c.enter()
    import asyncio
    asyncio.run(commit())
    assert not c.ui.sheet_open  # ... until you play on
    c.toggle_sheet()  # t: any time
    assert c.ui.sheet_open
    c.close_overlay()
    assert not c.ui.sheet_open


def test_the_help_at_60x20_keeps_its_last_line_and_scrolls() -> None:
    c = controller(seated_game())
    screen = Screen(c)
    screen.size = lambda: Size(rows=20, columns=60)
    c.toggle_help()
    height = screen.help_body_height()
    assert height <= 20 - 6
    assert "? or Esc closes" in text_of(screen._help_foot())
    first = text_of(screen._help_body())
    c.vertical(+height)
    assert text_of(screen._help_body()) != first
    keys = text_of(render.keys_line(c, 60))
    assert " c  chat" in keys and "?  help" in keys


# ------------------------------------------------------------------ kept between runs
def test_the_log_sheet_and_ranking_come_back_in_the_next_run(tmp_path) -> None:
    m = seated_game()
    feed(m, P.ChatMessage(name="Bob", seat=1, text="good luck"))
    scored(m, 1, (1, 6, 0, 0), (1, 6, 0, 0))
    feed(m, P.GameOver(totals=(1, 6, 0, 0), places=(3, 4, 1, 1), winners=(2, 3)))
    tmp_path.chmod(0o755)  # a state folder another program made readable to all
    keeper = TableKeeper(tmp_path, "box", 6066, "Ann")
    keeper.save(m)
    assert keeper.path.stat().st_mode & 0o777 == 0o600
    assert tmp_path.stat().st_mode & 0o777 == 0o700  # as the session tokens' folder

    again = TableModel(Clock())
    assert TableKeeper(tmp_path, "box", 6066, "Ann").restore(again)
    over = table(NAMES, status="over")
    over = P.TableInfo(table_id="t1", name="", options=over.options,
                       seats=tuple(P.SeatInfo(name=s.name, kind=s.kind, connected=True,
                                              total=t, penalties=0)
                                   for s, t in zip(over.seats, (1, 6, 0, 0), strict=True)),
                       host=0, status="over", spectators=0)
    feed(again, welcome(resumed=True), P.Seated(table=over, seat=0))
    said = texts(again)
    assert "<Bob> good luck" in said and RESTART_LINE in said
    assert said.index("<Bob> good luck") < said.index(RESTART_LINE)
    assert again.result is not None and again.result.winners == (2, 3)
    assert [r.round for r in again.scores] == [1]
    assert "final ranking" in text_of(render.rows_panel(controller(again), 80))
    # another name, or another table: the log only, no sheet
    assert not TableKeeper(tmp_path, "box", 6066, "Zoe").restore(TableModel())
    other = TableModel(Clock())
    TableKeeper(tmp_path, "box", 6066, "Ann").restore(other)
    feed(other, welcome(), P.Seated(table=table(NAMES, table_id="t9"), seat=0))
    assert other.scores == [] and other.result is None


def test_two_names_on_one_server_keep_their_own_logs(tmp_path) -> None:
    ann, bob = TableModel(), TableModel()
    ann._say("<Ann> mine", "chat")
    bob._say("<Bob> mine", "chat")
    TableKeeper(tmp_path, "box", 6066, "Ann").save(ann)
    TableKeeper(tmp_path, "box", 6066, "Bob").save(bob)  # does not overwrite Ann's
    TableKeeper(tmp_path, "box", 6066, "Ann B").save(TableModel())
    TableKeeper(tmp_path, "box", 6066, "Ann_B").save(TableModel())
    assert len(list(tmp_path.glob("table-box-6066-*.json"))) == 4
    for name in ("Ann", "Bob"):
        again = TableModel()
        assert TableKeeper(tmp_path, "box", 6066, name).restore(again)
        assert [line.text for line in again.log] == [f"<{name}> mine", RESTART_LINE]


def test_a_file_kept_before_names_were_in_file_names_is_read_once_by_its_name(
        tmp_path) -> None:
    (tmp_path / "table-box-6066.json").write_text(
        '{"version": 1, "name": "Ann", "table_id": null, "log": [["<Ann> old", "chat"]], '
        '"scores": [], "result": null}')
    assert not TableKeeper(tmp_path, "box", 6066, "Bob").restore(TableModel())
    again = TableModel()
    assert TableKeeper(tmp_path, "box", 6066, "Ann").restore(again)
    assert [line.text for line in again.log] == ["<Ann> old", RESTART_LINE]


def test_a_broken_kept_file_is_ignored(tmp_path) -> None:
    keeper = TableKeeper(tmp_path, "box", 6066, "Ann")
    keeper.path.write_text("{not json")
    m = TableModel()
    assert not keeper.restore(m) and m.log == [] and keeper.last_error


# ------------------------------------------------------------------ replays
def _record(options: Options, seed: int = 5):
    game, _ = play_game(options, seed)
    return game, record_from_game(game, seats=["Ann", "Bob", "Cat"][: options.players])


def test_a_game_replayed_as_a_spectator_saw_it_ends_with_its_totals() -> None:
    for options in (Options(players=3, rounds=2), Options(players=2, rounds=1, draft=True,
                                                          professional=True)):
        game, record = _record(options)
        wire = [{**m.to_wire(), "seq": i} for i, m in
                enumerate(spectator_messages(record), 1)]
        messages = [P.decode_message(json.loads(json.dumps(w)), P.SERVER) for w in wire]
        player = ReplayPlayer(messages)
        player.go(len(player.steps) - 1)
        m = player.model
        assert m.phase == "over" and m.result is not None
        assert m.result.totals == game.result.totals
        assert len(m.scores) == game.round
        assert not any(isinstance(x, P.HandDealt) for x in messages)  # nobody's hand


def test_a_replay_steps_forwards_and_back_to_the_same_board() -> None:
    _, record = _record(Options(players=3, rounds=1))
    player = ReplayPlayer(spectator_messages(record))
    seen = []
    for _ in range(12):
        player.step(+1)
        seen.append((player.position, [list(r) for r in player.model.rows], player.model.turn))
    for position, rows, turn in reversed(seen[:-1]):
        player.step(-1)
        assert (player.position, player.model.rows, player.model.turn) == (position, rows, turn)
    player.go(len(player.steps) - 1)
    assert player.at_end and not player.playing
    player.toggle()  # at the end, play starts again from the start
    assert player.position == 0 and player.playing
    player.faster(+1)
    assert player.speed == 2.0


def test_a_replay_jumps_round_by_round_to_each_rows_dealt() -> None:
    _, record = _record(Options(players=3, rounds=2))
    player = ReplayPlayer(spectator_messages(record))
    # (a round's rows and its first turn_started are one step)
    dealt = [k for k, end in enumerate(player.steps)
             if [m.TYPE for m in player.messages[end - 2:end]] == ["rows_dealt", "turn_started"]]
    assert len(dealt) == 2
    assert player.position == dealt[0]  # a replay opens on round 1's rows
    first_rows = [list(r) for r in player.model.rows]
    landed = []
    for _ in range(3):
        player.round_step(+1)
        landed.append(player.position)
    assert landed == [dealt[1], len(player.steps) - 1, len(player.steps) - 1]  # round 2, the end
    player.round_step(-1)
    assert player.position == dealt[1] and player.model.round == 2
    assert [list(r) for r in player.model.rows] != first_rows
    player.round_step(-1)
    assert player.position == dealt[0] and player.model.round == 1
    assert [list(r) for r in player.model.rows] == first_rows


def test_the_spectator_command_reads_a_record_file(tmp_path, capsys) -> None:
    _, record = _record(Options(players=2, rounds=1))
    path = tmp_path / "game.json"
    path.write_text(record.to_json())
    assert replay_main(["--spectator", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = json.loads(lines[0])
    assert first["type"] == "watching" and first["seq"] == 1
    assert json.loads(lines[-1])["type"] == "game_over"
    assert replay_main(["--spectator", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_spectator_command_reads_a_servers_database(tmp_path, capsys) -> None:
    from nimmt.server.storage import Store

    game, record = _record(Options(players=3, rounds=1))
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        table_id = store.next_table_id()
        store.create_table(table_id, "Friday", {}, {})
        game_id = store.finish_game(table_id, "Friday", 1, record, ["human"] * 3,
                                    started=1_000_000.0, ended=1_000_900.0)
    assert replay_main(["--spectator", "--db", str(path), str(game_id)]) == 0
    lines = capsys.readouterr().out.splitlines()
    watching = json.loads(lines[0])
    assert watching["table"]["name"] == "Friday, game 1"
    assert json.loads(lines[-1])["totals"] == list(game.result.totals)
    assert replay_main(["--spectator", "--db", str(path), "99"]) == 1
    assert "--list shows them" in capsys.readouterr().err
    assert replay_main(["--spectator", "--db", str(path), "seven"]) == 2


def test_the_client_says_in_one_line_why_a_replay_cannot_be_shown(tmp_path) -> None:
    import pytest

    from nimmt.client.replay import ReplayError, load_replay

    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nothing like a record"}')
    with pytest.raises(ReplayError) as caught:
        load_replay(str(bad))
    assert "\n" not in str(caught.value) and "bad.json" in str(caught.value)


# ------------------------------------------------------------------ smaller things
def test_text_wraps_at_word_boundaries() -> None:
    m = seated_game()
    c = controller(m)
    feed(m, P.ChatMessage(name="Bob", seat=1, text="supercalifragilistic " * 3 + "end"))
    lines = text_of(render.log_lines(c, 30)).splitlines()
    assert all(len(line) <= 30 for line in lines)
    assert lines[-3:] == [" <Bob> supercalifragilistic", "   supercalifragilistic",
                          "   supercalifragilistic end"]  # no word cut in two
    c.status("The server refused: card 3 is not in your hand. Pick a card from your hand.")
    status = text_of(render.status_line(c, 40)).splitlines()
    assert len(status) == 2 and all(len(line) <= 40 for line in status)
    assert not any(line.endswith(("Pic", "ca")) for line in status)


def test_a_window_too_small_still_shows_your_turn_and_the_clock() -> None:
    clock = Clock()
    m = seated_game(clock)
    c = controller(m, clock)
    small = text_of(render.too_small(c, 40, 12))
    assert "Your turn!" in small and "⏱ 0:30" in small
    assert all(len(line) <= 40 for line in small.splitlines())
    c.model.apply(P.CommitAccepted(round=1, turn=1, card=3, re=1))
    assert "Your turn" not in text_of(render.too_small(c, 40, 12))


def test_the_lobby_fits_80_columns_and_a_spectator_is_offered_only_what_it_can_do() -> None:
    from nimmt.client.tui.controller import Controller, StartPlan
    from test_client_watch import Recorder

    many = [f"Player {i}" for i in range(10)]
    m = feed(TableModel(), welcome(), P.TableList(tables=(
        table(many, table_id="kqzd1234", name="A very long table name indeed", draft=True,
              professional=True, tactic_deck=True, countdown=True),)))
    c = controller(m)
    for width in (58, 78):
        lines = text_of(render.lobby_panel(c, width)).splitlines()
        assert all(len(line) <= width for line in lines), lines
        assert "more" in lines[1] or "seated" in lines[1]  # abbreviated on purpose
    watcher = Controller(m, Recorder(), plan=StartPlan(spectator=True), clock=Clock())
    keys = text_of(render.keys_line(watcher, 80))
    assert "Enter  watch" in keys and "new table" not in keys and "join" not in keys
    watcher.open_form()
    assert watcher.ui.form is None


def test_the_row_choice_bar_lists_what_each_row_costs_without_breaking_one() -> None:
    m = seated_game()
    c = controller(m)
    feed(m, P.RowChoiceNeeded(seat=0, card=3, deadline=1e9, remaining=20.0),
         P.RowChoiceRequest(round=1, turn=1, card=3, rows=(0, 1, 2, 3), deadline=1e9,
                            remaining=20.0))
    for width in (60, 80, 160):
        bar = text_of(render.prompt_line(c, m.clock(), width)).replace("\u00a0", " ")
        assert "1: 1 bullhead · 2: 1 bullhead · 3: 1 bullhead · 4: 1 bullhead" in \
            bar.replace("\n", " ").replace("  ", " ")
        assert all(len(line) <= width for line in bar.splitlines())
        assert not any(line.rstrip().endswith((":", "1")) for line in bar.splitlines()[:-1])


def test_a_quit_question_is_not_pushed_away_by_the_next_message() -> None:
    import asyncio

    clock = Clock()
    m = seated_game(clock)
    c = controller(m, clock)
    asyncio.run(_press(c.quit))
    assert "Quit?" in text_of(render.status_line(c))
    m.answered(m.decision)  # our commit, confirmed while the question is up
    c.on_message(P.CommitAccepted(round=1, turn=1, card=3, re=1))
    c.on_message(P.TurnStarted(round=1, turn=2, deadline=1e9, remaining=30.0))
    assert "Quit?" in text_of(render.status_line(c))
    clock.now += 4.0  # its 3 s are over: statuses come back
    c.on_message(P.CommitAccepted(round=1, turn=2, card=14, re=2))
    assert "Committed 14" in text_of(render.status_line(c))


async def _press(action) -> None:
    action()
