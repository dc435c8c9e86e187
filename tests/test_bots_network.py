"""Built-in strategies play whole games over the network against the real server,
seeing only what their seat is sent."""

from __future__ import annotations

import asyncio

from nimmt import protocol as wire
from nimmt.bots import HeuristicStrategy, RandomStrategy
from nimmt.bots.runner import main, play_bot
from real_server import running_server


def test_a_network_bot_plays_games_to_the_end_without_a_refused_decision() -> None:
    with running_server() as port:
        options = wire.TableOptions(seats=4, rounds=2, point_limit=None, step_delay=0.0)
        result = asyncio.run(asyncio.wait_for(
            play_bot("127.0.0.1", port, HeuristicStrategy(), name="Heuri", create=options,
                     add_bots=3, games=2),
            timeout=60,
        ))
    assert result.games == 2
    assert result.errors == []  # every decision the tracker offered was legal
    assert result.seat == 0 and all(1 <= place <= 4 for place in result.places or [])
    assert all(len(totals) == 4 for totals in result.totals or [])


def test_four_network_bots_share_a_professional_draft_table() -> None:
    async def table(port: int) -> list:
        options = wire.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0.0,
                                    draft=True, professional=True, tactic_deck=True)
        host = asyncio.create_task(play_bot("127.0.0.1", port, RandomStrategy(1), name="Host",
                                            create=options))
        await asyncio.sleep(0.2)  # let the host create the table first
        guests = [asyncio.create_task(play_bot("127.0.0.1", port, RandomStrategy(s), name=f"G{s}"))
                  for s in (2, 3, 4)]
        return await asyncio.wait_for(asyncio.gather(host, *guests), timeout=60)

    with running_server() as port:
        results = asyncio.run(table(port))
    assert [r.games for r in results] == [1, 1, 1, 1]
    assert all(r.errors == [] for r in results)
    assert len({r.table_id for r in results}) == 1
    assert sorted(r.seat for r in results) == [0, 1, 2, 3]
    assert len({tuple(r.totals[0]) for r in results}) == 1  # everyone saw the same result


def test_nimmt_bot_command_says_what_is_wrong_without_a_server(capsys) -> None:
    with running_server() as port:
        pass  # the server is gone again: nobody listens on this port now
    assert main([f"127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nimmt-bot: ") and "Traceback" not in err
