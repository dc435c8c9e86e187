"""Tonight's standings (issue 45, "the evening"): games played and won, bullheads a
round, the best round and your expected loss a decision, over the games one table
plays in a row; kept through a reconnection and a restart, and shown on the score
sheet's last page."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from prompt_toolkit.data_structures import Size
from real_server import running_server
from test_client_support import table, welcome
from test_client_tui import DOWN, Harness, text_of, ui_test
from test_client_watch import controller

from nimmt import protocol as P
from nimmt.client import LinkLost, LinkRestored, TableModel
from nimmt.client.cli import open_session, parse_args
from nimmt.client.decisions import COMMIT, ROW
from nimmt.client.evening import Best, Evening, LossSoFar, Standing
from nimmt.client.net import ClientConnection
from nimmt.client.round_analysis import analyse_command
from nimmt.client.sessions import STATE_DIR_ENV
from nimmt.client.keep import TableKeeper
from nimmt.client.tui import evening_sheet, sheets
from nimmt.client.tui.controller import Controller
from nimmt.client.tui.layout import Screen

NAMES = ["Ann", "Bob", "Cat"]


def feed(model: TableModel, *msgs: object) -> TableModel:
    for m in msgs:
        model.apply(m)  # type: ignore[arg-type]
    return model


def game(*rounds: tuple[int, int, int]) -> list[P.Message]:
    """A game's messages, a round's penalties each; its end: lowest total first."""
    out: list[P.Message] = []
    totals = [0, 0, 0]
    for r, penalties in enumerate(rounds, start=1):
        totals = [t + p for t, p in zip(totals, penalties)]
        out += [P.RoundStarted(round=r),
                P.RoundScored(round=r, penalties=penalties, totals=tuple(totals))]
    places = tuple(1 + sum(o < t for o in totals) for t in totals)
    out.append(P.GameOver(totals=tuple(totals), places=places,
                          winners=tuple(s for s, p in enumerate(places) if p == 1)))
    return out


def two_games() -> TableModel:
    """Ann (us), Bob and Cat play a game of two rounds that Ann and Bob share (5 each);
    Cat leaves during it (the autopilot finishes her seat) and Dan, a bot, takes her
    seat for the second game, which Bob wins."""
    m = feed(TableModel(), welcome(), P.Seated(table=table(NAMES), seat=0))
    first = game((3, 0, 7), (2, 5, 0))
    feed(m, *first[:2])
    gone = table(NAMES, status="playing")
    gone = dataclasses.replace(gone, seats=(gone.seats[0], gone.seats[1], dataclasses.replace(
        gone.seats[2], connected=False)))  # type: ignore[arg-type]
    feed(m, P.TableUpdated(table=gone), *first[2:])
    feed(m, P.TableUpdated(table=table(["Ann", "Bob", None], status="over")),
         P.TableUpdated(table=table(["Ann", "Bob", "Dan"], status="over", bots=(2,))))
    feed(m, *game((1, 4, 6), (6, 0, 1)))
    return m


def test_two_games_a_shared_first_place_and_a_player_who_left() -> None:
    m = two_games()
    assert m.evening.games_over == 2
    assert m.evening.standings() == [
        Standing("Bob", games=2, won=2, rounds=4, bullheads=9, best=Best(0, 1, 1), here=True),
        Standing("Ann", games=2, won=1, rounds=4, bullheads=12, best=Best(1, 2, 1), here=True),
        # equal wins and bullheads a round (3.5): by name
        Standing("Cat", games=1, won=0, rounds=2, bullheads=7, best=Best(0, 1, 2), here=False),
        Standing("Dan", games=1, won=0, rounds=2, bullheads=7, best=Best(1, 2, 2), here=True),
    ]
    assert [s.average for s in m.evening.standings()] == [2.25, 3.0, 3.5, 3.5]


def test_the_game_under_way_counts_its_rounds_not_yet_a_game() -> None:
    m = two_games()
    feed(m, P.RoundStarted(round=1), P.RoundScored(round=1, penalties=(0, 9, 2),
                                                   totals=(0, 9, 2)))
    ann, bob = {s.name: s for s in m.evening.standings()}["Ann"], m.evening.standings()[0]
    assert (ann.games, ann.rounds, ann.bullheads, ann.best) == (2, 5, 12, Best(0, 3, 1))
    assert (bob.name, bob.games, bob.won, bob.rounds, bob.bullheads) == ("Bob", 2, 2, 5, 18)
    assert [g.state for g in m.evening.games] == ["over", "over", "running"]


def analysis(*losses: float) -> dict[str, Any]:
    """What ``nimmt-replay analyse --json`` says of one seat's round, as the client reads it."""
    decisions = [{"round": 1, "turn": t, "kind": "card", "samples": 200, "chosen": "5",
                  "best": "5", "loss": loss, "loss_ci95": 0.1, "mark": None,
                  "choices": []} for t, loss in enumerate(losses, start=1)]
    return {"format": "nimmt-analysis", "version": 1, "samples": 200, "seed": 0,
            "thresholds": {}, "seats": [{"seat": 0, "name": "Ann", "rounds": [
                {"round": 1, "expected_loss": sum(losses), "bullheads": 3,
                 "worst": None, "decisions": decisions}]}]}


