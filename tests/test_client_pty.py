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
            client.type("q")
            client.wait_for(lambda t: "Quit?" in t, "the quit question")
            client.type("q")
            assert client.proc.wait(timeout=10) == 0
        finally:
            client.close()
        saved = list(tmp_path.iterdir())
        assert len(saved) == 1 and saved[0].stat().st_mode & 0o777 == 0o600


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
        (tmp_path / next(tmp_path.iterdir()).name).write_text(
            '{"server": "x", "name": "Tess", "token": "tok_forgotten_0123456789"}')
        fresh = PtyProcess(argv, 80, 24)
        try:
            text = fresh.wait_for(lambda t: "no longer knows your earlier session" in t,
                                  "a fresh session after a bad token")
            assert "lobby" in text.splitlines()[0]
        finally:
            fresh.close()
