"""Tonight's standings (client/evening.py, client/tui/evening_sheet.py): what the
page says while a game is under way, the styles that tell you and the players who
left apart, and an evening kept by a run that stopped mid-game (issue 43: behaviour
the before run of the mutation tests left unpinned)."""

from __future__ import annotations

import dataclasses

from test_client_evening import (NAMES, analysis, feed, game, long_evening, page, sheet_at,
                                 two_games)
from test_client_support import table, welcome
from test_client_tui import text_of

from nimmt import protocol as P
from nimmt.client import LinkLost, LinkRestored, TableModel
from nimmt.client.keep import TableKeeper
from nimmt.client.tui import evening_sheet


def test_the_page_names_the_game_under_way_once_a_round_of_it_is_scored() -> None:
    m = two_games()
    c, screen = sheet_at(m)
    evening_sheet.turn_page(c)
    feed(m, P.RoundStarted(round=1))  # dealt, nothing scored yet: not under way
    assert page(c, screen)[0] == " 2 games played at this table."
    feed(m, P.RoundScored(round=1, penalties=(0, 9, 2), totals=(0, 9, 2)))
    assert page(c, screen)[0] == " 2 games played at this table, game 3 under way."
    feed(m, *game((1, 1, 1))[-1:])  # game 3 over
    assert page(c, screen)[0] == " 3 games played at this table."


def test_your_line_is_highlighted_and_a_player_who_left_is_dimmed() -> None:
    c, _ = sheet_at(two_games())
    evening_sheet.turn_page(c)
    rows = evening_sheet.tonight_lines(c, 64)[2:6]
    assert [(style, text.split()[0] if style != "class:seat.me" else "you")
            for style, text in rows] == [
        ("", "Bob"), ("class:seat.me", "you"), ("class:dim", "Cat"), ("", "Dan")]


def test_a_run_stopped_mid_game_comes_back_to_the_same_game(tmp_path) -> None:
    m = two_games()
    feed(m, P.RoundStarted(round=1),
         P.RoundScored(round=1, penalties=(0, 9, 2), totals=(0, 9, 2)))
    TableKeeper(tmp_path, "gamebox", 6066, "Ann").save(m)  # the client quits here
    after = TableModel()
    assert TableKeeper(tmp_path, "gamebox", 6066, "Ann").restore(after)
    feed(after, welcome(), P.Seated(table=table(["Ann", "Bob", "Dan"], status="playing",
                                                bots=(2,)), seat=0),
         P.RoundStarted(round=2), P.RoundScored(round=2, penalties=(3, 0, 1), totals=(3, 9, 3)))
    # game 3 goes on: its two rounds, one game under way (not a fourth game)
    assert len(after.evening.games) == 3
    ann = {s.name: s for s in after.evening.standings()}["Ann"]
    assert (ann.games, ann.rounds, ann.bullheads) == (2, 6, 15)
    feed(after, P.GameOver(totals=(3, 9, 3), places=(1, 3, 1), winners=(0, 2)))
    assert [(s.name, s.games, s.won) for s in after.evening.standings()] == [
        ("Ann", 3, 2), ("Bob", 3, 2), ("Dan", 2, 1), ("Cat", 1, 0)]


def test_back_at_the_table_before_the_next_game_is_dealt_lists_no_newcomer() -> None:
    m = two_games()
    now = table(["Ann", "Bob", "Eve"], status="playing")
    feed(m, P.Seated(table=now, seat=0),
         P.Snapshot(table=now, seat=0, round=0, turn=0, phase="scored", hand=(),
                    commit=None, rows=(), deadline=None, remaining=None, committed=(),
                    revealed=(), draft_pool=(), draft_picks=(), pending=None))
    assert [s.name for s in m.evening.standings()] == ["Bob", "Ann", "Cat", "Dan"]
    assert m.evening.games_over == 2 and len(m.evening.games) == 2


def test_the_header_counts_one_game_in_the_singular() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(NAMES), seat=0), *game((3, 0, 7)))
    c, screen = sheet_at(m)
    evening_sheet.turn_page(c)
    assert page(c, screen)[0] == " 1 game played at this table."


def _over(names: list[str | None], totals: tuple[int, ...], bots: tuple[int, ...] = ()) -> list:
    """Seated then the snapshot of a table whose game of two rounds is over."""
    now = table(names, status="over", bots=bots)
    now = dataclasses.replace(now, seats=tuple(
        dataclasses.replace(s, total=t, penalties=0)  # type: ignore[arg-type]
        for s, t in zip(now.seats, totals)))
    return [P.Seated(table=now, seat=0),
            P.Snapshot(table=now, seat=0, round=2, turn=0, phase="over", hand=(), commit=None,
                       rows=(), deadline=None, remaining=None, committed=(), revealed=(),
                       draft_pool=(), draft_picks=(), pending=None)]


def test_a_reconnection_after_a_game_ended_does_not_count_it_twice() -> None:
    m = two_games()
    before = m.evening.standings()
    feed(m, LinkLost("reset"), LinkRestored(welcome(resumed=True)),
         *_over(["Ann", "Bob", "Dan"], (7, 4, 7), bots=(2,)))
    assert m.evening.games_over == 2 and m.evening.standings() == before


def test_a_first_look_at_a_table_whose_game_is_over_counts_that_game() -> None:
    m = feed(TableModel(), welcome(), *_over(NAMES, (7, 4, 4)))
    assert m.evening.games_over == 1
    assert [(s.name, s.games, s.won, s.rounds, s.bullheads) for s in m.evening.standings()] == [
        ("Bob", 1, 1, 2, 4), ("Cat", 1, 1, 2, 4), ("Ann", 1, 0, 2, 7)]


