"""What the leaderboard screen's keys do (the lobby's ``R``, ↑/↓, ``m``, ``r``) and
how its pages arrive: the part of the :class:`~nimmt.client.tui.controller.Controller`
about the leaderboard."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from nimmt import protocol as P
from nimmt.protocol import Message

from ..leaderboard import PAGE_ROWS
from .ladder import SEARCH_IDS, LadderView

if TYPE_CHECKING:
    from ..model import TableModel
    from .state import UiState

__all__ = ["LadderKeys"]


class LadderKeys:
    """Mixed into the controller, whose model, screen state and sending it uses."""

    model: TableModel
    ui: UiState
    send: Callable[[Message], None]  # in the background
    status: Callable[[str, str], None]  # the status line: text, kind

    def open_ladder(self) -> None:
        """R in the lobby: the leaderboard, asked for afresh (every rated game changes
        it); r asks again, Esc closes."""
        if self.model.table is not None:
            self.status("The leaderboard opens from the lobby (L leaves the table).", "info")
            return
        self.ui.history = None
        cursor = self.ui.ladder.cursor if self.ui.ladder is not None else 0
        self.ui.ladder = LadderView(cursor=cursor)
        self.model.leaderboard.clear()
        self.send(P.Leaderboard(limit=PAGE_ROWS))

    def find_me(self) -> None:
        """m on the leaderboard: the cursor goes to your row (asked for by name)."""
        view, name = self.ui.ladder, self.model.my_name
        if view is None or name is None:
            return
        view.finding = next(SEARCH_IDS)
        self.send(P.Leaderboard(limit=PAGE_ROWS, name=name, id=view.finding))

    def _ladder_page(self, page: P.LeaderboardPage) -> None:
        view = self.ui.ladder
        if view is None:
            return
        if page.re is not None and page.re == view.finding:
            view.finding = None
            if page.found is None:
                self.status(f"{self.model.my_name} has no rating here yet: play at a rated "
                            "table with your claimed name (nimmt-client --claim).", "info")
            else:
                view.cursor = page.found - 1
        view.move(0, self.model.leaderboard)  # (fewer rows than before: the cursor stays in)
        self._ladder_more()

    def _ladder_more(self) -> None:
        """Ask for the rows the leaderboard is about to show and does not have."""
        view = self.ui.ladder
        offset = view.wanted(self.model.leaderboard) if view is not None else None
        if offset is not None:
            self.send(P.Leaderboard(limit=PAGE_ROWS, offset=offset))
