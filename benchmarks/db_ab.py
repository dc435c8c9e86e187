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
have longer tails whatever the database does; compare only windows alike.
`--out PATH` keeps every run's figures as JSON.
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


def summarize(kind: str, runs: list[dict]) -> list[str]:
    """The medians of each side and the targets, as lines of text."""
    side = {db: [r for r in runs if r["kind"] == kind and r["db"] == db] for db in ("off", "on")}
    if not side["off"] or not side["on"]:
        return []
    pairs = list(zip(side["off"], side["on"]))

    def med(db: str, key: str) -> float:
        return statistics.median(r[key] for r in side[db])

    def pair_med(key: str) -> float:
        return statistics.median(ratio(on[key], off[key]) for off, on in pairs)

    lines = [f"{kind}: {len(pairs)} pairs; steal median off {med('off', 'steal'):.1%}, "
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
        lines.append(f"  {label:<20} off {off:8.3f}  on {on:8.3f}  on/off {of_medians:.3f} "
                     f"(rounds' own: {of_pairs:.3f}){verdict}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="pairs of runs of each kind")
    parser.add_argument("--only", choices=tuple(KINDS), help="one kind of load only")
    parser.add_argument("--held-duration", type=float, default=30.0)
    parser.add_argument("--held-warmup", type=float, default=10.0)
    parser.add_argument("--sat-duration", type=float, default=15.0)
    parser.add_argument("--sat-warmup", type=float, default=5.0)
    parser.add_argument("--out", metavar="PATH", help="keep every run's figures as JSON")
    args = parser.parse_args()
    kinds = [args.only] if args.only else list(KINDS)
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
    print()
    for kind in kinds:
        for line in summarize(kind, runs):
            print(line)


if __name__ == "__main__":
    main()
