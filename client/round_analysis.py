"""A finished round's turning point for you (issue 45): the record of the round
(:mod:`.round_record`) analysed by ``nimmt-replay analyse`` in a subprocess (the
client imports only the protocol, so it runs the record command, as ``--replay``
does), read back from its ``--json``; awaited in the background, never blocking a key.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import Any, Final

__all__ = ["analyse_command", "turning_point_line", "round_turning_point"]

#: What a decision was, in the turning point's words.
_WHAT: Final = {"card": "card", "row": "row to take", "tie": "place"}


def analyse_command(path: str, seat: int) -> list[str]:
    """The record command analysing ``seat`` of the record at ``path``."""
    return [sys.executable, "-m", "nimmt.server.records", "analyse", path,
            "--seat", str(seat), "--json", "--jobs", "1"]


def turning_point_line(round_number: int, analysis: dict[str, Any]) -> str:
    """The log's line for the round, from the analysis JSON of one seat's round."""
    worst = analysis["seats"][0]["rounds"][0]["worst"]
    if worst is None:
        return f"Round {round_number}: none of your decisions cost anything on average."
    loss = f"{worst['loss']:.1f}"
    heads = f"{loss} bullhead" + ("" if loss == "1.0" else "s")
    return (f"Round {round_number}'s turning point: your {worst['chosen']} on turn "
            f"{worst['turn']} cost {heads} on average; {worst['best']} was the best "
            f"{_WHAT.get(worst['kind'], 'choice')}.")


async def round_turning_point(round_number: int, record: dict[str, Any], seat: int,
                              command: Sequence[str] | None = None) -> str:
    """The turning point line for ``seat`` of a one-round ``record`` (``command``: the
    analyse command's start, for tests; the record's path and options follow it).
    Says why when the analysis fails. Cancelled (the client quits), it ends the
    subprocess."""
    fd, path = tempfile.mkstemp(prefix="nimmt-round-", suffix=".json")
    proc: asyncio.subprocess.Process | None = None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f)
        argv = (list(command) + [path, "--seat", str(seat), "--json"] if command is not None
                else analyse_command(path, seat))
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
        if proc.returncode != 0:
            why = (err.decode(errors="replace").strip().splitlines() or ["no reason given"])[-1]
            return f"Round {round_number}'s analysis failed: {why}"
        return turning_point_line(round_number, json.loads(out))
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        return f"Round {round_number}'s analysis failed: {exc}"
    finally:
        if proc is not None and proc.returncode is None:
            proc.kill()
            await asyncio.shield(proc.wait())
        os.unlink(path)
