"""``nimmt-replay games`` (``Store.games``) lists the finished games oldest first: in
the order they ended, not the order they began (a long game begun first is listed
after a short one that ended before it); games that ended at the same moment in the
order they were kept."""

from __future__ import annotations

from pathlib import Path

from nimmt.engine import Options, record_from_game
from nimmt.server.storage import Store

from storage_helpers import play_game


def test_finished_games_are_listed_by_when_they_ended(tmp_path: Path) -> None:
    game, facts = play_game(Options(players=3, rounds=1), 7)
    record = record_from_game(game, seats=["Ann", "Bob", "Cid"])
    with Store.open(tmp_path / "nimmt.db") as store:
        kept = {}
        for table_id, started, ended in (("t1", 1.0, 50.0),   # long: begun first, ends last
                                         ("t2", 2.0, 10.0),
                                         ("t3", 3.0, 10.0),   # ends with t2, kept after it
                                         ("t4", 0.5, 20.0)):
            store.create_table(table_id, table_id.upper(), {}, {})
            store.append(table_id, facts)
            kept[table_id] = store.finish_game(table_id, table_id.upper(), 1, record,
                                               ["human"] * 3, started=started, ended=ended)
        games = store.games()
    assert [(g.table_id, g.id, g.started, g.ended) for g in games] == [
        ("t2", kept["t2"], 2.0, 10.0), ("t3", kept["t3"], 3.0, 10.0),
        ("t4", kept["t4"], 0.5, 20.0), ("t1", kept["t1"], 1.0, 50.0)]
