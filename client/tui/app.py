"""The prompt_toolkit ``Application``: model, layout, keys and style put together, and
the task that feeds it the server's messages.

``await run_tui(conn)`` runs the terminal client on a connected
:class:`~nimmt.client.net.ClientConnection` (or anything with the same
``welcome``/``handshake_errors``/``events()``/``send()``/``close()``) and returns
an :class:`Outcome`: why it ended, in one line, and whether that was an error.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from nimmt import protocol as P
from nimmt.protocol import Message

from ..keep import TableKeeper
from ..link import LinkEvent
from ..model import TableModel
from ..net import ClientError
from ..replay import ReplayPlayer
from .controller import Controller, StartPlan
from .keys import build_key_bindings
from .layout import Screen
from .style import STYLE

__all__ = ["AppConnection", "Outcome", "build_application", "run_tui", "run_replay",
           "KEEP_EVERY"]

#: Seconds between two saves of the log (``client.keep``) while messages come.
KEEP_EVERY = 1.0


class AppConnection(Protocol):
    welcome: P.Welcome | None
    handshake_errors: list[P.Error]

    async def send(self, msg: Message) -> int | None: ...

    def events(self, *, through_shutdown: Callable[[], bool] | None = None
               ) -> AsyncIterator[Message | LinkEvent]: ...

    async def close(self, reason: str = "quit", message: str = "") -> None: ...


@dataclass(slots=True)
class Outcome:
    """How the session ended: ``message`` for the terminal (may be empty), ``error``."""

    message: str = ""
    error: bool = False


def build_application(c: Controller, *, input: Input | None = None,
                      output: Output | None = None,
                      clock: Callable[[], float] = time.monotonic) -> Application[Any]:
    """The full-screen application for controller ``c`` (wires ``c.invalidate``/``c.exit``)."""
    screen = Screen(c, clock)
    c.fits = screen.fits
    app: Application[Any] = Application(
        layout=screen.layout,
        key_bindings=build_key_bindings(c, screen),
        style=STYLE,
        full_screen=True,
        mouse_support=False,
        refresh_interval=0.5,
        input=input,
        output=output,
    )
    app.ttimeoutlen = 0.05  # a lone Esc closes panels quickly
    screen.size = app.output.get_size
    c.invalidate = app.invalidate

    def exit_app() -> None:
        if app.is_running and not app.is_done:
            app.exit()

    c.exit = exit_app
    return app


async def run_tui(conn: AppConnection, *, plan: StartPlan | None = None,
                  input: Input | None = None, output: Output | None = None,
                  clock: Callable[[], float] = time.monotonic,
                  ready: Callable[[Controller, Application[Any]], None] | None = None,
                  on_welcome: Callable[[P.Welcome], None] | None = None,
                  keeper: TableKeeper | None = None) -> Outcome:
    """Run the terminal client until the player quits or the connection ends.

    ``on_welcome`` is called with every new welcome after a reconnection (to keep
    the session token on disk). SIGHUP and SIGTERM end the client as ``q`` would
    outside a game (the terminal is gone: nobody can answer a question).
    ``keeper`` brings back the log, score sheet and ranking an earlier run kept, and
    keeps them (at most every :data:`KEEP_EVERY` seconds, and at the end).
    """
    model = TableModel(clock)
    if keeper is not None:
        keeper.restore(model)
    for err in conn.handshake_errors:
        model.apply(err)
    if conn.welcome is not None:
        model.apply(conn.welcome)
    c = Controller(model, conn, plan=plan, clock=clock)
    if on_welcome is not None:
        c.on_welcome = on_welcome
    app = build_application(c, input=input, output=output, clock=clock)
    loop = asyncio.get_running_loop()
    hooked: list[signal.Signals] = []
    for sig in (signal.SIGHUP, signal.SIGTERM) if hasattr(signal, "SIGHUP") else ():
        try:
            loop.add_signal_handler(sig, c.exit)
            hooked.append(sig)
        except (RuntimeError, ValueError, NotImplementedError):  # not the main thread
            pass
    outcome = Outcome()

    kept_at = [time.monotonic()]

    def through_shutdown() -> bool:
        """A server stopping keeps our seat (and a restart brings it back), and a queue
        wait is queued again: wait for it. In the lobby there is nothing to wait for.
        A solo game's server lives and dies with us: nothing to wait for either."""
        return not c.plan.solo and (model.table is not None or model.queued is not None)

    async def pump() -> None:
        try:
            async for msg in conn.events(through_shutdown=through_shutdown):
                c.on_message(msg)
                app.invalidate()
                if keeper is not None and time.monotonic() - kept_at[0] >= KEEP_EVERY:
                    keeper.save(model)
                    kept_at[0] = time.monotonic()
        except ClientError as exc:
            outcome.message, outcome.error = str(exc), True
        else:
            g = model.goodbye
            address = getattr(conn, "address", None)
            gone = model.nothing_kept_text()
            if gone is not None:
                outcome.message = gone[0].lower() + gone[1:]
            elif g is not None and g.reason == "server_shutdown" and address:
                outcome.message = (f"the server at {address} stopped. Start it again and run "
                                   f"nimmt-client {address} to come back.")
            elif g is not None:
                why = g.message or g.reason.replace("_", " ")
                outcome.message = f"the server closed the connection: {why}"
                outcome.error = g.reason not in ("server_shutdown", "quit")
        c.exit()

    running = asyncio.Event()

    async def pump_when_running() -> None:
        await running.wait()
        c.start()
        await pump()

    def pre_run() -> None:
        running.set()
        if ready is not None:
            ready(c, app)

    try:
        await _run_beside(app, pump_when_running(), pre_run)
    finally:
        for sig in hooked:
            loop.remove_signal_handler(sig)
        await c.drain()
        await conn.close()
        if keeper is not None:
            keeper.save(model)
    return outcome


async def _run_beside(app: Application[Any], work: Any, pre_run: Callable[[], None]) -> None:
    """Run ``app`` with the coroutine ``work`` beside it; ``work`` ends with the app."""
    task = asyncio.ensure_future(work)
    try:
        await app.run_async(pre_run=pre_run)
    finally:
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception):  # noqa: BLE001 - already reported
            pass


class _NoServer:
    """A replay's "connection": there is no server, and nothing is ever sent."""

    async def send(self, msg: Message) -> int | None:
        return None


async def run_replay(player: ReplayPlayer, *, input: Input | None = None,
                     output: Output | None = None,
                     clock: Callable[[], float] = time.monotonic,
                     ready: Callable[[Controller, Application[Any]], None] | None = None
                     ) -> Outcome:
    """Show a replay on the board until the player quits (``nimmt-client --replay``)."""
    c = Controller(player.model, _NoServer(), clock=clock)
    c.replay = player
    app = build_application(c, input=input, output=output, clock=clock)

    async def tick() -> None:
        while True:
            await asyncio.sleep(1.0 / player.speed)
            if c.replay_tick():
                app.invalidate()

    def pre_run() -> None:
        if ready is not None:
            ready(c, app)

    await _run_beside(app, tick(), pre_run)
    return Outcome()
