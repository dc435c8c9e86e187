"""nimmt.server.thinking: the built-in bots' thinking, off the event loop.

- ``pool.py``: ``ThinkPool``: worker processes that answer a bot's question;
- ``queue.py``: ``ThinkQueue``: the fair order in which tables' questions wait;
- ``worker.py``: the worker process itself.
"""

from .pool import MAX_STATE_BYTES, PoolStopped, ThinkFailed, ThinkPool, ThinkRefused
from .queue import ThinkQueue

__all__ = ["ThinkPool", "ThinkQueue", "ThinkFailed", "ThinkRefused", "PoolStopped", "MAX_STATE_BYTES"]
