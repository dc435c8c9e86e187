"""docs/SERVER.md, *What is kept*: "the token itself is never written", "claimed names
(a salted hash of each key, never the key)", and of a resume "The token is recognised
by its hash: it is never stored". Attacked on a whole server writing to a real file:
a player who claims her name with a key, sits and commits, a spectator who watches,
a player who resumes; then every byte the server left on the disk (the database and
its write-ahead log) is searched for each secret, while the file does hold what was
kept (the claim, the seats, the watcher), so that the search is not of an empty
file."""

from __future__ import annotations

import secrets
from pathlib import Path

import trio

from nimmt import protocol as P
from nimmt.server import start_server
from nimmt.server.storage import AsyncStore, Store
from nimmt.server.storage.ladder import load_claims
from server_helpers import ScriptClient, fixed_dealer, make_config, seat_players, standard_hands

OPTIONS = P.TableOptions(seats=2, step_delay=0, turn_time=30.0)


def _on_disk(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file())


async def test_no_session_token_and_no_claim_key_is_written_to_the_disk(tmp_path: Path):
    folder = tmp_path / "state"
    folder.mkdir()
    path = folder / "nimmt.db"
    key = secrets.token_urlsafe(30)  # 40 characters, found nowhere by chance
    deal = standard_hands(2)
    store = await AsyncStore.open(str(path))
    tokens: dict[str, str] = {}
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store,
                                          dealer=fixed_dealer(deal))
        ann = await ScriptClient.tcp(port, "Ann", key=key)
        assert ann.welcome is not None and ann.welcome.claimed
        bob = await ScriptClient.tcp(port, "Bob")
        table_id = await seat_players(ann, [bob], OPTIONS)
        sue = await ScriptClient.tcp(port, "Sue", "spectator")
        assert isinstance(await sue.request(P.Watch(table_id=table_id)), P.Watching)
        await ann.send(P.Start())
        await bob.expect("turn_started")
        accepted = await bob.request(P.Commit(round=1, turn=1, card=deal.hands[1][0]))
        assert isinstance(accepted, P.CommitAccepted)
        # Bob's link drops and he resumes with his token: the resume is checked by hash
        bob_token = bob.token
        await bob.aclose()
        bob2 = await ScriptClient.tcp(port, "Bob", token=bob_token)
        assert bob2.welcome is not None and bob2.welcome.resumed
        await bob2.expect("seated")
        for name, client in (("Ann", ann), ("Bob", bob2), ("Sue", sue)):
            assert client.token is not None
            tokens[name] = client.token
        await server.shutdown()
    await store.aclose()

    with Store.open(path, read_only=True) as peek:  # what was kept is there
        (table,) = peek.open_tables()
        assert [s.name for s in table.seats if s.name] == ["Ann", "Bob"]
        assert [w.name for w in table.spectators] == ["Sue"]
        assert [c.name for c in peek.ladder_read(load_claims)] == ["Ann"]
    raw = _on_disk(folder)
    assert len(raw) > 0
    found = [what for what, secret in [("Ann's key", key)] + sorted(tokens.items())
             if secret.encode() in raw]
    assert found == []
