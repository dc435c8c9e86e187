"""``nimmt-arena --expected-loss`` (issue 45, for bot authors): every decision of
every seat analysed after its game by the coach's analysis, and each strategy's
average expected loss a decision with a choice, in the JSON and the table."""

from __future__ import annotations

import json

import distributed  # the cluster extra, in the test extra too
import pytest

from nimmt.bots.arena import ArenaConfig, _parser, main, run_arena
from nimmt.engine import Options

LOWEST = "py:tests/arena_bots.py:lowest"  # always the lowest legal answer
SEARCH = "search:samples=20"
TINY = ["--players", "2", "--seats", f"{SEARCH},{LOWEST}", "--rounds", "2", "--seed", "3",
        "--quiet"]  # 1 deal in 2 seatings: 2 games of one round

LOSS_FIELDS = ("expected_loss", "expected_loss_ci95", "expected_loss_decisions",
               "expected_loss_not_analysed")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*TINY, *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_bot_that_plays_its_lowest_card_loses_more_a_decision_than_search(capsys) -> None:
    report = _json(capsys, "--json", "--jobs", "1", "--expected-loss", "10")
    assert report["expected_loss_samples"] == 10
    search, lowest = report["strategies"]
    assert (search["strategy"], lowest["strategy"]) == (SEARCH, LOWEST)
    assert list(search)[-4:] == list(LOSS_FIELDS)  # the field names, pinned
    # every decision but the last card of each of the 2 games (no choice: no loss)
    assert [s["expected_loss_decisions"] for s in (search, lowest)] == [
        search["decisions"] - 2, lowest["decisions"] - 2] == [22, 19]
    assert [s["expected_loss_not_analysed"] for s in (search, lowest)] == [0, 0]
    # reproducible by design (the analysis's seed derives from --seed): exact figures
    assert [(round(s["expected_loss"], 2), round(s["expected_loss_ci95"], 2))
            for s in (search, lowest)] == [(0.21, 0.14), (1.46, 0.62)]
    assert lowest["expected_loss"] - lowest["expected_loss_ci95"] > \
        search["expected_loss"] + search["expected_loss_ci95"]
    # the same figures whatever the number of processes
    again = _json(capsys, "--json", "--jobs", "2", "--expected-loss", "10")
    assert [[s[k] for k in LOSS_FIELDS] for s in again["strategies"]] == \
        [[s[k] for k in LOSS_FIELDS] for s in report["strategies"]]


def test_off_by_default_and_the_default_sample_count() -> None:
    config = ArenaConfig((SEARCH, LOWEST), 1, Options(players=2, point_limit=None, rounds=1), 3)
    plain = run_arena(config)
    assert plain.expected_loss_samples is None
    assert [[getattr(s, k) for k in LOSS_FIELDS] for s in plain.strategies] == [
        [None, None, 0, 0], [None, None, 0, 0]]
    assert "loss/decision" not in plain.to_text()
    assert _parser().parse_args(["--expected-loss"]).expected_loss == 100
    assert _parser().parse_args([]).expected_loss is None


def test_the_column_in_the_table(capsys) -> None:
    assert main([*TINY, "--jobs", "1", "--expected-loss", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith("worst ms      loss/decision ±95% (n)   vs first (95% CI)")
    assert lines[2].startswith(SEARCH) and "         0.21 ± 0.14    (22)   " in lines[2]
    assert lines[3].startswith(LOWEST) and "         1.46 ± 0.62    (19)   +" in lines[3]
    assert lines[4] == ("loss/decision: the expected bullheads a decision with a choice gave "
                        "away against the best, per the analysis at 10 deals a choice "
                        "(docs/ARENA.md)")


def test_too_few_samples_is_refused(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*TINY, "--expected-loss", "1"])
    assert stop.value.code == 2
    assert "--expected-loss: the analysis needs at least 2 deals a choice" in \
        capsys.readouterr().err


def test_draft_picks_are_counted_apart() -> None:
    config = ArenaConfig(("heuristic", "random"), 1,
                         Options(players=2, tactic_deck=True, draft=True, point_limit=None,
                                 rounds=1), 4, expected_loss=4)
    report = run_arena(config)
    # 2 games, 10 picks a seat each: none analysed; the cards after the draft are
    assert [s.expected_loss_not_analysed for s in report.strategies] == [20, 20]
    assert all(s.expected_loss_decisions >= 18 for s in report.strategies)


def test_the_cluster_analyses_where_it_plays_and_finds_the_local_figures(capsys) -> None:
    argv = ["--players", "3", "--seats", "search:samples=10,random,random", "--rounds", "3",
            "--expected-loss", "6", "--json", "--quiet"]

    def figures() -> list:
        out, _ = capsys.readouterr()
        return [[s["strategy"], *(s[k] for k in LOSS_FIELDS)]
                for s in json.loads(out)["strategies"]]

    assert main([*argv, "--jobs", "1"]) == 0
    local = figures()
    assert local[0][0] == "search:samples=10" and local[0][3] > 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        assert main([*argv, "--cluster", cluster.scheduler_address]) == 0
    assert figures() == local
