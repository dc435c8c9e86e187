"""Issue 27 item 4, the client's side: the lobby's ``R`` opens the leaderboard screen
(asked for afresh, scrolled page by page, ``m`` finds your row), the ratings of
rated players beside their names in the lobby and at the table, and the client's
16 random bytes of ``join.entropy`` that the deals of a real server then depend on
(the game verifies). Keys through prompt_toolkit's pipe input and DummyOutput
against a fake connection; the entropy against a real server."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import re
from pathlib import Path

from real_server import running_server
from test_client_support import table
from test_client_tui import DOWN, ENTER, Harness, text_of, ui_test

from nimmt import protocol as P
from nimmt.client import connect
from nimmt.client.leaderboard import PAGE_ROWS
from nimmt.client.tui import render
from nimmt.server.records.replay import main as replay_main
from nimmt.server.storage import Store


def rows(first: int, last: int) -> tuple[P.LeaderboardRow, ...]:
    """Ranks ``first`` .. ``last``: "p1", "p2", ...; rank 2 is a built-in bot."""
    return tuple(P.LeaderboardRow(rank=r, name="bot:hard" if r == 2 else f"p{r}",
                                  rating=round(30 - r / 4, 2), games=10 + r,
                                  trend=1.5 if r % 2 else -0.25, bot=r == 2)
                 for r in range(first, last + 1))


def page(first: int, last: int, total: int, **kw: object) -> P.LeaderboardPage:
    return P.LeaderboardPage(rows=rows(first, last), offset=first - 1, total=total,
                             trend_games=5, **kw)


def rated(info: P.TableInfo, ratings: dict[int, tuple[float, int]]) -> P.TableInfo:
    seats = tuple(s if s is None or i not in ratings else dataclasses.replace(
        s, claimed=True, rating=ratings[i][0], games=ratings[i][1])
        for i, s in enumerate(info.seats))
    return dataclasses.replace(info, seats=seats)


def ladder_text(h: Harness, width: int = 62, height: int = 12) -> str:
    view = h.c.ui.ladder
    assert view is not None, "the leaderboard is not open"
    return text_of(view.lines(h.model.leaderboard, h.model.my_name, width, height))


def test_r_opens_the_leaderboard_afresh_and_shows_rank_name_rating_games_trend() -> None:
    async def script(h: Harness) -> None:
        lobby = rated(table(["Ann", "Bob", None]), {0: (14.27, 31)})
        await h.feed(P.TableList(tables=(lobby,)))
        listed = text_of(render.lobby_panel(h.c, 100))
        assert "Ann (14.3), Bob" in listed  # the claimed player's rating; none for Bob
        assert "rated" not in listed  # a casual table
        await h.feed(P.TableUpdated(table=dataclasses.replace(
            lobby, options=dataclasses.replace(lobby.options, rated=True))))
        assert " rated, 66 pts · Ann (14.3), Bob" in text_of(render.lobby_panel(h.c, 100))
        for width in (100, 80):  # the key line keeps it at 80 columns too
            assert re.search(r"\bR\s+ranks\b", text_of(render.keys_line(h.c, width)))

        await h.keys("R")
        assert h.last() == P.Leaderboard(limit=PAGE_ROWS, offset=0)
        assert "Asking the server" in ladder_text(h)
        await h.feed(page(1, 3, 3))
        text = ladder_text(h)
        lines = text.splitlines()
        assert lines[0].split() == ["rank", "name", "rating", "games", "trend"]
        assert lines[1].split() == ["▶", "1", "p1", "29.75", "11", "+1.50"]
        assert lines[2].split() == ["2", "⚙", "bot:hard", "29.50", "12", "-0.25"]
        assert lines[3].split() == ["3", "p3", "29.25", "13", "+1.50"]
        assert "trend: the last 5 games" in h.c.ui.ladder.title(h.model.leaderboard)
        assert re.search(r"\bm\s+your row\b", text_of(render.keys_line(h.c, 100)))

        await h.keys(DOWN + DOWN + DOWN + ENTER)  # the cursor stops at the last row;
        assert h.c.ui.ladder.cursor == 2  # Enter joins no table under the screen
        assert not [m for m in h.conn.sent if isinstance(m, P.Join)]
        await h.keys("r")  # asked again (a rated game changes it), rows forgotten
        assert h.last() == P.Leaderboard(limit=PAGE_ROWS, offset=0)
        assert "Asking the server" in ladder_text(h)
        await h.feed(page(1, 2, 2))
        assert h.c.ui.ladder.cursor == 1  # one name fewer: the cursor stays on the board
        h.inp.send_text("\x1b")  # Esc closes it
        await h.until(lambda: h.c.ui.ladder is None, "the leaderboard to close")
        await h.keys("R")  # opened again: asked again
        assert [m for m in h.conn.sent if isinstance(m, P.Leaderboard)][-1].offset == 0
        assert len([m for m in h.conn.sent if isinstance(m, P.Leaderboard)]) == 3
    ui_test(script)


def test_scrolling_asks_for_each_missing_page_once() -> None:
    async def script(h: Harness) -> None:
        await h.keys("R")
        await h.feed(page(1, PAGE_ROWS, 120))
        asked = lambda: [m.offset for m in h.conn.sent  # noqa: E731
                         if isinstance(m, P.Leaderboard)]
        h.c.vertical(+60)
        h.c.vertical(+1)
        h.c.vertical(-1)
        await h.c.drain()
        assert asked() == [0, PAGE_ROWS]  # once, however often the cursor moves
        assert "…" in ladder_text(h, height=40)  # rows not here yet are marked
        await h.feed(page(PAGE_ROWS + 1, 2 * PAGE_ROWS, 120))
        assert "…" not in ladder_text(h, height=40)
        h.c.vertical(+200)
        await h.c.drain()
        assert h.c.ui.ladder.cursor == 119 and asked() == [0, PAGE_ROWS, 2 * PAGE_ROWS]
        await h.feed(page(2 * PAGE_ROWS + 1, 120, 120))
        assert ladder_text(h).splitlines()[-1].split()[:2] == ["▶", "120"]
    ui_test(script)


def test_m_goes_to_your_row_or_says_you_have_no_rating() -> None:
    async def script(h: Harness) -> None:
        await h.keys("R")
        await h.feed(page(1, PAGE_ROWS, 300))
        await h.keys("m")
        search = h.last()
        assert isinstance(search, P.Leaderboard) and search.name == "Ann"
        mine = dataclasses.replace(rows(200, 200)[0], name="Ann")
        await h.feed(P.LeaderboardPage(rows=rows(151, 199) + (mine,), offset=150, total=300,
                                       trend_games=5, found=200, re=search.id))
        assert h.c.ui.ladder.cursor == 199
        (line,) = [t for t in ladder_text(h).splitlines() if "Ann" in t]
        assert line.split()[:3] == ["▶", "200", "Ann"]
        await h.keys("m")
        await h.feed(P.LeaderboardPage(rows=rows(1, PAGE_ROWS), offset=0, total=300,
                                       trend_games=5, re=h.last().id))
        assert "Ann has no rating here yet" in text_of(render.status_line(h.c))
        assert h.c.ui.ladder.cursor == 199
    ui_test(script)


def test_at_the_table_a_rated_seat_shows_its_rating_beside_the_name() -> None:
    async def script(h: Harness) -> None:
        info = rated(table(["Ann", "Bartholomew", "Cat"], bots=(2,), rated=True),
                     {0: (14.27, 31), 1: (-1.6, 4), 2: (3.0, 200)})
        plain = table(["Ann", "Dee"], table_id="t2")
        await h.feed(P.Seated(table=info, seat=0))
        panel = text_of(render.players_panel(h.c, 36))
        assert "Ann  14.3 ★" in panel and "Bar… -1.6  " in panel and "Cat   3.0  ⚙" in panel
        assert "rated · 66 pts" in text_of(render.title_bar(h.c, 100))
        seats = h.model.seats
        assert (seats[1].rating, seats[1].games) == (-1.6, 4)
        await h.keys("L")
        await h.feed(P.Left(table_id="t1", reason="left"), P.Seated(table=plain, seat=0))
        panel = text_of(render.players_panel(h.c, 36))
        assert "Dee" in panel and not re.search(r"\d\.\d", panel)  # no rating anywhere
    ui_test(script)


def test_every_join_carries_16_random_bytes_that_the_deals_depend_on(tmp_path: Path,
                                                                      capsys) -> None:
    path = tmp_path / "nimmt.db"
    fast = P.TableOptions(seats=2, rounds=1, step_delay=0, turn_time=0.1, choice_time=0.1)

    async def game(port: int) -> P.GameOver:
        ann = await connect("127.0.0.1", port, "Ann")
        bob = await connect("127.0.0.1", port, "Bob")
        try:
            await ann.send(P.CreateTable(options=fast))
            seated = await _next(ann, P.Seated)
            await bob.send(P.Join(table_id=seated.table.table_id))
            await _next(bob, P.Seated)
            await ann.send(P.Start())
            over, _ = await asyncio.gather(_next(bob, P.GameOver), _next(ann, P.GameOver))
            return over
        finally:
            await ann.close()
            await bob.close()

    with running_server("--db", str(path)) as port:
        over = asyncio.run(asyncio.wait_for(game(port), 45))
    assert over.contributions is not None and over.contributions[0] == ""
    joined = over.contributions[1]
    assert len(joined) == 32 and int(joined, 16) >= 0  # 16 bytes, as hex
    with Store.open(path, read_only=True) as kept:
        (past,) = kept.games()
        record = kept.game(past.id).record
    assert record.fair_deal is not None
    assert record.fair_deal.contributions == (b"", bytes.fromhex(joined))
    # protocol 3 (issue 42): the join sent their hash, the client revealed them when asked
    assert record.fair_deal.hashes == (b"", hashlib.sha256(bytes.fromhex(joined)).digest())
    assert record.fair_deal.withheld == ()
    assert replay_main(["--verify", "--db", str(path), str(past.id)]) == 0
    assert "verified" in capsys.readouterr().out


async def _next(conn: object, kind: type[P.Message]) -> P.Message:
    async for msg in conn:  # type: ignore[attr-defined]
        if isinstance(msg, kind):
            return msg
    raise AssertionError(f"the connection ended before a {kind.TYPE}")
