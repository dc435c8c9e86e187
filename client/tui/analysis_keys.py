"""Each round of yours analysed in the background once it is scored, and the keys
of its analysis screen (A; ←/→ or a round's number, ↑/↓, Esc): the part of the
:class:`~nimmt.client.tui.controller.Controller` about the coach's analysis (issue 45).
The subprocess is awaited in a task of its own: no key ever waits for it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..round_analysis import ANALYSE_ENV, AnalysisFailed, analysis_off
from .analysis_view import AnalysisView

if TYPE_CHECKING:
    from ..model import TableModel
    from .state import UiState

__all__ = ["AnalysisKeys"]


class AnalysisKeys:
    """Mixed into the controller, whose model, screen state and status line it uses."""

    model: TableModel
    ui: UiState
    replay: Any
    status: Callable[[str, str], None]  # the status line: text, kind
    invalidate: Callable[[], None]
    #: a one-round record and a seat -> the analysis JSON (AnalysisFailed: why not)
    round_analyser: Callable[[dict[str, Any], int], Awaitable[dict[str, Any]]]
    _analyses: set[asyncio.Task[None]]

    # -- in the background ------------------------------------------------------------
    def _analyse_rounds(self) -> None:
        """After a message: the rounds of yours it scored are analysed (or the log
        says why not)."""
        m = self.model
        todo, skipped = list(m.to_analyse), list(m.not_to_analyse)
        m.to_analyse.clear()
        m.not_to_analyse.clear()
        seat = m.seat
        if seat is None or self.replay is not None:
            return
        for number, why in skipped:
            m.not_analysed(m.game_serial, number, why)
        for number, record in todo:
            if analysis_off():
                m.not_analysed(m.game_serial, number, f"the analysis is off ({ANALYSE_ENV}=off)")
                continue
            game = m.analysis_started(number)
            task = asyncio.get_running_loop().create_task(
                self._analysis(game, number, record, seat))
            self._analyses.add(task)  # (not in _tasks: drain() waits for sends, not these)
            task.add_done_callback(self._analyses.discard)

    async def _analysis(self, game: int, number: int, record: dict[str, Any],
                        seat: int) -> None:
        try:
            analysis = await self.round_analyser(record, seat)
        except AnalysisFailed as exc:
            self.model.analysis_failed(game, number, str(exc))
        else:
            self.model.analysis_done(game, number, analysis)
        self.invalidate()

    # -- the screen ----------------------------------------------------------------
    def toggle_analysis(self) -> None:
        """A at a table: the analysis of your latest round; A again (or Esc) closes it."""
        m = self.model
        if self.ui.analysis is not None:
            self.ui.analysis = None
        elif self.replay is not None:
            self.status("A replay is not analysed here: nimmt-replay analyse shows the "
                        "analysis of a record.", "info")
        elif m.table is None:
            self.status("The analysis is of your rounds at a table.", "info")
        elif m.seat is None:
            self.status("Only your own rounds are analysed: a spectator has none.", "info")
        elif not m.analysed:
            self.status("No round of yours is analysed yet: each is, once it is over.",
                        "info")
        else:
            self.ui.analysis = AnalysisView()
            self.ui.sheet_open = self.ui.sheet_auto = False  # (t brings the sheet back)

    def close_analysis(self) -> bool:
        """q or Esc on the analysis: it closes (False when it was not open)."""
        was = self.ui.analysis is not None
        self.ui.analysis = None
        return was

    def analysis_round(self, delta: int) -> None:
        """←/→ on the analysis: the round before or after."""
        if self.ui.analysis is not None:
            self.ui.analysis.move(delta, self.model.analysed)

    def analysis_digit(self, digit: str) -> None:
        """A digit on the analysis: that round (1 then 2: round 12)."""
        view = self.ui.analysis
        if view is not None and not view.digit(digit, self.model.analysed):
            self.status(f"Round {view.typed} has no analysis.", "info")

    def analysis_scroll(self, delta: int) -> None:
        """↑/↓ PgUp/PgDn on the analysis: the screen clamps it to the lines there are."""
        if self.ui.analysis is not None:
            self.ui.analysis.scroll = max(0, self.ui.analysis.scroll + delta)
