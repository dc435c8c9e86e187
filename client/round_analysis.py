"""A finished round's analysis for you (issue 45): the record of the round
(:mod:`.round_record`) analysed by ``nimmt-replay analyse`` in a subprocess (the
client imports only the protocol, so it runs the record command, as ``--replay``
does), read back from its ``--json`` whole (every decision of the round); awaited in
the background, never blocking a key. :class:`AnalysedRound` is what the model keeps
of it: the log's turning point, the score sheet's line and the analysis screen (A)
come from there.

``NIMMT_ANALYSE_COMMAND`` replaces the command's start (``python -m
nimmt.server.records analyse``; split as a shell would), e.g. to run it slowly in a
test; ``off`` turns the analysis off.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["ANALYSE_ENV", "AnalysisFailed", "AnalysedRound", "analyse_command",
           "analysis_off", "turning_point_line", "analyse_round"]

#: The environment variable that replaces the analyse command's start ("off": none).
ANALYSE_ENV: Final = "NIMMT_ANALYSE_COMMAND"
#: What a decision was, in the turning point's words.
_WHAT: Final = {"card": "card", "row": "row to take", "tie": "place"}
#: What the screen reads of each decision.
_DECISION_KEYS: Final = ("turn", "kind", "chosen", "best", "loss", "loss_ci95", "mark",
                         "choices")


class AnalysisFailed(Exception):
    """The analysis did not come back; ``str()`` says why in one line."""


@dataclass(frozen=True, slots=True)
class AnalysedRound:
    """A round of yours this game: being analysed (``analysis`` and ``why`` None),
    analysed (``analysis``: the command's whole ``--json``, docs/ANALYSIS.md), or not
    (``why``: the analysis failed, or the round is not analysed, in the log's words)."""

    round: int
    analysis: dict[str, Any] | None = None
    why: str | None = None

    @property
    def running(self) -> bool:
        return self.analysis is None and self.why is None

    @property
    def seat_round(self) -> dict[str, Any] | None:
        """The analysed round of your seat (``expected_loss``, ``bullheads``, ``worst``,
        ``decisions``), or None while there is none."""
        if self.analysis is None:
            return None
        return self.analysis["seats"][0]["rounds"][0]  # type: ignore[no-any-return]


def analyse_command(path: str, seat: int) -> list[str]:
    """The record command analysing ``seat`` of the record at ``path``."""
    return [sys.executable, "-m", "nimmt.server.records", "analyse", path,
            "--seat", str(seat), "--json", "--jobs", "1"]


def analysis_off(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``NIMMT_ANALYSE_COMMAND=off`` turns the rounds' analysis off."""
    return environ.get(ANALYSE_ENV, "").strip() == "off"


def _argv(path: str, seat: int, command: Sequence[str] | None,
          environ: Mapping[str, str]) -> list[str]:
    if command is None and environ.get(ANALYSE_ENV, "").strip():
        command = shlex.split(environ[ANALYSE_ENV])
    if command is None:
        return analyse_command(path, seat)
    return list(command) + [path, "--seat", str(seat), "--json"]


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


def _checked(analysis: Any) -> dict[str, Any]:
    """``analysis`` if it holds a seat's round with its decisions (AnalysisFailed if not)."""
    try:
        rnd = analysis["seats"][0]["rounds"][0]
        if not isinstance(rnd["decisions"], list) or "worst" not in rnd:
            raise TypeError("no decisions")
        if rnd["worst"] is not None:
            missing = [k for k in ("turn", "kind", "chosen", "best", "loss")
                       if k not in rnd["worst"]]
            if missing:
                raise KeyError(missing[0])
        for d in rnd["decisions"]:
            missing = [k for k in _DECISION_KEYS if k not in d]
            if missing:
                raise KeyError(missing[0])
    except (KeyError, IndexError, TypeError) as exc:
        raise AnalysisFailed(f"the analysis is not one of a seat's round ({exc!r})") from None
    return analysis  # type: ignore[no-any-return]


async def analyse_round(record: dict[str, Any], seat: int,
                        command: Sequence[str] | None = None,
                        environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """The analysis JSON of ``seat`` in a one-round ``record`` (``command``: the
    analyse command's start, for tests; the record's path and options follow it).
    :class:`AnalysisFailed` says why when it fails. Cancelled (the client quits), it
    ends the subprocess."""
    fd, path = tempfile.mkstemp(prefix="nimmt-round-", suffix=".json")
    proc: asyncio.subprocess.Process | None = None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(record, f)
        argv = _argv(path, seat, command, environ)
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
        if proc.returncode != 0:
            why = (err.decode(errors="replace").strip().splitlines() or ["no reason given"])[-1]
            raise AnalysisFailed(why)
        return _checked(json.loads(out))
    except (OSError, ValueError) as exc:
        raise AnalysisFailed(str(exc)) from None
    finally:
        if proc is not None and proc.returncode is None:
            proc.kill()
            await asyncio.shield(proc.wait())
        os.unlink(path)
