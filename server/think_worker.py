"""A think worker (``python -m nimmt.server.think_worker FD``): decides the views it is sent.

Started by ``thinking.ThinkPool``; reads ``(spec, seed, view)`` from the socket
``FD`` and answers ``("ok", decision)`` or ``("error", text)``, until the socket
closes (the server ended or killed it). It imports the strategies and the
engine only.
"""

from __future__ import annotations

import os
import signal
import sys
from collections import OrderedDict
from multiprocessing.connection import Connection
from typing import Any

from nimmt.bots import Strategy, make_strategy

__all__ = ["WORKER_NICENESS"]

#: how much lower the workers' priority is than the server's (``nice``)
WORKER_NICENESS = 10
#: strategies a worker keeps between decisions (each bot's own, by spec and seed)
_KEPT = 256


def _serve(conn: Connection) -> None:
    """A worker process: decide every view it is sent until its pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # pragma: no cover - not allowed here
        pass
    kept: OrderedDict[tuple[str, int | None], Strategy] = OrderedDict()
    while True:
        try:
            spec, seed, view = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            strategy = kept.get((spec, seed))
            if strategy is None:
                strategy = kept[(spec, seed)] = make_strategy(spec, seed)
                if len(kept) > _KEPT:
                    kept.popitem(last=False)
            kept.move_to_end((spec, seed))
            reply: tuple[str, Any] = ("ok", strategy.decide(view))
        except Exception as e:  # a strategy's bug: the server decides another way
            reply = ("error", repr(e))
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
