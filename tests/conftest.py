"""Every test run keeps the user's data directory out of reach: a server started
without ``--db`` (in this process or a child) writes under a temporary
``XDG_DATA_HOME``, never into ~/.local/share."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

_DATA_HOME = tempfile.mkdtemp(prefix="nimmt-tests-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME


def pytest_unconfigure(config: object) -> None:
    shutil.rmtree(_DATA_HOME, ignore_errors=True)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One OS account's home folder: the terminal client keeps its files under it
    (its state folder chosen by neither NIMMT_STATE_DIR nor XDG_STATE_HOME)."""
    from nimmt.client.sessions import STATE_DIR_ENV
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv(STATE_DIR_ENV, raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    return tmp_path
