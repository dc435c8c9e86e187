"""``nimmt-replay``'s modes on records in-process, to the exact line and exit status
(issue 43): what ``verify`` says of the seats' reveals and of a deal that does not
check, a spectator's and a seat's messages of a game (the table's name, seats and
clock as the record keeps them), the usage errors of each mode with what to do, and
the database modes' tables and hints."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest

from nimmt import protocol as P
from nimmt.engine import AwaitingDeal, FairDeal, Game, Options, deal_round, record_from_game
from nimmt.engine.records import TableFacts, claim_for
from nimmt.server.records.analyse import progress_bar
from nimmt.server.records.command import modern_argv, parser
from nimmt.server.records.replay import main as replay_main
from nimmt.server.records.replay import spectator_messages
from nimmt.server.storage import Store, default_path
from nimmt.server.storage.ladder import RatingChange, save_ratings

SEED = bytes(range(32))


def played(players: int = 3, rounds: int = 1, *, fair: FairDeal | None = None,
           names: list[str] | None = None, table: TableFacts | None = None):
    """A finished game dealt from ``fair``, each seat its first legal decision, as a record."""
    options = Options(players=players, rounds=rounds)
    fair = fair or FairDeal(SEED, tuple(b"seat %d" % s for s in range(players)))
    game = Game(options)
    while not game.is_over:
        pending = game.pending
        if isinstance(pending, AwaitingDeal):
            picked = [c for _, c in game.view(None).draft_picks]
            game.deal(deal_round(options, game.round, fair, picked))
            continue
        game.apply(game.legal_decisions(min(pending.seats))[0])
    names = names or [f"P{i}" for i in range(players)]
    return record_from_game(game, names, fair_deal=claim_for(fair), table=table)


def write(path: Path, record) -> str:
    path.write_text(record.to_json())
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = replay_main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # no default database


# ----------------------------------------------------------------- verify

def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def test_verify_says_how_many_deals_checked_and_every_reveal_that_matched(capsys) -> None:
    fair = FairDeal(SEED, (b"ann", b"bob", b"", b"cid"), (sha(b"ann"), sha(b"bob"), b"", b""))
    path = write(Path("game.json"), played(4, rounds=2, fair=fair))
    assert run(capsys, "verify", path) == (0, (
        f"game.json: verified: the seed matches the commitment {fair.commitment} and all 2 "
        "deals are the ones it gives with the players' contributions; 2 reveals match their "
        "hashes\n"), "")


def test_verify_names_the_one_reveal_and_the_seat_that_withheld_its(capsys) -> None:
    fair = FairDeal(SEED, (b"ann", b"", b""), (sha(b"ann"), sha(b"bob"), b""), (1,))
    path = write(Path("game.json"), played(3, fair=fair))
    assert run(capsys, "verify", path) == (0, (
        f"game.json: verified: the seed matches the commitment {fair.commitment} and all 1 "
        "deals are the ones it gives with the players' contributions; 1 reveal match their "
        "hashes; seat 1 withheld its reveal (contributed nothing)\n"), "")


def test_verify_names_every_seat_that_withheld(capsys) -> None:
    fair = FairDeal(SEED, (b"", b"", b"cid"), (sha(b"a"), sha(b"b"), sha(b"cid")), (0, 1))
    path = write(Path("game.json"), played(3, fair=fair))
    status, out, err = run(capsys, "verify", path)
    assert (status, err) == (0, "")
    assert out.endswith("; 1 reveal match their hashes; seats 0, 1 withheld its reveal "
                        "(contributed nothing)\n")


def test_a_deal_that_is_not_the_seeds_is_not_verified(capsys) -> None:
    data = json.loads(played(3).to_json())
    hands = data["rounds"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]  # one card given to another seat
    Path("game.json").write_text(json.dumps(data))
    status, out, err = run(capsys, "verify", "game.json")
    assert (status, out) == (1, "")
    assert err.startswith("nimmt-replay: game.json: NOT VERIFIED: ") and err.count("\n") == 1


def test_a_record_dealt_without_a_seed_is_not_verified(capsys) -> None:
    data = json.loads(played(3).to_json())
    del data["fair_deal"]
    Path("game.json").write_text(json.dumps(data))
    status, out, err = run(capsys, "verify", "game.json")
    assert (status, out) == (1, "")
    assert err.startswith("nimmt-replay: game.json: NOT VERIFIED: the record has no fair_deal")


def test_a_verified_deal_whose_record_does_not_replay_is_not_verified(capsys) -> None:
    data = json.loads(played(3).to_json())
    data["result"]["totals"][0] += 1  # the deals check; the claimed result does not follow
    Path("game.json").write_text(json.dumps(data))
    status, out, err = run(capsys, "verify", "game.json")
    assert (status, out) == (1, "")
    assert err.startswith("nimmt-replay: game.json: NOT VERIFIED: seat 0: the result claims ")


# ----------------------------------------------------------------- spectator

def test_a_spectator_hears_the_table_as_the_record_keeps_it() -> None:
    table = TableFacts("Friday", True, 0.01, 45.0, None, 99_999.0)
    record = played(4, names=["", "A" * 40, "", "Dee"], table=table)
    watching, *rest = spectator_messages(record, "t9", "N" * 50,
                                         kinds=["human", "bot", "builtin"])
    assert isinstance(watching, P.Watching)
    info = watching.table
    assert (info.table_id, info.name, info.status, info.host, info.spectators) == (
        "t9", "N" * 40, "playing", None, 0)
    o = info.options
    assert (o.seats, o.rounds, o.turn_time, o.choice_time, o.draft_time, o.step_delay,
            o.time_bank, o.rated) == (4, 1, 0.1, 45.0, P.MAX_DECISION_TIME, 0.0,
                                      P.MAX_DECISION_TIME, True)
    assert [(s.name, s.kind, s.connected, s.total, s.penalties) for s in info.seats] == [
        ("seat 1", "human", True, 0, 0), ("A" * 32, "bot", True, 0, 0),
        ("seat 3", "human", True, 0, 0), ("Dee", "human", True, 0, 0)]
    assert rest[0].TYPE == "round_started" and rest[-1].TYPE == "game_over"
    assert not any(m.TYPE in ("hand_dealt", "commit_accepted") for m in rest)


def test_a_record_without_a_table_is_untimed_and_not_rated() -> None:
    watching = spectator_messages(played(2))[0]
    o = watching.table.options
    assert (o.turn_time, o.choice_time, o.draft_time, o.time_bank, o.rated) == (
        P.MAX_DECISION_TIME, P.MAX_DECISION_TIME, P.MAX_DECISION_TIME, 0.0, False)
    assert (watching.table.table_id, watching.table.name) == ("replay", "")


def test_a_seat_hears_its_own_hands_and_no_one_elses() -> None:
    record = played(3, rounds=2)
    messages = spectator_messages(record, seat=1)
    assert isinstance(messages[0], P.Seated) and messages[0].seat == 1
    hands = [m for m in messages if isinstance(m, P.HandDealt)]
    assert [tuple(m.cards) for m in hands] == [tuple(sorted(r.hands[1])) for r in record.rounds]
    assert [m.TYPE for m in messages[1:4]] == ["round_started", "hand_dealt", "rows_dealt"]
    without = [m for m in messages[1:] if not isinstance(m, P.HandDealt)]
    assert without == spectator_messages(record)[1:]  # the rest is what a spectator hears


def test_the_spectator_command_numbers_each_message(capsys) -> None:
    record = played(2, table=TableFacts("Friday"))
    path = write(Path("friday-game.json"), record)
    status, out, err = run(capsys, "spectator", path)
    assert (status, err) == (0, "")
    lines = [json.loads(line) for line in out.splitlines()]
    assert [m["seq"] for m in lines] == list(range(1, len(lines) + 1))
    assert [{k: v for k, v in m.items() if k != "seq"} for m in lines] == [
        json.loads(json.dumps(m.to_wire()))
        for m in spectator_messages(record, "replay", "Friday")]
    write(Path("friday-game.json"), replace(record, table=None))  # no name kept: the file's
    assert json.loads(run(capsys, "spectator", path)[1].splitlines()[0])["table"]["name"] == \
        "friday-game"


def test_a_seat_the_game_does_not_have(capsys) -> None:
    path = write(Path("game.json"), played(3))
    for seat in ("3", "-1"):
        assert run(capsys, "spectator", path, "--seat", seat) == (
            1, "", f"nimmt-replay: game.json: --seat {seat}: the game has seats 0 to 2\n")
    assert run(capsys, "spectator", path, "--seat", "2")[0] == 0


# ----------------------------------------------------------------- show and reading files

def test_show_prints_the_kept_table_first_and_json_leaves_it_out(capsys) -> None:
    path = write(Path("game.json"), played(2, table=TableFacts("Friday", False, 30.0)))
    status, out, err = run(capsys, "show", path)
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == "Table “Friday”: not rated · 30 s a turn"
    status, out, err = run(capsys, "show", "--json", path)
    assert (status, err) == (0, "")
    assert json.loads(out.splitlines()[0]) == {"event": "round_started", "round": 1}


@pytest.mark.parametrize(("name", "hint"), [
    ("standings", " (not a record file, nor a mode: nimmt-replay --help lists them)"),
    ("standings.json", ""),
    (os.path.join("records", "standings"), ""),
])
def test_a_missing_file_is_said_as_a_mode_only_when_it_looks_like_one(capsys, name, hint) -> None:
    assert run(capsys, name) == (
        2, "", f"nimmt-replay: {name}: cannot read: No such file or directory{hint}\n")


def test_a_file_that_is_no_record_is_exit_status_1(capsys) -> None:
    Path("game.json").write_text("{}")
    status, out, err = run(capsys, "spectator", "game.json")
    assert (status, out) == (1, "") and err.startswith("nimmt-replay: game.json: ")


# ----------------------------------------------------------------- the command line's mistakes

def usage_error(capsys, *argv: str) -> tuple[str, str]:
    """(the usage line's start, the message) of a command line refused with status 2."""
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, ""), err
    usage, _, message = err.rstrip("\n").rpartition("\nnimmt-replay: ")
    return usage, message


