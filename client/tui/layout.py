"""The screen's layout: the lobby or the table, the status line, chat, key hints, help.

::

    ┌ title: you · table · round · turn · online ────────────────────────────┐
    │ Rows (or the draft pool)                 │ Players: totals, markers    │
    │ decision bar: what to do now · ⏱ clock                                 │
    │ Hand                                                                   │
    │ Events (log)                                                           │
    │ status line (errors from the server, confirmations)                    │
    │ Say: chat input (when open)                                            │
    └ key hints ─────────────────────────────────────────────────────────────┘
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    ConditionalContainer,
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
from prompt_toolkit.widgets import Frame

from . import render
from .controller import Controller

__all__ = ["Screen", "build_layout"]


def _lines(frags: StyleAndTextTuples) -> int:
    return sum(frag[1].count("\n") for frag in frags) + 1


class Screen:
    """The containers of the screen, built once; what shows depends on the model."""

    def __init__(self, c: Controller, clock: Callable[[], float] = time.monotonic) -> None:
        self.c = c
        self.clock = clock
        self.chat = Buffer(multiline=False, name="chat")
        ctl = FormattedTextControl

        def text(fn: Callable[[Controller], StyleAndTextTuples]) -> FormattedTextControl:
            return ctl(lambda: fn(c), show_cursor=False)

        self.title = Window(text(render.title_bar), height=1, style="class:title")
        rows = Window(text(render.rows_panel), wrap_lines=False)
        players = Window(text(render.players_panel), wrap_lines=False)
        top_height = lambda: Dimension.exact(2 + max(  # noqa: E731  (2: the frames)
            7, _lines(render.rows_panel(c)), _lines(render.players_panel(c)) - 1))
        self.top = VSplit([
            Frame(rows, title="Table", width=Dimension(min=46, weight=2)),
            Frame(players, title="Players", width=Dimension(min=34, preferred=40, max=44)),
        ], height=top_height)
        self.prompt = Window(ctl(lambda: render.prompt_line(c, self.clock()), show_cursor=False),
                             height=1, style="class:prompt.other")
        self.hand = Window(text(render.hand_line), height=1)
        self.log_window = Window(
            ctl(lambda: render.log_lines(c), focusable=True, show_cursor=False,
                get_cursor_position=self._log_end),
            wrap_lines=True)
        self.table_body = HSplit([
            self.top,
            self.prompt,
            Window(height=1, char=" "),
            self.hand,
            Frame(self.log_window, title="Events"),
        ])
        self.lobby_body = HSplit([
            Frame(Window(ctl(self._lobby_text, show_cursor=False), wrap_lines=False),
                  title=lambda: "New table" if c.ui.form is not None else "Tables"),
            self.prompt,
            Frame(self.log_window, title="Events", height=Dimension(min=5, max=10)),
        ])
        self.chat_window = Window(BufferControl(self.chat), height=1)
        chat_bar = ConditionalContainer(
            VSplit([Window(ctl([("class:chat.prompt", " Say: ")]), width=6),
                    self.chat_window]),
            filter=Condition(lambda: c.ui.chat_open))
        body = DynamicContainer(lambda: self.table_body if c.model.table is not None
                                else self.lobby_body)
        root = HSplit([
            self.title,
            body,
            Window(text(render.status_line), height=1),
            chat_bar,
            Window(text(render.keys_line), height=1, style="class:keys"),
        ])
        help_float = Float(ConditionalContainer(
            Frame(Window(ctl(render.help_text()), width=Dimension(max=80),
                         height=Dimension(max=_lines(render.help_text()))), title="Help"),
            filter=Condition(lambda: c.ui.help_open)), top=1, bottom=1)
        self.root = FloatContainer(root, floats=[help_float])
        self.layout = Layout(self.root, focused_element=self.log_window)

    def _lobby_text(self) -> StyleAndTextTuples:
        if self.c.ui.form is not None:
            return render.form_panel(self.c)
        return render.lobby_panel(self.c)

    def _log_end(self) -> Point:
        """Keep the log scrolled to its last line (or as far back as PgUp went)."""
        shown = len(self.c.model.log) - self.c.ui.log_back
        return Point(0, max(0, shown - 1))

    def focus_chat(self) -> None:
        self.layout.focus(self.chat_window)

    def focus_main(self) -> None:
        self.layout.focus(self.log_window)


def build_layout(c: Controller, clock: Callable[[], float] = time.monotonic) -> Screen:
    return Screen(c, clock)
