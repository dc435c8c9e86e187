"""The coach in the client (issue 45): the host turns it on in the new-table form, the
title and the help say whether the table has it, the line under the hand shows only
where it has, and p hides it for oneself or says why there is none."""

from __future__ import annotations

from test_client_tui import DOWN, RIGHT, Harness, start_game, text_of, ui_test
from test_client_watch import controller

from nimmt import protocol as P
from nimmt.client.model import TableModel
from nimmt.client.tui import render, sheets
from nimmt.client.tui.state import FORM_FIELDS, CreateForm
from test_client_support import table

COACH_AT = next(i for i, f in enumerate(FORM_FIELDS) if f.key == "coach")
NAMES = ["Ann", "Bob", "Cat", "Dan"]


def _preview(h: Harness) -> str:
    lines = text_of(render.hand_line(h.c, 100)).split("\n")
    return lines[1].strip() if len(lines) > 1 else ""


def _title(h: Harness, width: int = 100) -> str:
    return text_of(render.title_bar(h.c, width))


def test_a_table_with_the_coach_says_so_in_the_title_and_shows_the_line() -> None:
    async def script(h: Harness) -> None:
        await start_game(h, coach=True)
        assert _title(h) == " nimmt  ● Ann · table t1 · coach · 66 pts · round 1 · turn 1/10"
        # narrow: the name goes, then the words shorten, and "coach" goes last
        assert _title(h, 48) == " nimmt  ● Ann · t1 · coach · 66 · r1 · turn 1/10"
        assert _title(h, 47) == " nimmt  ● Ann · t1 · 66 · r1 · turn 1/10"
        assert _preview(h) == ("→ no row fits: you take a row (the cheapest: row 1, 1 bullhead) "
                               "· 4 unseen cards are lower")
        await h.keys("p")  # hidden for me only: the table keeps its coach
        assert _preview(h) == "" and "coach" in _title(h)
        assert "The preview under your hand is off." in text_of(render.status_line(h.c))
        await h.keys("p")
        assert _preview(h).startswith("→ no row fits")
    ui_test(script)


def test_without_the_coach_there_is_no_line_and_p_says_the_host_did_not_turn_it_on() -> None:
    async def script(h: Harness) -> None:
        await start_game(h, coach=False)
        assert _title(h) == " nimmt  ● Ann · table t1 · 66 pts · round 1 · turn 1/10"
        assert _preview(h) == ""
        await h.keys("p")
        assert _preview(h) == ""
        assert text_of(render.status_line(h.c)).strip() == \
            "The host has not turned the coach on at this table."
        # the table's option changes (a table_updated): the line comes with it
        await h.feed(P.TableUpdated(table=table(NAMES, status="playing", coach=True)))
        assert _preview(h).startswith("→ no row fits") and "· coach ·" in _title(h)
    ui_test(script)


def test_the_help_says_whether_this_table_has_the_coach() -> None:
    def help_text(**options: object) -> str:
        m = TableModel()
        m.apply(P.Seated(table=table(NAMES, **options), seat=0))
        return " ".join(" ".join(line.split()) for line in sheets.help_lines(controller(m), 70))

    coached = help_text()  # left out: a table that is not rated has it
    assert ("✓ Coach: while you choose, the line under your hand says where the card under "
            "the cursor would go") in coached
    assert "No coach: the host has not turned it on at this table." in help_text(coach=False)
    assert "No coach: a rated table never has one." in help_text(rated=True)
    assert "✓ Coach" not in help_text(coach=False) + help_text(rated=True)


def test_the_form_turns_the_coach_on_or_off_and_never_asks_it_of_a_rated_game() -> None:
    form = CreateForm()
    assert form.options().coach is True  # on by default at a casual table
    form.cursor = COACH_AT
    form.change(+1)
    assert form.values["coach"] is False and form.options().coach is False
    form.change(+1)
    assert form.options().coach is True
    form.values["rated"] = True  # a rated table: the coach is off and stays off
    form.change(+1)
    assert form.values["coach"] is True and form.options().coach is False
    assert form.options().rated is True
    queue = CreateForm(for_queue=True)
    assert queue.queue_request().options.coach is False


def test_the_form_shows_coach_fixed_at_no_for_a_rated_table() -> None:
    async def script(h: Harness) -> None:
        await h.feed(P.TableList(tables=()))
        await h.keys("n")
        rated_at = next(i for i, f in enumerate(FORM_FIELDS) if f.key == "rated")
        await h.keys(DOWN * COACH_AT)
        form = text_of(render.form_panel(h.c, 78)).splitlines()
        assert form[COACH_AT].split() == ["▶", "Coach", "◀", "yes", "▶"]
        await h.keys(RIGHT)
        assert text_of(render.form_panel(h.c, 78)).splitlines()[COACH_AT].split() == \
            ["▶", "Coach", "◀", "no", "▶"]
        await h.keys(RIGHT)  # back to yes, then make the table rated
        h.c.ui.form.cursor = rated_at  # type: ignore[union-attr]
        await h.keys(RIGHT)
        h.c.ui.form.cursor = COACH_AT  # type: ignore[union-attr]
        await h.keys(RIGHT)  # changes nothing
        panel = text_of(render.form_panel(h.c, 78))
        assert panel.splitlines()[COACH_AT].split() == ["▶", "Coach", "no"]
        assert "A rated game has no coach" in panel
    ui_test(script)
