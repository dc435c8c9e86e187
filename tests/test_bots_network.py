"""Built-in strategies play whole games over the network against the real server,
seeing only what their seat is sent."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys


from nimmt import protocol as wire
from nimmt.bots import HeuristicStrategy, RandomStrategy
from nimmt.bots.runner import main, play_bot
from bot_proxy import DropProxy
from real_server import ADDRESS, running_server


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


class _Recorder(HeuristicStrategy):
    """The heuristic, keeping every view it was asked to decide on and its answer."""

    def __init__(self) -> None:
        super().__init__()
        self.decided: list = []

    def decide(self, view):  # noqa: ANN001, ANN201 - a Strategy's signature
        decision = super().decide(view)
        self.decided.append((view, decision))
        return decision


def test_a_network_bots_view_says_who_played_each_card_of_the_round() -> None:
    """``View.plays`` over the network: every card revealed this round with its
    seat, turn by turn, as the in-process ``Game.view`` gives it (the search
    bot's opponent model tells seats apart by it)."""
    recorder = _Recorder()
    with running_server() as port:
        options = wire.TableOptions(seats=4, rounds=2, point_limit=None, step_delay=0.0)
        result = asyncio.run(asyncio.wait_for(
            play_bot("127.0.0.1", port, recorder, name="Rec", create=options, add_bots=3),
            timeout=60,
        ))
    assert result.errors == []
    commits = [(v, d) for v, d in recorder.decided if v.phase.value == "commit"]
    assert len(commits) == 20  # two rounds of ten turns
    for view, _ in commits:
        plays = view.plays
        assert len(plays) == (view.turn - 1) * 4
        assert [card for _, card in plays] == list(view.seen[4:])  # after the four row starts
        for t in range(view.turn - 1):
            assert sorted(seat for seat, _ in plays[t * 4:(t + 1) * 4]) == [0, 1, 2, 3]
        mine = [d.card for v, d in commits if v.round == view.round and v.turn < view.turn]
        assert [card for seat, card in plays if seat == view.seat] == mine


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


# --- a commit lost with the link is sent again --------------------------------------------


def test_a_bot_commits_again_when_its_commit_was_lost_with_the_link(caplog) -> None:
    options = wire.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0.0, turn_time=10.0)
    with running_server() as server_port, DropProxy(server_port) as proxy, \
            caplog.at_level(logging.WARNING, logger="nimmt.bots"):
        result = asyncio.run(asyncio.wait_for(
            play_bot("127.0.0.1", proxy.port, HeuristicStrategy(), name="Heuri", create=options,
                     add_bots=3), timeout=30))
    said = [r.getMessage() for r in caplog.records]
    dropped = next(i for i, text in enumerate(said) if text.endswith("; reconnecting"))
    assert said[dropped + 1] == (f"Heuri: reconnected to 127.0.0.1:{proxy.port} (the session "
                                 "was kept)")
    assert said[-1].startswith("Heuri: game 1 over at table ")  # the last game's too
    lost = proxy.dropped
    assert lost is not None and (lost["round"], lost["turn"]) == (1, 1)
    # On the new connection, after the snapshot, the bot commits again: the server
    # accepts that commit as the seat's own (its reply carries the request's id),
    # so it was not the autopilot's, which would come at the deadline with no id.
    snapshot_at = next(i for i, (n, m) in enumerate(proxy.down) if n == 1 and m["type"] == "snapshot")
    assert proxy.down[snapshot_at][1]["commit"] is None  # the server never had it
    again = [m for n, m in proxy.up if n == 1 and m["type"] == "commit"
             and (m["round"], m["turn"]) == (1, 1)]
    assert len(again) == 1 and again[0]["card"] == lost["card"]
    accepted = [m for n, m in proxy.down[snapshot_at:]
                if m["type"] == "commit_accepted" and (m["round"], m["turn"]) == (1, 1)]
    assert [m.get("re") for m in accepted] == [again[0]["id"]]
    assert result.games == 1 and result.errors == []


# --- a session the server no longer knows ---------------------------------------------------


def _start_server(port: int = 0, *args: str) -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen(
        [sys.executable, "-m", "nimmt.server", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning", "--db", ":memory:", *args],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    match = ADDRESS.search(server.stdout.readline())
    assert match, "the server did not say where it listens"
    return server, int(match.group(1))


def test_a_bot_takes_a_seat_again_after_the_server_restarted(caplog) -> None:
    servers = [_start_server()]
    port = servers[0][1]

    def decide(view):  # the first decision: the server dies and a new one starts
        if len(servers) == 1:
            servers[0][0].kill()
            servers[0][0].wait()
            servers.append(_start_server(port))
        return view.legal[0]

    options = wire.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0.0)
    try:
        with caplog.at_level(logging.WARNING, logger="nimmt.bots"):
            result = asyncio.run(asyncio.wait_for(
                play_bot("127.0.0.1", port, decide, name="Phoenix", create=options, add_bots=3),
                timeout=30))
    finally:
        for server, _ in servers:
            server.kill()
            server.wait()
    assert len(servers) == 2
    assert any(e.startswith("bad_token") for e in result.errors)  # the resume was refused
    assert result.rejoins == 1 and result.games == 1 and result.stopped is None
    assert "no longer knows our session" in caplog.text and "creating a table again" in caplog.text


def test_a_bot_whose_server_never_comes_back_stops_with_a_message(tmp_path) -> None:
    config = tmp_path / "server.toml"
    config.write_text("reconnect_grace = 1.0\n")  # clients try to resume for 1 s
    server, port = _start_server(0, "--config", str(config))

    def decide(view):  # the first decision: the server dies for good
        server.kill()
        server.wait()
        return view.legal[0]

    options = wire.TableOptions(seats=4, rounds=1, point_limit=None, step_delay=0.0)
    try:
        result = asyncio.run(asyncio.wait_for(
            play_bot("127.0.0.1", port, decide, create=options, add_bots=3, reconnect_for=1.0),
            timeout=20))
    finally:
        server.kill()
        server.wait()
    assert result.games == 0 and result.stopped is not None
    assert "could not get it back" in result.stopped
    assert "could not be reached again within 1 s" in result.stopped


def test_a_bot_that_cannot_take_its_seat_again_stops_and_says_why(capsys) -> None:
    with running_server() as port:
        code = main([f"127.0.0.1:{port}", "--join", "t9"])
    assert code == 1
    err = capsys.readouterr().err
    assert "stopped: could not take a seat at table t9" in err
