"""The Python SDK: ``nimmt.bots.sdk.play(decide, ...)`` plays a whole game on the real
server with a plain function or a Strategy subclass, and survives a dropped link."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from nimmt import protocol as wire
from nimmt.bots import HeuristicStrategy
from nimmt.bots.sdk import Phase, View, cheapest_row, play
from nimmt.client import ClientError
from bot_proxy import DropProxy
from real_server import running_server


@pytest.fixture(scope="module")
def server_port() -> Iterator[int]:
    with running_server() as port:
        yield port


def test_a_decide_function_plays_a_game_with_one_call(server_port: int) -> None:
    views: list[View] = []

    def decide(view: View) -> int:
        views.append(view)
        if view.phase is Phase.ROW_CHOICE:
            return cheapest_row(view.rows)
        return max(view.hand)  # a bare card is enough

    result = play(decide, f"127.0.0.1:{server_port}", name="Highest", create=True, rounds=1,
                  add_bots=3)
    assert result.games == 1 and result.errors == [] and result.seat == 0
    commits = [v for v in views if v.phase is Phase.COMMIT]
    assert [len(v.hand) for v in commits] == list(range(10, 0, -1))  # one question a turn
    assert all(v.seat == 0 and v.options.players == 4 for v in views)


def test_a_strategy_subclass_plays_and_a_table_that_is_not_there_stops_play(
        server_port: int) -> None:
    class Careful(HeuristicStrategy):
        decisions = 0

        def decide(self, view):
            Careful.decisions += 1
            return super().decide(view)

    first = play(Careful(), f"127.0.0.1:{server_port}", name="Host", create=True, rounds=1,
                 add_bots=3)
    assert first.games == 1 and Careful.decisions >= 10
    missing = play(Careful(), f"127.0.0.1:{server_port}", table="t999")
    assert missing.games == 0 and missing.stopped is not None
    assert "could not take a seat at table t999" in missing.stopped


def test_a_decide_that_fails_is_played_for_and_the_game_goes_on(server_port: int, caplog) -> None:
    calls = []

    def decide(view: View) -> int:
        calls.append(view.turn)
        if len(calls) == 1:
            return 0  # not a card in the hand
        if len(calls) == 2:
            raise RuntimeError("a bug in my bot")
        return view.legal[0]

    options = wire.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0.0, turn_time=30)
    start = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        result = play(decide, f"127.0.0.1:{server_port}", create=options, add_bots=3)
    assert result.games == 1 and result.errors == []
    assert "ValueError: 0 is not a legal choice now" in caplog.text
    assert "RuntimeError: a bug in my bot" in caplog.text
    assert caplog.text.count("the fallback (heuristic) decides at once") == 2
    assert time.monotonic() - start < 20  # not two 30 s deadlines: decided at once


def test_play_resumes_after_the_link_drops(server_port: int) -> None:
    with DropProxy(server_port) as proxy:
        result = play(lambda view: view.legal[-1], f"127.0.0.1:{proxy.port}", create=True,
                      rounds=1, add_bots=3)
    assert proxy.dropped is not None  # the first commit was lost with the link
    assert result.games == 1 and result.errors == []


def test_play_without_a_server_raises_a_one_line_error() -> None:
    with running_server() as port:
        pass  # nobody listens on this port any more
    with pytest.raises(ClientError, match=f"no nimmt server at 127.0.0.1:{port}"):
        play(lambda view: view.legal[0], f"127.0.0.1:{port}")