def test_each_mode_says_what_is_missing(capsys) -> None:
    for mode in ("verify", "spectator", "analyse"):
        usage, message = usage_error(capsys, mode)
        assert usage.startswith(f"usage: nimmt-replay {mode} [-h]")
        assert message == (f"give a record file (nimmt-replay {mode} FILE) or a game the "
                           f"server kept (nimmt-replay {mode} --db PATH GAME_ID)")
        assert usage_error(capsys, mode, "--db", "kept.db", "game.json")[1] == \
            "with --db give a game id (a number), not 'game.json'"
    assert usage_error(capsys, "games", "--db", "kept.db", "3", "--list")[1] == \
        "give --list or a GAME_ID, not both (nimmt-replay games --help)"
    assert usage_error(capsys, "games", "--export", "x.json")[1] == (
        "--export needs a GAME_ID: nimmt-replay games GAME_ID --export FILE (nimmt-replay "
        "games lists the ids)")
    assert usage_error(capsys, "games", "game.json")[1] == (
        "GAME_ID is a number (nimmt-replay games lists them), not 'game.json'; to replay a "
        "record file: nimmt-replay show game.json")


def test_analyse_never_takes_a_game_id_for_a_database(capsys) -> None:
    usage, message = usage_error(capsys, "analyse", "--db", "21")
    assert usage.startswith("usage: nimmt-replay analyse [-h]")
    assert message == (
        "--db 21: 21 looks like a game id, not a database (there is no file 21). Give the "
        "database before the id: nimmt-replay analyse --db PATH 21; for the server's default "
        f"database ({default_path()}) put --db alone after the id: nimmt-replay analyse 21 --db")


