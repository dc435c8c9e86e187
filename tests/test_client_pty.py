"""``nimmt-client`` in a real pseudo-terminal against a real server with bots: keys in,
screen out (a tiny VT reader), at 80×24 and at 60×20; below the minimum only a
message shows and Enter plays nothing."""

from __future__ import annotations

import re
import sys

import pytest
from pty_helpers import PtyProcess, client_argv
from real_server import running_server

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a Unix pty")

HAND = re.compile(r"(?:\[|\s)(\d+)[¹²³⁵⁷]")


def _hand_size(text: str) -> int:
    """Cards in the hand line (the line under the decision bar)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "⏱" in line or "Placing" in line or "Waiting" in line:
            return len(HAND.findall(lines[i + 1])) if i + 1 < len(lines) else 0
    return -1


def _quit_in_game(client: PtyProcess) -> None:
    """q, the question, q again: the client ends normally."""
    client.type("q")
    client.wait_for(lambda t: "Quit?" in t, "the quit question")
    client.type("q")
    assert client.proc.wait(timeout=10) == 0


def _turn(text: str) -> int:
    m = re.search(r"turn (\d+)/10", text)
    return int(m.group(1)) if m else 0


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
def test_play_turns_with_keys_in_a_real_terminal(tmp_path, size: tuple[int, int]) -> None:
    columns, lines = size
    with running_server("--bots", "9" if columns == 60 else "3", "--seats",
                        "10" if columns == 60 else "4", "--step-delay", "0.05") as port:
        client = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Tess",
                                        "--state-dir", str(tmp_path)), columns, lines)
        try:
            lobby = client.wait_for(lambda t: "You against" in t, "the lobby's bot table")
            assert "lobby" in lobby.splitlines()[0]
            client.type("\r")  # join the selected table: its game starts at once
            screen = client.wait_for(lambda t: "Your move" in t, "the first turn")
            assert _turn(screen) == 1
            rows = [line for line in screen.splitlines() if re.match(r"\s*[1-4] │", line)]
            assert len(rows) == 4, screen  # the four rows are on screen
            assert _hand_size(screen) == 10, screen
            if columns == 60:  # ten players, all of them on the screen
                assert sum(("Bot " in line) for line in screen.splitlines()) >= 5
                assert all(f"Bot {n}" in screen for n in range(1, 10)), screen
            for turn in (1, 2, 3):
                client.wait_for(lambda t, n=turn: _turn(t) == n and "Your move" in t,
                                f"turn {turn}")
                client.type("\r")  # play the card under the cursor (the lowest)
                text = client.wait_for(
                    lambda t, n=turn: _turn(t) > n or "fits no row" in t,
                    f"the end of turn {turn}")
                if "fits no row" in text:
                    client.type("\r")  # take the cheapest row (the cursor starts there)
                    client.wait_for(lambda t, n=turn: _turn(t) > n, f"turn {turn + 1}")
            screen = client.wait_for(lambda t: "Your move" in t and _turn(t) == 4, "turn 4")
            assert _hand_size(screen) == 7, screen
            _quit_in_game(client)
        finally:
            client.close()
        saved = list(tmp_path.iterdir())  # the session token, and the log kept beside it
        assert sorted(p.name.split("-")[0] for p in saved) == ["session", "table"]
        assert all(p.stat().st_mode & 0o777 == 0o600 for p in saved)


def test_below_the_minimum_only_a_message_shows_and_enter_plays_nothing(tmp_path) -> None:
    with running_server("--bots", "3", "--step-delay", "0.05") as port:
        client = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Tess",
                                        "--state-dir", str(tmp_path)), 59, 20)
        try:
            text = client.wait_for(lambda t: "needs at least 60×20" in t, "the message")
            assert "│" not in text and "Hand" not in text  # no table, no hand
            client.type("\r\r")  # would join the table and play a card
            client.wait_for(lambda t: "that key did nothing" in t, "the keys to be refused")
            client.resize(80, 24)
            text = client.wait_for(lambda t: "You against" in t, "the lobby, larger")
            assert "lobby" in text.splitlines()[0]  # Enter did not sit down: still the lobby
            client.type("q")  # q still quits
            assert client.proc.wait(timeout=10) == 0
        finally:
            client.close()


def test_a_new_client_for_the_same_server_returns_to_the_seat(tmp_path) -> None:
    with running_server("--bots", "3", "--step-delay", "0.05") as port:
        argv = client_argv(f"127.0.0.1:{port}", "--name", "Tess", "--state-dir", str(tmp_path))
        first = PtyProcess(argv, 80, 24)
        try:
            first.wait_for(lambda t: "You against" in t, "the lobby")
            first.type("\r")
            first_screen = first.wait_for(lambda t: "Your move" in t, "the first turn")
            title = first_screen.splitlines()[0]  # "... table <id> “You against 3 bots” ..."
            first.type("\x03")  # Ctrl-C asks, like q
            first.wait_for(lambda t: "Quit?" in t, "the quit question")
            first.type("\x03")
            assert first.proc.wait(timeout=10) == 0
        finally:
            first.close()
        again = PtyProcess(argv, 80, 24)
        try:
            text = again.wait_for(lambda t: "Welcome back" in t and "turn " in t,
                                  "the seat again")
            table_id = title.split(" table ", 1)[1].split()[0]
            assert "Tess" in text.splitlines()[0] and f"table {table_id} " in text.splitlines()[0]
            again.type("q")
            again.wait_for(lambda t: "Quit?" in t, "the quit question (in a game again)")
        finally:
            again.close()
        next(tmp_path.glob("session-*.json")).write_text(
            '{"server": "x", "name": "Tess", "token": "tok_forgotten_0123456789"}')
        fresh = PtyProcess(argv, 80, 24)
        try:
            text = fresh.wait_for(lambda t: "could not be kept" in t and "(bad_token)" in t,
                                  "a fresh session after a bad token, and why")
            assert "lobby" in text.splitlines()[0]
            assert f"Your seat at table {table_id} “You against 3 bots” could not be kept" \
                in " ".join(text.split())
        finally:
            fresh.close()


# ------------------------------------------------------------------ around the game
SIZES = [(60, 20), (80, 24), (160, 40)]
SIZE_IDS = ["60x20", "80x24", "160x40"]


def _decide_until(client: PtyProcess, done, what: str, timeout: float = 60.0) -> str:
    """Play whatever is asked (the card, row or place under the cursor) until ``done``."""
    import time

    deadline = time.monotonic() + timeout
    last = before = ""
    while time.monotonic() < deadline:
        text = client.text()
        if done(text):
            return text
        asked = ("Your move" in text or "fits no row" in text or " may go " in text)
        if asked and text == before and text != last:  # a whole screen, not half drawn
            client.type("\r")
            last = text
        before = text
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; screen:\n{client.text()}")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_solo_first_game_is_untimed_so_the_help_open_loses_no_turn(tmp_path, size) -> None:
    """Solo is untimed: the server gives each decision an hour (the title says
    "untimed", read from the table's options), so the help may stay open for 40 s
    or ten minutes without the autopilot playing: no real 40 s wait is needed."""
    columns, lines = size
    client = PtyProcess(client_argv("--solo", "--level", "easy", "--name", "Tess",
                                    "--state-dir", str(tmp_path)), columns, lines)
    try:
        screen = client.wait_for(lambda t: "Your move" in t, "the first turn", 30)
        assert "untimed" in screen.splitlines()[0] or "∞" in screen.splitlines()[0]
        assert "⏱" not in screen  # no clock
        client.type("?")
        # its last line is kept (waited for too: a busy machine draws the screen in parts)
        client.wait_for(lambda t: "Help · your turn (untimed)" in t and "? or Esc closes" in t,
                        "the help with its last line")
        client.type("?")
        back = client.wait_for(lambda t: "Your move" in t and "Help" not in t, "the table")
        rows = back.splitlines()
        hand = next(rows[i + 1] for i, line in enumerate(rows) if "Your move" in line)
        assert _turn(back) == 1 and len(HAND.findall(hand)) == 10  # the turn is still ours
        client.type("\r")
        client.wait_for(lambda t: _turn(t) == 2 or "fits no row" in t, "turn 2")
    finally:
        client.close()


def test_a_timed_solo_game_pauses_its_clock_while_the_help_is_open(tmp_path) -> None:
    """With a 5 s clock, the help held open 6 s (past the turn's deadline on the
    server's clock, which cannot be faked across processes) loses no turn: the client
    asks the server to pause the clock while the help covers the table."""
    import time

    client = PtyProcess(client_argv("--solo", "--level", "easy", "--turn-time", "5",
                                    "--name", "Tess", "--state-dir", str(tmp_path)), 80, 24)
    try:
        client.wait_for(lambda t: "Your move" in t and "⏱" in t, "the first turn", 30)
        client.type("?")
        client.wait_for(lambda t: "clock paused" in t, "the help, the clock paused")
        time.sleep(6.0)  # longer than the whole turn's time
        assert "clock paused" in client.text()
        client.type("?")
        back = client.wait_for(lambda t: "Your move" in t and "Help ·" not in t
                               and "The clock runs again" in t, "the table, the clock running")
        rows = back.splitlines()
        hand = next(rows[i + 1] for i, line in enumerate(rows) if "Your move" in line)
        assert _turn(back) == 1 and len(HAND.findall(hand)) == 10  # the turn is still ours
        assert "autopilot" not in back
        client.type("\r")
        client.wait_for(lambda t: _turn(t) == 2 or "fits no row" in t, "turn 2")
    finally:
        client.close()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_friend_joins_a_default_new_table_then_bots_fill_the_rest(tmp_path, size) -> None:
    columns, lines = size
    with running_server("--step-delay", "0.05", "--bot-level", "easy") as port:
        ann = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Ann", "--level", "easy",
                                     "--state-dir", str(tmp_path / "ann")), columns, lines)
        bob = None
        try:
            ann.wait_for(lambda t: "No tables yet" in t, "the empty lobby")
            ann.type("n")
            form = ann.wait_for(lambda t: "Fill with bots at start" in t, "the form")
            assert "Bots' level" in form and "Time bank" in form
            ann.type("\r")  # the default new table
            ann.wait_for(lambda t: "empty seat" in t, "Ann at her table")
            bob = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Bob",
                                         "--state-dir", str(tmp_path / "bob")), columns, lines)
            lobby = bob.wait_for(lambda t: "Ann's table" in t, "Ann's table in Bob's lobby")
            assert "1/4" in lobby
            bob.type("\r")  # join: a seat is free for him
            bob.wait_for(lambda t: "seat 2" in t, "Bob seated")
            ann.wait_for(lambda t: "Bob sits down" in t, "Ann sees Bob")
            ann.type("s")  # the two empty seats get bots, then the game starts
            ann.wait_for(lambda t: "Your move" in t, "Ann's first turn")
            screen = bob.wait_for(lambda t: "Your move" in t, "Bob's first turn")
            assert "Bot 1" in screen and "Bot 2" in screen
        finally:
            ann.close()
            if bob is not None:
                bob.close()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_the_variants_show_and_the_score_sheet_comes_after_a_round(tmp_path, size) -> None:
    columns, lines = size
    with running_server("--bots", "3", "--bot-level", "easy", "--step-delay", "0",
                        "--professional", "--tactic-deck", "--rounds", "2",
                        "--point-limit", "0") as port:
        client = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Tess",
                                        "--state-dir", str(tmp_path)), columns, lines)
        try:
            client.wait_for(lambda t: "You against" in t, "the lobby")
            client.type("\r")
            screen = client.wait_for(lambda t: "Your move" in t, "the first turn")
            title = screen.splitlines()[0]
            assert "pro" in title and "tactic" in title, title
            sheet = _decide_until(client, lambda t: "Score sheet" in t, "the score sheet")
            assert "R1" in sheet and "you" in sheet and "total" in sheet
            client.wait_for(lambda t: "Your move" in t and "round 2" in t or " r2 " in t,
                            "round 2's first turn, the sheet still there")
            if columns >= 150:  # the log has its own column: the sheet stays under the table
                client.type("\r")
                later = client.wait_for(lambda t: "─ Score sheet" in t and "turn 2/10" in t,
                                        "the sheet still under the table, played on")
                assert "R1" in later and "paused while you read" not in later  # (covers nothing)
                return
            client.type("\r")  # playing on closes it
            client.wait_for(lambda t: "Score sheet" not in t, "the sheet closed")
            client.type("t")  # any time, by a key
            again = client.wait_for(lambda t: "Score sheet" in t, "the sheet by its key")
            assert "R1" in again
        finally:
            client.close()


def _record_file(tmp_path) -> str:
    from storage_helpers import play_game

    from nimmt.engine import Options, record_from_game

    game, _ = play_game(Options(players=3, rounds=1), 5)
    path = tmp_path / "game.json"
    path.write_text(record_from_game(game, seats=["Ann", "Bob", "Cat"]).to_json())
    return str(path)


def _step(text: str) -> int:
    m = re.search(r"step (\d+)/\d+", text)
    return int(m.group(1)) if m else 0


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_replay_steps_forwards_and_back(tmp_path, size) -> None:
    columns, lines = size
    client = PtyProcess(client_argv("--replay", _record_file(tmp_path)), columns, lines)
    try:
        start = client.wait_for(lambda t: _step(t) == 1, "the replay's first step", 30)
        assert "replay" in start.splitlines()[0]
        client.type("\x1b[C" * 6)  # → six times
        ahead = client.wait_for(lambda t: _step(t) == 7, "step 7")
        assert "Plays:" in ahead or "Turn 1" in ahead
        client.type("\x1b[D" * 2)  # ← twice
        back = client.wait_for(lambda t: _step(t) == 5, "back to step 5")
        assert back != ahead
        client.type("+")
        client.type(" ")  # play
        client.wait_for(lambda t: "playing, 2 step/s" in t and _step(t) > 5, "playing")
        client.type(" ")
        client.wait_for(lambda t: "paused" in t, "paused")
        client.type("G")  # the end: the game is over and its sheet shows
        client.wait_for(lambda t: "Score sheet" in t, "the end of the replay")
        client.type("q")
        assert client.proc.wait(timeout=10) == 0
    finally:
        client.close()


def _database(tmp_path) -> str:
    """A server's database with two finished games (ids 1 and 2)."""
    from storage_helpers import play_game

    from nimmt.engine import Options, record_from_game
    from nimmt.server.storage import Store

    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        for number, names in ((1, ["Ann", "Bob", "Cat"]), (2, ["Dee", "Eve"])):
            game, facts = play_game(Options(players=len(names), rounds=1), number)
            table_id = store.next_table_id()
            store.create_table(table_id, f"Night {number}", {}, {})
            store.append(table_id, facts)
            store.finish_game(table_id, f"Night {number}", 1,
                              record_from_game(game, seats=names), ["human"] * len(names),
                              started=1_000_000.0 * number, ended=1_000_000.0 * number + 900)
    return str(path)


def test_the_history_lists_the_games_and_enter_replays_one(tmp_path) -> None:
    db = _database(tmp_path)
    with running_server("--bots", "1") as port:
        client = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Tess", "--db", db,
                                        "--state-dir", str(tmp_path)), 100, 30)
        try:
            lobby = client.wait_for(lambda t: "You against" in t, "the lobby")
            assert "H  history" in lobby  # (at 80 columns only the help names it)
            client.type("H")
            listed = client.wait_for(lambda t: "Night 1" in t and "Night 2" in t,
                                     "the finished games")
            assert "Finished games" in listed
            first = next(line for line in listed.splitlines() if "▶" in line)
            assert "Night 2" in first and "Dee" in first  # the newest first, chosen
            client.type("\x1b[B")  # ↓: the older one
            client.wait_for(lambda t: any("▶" in line and "Night 1" in line
                                          for line in t.splitlines()), "game 1 chosen")
            client.type("\r")
            replay = client.wait_for(lambda t: _step(t) == 1, "the replay of game 1", 30)
            assert "Ann" in replay and "Bob" in replay
            client.type("\x1b[C" * 3)
            client.wait_for(lambda t: _step(t) == 4, "step 4")
            client.type("q")
            back = client.wait_for(lambda t: "Back from the replay of game 1" in t,
                                   "the lobby again")
            assert "You against" in back or "Finished games" in back
            client.type("\x1b")  # Esc closes the history
            client.wait_for(lambda t: "Finished games" not in t and "You against" in t,
                            "the lobby's tables")
            client.type("q")
            assert client.proc.wait(timeout=10) == 0
        finally:
            client.close()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_the_log_is_still_there_after_the_client_is_restarted_mid_game(tmp_path, size) -> None:
    columns, lines = size
    with running_server("--bots", "3", "--bot-level", "easy", "--step-delay", "0") as port:
        argv = client_argv(f"127.0.0.1:{port}", "--name", "Tess", "--state-dir", str(tmp_path))
        first = PtyProcess(argv, columns, lines)
        try:
            first.wait_for(lambda t: "You against" in t, "the lobby")
            first.type("\r")
            first.wait_for(lambda t: "Your move" in t, "the first turn")
            first.type("c")
            first.type("remember me\r")
            first.wait_for(lambda t: "<Tess> remember me" in t, "the chat line")
            _decide_until(first, lambda t: _turn(t) == 2, "turn 2")
            first.wait_for(lambda t: "Your move" in t or "fits no row" in t,
                           "a decision of ours (the table waits for it)")
            _quit_in_game(first)
        finally:
            first.close()
        again = PtyProcess(argv, columns, lines)
        try:
            text = again.wait_for(lambda t: "Welcome back" in t, "the seat again")
            text = again.wait_for(lambda t: "before nimmt-client was restarted" in t,
                                  "the kept log's marker")
            seen = text
            for _ in range(6):  # a small terminal shows a few lines: page up to the chat
                if "<Tess> remember me" in seen and "Turn 1:" in seen:
                    break
                again.type("\x1b[5~")  # PageUp scrolls the log back
                seen += again.wait_for(lambda t, before=text: t != before, "the log scrolled back")
                text = again.text()
            assert "<Tess> remember me" in seen  # the chat kept
            assert "Turn 1:" in seen  # the game's events too
        finally:
            again.close()