def test_your_expected_loss_a_decision_over_the_rounds_analysed_tonight() -> None:
    # (the model tells its evening of each analysis: TableState.analysis_started and
    # the analysis done or failed, with the game's serial as the ticket)
    m = feed(TableModel(), welcome(), P.Seated(table=table(NAMES), seat=0))
    e = m.evening
    assert e.loss_so_far().average is None  # nothing analysed: the page says —
    first = game((3, 0, 7), (2, 5, 0))
    feed(m, *first[:2])
    e.analysing("a", 1)
    feed(m, *first[2:4])
    e.analysing("a", 2)
    feed(m, *first[4:])
    e.analysed("a", 1, analysis(1.5, 0.25, 0, 0, 0, 0, 0, 0, 0, 0.75))  # 2.5 in 10
    second = game((1, 4, 6), (6, 0, 1))
    feed(m, *second[:2])
    e.analysing("b", 1)
    e.analysed("a", 2, None)  # (game 1's, failed, come late: still game 1's)
    feed(m, *second[2:4])
    e.analysing("b", 2)
    e.analysed("b", 1, analysis(0.5, 0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0))  # 1.5 in 11
    e.analysed("c", 1, analysis(9.0))  # (not one of tonight's)
    loss = e.loss_so_far()
    assert (loss.average, loss.decisions, loss.rounds, loss.failed, loss.waiting) == \
        (4.0 / 21, 21, 2, 1, 1)
    assert sorted(e.losses) == [(1, 1), (1, 2), (2, 1)]


