"""Step pacing is output scheduled for later: while a table shows its resolution
step by step, it still answers requests at once (a real server, fake clock)."""

from __future__ import annotations

import trio

from nimmt import protocol as P
from server_helpers import ScriptClient, make_config, seat_players, serve_memory


async def test_a_paced_table_answers_requests_while_it_shows_the_steps(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")
        table_id = await seat_players(ann, [bob], P.TableOptions(seats=2, step_delay=5.0))
        carl = await ScriptClient.memory(server, nursery, "Carl")
        await ann.send(P.Start())
        for player in (ann, bob):
            await player.expect("turn_started")
            hand = player.of_type("hand_dealt")[-1].cards
            await player.send(P.Commit(round=1, turn=1, card=hand[0]))
        await bob.expect("revealed")
        revealed_at = trio.current_time()
        # two steps at least, 5 s apart, before turn 2: the table is pacing now
        refused = await carl.request(P.Join(table_id=table_id))
        assert refused.code == "already_started"
        assert trio.current_time() - revealed_at < 1.0
        await ann.send(P.Chat(text="nice"))
        assert (await bob.expect("chat_message")).text == "nice"
        assert trio.current_time() - revealed_at < 1.0
        turn = await bob.expect("turn_started")
        assert turn.turn == 2 and trio.current_time() - revealed_at >= 10.0
        nursery.cancel_scope.cancel()