def test_arrows_scroll_a_long_page_a_line_at_a_time() -> None:
    m = long_evening()
    c, screen = sheet_at(m)
    evening_sheet.turn_page(c)
    for _ in range(3):
        assert evening_sheet.scroll(c, +1)  # ↓ three times
    assert page(c, screen)[0].split()[0] == "P1"  # the 4th line on top
    assert text_of(screen._sheet_foot()) == \
        " t or Esc closes · ↑/↓ lines 4–21 of 25 · Tab: this game"
    assert evening_sheet.scroll(c, -1)  # ↑ once
    assert text_of(screen._sheet_foot()) == \
        " t or Esc closes · ↑/↓ lines 3–20 of 25 · Tab: this game"
    assert page(c, screen)[0].split()[1] == "you"


def test_the_page_s_lines_are_the_tonight_lines_without_a_blank_line_after() -> None:
    c, _ = sheet_at(two_games())
    evening_sheet.turn_page(c)
    whole = text_of(evening_sheet.sheet_lines(c, 64))
    assert whole == "\n".join(text for _, text in evening_sheet.tonight_lines(c, 64))
    assert whole.count("\n") == 9 and not whole.endswith("\n")


def test_the_loss_line_counts_rounds_in_the_plural() -> None:
    m = two_games()
    c, screen = sheet_at(m)
    evening_sheet.turn_page(c)
    e = m.evening
    e.analysing("a", 1)
    e.analysing("b", 2)
    e.analysed("a", 1, None)
    assert loss_words(c, screen) == ("Your expected loss a decision: — (1 round being "
                                     "analysed; the analysis failed for 1 round).")
    e.analysed("b", 2, None)
    assert loss_words(c, screen) == \
        "Your expected loss a decision: — (the analysis failed for 2 rounds)."
    for rnd, scored in ((1, (0, 1, 2)), (2, (1, 2, 4))):  # game 3's rounds, analysed
        feed(m, P.RoundStarted(round=rnd), P.RoundScored(round=rnd, penalties=(1, 1, 2),
                                                         totals=scored))
        e.analysing("c", rnd)
        e.analysed("c", rnd, analysis(1.0, 0.5))
    assert loss_words(c, screen) == ("Your expected loss a decision: 0.75 bullheads (4 "
                                     "decisions in 2 rounds; 2 not analysed (it failed)).")


def loss_words(c, screen) -> str:  # type: ignore[no-untyped-def]
    """The page's loss sentence, its wrapped lines joined."""
    lines = page(c, screen)
    first = next(i for i, line in enumerate(lines) if "expected loss" in line)
    end = next(i for i, line in enumerate(lines) if line.startswith(" A first place"))
    return " ".join(line.strip() for line in lines[first:end])


def test_a_round_analysed_after_a_game_ended_is_that_game_s() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(NAMES), seat=0))
    e = m.evening
    first, second = game((3, 0, 7), (2, 5, 0)), game((1, 4, 6), (6, 0, 1))
    feed(m, *first[:4])
    e.analysing("a", 2)  # game 1's round 2, while game 1 runs
    e.analysed("a", 2, analysis(1.0))
    feed(m, *first[4:], *second)
    e.analysing("b", 2)  # game 2 is over: its last round's analysis starts after
    e.analysed("b", 2, analysis(2.0, 1.0))
    assert sorted(e.losses) == [(1, 2), (2, 2)]
    assert (e.loss_so_far().decisions, e.loss_so_far().rounds) == (3, 2)


def test_back_in_round_4_the_missed_rounds_count_by_the_totals_less_this_round_s() -> None:
    m = feed(TableModel(), welcome(), P.Seated(table=table(NAMES), seat=0),
             P.RoundStarted(round=1),
             P.RoundScored(round=1, penalties=(2, 1, 0), totals=(2, 1, 0)), LinkLost("reset"))
    back = table(NAMES, status="playing")
    back = dataclasses.replace(back, seats=tuple(  # round 4, turn 2: 3 rounds scored
        dataclasses.replace(s, total=t, penalties=p)  # type: ignore[arg-type]
        for s, t, p in zip(back.seats, (10, 12, 5), (3, 0, 2))))
    feed(m, LinkRestored(welcome(resumed=True)), P.Seated(table=back, seat=0),
         P.Snapshot(table=back, seat=0, round=4, turn=2, phase="commit", hand=(1, 2),
                    commit=None, rows=((10,), (20,), (30,), (40,)), deadline=None,
                    remaining=None, committed=(), revealed=(), draft_pool=(),
                    draft_picks=(), pending=None))
    assert [(s.name, s.rounds, s.bullheads) for s in m.evening.standings()] == [
        ("Cat", 3, 3), ("Ann", 3, 7), ("Bob", 3, 12)]


def test_a_game_that_went_by_unseen_counts_and_the_last_one_seen_does_not_again() -> None:
    m = two_games()
    feed(m, *game((0, 1, 2)))  # game 3: Ann wins it
    feed(m, LinkLost("reset"), LinkRestored(welcome(resumed=True)),
         *_over(["Ann", "Bob", "Dan"], (0, 1, 2), bots=(2,)))  # game 3 as we saw it end
    assert m.evening.games_over == 3
    feed(m, LinkLost("reset"), LinkRestored(welcome(resumed=True)),
         *_over(["Ann", "Bob", "Dan"], (9, 12, 8), bots=(2,)))  # game 4 went by meanwhile
    assert m.evening.games_over == 4
    assert [(s.name, s.games, s.won) for s in m.evening.standings()] == [
        ("Ann", 4, 2), ("Bob", 4, 2), ("Dan", 3, 1), ("Cat", 1, 0)]