def test_the_model_hands_each_analysis_of_yours_to_the_evening() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(NAMES), seat=0),
             *game((3, 0, 7))[:2])
    serial = m.analysis_started(1)
    assert m.evening.loss_so_far().waiting == 1
    feed(m, *game((3, 0, 7))[2:], *game((0, 1, 2))[:2])  # (the next game began meanwhile)
    m.analysis_done(serial, 1, analysis(2.0, 0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    m.analysis_failed(m.analysis_started(1), 1, "no reason given")
    assert m.evening.losses == {(1, 1): (12, 3.0), (2, 1): None}
    assert m.evening.loss_so_far().average == 0.25


def test_a_reconnection_keeps_the_evening_and_rounds_missed_count_by_the_totals() -> None:
    m = two_games()
    feed(m, P.RoundStarted(round=1), P.RoundScored(round=1, penalties=(2, 1, 0),
                                                   totals=(2, 1, 0)),
         P.RoundStarted(round=2), LinkLost("reset"))
    back = table(["Ann", "Bob", "Dan"], status="playing", bots=(2,))
    back = dataclasses.replace(back, seats=tuple(  # round 3, turn 4: 2 rounds scored
        dataclasses.replace(s, total=t, penalties=p)  # type: ignore[arg-type]
        for s, t, p in zip(back.seats, (9, 4, 3), (1, 0, 1))))
    feed(m, LinkRestored(welcome(resumed=True)), P.Seated(table=back, seat=0),
         P.Snapshot(table=back, seat=0, round=3, turn=4, phase="commit", hand=(1, 2),
                    commit=None, rows=((10,), (20,), (30,), (40,)), deadline=None,
                    remaining=None, committed=(), revealed=(), draft_pool=(),
                    draft_picks=(), pending=None))
    assert len(m.evening.games) == 3 and m.evening.games[2].scored == 2
    ann = {s.name: s for s in m.evening.standings()}["Ann"]
    # game 3: 8 bullheads in 2 rounds (round 2 unseen: by the totals before round 3's 1)
    assert (ann.games, ann.rounds, ann.bullheads, ann.best) == (2, 6, 20, Best(1, 2, 1))


def test_another_table_is_another_evening_and_the_same_one_goes_on() -> None:
    m = two_games()
    feed(m, P.Left(table_id="t1", reason="left"), P.TableList(tables=()))
    assert m.evening.games_over == 2  # (in the lobby nothing changes)
    feed(m, P.Seated(table=table(NAMES), seat=0))
    assert m.evening.games_over == 2  # back at t1: the same evening
    feed(m, P.Left(table_id="t1", reason="left"),
         P.Seated(table=table(["Ann", "Eve"], table_id="t2"), seat=0))
    assert (m.evening.table_id, m.evening.games, m.evening.standings()) == ("t2", [], [])


def test_the_evening_kept_as_json_is_the_same_evening() -> None:
    m = two_games()
    m.evening.analysing(0, 1)
    m.evening.analysed(0, 1, analysis(1.0, 0.5))
    again = Evening.from_json(m.evening.to_json())
    again.present = m.evening.present
    assert [s.name for s in again.standings()] == ["Bob", "Ann", "Cat", "Dan"]
    assert again.standings() == m.evening.standings()
    assert again.loss_so_far() == m.evening.loss_so_far()
    assert again.to_json() == m.evening.to_json()


def test_a_new_run_back_at_the_table_goes_on_with_the_evening_kept(tmp_path) -> None:
    m = two_games()
    TableKeeper(tmp_path, "gamebox", 6066, "Ann").save(m)
    after = TableModel()
    assert TableKeeper(tmp_path, "gamebox", 6066, "Ann").restore(after)
    feed(after, welcome(), P.Seated(table=table(["Ann", "Bob", "Dan"], status="over",
                                                bots=(2,)), seat=0))
    assert after.evening.standings() == m.evening.standings()
    feed(after, *game((0, 1, 2)))  # the third game of the evening
    assert [(s.name, s.games, s.won) for s in after.evening.standings()] == [
        ("Bob", 3, 2), ("Ann", 3, 2), ("Dan", 2, 0), ("Cat", 1, 0)]  # (2.0, 2.4, 3.0, 3.5)


# ------------------------------------------------------------------ the sheet's last page
def sheet_at(m: TableModel, rows: int = 24, columns: int = 80) -> tuple[Controller, Screen]:
    c = controller(m)
    screen = Screen(c)
    screen.size = lambda: Size(rows=rows, columns=columns)
    return c, screen


def page(c: Controller, screen: Screen) -> list[str]:
    body = evening_sheet.sheet_body(c, screen.overlay_width() - 2, screen.overlay_body_limit())
    return text_of(body).split("\n")


def test_the_tonight_page_at_80_columns() -> None:
    m = two_games()
    m.evening.analysing(0, 2)
    m.evening.analysed(0, 2, analysis(1.5, 0.25, 0, 0, 0, 0, 0, 0, 0, 0.75))
    c, screen = sheet_at(m)
    assert text_of(screen._sheet_foot()) == " t or Esc closes · Tab: tonight"
    evening_sheet.turn_page(c)  # Tab
    assert c.ui.sheet_open and evening_sheet.sheet_title(c, "x") == evening_sheet.TONIGHT_TITLE
    assert page(c, screen) == [
        " 2 games played at this table.",
        "    player     games  won  per round  best round",
        "    Bob            2    2       2.25  0 (game 1, round 1)",
        " ▶  you            2    1       3.00  1 (game 2, round 1)",
        "    Cat            1    0       3.50  0 (game 1, round 2)  left",
        "    Dan            1    0       3.50  1 (game 2, round 2)",
        "",
        " Your expected loss a decision: 0.25 bullheads (10 decisions in",
        "   1 round).",
        " A first place shared by a tie is a win for each player in it.",
        " Per round: the bullheads a round, this game's rounds too.",
    ]
    assert text_of(screen._sheet_foot()) == " t or Esc closes · Tab: this game"
    assert len(page(c, screen)) <= screen.overlay_body_limit()  # it fits at 80×24 ...
    assert screen.sheet_width() + 2 <= 80  # ... with its frame
    evening_sheet.turn_page(c)  # Tab again: the game's rounds
    assert page(c, screen)[0].split() == ["R1", "R2", "total"]


def test_without_an_analysis_the_loss_is_a_dash_and_before_a_game_ends_there_is_no_page() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(NAMES), seat=0))
    c, screen = sheet_at(m)
    feed(m, *game((3, 0, 7))[:2])
    evening_sheet.turn_page(c)
    assert c.ui.sheet_page == 0 and not c.ui.sheet_open  # (only the status line says why)
    assert "once a game at this table is over" in c.ui.status.text  # type: ignore[union-attr]
    feed(m, *game((3, 0, 7))[2:])
    evening_sheet.turn_page(c)
    assert page(c, screen)[-3:] == [
        " Your expected loss a decision: — (no round of yours analysed).",
        " A first place shared by a tie is a win for each player in it.",
        " Per round: the bullheads a round, this game's rounds too.",
    ]
    m.evening.analysing(0, 1)  # (a round of the next game, say)
    assert page(c, screen)[-3] == " Your expected loss a decision: — (1 round being analysed)."


