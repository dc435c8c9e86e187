"""``nimmt-replay``'s command line: its help names every mode with an example, each
mode answers to its subcommand and to its older spelling alike, ``--db`` never
swallows a game id, and the client runs the new spellings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nimmt.client.history import history_command, load_history
from nimmt.client.replay import load_replay, replay_command
from nimmt.engine import AwaitingDeal, FairDeal, Game, Options, deal_round, record_from_game
from nimmt.engine.records import claim_for
from nimmt.server.records.replay import main as replay_main
from nimmt.server.storage import Store, default_path
from nimmt.server.storage.ladder import RatingChange, save_ratings

PY = sys.executable


def _fair_game_json(options: Options) -> str:
    """A finished game dealt from a fair deal (each seat its first legal decision), as
    a record that carries its fair-deal claim: what ``verify`` checks."""
    fair = FairDeal(bytes(range(32)), tuple(b"seat %d" % s for s in range(options.players)))
    game = Game(options)
    while not game.is_over:
        pending = game.pending
        if isinstance(pending, AwaitingDeal):
            picked = [c for _, c in game.view(None).draft_picks]
            game.deal(deal_round(options, game.round, fair, picked))
            continue
        seat = min(pending.seats)
        game.apply(game.legal_decisions(seat)[0])
    names = [f"P{i}" for i in range(options.players)]
    return record_from_game(game, names, fair_deal=claim_for(fair)).to_json()


def _fill(path: Path) -> None:
    """Two finished games (ids 1 and 2) and a ladder of two names."""
    from nimmt.engine import record_from_json

    with Store.open(path) as store:
        for number, players in enumerate((3, 2), start=1):
            record = record_from_json(_fair_game_json(Options(players=players, rounds=1)))
            table_id = store.next_table_id()
            store.create_table(table_id, f"Table {number}", {}, {})
            store.finish_game(table_id, f"Table {number}", 1, record, ["human"] * players,
                              started=1_000_000.0 * number, ended=1_000_000.0 * number + 900)
        store.ladder_write(lambda db: save_ratings(db, None, [
            RatingChange("Ann", 30.0, 2.0, 3, 1), RatingChange("Bob", 25.0, 3.0, 3, 2)], 5.0))


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(a record file, a database), in a working directory of their own."""
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "game.json"
    record.write_text(_fair_game_json(Options(players=3, rounds=2)))
    db = tmp_path / "kept.db"
    _fill(db)
    return str(record), str(db)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = replay_main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


# ----------------------------------------------------------------- --help

