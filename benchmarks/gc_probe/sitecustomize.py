"""A probe of the garbage collector's pauses in a nimmt server started by a benchmark.

    PYTHONPATH=benchmarks/gc_probe python benchmarks/load.py --tables 250 \\
        --think 0.5:1.5 --duration 30 --warmup 10 --db off
    cat /tmp/nimmt-gc-probe-*.txt

Python imports ``sitecustomize`` at start-up in every process on ``PYTHONPATH``; this one
acts only in a ``nimmt.server`` process. It times every collection (wall and the
thread's CPU, ``gc.callbacks``) and every trio task step over 5 ms (an instrument added
to ``trio.run``), and writes a summary when the server exits:
``/tmp/nimmt-gc-probe-PID.txt``. ``kill -USR1 PID`` while it runs adds a census of the
tracked objects by type. ``NIMMT_GC_THRESHOLD=700,10,10`` sets the collector's
thresholds (and undoes the server's freeze) just before ``trio.run``: the server as it
was with Python's defaults. ``NIMMT_GC_YOUNG=1`` also counts the objects each young
collection looks at (slower).
"""

from __future__ import annotations

import gc
import os
import time
from collections import Counter
from typing import Any

try:
    with open("/proc/self/cmdline", "rb") as _f:
        _COMMAND = _f.read()
except OSError:
    _COMMAND = b""

_OUT = f"/tmp/nimmt-gc-probe-{os.getpid()}.txt"
_pauses: list[tuple[int, float, float, int]] = []  # generation, wall ms, CPU ms, young seen
_slow_steps: list[tuple[float, str]] = []  # ms, task
_started: list[float] = []
_young_seen = [0]


def _on_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        if info["generation"] == 0 and os.environ.get("NIMMT_GC_YOUNG"):
            _young_seen[0] = len(gc.get_objects(0))
        _started[:] = [time.perf_counter(), time.thread_time()]
    elif _started:
        wall = (time.perf_counter() - _started[0]) * 1000
        cpu = (time.thread_time() - _started[1]) * 1000
        generation = info["generation"]
        _pauses.append((generation, wall, cpu, _young_seen[0] if generation == 0 else 0))


def _summary(*_: Any) -> None:
    with open(_OUT, "w", encoding="utf-8") as out:
        for generation in (2, 1, 0):
            times = [p for p in _pauses if p[0] == generation]
            slow = [p for p in times if p[1] >= 2.0]
            out.write(f"generation {generation}: {len(times)} collections, {len(slow)} of 2 ms "
                      f"or more: CPU {sum(p[2] for p in slow):.0f} ms in those, longest "
                      f"{max((p[2] for p in times), default=0):.1f} ms CPU")
            seen = [p[3] for p in times if p[3]]
            out.write(f"; objects looked at up to {max(seen)}\n" if seen else "\n")
        out.write(f"all collections: CPU {sum(p[2] for p in _pauses):.0f} ms\n")
        out.write(f"task steps over 5 ms: {len(_slow_steps)}, longest "
                  f"{max((s[0] for s in _slow_steps), default=0):.1f} ms\n")
        for ms, name in sorted(_slow_steps, reverse=True)[:10]:
            out.write(f"  {ms:7.1f} ms  {name}\n")


def _census(*_: Any) -> None:
    objects = gc.get_objects()
    kinds = Counter(f"{getattr(type(o), '__module__', '?')}.{getattr(type(o), '__qualname__', '?')}"
                    for o in objects)
    with open(_OUT.replace(".txt", "-census.txt"), "w", encoding="utf-8") as out:
        out.write(f"tracked objects: {len(objects)}\n")
        for kind, count in kinds.most_common(25):
            out.write(f"{count:8d}  {kind}\n")


def _install() -> None:
    import atexit
    import signal

    import trio

    class SlowSteps(trio.abc.Instrument):
        def before_task_step(self, task: trio.lowlevel.Task) -> None:
            self.began = time.perf_counter()

        def after_task_step(self, task: trio.lowlevel.Task) -> None:
            ms = (time.perf_counter() - self.began) * 1000
            if ms > 5.0:
                _slow_steps.append((ms, task.name))

    run = trio.run

    def probed_run(*args: Any, **kwargs: Any) -> Any:
        threshold = os.environ.get("NIMMT_GC_THRESHOLD")
        if threshold:
            gc.unfreeze()
            gc.set_threshold(*(int(x) for x in threshold.split(",")))
        kwargs["instruments"] = [*kwargs.get("instruments", ()), SlowSteps()]
        return run(*args, **kwargs)

    trio.run = probed_run
    gc.callbacks.append(_on_collection)
    atexit.register(_summary)
    signal.signal(signal.SIGUSR1, _census)


if b"nimmt.server" in _COMMAND:
    _install()
