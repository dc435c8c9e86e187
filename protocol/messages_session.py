"""Handshake, always-available and lobby messages."""

from __future__ import annotations

from typing import Any, Final

from .base import MAX_SAFE_INT, F, Message, message
from .errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from .fields import Bool, Ident, Int, IntList, ListOf, Nested, OneOf, Optional, Text
from .states import Role
from .structs import (
    CHAT_TEXT,
    CLAIM_KEY,
    CODE,
    ENTROPY,
    HASH_HEX,
    MAX_LEADERBOARD_ROWS,
    MAX_TABLES_LISTED,
    MESSAGE_TEXT,
    NAME,
    NONCE,
    RATED_NAME,
    SEAT,
    SOFTWARE,
    STRATEGY,
    SUPPORTED_VERSIONS,
    TABLE_ID,
    TABLE_NAME,
    TOKEN,
    AUTOPLAYED,
    ROUND_PENALTIES,
    Autoplayed,
    LeaderboardRow,
    Limits,
    TableInfo,
    TableOptions,
)

__all__ = [
    "Hello",
    "Welcome",
    "Error",
    "Goodbye",
    "Ping",
    "Pong",
    "ListTables",
    "TableList",
    "CreateTable",
    "Join",
    "Watch",
    "Leave",
    "AddBot",
    "RemoveBot",
    "Start",
    "Chat",
    "ChatMessage",
    "Seated",
    "Watching",
    "Left",
    "TableUpdated",
    "TableClosed",
    "Leaderboard",
    "LeaderboardPage",
]

C: Final = Role.CLIENT
S: Final = Role.SERVER

TABLE_INFO: Final = Nested(TableInfo, "map TableInfo")
TAG: Final = Ident(r"[a-z][a-z_]*", 40, "a message type")
VERSION: Final = Int(min(SUPPORTED_VERSIONS), max(SUPPORTED_VERSIONS),
                     "int, " + " or ".join(map(str, SUPPORTED_VERSIONS)))
FIELD_PATH: Final = Text(1, 100)

# --- handshake ------------------------------------------------------------------


@message("hello", C)
class Hello(Message):
    """First message of a client, within ``hello_timeout`` of connecting."""

    protocol: int = F(VERSION, "protocol version the client speaks (this document: 4; "
                      "versions 1 to 3 are served as before, see Handshake and "
                      "versions)")
    name: str = F(NAME, "player or spectator name")
    kind: str = F(OneOf("human", "bot", "spectator"), "what the client is")
    token: str | None = F(Optional(TOKEN), "session token of an earlier connection, to resume",
                          default=None)
    software: str | None = F(Optional(SOFTWARE), "client program and version, informative",
                             default=None)
    key: str | None = F(Optional(CLAIM_KEY), "your name's secret key: claims the name if "
                        "unclaimed, and is required if it is claimed (see Claimed names)",
                        default=None, since=2)

    @staticmethod
    def _precheck(obj: dict[Any, Any]) -> None:
        # Checked before anything else, so that a later version's hello (whose
        # fields may differ) is answered "unsupported_version", not "extra_field".
        v = obj.get("protocol")
        if type(v) is int and v not in SUPPORTED_VERSIONS:
            raise LocalProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol {v} is not supported; supported: "
                + ", ".join(map(str, SUPPORTED_VERSIONS)),
                "protocol",
            )


@message("welcome", S)
class Welcome(Message):
    """The server accepts the hello."""

    protocol: int = F(VERSION, "protocol version of this connection")
    server: str = F(SOFTWARE, "server program and version")
    name: str = F(NAME, "your name as the server shows it (may differ from hello.name)")
    token: str = F(TOKEN, "session token: keep it secret, send it in hello to resume")
    resumed: bool = F(Bool, "true if the hello's token resumed an earlier session")
    limits: Limits = F(Nested(Limits, "map Limits"), "the server's limits and timers")
    claimed: bool = F(Bool, "true if your name is claimed with the key you sent (your games "
                      "at rated tables are rated)", default=False, since=2)


# --- always ---------------------------------------------------------------------