def test_games_list_with_a_number_for_a_database_opens_that_database(capsys) -> None:
    status, out, err = run(capsys, "games", "--db", "21", "--list")
    assert (status, out) == (2, "")
    assert err == ("nimmt-replay: there is no database at 21 (give the file a nimmt-server "
                   "--db PATH keeps its games in: --db PATH)\n")


def test_the_default_database_missing_says_where_it_was_looked_for(capsys) -> None:
    status, out, err = run(capsys, "games")
    assert (status, out) == (2, "")
    assert err == (f"nimmt-replay: there is no database at {default_path()} (the server's "
                   "default database; a nimmt-server started with --db PATH keeps its games "
                   "there: give it with --db PATH)\n")


@pytest.mark.parametrize("samples", ["1", "x", "-3", "0"])
def test_analyse_samples_are_at_least_two(capsys, samples) -> None:
    status, out, err = run(capsys, "analyse", "game.json", "--samples", samples)
    assert (status, out) == (2, "")
    assert err.startswith("usage: nimmt-replay analyse [-h]")
    assert err.endswith("nimmt-replay analyse: error: argument --samples: a whole number of "
                        f"at least 2, not {samples!r}\n")


def test_the_older_spellings_become_the_modes() -> None:
    assert modern_argv([]) == []
    assert modern_argv(["-h"]) == ["-h"]
    assert modern_argv(["--json", "g.json"]) == ["show", "--json", "g.json"]
    assert modern_argv(["--verify", "--db", "x", "7"]) == ["verify", "--db", "x", "7"]
    assert modern_argv(["--db", "x", "--spectator", "7"]) == ["spectator", "--db", "x", "7"]
    assert modern_argv(["--db", "x", "--list", "7"]) == ["games", "--db", "x", "--list", "7"]
    assert modern_argv(["--db", "x", "--ladder", "--json"]) == ["ladder", "--db", "x", "--json"]
    assert modern_argv(["--players", "--db", "x", "--list"]) == (
        "--players and --list are two modes: give one (nimmt-replay --help lists them)")
    assert modern_argv(["--db", "--ladder", "--verify", "--ladder"]) == (
        "--ladder and --verify are two modes: give one (nimmt-replay --help lists them)")


