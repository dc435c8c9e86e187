"""The arena on a cluster: what a distributed engine costs on this machine.

Two measurements (benchmarks/README.md, "The arena on a cluster"):

    # an engine's start time and overhead per task, local cluster of 2 workers
    # (runs in any venv holding the engine; nimmt is not needed):
    python benchmarks/cluster.py engine --engine dask --tasks 400
    python benchmarks/cluster.py engine --engine ray --tasks 400

    # the arena's wall time with --jobs 2 against --cluster on 2 local workers,
    # the same games, alternated, each run --repeats times (medians):
    python benchmarks/cluster.py arena --repeats 3 --rounds 64

Everything runs on 127.0.0.1. The overhead per task is the wall time of a
batch of empty tasks divided by their number, against the same batch in a
``multiprocessing`` pool of 2 (what ``--jobs 2`` uses).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time


def _nothing(x: int) -> int:
    return x


def _pool_per_task(tasks: int) -> float:
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(_nothing, range(10))
        start = time.perf_counter()
        list(pool.imap_unordered(_nothing, range(tasks), chunksize=1))
        return (time.perf_counter() - start) / tasks


def _dask(tasks: int) -> dict[str, float]:
    from distributed import Client, LocalCluster, wait

    start = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    client = Client(cluster)
    client.gather(client.map(_nothing, range(10), pure=False))
    started = time.perf_counter() - start
    begin = time.perf_counter()
    futures = client.map(_nothing, range(tasks), pure=False)
    wait(futures)
    per_task = (time.perf_counter() - begin) / tasks
    client.close()
    cluster.close()
    return {"start_s": started, "per_task_ms": 1000 * per_task}


def _ray(tasks: int) -> dict[str, float]:
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(_nothing)
    ray.get([remote.remote(i) for i in range(10)])
    started = time.perf_counter() - start
    begin = time.perf_counter()
    ray.get([remote.remote(i) for i in range(tasks)])
    per_task = (time.perf_counter() - begin) / tasks
    ray.shutdown()
    return {"start_s": started, "per_task_ms": 1000 * per_task}


def engine(args: argparse.Namespace) -> dict[str, object]:
    run = {"dask": _dask, "ray": _ray}[args.engine]
    out: dict[str, object] = {"engine": args.engine, "tasks": args.tasks, **run(args.tasks)}
    out["pool_per_task_ms"] = 1000 * _pool_per_task(args.tasks)
    return out


def arena(args: argparse.Namespace) -> dict[str, object]:
    from distributed import LocalCluster

    from nimmt.bots.arena import ArenaConfig, run_arena
    from nimmt.engine import Options

    seats = tuple(args.seats.split(","))
    config = ArenaConfig(seats, -(-args.rounds // len(seats)), Options(len(seats), rounds=1,
                                                                         point_limit=None))
    local: list[float] = []
    remote: list[float] = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        for _ in range(args.repeats):
            local.append(run_arena(config, 2).seconds)
            remote.append(run_arena(config, 2, cluster=cluster.scheduler_address).seconds)
    games = len(config.units())
    return {"seats": args.seats, "games": games, "jobs2_s": local, "cluster_s": remote,
            "jobs2_median_s": statistics.median(local),
            "cluster_median_s": statistics.median(remote),
            "overhead_per_game_ms": 1000 * (statistics.median(remote)
                                             - statistics.median(local)) / games,
            "ratio": statistics.median(remote) / statistics.median(local)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    e = sub.add_parser("engine", help="an engine's start time and overhead per task")
    e.add_argument("--engine", choices=("dask", "ray"), default="dask")
    e.add_argument("--tasks", type=int, default=400)
    a = sub.add_parser("arena", help="the arena with --jobs 2 against --cluster (2 workers)")
    a.add_argument("--seats", default="search:ms=5,heuristic,random,random")
    a.add_argument("--rounds", type=int, default=64)
    a.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    result = engine(args) if args.what == "engine" else arena(args)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