@message("error", S)
class Error(Message):
    """A request was refused, or the peer broke the protocol (``re``: the request's id)."""

    code: str = F(CODE, "stable error code (see Error codes)")
    message: str = F(MESSAGE_TEXT, "human-readable explanation")
    request: str | None = F(Optional(TAG), "type of the message refused, if known",
                            default=None)
    field: str | None = F(Optional(FIELD_PATH), "field at fault, e.g. options.turn_time",
                          default=None)
    supported: tuple[int, ...] | None = F(
        Optional(IntList(1, 1000, 1, 16)), "unsupported_version: the versions spoken",
        default=None,
    )

    @classmethod
    def from_exception(
        cls, exc: ProtocolError, *, supported: tuple[int, ...] | None = None
    ) -> Error:
        """The ``error`` answering a :class:`ProtocolError` (``re``/``request`` included)."""
        text = exc.message if exc.message.isprintable() else repr(exc.message)
        field = exc.field
        if field is not None and (len(field) > 100 or not field.isprintable()
                                  or not field.strip()):
            field = repr(field)[:100]  # quoted ('' or ' ' too): always a valid path
        code = exc.code
        try:
            CODE.check(code)
        except LocalProtocolError:
            code = ErrorCode.INTERNAL_ERROR
        request = re_ = None
        if isinstance(exc, RemoteProtocolError):
            request, re_ = exc.request, exc.re
        if code == ErrorCode.UNSUPPORTED_VERSION and supported is None:
            supported = SUPPORTED_VERSIONS
        return cls(code=code, message=text[:500], request=request, field=field,
                   supported=supported, re=re_)


@message("goodbye", C, S)
class Goodbye(Message):
    """The sender closes the connection after this message."""

    reason: str = F(CODE, "quit, replaced, server_shutdown, protocol_error, timeout, kicked, "
                    "or an error code")
    message: str = F(MESSAGE_TEXT, "human-readable explanation", default="")
    kept: bool | None = F(Optional(Bool), "server_shutdown: true if the server keeps its "
                          "games (a database) and a restart brings your seat back, false if "
                          "it keeps none (your game is over); nil otherwise",
                          default=None, since=3)


@message("ping", C, S)
class Ping(Message):
    """Liveness check: answer with a pong carrying the same nonce."""

    nonce: int = F(NONCE, "any number, echoed in the pong")


@message("pong", C, S)
class Pong(Message):
    """Answer to a ping."""

    nonce: int = F(NONCE, "the ping's nonce")


@message("chat", C)
class Chat(Message):
    """Say something: to your table if you are at one, otherwise to the lobby."""

    text: str = F(CHAT_TEXT, "the text")


@message("chat_message", S)
class ChatMessage(Message):
    """Someone said something (your own chat comes back too)."""

    name: str = F(NAME, "who said it")
    seat: int | None = F(Optional(SEAT), "their seat at your table, nil if none")
    text: str = F(CHAT_TEXT, "the text")


# --- lobby ----------------------------------------------------------------------


@message("list_tables", C)
class ListTables(Message):
    """Ask for the tables (answered with table_list)."""


@message("table_list", S)
class TableList(Message):
    """The tables, newest first."""

    tables: tuple[TableInfo, ...] = F(ListOf(TABLE_INFO, 0, MAX_TABLES_LISTED),
                                      f"at most {MAX_TABLES_LISTED} tables")


@message("table_updated", S)
class TableUpdated(Message):
    """A table was created or changed (to the lobby and to everyone at the table)."""

    table: TableInfo = F(TABLE_INFO, "the table as it is now")


@message("table_closed", S)
class TableClosed(Message):
    """A table is gone (to the lobby)."""

    table_id: str = F(TABLE_ID, "the table")


@message("create_table", C)
class CreateTable(Message):
    """Create a table; a human or bot creator is seated at seat 0 and becomes host."""

    options: TableOptions = F(Nested(TableOptions, "map TableOptions"),
                              "the options; omitted fields take their default",
                              default=TableOptions())
    name: str = F(TABLE_NAME, "table name", default="")


@message("join", C)
class Join(Message):
    """Take a seat at a table (answered with seated)."""

    table_id: str = F(TABLE_ID, "the table")
    seat: int | None = F(Optional(SEAT), "the seat wanted, nil for any free seat", default=None)
    entropy: str | None = F(Optional(ENTROPY), "your contribution to the deals of the table's "
                            "next game, nil for none (see Verifiable deals)", default=None,
                            since=2)
    entropy_hash: str | None = F(Optional(HASH_HEX), "the SHA-256 of your contribution to "
                                 "the deals of the table's next game, revealed when the server "
                                 "asks (reveal_request); not with entropy (see Verifiable deals)",
                                 default=None, since=3)

    def _cross(self) -> None:
        if self.entropy is not None and self.entropy_hash is not None:
            raise LocalProtocolError(ErrorCode.OUT_OF_RANGE, "send entropy (in the clear) or "
                                     "entropy_hash (revealed later), not both", "entropy_hash")


