"""Runs ``nimmt-replay analyse … --json`` for a replay in the background.

The client imports only the protocol, so it runs the record command in a
subprocess, as ``--replay`` and the round's turning point do. The command draws
its progress bar only on a terminal: its standard error is given a pseudo-terminal
of its own (where there is one), read as it comes, so the panel can say how far
the analysis is; the replay is usable meanwhile, nothing here waits on a key.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence

from .replay_analysis import ReplayAnalysis

__all__ = ["analyse_argv", "run_analysis"]


def analyse_argv(game: str, db: str | None, seat: int,
                 python: str = sys.executable) -> list[str]:
    """The record command analysing ``seat`` (0 the first) of ``game`` (a record file,
    or with ``db`` a game id), as one JSON object."""
    return [python, "-m", "nimmt.server.records", "analyse", game,
            *(("--db", db) if db is not None else ()),
            "--seat", str(seat), "--json", "--jobs", "1"]


def _open_pty() -> tuple[int, int] | None:
    try:
        master, slave = os.openpty()
    except (AttributeError, OSError):  # no pseudo-terminals here: no progress, only the end
        return None
    os.set_blocking(master, False)
    return master, slave


def _last_error(text: str) -> str:
    """The last line of the command's errors that is not its progress bar."""
    lines = [line.strip() for chunk in text.split("\n") for line in chunk.split("\r")]
    lines = [line for line in lines if line and not line.startswith("analysing [")]
    return lines[-1] if lines else ""


async def run_analysis(state: ReplayAnalysis, argv: Sequence[str],
                       changed: Callable[[], None]) -> None:
    """Run ``argv`` (:func:`analyse_argv`) and put what it says in ``state``: its
    progress as it comes, then the analysis or why it failed; ``changed()`` after each.
    Cancelled (the replay ends first), it ends the subprocess."""
    loop = asyncio.get_running_loop()
    pty = _open_pty()
    errors: list[str] = []
    proc: asyncio.subprocess.Process | None = None

    def readable() -> None:
        assert pty is not None
        while True:
            try:
                data = os.read(pty[0], 4096)
            except BlockingIOError:
                return
            except OSError:  # the command's side is closed: it has ended
                data = b""
            if not data:
                loop.remove_reader(pty[0])
                return
            text = data.decode("utf-8", "replace")
            errors.append(text)
            if state.progress(text):
                changed()

    try:
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=pty[1] if pty is not None else asyncio.subprocess.PIPE)
        finally:
            if pty is not None:
                os.close(pty[1])  # (the command holds its own copy)
        if pty is not None:
            loop.add_reader(pty[0], readable)
        out, err = await proc.communicate()
        if pty is not None:
            readable()  # what is left of its last words
        errors.append(err.decode("utf-8", "replace") if err else "")
        if proc.returncode != 0:
            why = _last_error("".join(errors)) or f"the command ended with code {proc.returncode}"
            state.fail(why)
        else:
            try:
                data = json.loads(out)
            except ValueError as exc:
                state.fail(f"its output is not JSON ({exc})")
            else:
                state.finish(data)
    except OSError as exc:
        state.fail(f"cannot run the analysis command ({exc})")
    finally:
        if pty is not None:
            loop.remove_reader(pty[0])
            os.close(pty[0])
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await asyncio.shield(proc.wait())
    changed()
