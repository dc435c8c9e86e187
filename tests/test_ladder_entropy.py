"""Issue 27, the queue and verifiable deals end to end: the 16 random bytes each
ladder bot of the SDK adds to its ``queue`` (``ClientConnection.send``) are among
the contributions a real server mixes into the seed of the table the queue forms,
and the finished game verifies (``nimmt-replay --verify``, ``sdk.verify_game``).
Protocol 3 (issue 42): the queue carries their hash, the bot reveals them when the
server asks, and the record keeps both."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from nimmt import protocol as P
from nimmt.bots.sdk import play_async, verify_game
from nimmt.client.net import JOIN_ENTROPY_BYTES, ClientConnection
from nimmt.engine import Phase
from nimmt.server.records.replay import main as replay_main
from nimmt.server.storage import Store
from real_server import running_server


def lowest(view):  # noqa: ANN001, ANN201 - the SDK's decide(view)
    if view.phase is Phase.ROW_CHOICE or view.phase is Phase.TIE_CHOICE:
        return view.legal[0]
    return min(view.hand)


def test_the_entropy_each_ladder_bot_queues_with_is_mixed_into_its_games_deals(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NIMMT_STATE_DIR", str(tmp_path / "state"))
    hashed: dict[str, list[str]] = {}  # name -> the entropy_hash of each queue it sent
    sent: dict[str, list[str]] = {}  # name -> the entropy of each reveal it sent
    write = ClientConnection._write

    async def recording(self: ClientConnection, msg: P.Message) -> None:
        if isinstance(msg, P.Queue):
            # added by send(), not by the bot: a hash, never the entropy itself
            assert msg.entropy is None and msg.entropy_hash is not None
            hashed.setdefault(self.name, []).append(msg.entropy_hash)
        if isinstance(msg, P.Reveal):
            sent.setdefault(self.name, []).append(msg.entropy)
        await write(self, msg)

    monkeypatch.setattr(ClientConnection, "_write", recording)
    path = tmp_path / "nimmt.db"

    async def both() -> list:
        return await asyncio.gather(*(
            play_async(lowest, f"127.0.0.1:{port}", name=name, ladder=True, seats=2,
                       rounds=1, fill_after=None, games=1) for name in ("Uno", "Dos")))

    with running_server("--step-delay", "0", "--db", str(path)) as port:
        uno, dos = asyncio.run(asyncio.wait_for(both(), timeout=60))
    assert uno.games == dos.games == 1 and uno.errors == dos.errors == []
    assert uno.tables == dos.tables  # the queue seated them together
    assert sorted(sent) == ["Dos", "Uno"] and all(len(e) == 1 for e in sent.values())
    assert sorted(hashed) == ["Dos", "Uno"] and all(len(h) == 1 for h in hashed.values())
    entropy = {name: bytes.fromhex(e[0]) for name, e in sent.items()}
    assert {name: hashlib.sha256(e).hexdigest() for name, e in entropy.items()} == {
        name: h[0] for name, h in hashed.items()}
    assert all(len(e) == JOIN_ENTROPY_BYTES for e in entropy.values())
    assert entropy["Uno"] != entropy["Dos"]

    with Store.open(path, read_only=True) as kept:
        (game,) = kept.games()
        record = kept.game(game.id).record
    claim = record.fair_deal
    assert claim is not None
    # each seat's contribution is the entropy its player queued with
    assert record.seats is not None
    assert dict(zip(record.seats, claim.contributions)) == entropy
    assert dict(zip(record.seats, (h.hex() for h in claim.hashes))) == {
        name: h[0] for name, h in hashed.items()}
    assert claim.withheld == ()
    assert verify_game(record, claim.commitment) == 1  # one round, one deal
    assert replay_main(["--verify", "--db", str(path), str(game.id)]) == 0
    assert "verified" in capsys.readouterr().out