@message("watch", C)
class Watch(Message):
    """Watch a table as a spectator (answered with watching)."""

    table_id: str = F(TABLE_ID, "the table")


@message("leave", C)
class Leave(Message):
    """Leave your seat or stop watching (answered with left)."""


@message("add_bot", C)
class AddBot(Message):
    """Host only: seat a built-in bot (answered with table_updated)."""

    strategy: str = F(STRATEGY, 'a level ("easy", "normal", "hard") or a strategy name '
                      '("heuristic", "random", "search", "mcs")', default="hard")
    seat: int | None = F(Optional(SEAT), "seat, nil for the first free one", default=None)
    name: str | None = F(Optional(NAME), "bot name, nil for a generated one", default=None)


@message("remove_bot", C)
class RemoveBot(Message):
    """Host only, before the game: remove a built-in bot."""

    seat: int = F(SEAT, "the bot's seat")


@message("start", C)
class Start(Message):
    """Host only: start the game; every seat must be taken (add bots to fill them)."""


@message("seated", S)
class Seated(Message):
    """You sit at a table (after create_table, join, or a resumed session)."""

    table: TableInfo = F(TABLE_INFO, "the table")
    seat: int = F(SEAT, "your seat")
    round_penalties: tuple[tuple[int, ...], ...] = F(
        ROUND_PENALTIES, "the bullheads each seat took in each round scored so far of the "
        "table's game (once it is over: of its last game), round 1 first, each as "
        "round_scored.penalties; [] before a game (the first 1000 rounds at most)",
        default=(), since=4)
    autoplayed: tuple[Autoplayed, ...] = F(
        AUTOPLAYED, "a resumed session: what the autopilot decided for your seat while "
        "your connection was down, oldest first (the latest 200 at most; a commit of the "
        "turn being played is still your commit, which you may replace); [] otherwise",
        default=(), since=4)

    def _cross(self) -> None:
        n = self.table.options.seats
        if any(len(r) != n for r in self.round_penalties):
            raise LocalProtocolError(ErrorCode.OUT_OF_RANGE, "one penalty per seat in "
                                     "each round", "round_penalties")


@message("watching", S)
class Watching(Message):
    """You watch a table (after watch, create_table by a spectator, or resuming)."""

    table: TableInfo = F(TABLE_INFO, "the table")
    round_penalties: tuple[tuple[int, ...], ...] = F(
        ROUND_PENALTIES, "as seated.round_penalties", default=(), since=4)

    def _cross(self) -> None:
        n = self.table.options.seats
        if any(len(r) != n for r in self.round_penalties):
            raise LocalProtocolError(ErrorCode.OUT_OF_RANGE, "one penalty per seat in "
                                     "each round", "round_penalties")


@message("left", S)
class Left(Message):
    """You are no longer at the table."""

    table_id: str = F(TABLE_ID, "the table")
    reason: str = F(CODE, "left (you asked), kicked, or table_closed")


# --- ratings (version 2) ---------------------------------------------------------


@message("leaderboard", C, since=2)
class Leaderboard(Message):
    """Ask for a page of the leaderboard (answered with leaderboard_page)."""

    limit: int = F(Int(1, MAX_LEADERBOARD_ROWS), f"rows wanted, 1..{MAX_LEADERBOARD_ROWS}",
                   default=20)
    offset: int = F(Int(0, MAX_SAFE_INT), "rows skipped from the top (0: from the best)",
                    default=0)
    name: str | None = F(Optional(RATED_NAME), "a name to find (any case): the page is the "
                         "one holding it, and offset is ignored; nil: the page at offset",
                         default=None)


@message("leaderboard_page", S, since=2)
class LeaderboardPage(Message):
    """A page of the leaderboard, best first (see Ratings)."""

    rows: tuple[LeaderboardRow, ...] = F(
        ListOf(Nested(LeaderboardRow, "map LeaderboardRow"), 0, MAX_LEADERBOARD_ROWS),
        "the rows, by rank")
    offset: int = F(Int(0, MAX_SAFE_INT), "rows above the first one (its rank is offset + 1)")
    total: int = F(Int(0, MAX_SAFE_INT), "rated names in all")
    trend_games: int = F(Int(1, 1000), "the rated games each row's trend spans")
    found: int | None = F(Optional(Int(1, MAX_SAFE_INT)), "the rank of the name asked for, "
                          "nil if none was asked for or it has no rating", default=None)
