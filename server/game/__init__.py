"""nimmt.server.game: one table's game flow, sans-IO (no trio, no clock, no socket).

``Match`` takes a table's inputs (requests, connections coming and going, bot
answers, the time) and returns its effects (messages to members, facts to keep,
when to wake). Its parts:

- ``match.py``: ``Match``, the state machine's public face;
- ``rules.py``: what a table does with each input in each status (THE table);
- ``state.py``: what a match knows (``MatchState``) and the plumbing its parts share;
- ``seats.py``: who sits where, joining, leaving, bots, the host starting the game;
- ``play.py``: starting a game, dealing, applying decisions, its end;
- ``deal_commitment.py``: the seed the next game is dealt from and the players' entropy;
- ``reveals.py``: commit, then reveal: the seats' entropy asked for once the seats are fixed;
- ``timing.py``: deadlines, warnings, the autopilot, pacing; ``bank.py``: time banks;
- ``events.py`` and ``translate.py``: engine events as wire messages;
- ``io.py``: the typed inputs and effects; ``data.py``: a match as plain data;
- ``room.py``: the seats, sessions and spectators as plain data.
"""

from .io import BotDecided, Disconnected, Effects, Finished, Greet, Input, Reconnected, Request, Think, Who
from .match import Match
from .room import Member, Room, SeatState
from .state import MAX_SPECTATORS, SPECTATOR_GRACE, Dealer, MatchState

__all__ = [
    "Match", "MatchState", "Dealer", "MAX_SPECTATORS", "SPECTATOR_GRACE",
    "Room", "Member", "SeatState",
    "Who", "Request", "Disconnected", "Reconnected", "BotDecided", "Greet", "Think",
    "Finished", "Effects", "Input",
]
