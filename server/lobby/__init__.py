"""nimmt.server.lobby: sessions at the server, the tables' list, the requests that
are not a table's own, and the ladder queue's seating.

- ``lobby.py``: ``Lobby``: the tables, the lobby feed, the requests, and the one
  way a session enters a table (``Lobby.enter``);
- ``welcome.py``: ``Greeter``, the lobby's hello and resume (sessions, claimed
  names, reserved names);
- ``table_ids.py``: a table's id;
- ``chat.py``: a chat line, and how often a session and an address may say one;
- ``seating.py``: ``QueueDesk``: the ``queue``/``leave_queue`` requests and the
  task that opens the tables the ladder queue forms.
"""

from .lobby import Lobby
from .seating import QueueDesk

__all__ = ["Lobby", "QueueDesk"]
