"""nimmt.protocol: the wire protocol of nimmt (framing, messages, state machine). No I/O.

Normative description: ``docs/PROTOCOL.md``.  Typical use::

    conn = Connection(our_role=SERVER)
    conn.receive_data(data)              # b"" at end of stream
    while (msg := conn.next_message()) is not NEED_DATA: ...
    sock.send(conn.send(Welcome(...)))
"""

from __future__ import annotations

from .base import MAX_SAFE_INT, REGISTRY, Message, Struct, decode_message
from .connection import CLIENT, SERVER, Connection
from .errors import (
    APPLICATION_ERROR_CODES,
    ERROR_CODES,
    GOODBYE_REASONS,
    PROTOCOL_ERROR_CODES,
    ErrorCode,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)
from .framing import (
    CONNECTION_CLOSED,
    HEADER_SIZE,
    NEED_DATA,
    FrameDecoder,
    Sentinel,
    encode_frame,
    unpack_body,
)
from .messages_game import (
    ChooseRow,
    ChooseTie,
    ClockPaused,
    Commit,
    CommitAccepted,
    DeadlineWarning,
    DraftOpened,
    DraftPick,
    DraftPicked,
    DraftPickNeeded,
    DraftPickRequest,
    GameOver,
    MAX_PAUSE,
    HandDealt,
    Pause,
    Placed,
    Resume,
    Revealed,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowChoiceRequest,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    Snapshot,
    TieChoiceNeeded,
    TieChoiceRequest,
    TurnStarted,
)
from .messages_session import (
    AddBot,
    Chat,
    ChatMessage,
    CreateTable,
    Error,
    Goodbye,
    Hello,
    Join,
    Leaderboard,
    LeaderboardPage,
    Leave,
    Left,
    ListTables,
    Ping,
    Pong,
    RemoveBot,
    Seated,
    Start,
    TableClosed,
    TableList,
    TableUpdated,
    Watch,
    Watching,
    Welcome,
)
from .messages_queue import MAX_FILL_AFTER, LeaveQueue, Queue, Queued, QueueLeft
from .messages_reveal import Reveal, RevealAccepted, RevealRequest
from .states import TRANSITIONS, ConnState, Role, transition
from .structs import (
    DEFAULT_MAX_FRAME_SIZE,
    MAX_DECISION_TIME,
    MAX_LEADERBOARD_ROWS,
    MAX_TABLES_LISTED,
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    MAX_AUTOPLAYED,
    MAX_ROUNDS_SENT,
    Autoplayed,
    LeaderboardRow,
    Limits,
    Pending,
    Place,
    SeatInfo,
    TableInfo,
    TableOptions,
)

__all__ = [
    # connection and framing
    "Connection", "Role", "CLIENT", "SERVER", "ConnState", "TRANSITIONS", "transition",
    "NEED_DATA", "CONNECTION_CLOSED", "Sentinel", "FrameDecoder", "encode_frame",
    "unpack_body", "decode_message", "HEADER_SIZE",
    # constants
    "PROTOCOL_VERSION", "SUPPORTED_VERSIONS", "DEFAULT_MAX_FRAME_SIZE", "MAX_TABLES_LISTED",
    "MAX_DECISION_TIME",
    "MAX_SAFE_INT",
    # errors
    "ProtocolError", "LocalProtocolError", "RemoteProtocolError", "ErrorCode", "ERROR_CODES",
    "PROTOCOL_ERROR_CODES", "APPLICATION_ERROR_CODES", "GOODBYE_REASONS",
    # base and registry
    "Message", "Struct", "REGISTRY",
    # nested maps
    "Place", "TableOptions", "SeatInfo", "TableInfo", "Limits", "Pending", "Autoplayed",
    "MAX_AUTOPLAYED", "MAX_ROUNDS_SENT",
    # handshake / always / lobby
    "Hello", "Welcome", "Error", "Goodbye", "Ping", "Pong", "Chat", "ChatMessage",
    "ListTables", "TableList", "TableUpdated", "TableClosed", "CreateTable", "Join", "Watch",
    "Leave", "AddBot", "RemoveBot", "Start", "Seated", "Watching", "Left",
    # the ladder queue
    "Queue", "Queued", "LeaveQueue", "QueueLeft", "MAX_FILL_AFTER",
    # commit, then reveal (version 3)
    "RevealRequest", "Reveal", "RevealAccepted",
    # game
    "RoundStarted", "HandDealt", "DraftOpened", "DraftPickNeeded", "DraftPickRequest",
    "DraftPicked", "RowsDealt", "TurnStarted", "CommitAccepted", "SeatCommitted", "Revealed",
    "Placed", "RowTaken", "RowChoiceNeeded", "RowChoiceRequest", "TieChoiceNeeded",
    "TieChoiceRequest", "DeadlineWarning", "RoundScored", "GameOver", "Snapshot", "Commit",
    "ChooseRow", "ChooseTie", "DraftPick", "Pause", "Resume", "ClockPaused", "MAX_PAUSE",
    # ratings (version 2)
    "Leaderboard", "LeaderboardPage", "LeaderboardRow", "MAX_LEADERBOARD_ROWS",
]
