"""The terminal UI (prompt_toolkit): render (board, sheets) → layout → keys → style →
Application.

``run_tui(conn)`` runs it on a connected :class:`~nimmt.client.net.ClientConnection`;
``run_replay(player)`` shows a :class:`~nimmt.client.replay.ReplayPlayer`.
"""

from .app import Outcome, build_application, run_replay, run_tui
from .controller import Controller, StartPlan

__all__ = ["run_tui", "run_replay", "build_application", "Outcome", "Controller",
           "StartPlan"]
