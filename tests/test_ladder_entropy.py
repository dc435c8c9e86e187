"""Issue 27, the queue and verifiable deals end to end: the 16 random bytes each
ladder bot of the SDK adds to its ``queue`` (``ClientConnection.send``) are among
the contributions a real server mixes into the seed of the table the queue forms,
and the finished game verifies (``nimmt-replay --verify``, ``sdk.verify_game``)."""

from __future__ import annotations

import asyncio
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
    sent: dict[str, list[str]] = {}  # name -> the entropy of each queue it sent
    write = ClientConnection._write

    async def recording(self: ClientConnection, msg: P.Message) -> None:
        if isinstance(msg, P.Queue):
            assert msg.entropy is not None  # added by send(), not by the bot
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
    entropy = {name: bytes.fromhex(e[0]) for name, e in sent.items()}
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
    assert verify_game(record, claim.commitment) == 1  # one round, one deal
    assert replay_main(["--verify", "--db", str(path), str(game.id)]) == 0
    assert "verified" in capsys.readouterr().out
