"""The rounds' analysis never delays a key (issue 45's target), in a real terminal
against a real server: the analyse command is replaced (``NIMMT_ANALYSE_COMMAND``)
by one that waits for the test's word before it analyses, so the next round is
played while it waits; then its turning point comes, on the score sheet too, and A
opens the whole round's analysis at 80×24."""

from __future__ import annotations

import re
import shlex
import sys
import time
from pathlib import Path

import pytest
from pty_helpers import PtyProcess, client_argv
from real_server import running_server
from test_client_pty import _decide_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a Unix pty")

#: The analyse command, slowed: it says it started, waits for the gate file (50 s
#: at most), then analyses as the client's own command would (on fewer deals: the
#: test waits for it on a machine shared with other tests).
SLOW_ANALYSE = """\
import os, sys, time
gate, started = sys.argv[1], sys.argv[2]
open(started, "w").close()
deadline = time.monotonic() + 50
while not os.path.exists(gate) and time.monotonic() < deadline:
    time.sleep(0.02)
os.execv(sys.executable, [sys.executable, "-m", "nimmt.server.records", "analyse",
                          *sys.argv[3:], "--jobs", "1", "--samples", "40"])
"""


def _wait_file(path: Path, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _turn_of_round(text: str) -> tuple[int, int]:
    """(round, turn) as the title says it ("r2 · turn 3/10" or "round 2 · turn 3/10")."""
    r = re.search(r"\b(?:round |r)(\d+)\b", text.splitlines()[0])
    t = re.search(r"turn (\d+)/10", text)
    return (int(r.group(1)) if r else 0, int(t.group(1)) if t else 0)


def test_keys_are_answered_while_the_analysis_runs_and_its_line_comes_after(tmp_path) -> None:
    script, gate, started = tmp_path / "slow.py", tmp_path / "gate", tmp_path / "started"
    script.write_text(SLOW_ANALYSE)
    slow = " ".join(shlex.quote(str(p)) for p in (sys.executable, script, gate, started))
    with running_server("--bots", "3", "--bot-level", "easy", "--step-delay", "0",
                        "--rounds", "2", "--point-limit", "0") as port:
        client = PtyProcess(client_argv(f"127.0.0.1:{port}", "--name", "Tess",
                                        "--state-dir", str(tmp_path)), 80, 24,
                            env={"NIMMT_ANALYSE_COMMAND": slow})
        try:
            client.wait_for(lambda t: "You against" in t, "the lobby")
            client.type("\r")
            client.wait_for(lambda t: "Your move" in t, "the first turn")
            sheet = _decide_until(client, lambda t: "Score sheet" in t, "round 1's sheet")
            _wait_file(started, "the analysis of round 1 to start")
            sheet = client.wait_for(lambda t: "R1  analysing…" in t, "the sheet's analysing…")
            assert "Turning points (A: the whole round):" in sheet
            first = client.wait_for(lambda t: "Your move" in t and _turn_of_round(t) == (2, 1),
                                    "round 2's first turn")
            assert "turning point" not in first
            client.type("\r")  # a card, played while the analysis waits
            played = client.wait_for(lambda t: "Score sheet" not in t and (
                _turn_of_round(t) == (2, 2) or "fits no row" in t or " may go " in t),
                "the card played (the sheet closed by it), the next step shown")
            assert not gate.exists() and "turning point" not in played
            gate.touch()  # the analysis goes on: its line comes by itself
            client.wait_for(lambda t: "Round 1's turning point: your" in " ".join(t.split())
                            or "Round 1: none of your decisions" in " ".join(t.split()),
                            "round 1's turning point in the log", 30)
            client.type("t")
            sheet = client.wait_for(lambda t: "Score sheet" in t and re.search(
                r"R1  (your \S+ on turn \d+ cost \d+\.\d|none of your)", t), "the sheet's line")
            client.type("A")
            view = client.wait_for(lambda t: "Analysis · round 1" in t and "Turn 1: you " in t
                                   and "PgUp/PgDn: 1–18 of " in t and "Esc  close" in t,
                                   "the whole round's analysis, drawn to its last line")
            assert "Score sheet" not in view and "expected bullheads" in view
            assert re.search(r"✓ +\d+ +\d+\.\d\d ±\d\.\d\d ", view), view  # the best
            assert "Esc or A closes · ↑/↓ PgUp/PgDn: 1–18 of " in view  # (ten decisions)
            client.type("j")
            client.wait_for(lambda t: "2–19 of " in t, "the analysis scrolled a line")
            client.type("q")  # q closes the analysis; it does not ask to quit
            back = client.wait_for(lambda t: "Analysis ·" not in t and " Hand " in t
                                   and "  ?  help" in t, "the table again, to its last line")
            assert "Quit?" not in back and client.proc.poll() is None
        finally:
            client.close()
