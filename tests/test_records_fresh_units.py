"""Survivors of a fresh mutation sample of server/records/ (issue 43, seed 25), each
pinned as what a user of ``nimmt-replay`` would notice: a file or export named with
a character that sorts before "-" (a copy's "(2) ..."), a seat list shorter than the
table, ``analyse --json``'s one document a line, and the progress bar of seats
analysed in other processes (a stand-in pool: what it shows does not hang on timing)."""

from __future__ import annotations

import json
import threading
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from test_replay_command_units import kept, played, run, write

import nimmt.server.records.analyse as analyse_mode
from nimmt import protocol as P
from nimmt.engine.records import record_from_bytes
from nimmt.server.records.replay import spectator_messages

WORKED = Path(__file__).resolve().parent / "data" / "worked_example.json"


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # no default database


@pytest.mark.parametrize("file", ["(2) friday.json", "+late game.json", "game.json"])
def test_a_record_without_a_table_name_is_watched_under_its_file_name(capsys, file) -> None:
    write(Path(file), played(3))
    status, out, err = run(capsys, "spectator", file)
    assert (status, err) == (0, "")
    watching = json.loads(out.splitlines()[0])
    assert watching["type"] == "watching"
    assert (watching["table"]["table_id"], watching["table"]["name"]) == (
        "replay", file.removesuffix(".json"))


@pytest.mark.parametrize("target", ["(copy).json", "+1.json", "copy.json"])
def test_an_export_to_a_relative_file_writes_that_file_and_prints_nothing(capsys,
                                                                          target) -> None:
    db, record = kept(Path("kept.db"))
    assert run(capsys, "games", "--db", db, "1", "--export", target) == (0, "", "")
    assert Path(target).read_text(encoding="utf-8") == record.to_json()


def test_seats_beyond_the_kinds_given_are_human() -> None:
    watching = spectator_messages(played(4), kinds=["bot"])[0]
    assert isinstance(watching, P.Watching)
    assert [s.kind for s in watching.table.seats] == ["bot", "human", "human", "human"]


def test_analyse_json_prints_one_document_on_one_line(capsys) -> None:
    status, out, err = run(capsys, "analyse", str(WORKED), "--seat", "3", "--json",
                           "--samples", "2")
    assert (status, err) == (0, "")
    assert out.endswith("}\n") and out.count("\n") == 1
    report = json.loads(out)
    assert (report["format"], report["samples"]) == ("nimmt-analysis", 2)
    assert [(s["seat"], s["name"]) for s in report["seats"]] == [(3, "Dee")]


class _SharedCount:
    """``multiprocessing.Value("i", 0)`` in this process."""

    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def get_lock(self) -> threading.Lock:
        return self._lock


class _Pool:
    """A ``ProcessPoolExecutor`` in this process whose seats run only when ``_wait``
    says: the way a real pool's are seen, a worker's count first, its result later."""

    def __init__(self, jobs: int, mp_context: Any, initializer: Any, initargs: Any) -> None:
        initializer(*initargs)
        self.jobs: list[tuple[Future[Any], Any, tuple[Any, ...]]] = []

    def __enter__(self) -> _Pool:
        _POOLS.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.jobs.append((future, fn, args))
        return future


_POOLS: list[_Pool] = []


def _wait(pending: set[Future[Any]], timeout: float) -> tuple[set[Future[Any]], set[Future[Any]]]:
    """Each call: the next seat not yet run does its work (counting its decisions) but
    has not returned; once all have, one returns."""
    (pool,) = _POOLS
    for future, fn, args in pool.jobs:
        if not hasattr(future, "ran"):
            future.ran = fn(*args)  # type: ignore[attr-defined]
            return set(), set(pending)
    future = next(f for f, _, _ in pool.jobs if f in pending)
    future.set_result(future.ran)  # type: ignore[attr-defined]
    return {future}, set(pending) - {future}


def test_the_bar_is_full_only_once_every_seats_process_has_returned(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analyse_mode, "_done", None)
    monkeypatch.setattr(analyse_mode, "multiprocessing",
                        SimpleNamespace(get_context=lambda _: SimpleNamespace(
                            Value=lambda *_: _SharedCount())))
    monkeypatch.setattr(analyse_mode, "ProcessPoolExecutor", _Pool)
    monkeypatch.setattr(analyse_mode, "wait", _wait)
    _POOLS.clear()
    record = record_from_bytes(WORKED.read_bytes())
    drawn: list[tuple[int, int]] = []
    # seats 1 and 2 of the worked example: 3 decisions each
    analysis = analyse_mode._in_processes(record, [1, 2], 2, 0, 2,
                                          lambda done, total: drawn.append((done, total)))
    # seat 1's 3 counted; seat 2's too but neither returned: 5 of 6, not 6; then 6 of 6
    assert drawn == [(3, 6), (5, 6), (5, 6), (6, 6)]
    assert [s.seat for s in analysis.seats] == [1, 2]
