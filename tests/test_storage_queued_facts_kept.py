"""Facts handed to the store while it cannot write wait in its queue: what is saved
once the file can be written again is what was handed in, even if the caller's list of
facts changed meanwhile (the store keeps its own copy). Planted-bug survivor 12 of
the second sample (issue 43)."""

from __future__ import annotations

from pathlib import Path

from storage_helpers import play_game

from nimmt.engine import Options
from nimmt.server.storage import AsyncStore, Store


async def test_queued_facts_are_saved_as_handed_in_whatever_the_caller_does_with_its_list(
        tmp_path: Path) -> None:
    path = tmp_path / "nimmt.db"
    _, facts = play_game(Options(players=2, rounds=1), seed=5)
    astore = AsyncStore(Store.open(path))
    assert await astore.create_table("t1", "Friday", {}, {}) is None
    astore.store._db.execute("PRAGMA query_only = 1")  # SQLite's read-only error
    mine = list(facts[:4])
    writes = astore.writes()
    write = writes.append("t1", mine)
    await writes.written()
    assert write is not None and write.tried and not write.done and astore.backlog == 1
    mine[:] = facts[4:6]  # the caller reuses its list while the write waits
    astore.store._db.execute("PRAGMA query_only = 0")
    assert await astore.retry() is None and astore.backlog == 0
    await astore.aclose()
    with Store.open(path) as store:
        assert store.facts("t1") == facts[:4]
