"""``nimmt-client`` in a real pseudo-terminal against a real server, after a rated
game: the lobby's ``R`` opens the leaderboard, which shows the rated player and the
built-in bot's level with their ratings, rated games and trends (issue 27 item 4)."""

from __future__ import annotations

import re
import sys

import pytest
import trio
from pty_helpers import PtyProcess, client_argv
from real_server import running_server
from test_ladder_ratings import play_rated_game

from nimmt.server.ladder.ratings import Ladder

#: a leaderboard line: rank, (⚙ for a bot), name, rating, games, trend
ROW = re.compile(r"(\d+)  (?:⚙ |  )(\S+) +(-?\d+\.\d\d) +(\d+) +([+-]\d+\.\d\d)")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a Unix pty")


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
def test_the_leaderboard_screen_shows_a_rated_player_after_a_rated_game(
        tmp_path, size: tuple[int, int]) -> None:
    columns, lines = size
    with running_server("--step-delay", "0") as port:
        over = trio.run(play_rated_game, port)  # Ann (claimed) against an easy bot
        ladder = Ladder()
        ladder.rate(["Ann", "bot:easy"], over.places)
        client = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Tess",
                                        "--state-dir", str(tmp_path)), columns, lines)
        try:
            client.wait_for(lambda t: "lobby" in t.splitlines()[0], "the lobby")
            client.type("R")
            screen = client.wait_for(lambda t: "Leaderboard" in t and "bot:easy" in t,
                                     "the leaderboard")
            rows = {m.group(2): list(m.groups()) for m in ROW.finditer(screen)}
            best_first = sorted(("Ann", "bot:easy"),
                                key=lambda n: (-round(ladder.get(n).ordinal, 2), n))
            for rank, name in enumerate(best_first, 1):
                rating = ladder.get(name).ordinal
                # rank, name, rating, games, trend (one game: the change from 0)
                assert rows.get(name) == [str(rank), name, f"{rating:.2f}", "1",
                                      f"{rating:+.2f}"], screen
            assert "⚙ bot:easy" in screen and "⚙ Ann" not in screen  # a bot is marked
            client.type("\x1b")  # Esc closes it: the lobby again
            client.wait_for(lambda t: "Leaderboard" not in t, "the lobby again")
            client.type("q")
            assert client.proc.wait(timeout=10) == 0
        finally:
            client.close()
