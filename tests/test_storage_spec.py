"""The storage's promises (docs/SERVER.md, "Storage"; the docstrings of
server/storage/*.py), one exact check each, on a real SQLite file: what the other
test_storage*.py files do not pin already (issue 43: a mutation sample of
server/storage/ let 8 of 49 mutants through)."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from pathlib import Path

import pytest
import trio
import trio.testing

from nimmt.engine import Deal, Options, record_from_game
from nimmt.server.storage import (
    AsyncStore,
    DatabaseLocked,
    DatabaseUnreadable,
    Fact,
    FactError,
    Store,
    StorageWriteError,
    deal_fact,
    game_started_fact,
    hash_token,
    left_fact,
    options_from,
    options_to_json,
    rebuild_game,
    seat_fact,
)
from nimmt.server.storage.errors import write_error
from nimmt.server.storage.ladder import (
    RatingChange,
    StoredClaim,
    ladder_rows,
    load_claims,
    load_ratings,
    save_claim,
    save_ratings_once,
)

from storage_helpers import play_game


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as plain:
        return plain.execute(sql).fetchall()


def _finished(players: int = 2, seed: int = 1):  # type: ignore[no-untyped-def]
    game, facts = play_game(Options(players=players, rounds=1), seed=seed)
    names = ["Ann", "Bob", "Cid", "Dan"][:players]
    return record_from_game(game, seats=names), facts


# ------------------------------------------------------------------ opening


def test_an_unknown_durability_is_refused_naming_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as e:
        Store.open(tmp_path / "nimmt.db", durability="fast")
    assert str(e.value) == "durability must be one of ('normal', 'full'), not 'fast'"
    assert not (tmp_path / "nimmt.db").exists()


def test_the_lock_file_names_the_holder_and_a_second_store_is_refused_until_close(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    first = Store.open(path)
    assert (tmp_path / "nimmt.db.lock").read_text() == str(os.getpid())
    with pytest.raises(DatabaseLocked) as e:
        Store.open(path)
    assert str(e.value) == (
        f"{path} is in use by another nimmt-server (process {os.getpid()}): stop that one "
        "first, or give this one another file with --db PATH")
    first.close()
    first.close()  # a second call does nothing
    Store.open(path).close()


def test_a_reader_needs_an_existing_current_file_and_refuses_every_write(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with pytest.raises(DatabaseUnreadable) as e:
        Store.open(path, read_only=True)
    assert str(e.value) == f"there is no database at {path}"
    assert not path.exists()
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        with Store.open(path, read_only=True) as reader:  # no lock: beside the writer
            assert [t.id for t in reader.open_tables()] == ["t1"]
            assert reader.writable is False and reader.checkpointer() is None
            with pytest.raises(StorageWriteError) as w:
                reader.create_table("t2", "x", {}, {})
            assert (str(w.value), w.value.reason) == (
                f"{path} is open for reading only", "read_only")
    old = tmp_path / "old.db"
    with sqlite3.connect(old) as plain:
        plain.execute("PRAGMA application_id = 1852403060")
        plain.execute("PRAGMA user_version = 1")
        plain.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    with pytest.raises(DatabaseUnreadable) as e:
        Store.open(old, read_only=True)
    assert str(e.value) == (f"{old} is from an older nimmt: start nimmt-server on it once "
                            "to bring it up to date")


def test_a_write_error_says_read_only_disk_full_or_the_io_error(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    cases = [(OSError(errno.EROFS, "ro"), "read_only", f"{path} is read-only: nothing more can be saved"),
             (OSError(errno.ENOSPC, "full"), "disk_full",
              f"the disk of {path} is full: nothing more can be saved"),
             (OSError(errno.EIO, "bad sector"), "io", f"cannot write to {path}: [Errno 5] bad sector")]
    for error, reason, message in cases:
        made = write_error(path, error)
        assert (made.reason, str(made), made.path) == (reason, message, path)
    memory = write_error(None, OSError(errno.ENOSPC, "full"))
    assert str(memory) == "the disk of the in-memory database is full: nothing more can be saved"


# ------------------------------------------------------------------ tables, seats, watchers


def test_table_numbers_are_never_lowered_and_survive_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        assert store.peek_next_table() == 1
        store.reserve_tables(5)
        store.reserve_tables(3)  # never lowers the mark
        assert store.peek_next_table() == 5
        assert store.next_table_id() == "t5"
        assert store.peek_next_table() == 6
    with Store.open(path) as store:
        assert (store.next_table_id(), store.next_table_id()) == ("t6", "t7")


def test_an_update_changes_only_what_is_given_and_the_time_it_was_changed(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {"players": 4}, {"rated": False}, at=100.0)
        store.update_table("t1", status="playing", at=150.0)
        store.update_table("t1", settings={"rated": True}, at=175.0)
    with Store.open(path) as store:
        (table,) = store.open_tables()
    assert (table.name, table.status, table.options, table.settings) == (
        "Friday", "playing", {"players": 4}, {"rated": True})
    assert (table.created, table.updated) == (100.0, 175.0)


def test_open_tables_come_oldest_first_whatever_their_ids(tmp_path: Path) -> None:
    with Store.open(tmp_path / "nimmt.db") as store:
        store.create_table("t2", "later", {}, {}, at=20.0)
        store.create_table("t9", "first", {}, {}, at=10.0)
        store.create_table("t10", "same time as t2, id before it", {}, {}, at=20.0)
        store.create_table("t3", "closed", {}, {}, at=5.0)
        store.close_table("t3")
        assert [t.id for t in store.open_tables()] == ["t9", "t10", "t2"]


def test_a_seat_taken_again_holds_its_last_holder_and_freeing_one_frees_only_it(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.set_seat("t1", 2, "Bot", "builtin", strategy="heuristic")
        store.set_seat("t1", 0, "Ann", "human", token="secret-a")
        store.set_seat("t1", 1, "Bob", "human", token="secret-b")
        store.set_seat("t1", 0, "Cid", "bot", token="secret-c")
        store.free_seat("t1", 1)
    with Store.open(path) as store:
        (table,) = store.open_tables()
    assert [(s.seat, s.name, s.kind, s.token_hash, s.strategy) for s in table.seats] == [
        (0, "Cid", "bot", hash_token("secret-c"), None),
        (2, "Bot", "builtin", None, "heuristic")]


def test_watchers_come_back_oldest_first_and_unwatch_removes_only_that_one(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.watch("t1", "hb", "Bea", "spectator", at=30.0)
        store.watch("t1", "ha", "Al", "human", at=30.0)  # same time: by token hash
        store.watch("t1", "hc", "Cy", "bot", at=10.0)
        store.watch("t1", "hd", "Di", "spectator", at=5.0)
        store.watch("t1", "hd", "Di", "spectator", at=40.0)  # again: the row is replaced
        store.watch("t1", "he", "Ed", "human", at=20.0)
        store.unwatch("t1", "he")
    with Store.open(path) as store:
        (table,) = store.open_tables()
    assert [(s.name, s.kind, s.token_hash) for s in table.spectators] == [
        ("Cy", "bot", "hc"), ("Al", "human", "ha"), ("Bea", "spectator", "hb"),
        ("Di", "spectator", "hd")]


def test_closing_a_table_deletes_its_seats_watchers_and_facts_everywhere(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        for table in ("t1", "t2"):
            store.create_table(table, table, {}, {})
            store.set_seat(table, 0, "Ann", "human", token="x")
            store.watch(table, "h", "Bea", "spectator")
            store.append(table, [seat_fact(0, "Ann", "human"), left_fact(0)])
        store.fold()
        store.append("t1", [left_fact(1)])  # in recent_facts
        store.close_table("t1")
    assert _rows(path, "SELECT DISTINCT table_id FROM seats") == [("t2",)]
    assert _rows(path, "SELECT DISTINCT table_id FROM spectators") == [("t2",)]
    assert _rows(path, "SELECT table_id, seq FROM facts") == [("t2", 1), ("t2", 2)]
    with Store.open(path) as store:  # the fold at start drops the closed table's rows
        assert store.facts("t1") == []
    assert _rows(path, "SELECT count(*) FROM recent_facts") == [(0,)]


# ------------------------------------------------------------------ facts


def test_appended_facts_are_numbered_on_from_the_file_across_reopening(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        stored = store.append("t1", [seat_fact(0, "Ann", "human"), left_fact(0)], at=7.5)
        assert [(f.kind, f.seq, f.at) for f in stored] == [("seat", 1, 7.5), ("left", 2, 7.5)]
        assert store.append("t1", []) == ()
    with Store.open(path) as store:  # numbered from the file, not from memory
        (third,) = store.append("t1", [left_fact(1)], at=9.0)
        assert (third.seq, third.at) == (3, 9.0)
        assert [(f.seq, f.payload) for f in store.facts("t1", after=1)] == [
            (2, {"seat": 0}), (3, {"seat": 1})]
        assert store.facts("t1", after=3) == []


def test_a_table_with_no_game_started_brings_back_every_fact(tmp_path: Path) -> None:
    with Store.open(tmp_path / "nimmt.db") as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", [seat_fact(0, "Ann", "human"), seat_fact(1, "Bob", "bot")])
        (table,) = store.open_tables()
    assert [(f.seq, f.payload["name"]) for f in table.facts] == [(1, "Ann"), (2, "Bob")]
    assert table.last_seq == 2


def test_a_failed_append_leaves_nothing_and_the_next_one_numbers_on(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    big = Fact("seat", {"seat": 0, "name": "x" * 50_000})  # past the pages the file may have
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", [left_fact(0), left_fact(1)])
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # a full disk
        with pytest.raises(StorageWriteError) as e:
            store.append("t1", [left_fact(2), big])
        assert e.value.reason == "disk_full"
        (fact,) = store.append("t1", [left_fact(3)])  # (fits on the pages there are)
        assert fact.seq == 3
        results, error = store.write_group([("append", ("t1", (big, big)), {})])
        assert results == [] and error is not None and error.reason == "disk_full"
        store._db.execute("PRAGMA max_page_count = 1073741823")
        (fact,) = store.append("t1", [left_fact(4)])
        assert fact.seq == 4
    assert _rows(path, "SELECT seq, payload FROM recent_facts ORDER BY seq") == [
        (1, '{"seat":0}'), (2, '{"seat":1}'), (3, '{"seat":3}'), (4, '{"seat":4}')]


def test_a_group_writes_every_call_in_order_in_one_transaction_or_none(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        results, error = store.write_group([
            ("create_table", ("t1", "Friday", {}, {}), {}),
            ("append", ("t1", (left_fact(0), left_fact(1))), {}),
            ("set_seat", ("t1", 0, "Ann", "human"), {"token": "tok"}),
            ("append", ("t1", (left_fact(2),)), {}),
        ])
        assert error is None and results == [(None, None), (2, None), (None, None), (3, None)]
        store._db.execute("PRAGMA query_only = 1")
        results, error = store.write_group([("free_seat", ("t1", 0), {}),
                                            ("append", ("t1", (left_fact(3),)), {})])
        assert results == [] and error is not None
        store._db.execute("PRAGMA query_only = 0")
    assert _rows(path, "SELECT seat, token_hash FROM seats") == [(0, hash_token("tok"))]
    with Store.open(path) as store:
        assert [f.payload["seat"] for f in store.facts("t1")] == [0, 1, 2]


def test_the_recent_log_is_folded_at_its_bound_into_the_sorted_log(tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    with Store.open(path) as store:
        store.FOLD_ROWS = 4
        store.create_table("t2", "b", {}, {})
        store.create_table("t1", "a", {}, {})
        store.append("t2", [left_fact(0)])
        store.append("t1", [left_fact(1), left_fact(2)])
        assert store.fold_due() is False
        store.append("t2", [left_fact(3)])
        assert store.fold_due() is True
        store.fold()
        assert store.fold_due() is False
        assert _rows(path, "SELECT table_id, seq FROM facts") == [
            ("t1", 1), ("t1", 2), ("t2", 1), ("t2", 2)]
        assert _rows(path, "SELECT count(*) FROM recent_facts") == [(0,)]
        (next_one,) = store.append("t1", [left_fact(4)])
        assert next_one.seq == 3


# ------------------------------------------------------------------ facts as data


def test_a_fact_of_an_unknown_kind_is_refused_and_a_stored_one_shows_its_place() -> None:
    with pytest.raises(FactError) as e:
        Fact("chat", {})
    assert str(e.value) == (
        "unknown fact kind 'chat': one of ['deal', 'deal_commitment', 'decision', 'game_over', "
        "'game_started', 'left', 'seat']")
    assert repr(Fact("left", {"seat": 1}, 4, 2.5)) == (
        "Fact(kind='left', payload={'seat': 1}, seq=4, at=2.5)")
    assert Fact("left", {"seat": 1}, 4, 2.5) == Fact("left", {"seat": 1})


def test_the_rebuilder_keeps_who_left_and_what_was_kept_for_one_game_only() -> None:
    options = Options(players=2, rounds=1)
    rebuilt = rebuild_game([
        Fact("game_started", game_started_fact(1, options).payload, 1),
        Fact("left", {"seat": 1}, 2),
        Fact("game_over", {"game": 1, "game_id": 7}, 3)])
    assert (rebuilt.game_no, rebuilt.left, rebuilt.kept_as, rebuilt.last_seq) == (1, {1}, 7, 3)
    rebuilt.feed(Fact("game_started", game_started_fact(2, options).payload, 4))
    assert (rebuilt.game_no, rebuilt.left, rebuilt.kept_as, rebuilt.last_seq) == (2, set(), None, 4)
    with pytest.raises(FactError) as e:
        rebuild_game([Fact("deal", deal_fact(Deal(rows=(1, 2, 3, 4))).payload, 5)])
    assert str(e.value) == "a stored deal (seq 5) comes before any game_started"


def test_stored_options_ignore_unknown_fields_and_refuse_a_non_object() -> None:
    assert options_from({"players": 3, "rounds": 2, "from_the_future": 1}) == Options(
        players=3, rounds=2)
    with pytest.raises(FactError) as e:
        options_from([3])
    assert str(e.value) == "stored options are not an object: [3]"


# ------------------------------------------------------------------ finished games, ladder


def test_a_finished_game_gets_its_game_over_fact_and_its_ratings_in_one_transaction(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    record, facts = _finished()
    ratings = (RatingChange("Ann", 26.0, 7.0, 1, 1), RatingChange("Bob", 24.0, 7.5, 1, 2))
    with Store.open(path) as store:
        store.create_table("t1", "Friday", {}, {})
        store.append("t1", facts)
        game_id = store.finish_game("t1", "Friday", 3, record, ["human", "bot"], 10.0, 20.0,
                                    ratings=ratings)
        (last,) = store.facts("t1", after=len(facts))
        assert (last.kind, last.payload, last.seq, last.at) == (
            "game_over", {"game": 3, "game_id": game_id}, len(facts) + 1, 20.0)
        assert [(r.name, r.mu, r.sigma, r.games) for r in store.ladder_read(load_ratings)] == [
            ("Ann", 26.0, 7.0, 1), ("Bob", 24.0, 7.5, 1)]
        with pytest.raises(ValueError) as e:
            store.finish_game("t1", "Friday", 4, record, ["human"], 10.0, 30.0)
        assert str(e.value) == "2 seats need 2 kinds, got 1"
        store.close_table("t1")
        second = store.finish_game("t1", "Friday", 4, record, ["human", "bot"], 30.0, 40.0)
        assert second == game_id + 1
    assert _rows(path, "SELECT game_id, name, place, at FROM rating_history ORDER BY name") == [
        (game_id, "Ann", 1, 20.0), (game_id, "Bob", 2, 20.0)]
    assert _rows(path, "SELECT count(*) FROM games") == [(2,)]
    # kept compact (``--export`` writes it indented), read back as it was
    assert _rows(path, f"SELECT options, record FROM games WHERE id = {game_id}") == [(
        json.dumps(options_to_json(record.options), separators=(",", ":")),
        json.dumps(record.to_dict(), separators=(",", ":")))]
    # the closed table got no game_over fact for its second game (left by the stop)
    assert _rows(path, "SELECT table_id, seq, payload FROM recent_facts WHERE kind = 'game_over'"
                 ) == [("t1", len(facts) + 1, f'{{"game":3,"game_id":{game_id}}}')]
    with Store.open(path) as store:
        assert store.game(game_id).record == record


def test_finished_games_are_listed_by_when_they_ended(tmp_path: Path) -> None:
    record, _ = _finished()
    with Store.open(tmp_path / "nimmt.db") as store:
        late = store.finish_game("t1", "a", 1, record, ["human", "bot"], 0.0, 50.0)
        early = store.finish_game("t2", "b", 1, record, ["human", "bot"], 0.0, 10.0)
        tie = store.finish_game("t3", "c", 1, record, ["human", "bot"], 0.0, 50.0)
        assert [g.id for g in store.games()] == [early, late, tie]
        stats = store.player_stats()
    assert [(s.name, s.games, s.rounds) for s in stats] == [("Ann", 3, 3), ("Bob", 3, 3)]


def test_claims_replace_by_key_and_a_game_is_never_rated_twice(tmp_path: Path) -> None:
    with Store.open(tmp_path / "nimmt.db") as store:
        store.ladder_write(lambda db: save_claim(db, "ann", StoredClaim("Ann", b"s1", b"d1", 5.0)))
        store.ladder_write(lambda db: save_claim(db, "bob", StoredClaim("Bob", b"s2", b"d2", 3.0)))
        store.ladder_write(lambda db: save_claim(db, "ann", StoredClaim("ANN", b"s3", b"d3", 9.0)))
        assert [(c.name, c.salt, c.at) for c in store.ladder_read(load_claims)] == [
            ("Bob", b"s2", 3.0), ("ANN", b"s3", 9.0)]
        change = (RatingChange("Ann", 30.0, 5.0, 1, 1),)
        assert store.ladder_write(lambda db: save_ratings_once(db, 1, change, 1.0)) is True
        again = (RatingChange("Ann", 99.0, 1.0, 2, 1),)
        assert store.ladder_write(lambda db: save_ratings_once(db, 1, again, 2.0)) is False
        (row,) = store.ladder_read(ladder_rows)
    assert (row.name, row.mu, row.games, row.before) == ("Ann", 30.0, 1, None)


# ------------------------------------------------------------------ the async store


def _run(fn):  # type: ignore[no-untyped-def]
    return trio.run(fn, clock=trio.testing.MockClock(autojump_threshold=0))


def test_new_table_ids_are_given_at_once_and_their_mark_saved_with_the_next_transaction(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"

    async def main() -> None:
        astore = AsyncStore(Store.open(path))
        assert (astore.new_table_id(), astore.new_table_id()) == ("t1", "t2")
        assert astore.backlog == 2 and astore.commits == 0
        assert await astore.create_table("t2", "Friday", {}, {}) is None
        assert astore.backlog == 0 and astore.commits == 1
        await astore.aclose()

    _run(main)
    with Store.open(path) as store:
        assert store.next_table_id() == "t3"


def test_while_storage_fails_health_is_said_once_each_way_and_the_game_id_comes_later(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    record, _ = _finished()
    heard: list[str | None] = []

    async def main() -> None:
        astore = AsyncStore(Store.open(path),
                            on_health=lambda e: heard.append(None if e is None else e.reason))
        await astore.create_table("t1", "Friday", {}, {})
        astore.store._db.execute("PRAGMA query_only = 1")
        error = await astore.append("t1", left_fact(0))
        assert error is not None and error.reason == "read_only"
        assert await astore.finish_game("t1", "Friday", 1, record, ["human", "bot"],
                                        1.0, 2.0) is None
        still = await astore.retry()
        assert still is not None and astore.backlog == 2
        astore.store._db.execute("PRAGMA query_only = 0")
        assert await astore.retry() is None and astore.backlog == 0
        assert astore.failing is None
        await astore.aclose()
        assert astore.writes().append("t1", [left_fact(1)]) is None  # closed: not saved

    _run(main)
    assert heard == ["read_only", None]
    with Store.open(path) as store:
        assert [f.kind for f in store.facts("t1")] == ["left", "game_over"]
        assert [g.game_no for g in store.games()] == [1]



def test_a_database_in_memory_has_no_log_to_look_after() -> None:
    with Store.open(":memory:") as store:
        assert (store.path, store.checkpointer(), store.log_too_big()) == (None, None, False)
        assert repr(store) == "Store.open(':memory:')"
        assert store.next_table_id() == "t1"
