"""A think worker (``python -m nimmt.server.thinking.worker FD PID``): decides the views it is sent.

Started by ``thinking.ThinkPool``; says ``("ready",)`` once its imports are
done, then reads ``(spec, seed, view, state)`` from the socket ``FD`` and answers
``("ok", decision, state, note)`` or ``("error", text)``, until the socket
closes (the server ended or killed it). It decides with the strategies and the
engine only.

It dies with its server (``PID``), even one killed with SIGKILL in the middle of
a decision: on Linux the kernel kills it (``prctl(PR_SET_PDEATHSIG)``, asked for
first thing); elsewhere a thread sees its parent change and ends the process. A
closed socket alone would be noticed only once the decision is made.

A worker keeps nothing between decisions: a bot's strategy (what a searching bot
has learnt of its table, its random generator) travels with each job as
``state``, the strategy object pickled after its last decision, and comes back
pickled after this one; the server keeps it for the bot's next decision, whichever
worker takes it. ``state`` None (a bot's first decision), one that cannot be
loaded, or one of another strategy: a fresh ``make_strategy(spec, seed)``, and
``note`` says why. The state is only ever a blob this same code pickled, kept in
the server's memory: nothing from the network is unpickled.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from nimmt.bots import STRATEGIES, Strategy, make_strategy, parse_strategy

from .pool import MAX_STATE_BYTES

__all__ = ["WORKER_NICENESS", "die_with", "load_strategy", "save_strategy"]

#: how much lower the workers' priority is than the server's (``nice``)
WORKER_NICENESS = 10
_PR_SET_PDEATHSIG = 1
#: how often the watching thread looks at its parent where ``prctl`` is missing (seconds)
_PARENT_POLL = 0.2


def die_with(parent: int) -> None:
    """End this process when ``parent`` (the server) ends, whatever this process is
    doing then; end it now if ``parent`` has ended already."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent:  # it died before prctl took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):  # no prctl: watch instead
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="parent watch", daemon=True).start()


def load_strategy(spec: str, seed: int | None, state: bytes | None) -> tuple[Strategy, str | None]:
    """The strategy ``state`` holds, or a fresh ``make_strategy(spec, seed)`` and why
    (None: none needed). Raises ``StrategyError`` for a ``spec`` that cannot be made."""
    if state is None:
        return make_strategy(spec, seed), None
    why: str
    if len(state) > MAX_STATE_BYTES:
        why = f"its state is {len(state)} bytes, more than {MAX_STATE_BYTES}"
    else:
        try:
            strategy = pickle.loads(state)  # noqa: S301 - our own pickle, from the server
        except Exception as e:  # noqa: BLE001 - any corrupt or outdated pickle
            why = f"its state could not be loaded ({e!r})"
        else:
            expected = STRATEGIES[parse_strategy(spec)[0]].factory
            fits = not isinstance(expected, type) or isinstance(strategy, expected)
            if fits and callable(getattr(strategy, "decide", None)):
                return strategy, None
            why = f"its state holds a {type(strategy).__name__}, not a {spec}"
    return make_strategy(spec, seed), f"{why}: it starts afresh"


def save_strategy(strategy: Strategy) -> tuple[bytes | None, str | None]:
    """``strategy`` pickled, or None and why it cannot be kept."""
    try:
        state = pickle.dumps(strategy, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # noqa: BLE001 - a strategy that does not pickle
        return None, f"its state could not be saved ({e!r}): it starts afresh next time"
    if len(state) > MAX_STATE_BYTES:
        return None, (f"its state grew to {len(state)} bytes, more than {MAX_STATE_BYTES}: "
                      "it starts afresh next time")
    return state, None


def _serve(conn: Connection) -> None:
    """A worker process: decide every view it is sent until its pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # pragma: no cover - not allowed here
        pass
    try:
        conn.send(("ready",))  # the imports are done: jobs may come
    except (OSError, ValueError):
        return
    while True:
        try:
            spec, seed, view, state = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        reply: tuple[Any, ...]
        try:
            strategy, loaded = load_strategy(spec, seed, state)
            decision = strategy.decide(view)
            state, saved = save_strategy(strategy)
            notes = [n for n in (loaded, saved) if n is not None]
            reply = ("ok", decision, state, "; ".join(notes) or None)
        except Exception as e:  # a strategy's bug: the server decides another way
            reply = ("error", repr(e))
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


if __name__ == "__main__":
    if len(sys.argv) > 2:
        die_with(int(sys.argv[2]))
    _serve(Connection(int(sys.argv[1])))
