"""Issue 27 items 1 and 6 from the clients' side: ``nimmt-bot --claim`` (and the SDK,
which shares its code) speaks protocol 2, keeps its name's key in its state folder
and is the only one that may use the name afterwards."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from nimmt.bots.runner import main as bot_main
from nimmt.client.sessions import SessionStore
from real_server import running_server

GAME = ["--create", "--seats", "2", "--add-bots", "1", "--rounds", "1", "--name", "Zed"]


def test_nimmt_bot_claims_its_name_and_keeps_the_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    mine, other = tmp_path / "mine", tmp_path / "other"
    with running_server("--step-delay", "0") as port:
        address = f"127.0.0.1:{port}"
        monkeypatch.setenv("NIMMT_STATE_DIR", str(mine))
        assert bot_main([address, *GAME, "--claim"]) == 0
        key_file = SessionStore(mine).key_path("127.0.0.1", port, "Zed")
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        key = SessionStore(mine).key("127.0.0.1", port, "Zed")
        assert key is not None and len(key) >= 22
        # the next run sends the saved key (no --claim needed) and plays
        assert bot_main([address, *GAME]) == 0
        assert SessionStore(mine).key("127.0.0.1", port, "Zed") == key
        capsys.readouterr()
        # another machine (another state folder) cannot be Zed
        monkeypatch.setenv("NIMMT_STATE_DIR", str(other))
        assert bot_main([address, *GAME]) == 1
        err = capsys.readouterr().err
        assert "claimed" in err and "key" in err
