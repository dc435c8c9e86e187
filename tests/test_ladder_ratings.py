"""Issue 27 item 2: ratings. A rated table's finished games update each claimed
player's (and each built-in bot level's) OpenSkill Plackett-Luce rating, exactly as
the library computes it; ratings and claims survive a SIGKILLed server; and
``nimmt-replay --db PATH --ladder`` shows the leaderboard."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trio
from openskill.models import PlackettLuce

from nimmt import protocol as P
from nimmt.server.records.leaderboard import ladder_lines
from nimmt.server.ladder.ratings import Ladder, bot_name
from nimmt.server.records.replay import main as replay_main
from server_helpers import Player, ScriptClient, play_all

KEY = "annkey-" + "a" * 30
ADDRESS = re.compile(r"listening on 127\.0\.0\.1:(\d+)")


def test_ratings_after_hand_made_results_equal_the_library_s_own() -> None:
    games = [  # (names, places): a tie for first, then a tie for last, then 4 players
        (("Ann", "Bob", "Cy"), (1, 1, 3)),
        (("Bob", "Cy"), (1, 1)),
        (("Cy", "Ann", "Bob", "Dee"), (1, 2, 3, 3)),
    ]
    ladder = Ladder()
    model = PlackettLuce()
    expected = {}
    for names, places in games:
        ladder.rate(names, places)
        teams = [[expected.get(n) or model.rating(name=n)] for n in names]
        for name, [rating] in zip(names, model.rate(teams, ranks=list(places))):
            expected[name] = rating
    for name, rating in expected.items():
        mine = ladder.get(name)
        assert (mine.mu, mine.sigma) == pytest.approx((rating.mu, rating.sigma), abs=1e-12)
        assert mine.ordinal == pytest.approx(rating.ordinal(), abs=1e-12)
    assert {n: ladder.get(n).games for n in expected} == {"Ann": 2, "Bob": 3, "Cy": 3, "Dee": 1}
    # the winner went up, the shared last place went down
    assert ladder.get("Cy").mu > 25 > ladder.get("Dee").mu


def test_two_bots_of_one_level_count_one_game_for_their_name() -> None:
    ladder = Ladder()
    ladder.rate(["Ann", bot_name("easy"), bot_name("easy")], [1, 2, 3])
    assert ladder.get("bot:easy").games == 1 and ladder.get("Ann").games == 1
    assert bot_name("search:ms=50") == "bot:search"


@contextmanager
def real_server(db: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", "0",
         "--log-level", "warning", "--db", str(db), "--step-delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        match = ADDRESS.search(proc.stdout.readline())
        assert match, "the server did not say where it listens"
        yield proc, int(match.group(1))
    finally:
        proc.kill()
        proc.wait()


async def play_rated_game(port: int) -> P.GameOver:
    ann = await ScriptClient.tcp(port, "Ann", key=KEY)
    assert ann.welcome is not None and ann.welcome.claimed
    options = P.TableOptions(seats=2, rounds=1, step_delay=0, rated=True)
    created = await ann.request(P.CreateTable(options=options))
    assert isinstance(created, P.Seated)
    assert isinstance(await ann.request(P.AddBot(strategy="easy")), P.TableUpdated)
    await ann.send(P.Start())
    (over,) = await play_all([Player(ann, 3)])
    await ann.aclose()
    return over


async def test_ratings_and_claims_survive_a_sigkilled_server(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "nimmt.db"
    with real_server(db) as (proc, port):
        first = await play_rated_game(port)
        proc.kill()  # SIGKILL, right after the game's end reached its player
    ladder = Ladder()
    ladder.rate(["Ann", "bot:easy"], first.places)

    with real_server(db) as (proc, port):
        # the claim came back: the name is refused without its key
        intruder = await ScriptClient.tcp(port, "Ann", hello=False)
        await intruder.send(P.Hello(protocol=2, name="Ann", kind="human"))
        assert (await intruder.expect("error")).code == "name_claimed"
        await intruder.aclose()
        # the ratings came back: the second game starts from the first one's
        second = await play_rated_game(port)
        proc.kill()
    ladder.rate(["Ann", "bot:easy"], second.places)

    assert replay_main(["--db", str(db), "--ladder", "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["games"]) for r in board] == sorted(
        [("Ann", 2), ("bot:easy", 2)], key=lambda r: -ladder.get(r[0]).ordinal)
    for row in board:
        want = ladder.get(row["name"])
        assert (row["mu"], row["sigma"]) == pytest.approx((want.mu, want.sigma), abs=1e-9)
        assert row["rating"] == round(want.ordinal, 2)
        assert row["rank"] == 1 + [r["name"] for r in board].index(row["name"])
    assert replay_main(["--db", str(db), "--ladder"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].split() == ["rank", "name", "rating", "games", "trend"]
    assert text[1].split()[:2] == ["1", board[0]["name"]]


def test_an_empty_ladder_says_how_to_fill_it() -> None:
    assert "rated" in ladder_lines([])[0]


def test_a_casual_game_is_not_rated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "nimmt.db"

    async def casual() -> None:
        ann = await ScriptClient.tcp(port, "Ann", key=KEY)
        created = await ann.request(P.CreateTable(options=P.TableOptions(
            seats=2, rounds=1, step_delay=0)))
        assert isinstance(created, P.Seated)
        await ann.request(P.AddBot(strategy="easy"))
        await ann.send(P.Start())
        await play_all([Player(ann, 1)])
        await ann.aclose()

    with real_server(db) as (_, port):
        trio.run(casual)
    assert replay_main(["--db", str(db), "--ladder", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
