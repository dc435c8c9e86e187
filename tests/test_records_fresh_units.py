"""Survivors of a fresh mutation sample of server/records/ (issue 43, seed 25), each
pinned as what a user of ``nimmt-replay`` would notice: a file or export named with
a character that sorts before "-" (a copy's "(2) ..."), a seat list shorter than the
table, and ``analyse --json``'s one document a line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_replay_command_units import kept, played, run, write

from nimmt import protocol as P
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
