"""nimmt.server.records: ``nimmt-replay``, the record commands (outside the server's runtime).

- ``command.py``: the command line: a subcommand a mode (``show``, ``games``,
  ``players``, ``ladder``, ``verify``, ``spectator``, ``analyse``) and the older spellings;
- ``replay.py``: a game record re-run through the rules, step by step (``show``,
  ``verify``, ``spectator``); its ``main`` is the command;
- ``history.py``: the finished games a server kept (``games``, ``players``);
- ``leaderboard.py``: the ladder's leaderboard (``ladder``);
- ``analyse.py``: the coach's analysis of a kept game or a record (``analyse``,
  docs/ANALYSIS.md; the analysis itself is ``nimmt.bots.analysis``).

Run as ``nimmt-replay`` or ``python -m nimmt.server.records``.
"""

__all__: list[str] = []
