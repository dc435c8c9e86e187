"""benchmarks/db_ab.py: issue 23's targets summed up from alternated pairs of load runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_helpers import load_benchmark

db_ab = load_benchmark("db_ab")


def _run(kind: str, db: str, *, p99: float = 10.0, cores: float = 0.5, turns: float = 500.0,
         steal: float = 0.01) -> dict:
    return {"kind": kind, "db": db, "p99_ms": p99, "cores": cores, "turns_per_s": turns,
            "cpu_ms_per_turn": cores / turns * 1000, "steal": steal, "p50_ms": 1.0,
            "other_cores": 0.0}


def test_the_targets_are_judged_on_the_medians_of_each_side() -> None:
    runs = [
        _run("held", "off", p99=10, cores=0.50), _run("held", "on", p99=12, cores=0.56),
        _run("held", "on", p99=14, cores=0.57), _run("held", "off", p99=11, cores=0.50),
        _run("held", "off", p99=50, cores=0.52), _run("held", "on", p99=13, cores=0.59),
    ]
    lines = db_ab.summarize("held", db_ab.pairs_of("held", runs))
    p99 = next(line for line in lines if "reveal p99" in line)
    cpu = next(line for line in lines if "server CPU" in line)
    assert "off   11.000" in p99 and "on   13.000" in p99 and "met" in p99 and "NOT" not in p99
    assert "on/off 1.1400" in cpu and "target at most 1.15: met" in cpu


def test_saturation_below_85_percent_is_not_met() -> None:
    runs = [_run("sat", "off", turns=700), _run("sat", "on", turns=580)]
    (turns,) = [line for line in db_ab.summarize("sat", db_ab.pairs_of("sat", runs))
                if "turns/s" in line]
    assert "on/off 0.8286" in turns and "NOT met" in turns


def test_pairs_with_much_steal_are_left_out_of_the_quiet_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = [_run("sat", "off", turns=700, steal=0.20), _run("sat", "on", turns=500, steal=0.01),
            _run("sat", "on", turns=690, steal=0.02), _run("sat", "off", turns=700, steal=0.01)]
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(runs))
    db_ab.main_args(["--from", str(path), "--only", "sat"])
    out = capsys.readouterr().out
    assert "sat: 2 pairs" in out and "(both runs' steal under 5%): 1 pairs" in out
    quiet = out.split("steal under 5%")[1]
    assert "on/off 0.9857" in quiet and "target at least 0.85: met" in quiet


def test_runs_of_load_py_pool_by_their_steal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--from`` takes ``load.py --json`` files too (the think time says the kind)."""
    paths = []
    for n, (db, turns, steal) in enumerate([("off", 700, 0.005), ("on", 630, 0.004),
                                            ("off", 500, 0.20), ("on", 400, 0.15)]):
        run = _run("sat", db, turns=turns, steal=steal)
        del run["kind"]
        run["think"] = [0.0, 0.0]
        paths.append(tmp_path / f"run{n}.json")
        paths[-1].write_text(json.dumps(run))
    db_ab.main_args(["--from", *map(str, paths), "--only", "sat", "--by-steal"])
    out = capsys.readouterr().out
    under_1 = next(line for line in out.splitlines() if "steal under 1%" in line)
    everything = next(line for line in out.splitlines() if line.strip().startswith("all"))
    assert "runs 1 off, 1 on" in under_1 and "630.000 / 700.000 = 0.9000" in under_1
    assert "runs 2 off, 2 on" in everything and "515.000 / 600.000 = 0.8583" in everything
