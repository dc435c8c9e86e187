"""Any bot in the arena (a program over JSON lines, a Python function) beside the
built-in strategies, and the arena on a Dask cluster of two local workers giving
the very figures of a local run (issue 24, items 1 and 2)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import distributed  # the cluster extra, in the test extra too
import pytest

from nimmt.bots.arena import main

TESTS = Path(__file__).resolve().parent
BOTS = TESTS / "arena_bots.py"
NODE_BOT = TESTS.parent / "docs" / "examples" / "bot.js"
PY_PROGRAM = f"exec:{sys.executable} {BOTS}"


def _arena(capsys, *argv: str) -> tuple[int, dict | str, str]:
    code = main([*argv, "--quiet"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if "--json" in argv else out), err


def _figures(report: dict) -> list[tuple]:
    """What a run measured, without the clock's figures."""
    return [(s["strategy"], s["rounds"], s["bullheads_per_round"], s["ci95"], s["win_share"],
             s["decisions"], s["difference"], s["failures"]) for s in report["strategies"]]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_example_node_bot_and_a_python_function_play_beside_search(capsys) -> None:
    code, report, err = _arena(
        capsys, "--seats", f"exec:node {NODE_BOT},py:{BOTS}:lowest,search:ms=5,random",
        "--rounds", "8", "--jobs", "2", "--json")
    assert code == 0, err
    by = {s["strategy"]: s for s in report["strategies"]}
    assert set(by) == {f"exec:node {NODE_BOT}", f"py:{BOTS}:lowest", "search:ms=5", "random"}
    for s in by.values():  # every seat played every round of every deal, rotated
        assert s["rounds"] == 8 and s["decisions"] >= 80 and s["failures"] == 0
        assert s["difference"] is None or s["difference_ci95"] is not None
    assert by[f"exec:node {NODE_BOT}"]["mean_ms"] > 0  # time per decision, measured
    assert err == ""


def test_a_program_in_python_plays_the_same_games_whatever_the_processes(capsys) -> None:
    seats = f"{PY_PROGRAM},py:{BOTS}:lowest,heuristic,random"
    _, one, _ = _arena(capsys, "--seats", seats, "--rounds", "8", "--jobs", "1", "--json")
    _, two, _ = _arena(capsys, "--seats", seats, "--rounds", "8", "--jobs", "2", "--json")
    assert _figures(one) == _figures(two)
    assert [s["failures"] for s in one["strategies"]] == [0, 0, 0, 0]


def test_a_program_and_a_function_that_play_alike_score_alike_in_duplicate(capsys) -> None:
    _, report, _ = _arena(capsys, "--seats", f"py:{BOTS}:lowest,{PY_PROGRAM},heuristic",
                          "--players", "3", "--seatings", "all", "--rounds", "12", "--json")
    function, program, _ = report["strategies"]
    assert program["bullheads_per_round"] == function["bullheads_per_round"]
    assert program["difference"] == 0.0


def test_a_program_that_never_answers_is_reported_and_fails_the_run(capsys, tmp_path) -> None:
    missing = tmp_path / "no_such_file.py"
    code, text, err = _arena(capsys, "--seats", f"exec:{sys.executable} {missing},heuristic",
                             "--players", "2", "--rounds", "2", "--jobs", "1")
    assert code == 1
    failed = re.search(r"FAILED: exec:\S+ \S+ failed (\d+) of (\d+) decisions", text)
    assert failed and failed[1] == failed[2] and int(failed[1]) >= 20, text
    assert "last: died (exit code 2); the bridge gave up on it" in text
    assert f"failed {failed[1]} of {failed[1]} decisions" in err


def test_a_function_that_raises_is_counted_and_the_fallback_decides(capsys) -> None:
    code, report, err = _arena(capsys, "--seats", f"py:{BOTS}:fails_on_draws,random,random",
                               "--players", "3", "--rounds", "30", "--jobs", "1", "--json")
    (bot, _) = report["strategies"]
    assert code == 0 and 0 < bot["failures"] < bot["decisions"]
    assert bot["last_fault"] == "RuntimeError: no idea which row"
    assert "fails_on_draws failed" in err


@pytest.mark.parametrize("seat, words", [
    ("py:no_such_module_for_nimmt:decide", "cannot import no_such_module_for_nimmt"),
    (f"py:{BOTS}:nobody", "has no 'nobody'"),
    ("py:decide", "give py:MODULE:FUNCTION"),
    ("exec:no-such-program-for-nimmt", "cannot run 'no-such-program-for-nimmt'"),
])
def test_a_seat_that_cannot_be_seated_is_said_before_playing(capsys, seat, words) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--seats", f"{seat},random,random,random", "--rounds", "4", "--quiet"])
    assert stop.value.code == 2 and words in capsys.readouterr().err


def test_the_cluster_plays_the_figures_of_a_local_run(capsys) -> None:
    seats = f"py:{BOTS}:lowest,{PY_PROGRAM},mcs:samples=20,random"
    _, local, _ = _arena(capsys, "--seats", seats, "--rounds", "12", "--jobs", "1", "--json")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        code, remote, err = _arena(capsys, "--seats", seats, "--rounds", "12", "--json",
                                   "--cluster", cluster.scheduler_address)
    assert code == 0, err
    assert remote["jobs"] == 2 and remote["cluster"].startswith("tcp://127.0.0.1:")
    assert _figures(remote) == _figures(local)


def test_a_cluster_that_is_not_there_is_one_clear_error(capsys, monkeypatch) -> None:
    from nimmt.bots import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    code = main(["--rounds", "4", "--quiet", "--cluster", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("nimmt-arena: cannot reach a Dask scheduler at "
                                        "tcp://127.0.0.1:9")
    assert "Traceback" not in err and err.count("\n") == 1


def test_the_documented_python_example_plays_without_a_failure(capsys) -> None:
    example = TESTS.parent / "docs" / "examples" / "decide.py"
    code, report, err = _arena(capsys, "--seats", f"py:{example}:decide,heuristic,random",
                               "--players", "3", "--rounds", "6", "--professional", "--json")
    assert code == 0 and err == ""
    assert report["strategies"][0]["failures"] == 0 and report["strategies"][0]["rounds"] == 6