def test_the_parser_is_nimmt_replay_s() -> None:
    top = parser()
    assert top.prog == "nimmt-replay"
    assert vars(top.parse_args(["games", "--db", "x", "7"])) == {
        "mode": "games", "db": "x", "game": "7", "list": False, "export": None, "json": False}


def test_help_is_exit_status_0(capsys) -> None:
    status, out, err = run(capsys, "--help")
    assert (status, err) == (0, "") and out.startswith("usage: nimmt-replay MODE ...")
    status, out, err = run(capsys, "analyse", "--help")
    assert (status, err) == (0, "") and out.startswith("usage: nimmt-replay analyse ")


# ----------------------------------------------------------------- the database modes

def kept(path: Path) -> tuple[str, object]:
    """A database with one game (id 1, table t1 "Friday") kept: its path and record."""
    record = played(3, names=["Ann", "Bob", "Cid"])
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.finish_game("t1", "Friday", 4, record, ["human", "bot", "builtin"],
                          started=1_000_000.0, ended=1_000_900.0)
    return str(path), record


def when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def test_the_games_table_line_by_line(capsys) -> None:
    db, record = kept(Path("kept.db"))
    totals = record.result.totals
    winners = [s for s in range(3) if totals[s] == min(totals)]
    players = ", ".join(f"{'*' if s in winners else ''}{n} {totals[s]}"
                        for s, n in enumerate(["Ann", "Bob", "Cid"]))
    assert run(capsys, "games", "--db", db) == (0, (
        "   id ended             table                rounds  players (bullheads, * won)\n"
        f"    1 {when(1_000_900.0)}  Friday (t1)               1  {players}\n"), "")


