"""The store keeps tables, seats, facts and finished games, across reopening the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nimmt.engine import Options, Replay, record_from_game
from nimmt.server.config import ServerConfig
from nimmt.server.cli import config_from_args, parse_args
from nimmt.server.storage import (
    MEMORY,
    SCHEMA_VERSION,
    NoSuchGame,
    Store,
    default_path,
    game_started_fact,
    hash_token,
    seat_fact,
)
from nimmt.server.sessions.session import new_token

from storage_helpers import play_game


def test_default_file_is_in_the_users_data_directory(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "nimmt" / "nimmt.db"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # the XDG spec: absolute only
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_path() == tmp_path / "home" / ".local" / "share" / "nimmt" / "nimmt.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    with Store.open() as store:  # folders made as needed
        assert store.path == tmp_path / "home" / ".local" / "share" / "nimmt" / "nimmt.db"
    assert store.path is not None and store.path.exists()


def test_db_option_from_flag_and_config_file(tmp_path: Path) -> None:
    assert ServerConfig().db == ""
    assert config_from_args(parse_args(["--db", ":memory:"])).db == MEMORY
    config_file = tmp_path / "party.toml"
    config_file.write_text('db = "/srv/nimmt.db"\n')
    assert config_from_args(parse_args(["--config", str(config_file)])).db == "/srv/nimmt.db"
    args = ["--config", str(config_file), "--db", "other.db"]
    assert config_from_args(parse_args(args)).db == "other.db"


def test_file_is_in_wal_mode_with_the_current_schema(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    Store.open(path).close()
    with sqlite3.connect(path) as plain:
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        names = {row[0] for row in plain.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"tables", "seats", "facts", "games", "game_players", "meta"} <= names


def test_an_empty_file_is_migrated_to_the_current_schema(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    path.write_bytes(b"")  # e.g. made by `touch`: SQLite's empty database, version 0
    with Store.open(path) as store:
        assert store.next_table_id() == "t1"
    with sqlite3.connect(path) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_table_ids_never_repeat_across_restarts(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        assert [store.next_table_id() for _ in range(3)] == ["t1", "t2", "t3"]
    with Store.open(path) as store:
        assert store.next_table_id() == "t4"
        store.reserve_tables(10)  # ids t4..t9 handed out in memory (AsyncStore.new_table_id)
        store.reserve_tables(7)  # never lowers the mark
    with Store.open(path) as store:
        assert store.next_table_id() == "t10"


def test_tables_seats_and_facts_come_back_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    token = new_token()
    options = Options(players=3, rounds=1)
    _, facts = play_game(options, seed=3)
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {"seats": 3}, {"turn_time": 30.0}, at=100.0)
        store.create_table("t2", "Closed soon", {"seats": 2}, {}, at=101.0)
        store.set_seat("t1", 0, "Ann", "human", token=token)
        store.set_seat("t1", 1, "Bot", "builtin", strategy="heuristic")
        store.set_seat("t1", 2, "Cid", "bot", token=new_token())
        store.free_seat("t1", 2)
        store.update_table("t1", status="playing", at=105.0)
        stored = store.append("t1", facts[:5])
        assert [f.seq for f in stored] == [1, 2, 3, 4, 5]
        store.append("t1", facts[5:8])
        store.close_table("t2")
    with Store.open(path) as store:
        (table,) = store.open_tables()
        store.append("t1", [seat_fact(2, None)])
        assert store.facts("t1", after=8)[0].seq == 9
    assert (table.id, table.name, table.status) == ("t1", "Friday", "playing")
    assert (table.options, table.settings) == ({"seats": 3}, {"turn_time": 30.0})
    assert (table.created, table.updated) == (100.0, 105.0)
    assert [(s.seat, s.name, s.kind, s.strategy) for s in table.seats] == [
        (0, "Ann", "human", None), (1, "Bot", "builtin", "heuristic")]
    assert table.seats[0].token_hash == hash_token(token) and table.seats[1].token_hash is None
    assert table.facts == tuple(facts[:8]) and table.last_seq == 8


def test_tokens_are_stored_hashed_never_in_clear(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    token = new_token()
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.set_seat("t1", 0, "Ann", "human", token=token)
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert token.encode() not in data
    assert hash_token(token).encode() in data


def test_open_tables_hold_the_facts_of_the_last_game_only(tmp_path: Path) -> None:
    options = Options(players=2, rounds=1)
    _, first = play_game(options, seed=1, game_no=1)
    _, second = play_game(options, seed=2, game_no=2)
    with Store.open(tmp_path / "nimmt.db") as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", first)
        store.append("t1", second[:3])
        (table,) = store.open_tables()
    assert table.facts == tuple(second[:3]) and table.facts[0] == game_started_fact(2, options)
    assert table.last_seq == len(first) + 3


def test_finished_games_are_kept_with_their_record_and_results(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    options = Options(players=3, rounds=2)
    game, facts = play_game(options, seed=5)
    record = record_from_game(game, seats=["Ann", "Bob", "Cid"])
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", facts)
        game_id = store.finish_game("t1", "Friday", 1, record, ["human", "bot", "builtin"],
                                    started=1000.0, ended=2000.0)
        store.close_table("t1")  # the game outlives its table
    with Store.open(path) as store:
        (summary,) = store.games()
        kept = store.game(game_id)
        with pytest.raises(NoSuchGame, match="no finished game 99"):
            store.game(99)
        assert store.open_tables() == []
    assert (summary.id, summary.table_id, summary.table_name, summary.game_no) == (game_id, "t1", "Friday", 1)
    assert (summary.started, summary.ended, summary.rounds) == (1000.0, 2000.0, 2)
    assert game.result is not None
    assert [(p.name, p.kind, p.bullheads, p.place, p.won) for p in summary.players] == [
        (name, kind, game.result.totals[s], game.result.places[s], s in game.result.winners)
        for s, (name, kind) in enumerate([("Ann", "human"), ("Bob", "bot"), ("Cid", "builtin")])]
    assert kept.record == record
    assert Replay(kept.record).run().game.result == game.result  # type: ignore[union-attr]


def test_finishing_a_game_that_is_not_over_is_refused() -> None:
    game, _ = play_game(Options(players=2, rounds=1), seed=1)
    record = record_from_game(game, seats=["A", "B"], claims=False)
    with Store.open(MEMORY) as store, pytest.raises(ValueError, match="claims its result"):
        store.finish_game("t1", "x", 1, record, ["human", "human"], 0.0, 1.0)


def test_player_stats_count_games_wins_and_bullheads_per_round() -> None:
    results = []
    with Store.open(MEMORY) as store:
        for seed, names in enumerate([["Ann", "Bob"], ["Bob", "Cid", "Ann"], ["Ann", "Bob"]]):
            options = Options(players=len(names), rounds=1 + seed)
            game, _ = play_game(options, seed=seed)
            record = record_from_game(game, seats=names)
            store.finish_game("t1", "x", seed + 1, record, ["human"] * len(names), 0.0, 1.0)
            results.append((names, game.result, 1 + seed))
        stats = {s.name: s for s in store.player_stats()}
    for name in ("Ann", "Bob", "Cid"):
        mine = [(r, rounds, names.index(name)) for names, r, rounds in results if name in names]
        s = stats[name]
        assert s.games == len(mine)
        assert s.wins == sum(seat in r.winners for r, _, seat in mine)
        assert s.rounds == sum(rounds for _, rounds, _ in mine)
        assert s.bullheads == sum(r.totals[seat] for r, _, seat in mine)
        assert s.mean_per_round == pytest.approx(s.bullheads / s.rounds)
    assert list(stats) == ["Ann", "Bob", "Cid"]  # most games first


def test_memory_store_keeps_nothing_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with Store.open(MEMORY) as store:
        store.create_table(store.next_table_id(), "x", {}, {})
        assert len(store.open_tables()) == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", [
    "nimmt.server.storage.facts", "nimmt.server.storage.files", "nimmt.server.records.history"])
def test_doctests_of_the_storage_modules(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_an_older_database_is_migrated_keeping_its_data(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import nimmt.server.storage.opening as opening

    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table(store.next_table_id(), "Friday", {}, {})
    version = SCHEMA_VERSION + 1
    migrations = {**opening.MIGRATIONS,
                  version: ("ALTER TABLE tables ADD COLUMN colour TEXT NOT NULL DEFAULT 'green'",)}
    monkeypatch.setattr(opening, "MIGRATIONS", migrations)
    monkeypatch.setattr(opening, "SCHEMA_VERSION", version)
    with Store.open(path) as store:
        assert store.open_tables()[0].name == "Friday" and store.next_table_id() == "t2"
        assert store._db.execute("SELECT colour FROM tables").fetchone() == ("green",)
    with sqlite3.connect(path) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == version
    plain.close()


def test_a_version_1_file_gets_the_spectators_and_keeps_its_tables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file written before spectators were stored (schema 1) opens, keeps its
    tables and seats, and stores spectators from then on."""
    import nimmt.server.storage.opening as opening

    path = tmp_path / "nimmt.db"
    monkeypatch.setattr(opening, "SCHEMA_VERSION", 1)
    with Store.open(path) as old:
        old.create_table("t1", "Friday", {}, {})
        old.set_seat("t1", 0, "Ann", "human", token=new_token())
    monkeypatch.undo()
    with Store.open(path) as store:
        (table,) = store.open_tables()
        assert [s.name for s in table.seats] == ["Ann"] and table.spectators == ()
        store.watch("t1", hash_token("tok"), "Sue", "spectator")
        assert [w.name for w in store.open_tables()[0].spectators] == ["Sue"]
        store.unwatch("t1", hash_token("tok"))
        assert store.open_tables()[0].spectators == ()
    with sqlite3.connect(path) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    plain.close()


def test_a_migration_that_fails_leaves_the_file_at_its_version(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import nimmt.server.storage.opening as opening
    from nimmt.server.storage import DatabaseUnreadable

    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table(store.next_table_id(), "Friday", {}, {})
    version = SCHEMA_VERSION + 1
    migrations = {**opening.MIGRATIONS, version: (
        "ALTER TABLE tables ADD COLUMN colour TEXT", "INSERT INTO no_such_table VALUES (1)")}
    monkeypatch.setattr(opening, "MIGRATIONS", migrations)
    monkeypatch.setattr(opening, "SCHEMA_VERSION", version)
    with pytest.raises(DatabaseUnreadable, match=rf"cannot bring {path} up to database version {version}"):
        Store.open(path)
    monkeypatch.undo()
    with Store.open(path) as store:  # still the old version, whole, and not locked
        assert [t.name for t in store.open_tables()] == ["Friday"]
        assert "colour" not in {row[1] for row in store._db.execute("PRAGMA table_info(tables)")}
