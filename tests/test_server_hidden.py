"""Hidden information: every byte each client received in a whole game is decoded, and
no card of another seat's hand (its commit included) appears in it before its reveal."""

from __future__ import annotations

import struct
from typing import Any
from collections.abc import Iterator

import msgpack
import trio

from nimmt import protocol as P
from nimmt.server import start_server
from server_helpers import (
    Player,
    ScriptClient,
    make_config,
    play_until_over,
    seat_players,
)

# fields whose ints are never cards (seat numbers, counters, times, ...)
NOT_CARDS = {
    "type", "seq", "re", "round", "turn", "seat", "row", "bullheads", "totals", "penalties",
    "places", "winners", "deadline", "remaining", "pick", "first_picker", "spectators",
    "total", "nonce", "committed", "host", "options", "limits", "end", "kind", "name",
    "text", "code", "message", "request", "field", "supported", "reason", "table_id",
    "status", "strategy", "connected", "token", "protocol", "server", "resumed",
}
# fields holding [seat, card] pairs
PAIRS = {"plays", "revealed", "draft_picks"}


def frames(raw: bytes) -> Iterator[dict[str, Any]]:
    """Every message in a byte stream, decoded independently of nimmt.protocol."""
    pos = 0
    while pos + 4 <= len(raw):
        (n,) = struct.unpack_from(">I", raw, pos)
        if pos + 4 + n > len(raw):
            break
        yield msgpack.unpackb(raw[pos + 4:pos + 4 + n], raw=False)
        pos += 4 + n


def card_ints(obj: Any, key: str | None = None, tag: str = "") -> Iterator[int]:
    """The ints of a decoded message that are cards."""
    if key in NOT_CARDS:
        return
    if key == "rows" and tag in ("row_choice_request", "Pending"):
        return  # row numbers
    if isinstance(obj, dict):
        inner = "Pending" if key == "pending" else tag
        for k, v in obj.items():
            yield from card_ints(v, k, inner)
    elif isinstance(obj, (list, tuple)):
        if key in PAIRS:
            for _seat, card in obj:
                yield card
        else:
            for v in obj:
                yield from card_ints(v, key, tag)
    elif isinstance(obj, int) and not isinstance(obj, bool):
        yield obj


def hands_by_round(clients: list[ScriptClient]) -> dict[int, dict[int, set[int]]]:
    """round -> seat -> the hand dealt, from each player's own messages."""
    hands: dict[int, dict[int, set[int]]] = {}
    for client in clients:
        rnd = 0
        for msg in frames(bytes(client.raw)):
            if msg["type"] == "round_started":
                rnd = msg["round"]
            elif msg["type"] == "hand_dealt":
                hands.setdefault(rnd, {})[client.seat] = set(msg["cards"])
            elif msg["type"] == "snapshot" and msg["hand"]:
                hands.setdefault(msg["round"], {}).setdefault(client.seat, set(msg["hand"]))
    return hands


def leaks(raw: bytes, me: int | None, hands: dict[int, dict[int, set[int]]]) -> list[str]:
    """Messages in ``raw`` (received by seat ``me``; None: a spectator) that show a card
    of another seat's hand before that card was revealed."""
    found = []
    rnd = 0
    public: set[int] = set()  # cards face up (or played) this round
    for msg in frames(raw):
        tag = msg["type"]
        if tag == "round_started":
            rnd, public = msg["round"], set()
        elif tag == "snapshot":
            # cards on the table and revealed ones are public (checked separately
            # against what a spectator saw face up)
            rnd = msg["round"]
            public |= {c for row in msg["rows"] for c in row}
            public |= {card for _, card in msg["revealed"]}
        elif tag == "revealed":  # this message is the reveal itself
            public |= {card for _, card in msg["plays"]}
        secret = set()
        for seat, hand in hands.get(rnd, {}).items():
            if seat != me:
                secret |= hand
        secret -= public
        shown = set(card_ints(msg, None, tag)) & secret
        if shown:
            found.append(f"{tag} shows {sorted(shown)}: {msg}")
    return found