def long_evening() -> TableModel:
    """Two one-round games of ten seats, P0 (you) in both, nine others each: 19
    players tonight."""
    names = [f"P{k}" for k in range(10)]
    m = feed(TableModel(), welcome("P0"), P.Seated(table=table(names), seat=0))
    for later in (names, ["P0"] + [f"Q{k}" for k in range(1, 10)]):
        feed(m, P.TableUpdated(table=table(later, status="over")), P.RoundStarted(round=1),
             P.RoundScored(round=1, penalties=tuple(range(10)), totals=tuple(range(10))),
             P.GameOver(totals=tuple(range(10)), places=tuple(range(1, 11)), winners=(0,)))
    return m


def test_a_long_evening_scrolls_at_80x24() -> None:
    m = long_evening()
    c, screen = sheet_at(m)
    evening_sheet.turn_page(c)
    assert len(evening_sheet.tonight_lines(c, 64)) == 25  # 19 players: more than 18 lines
    assert page(c, screen)[2] == " ▶  you            2    2       0.00  0 (game 1, round 1)"
    assert text_of(screen._sheet_foot()) == \
        " t or Esc closes · ↑/↓ lines 1–18 of 25 · Tab: this game"
    assert evening_sheet.scroll(c, +20)  # ↓ past the end: the last 18 lines
    assert page(c, screen)[-1] == " Per round: the bullheads a round, this game's rounds too."
    assert c.ui.sheet_scroll == 7
    assert text_of(screen._sheet_foot()) == \
        " t or Esc closes · ↑/↓ lines 8–25 of 25 · Tab: this game"
    c.ui.sheet_open = False
    assert not evening_sheet.scroll(c, -1)  # closed: ↑/↓ are the game's again


def test_tab_turns_the_sheet_to_tonight_and_back_and_a_round_end_opens_the_rounds() -> None:
    async def script(h: Harness) -> None:
        await h.feed(P.Seated(table=table(NAMES), seat=0), *game((3, 0, 7)))
        await h.keys("\t")
        assert (h.c.ui.sheet_open, h.c.ui.sheet_page) == (True, evening_sheet.TONIGHT)
        await h.keys(DOWN)  # (the page fits: nothing to scroll, once it is redrawn)
        await h.until(lambda: h.c.ui.sheet_scroll == 0, "the page redrawn at its top")
        assert h.c.ui.sheet_page == evening_sheet.TONIGHT
        await h.keys("\t")
        assert h.c.ui.sheet_page == 0
        await h.keys("\t")
        await h.feed(*game((1, 1, 0))[:2])  # the next game's first round ends
        assert h.c.ui.sheet_open and h.c.ui.sheet_page == 0
    ui_test(script)


