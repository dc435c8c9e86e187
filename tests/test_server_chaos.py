"""Chaos: clients that send every kind of well-formed request in random order, with
random table ids, seats, cards, rounds and turns. The server answers each with a
reply or a documented error, never crashes, and a game at another table finishes
undisturbed.

``benchmarks/chaos.py`` runs the same chaos for minutes (many seeds, many tables)
and counts what the tests here assert: no ``internal_error``, ever.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace

import pytest
import trio

from nimmt import protocol as P
from nimmt.protocol.examples import EXAMPLES
from server_helpers import Closed, Player, ScriptClient, make_config, serve_memory
from test_server_hostile import with_background

CLIENT_EXAMPLES = [m for m in EXAMPLES.values() if P.Role.CLIENT in type(m).SENDERS
                   and not isinstance(m, (P.Hello, P.Goodbye))]


def random_request(rng: random.Random, table_ids: Callable[[], list[str]] = list) -> P.Message:
    """A well-formed client message with random (valid-typed) values; a ``table_id``
    is mostly one of ``table_ids()`` (the tables open now), sometimes one that is not."""
    msg = rng.choice(CLIENT_EXAMPLES)
    fields: dict[str, object] = {"seq": None, "re": None, "id": None}  # a client's envelope
    for name in ("round", "turn", "card", "row", "seat", "pick", "table_id"):
        if hasattr(msg, name) and getattr(msg, name) is not None:
            fields[name] = {
                "round": lambda: rng.randint(1, 3),
                "turn": lambda: rng.randint(1, 10),
                "card": lambda: rng.randint(1, 104),
                "row": lambda: rng.randint(0, 3),
                "seat": lambda: rng.randint(0, 9),
                "pick": lambda: rng.randint(1, 40),
                "table_id": lambda: rng.choice(table_ids() or ["t1"]) if rng.random() < 0.9
                else f"t{rng.randint(1, 6)}",
            }[name]()
    if isinstance(msg, P.CreateTable):
        fields["options"] = P.TableOptions(seats=rng.randint(2, 5), rounds=1, point_limit=None,
                                           step_delay=0.0, draft=rng.random() < 0.3,
                                           professional=rng.random() < 0.3)
    return replace(msg, **fields)


def open_tables(server) -> Callable[[], list[str]]:
    """The ids of ``server``'s open tables, asked afresh each time."""
    return lambda: list(server.lobby.tables)


def answers(player: Player, msg: P.Message) -> list[P.Message]:
    """What a client that means to play sends on ``msg``: a seated host fills its
    table with bots and starts it; a player answers what it is asked."""
    if isinstance(msg, P.Seated) and msg.table.host == msg.seat:
        free = sum(1 for s in msg.table.seats if s is None)
        return [P.AddBot() for _ in range(free)] + [P.Start()]
    try:
        reply = player.on(msg)
    except IndexError:  # no card known in hand (a commit it was not asked for)
        return []
    return [reply] if reply is not None else []


async def chaos(client: ScriptClient, rng: random.Random, count: int,
                table_ids: Callable[[], list[str]] = list, play: float = 0.0) -> int:
    """Send ``count`` random requests, reading what comes back; with chance ``play``
    a message received is also answered as a player would (``answers``), so the
    chaos reaches the game itself. Returns the number of messages sent."""
    player = Player(client, seed=rng.randrange(1 << 30))
    sent = 0
    try:
        for _ in range(count):
            await client.send_unchecked(random_request(rng, table_ids))
            sent += 1
            replies: list[P.Message] = []
            with trio.move_on_after(0.05):  # read what came back, as a live client would
                while True:
                    msg = await client.recv()
                    if rng.random() < play:
                        replies += answers(player, msg)
            for reply in replies:
                await client.send_unchecked(reply)
                sent += 1
            await trio.sleep(rng.random() * 0.5)
    except Closed:
        pass  # the server closed it (the assertions on its messages say why)
    return sent


def leftovers(server) -> tuple[int, int]:  # noqa: ANN001 - a nimmt.server.Server
    """The tables still open and the ghost members at them: members counted as
    connected whose session no live connection carries (or carries to no table)."""
    tables = [t for t in server.lobby.tables.values() if not t.closed]
    sessions = {s.sid: s for s in server.lobby.sessions.values()}
    ghosts = 0
    for table in tables:
        for sid, member in table.match.members.items():
            session = sessions.get(sid)
            live = session is not None and session.client is not None and session.table is table
            ghosts += member.connected and not live
    return len(tables), ghosts


def quiet_time(config) -> float:  # noqa: ANN001 - a ServerConfig
    """Long enough, once every client is gone, for every table to close: the grace of
    away players and spectators, a game played to its end by the autopilot, then
    ``abandon_after`` and ``keep_finished``."""
    t = config.table
    return 2 * (config.reconnect_grace + t.grace_time + t.abandon_after + t.keep_finished) + 3600


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_requests_never_break_the_server(autojump_clock, caplog, seed):
    caplog.set_level(logging.INFO, logger="nimmt.server")
    rng = random.Random(seed)
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(turn_time=2.0, choice_time=2.0,
                                                         draft_time=2.0))
        background = await with_background(server, nursery)
        clients = [await ScriptClient.memory(server, nursery, f"Chaos{i}", kind)
                   for i, kind in enumerate(("human", "bot", "spectator"))]
        async with trio.open_nursery() as crowd:
            for client in clients:
                crowd.start_soon(chaos, client, random.Random(rng.random()), 150,
                                 open_tables(server), 0.5)
        await background.wait()
        background.check()
        for client in clients:
            errors = client.of_type("error")
            assert all(e.code in P.ERROR_CODES for e in errors)
            # nothing a well-formed request did was a protocol error of the server's own
            assert not [e for e in errors if e.code in ("bad_msgpack", "missing_field",
                                                        "wrong_type", "extra_field")]
            # nor a bug: no table closed by one
            assert not [e for e in errors if e.code == "internal_error"]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert not [r for r in caplog.records if "internal error" in r.getMessage()]
        # the chaos reached real tables and games (not only unknown ids)
        said = [r.getMessage() for r in caplog.records]
        assert [t for t in said if " watches" in t] and [t for t in said if " sits down" in t]
        assert [t for t in said if t.startswith("table=") and " starts: " in t]
        # and the server still serves newcomers
        fresh = await ScriptClient.memory(server, nursery, "Fresh")
        assert isinstance(await fresh.request(P.ListTables()), P.TableList)
        # once everyone has gone, every table closes and none keeps a ghost member
        # (issue 22: members counted connected with no connection kept tables open)
        for client in [*clients, *background.clients, fresh]:
            await client.aclose()
        await trio.sleep(quiet_time(server.config))
        assert leftovers(server) == (0, 0)
        nursery.cancel_scope.cancel()
