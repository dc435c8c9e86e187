"""What the ladder queue's keys do: Q in the new-table form queues for a rated game
with its seats and rules, Q in the lobby while queued leaves the queue; a link
that comes back queues again (the entry went with the connection). The part of
the :class:`~nimmt.client.tui.controller.Controller` about the queue."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from nimmt import protocol as P
from nimmt.protocol import Message

if TYPE_CHECKING:
    from ..model import TableModel
    from .state import UiState

__all__ = ["QueueKeys", "QUEUED_HINT"]

#: What a player waiting in the queue is told when they try to sit down elsewhere.
QUEUED_HINT = "You wait in the queue for a rated game: press Q to leave it first."


class QueueKeys:
    """Mixed into the controller, whose model, screen state and sending it uses."""

    model: TableModel
    ui: UiState
    bot_level: str
    send: Callable[[Message], None]  # in the background
    status: Callable[[str, str], None]  # the status line: text, kind
    open_form: Callable[[], None]
    _queue_request: P.Queue | None  # the last queue sent: sent again after a new link

    def queue_key(self) -> None:
        """Q: queue with the form's seats and rules (the form open), leave the queue
        (queued), else open the form to choose them."""
        form = self.ui.form
        if form is not None:
            self.bot_level = str(form.values["bot_level"])
            self.ui.form = None
            self.ui.status = None  # ("Choose the seats and rules, then Q …" is done)
            self._queue_request = form.queue_request()
            self.send(self._queue_request)
        elif self.model.queued is not None:
            self._queue_request = None
            self.send(P.LeaveQueue())
        elif self.model.table is None:
            self.open_form()
            if self.ui.form is not None:
                self.ui.form.for_queue = True
                self.status("Choose the seats and rules, then Q queues for a rated game "
                            "(Enter creates a table instead).", "info")

    def _queue_again(self, was_queued: bool) -> None:
        """A new link: the entry was the old connection's; queue again as before."""
        if was_queued and self._queue_request is not None and self.model.table is None:
            self.send(self._queue_request)
            self.status("Back in the queue: your place went with the connection.", "info")

    def _queue_blocks(self) -> bool:
        """True (and says so) while queued: the server refuses a seat elsewhere."""
        if self.model.queued is None:
            return False
        self.status(QUEUED_HINT, "info")
        return True
