"""Local notices about the link to the server, mixed into the message stream.

They are not protocol messages: :meth:`nimmt.client.net.ClientConnection.events`
yields them between messages when the connection drops and when it is restored,
so that a :class:`~nimmt.client.model.TableModel` (or a bot) can show or react to
them in order with everything else.
"""

from __future__ import annotations

from dataclasses import dataclass

from nimmt.protocol import Welcome

__all__ = ["LinkLost", "LinkRestored", "LinkEvent"]


@dataclass(frozen=True, slots=True)
class LinkLost:
    """The connection dropped; the library is trying to resume the session.

    ``stopped``: the server said it is stopping (``goodbye`` ``server_shutdown``)
    and the library waits for it to be started again (``events(through_shutdown=)``);
    ``address`` is the server's, to tell a person how to come back."""

    reason: str  # one line for a person, e.g. "the server closed the connection"
    stopped: bool = False
    address: str = ""


@dataclass(frozen=True, slots=True)
class LinkRestored:
    """A new connection is up. ``welcome.resumed`` says whether the session was kept.

    If it was, ``seated``/``watching`` and (during a game) a ``snapshot`` follow.
    If not (the session expired), you are a new session in the lobby.
    """

    welcome: Welcome


LinkEvent = LinkLost | LinkRestored
