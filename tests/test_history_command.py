"""``nimmt-replay games|players|ladder`` (and the older ``--db PATH ...``): the finished
games a server kept, listed, replayed, exported, summed up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nimmt.engine import Options, record_from_game, record_from_json
from nimmt.server.records.command import modern_argv
from nimmt.server.records.replay import main as replay_main
from nimmt.server.storage import Store

from storage_helpers import play_game

GAMES = [  # (options, seed, names, kinds)
    (Options(players=3, rounds=1), 1, ["Ann", "Bob", "Cid"], ["human", "builtin", "bot"]),
    (Options(players=2, rounds=2, professional=True), 2, ["Bob", "Ann"], ["builtin", "human"]),
    (Options(players=4, rounds=1, draft=True), 3, ["Ann", "Dee", "Bob", "Eve"], ["human"] * 4),
]


@pytest.fixture
def database(tmp_path: Path) -> tuple[Path, list]:
    """A database filled through the store with games played by the engine."""
    path = tmp_path / "nimmt.db"
    played = []
    with Store.open(path) as store:
        for number, (options, seed, names, kinds) in enumerate(GAMES, start=1):
            game, facts = play_game(options, seed)
            table_id = store.next_table_id()
            store.create_table(table_id, f"Table {number}", {}, {})
            store.append(table_id, facts)
            record = record_from_game(game, seats=names)
            game_id = store.finish_game(table_id, f"Table {number}", 1, record, kinds,
                                        started=1_000_000.0 * number, ended=1_000_000.0 * number + 900)
            played.append((game_id, game, record, names))
    return path, played


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = replay_main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_list_as_json_gives_one_object_a_game_for_the_client_s_history(database, capsys) -> None:
    path, played = database
    status, out, err = run(capsys, "--db", str(path), "--list", "--json")
    assert status == 0 and err == ""
    games = [json.loads(line) for line in out.splitlines()]
    assert [g["id"] for g in games] == [game_id for game_id, *_ in played]
    assert [g["table_name"] for g in games] == ["Table 1", "Table 2", "Table 3"]
    assert [p["name"] for p in games[1]["players"]] == ["Bob", "Ann"]
    assert games[0]["ended"] == 1_000_900.0 and games[1]["rounds"] == 2
    assert sum(p["won"] for p in games[2]["players"]) >= 1


def test_list_shows_every_finished_game_with_players_and_winners(database, capsys) -> None:
    path, played = database
    status, out, err = run(capsys, "--db", str(path), "--list")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["id", "ended"] and len(lines) == 1 + len(played)
    for line, (game_id, game, _, names) in zip(lines[1:], played, strict=True):
        assert line.split()[0] == str(game_id)
        assert f"Table {game_id} (t{game_id})" in line
        players = ", ".join(f"{'*' if s in game.result.winners else ''}{name} {game.result.totals[s]}"
                            for s, name in enumerate(names))
        assert line.endswith(players)


def test_a_game_replays_step_by_step_as_its_record_does(database, capsys, tmp_path) -> None:
    path, played = database
    game_id, game, record, names = played[0]
    status, out, err = run(capsys, "--db", str(path), str(game_id))
    assert status == 0 and err == ""
    record_file = tmp_path / "game.json"
    record_file.write_text(record.to_json())
    assert replay_main([str(record_file)]) == 0
    from_file, _ = capsys.readouterr()
    header, *steps = out.splitlines()
    assert header.startswith(f"Game {game_id}: table Table 1 (t1), its game 1, ")
    assert steps == from_file.splitlines()  # the engine's narration, step by step
    winner = names[game.result.winners[0]]
    assert steps[-1].startswith(f"Game over: {winner} win")


def test_json_lines_of_a_stored_game(database, capsys) -> None:
    path, played = database
    game_id, game, _, _ = played[1]
    status, out, _ = run(capsys, "--db", str(path), str(game_id), "--json")
    events = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and events[0] == {"event": "round_started", "round": 1}
    assert events[-1]["event"] == "game_over"
    assert events[-1]["result"]["totals"] == list(game.result.totals)


def test_export_writes_the_record_file(database, capsys, tmp_path) -> None:
    path, played = database
    game_id, _, record, _ = played[2]
    target = tmp_path / "exported.json"
    status, out, err = run(capsys, "--db", str(path), str(game_id), "--export", str(target))
    assert (status, out, err) == (0, "", "")
    assert record_from_json(target.read_text()) == record
    assert replay_main([str(target)]) == 0  # nimmt-replay FILE replays it
    capsys.readouterr()
    status, out, _ = run(capsys, "--db", str(path), str(game_id), "--export", "-")
    assert status == 0 and record_from_json(out) == record


def test_players_summary(database, capsys) -> None:
    path, played = database
    status, out, _ = run(capsys, "--db", str(path), "--players")
    assert status == 0
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:]}
    assert list(rows)[:2] == ["Ann", "Bob"]  # most games first
    for name in ("Ann", "Bob", "Cid", "Dee", "Eve"):
        mine = [(game, names.index(name), len(record.rounds))
                for _, game, record, names in played if name in names]
        games, wins, rounds, mean = rows[name]
        assert int(games) == len(mine)
        assert int(wins) == sum(seat in game.result.winners for game, seat, _ in mine)
        assert int(rounds) == sum(r for _, _, r in mine)
        heads = sum(game.result.totals[seat] for game, seat, _ in mine)
        assert mean == f"{heads / int(rounds):.2f}"


def test_errors_say_what_to_do(database, capsys, tmp_path) -> None:
    path, _ = database
    status, _, err = run(capsys, "--db", str(path), "99")
    assert status == 1 and "no finished game 99" in err and "--list" in err
    status, _, err = run(capsys, "--db", str(tmp_path / "none.db"), "--list")
    assert status == 2 and f"there is no database at {tmp_path / 'none.db'}" in err
    status, _, err = run(capsys, "--db", str(path), "--list", "--export", "x.json")
    assert status == 2 and err.endswith(
        f"nimmt-replay: --export needs a GAME_ID: nimmt-replay games --db {path} GAME_ID "
        f"--export FILE (nimmt-replay games --db {path} lists the ids)\n")
    status, _, err = run(capsys, "games", "--db", str(path), "game.json")
    assert status == 2 and err.endswith(
        f"nimmt-replay: GAME_ID is a number (nimmt-replay games --db {path} lists them), "
        "not 'game.json'; to replay a record file: nimmt-replay show game.json\n")
    status, _, err = run(capsys, "--db", str(path), "--list", "--players")
    assert status == 2 and err.endswith(
        "nimmt-replay: --list and --players are two modes: give one "
        "(nimmt-replay --help lists them)\n")
    status, _, err = run(capsys, "--db", str(path), "1", "--export", str(tmp_path / "no" / "x.json"))
    assert status == 2 and "cannot write" in err


def test_an_empty_database(capsys, tmp_path) -> None:
    path = tmp_path / "nimmt.db"
    Store.open(path).close()
    assert run(capsys, "--db", str(path), "--list")[1] == "No finished games yet.\n"
    assert run(capsys, "--db", str(path), "--players")[1] == "No finished games yet.\n"


def test_history_can_be_read_while_the_server_holds_the_file(database, capsys) -> None:
    path, played = database
    with Store.open(path) as server:  # the running server's lock
        server.create_table(server.next_table_id(), "live", {}, {})
        status, out, _ = run(capsys, "--db", str(path), "--list")
    assert status == 0 and len(out.splitlines()) == 1 + len(played)


def test_nimmt_replay_command_takes_db_and_still_replays_files(database, tmp_path, capsys) -> None:
    path, played = database
    assert modern_argv(["--db", "x", "--list"]) == ["games", "--db", "x", "--list"]
    assert modern_argv(["--db=x", "1"]) == ["games", "--db=x", "1"]
    assert modern_argv(["record.json"]) == ["show", "record.json"]
    assert replay_main(["--db", str(path), "--list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + len(played)
    record_file = tmp_path / "game.json"
    record_file.write_text(played[0][2].to_json())
    assert replay_main([str(record_file)]) == 0
    assert "Game over" in capsys.readouterr().out


def test_a_kept_game_s_table_is_said_under_its_header_as_show_says_it_for_a_file(
        tmp_path, capsys) -> None:
    """The table's name, rated and clock kept in the record (issue 44) are the second
    line of ``games ID``, the same line ``show FILE`` prints first; the steps follow."""
    from nimmt.engine.records import TableFacts
    path = tmp_path / "nimmt.db"
    game, facts = play_game(Options(players=2, rounds=1), 5)
    table = TableFacts("Friday", True, 30.0, 20.0, None, 60.0)
    record = record_from_game(game, seats=["Ann", "Bob"], table=table)
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", facts)
        game_id = store.finish_game("t1", "Friday", 1, record, ["human", "human"],
                                    started=1_000_000.0, ended=1_000_900.0)
    status, out, err = run(capsys, "games", "--db", str(path), str(game_id))
    assert status == 0 and err == ""
    header, second, *steps = out.splitlines()
    assert header.startswith(f"Game {game_id}: table Friday (t1), its game 1, ")
    assert second == ("Table “Friday”: rated · 30 s a turn, 20 s a row or tie choice "
                      "· a time bank of 60 s")
    record_file = tmp_path / "game.json"
    record_file.write_text(record.to_json())
    assert replay_main(["show", str(record_file)]) == 0
    assert capsys.readouterr().out.splitlines() == [second, *steps]