def test_a_kept_game_replays_under_its_header(capsys) -> None:
    db, record = kept(Path("kept.db"))
    status, out, err = run(capsys, "games", "--db", db, "1")
    assert (status, err) == (0, "")
    header, *steps = out.splitlines()
    assert header == (f"Game 1: table Friday (t1), its game 4, {when(1_000_000.0)} to "
                      f"{when(1_000_900.0)}")
    write(Path("game.json"), record)
    assert run(capsys, "show", "game.json")[1].splitlines() == steps


def test_a_kept_game_as_a_spectator_and_verified(capsys) -> None:
    db, record = kept(Path("kept.db"))
    status, out, err = run(capsys, "spectator", "--db", db, "1")
    assert (status, err) == (0, "")
    first = json.loads(out.splitlines()[0])
    assert (first["table"]["table_id"], first["table"]["name"]) == ("t1", "Friday, game 4")
    assert [s["kind"] for s in first["table"]["seats"]] == ["human", "bot", "human"]
    status, out, err = run(capsys, "verify", "--db", db, "1")
    assert (status, err) == (0, "") and out.startswith("game 1: verified: the seed matches ")
    assert run(capsys, "spectator", "--db", db, "2") == (
        1, "", f"nimmt-replay: no finished game 2 in {db} (nimmt-replay games --db {db} "
        "--list shows them)\n")


def test_no_such_game_in_the_default_database(capsys) -> None:
    default_path().parent.mkdir(parents=True)
    kept(default_path())
    assert run(capsys, "games", "5") == (
        1, "", f"nimmt-replay: no finished game 5 in {default_path()} (nimmt-replay games "
        "--list shows them)\n")


def test_an_export_that_cannot_be_written(capsys) -> None:
    db, _ = kept(Path("kept.db"))
    target = os.path.join("no such folder", "x.json")
    assert run(capsys, "games", "--db", db, "1", "--export", target) == (
        2, "", f"nimmt-replay: cannot write {target}: No such file or directory\n")


def test_a_kept_game_that_does_not_replay(capsys) -> None:
    db, record = kept(Path("kept.db"))
    data = json.loads(record.to_json())
    data["result"]["totals"][1] += 1
    with sqlite3.connect(db) as conn:
        (column,) = [c for (_, c, *_) in conn.execute("PRAGMA table_info(games)")
                     if c in ("record", "record_json")]
        conn.execute(f"UPDATE games SET {column} = ?", (json.dumps(data),))
    status, out, err = run(capsys, "games", "--db", db, "1")
    assert status == 1 and out.startswith("Game 1: table Friday (t1), its game 4, ")
    assert err.startswith("nimmt-replay: game 1 does not replay: seat 1: the result claims ")


def test_the_players_table(capsys) -> None:
    db, record = kept(Path("kept.db"))
    totals = record.result.totals
    lines = run(capsys, "players", "--db", db)[1].splitlines()
    assert lines[0] == "name                  games   wins  rounds  bullheads/round"
    ann = next(line for line in lines if line.startswith("Ann "))
    won = int(totals[0] == min(totals))
    assert ann == f"Ann                       1      {won}       1 {totals[0]:>16.2f}"


def ladder_db(path: Path, *games: list[RatingChange]) -> str:
    with Store.open(path) as store:
        for at, changes in enumerate(games):
            store.ladder_write(lambda db, changes=changes, at=at: save_ratings(
                db, None, changes, 5.0 + at))
    return str(path)


