"""nimmt.server.lobby: sessions at the server, the tables' list, the requests that
are not a table's own, and the ladder queue's seating.

- ``lobby.py``: ``Lobby``: hello and resume, creating and finding tables;
- ``seating.py``: ``QueueDesk``: the ``queue``/``leave_queue`` requests and the
  task that opens the tables the ladder queue forms.
"""

from .lobby import Lobby
from .seating import QueueDesk

__all__ = ["Lobby", "QueueDesk"]
