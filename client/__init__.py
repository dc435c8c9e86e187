"""nimmt.client: the terminal client (``nimmt-client``) and the pieces bots reuse.

* :mod:`.net`: asyncio :class:`ClientConnection` / :func:`connect` (handshake,
  automatic pong, seq checks, request ids, resuming after a drop);
* :mod:`.model`: :class:`TableModel`, everything a screen or a bot needs to know,
  rebuilt from the messages (I/O-free), built on :mod:`.model_state` (what it
  holds) and :mod:`.model_game` (the game's messages); :mod:`.records`: the
  values it shows (log lines, steps, results, seats); :mod:`.leaderboard`: the
  leaderboard's pages as they came;
* :mod:`.decisions`: :class:`Decision` (what you must decide, and the message
  that answers it);
* :mod:`.tui`: the prompt_toolkit screen (imported on demand); :mod:`.cli`: the
  command line; :mod:`.solo`: the private server of ``--solo`` (it dies with the
  client); :mod:`.sessions`: session tokens kept on disk per server; :mod:`.keep`:
  the log, score sheet and ranking kept beside them; :mod:`.replay`: a finished
  game, as the server's replay command tells it, played back step by step.

Only :mod:`nimmt.protocol` of the project is imported here. Docs: docs/CLIENT.md.
"""

from .cards import bullheads, human_row, row_bullheads, wire_row
from .decisions import COMMIT, DRAFT, ROW, TIE, Decision, Pending
from .link import LinkEvent, LinkLost, LinkRestored
from .model import PHASES, GameResult, LogLine, Notice, RoundResult, SeatView, Step, TableModel
from .net import (
    DEFAULT_PORT,
    ClientConnection,
    ClientError,
    ConnectFailed,
    ConnectionLost,
    HandshakeFailed,
    SendFailed,
    connect,
)

__all__ = [
    # network
    "connect", "ClientConnection", "DEFAULT_PORT", "ClientError", "ConnectFailed",
    "HandshakeFailed", "ConnectionLost", "SendFailed", "LinkLost", "LinkRestored", "LinkEvent",
    # model
    "TableModel", "SeatView", "LogLine", "RoundResult", "GameResult", "PHASES", "Step", "Notice",
    "Decision", "Pending", "COMMIT", "ROW", "TIE", "DRAFT",
    # cards
    "bullheads", "row_bullheads", "human_row", "wire_row",
]