def test_the_ladder_table_fits_the_longest_name(capsys) -> None:
    """Best first; the trend is the change since the name's first rated game began
    (from 0, the rating of a newcomer, while it has fewer than TREND_GAMES)."""
    db = ladder_db(Path("kept.db"),
                   [RatingChange("Annabelle", 25.0, 2.0, 1, 1), RatingChange("Bo", 28.0, 3.0, 1, 2)],
                   [RatingChange("Annabelle", 30.5, 2.0, 2, 1), RatingChange("Bo", 26.0, 3.0, 2, 2)])
    assert run(capsys, "ladder", "--db", db) == (0, (
        "rank  name        rating  games   trend\n"
        "   1  Annabelle    24.50      2  +24.50\n"
        "   2  Bo           17.00      2  +17.00\n"), "")
    status, out, err = run(capsys, "ladder", "--db", db, "--json")
    assert (status, err) == (0, "")
    assert out == json.dumps([
        {"rank": 1, "name": "Annabelle", "rating": 24.5, "games": 2, "trend": 24.5,
         "bot": False, "mu": 30.5, "sigma": 2.0},
        {"rank": 2, "name": "Bo", "rating": 17.0, "games": 2, "trend": 17.0, "bot": False,
         "mu": 26.0, "sigma": 3.0}]) + "\n"


def test_a_ladder_of_short_names_is_as_wide_as_its_header(capsys) -> None:
    db = ladder_db(Path("kept.db"), [RatingChange("Al", 30.0, 2.0, 1, 1)])
    assert run(capsys, "ladder", "--db", db)[1] == (
        "rank  name   rating  games   trend\n"
        "   1  Al      24.00      1  +24.00\n")


def test_no_rated_games_yet(capsys) -> None:
    Store.open(Path("kept.db")).close()
    assert run(capsys, "ladder", "--db", "kept.db") == (
        0, "no rated games yet (a table created with the rated option rates its games)\n", "")
    assert run(capsys, "ladder", "--db", "kept.db", "--json") == (0, "[]\n", "")


# ----------------------------------------------------------------- analyse's progress bar

def test_the_progress_bar_redraws_at_most_every_tenth_of_a_second_and_ends_full(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import nimmt.server.records.analyse as analyse_module

    clock = iter([100.0, 100.05, 100.2, 100.21, 100.22])
    monkeypatch.setattr(analyse_module.time, "monotonic", lambda: next(clock))
    err = io.StringIO()
    show = progress_bar(err, width=10)
    for done in (0, 1, 2, 3, 4):
        show(done, 4)
    assert err.getvalue() == ("\ranalysing [..........] 0/4 decisions"
                              "\ranalysing [#####.....] 2/4 decisions"
                              "\ranalysing [##########] 4/4 decisions\n")


def test_a_progress_bar_of_nothing_to_do_or_of_many_decisions_ends_its_line() -> None:
    import io

    err = io.StringIO()
    progress_bar(err, width=4)(0, 0)
    assert err.getvalue() == "\ranalysing [....] 0/0 decisions\n"
    err = io.StringIO()
    progress_bar(err, width=4)(int("300"), int("300"))  # (two int objects, as counted)
    assert err.getvalue() == "\ranalysing [####] 300/300 decisions\n"


# ----------------------------------------------------------------- piped into head

def test_output_piped_into_a_reader_that_stops_ends_quietly_with_status_0(tmp_path) -> None:
    """``nimmt-replay show FILE | head -1``: the reader closes the pipe before the
    command has written; the command stops quietly, exit status 0, no traceback."""
    import subprocess
    import sys

    path = write(tmp_path / "game.json", played(4, rounds=3))
    db, _ = kept(tmp_path / "kept.db")
    for argv in (["show", path], ["spectator", path], ["games", "--db", db, "1"]):
        child = subprocess.Popen([sys.executable, "-m", "nimmt.server.records", *argv],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # the reader is gone before the first line
        err = child.stderr.read()
        assert (child.wait(timeout=60), err) == (0, b""), argv