def face_up(raw: bytes, rnd: int) -> set[int]:
    """The cards a client saw face up in round ``rnd`` (rows dealt and reveals)."""
    seen: set[int] = set()
    current = 0
    for msg in frames(raw):
        if msg["type"] == "round_started":
            current = msg["round"]
        elif current == rnd and msg["type"] == "rows_dealt":
            seen |= {c for row in msg["rows"] for c in row}
        elif current == rnd and msg["type"] == "revealed":
            seen |= {card for _, card in msg["plays"]}
    return seen


async def test_no_seat_ever_receives_another_seats_cards_before_the_reveal(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        clients = [await ScriptClient.tcp(port, n) for n in ("Ann", "Bob", "Cid", "Dee")]
        table_id = await seat_players(clients[0], clients[1:], P.TableOptions(seats=4))
        watcher = await ScriptClient.tcp(port, "Eve", "spectator")
        await watcher.request(P.Watch(table_id=table_id))
        await clients[0].send(P.Start())
        players = [Player(c, seed=i) for i, c in enumerate(clients)]

        async def watch() -> None:
            await watcher.expect("game_over")

        # Bob drops out in round 1 and comes back with a snapshot; Cid replaces
        # commits several times each turn (a replaced commit must stay secret too)
        bob_before: list[bytes] = []

        def cid_changes_mind(player: Player, msg: P.Message) -> Any:
            if isinstance(msg, P.CommitAccepted) and len(player.hand) > 1:
                changes = sum(1 for m in player.client.log if m.TYPE == "commit_accepted"
                              and (m.round, m.turn) == (msg.round, msg.turn))
                if changes < 3:
                    other = next(c for c in player.hand if c != msg.card)
                    return P.Commit(round=msg.round, turn=msg.turn, card=other)
            return None

        players[2].choose = cid_changes_mind

        async def bob() -> None:
            first = clients[1]
            while True:
                msg = await first.recv()
                if isinstance(msg, P.TurnStarted) and msg.turn == 4:
                    break
                reply = players[1].on(msg)
                if reply is not None:
                    await first.send(reply)
            bob_before.append(bytes(first.raw))
            await first.aclose()
            await trio.sleep(5)
            again = await ScriptClient.tcp(port, "Bob", token=first.token)
            again.seat = first.seat
            clients[1] = again
            players[1].client = again
            await play_until_over(players[1])

        async with trio.open_nursery() as game:
            game.start_soon(watch)
            game.start_soon(bob)
            for i in (0, 2, 3):
                game.start_soon(play_until_over, players[i])

        (snapshot,) = clients[1].of_type("snapshot")  # Bob did come back
        assert snapshot.hand and snapshot.turn == 4 and snapshot.phase == "commit"
        on_table = {c for row in snapshot.rows for c in row}
        assert on_table <= face_up(bytes(watcher.raw), snapshot.round)
        assert len(clients[2].of_type("commit_accepted")) > 20  # Cid changed his mind
        hands = hands_by_round([c for c in clients])
        rounds = max(hands)
        assert rounds >= 2 and all(len(hands[r]) == 4 for r in hands)
        streams = [(c.seat, bytes(c.raw)) for c in clients]
        streams.append((1, bob_before[0]))
        streams.append((None, bytes(watcher.raw)))
        for seat, raw in streams:
            assert raw and not leaks(raw, seat, hands), leaks(raw, seat, hands)[:3]
        # the check does see cards: each seat's own hand is in its own stream
        own = set(card_ints(next(m for m in frames(bytes(clients[0].raw))
                                 if m["type"] == "hand_dealt"), None, "hand_dealt"))
        assert own == hands[1][0]
        assert leaks(bytes(clients[0].raw), 3, hands)  # as seen by the wrong seat: leaks
        await server.shutdown()
        nursery.cancel_scope.cancel()
