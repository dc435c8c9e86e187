"""nimmt.server.ladder: rated play: claimed names, ratings, the queue's decisions.

- ``claims.py``: ``ClaimBook``: a name that belongs to whoever holds its key;
- ``ratings.py``: ``Ladder``: OpenSkill ratings of rated games' results;
- ``queue.py``: ``LadderQueue``: who waits for which game, sans-IO;
- ``desk.py``: ``LadderDesk``: the above kept in the database, and the leaderboard.
"""

from .claims import Claim, ClaimBook, Verdict, name_key
from .desk import LadderDesk
from .queue import Entry, Formed, LadderQueue
from .ratings import Ladder, bot_name, ordinal

__all__ = [
    "Claim", "ClaimBook", "Verdict", "name_key", "LadderDesk", "Entry", "Formed",
    "LadderQueue", "Ladder", "bot_name", "ordinal",
]
