"""The arena: seeded, reproducible whatever the number of processes, and the
strategies rank as they should (a few hundred rounds at fast settings)."""

from __future__ import annotations

import json

import pytest

from nimmt.bots.arena import ArenaConfig, main, play_all, run_arena
from nimmt.engine import Options

ONE_ROUND = Options(players=4, point_limit=None, rounds=1)


def outcomes(config: ArenaConfig, jobs: int) -> list[tuple]:
    """Everything about the games but the times, in a fixed order."""
    games = sorted(play_all(config, jobs), key=lambda g: (g.deal, g.seating))
    return [(g.deal, g.seating, g.specs, g.rounds, g.winners, g.decisions) for g in games]


def test_same_results_whatever_the_number_of_processes() -> None:
    config = ArenaConfig(("search:samples=4,ms=60000", "mcs:samples=8", "heuristic", "random"),
                         deals=2, options=Options(players=4, professional=True, rounds=1), seed=5)
    one = outcomes(config, jobs=1)
    assert one == outcomes(config, jobs=2) == outcomes(config, jobs=3)
    assert len(one) == 8  # 2 deals x 4 seatings


def test_seats_rotate_over_shared_deals() -> None:
    config = ArenaConfig(("heuristic", "random", "random"), deals=3,
                         options=Options(players=3, point_limit=None, rounds=1), seed=2)
    games = outcomes(config, jobs=1)
    for deal in range(3):
        seatings = [g[2] for g in games if g[0] == deal]
        assert [s.index("heuristic") for s in seatings] == [0, 2, 1]
    # another seed deals other cards
    other = ArenaConfig(config.seats, 3, config.options, seed=3)
    assert [g[3] for g in outcomes(other, 1)] != [g[3] for g in games]


def test_every_arrangement_of_the_seats_when_asked() -> None:
    config = ArenaConfig(("search:ms=5", "mcs:ms=5", "random", "random"), deals=1,
                         options=ONE_ROUND, seatings="all")
    arrangements = config.arrangements()
    assert len(arrangements) == 12 == len(set(arrangements))  # 4! / 2! for the two randoms
    for seat in range(4):
        column = [a[seat] for a in arrangements]
        assert column.count("search:ms=5") == column.count("mcs:ms=5") == 3
        assert column.count("random") == 6
    ten = ArenaConfig(("heuristic",) + ("random",) * 9, 1,
                      Options(players=10, point_limit=None, rounds=1), seatings="all")
    assert len(ten.arrangements()) == 10  # not 10! orderings built and deduplicated
    with pytest.raises(ValueError, match="seatings 'every'"):
        ArenaConfig(config.seats, 1, ONE_ROUND, seatings="every")


def test_duplicate_seatings_compare_two_equal_players_exactly() -> None:
    """Two specs of one player (the time limit never binds): played in every
    arrangement with each seat's numbers kept, they take exactly the same
    bullheads on every deal; in mere rotations the others' dice differ."""
    seats = ("search:samples=6,ms=60000", "search:samples=6,ms=50000", "random", "random")
    duplicate = run_arena(ArenaConfig(seats, 6, ONE_ROUND, seed=3, seatings="all"))
    twin = duplicate.strategies[1]
    assert twin.difference == 0.0 and twin.difference_ci95 == 0.0
    assert duplicate.games == 72 and duplicate.seatings == "all"
    assert "6 deals x 12 seatings, duplicate" in duplicate.to_text()
    rotated = run_arena(ArenaConfig(seats, 6, ONE_ROUND, seed=3))
    assert rotated.strategies[1].difference_ci95 > 0


def test_strategies_rank_as_expected() -> None:
    """Every strategy beats random, and search beats the heuristic, at the
    same tables (200 rounds, seats rotated over 50 deals; few deals a
    decision, counted rather than timed, so the run is reproducible)."""
    config = ArenaConfig(
        ("search:samples=40,ms=60000", "mcs:samples=8", "heuristic", "random"),
        deals=50, options=ONE_ROUND, seed=1,
    )
    report = run_arena(config, jobs=2)
    by = {s.strategy.split(":")[0]: s for s in report.strategies}
    random_heads = by["random"].bullheads_per_round
    for name in ("search", "mcs", "heuristic"):
        assert by[name].bullheads_per_round < random_heads - 2, name
        assert by[name].difference is None or by[name].difference_ci95 is not None
    # search is the first seat: the heuristic's difference to it is positive, clear of zero
    assert by["heuristic"].difference - by["heuristic"].difference_ci95 > 0
    assert report.rounds == 200
    assert by["search"].decisions >= 2000 and by["search"].worst_ms > 0


def test_command_line_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--players", "3", "--seats", "heuristic,random,mcs:samples=5", "--rounds", "6",
                 "--professional", "--jobs", "1", "--json", "--quiet", "--seed", "9"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["players"] == 3 and report["games"] == 6 and report["options"]["professional"]
    names = [s["strategy"] for s in report["strategies"]]
    assert names == ["heuristic", "random", "mcs:samples=5"]
    for s in report["strategies"]:
        assert s["rounds"] == 6 and 0 <= s["win_share"] <= 1 and s["mean_ms"] >= 0


def test_command_line_whole_games_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--players", "2", "--seats", "heuristic,random", "--games", "2",
                 "--point-limit", "20", "--tactic-deck", "--jobs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 players, 2 games" in out and "tactic_deck" in out
    assert "heuristic" in out and "random" in out and "bullheads/round" in out
    # the ± after the bullheads is a 95% interval, and the header says so, over its column
    head, first = out.splitlines()[1], out.splitlines()[2]
    assert head.index("bullheads/round ±95%") + len("bullheads/round ±95%") == \
        first.index(" ± ") + len(" ± ") + 5


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--seats", "heuristic,random"], "names 2 strategies for 4 players"),
        (["--seats", "heuristic,random,random,alphago"], "no strategy 'alphago'"),
        (["--seats", "search:ms=0,random,random,random"], "ms must be a number of milliseconds"),
        (["--players", "11", "--seats", ",".join(["random"] * 11)], "players must be 2 to 10"),
        (["--rounds", "0"], "--rounds must be at least 1"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--players", "7", "--seats", "random,heuristic,mcs,search,mcs:ms=5,search:ms=5,random",
          "--seatings", "all"], "2520 distinct arrangements"),
    ],
)
def test_command_line_errors_say_what_to_do(argv: list[str], words: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv + ["--quiet"])
    assert stop.value.code == 2
    assert words in capsys.readouterr().err
