"""The screen's layout: the lobby or the table, the status line, chat, key hints, help.

It depends on the terminal's size (at least 60×20; below that only a message shows,
and the keys that decide do nothing)::

    60..99 columns                      100+ columns (150+: the log on the right)
    title                               title
    rows (+ plays / result)             rows (+ plays)        │ players
    players, in columns                 decision bar · clock
    decision bar · clock                hand
    hand                                ── Events ──
    ── Events ──                        log
    log                                 status · chat · keys
    status · chat · keys
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    ConditionalContainer,
    Container,
    Dimension,
    DynamicContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.utils import get_cwidth
from prompt_toolkit.widgets import Frame

from . import evening_sheet, render, sheets
from .analysis_view import AnalysisView, analysis_foot, analysis_lines, analysis_title
from .controller import Controller
from .history import HistoryView
from .ladder import LadderView
from .render import MIN_COLUMNS, MIN_LINES, frags_height
from .replay_analysis import analysis_of, panel_lines

__all__ = ["Screen", "build_layout", "WIDE", "LOG_ASIDE"]

#: From this width on, the players sit beside the rows.
WIDE = 100
#: From this width on, the event log has its own column on the right.
LOG_ASIDE = 150
PLAYERS_ASIDE_WIDTH = 37  # a player's line with its longest mark (" away")
#: Width of the table's column when the log is beside it (what the rows, their notes
#: and the players use): the log takes the rest.
MAIN_ASIDE_WIDTH = 104
SHEET_TITLE = "Score sheet: bullheads per round"
#: From this size on, the cards are drawn bigger (boxes, three lines a row).
BIG_COLUMNS = 120
BIG_LINES = 36


class Screen:
    """The containers of the screen, built once; what shows depends on the model and size."""

    def __init__(self, c: Controller, clock: Callable[[], float] = time.monotonic) -> None:
        self.c = c
        self.clock = clock
        #: the terminal's size; the application sets it to its output's get_size
        self.size: Callable[[], Size] = lambda: Size(rows=24, columns=80)
        self.chat = Buffer(multiline=False, name="chat")
        self._log_line_count = 1  # lines of the log as last drawn (wrapped)
        c.sheet_inline = lambda: bool(self.sheet_below())  # (it covers nothing there)
        ctl = FormattedTextControl
        cols = lambda: self.size().columns  # noqa: E731

        def text(fn: Callable[[], StyleAndTextTuples]) -> FormattedTextControl:
            return ctl(fn, show_cursor=False)

        def fit(fn: Callable[[], StyleAndTextTuples], width: Callable[[], int],
                lo: int = 1) -> Callable[[], Dimension]:
            def height() -> Dimension:
                frags = fn()
                return Dimension.exact(max(lo, frags_height(frags, width()) if frags else 0))
            return height

        self.title = Window(text(lambda: render.title_bar(c, self.size().columns)), height=1,
                            style="class:title")

        # -- the table
        rows_text = self._rows_text
        players_text = lambda: render.players_panel(c, self.players_width())  # noqa: E731
        rows = Window(text(rows_text), wrap_lines=True,
                      height=fit(rows_text, self.rows_width, 4))
        players = Window(text(players_text), wrap_lines=False,
                         height=fit(players_text, self.players_width))
        side_players = Window(text(players_text), wrap_lines=False,
                              width=PLAYERS_ASIDE_WIDTH)
        self.top = DynamicContainer(lambda: self._top(rows, players, side_players))
        prompt_text = lambda: render.prompt_line(c, self.clock(), self.main_width())  # noqa: E731
        self.prompt = Window(text(prompt_text), wrap_lines=True,
                             height=fit(prompt_text, self.main_width),
                             style="class:prompt.other")
        hand_text = lambda: render.hand_line(c, self.main_width(),  # noqa: E731
                                             preview=self._preview_room())
        self.hand = Window(text(hand_text), wrap_lines=True,
                           height=fit(hand_text, self.main_width))
        self.log_window = Window(
            ctl(self._log_text, focusable=True, show_cursor=False,
                get_cursor_position=self._log_end),
            wrap_lines=True, height=Dimension(min=1))
        log_title = Window(text(lambda: render.log_title(c, self.log_width())), height=1)
        # a replay's analysis (--analyse) heads the log's place; the log has what it leaves
        analysis = ConditionalContainer(
            Window(text(self._analysis_text), wrap_lines=False,
                   height=lambda: Dimension.exact(self.analysis_height())),
            filter=Condition(lambda: self.analysis_height() > 0))
        self.log = ConditionalContainer(HSplit([analysis, ConditionalContainer(
            HSplit([log_title, self.log_window]), filter=Condition(self._log_after_analysis))]),
                                        filter=Condition(self._log_shown))
        main = HSplit([self.top, self.prompt, self.hand])
        self.table_narrow = HSplit([main, self.log])
        self.table_aside = VSplit([
            HSplit([main, Window(text(self.sheet_below), wrap_lines=False)],
                   width=lambda: Dimension.exact(self.main_width())),
            Window(width=1, char="│", style="class:frame.border"),
            HSplit([self.log], width=lambda: Dimension.exact(self.log_width())),
        ])

        # -- the lobby
        self.lobby_body = HSplit([
            Frame(Window(ctl(self._lobby_text, show_cursor=False), wrap_lines=False),
                  title=lambda: "Tables" if c.ui.form is None else
                  "Rated game: ↑/↓ choose, ←/→ change, Q queue" if c.ui.form.for_queue
                  else "New table: ↑/↓ choose, ←/→ change, Enter create"),
            ConditionalContainer(self.prompt, filter=Condition(lambda: c.ui.form is None)),
            ConditionalContainer(HSplit([  # the form needs every line at 60×20
                Window(text(lambda: render.log_title(c, cols())), height=1),
                HSplit([self.log_window], height=Dimension(min=1, max=10)),
            ]), filter=Condition(lambda: c.ui.form is None)),
        ])

        # -- too small
        self.too_small = Window(text(lambda: render.too_small(
            c, cols(), self.size().rows, -self.spare_lines())),
                                wrap_lines=True)

        self.chat_window = Window(BufferControl(self.chat), height=1)
        chat_bar = ConditionalContainer(
            VSplit([Window(ctl([("class:chat.prompt", " Say: ")]), width=6),
                    self.chat_window]),
            filter=Condition(lambda: c.ui.chat_open))
        status_text = lambda: render.status_line(c, cols())  # noqa: E731
        keys_text = lambda: render.keys_line(c, cols())  # noqa: E731
        self._status_text, self._keys_text = status_text, keys_text
        self._prompt_text, self._hand_text = prompt_text, hand_text
        fits = Condition(self.fits)
        root = HSplit([
            ConditionalContainer(self.title, filter=fits),
            DynamicContainer(self._body),
            ConditionalContainer(HSplit([
                Window(text(status_text), wrap_lines=True,
                       height=fit(status_text, cols, 0)),
                chat_bar,
                Window(text(keys_text), wrap_lines=True, height=fit(keys_text, cols),
                       style="class:keys"),
            ]), filter=fits),
        ])
        help_float = Float(ConditionalContainer(
            Frame(HSplit([
                Window(text(self._help_body), wrap_lines=False,
                       height=lambda: Dimension.exact(self.help_body_height())),
                Window(text(self._help_foot), height=1, style="class:dim"),
            ], width=lambda: Dimension.exact(self.overlay_width() - 2)),
                title=self._help_title),
            filter=Condition(lambda: c.ui.help_open) & fits), top=1)
        sheet_float = Float(ConditionalContainer(
            Frame(HSplit([
                Window(text(lambda: evening_sheet.sheet_body(
                    c, self.overlay_width() - 2, self.overlay_body_limit())),
                       wrap_lines=False,
                       height=lambda: Dimension.exact(min(
                           self.overlay_body_limit(),
                           frags_height(evening_sheet.sheet_lines(c, self.overlay_width() - 2),
                                        self.overlay_width())))),
                Window(text(self._sheet_foot), height=1, style="class:dim"),
            ], width=lambda: Dimension.exact(self.sheet_width())),
                title=lambda: evening_sheet.sheet_title(c, SHEET_TITLE)),
            filter=Condition(lambda: c.ui.sheet_open and not c.ui.help_open
                             and c.ui.analysis is None and c.model.table is not None and not self.sheet_below()) & fits),
            bottom=2)  # over the log, above the status and key lines: the rows stay in view
        history_float = Float(ConditionalContainer(
            Frame(HSplit([
                Window(text(lambda: self._history_lines()), wrap_lines=False,
                       height=lambda: Dimension.exact(self._history_height())),
                Window(text(lambda: [("class:dim", self._history_view().foot())]), height=1),
            ], width=lambda: Dimension.exact(self.overlay_width() - 2)),
                title=lambda: self._history_view().title),
            filter=Condition(lambda: c.ui.history is not None and not c.ui.help_open) & fits),
            top=1)
        ladder_float = Float(ConditionalContainer(
            Frame(HSplit([
                Window(text(self._ladder_lines), wrap_lines=False,
                       height=lambda: Dimension.exact(self._ladder_height())),
                Window(text(lambda: [("class:dim", self._ladder_view().foot(
                    c.model.leaderboard))]), height=1),
            ], width=lambda: Dimension.exact(self.overlay_width() - 2)),
                title=lambda: self._ladder_view().title(c.model.leaderboard)),
            filter=Condition(lambda: c.ui.ladder is not None and not c.ui.help_open
                             and c.model.table is None) & fits),
            top=1)
        analysis_float = Float(ConditionalContainer(
            Frame(HSplit([
                Window(text(self._analysis_body), wrap_lines=False,
                       height=lambda: Dimension.exact(self.analysis_body_height())),
                Window(text(self._analysis_foot), height=1, style="class:dim"),
            ], width=lambda: Dimension.exact(self.overlay_width() - 2)),
                title=lambda: analysis_title(c.model.analysed, self._analysis_view())),
            filter=Condition(lambda: c.ui.analysis is not None and not c.ui.help_open
                             and c.model.table is not None) & fits),
            top=1)
        self.root = FloatContainer(root, floats=[sheet_float, history_float, ladder_float,
                                                 analysis_float, help_float])
        self.layout = Layout(self.root, focused_element=self.log_window)

    # -- overlays -----------------------------------------------------------------
    def _history_view(self) -> HistoryView:
        return self.c.ui.history or HistoryView(None)  # (only drawn while open)

    def _history_height(self) -> int:
        games = self._history_view().games
        return max(1, min(len(games) if games else 1, self.overlay_body_limit()))

    def _history_lines(self) -> StyleAndTextTuples:
        return list(self._history_view().lines(self.overlay_width() - 3,
                                               self._history_height()))

    def _ladder_view(self) -> LadderView:
        return self.c.ui.ladder or LadderView()  # (only drawn while open)

    def _ladder_height(self) -> int:
        """The header and a line a row, within the overlay's limit."""
        total = self.c.model.leaderboard.total
        return max(1, min(1 + total if total else 1, self.overlay_body_limit()))

    def _ladder_lines(self) -> StyleAndTextTuples:
        return list(self._ladder_view().lines(self.c.model.leaderboard, self.c.model.my_name,
                                              self.overlay_width() - 3, self._ladder_height()))

    def _analysis_view(self) -> AnalysisView:
        return self.c.ui.analysis or AnalysisView()  # (only drawn while open)

    def _analysis_lines(self) -> list[str]:
        view = self._analysis_view()
        return analysis_lines(view.shown(self.c.model.analysed), self.overlay_width() - 3)

    def analysis_body_height(self) -> int:
        return max(1, min(len(self._analysis_lines()), self.overlay_body_limit()))

    def _analysis_body(self) -> StyleAndTextTuples:
        lines, height = self._analysis_lines(), self.analysis_body_height()
        view = self._analysis_view()
        view.scroll = max(0, min(view.scroll, len(lines) - height))
        return [("class:help", "\n".join(lines[view.scroll:view.scroll + height]))]

    def _analysis_foot(self) -> StyleAndTextTuples:
        return [("", analysis_foot(self.c.model.analysed, self._analysis_view(),
                                   len(self._analysis_lines()), self.analysis_body_height()))]

    def overlay_width(self) -> int:
        """The help's and the score sheet's width, frame included."""
        return max(20, min(66, self.size().columns - 2))

    def sheet_width(self) -> int:
        """The score sheet's inner width: what its lines need, within the overlay's."""
        lines = "".join(t for _, t, *_ in evening_sheet.sheet_lines(self.c,
                                                                     self.overlay_width() - 2))
        foot = "".join(t for _, t, *_ in self._sheet_foot())
        need = max(get_cwidth(line) for line in [foot, *lines.split("\n")]) + 2
        title = evening_sheet.sheet_title(self.c, SHEET_TITLE)
        need = max(need, get_cwidth(title) + 6)  # the frame's title fits too
        return min(self.overlay_width() - 2, need)

    def overlay_body_limit(self) -> int:
        """Lines an overlay's body may take: the title and key lines stay visible."""
        return max(3, self.size().rows - 6)

    def _help_lines(self) -> list[str]:
        return sheets.help_lines(self.c, self.overlay_width() - 3)

    def help_body_height(self) -> int:
        return max(1, min(len(self._help_lines()), self.overlay_body_limit()))

    def _help_body(self) -> StyleAndTextTuples:
        lines = self._help_lines()
        height = self.help_body_height()
        ui = self.c.ui
        ui.help_scroll = max(0, min(ui.help_scroll, len(lines) - height))
        return [("class:help", "\n".join(lines[ui.help_scroll:ui.help_scroll + height]))]

    def _help_foot(self) -> StyleAndTextTuples:
        lines, height = len(self._help_lines()), self.help_body_height()
        if lines <= height:
            return [("", " ? or Esc closes this help.")]
        first = self.c.ui.help_scroll + 1
        return [("", f" ? or Esc closes · ↑/↓ PgUp/PgDn: lines {first}–"
                 f"{first + height - 1} of {lines}")]

    def _help_title(self) -> str:
        """"Help", and while it covers the table, whether you must decide and the clock."""
        m = self.c.model
        d = m.decision
        if d is None or (d.kind == "commit" and d.committed is not None):
            return "Help"
        left = m.seconds_left(self.clock())
        if m.untimed or left is None:
            return "Help · your turn (untimed)"
        paused = ", clock paused" if m.paused_since is not None else ""
        return f"Help · your turn: {int(left + 0.999)} s left{paused}"

    def sheet_below(self) -> StyleAndTextTuples:
        """A big terminal's room under the table (the log has its own column): the
        score sheet, always there once a round is scored ([] when it does not fit: the
        overlay, t, shows it then)."""
        m = self.c.model
        if self.size().columns < LOG_ASIDE or (not m.scores and m.result is None):
            return []
        width = self.main_width()
        lines = evening_sheet.sheet_lines(self.c, width - 1)
        if frags_height(lines, width) + 2 > self.spare_lines():
            return []
        head = f"─ {evening_sheet.sheet_title(self.c, SHEET_TITLE)} "
        return [("", "\n"), ("class:log.title", head + "─" * max(0, width - get_cwidth(head))),
                ("", "\n"), *lines]

    def _sheet_foot(self) -> StyleAndTextTuples:
        return [("", evening_sheet.sheet_foot(self.c, self.overlay_width() - 2,
                                              self.overlay_body_limit()))]

    # -- sizes --------------------------------------------------------------------
    def fits(self) -> bool:
        """Whether the terminal can show the table (else only a message shows): at
        least 60×20, and room for everything but the event log."""
        size = self.size()
        if size.columns < MIN_COLUMNS or size.rows < MIN_LINES:
            return False
        return self.c.model.table is None or self.spare_lines() >= 0

    def _log_shown(self) -> bool:
        # beside the table the log has its own column; below it, what the table leaves
        return self.size().columns >= LOG_ASIDE or self.spare_lines() >= 2

    def _log_room(self) -> int:
        """Lines of the log's place: what the table leaves under it, or its column."""
        size, cols = self.size(), self.size().columns
        if cols < LOG_ASIDE:
            return self.spare_lines()
        status = self._status_text()
        return size.rows - 1 - (frags_height(status, cols) if status else 0) \
            - frags_height(self._keys_text(), cols) - (1 if self.c.ui.chat_open else 0)

    def _analysis_text(self) -> StyleAndTextTuples:
        a = analysis_of(self.c)
        if a is None:
            return []
        return panel_lines(a, self.c.replay.position, self.log_width(), self._log_room())

    def analysis_height(self) -> int:
        """Lines of a replay's analysis panel: all it needs, within the log's place."""
        a = analysis_of(self.c)
        if a is None or not a.shown or self.c.model.table is None:
            return 0
        return max(0, min(frags_height(self._analysis_text(), self.log_width()),
                          self._log_room()))

    def _log_after_analysis(self) -> bool:
        """The log under the analysis panel: its rule and a line at least."""
        used = self.analysis_height()
        return used == 0 or self._log_room() - used >= 2

    def _preview_room(self) -> bool:
        """Whether the preview under the hand fits: beside the log, in the lines left;
        above it, leaving the log its rule and 6 lines (PgUp scrolls 5 log lines, and
        a log line may wrap: a smaller log would skip some as it scrolls)."""
        main = self.main_width()
        plain = frags_height(render.hand_line(self.c, main, preview=False), main)
        full = frags_height(render.hand_line(self.c, main), main)
        need = 0 if self.size().columns >= LOG_ASIDE else 1 + 6
        return full == plain or self.spare_lines(plain) - (full - plain) >= need

    def spare_lines(self, hand_lines: int | None = None) -> int:
        """Lines left (below the table) once the table is laid out: the event log's,
        unless it has its own column (``hand_lines``: the hand's, if not as shown)."""
        size, c = self.size(), self.c
        cols, main = size.columns, self.main_width()
        need = 1 + self._top_height() + frags_height(self._prompt_text(), main)
        need += hand_lines if hand_lines is not None else frags_height(self._hand_text(), main)
        status = self._status_text()
        need += frags_height(status, cols) if status else 0
        need += frags_height(self._keys_text(), cols) + (1 if c.ui.chat_open else 0)
        return size.rows - need

    def _rows_text(self) -> StyleAndTextTuples:
        width = self.rows_width()
        self.c.ui.pool_columns = render.pool_columns(width)  # ↑/↓ move by a shown line
        return render.rows_panel(self.c, width, self.rows_budget(), self.big_cards())

    def big_cards(self) -> bool:
        """Large terminals get bigger cards (boxes, three lines a row)."""
        size = self.size()
        return size.columns >= BIG_COLUMNS and size.rows >= BIG_LINES

    def rows_budget(self) -> int:
        """Lines the rows panel (or the draft pool) may take: what the rest leaves."""
        size, c = self.size(), self.c
        cols, main = size.columns, self.main_width()
        # (the hand without its preview: the preview takes only lines the rest leaves)
        need = 1 + frags_height(self._prompt_text(), main) + \
            frags_height(render.hand_line(c, main, preview=False), main)
        status = self._status_text()
        need += frags_height(status, cols) if status else 0
        need += frags_height(self._keys_text(), cols) + (1 if c.ui.chat_open else 0)
        if main < WIDE:
            need += frags_height(render.players_panel(c, self.players_width()),
                                 self.players_width())
        return max(4, size.rows - need)

    def _top_height(self) -> int:
        rows = frags_height(self._rows_text(), self.rows_width())
        if self.main_width() >= WIDE:
            return max(rows, frags_height(render.players_panel(self.c, PLAYERS_ASIDE_WIDTH),
                                          PLAYERS_ASIDE_WIDTH))
        return rows + frags_height(render.players_panel(self.c, self.players_width()),
                                   self.players_width())

    def main_width(self) -> int:
        cols = self.size().columns
        return cols - self.log_width() - 1 if cols >= LOG_ASIDE else cols

    def log_width(self) -> int:
        cols = self.size().columns
        # the table takes what it can use (rows with their notes, players); the log the rest
        return max(40, cols - MAIN_ASIDE_WIDTH - 1) if cols >= LOG_ASIDE else cols

    def rows_width(self) -> int:
        w = self.main_width()
        return w - PLAYERS_ASIDE_WIDTH if w >= WIDE else w

    def players_width(self) -> int:
        w = self.main_width()
        return PLAYERS_ASIDE_WIDTH if w >= WIDE else w

    def _top(self, rows: Window, players: Window, side_players: Window) -> Container:
        if self.main_width() >= WIDE:
            return VSplit([rows, Window(width=1, char="│", style="class:frame.border"),
                           side_players],
                          height=lambda: Dimension.exact(self._top_height()))
        return HSplit([rows, players])

    def _body(self) -> Container:
        if not self.fits():
            return self.too_small
        if self.c.model.table is None:
            return self.lobby_body
        if self.size().columns >= LOG_ASIDE:
            return self.table_aside
        return self.table_narrow

    def _lobby_text(self) -> StyleAndTextTuples:
        if self.c.ui.form is not None:  # the title, the frame, the status and keys lines
            size, cols = self.size(), self.size().columns
            status = self._status_text()
            below = (frags_height(status, cols) if status else 0) + \
                frags_height(self._keys_text(), cols)
            return render.form_panel(self.c, cols - 2, size.rows - 3 - below)
        return render.lobby_panel(self.c, self.size().columns - 2)

    def _log_text(self) -> StyleAndTextTuples:
        width = self.size().columns if self.c.model.table is None else self.log_width()
        frags = render.log_lines(self.c, width)
        self._log_line_count = sum(t.count("\n") for _, t, *_ in frags) + 1
        return frags

    def _log_end(self) -> Point:
        """Keep the log scrolled to its last line (or as far back as PgUp went)."""
        return Point(0, max(0, self._log_line_count - 1))

    def focus_chat(self) -> None:
        self.layout.focus(self.chat_window)

    def focus_main(self) -> None:
        self.layout.focus(self.log_window)


def build_layout(c: Controller, clock: Callable[[], float] = time.monotonic) -> Screen:
    return Screen(c, clock)

