"""Running ``nimmt-client`` in a real pseudo-terminal, and reading its screen.

:class:`Screen` is a tiny VT100 reader: enough of the escape sequences
prompt_toolkit writes (cursor moves, erases, colours ignored, the alternate
screen) to know which characters are where. :class:`PtyProcess` starts a command
on a pty of a given size, feeds its output to a :class:`Screen` from a thread, and
types keys. No tests here.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

_CSI = re.compile(r"\x1b\[([?>=]?)([0-9;]*)([ -/]*)([@-~])")
_OSC = re.compile(r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)")


def _width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


class Screen:
    """The characters of a ``columns`` × ``lines`` terminal after some output."""

    def __init__(self, columns: int, lines: int) -> None:
        self.columns, self.lines = columns, lines
        self.grid = [[" "] * columns for _ in range(lines)]
        self.x = self.y = 0
        self._pending = ""
        self.answers: list[bytes] = []  # replies the terminal owes (cursor position)

    def text(self) -> str:
        return "\n".join("".join(row).rstrip() for row in self.grid)

    def feed(self, data: str) -> None:
        data = self._pending + data
        self._pending = ""
        i = 0
        while i < len(data):
            ch = data[i]
            if ch == "\x1b":
                if i + 1 >= len(data):
                    self._pending = data[i:]
                    return
                m = _CSI.match(data, i)
                if m is not None:
                    self._csi(m.group(1), m.group(2), m.group(4))
                    i = m.end()
                    continue
                m = _OSC.match(data, i)
                if m is not None:
                    i = m.end()
                    continue
                if data[i + 1] in "[]" and not re.search(r"[@-~\x07]", data[i + 2:i + 40]):
                    self._pending = data[i:]  # an incomplete sequence: wait for the rest
                    return
                i += 2  # ESC x: ignored (keypad modes, charset)
                continue
            i += 1
            if ch == "\r":
                self.x = 0
            elif ch == "\n":
                self.y = min(self.lines - 1, self.y + 1)
            elif ch == "\b":
                self.x = max(0, self.x - 1)
            elif ch in "\x07\x0e\x0f":
                pass
            elif ch >= " ":
                self._put(ch)

    def _put(self, ch: str) -> None:
        w = _width(ch)
        if w == 0:
            return
        if self.x >= self.columns:
            self.x = 0
            self.y = min(self.lines - 1, self.y + 1)
        self.grid[self.y][self.x] = ch
        if w == 2 and self.x + 1 < self.columns:
            self.grid[self.y][self.x + 1] = ""
        self.x += w

    def _csi(self, private: str, params: str, final: str) -> None:
        nums = [int(p) if p else 0 for p in params.split(";")] if params else []

        def n(k: int = 0, default: int = 1) -> int:
            return nums[k] if len(nums) > k and nums[k] else default

        if private:
            return  # ?25l, ?1049h, ...: modes, nothing to draw
        if final == "H" or final == "f":
            self.y = min(self.lines - 1, n(0) - 1)
            self.x = min(self.columns - 1, n(1) - 1)
        elif final == "A":
            self.y = max(0, self.y - n())
        elif final == "B":
            self.y = min(self.lines - 1, self.y + n())
        elif final == "C":
            self.x = min(self.columns - 1, self.x + n())
        elif final == "D":
            self.x = max(0, self.x - n())
        elif final == "G":
            self.x = min(self.columns - 1, n() - 1)
        elif final == "d":
            self.y = min(self.lines - 1, n() - 1)
        elif final == "J":
            mode = n(0, 0)
            if mode == 0:
                self.grid[self.y][self.x:] = [" "] * (self.columns - self.x)
                for row in range(self.y + 1, self.lines):
                    self.grid[row] = [" "] * self.columns
            elif mode in (2, 3):
                self.grid = [[" "] * self.columns for _ in range(self.lines)]
        elif final == "K":
            mode = n(0, 0)
            row = self.grid[self.y]
            if mode == 0:
                row[self.x:] = [" "] * (self.columns - self.x)
            elif mode == 1:
                row[: self.x + 1] = [" "] * (self.x + 1)
            else:
                self.grid[self.y] = [" "] * self.columns
        elif final == "n" and n(0, 0) == 6:
            self.answers.append(f"\x1b[{self.y + 1};{self.x + 1}R".encode())
        # m (colours) and the rest: nothing to draw


class PtyProcess:
    """``argv`` on a new pseudo-terminal of ``columns`` × ``lines``."""

    def __init__(self, argv: Sequence[str], columns: int = 80, lines: int = 24,
                 env: dict[str, str] | None = None, cwd: str | Path | None = None) -> None:
        self.screen = Screen(columns, lines)
        self.log: list[str] = []
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        full_env = dict(os.environ)
        full_env.update({"TERM": "xterm-256color", "COLUMNS": str(columns),
                         "LINES": str(lines)})
        full_env.update(env or {})
        self.proc = subprocess.Popen(list(argv), stdin=slave, stdout=slave, stderr=slave,
                                     env=full_env, cwd=cwd, start_new_session=True,
                                     close_fds=True)
        os.close(slave)
        self.master = master
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            text = decoder.decode(data)
            with self._lock:
                self.log.append(text)
                self.screen.feed(text)
                answers, self.screen.answers = self.screen.answers, []
            for a in answers:
                try:
                    os.write(self.master, a)
                except OSError:
                    return

    def resize(self, columns: int, lines: int) -> None:
        """Change the terminal's size (as a window manager would) and tell the process."""
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        with self._lock:
            self.screen = Screen(columns, lines)
        self.proc.send_signal(signal.SIGWINCH)

    def text(self) -> str:
        with self._lock:
            return self.screen.text()

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait_for(self, pred: Callable[[str], bool], what: str, timeout: float = 15.0) -> str:
        """Poll the screen until ``pred(text)``; on timeout fail showing the screen."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if pred(text):
                return text
            if self.proc.poll() is not None and not pred(self.text()):
                raise AssertionError(f"the client ended (code {self.proc.returncode}) "
                                     f"before {what}; screen:\n{self.text()}\n"
                                     f"output tail: {''.join(self.log)[-2000:]!r}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{text}")
            time.sleep(0.05)

    def close(self) -> None:
        """End the process (and its process group) whatever state it is in."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        try:
            os.close(self.master)
        except OSError:
            pass


def children(pid: int) -> list[int]:
    """Live child processes of ``pid`` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def client_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "nimmt.client", *args]
