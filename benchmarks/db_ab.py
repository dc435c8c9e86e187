"""The database against none: issue 23's targets, in alternated pairs of load runs.

    python benchmarks/db_ab.py                 # 5 rounds of held load, then 5 of saturation
    python benchmarks/db_ab.py --rounds 3 --only held --out runs.json

Each round runs `benchmarks/load.py` twice, `--db off` and `--db on`, the order
turned round every other round (off-on, on-off, ...) so that a machine getting
busier or quieter during the runs weighs on both sides alike. Held load is
`--tables 250 --think 0.5:1.5 --duration 30 --warmup 10`; saturation is
`--tables 20 --think 0 --duration 15 --warmup 5`. At the end it prints every run,
the medians of each side, and the targets of issue 23:

- held load: reveal p99 with the database at most 1.3x the p99 without, and the
  server's CPU (cores) at most 1.15x;
- saturation: turns/s with the database at least 85% of without.

Each is given two ways: the ratio of the two sides' medians (what the issue asks
for) and the median of the rounds' own ratios (each round's two runs are
minutes apart, so it says less about the machine's drift). Every run also says
how much of the machine's CPU time the host stole (`steal`): on a shared host
that changes from minute to minute, and runs with a lot of it are slower and
have longer tails whatever the database does. So each summary is given again
for the pairs whose two runs both had little steal (`--quiet-steal`, 5%).
`--out PATH` keeps every run's figures as JSON; `--from PATH...` sums them up
again without running anything (files of `--out`, or of `load.py --json`), and
with `--by-steal` also pools every run, paired or not, by its steal.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

KINDS = {
    "held": ["--tables", "250", "--think", "0.5:1.5"],
    "sat": ["--tables", "20", "--think", "0"],
}


def run_once(kind: str, db: str, duration: float, warmup: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.json")
        cmd = [sys.executable, os.path.join(HERE, "load.py"), *KINDS[kind],
               "--duration", str(duration), "--warmup", str(warmup), "--db", db, "--json", path]
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              timeout=duration + warmup + 180)
        if done.returncode != 0 or not os.path.exists(path):
            raise SystemExit(f"{' '.join(cmd)} failed (exit {done.returncode}):\n{done.stderr}")
        with open(path, encoding="utf-8") as f:
            figures = json.load(f)
    figures.update(kind=kind, at=time.strftime("%H:%M:%S"))
    return figures


def ratio(on: float, off: float) -> float:
    return on / off if off else float("nan")


def pairs_of(kind: str, runs: list[dict]) -> list[tuple[dict, dict]]:
    """Each round's (off, on) runs of ``kind``."""
    side = {db: [r for r in runs if r["kind"] == kind and r["db"] == db] for db in ("off", "on")}
    return list(zip(side["off"], side["on"]))


def summarize(kind: str, pairs: list[tuple[dict, dict]], title: str = "") -> list[str]:
    """The medians of each side and the targets, as lines of text."""
    if not pairs:
        return [f"{kind}{title}: no pairs"]
    side = {"off": [off for off, _ in pairs], "on": [on for _, on in pairs]}

    def med(db: str, key: str) -> float:
        return statistics.median(r[key] for r in side[db])

    def pair_med(key: str) -> float:
        return statistics.median(ratio(on[key], off[key]) for off, on in pairs)

    lines = [f"{kind}{title}: {len(pairs)} pairs; steal median off {med('off', 'steal'):.1%}, "
             f"on {med('on', 'steal'):.1%}"]
    if kind == "held":
        checks = [("reveal p99 (ms)", "p99_ms", 1.3, "at most"),
                  ("server CPU (cores)", "cores", 1.15, "at most"),
                  ("CPU ms a turn", "cpu_ms_per_turn", None, "")]
    else:
        checks = [("turns/s", "turns_per_s", 0.85, "at least"),
                  ("CPU ms a turn", "cpu_ms_per_turn", None, "")]
    for label, key, target, how in checks:
        off, on = med("off", key), med("on", key)
        of_medians, of_pairs = ratio(on, off), pair_med(key)
        verdict = ""
        if target is not None:
            met = (of_medians <= target) if how == "at most" else (of_medians >= target)
            verdict = f"  target {how} {target:.2f}: {'met' if met else 'NOT met'}"
        lines.append(f"  {label:<20} off {off:8.3f}  on {on:8.3f}  on/off {of_medians:.4f} "
                     f"(rounds' own: {of_pairs:.4f}){verdict}")
    return lines


def main() -> None:
    main_args(sys.argv[1:])


