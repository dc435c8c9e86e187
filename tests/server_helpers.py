"""Helpers for the server tests: a scripted client over a real socket or a memory stream.

``ScriptClient`` speaks the protocol through ``nimmt.protocol.Connection``
(client role, so every server message is checked: sequence numbers, states,
fields) and keeps every byte and every message it received.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any
from collections.abc import Callable

import trio
import trio.testing

from nimmt import protocol as P
from nimmt.server import Server, ServerConfig, TableSettings

__all__ = [
    "ScriptClient",
    "Closed",
    "make_config",
    "serve_memory",
    "play_until_over",
]


#: No read in a server test waits longer than this (trio time): a test that would
#: hang fails instead of spinning the fake clock for ever.
READ_LIMIT = 3600.0


class Closed(Exception):
    """The server ended the connection (``goodbye`` is the goodbye, if one came)."""

    def __init__(self, goodbye: P.Goodbye | None) -> None:
        super().__init__(goodbye)
        self.goodbye = goodbye


def make_config(**table: Any) -> ServerConfig:
    """Settings for tests: fast tables unless a test asks otherwise."""
    top = {k: table.pop(k) for k in list(table) if k in ServerConfig.__dataclass_fields__}
    top.setdefault("bot_level", "easy")  # instant bots, so fake clocks work
    top.setdefault("ladder_step_delay", 0.0)  # ladder tables as quick as the test asks
    settings = replace(TableSettings(), **table)
    return ServerConfig(port=0, table=settings, **top).validate()


class ScriptClient:
    """One client. ``await ScriptClient.tcp(port, "Ann")`` or ``.memory(server, "Ann")``."""

    def __init__(self, stream: trio.abc.Stream, name: str, kind: str = "human") -> None:
        self.stream = stream
        self.name = name
        self.kind = kind
        self.conn = P.Connection(P.CLIENT)
        self.raw = bytearray()  # every byte received
        self.log: list[P.Message] = []  # every message received, in order
        self.times: list[float] = []  # trio time each message of ``log`` arrived
        self._pending: list[P.Message] = []  # received, not yet handed out
        self.goodbye: P.Goodbye | None = None
        self.closed = False
        self.token: str | None = None
        self.welcome: P.Welcome | None = None
        self.seat: int | None = None
        self.table_id: str | None = None
        self._ids = 0
        self.auto_pong = True  # answer pings by itself (as any real client does)

    # -------------------------------------------------------------- connecting
    @classmethod
    async def tcp(cls, port: int, name: str, kind: str = "human", *,
                  token: str | None = None, hello: bool = True,
                  protocol: int = P.PROTOCOL_VERSION, key: str | None = None) -> ScriptClient:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        client = cls(stream, name, kind)
        if hello:
            await client.hello(token, protocol=protocol, key=key)
        return client

    @classmethod
    async def memory(cls, server: Server, nursery: trio.Nursery, name: str,
                     kind: str = "human", *, token: str | None = None, hello: bool = True,
                     lockstep: bool = False) -> ScriptClient:
        pair = trio.testing.lockstep_stream_pair if lockstep else trio.testing.memory_stream_pair
        ours, theirs = pair()
        nursery.start_soon(server.handle_stream, theirs)
        client = cls(ours, name, kind)
        if hello:
            await client.hello(token)
        return client

    async def hello(self, token: str | None = None, *, protocol: int = P.PROTOCOL_VERSION,
                    key: str | None = None) -> P.Welcome:
        await self.send(P.Hello(protocol=protocol, name=self.name, kind=self.kind,
                                token=token, key=key))
        welcome = await self.expect("welcome")
        assert isinstance(welcome, P.Welcome)
        self.welcome = welcome
        self.token = welcome.token
        return welcome

    # -------------------------------------------------------------- sending
    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    async def send(self, msg: P.Message) -> None:
        await self.stream.send_all(self.conn.send(msg))

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def send_unchecked(self, msg: P.Message) -> None:
        """Send ``msg`` even if the client's state does not allow it (to test the server)."""
        await self.stream.send_all(P.encode_frame(msg))

    async def request(self, msg: P.Message, *, unchecked: bool = False) -> P.Message:
        """Send ``msg`` with a fresh id and return the reply carrying it as ``re``."""
        msg = replace(msg, id=self.next_id())
        if unchecked:
            await self.send_unchecked(msg)
        else:
            await self.send(msg)
        return await self.expect(lambda m: m.re == msg.id)

    # -------------------------------------------------------------- receiving
    async def _read(self) -> None:
        try:
            data = await self.stream.receive_some(65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            data = b""
        self.raw += data
        self.conn.receive_data(data)
        while True:
            msg = self.conn.next_message()
            if msg is P.NEED_DATA:
                return
            if msg is P.CONNECTION_CLOSED:
                self.closed = True
                return
            self.log.append(msg)
            self.times.append(trio.current_time())
            self._pending.append(msg)
            if isinstance(msg, P.Goodbye):
                self.goodbye = msg
            elif isinstance(msg, P.Ping) and self.auto_pong:
                try:
                    await self.stream.send_all(self.conn.send(P.Pong(nonce=msg.nonce)))
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
            self._track(msg)

    def _track(self, msg: P.Message) -> None:
        if isinstance(msg, P.Seated):
            self.seat, self.table_id = msg.seat, msg.table.table_id
        elif isinstance(msg, P.Watching):
            self.seat, self.table_id = None, msg.table.table_id
        elif isinstance(msg, P.Left):
            self.seat = self.table_id = None

    async def recv(self) -> P.Message:
        """The next message; ``Closed`` once the connection is over."""
        while not self._pending:
            if self.closed:
                raise Closed(self.goodbye)
            await self._read()
        return self._pending.pop(0)

    async def expect(self, what: str | Callable[[P.Message], bool]) -> P.Message:
        """Skip messages until one of type ``what`` (or matching it) comes; return it."""
        test = (lambda m: m.TYPE == what) if isinstance(what, str) else what
        with trio.fail_after(READ_LIMIT):
            while True:
                msg = await self.recv()
                if test(msg):
                    return msg

    def drain(self) -> list[P.Message]:
        """The messages received and not handed out yet (without reading more)."""
        out, self._pending = self._pending, []
        return out

    async def wait_closed(self) -> P.Goodbye | None:
        """Read until the server closes the connection; return its goodbye."""
        with trio.fail_after(READ_LIMIT):
            while not self.closed:
                await self._read()
        self._pending.clear()
        return self.goodbye

    async def aclose(self) -> None:
        await trio.aclose_forcefully(self.stream)

    def of_type(self, tag: str) -> list[P.Message]:
        return [m for m in self.log if m.TYPE == tag]


async def serve_memory(nursery: trio.Nursery, config: ServerConfig | None = None,
                       dealer: Any = None) -> Server:
    """A server without listeners: clients come in with ``ScriptClient.memory``."""
    server = Server(config or make_config(), dealer=dealer)
    await nursery.start(server.serve)
    return server


def current_hand(client: ScriptClient) -> list[int]:
    """The client's hand, from what it received: the last hand (dealt, or in a
    snapshot) less its own cards revealed since."""
    hand: list[int] = []
    for msg in client.log:
        if isinstance(msg, P.HandDealt):
            hand = sorted(msg.cards)
        elif isinstance(msg, P.Snapshot):
            hand = list(msg.hand)
        elif isinstance(msg, P.Revealed):
            hand = [c for c in hand if (client.seat, c) not in msg.plays]
    return hand


class Player:
    """The scripted play of one seat: what it knows is only what it received."""

    def __init__(self, client: ScriptClient, seed: int = 0,
                 choose: Callable[[Player, P.Message], Any] | None = None) -> None:
        self.client = client
        self.rng = random.Random(seed)
        self.choose = choose

    @property
    def hand(self) -> list[int]:
        return current_hand(self.client)

    def on(self, msg: P.Message) -> P.Message | None:
        """The reply to ``msg``, if it asks for one."""
        if self.choose is not None:
            custom = self.choose(self, msg)
            if custom is not None:
                return custom
        if isinstance(msg, P.TurnStarted):
            return P.Commit(round=msg.round, turn=msg.turn, card=self.rng.choice(self.hand))
        if isinstance(msg, P.Snapshot) and msg.phase == "commit" and msg.commit is None:
            return P.Commit(round=msg.round, turn=msg.turn, card=self.rng.choice(self.hand))
        if isinstance(msg, P.RowChoiceRequest):
            return P.ChooseRow(round=msg.round, turn=msg.turn, row=self.rng.choice(msg.rows))
        if isinstance(msg, P.TieChoiceRequest):
            return P.ChooseTie(round=msg.round, turn=msg.turn, place=msg.places[-1])
        if isinstance(msg, P.DraftPickRequest):
            return P.DraftPick(round=msg.round, pick=msg.pick, card=self.rng.choice(msg.pool))
        return None


async def play_until_over(player: Player) -> P.GameOver:
    """Answer every request until ``game_over``; return it."""
    client = player.client
    while True:
        with trio.fail_after(READ_LIMIT):
            msg = await client.recv()
        if isinstance(msg, P.GameOver):
            return msg
        reply = player.on(msg)
        if reply is not None:
            await client.send(reply)


async def seat_players(host: ScriptClient, others: list[ScriptClient],
                       options: P.TableOptions | None = None, bots: int = 0) -> str:
    """``host`` creates a table, ``others`` join it, ``bots`` built-in bots fill seats;
    returns the table id (the game is not started)."""
    seated = await host.request(P.CreateTable(options=options or P.TableOptions()))
    assert isinstance(seated, P.Seated), seated
    table_id = seated.table.table_id
    for other in others:
        reply = await other.request(P.Join(table_id=table_id))
        assert isinstance(reply, P.Seated), reply
    for _ in range(bots):  # the heuristic: instant, so fake clocks work
        reply = await host.request(P.AddBot(strategy="heuristic"))
        assert isinstance(reply, P.TableUpdated), reply
    return table_id


async def play_all(players: list[Player]) -> list[P.GameOver]:
    """Run every player until its ``game_over``; the results in the players' order."""
    results: list[Any] = [None] * len(players)

    async def run(i: int) -> None:
        results[i] = await play_until_over(players[i])

    async with trio.open_nursery() as nursery:
        for i in range(len(players)):
            nursery.start_soon(run, i)
    return results


def fixed_dealer(first: Any) -> Callable[..., Any]:
    """A dealer whose first deal is ``first`` (an engine ``Deal``); then shuffled."""
    from nimmt.server.game.translate import random_deal

    used = []

    def dealer(options: Any, pending: Any, view: Any, rng: random.Random) -> Any:
        if not used and not pending.rows_only:
            used.append(first)
            return first
        return random_deal(options, pending, view, rng)

    return dealer


def standard_hands(players: int, low_seat: int | None = None) -> Any:
    """A deal for ``players`` whose rows start at 11, 12, 13, 14; ``low_seat`` (if any)
    holds cards 1..10, which fit no row; the other seats hold cards from 15 up."""
    from nimmt.engine import Deal

    rows = (11, 12, 13, 14)
    pool = list(range(15, 105))
    hands = []
    for seat in range(players):
        if seat == low_seat:
            hands.append(tuple(range(1, 11)))
        else:
            hands.append(tuple(pool[:10]))
            pool = pool[10:]
    return Deal(rows=rows, hands=tuple(hands))
