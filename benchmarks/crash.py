"""SIGKILL a real nimmt-server at random moments of many games, tens of times over.

    python benchmarks/crash.py                        # 30 kills, 8 new games each
    python benchmarks/crash.py --kills 50 --tables 10 --rounds 20

Each round starts `python -m nimmt.server --db FILE` on 127.0.0.1, opens
`--tables` tables whose games (three built-in bots and the autopilot) run at full
speed, waits a random moment (up to `--max-delay` seconds) and kills the server
with SIGKILL; the games of earlier rounds are brought back by every restart and
go on. A last server finishes every game. Then: every game started is kept
exactly once, and every kept record replays through the engine to the result
stored with it. The logic is tests/crash_driver.py (the test suite runs it with
three kills); this script only runs it longer and reports.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import crash_driver  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--tables", type=int, default=8, help="new games in each round")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of each game")
    parser.add_argument("--max-delay", type=float, default=0.5,
                        help="the kill comes up to this many seconds after the games open")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp(prefix="nimmt-crash-")) / "nimmt.db"
    t0 = time.monotonic()
    run = crash_driver.run(db, kills=args.kills, tables=args.tables, max_delay=args.max_delay,
                           rounds=args.rounds, seed=args.seed, finish_timeout=300.0)
    checked = crash_driver.check(db, run.started)
    print(f"{run.kills} SIGKILLs, {len(run.started)} games started, {checked} kept, every "
          f"record replays to its stored result ({time.monotonic() - t0:.1f} s)")
    print(f"games in progress at each kill: median {statistics.median(run.cut):g}, "
          f"max {max(run.cut)}, total {sum(run.cut)}")
    print(f"restart to listening: median {statistics.median(run.restarts) * 1000:.0f} ms, "
          f"max {max(run.restarts) * 1000:.0f} ms; the last server finished the games "
          f"left in {run.seconds_to_finish:.2f} s")


if __name__ == "__main__":
    main()
