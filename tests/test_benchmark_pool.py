"""benchmarks/pool_runs.py: independent arena runs of one table, pooled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nimmt.bots.arena import main as arena

from bench_helpers import load_benchmark

pool_runs = load_benchmark("pool_runs")


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, rounds: int,
         seats: str = "heuristic,random,random") -> Path:
    assert arena(["--players", "3", "--seats", seats, "--rounds", str(rounds), "--jobs", "1",
                  "--json", "--quiet", "--seed", str(seed)]) == 0
    path = tmp_path / f"run{seed}-{rounds}-{len(seats)}.json"
    path.write_text(capsys.readouterr().out)
    return path


def test_pooled_runs_weigh_each_run_by_its_deals(tmp_path, capsys) -> None:
    a = _run(tmp_path, capsys, seed=1, rounds=30)  # 10 deals
    b = _run(tmp_path, capsys, seed=2, rounds=90)  # 30 deals
    runs = [json.loads(p.read_text()) for p in (a, b)]
    heuristic, rand = pool_runs.pool(runs)
    ra, rb = (r["strategies"][1] for r in runs)
    assert rand.strategy == "random" and rand.rounds == ra["rounds"] + rb["rounds"]
    assert rand.difference == pytest.approx(0.25 * ra["difference"] + 0.75 * rb["difference"])
    # the pooled interval is narrower than the longer run's alone
    assert rand.difference_ci95 < rb["difference_ci95"]
    assert heuristic.difference is None
    assert pool_runs.main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 runs (seeds 1, 2), 40 deals")
    assert f"{rand.difference:+.2f} ± {rand.difference_ci95:.2f}" in out


def test_runs_that_cannot_be_pooled_are_refused_with_the_reason(tmp_path, capsys) -> None:
    a = _run(tmp_path, capsys, seed=1, rounds=6)
    again = _run(tmp_path, capsys, seed=1, rounds=9)
    other = _run(tmp_path, capsys, seed=2, rounds=6, seats="random,heuristic,random")
    assert pool_runs.main([str(a), str(again)]) == 2
    assert "same seed" in capsys.readouterr().err
    assert pool_runs.main([str(a), str(other)]) == 2
    assert "seat different strategies" in capsys.readouterr().err
    assert pool_runs.main([str(a)]) == 2
    assert "at least two runs" in capsys.readouterr().err
    assert pool_runs.main([str(a), str(tmp_path / "missing.json")]) == 2
    assert "cannot read the runs" in capsys.readouterr().err
