"""An asyncio event loop on virtual time (no tests here): its clock moves only when
every task waits, straight to the next timer, so a wait of 120 s takes no time and a
test can say exactly when something happened (asyncio's ``MockClock(autojump_threshold=0)``).

    with virtual_loop() as loop:
        loop.run_until_complete(main())
        assert loop.time() == 121.0
"""

from __future__ import annotations

import asyncio
import contextlib
import selectors
from collections.abc import Iterator
from typing import Any


class _JumpingSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """Nothing ready and a timer due in ``timeout`` s: the loop's clock jumps there."""

    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = super().select(0)
        if ready or timeout == 0:
            return ready  # type: ignore[no-any-return]
        if timeout is None:  # nothing scheduled: only real I/O (a pipe) can wake it
            return super().select(None)  # type: ignore[no-any-return]
        self._loop.now += timeout
        return []


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        super().__init__(_JumpingSelector(self))

    def time(self) -> float:
        return self.now


@contextlib.contextmanager
def virtual_loop(start: float = 0.0) -> Iterator[VirtualTimeLoop]:
    loop = VirtualTimeLoop(start)
    try:
        yield loop
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


def run_virtual(coro: Any, start: float = 0.0) -> tuple[Any, float]:
    """Run ``coro`` on virtual time: its result and the loop's clock when it ended."""
    with virtual_loop(start) as loop:
        return loop.run_until_complete(coro), loop.time()
