"""nimmt.server.records: ``nimmt-replay``, the record commands (outside the server's runtime).

- ``command.py``: the command line: a subcommand a mode (``show``, ``games``,
  ``players``, ``ladder``, ``verify``, ``spectator``) and the older spellings;
- ``replay.py``: a game record re-run through the rules, step by step (``show``,
  ``verify``, ``spectator``); its ``main`` is the command;
- ``history.py``: the finished games a server kept (``games``, ``players``);
- ``leaderboard.py``: the ladder's leaderboard (``ladder``).

Run as ``nimmt-replay`` or ``python -m nimmt.server.records``.
"""

__all__: list[str] = []