# ------------------------------------------------------------------ against a real server
def test_two_short_games_at_one_table_of_a_real_server(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann and two bots play two games of one round at one table (the host starts
    the second after the first's game_over); each round of Ann's is analysed (the
    record command, few samples); the standings are what the server said."""
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path))
    scored: list[P.RoundScored] = []
    over: list[P.GameOver] = []
    answered: set[tuple[int, str, int]] = set()  # (game, kind, turn)

    async def play(conn: ClientConnection, m: TableModel, games: int) -> None:
        async with asyncio.timeout(20):
            while len(over) < games:
                msg = await conn.receive()
                m.apply(msg)
                if isinstance(msg, P.RoundScored):
                    scored.append(msg)
                elif isinstance(msg, P.GameOver):
                    over.append(msg)
                d = m.decision
                if d is None or (games, d.kind, d.turn) in answered or d.kind not in (COMMIT,
                                                                                    ROW):
                    continue
                answered.add((games, d.kind, d.turn))
                m.answered(d)
                await conn.send(d.answer(d.cards[0] if d.kind == COMMIT  # the lowest card
                                         else min(d.rows, key=m.row_cost)))

    async def main() -> None:
        with running_server("--step-delay", "0") as port:
            conn, plan, _, _ = await open_session(parse_args([f"127.0.0.1:{port}",
                                                              "--name", "Ann"]))
            m = TableModel()
            assert conn.welcome is not None
            m.apply(conn.welcome)
            await conn.send(P.CreateTable(options=P.TableOptions(
                seats=3, rounds=1, point_limit=None, step_delay=0.0), name="tonight"))
            async with asyncio.timeout(15):
                while m.seat is None:
                    m.apply(await conn.receive())
                for name in ("Bot 1", "Bot 2"):
                    await conn.send(P.AddBot(strategy="easy", name=name))
                while m.table is None or None in m.table.seats:
                    m.apply(await conn.receive())
            for games in (1, 2):  # the second: s again, at the same table
                await conn.send(P.Start())
                await play(conn, m, games)
                for number, record in m.to_analyse:
                    m.evening.analysing("test", number)
                    path = tmp_path / f"round-{games}.json"
                    path.write_text(json.dumps(record))
                    done = subprocess.run(analyse_command(str(path), 0) + ["--samples", "16"],
                                          capture_output=True, text=True, check=True)
                    m.evening.analysed("test", number, json.loads(done.stdout))
                    losses.append([d["loss"] for d in json.loads(done.stdout)["seats"][0]
                                   ["rounds"][0]["decisions"]])
                m.to_analyse.clear()
            await conn.close()
            assert m.table is not None
            standings.extend(m.evening.standings())
            loss.append(m.evening.loss_so_far())

    losses: list[list[float]] = []
    standings: list[Standing] = []
    loss: list[LossSoFar] = []
    asyncio.run(main())
    assert [(s.round, len(s.penalties)) for s in scored] == [(1, 3), (1, 3)]
    expected = []
    for seat, name in enumerate(("Ann", "Bot 1", "Bot 2")):
        heads = [s.penalties[seat] for s in scored]
        best = min(Best(h, g, 1) for g, h in enumerate(heads, start=1))
        expected.append(Standing(name, 2, sum(seat in o.winners for o in over), 2, sum(heads),
                                 best, here=True))
    expected.sort(key=lambda s: (-s.won, s.bullheads / 2, s.name))
    assert standings == expected
    decisions = sum(len(one) for one in losses)
    assert len(losses) == 2 and decisions >= 20  # ten cards a round, and any row taken
    assert loss == [LossSoFar(sum(sum(one) for one in losses) / decisions, decisions, 2, 0, 0)]


def test_the_help_lists_tab() -> None:
    lines = sheets.help_lines(controller(two_games()), 64)
    assert " ".join(" ".join(line.split()) for line in lines).count(
        "Tab the score sheet's last page: tonight's standings at this table") == 1
