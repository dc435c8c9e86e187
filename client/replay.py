"""Replays: a finished game shown on the same board, step by step, forwards and back.

The client imports only the protocol, never the engine or the server, so it does
not replay a record itself: it runs ``python -m nimmt.server.records
spectator FILE`` (or ``spectator --db PATH GAME_ID``) in a subprocess, as
``--solo`` runs a private server. That command prints the game as the protocol
messages a spectator of its table would have received, one JSON object a line;
:func:`load_replay` reads them back with the protocol's own decoder, and
:class:`ReplayPlayer` applies them to a :class:`~nimmt.client.model.TableModel`
up to a step: going back rebuilds the model from the start (a game is a few
hundred messages: a millisecond or two).

A *step* ends after each message that changes the board: the rows dealt, the
cards revealed, each card placed (with the row it took), a row or a tied place
to choose, a draft pick, the round's score, the game's end.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Final

from nimmt import protocol as P
from nimmt.protocol import Message

from .model import TableModel
from .replay_analysis import ReplayAnalysis

__all__ = ["ReplayError", "ReplayPlayer", "load_replay", "replay_command", "command_lines",
           "SPEEDS", "STEP_ENDS"]

#: The messages after which the board has changed: a step ends there.
STEP_ENDS: Final = frozenset({"snapshot", "rows_dealt", "revealed", "placed", "round_scored",
                              "game_over", "draft_picked", "row_choice_needed",
                              "tie_choice_needed"})
#: Steps a second when playing (+ and - move along).
SPEEDS: Final = (0.5, 1.0, 2.0, 4.0, 8.0)


class ReplayError(Exception):
    """The game could not be loaded; ``str()`` says why in one line."""


def replay_command(game: str, db: str | None = None,
                   python: str = sys.executable, seat: int | None = None) -> list[str]:
    """The command that prints the game as a spectator's messages (JSON lines); from
    ``seat``: as that player saw it, with its hands."""
    return [python, "-m", "nimmt.server.records", "spectator", game,
            *(("--db", db) if db is not None else ()),
            *(("--seat", str(seat)) if seat is not None else ())]


def load_replay(game: str, db: str | None = None, *, timeout: float = 60.0,
                seat: int | None = None) -> list[Message]:
    """The messages of game ``game`` (a record file, or with ``db`` a game id); from
    ``seat`` (0 the first): as its player saw them, its hand shown."""
    messages: list[Message] = []
    for n, line in enumerate(command_lines(replay_command(game, db, seat=seat), "replay",
                                           timeout, ReplayError), 1):
        try:
            messages.append(P.decode_message(json.loads(line), P.SERVER))
        except (ValueError, P.ProtocolError) as exc:
            raise ReplayError(f"line {n} of the replay is not a message: {exc}") from None
    if not messages:
        raise ReplayError("the replay is empty")
    return messages


def command_lines(argv: list[str], what: str, timeout: float,
                  error: type[Exception] = ReplayError) -> list[str]:
    """The lines ``argv`` prints; ``error`` with the last line of its errors (or why it
    could not run) when it fails. ``what``: the command, in words, for the errors."""
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise error(f"cannot run the {what} command ({exc})") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise error(why[-1] if why else f"the {what} command failed ({done.returncode})")
    return done.stdout.decode("utf-8", "replace").splitlines()


class ReplayPlayer:
    """Where a replay is: ``model`` shows the game after step ``position`` (0: the
    first), of ``len(steps)``; ``playing`` moves on ``speed`` steps a second."""

    def __init__(self, messages: Sequence[Message],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.messages = list(messages)
        self.clock = clock
        ends = [i + 1 for i, m in enumerate(self.messages) if m.TYPE in STEP_ENDS]
        # the round's rows come with its first turn: one step, or the title would say
        # "turn 1" only at the next one
        ends = [e + 1 if self.messages[e - 1].TYPE == "rows_dealt" and e < len(self.messages)
                and self.messages[e].TYPE == "turn_started" else e for e in ends]
        if not ends or ends[-1] != len(self.messages):
            ends.append(len(self.messages))
        self.steps = ends
        self.position = 0
        self.playing = False
        self.speed = 1.0
        self.model = self._model_at(0)
        #: the coach's analysis shown beside the steps (``--analyse``), or None
        self.analysis: ReplayAnalysis | None = None

    def _model_at(self, k: int) -> TableModel:
        model = TableModel(self.clock)
        for msg in self.messages[: self.steps[k]]:
            model.apply(msg)
        return model

    def go(self, position: int) -> None:
        """Show the game after step ``position`` (clamped to the replay)."""
        position = max(0, min(position, len(self.steps) - 1))
        if position == self.position:
            return
        if position > self.position:  # forwards: apply what follows
            for msg in self.messages[self.steps[self.position]: self.steps[position]]:
                self.model.apply(msg)
        else:
            self.model = self._model_at(position)
        self.position = position
        if self.at_end:
            self.playing = False

    def step(self, delta: int) -> None:
        self.go(self.position + delta)

    def round_step(self, delta: int) -> None:
        """The start of the next (``delta`` 1) or this/previous (-1) round's play."""
        starts = [k for k, end in enumerate(self.steps)
                  if "rows_dealt" in (self.messages[end - 1].TYPE,
                                      self.messages[end - 2].TYPE if end > 1 else "")]
        if delta > 0:
            later = [k for k in starts if k > self.position]
            self.go(later[0] if later else len(self.steps) - 1)
        else:
            earlier = [k for k in starts if k < self.position]
            self.go(earlier[-1] if earlier else 0)

    @property
    def at_end(self) -> bool:
        return self.position >= len(self.steps) - 1

    def toggle(self) -> None:
        """Play or pause (at the end, play starts again from the start)."""
        if not self.playing and self.at_end:
            self.go(0)
        self.playing = not self.playing

    def faster(self, delta: int) -> None:
        i = SPEEDS.index(self.speed) if self.speed in SPEEDS else 1
        self.speed = SPEEDS[max(0, min(i + delta, len(SPEEDS) - 1))]

    def text(self) -> str:
        """Where the replay is, in words, for the decision bar."""
        state = f"▶ playing, {self.speed:g} step/s" if self.playing else "❚❚ paused"
        return f"Replay: step {self.position + 1}/{len(self.steps)} · {state}"