def test_help_names_every_mode_with_an_example() -> None:
    done = subprocess.run([PY, "-m", "nimmt.server.records", "--help"], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "usage: nimmt-replay MODE ... (or: nimmt-replay FILE)"
    for mode in ("show", "games", "players", "ladder", "verify", "spectator", "analyse"):
        assert any(line.startswith(f"  {mode} ") for line in lines), mode  # the list of modes
    for example in ("nimmt-replay show game.json ", "nimmt-replay games ",
                    "nimmt-replay games --db PATH ", "nimmt-replay games --db PATH 7 ",
                    "nimmt-replay games --db PATH 7 --export 7.json ",
                    "nimmt-replay players --db PATH ", "nimmt-replay ladder --db PATH ",
                    "nimmt-replay verify game.json ", "nimmt-replay verify --db PATH 7 ",
                    "nimmt-replay spectator game.json ", "nimmt-replay spectator --db PATH 7 ",
                    "nimmt-replay analyse game.json ", "nimmt-replay analyse --db PATH 7 --seat 0 "):
        assert any(line.startswith("  " + example) for line in lines), example
    for old in ("nimmt-replay [--json] FILE ", "nimmt-replay --db PATH --list ",
                "nimmt-replay --db PATH --players ", "nimmt-replay --db PATH --ladder ",
                "nimmt-replay --verify FILE | --verify --db PATH 7 ",
                "nimmt-replay --spectator FILE | --spectator --db PATH 7 "):
        assert any(line.startswith("  " + old) for line in lines), old
    assert f"default database: {default_path()}." in done.stdout


def test_no_arguments_say_where_to_start(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys) == (2, "", "usage: nimmt-replay MODE ... (or: nimmt-replay FILE)\n"
                           "nimmt-replay: give a record file (nimmt-replay show FILE) or a mode; "
                           "nimmt-replay --help lists them with an example each\n")


def test_a_word_that_is_neither_a_file_nor_a_mode(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "list") == (2, "", "nimmt-replay: list: cannot read: No such file or "
                                   "directory (not a record file, nor a mode: nimmt-replay "
                                   "--help lists them)\n")


# ----------------------------------------------------------------- --db and a game id

AFTER = "put --db alone after the id: "


def _swallowed(mode: str, hint: str) -> str:
    return (f"nimmt-replay: --db 21: 21 looks like a game id, not a database (there is no file "
            f"21). Give the database before the id: nimmt-replay {mode} --db PATH 21; for the "
            f"server's default database ({default_path()}) {hint}\n")


@pytest.mark.parametrize(("argv", "mode", "hint"), [
    (["--db", "21"], "games", "leave --db out: nimmt-replay games 21"),
    (["games", "--db", "21"], "games", "leave --db out: nimmt-replay games 21"),
    (["--verify", "--db", "21"], "verify", f"{AFTER}nimmt-replay verify 21 --db"),
    (["verify", "--db", "21"], "verify", f"{AFTER}nimmt-replay verify 21 --db"),
    (["--spectator", "--db", "21"], "spectator", f"{AFTER}nimmt-replay spectator 21 --db"),
])
def test_db_never_swallows_a_game_id(argv, mode, hint, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)  # no file 21 here
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    usage, message = err.split("\nnimmt-replay: ")
    assert usage.startswith(f"usage: nimmt-replay {mode} [-h] [--db [PATH]]")
    assert "nimmt-replay: " + message == _swallowed(mode, hint)


def test_a_database_file_named_like_a_number_is_still_a_database(
        tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    _fill(tmp_path / "21")
    status, out, err = run(capsys, "--db", "21")
    assert (status, err) == (0, "") and len(out.splitlines()) == 1 + 2  # its list


# ----------------------------------------------------------------- each mode, both spellings

PAIRS = [  # (new spelling, old spelling, a line of what it prints); R: the record, D: the db
    (["show", "R"], ["R"], "Game over: "),
    (["show", "--json", "R"], ["--json", "R"], '{"event": "game_over"'),
    (["games", "--db", "D"], ["--db", "D", "--list"], "    2 "),
    (["games", "--db", "D", "--json"], ["--db", "D", "--list", "--json"], '{"id": 2, '),
    (["games", "--db", "D", "1"], ["--db", "D", "1"], "Game 1: table Table 1 (t1), "),
    (["games", "--db", "D", "1", "--json"], ["--db", "D", "1", "--json"],
     '{"event": "game_over"'),
    (["games", "--db", "D", "2", "--export", "-"], ["--db", "D", "2", "--export", "-"],
     '  "format": '),
    (["players", "--db", "D"], ["--db", "D", "--players"], "P0 "),
    (["ladder", "--db", "D"], ["--db", "D", "--ladder"], "   1  Ann "),
    (["ladder", "--db", "D", "--json"], ["--db", "D", "--ladder", "--json"],
     '[{"rank": 1, "name": "Ann", '),
    (["verify", "R"], ["--verify", "R"], "R: verified: the seed matches the commitment "),
    (["verify", "--db", "D", "2"], ["--verify", "--db", "D", "2"], "game 2: verified: "),
    (["spectator", "R"], ["--spectator", "R"], '{"type": "watching", '),
    (["spectator", "--db", "D", "1"], ["--spectator", "--db", "D", "1"],
     '{"type": "watching", '),
]


@pytest.mark.parametrize(("new", "old", "shown"), PAIRS, ids=lambda v: " ".join(v)
                         if isinstance(v, list) else None)
def test_each_mode_answers_to_its_new_and_its_old_spelling(new, old, shown, files, capsys) -> None:
    record, db = files

    def spelled(argv: list[str]) -> list[str]:
        return [{"R": record, "D": db}.get(a, a) for a in argv]

    status, out, err = run(capsys, *spelled(new))
    assert (status, err) == (0, "")
    assert any(line.startswith(shown.replace("R:", record + ":")) for line in out.splitlines())
    assert run(capsys, *spelled(old)) == (0, out, "")  # the very same bytes


@pytest.mark.parametrize(("new", "old"), [
    (["games"], ["--db", "--list"]),
    (["games", "--json"], ["--db", "--list", "--json"]),
    (["games", "1"], ["1", "--db"]),
    (["ladder"], ["--db", "--ladder"]),
    (["verify", "2", "--db"], ["--verify", "2", "--db"]),
    (["spectator", "1", "--db"], ["--spectator", "--db", "", "1"]),
])
def test_the_default_database_without_a_path(new, old, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    default_path().parent.mkdir(parents=True)
    _fill(default_path())
    status, out, err = run(capsys, *new)
    assert (status, err) == (0, "") and out
    assert run(capsys, *old) == (0, out, "")


def test_no_such_game_says_how_to_list_them(files, capsys) -> None:
    _, db = files
    for argv in (["games", "--db", db, "9"], ["verify", "--db", db, "9"], ["--db", db, "9"]):
        assert run(capsys, *argv) == (1, "", f"nimmt-replay: no finished game 9 in {db} "
                                      f"(nimmt-replay games --db {db} --list shows them)\n")


# ----------------------------------------------------------------- the client's command lines

def test_the_client_runs_the_new_spellings(files) -> None:
    record, db = files
    module = [PY, "-m", "nimmt.server.records"]
    assert history_command(None) == [*module, "games", "--json"]
    assert history_command(db) == [*module, "games", "--db", db, "--json"]
    assert replay_command(record) == [*module, "spectator", record]
    assert replay_command("2", db) == [*module, "spectator", "2", "--db", db]
    assert [g.id for g in load_history(db)] == [2, 1]  # newest first
    messages = load_replay("2", db)
    assert messages[0].to_wire()["type"] == "watching"
    assert messages[-1].to_wire()["type"] == "game_over"
