"""Session tokens on disk: where, with which modes, and never fatal."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from nimmt.client.sessions import STATE_DIR_ENV, SessionStore, state_dir


def test_the_state_directory_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.delenv(STATE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state_dir() == tmp_path / "xdg" / "nimmt"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_dir() == tmp_path / "home" / ".local" / "state" / "nimmt"
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "explicit"))
    assert state_dir() == tmp_path / "explicit"


def test_tokens_are_kept_per_server_readable_by_the_user_only(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    store.save("gamebox", 6066, "Ann", "tok_aaaaaaaaaaaaaaaa")
    store.save("::1", 7000, "Ann", "tok_bbbbbbbbbbbbbbbb")
    assert store.load("gamebox", 6066, "Ann") == "tok_aaaaaaaaaaaaaaaa"
    assert store.load("::1", 7000, "Ann") == "tok_bbbbbbbbbbbbbbbb"
    assert store.load("gamebox", 7000, "Ann") is None
    assert stat.S_IMODE((tmp_path / "state").stat().st_mode) == 0o700
    for f in (tmp_path / "state").iterdir():
        assert stat.S_IMODE(f.stat().st_mode) == 0o600


def test_a_broken_or_unwritable_store_is_never_fatal(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.path("gamebox", 6066, "Ann").write_text("{not json")
    assert store.load("gamebox", 6066, "Ann") is None and store.last_error
    blocked = tmp_path / "file"
    blocked.write_text("")
    bad = SessionStore(blocked / "below")  # a directory below a file cannot exist
    bad.save("gamebox", 6066, "Ann", "tok_cccccccccccccccc")
    assert bad.last_error is not None and "cannot save" in bad.last_error


def test_two_names_from_one_account_keep_a_session_each(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.save("gamebox", 6066, "Ann", "tok_ann_000000000000")
    store.save("gamebox", 6066, "Bob", "tok_bob_000000000000")  # Bob's run comes later
    assert store.load("gamebox", 6066, "Ann") == "tok_ann_000000000000"
    assert store.load("gamebox", 6066, "Bob") == "tok_bob_000000000000"
    store.forget("gamebox", 6066, "Bob")
    assert store.load("gamebox", 6066, "Bob") is None
    assert store.load("gamebox", 6066, "Ann") == "tok_ann_000000000000"


def test_the_one_file_of_earlier_versions_is_taken_over_by_its_name_once(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    legacy = store.legacy_path("gamebox", 6066)
    assert legacy.name == "session-gamebox-6066.json"
    legacy.write_text('{"server": "gamebox:6066", "name": "Ann", "token": "tok_old_ann_00000"}')
    assert store.load("gamebox", 6066, "Bob") is None  # not Bob's: left for Ann
    assert legacy.exists()
    assert store.load("gamebox", 6066, "Ann") == "tok_old_ann_00000"
    assert not legacy.exists()  # moved to Ann's own file
    assert store.path("gamebox", 6066, "Ann").exists()
    assert store.load("gamebox", 6066, "Ann") == "tok_old_ann_00000"
