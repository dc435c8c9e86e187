"""Key bindings: every key calls one :class:`~nimmt.client.tui.controller.Controller` action.

Game: ←/→ or h/l move, Enter commits/chooses, 1–4 take a row, ↑/↓ (k/j) move in
lists, t the score sheet (Tab: its tonight page). Table: a add bot, b bot level, x remove bot, s start, L leave.
Lobby: Enter join, w watch,
n new table, r refresh, R the leaderboard (m: your row), F find servers on the LAN. Everywhere: c or / chat,
? help, PgUp/PgDn log, q or Ctrl-C quit (in a game: press twice). At a table, A: the
analysis of your rounds (←/→ or a digit: the round, ↑/↓ scroll, A, Esc or q close it).
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from . import evening_sheet
from .analysis_view import ANALYSIS_KEY
from .controller import Controller
from .layout import Screen
from .replay_analysis import toggle_panel

__all__ = ["build_key_bindings"]

Handler = Callable[[KeyPressEvent], None]


def build_key_bindings(c: Controller, screen: Screen) -> KeyBindings:
    kb = KeyBindings()
    ui = c.ui
    chatting = Condition(lambda: ui.chat_open)
    normal = ~chatting
    form = Condition(lambda: ui.form is not None)
    lobby = Condition(lambda: c.model.table is None)
    at_table = ~lobby
    helping = Condition(lambda: ui.help_open)
    analysing = Condition(lambda: ui.analysis is not None and not ui.help_open)
    ladder = Condition(lambda: ui.ladder is not None and not ui.help_open)
    replaying = Condition(lambda: c.replay is not None)

    def act(*keys: str, filter: Filter | None = None) -> Callable[[Handler], Handler]:
        """Bind ``keys`` (when the chat line is closed, and ``filter``) to a handler."""
        def deco(fn: Handler) -> Handler:
            def run(e: KeyPressEvent) -> None:
                fn(e)
                c.sync_clock()  # a key that opens or closes the help or the sheet
            for k in keys:
                kb.add(k, filter=normal & filter if filter is not None else normal)(run)
            return fn
        return deco

    @act("left", "h")
    def _(e: KeyPressEvent) -> None:
        c.horizontal(-1)

    @act("right", "l")
    def _(e: KeyPressEvent) -> None:
        c.horizontal(+1)

    @act("up", "k")
    def _(e: KeyPressEvent) -> None:
        if not evening_sheet.scroll(c, -1):  # (the sheet's tonight page, when open)
            c.vertical(-1)

    @act("down", "j")
    def _(e: KeyPressEvent) -> None:
        if not evening_sheet.scroll(c, +1):
            c.vertical(+1)

    @act("enter", " ")
    def _(e: KeyPressEvent) -> None:
        c.enter()

    for digit in "1234":
        @act(digit, filter=~form & ~analysing)
        def _(e: KeyPressEvent, n: int = int(digit)) -> None:
            c.choose_row(n)

    for digit in "0123456789":  # the analysis: that round
        @act(digit, filter=analysing)
        def _(e: KeyPressEvent, d: str = digit) -> None:
            c.analysis_digit(d)

    # lobby
    @act("w", filter=lobby & ~form & ~ladder)
    def _(e: KeyPressEvent) -> None:
        c.watch_selected()

    @act("n", filter=lobby & ~form & ~ladder)
    def _(e: KeyPressEvent) -> None:
        c.open_form()

    @act("Q", filter=lobby & ~ladder)
    def _(e: KeyPressEvent) -> None:
        c.queue_key()

    @act("H", filter=lobby & ~form)
    def _(e: KeyPressEvent) -> None:
        c.open_history()

    @act("F", filter=lobby & ~form)
    def _(e: KeyPressEvent) -> None:
        c.look_for_servers()

    @act("r", filter=lobby & ~form)
    def _(e: KeyPressEvent) -> None:
        c.refresh()

    @act("R", filter=lobby & ~form)
    def _(e: KeyPressEvent) -> None:
        c.open_ladder()

    @act("m", filter=ladder)
    def _(e: KeyPressEvent) -> None:
        c.find_me()

    # at a table (a replay too): the score sheet
    @act("t", filter=at_table)
    def _(e: KeyPressEvent) -> None:
        c.toggle_sheet()

    @act(ANALYSIS_KEY, filter=at_table)
    def _(e: KeyPressEvent) -> None:
        c.toggle_analysis()

    @act("tab", filter=at_table)
    def _(e: KeyPressEvent) -> None:
        evening_sheet.turn_page(c)

    at_table = at_table & ~replaying  # a replay is only watched: nothing to add or start

    @act("a", filter=at_table)
    def _(e: KeyPressEvent) -> None:
        c.add_bot()

    @act("b", filter=at_table)
    def _(e: KeyPressEvent) -> None:
        c.cycle_bot_level()

    @act("x", filter=at_table)
    def _(e: KeyPressEvent) -> None:
        c.remove_bot()

    @act("s", filter=at_table)
    def _(e: KeyPressEvent) -> None:
        c.start_game()

    @act("+", "=", filter=replaying)
    def _(e: KeyPressEvent) -> None:
        c.replay_speed(+1)

    @act("-", filter=replaying)
    def _(e: KeyPressEvent) -> None:
        c.replay_speed(-1)

    @act("home", "g", filter=replaying)
    def _(e: KeyPressEvent) -> None:
        c.replay_edge(end=False)

    @act("end", "G", filter=replaying)
    def _(e: KeyPressEvent) -> None:
        c.replay_edge(end=True)

    @act("a", filter=replaying)
    def _(e: KeyPressEvent) -> None:
        toggle_panel(c)  # the analysis beside the replay (--analyse)

    @act("p", filter=at_table)
    def _(e: KeyPressEvent) -> None:
        c.toggle_preview()

    @act("L", filter=at_table)
    def _(e: KeyPressEvent) -> None:
        c.leave()

    # everywhere
    @act("pageup")
    def _(e: KeyPressEvent) -> None:
        if ui.help_open:
            c.vertical(-screen.help_body_height())
        elif ui.analysis is not None:
            c.vertical(-screen.analysis_body_height())
        elif ui.ladder is not None:
            c.vertical(-ui.ladder.height)
        else:
            c.scroll_log(+5)

    @act("pagedown")
    def _(e: KeyPressEvent) -> None:
        if ui.help_open:
            c.vertical(+screen.help_body_height())
        elif ui.analysis is not None:
            c.vertical(+screen.analysis_body_height())
        elif ui.ladder is not None:
            c.vertical(+ui.ladder.height)
        else:
            c.scroll_log(-5)

    @act("c", "/", filter=~form)
    def _(e: KeyPressEvent) -> None:
        ui.chat_open = True
        screen.chat.reset()
        screen.focus_chat()

    @act("?")
    def _(e: KeyPressEvent) -> None:
        c.toggle_help()

    @act("escape")
    def _(e: KeyPressEvent) -> None:
        if not c.close_overlay() and ui.form is not None:
            c.close_form()

    @act("q", filter=~helping)
    def _(e: KeyPressEvent) -> None:
        if not c.close_analysis():  # (q closes the analysis, as Esc does)
            c.quit()

    @kb.add("c-c")
    @kb.add("c-d", filter=normal)
    def _(e: KeyPressEvent) -> None:
        if ui.chat_open:
            _close_chat()
        c.quit()  # like q: in a game it asks first

    # chat input
    @kb.add("enter", filter=chatting)
    def _(e: KeyPressEvent) -> None:
        c.send_chat(screen.chat.text)
        _close_chat()

    @kb.add("escape", filter=chatting)
    def _(e: KeyPressEvent) -> None:
        _close_chat()

    def _close_chat() -> None:
        ui.chat_open = False
        screen.chat.reset()
        screen.focus_main()

    return kb
