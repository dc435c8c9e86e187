"""Chaos: clients that send every kind of well-formed request in random order, with
random table ids, seats, cards, rounds and turns. The server answers each with a
reply or a documented error, never crashes, and a game at another table finishes
undisturbed."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
import trio

from nimmt import protocol as P
from nimmt.protocol.examples import EXAMPLES
from server_helpers import ScriptClient, make_config, serve_memory
from test_server_hostile import with_background

CLIENT_EXAMPLES = [m for m in EXAMPLES.values() if P.Role.CLIENT in type(m).SENDERS
                   and not isinstance(m, (P.Hello, P.Goodbye))]


def random_request(rng: random.Random) -> P.Message:
    """A well-formed client message with random (valid-typed) values."""
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
                "table_id": lambda: f"t{rng.randint(1, 6)}",
            }[name]()
    if isinstance(msg, P.CreateTable):
        fields["options"] = P.TableOptions(seats=rng.randint(2, 5), rounds=1, point_limit=None,
                                           step_delay=0.0, draft=rng.random() < 0.3,
                                           professional=rng.random() < 0.3)
    return replace(msg, **fields)


async def chaos(client: ScriptClient, rng: random.Random, count: int) -> None:
    for _ in range(count):
        await client.send_unchecked(random_request(rng))
        with trio.move_on_after(0.05):  # read what came back, as a live client would
            while True:
                await client.recv()
        await trio.sleep(rng.random() * 0.5)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_requests_never_break_the_server(autojump_clock, seed):
    rng = random.Random(seed)
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(turn_time=2.0, choice_time=2.0,
                                                         draft_time=2.0))
        background = await with_background(server, nursery)
        clients = [await ScriptClient.memory(server, nursery, f"Chaos{i}", kind)
                   for i, kind in enumerate(("human", "bot", "spectator"))]
        async with trio.open_nursery() as crowd:
            for client in clients:
                crowd.start_soon(chaos, client, random.Random(rng.random()), 150)
        await background.wait()
        background.check()
        for client in clients:
            errors = client.of_type("error")
            assert all(e.code in P.ERROR_CODES for e in errors)
            # nothing a well-formed request did was a protocol error of the server's own
            assert not [e for e in errors if e.code in ("bad_msgpack", "missing_field",
                                                        "wrong_type", "extra_field")]
        # and the server still serves newcomers
        fresh = await ScriptClient.memory(server, nursery, "Fresh")
        assert isinstance(await fresh.request(P.ListTables()), P.TableList)
        nursery.cancel_scope.cancel()
