"""Roles, connection states and THE transition table (the only one).

The state belongs to the connection as a whole and both ends compute the same
one: it moves on messages *received and sent*, and only the server's messages
(replies and events) move it, except ``hello`` and ``goodbye``.  A client's
request never changes the state by itself: ``join`` is followed by the server's
``seated`` (state ``seated``) or by an ``error`` (state unchanged).

A message that has no row for (current state, sender) is refused: on receipt
with :class:`RemoteProtocolError` ``unexpected_message`` (not fatal: the frame is
dropped and the connection goes on, since such messages are usually benign
races, e.g. a ``commit`` crossing the server's ``game_over``), on sending with
:class:`LocalProtocolError`.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "Role",
    "ConnState",
    "TRANSITIONS",
    "BY_STATE",
    "SAME",
    "transition",
    "CLIENT_ANYTIME",
    "SERVER_ANYTIME",
    "PUBLIC_GAME",
    "PRIVATE_GAME",
    "CLIENT_GAME",
    "CLIENT_CLOCK",
    "TABLE",
]


class Role(enum.Enum):
    CLIENT = "client"
    SERVER = "server"

    @property
    def other(self) -> Role:
        return Role.SERVER if self is Role.CLIENT else Role.CLIENT

    def __repr__(self) -> str:
        return f"Role.{self.name}"


class ConnState(enum.Enum):
    HANDSHAKE = "handshake"  # connected, no hello yet
    HELLO_SENT = "hello_sent"  # hello sent, waiting for welcome
    LOBBY = "lobby"  # welcomed, at no table
    SEATED = "seated"  # in a seat, no game running (before the first or after game_over)
    WATCHING = "watching"  # spectator of a table (game running or not)
    PLAYING = "playing"  # in a seat, game running
    CLOSED = "closed"  # goodbye sent or received, or end of stream

    def __repr__(self) -> str:
        return f"ConnState.{self.name}"


C: Final = Role.CLIENT
S: Final = Role.SERVER
H, HS, LO, SE, WA, PL, CL = (
    ConnState.HANDSHAKE,
    ConnState.HELLO_SENT,
    ConnState.LOBBY,
    ConnState.SEATED,
    ConnState.WATCHING,
    ConnState.PLAYING,
    ConnState.CLOSED,
)

#: Marker for "stay in the same state" in :data:`TABLE`.
SAME: Final = None

#: Accepted in every welcomed state (lobby, seated, watching, playing).
CLIENT_ANYTIME: Final = frozenset({"ping", "pong", "chat", "list_tables", "leaderboard"})
SERVER_ANYTIME: Final = frozenset(
    {"ping", "pong", "error", "chat_message", "table_list", "table_updated", "table_closed",
     "leaderboard_page"}
)
#: Game events every seat and every spectator of the table receives.
PUBLIC_GAME: Final = frozenset(
    {
        "round_started",
        "draft_opened",
        "draft_pick_needed",
        "draft_picked",
        "rows_dealt",
        "turn_started",
        "seat_committed",
        "revealed",
        "placed",
        "row_taken",
        "row_choice_needed",
        "tie_choice_needed",
        "round_scored",
    }
)
#: Game messages only ever sent to one seated player (never to a spectator).
PRIVATE_GAME: Final = frozenset(
    {"hand_dealt", "commit_accepted", "row_choice_request", "tie_choice_request",
     "draft_pick_request", "deadline_warning"}
)
#: A seated player's decisions.
CLIENT_GAME: Final = frozenset({"commit", "choose_row", "choose_tie", "draft_pick"})
#: A seated player's requests about the clock (a solo game's pause).
CLIENT_CLOCK: Final = frozenset({"pause", "resume"})

_WELCOMED: Final = (LO, SE, WA, PL)

#: The transition table: (states, sender, message types, next state or SAME).
TABLE: Final[tuple[tuple[tuple[ConnState, ...], Role, frozenset[str], ConnState | None], ...]] = (
    # handshake
    ((H,), C, frozenset({"hello"}), HS),
    ((H, HS), S, frozenset({"error"}), SAME),
    ((HS,), S, frozenset({"welcome"}), LO),
    # goodbye, from either side, in any open state
    ((H, HS, *_WELCOMED), C, frozenset({"goodbye"}), CL),
    ((H, HS, *_WELCOMED), S, frozenset({"goodbye"}), CL),
    # anytime after the welcome
    (_WELCOMED, C, CLIENT_ANYTIME, SAME),
    (_WELCOMED, S, SERVER_ANYTIME, SAME),
    # lobby
    ((LO,), C, frozenset({"create_table", "join", "watch"}), SAME),
    ((LO, SE, WA), S, frozenset({"seated"}), SE),
    # the ladder queue (version 2): waiting happens in the lobby; the table that
    # forms seats the player with seated
    ((LO,), C, frozenset({"queue", "leave_queue"}), SAME),
    ((LO,), S, frozenset({"queued", "queue_left"}), SAME),
    ((LO, WA), S, frozenset({"watching"}), WA),
    # at a table
    ((SE, WA, PL), C, frozenset({"leave"}), SAME),
    ((SE, WA, PL), S, frozenset({"left"}), LO),
    ((SE,), C, frozenset({"add_bot", "remove_bot", "start"}), SAME),
    # commit, then reveal (version 3): the seats are fixed, the game not dealt yet; a
    # reveal may cross the game's start (the table refuses it then)
    ((SE,), S, frozenset({"reveal_request", "reveal_accepted"}), SAME),
    ((SE, PL), C, frozenset({"reveal"}), SAME),
    ((SE,), S, frozenset({"round_started", "snapshot"}), PL),
    # watching: public events only; a watcher may ask for a free seat
    ((WA,), C, frozenset({"join"}), SAME),
    ((WA,), S, PUBLIC_GAME | {"snapshot", "game_over", "clock_paused"}, SAME),
    # playing
    ((PL,), C, CLIENT_GAME | CLIENT_CLOCK, SAME),
    ((PL,), S, PUBLIC_GAME | PRIVATE_GAME | {"snapshot", "clock_paused"}, SAME),
    ((PL,), S, frozenset({"game_over"}), SE),
)


def _build() -> dict[tuple[ConnState, Role, str], ConnState]:
    out: dict[tuple[ConnState, Role, str], ConnState] = {}
    for states, sender, tags, target in TABLE:
        for st in states:
            for tag in tags:
                key = (st, sender, tag)
                if key in out:
                    raise AssertionError(f"transition {key} defined twice")
                out[key] = st if target is None else target
    return out


#: (state, sender, message type) -> next state; a missing key means "refused".
TRANSITIONS: Final[dict[tuple[ConnState, Role, str], ConnState]] = _build()


def _by_state() -> dict[Role, dict[ConnState, dict[str, ConnState]]]:
    out: dict[Role, dict[ConnState, dict[str, ConnState]]] = {
        r: {st: {} for st in ConnState} for r in Role
    }
    for (st, sender, tag), target in TRANSITIONS.items():
        out[sender][st][tag] = target
    return out


#: sender -> state -> {message type: next state}: the same table, indexed for speed.
BY_STATE: Final[dict[Role, dict[ConnState, dict[str, ConnState]]]] = _by_state()


def transition(state: ConnState, sender: Role, tag: str) -> ConnState | None:
    """The state after ``sender`` sends a ``tag`` message in ``state`` (None: refused)."""
    return TRANSITIONS.get((state, sender, tag))