def main_args(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="pairs of runs of each kind")
    parser.add_argument("--only", choices=tuple(KINDS), help="one kind of load only")
    parser.add_argument("--held-duration", type=float, default=30.0)
    parser.add_argument("--held-warmup", type=float, default=10.0)
    parser.add_argument("--sat-duration", type=float, default=15.0)
    parser.add_argument("--sat-warmup", type=float, default=5.0)
    parser.add_argument("--out", metavar="PATH", help="keep every run's figures as JSON")
    parser.add_argument("--quiet-steal", type=float, default=0.05, metavar="SHARE",
                        help="also sum up the pairs whose two runs both had less steal than "
                        "this (default 0.05: 5%%)")
    parser.add_argument("--from", dest="from_json", metavar="PATH", nargs="+",
                        help="run nothing: sum up the runs kept in these files (--out of "
                        "this script, or load.py --json) again")
    parser.add_argument("--by-steal", action="store_true",
                        help="also pool every run (paired or not) by its steal: medians of "
                        "each side for the runs under 1%%, 2%%, 5%% and all")
    args = parser.parse_args(argv)
    kinds = [args.only] if args.only else list(KINDS)
    if args.from_json:
        runs = [run for path in args.from_json for run in load_runs(path)]
        report(kinds, runs, args.quiet_steal)
        if args.by_steal:
            for kind in kinds:
                for line in by_steal(kind, runs):
                    print(line)
        return
    runs: list[dict] = []
    for kind in kinds:
        duration = args.held_duration if kind == "held" else args.sat_duration
        warmup = args.held_warmup if kind == "held" else args.sat_warmup
        for round_no in range(args.rounds):
            order = ("off", "on") if round_no % 2 == 0 else ("on", "off")
            for db in order:
                r = run_once(kind, db, duration, warmup)
                runs.append(r)
                print(f"{r['at']} {kind} round {round_no + 1} db {db:<3}  "
                      f"turns/s {r['turns_per_s']:8.1f}  p50 {r['p50_ms']:6.1f} ms  "
                      f"p99 {r['p99_ms']:6.1f} ms  cores {r['cores']:.2f}  "
                      f"{r['cpu_ms_per_turn']:.3f} ms a turn  steal {r['steal']:.1%}  "
                      f"others {r['other_cores']:.2f}", flush=True)
                if args.out:
                    with open(args.out, "w", encoding="utf-8") as f:
                        json.dump(runs, f, indent=1)
    report(kinds, runs, args.quiet_steal)


def load_runs(path: str) -> list[dict]:
    """The runs kept in ``path``: a list (``--out``) or one run (``load.py --json``,
    whose kind its think time says: none, saturation)."""
    with open(path, encoding="utf-8") as f:
        kept = json.load(f)
    runs = kept if isinstance(kept, list) else [kept]
    for run in runs:
        if "kind" not in run:
            run["kind"] = "sat" if run["think"][1] == 0 else "held"
    return runs


def by_steal(kind: str, runs: list[dict]) -> list[str]:
    """Every run of ``kind`` pooled by its steal (not pairs): each side's medians."""
    lines = [f"{kind}, every run pooled by its steal (medians, on/off):"]
    keys = ("turns_per_s", "cpu_ms_per_turn") if kind == "sat" else ("p99_ms", "cpu_ms_per_turn")
    for limit in (0.01, 0.02, 0.05, float("inf")):
        side = {db: [r for r in runs if r["kind"] == kind and r["db"] == db
                     and r["steal"] < limit] for db in ("off", "on")}
        label = "all" if limit == float("inf") else f"steal under {limit:.0%}"
        if not side["off"] or not side["on"]:
            lines.append(f"  {label:<17} too few runs")
            continue
        figures = []
        for key in keys:
            off = statistics.median(r[key] for r in side["off"])
            on = statistics.median(r[key] for r in side["on"])
            figures.append(f"{key} {on:.3f} / {off:.3f} = {ratio(on, off):.4f}")
        lines.append(f"  {label:<17} runs {len(side['off'])} off, {len(side['on'])} on: "
                     + "; ".join(figures))
    return lines


def report(kinds: list[str], runs: list[dict], quiet_steal: float) -> None:
    print()
    for kind in kinds:
        pairs = pairs_of(kind, runs)
        if not pairs:
            continue
        for line in summarize(kind, pairs):
            print(line)
        quiet = [(off, on) for off, on in pairs
                 if off["steal"] < quiet_steal and on["steal"] < quiet_steal]
        for line in summarize(kind, quiet, f" (both runs' steal under {quiet_steal:.0%})"):
            print(line)


if __name__ == "__main__":
    main()
