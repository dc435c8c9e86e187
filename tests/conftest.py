"""Every test run keeps the user's data directory out of reach: a server started
without ``--db`` (in this process or a child) writes under a temporary
``XDG_DATA_HOME``, never into ~/.local/share."""

from __future__ import annotations

import os
import shutil
import tempfile

_DATA_HOME = tempfile.mkdtemp(prefix="nimmt-tests-data-")
os.environ["XDG_DATA_HOME"] = _DATA_HOME


def pytest_unconfigure(config: object) -> None:
    shutil.rmtree(_DATA_HOME, ignore_errors=True)
