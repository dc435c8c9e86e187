"""The terminal UI (prompt_toolkit): render → layout → keys → style → Application.

``run_tui(conn)`` runs it on a connected :class:`~nimmt.client.net.ClientConnection`.
"""

from .app import Outcome, build_application, run_tui
from .controller import Controller, StartPlan

__all__ = ["run_tui", "build_application", "Outcome", "Controller", "StartPlan"]
