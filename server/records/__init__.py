"""nimmt.server.records: ``nimmt-replay``, the record commands (outside the server's runtime).

- ``replay.py``: a game record re-run through the rules, step by step;
- ``history.py``: the finished games a server kept (``--db``);
- ``leaderboard.py``: the ladder's leaderboard (``--ladder``).

Run as ``nimmt-replay`` or ``python -m nimmt.server.records``.
"""

__all__: list[str] = []
