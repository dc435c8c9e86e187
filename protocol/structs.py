"""Protocol constants, shared field kinds and the nested map types."""

from __future__ import annotations

from typing import Final

from .base import MAX_SAFE_INT, F, Struct, struct
from .errors import ErrorCode, LocalProtocolError
from .fields import (
    Bool,
    Float,
    Ident,
    Int,
    IntList,
    ListOf,
    Nested,
    OneOf,
    Optional,
    Pair,
    Text,
)

__all__ = [
    "PROTOCOL_VERSION",
    "MAX_DECISION_TIME",
    "SUPPORTED_VERSIONS",
    "CLAIM_KEY",
    "DEFAULT_MAX_FRAME_SIZE",
    "MAX_TABLES_LISTED",
    "MAX_LEADERBOARD_ROWS",
    "Place",
    "TableOptions",
    "SeatInfo",
    "TableInfo",
    "LeaderboardRow",
    "Limits",
    "Pending",
    "Autoplayed",
    "MAX_AUTOPLAYED",
    "MAX_ROUNDS_SENT",
]

#: The longest time a table may give a decision, in seconds (the timers of
#: ``TableOptions``): a table that gives it is untimed for a client (no clock shown).
MAX_DECISION_TIME: Final = 3600.0

#: The protocol version this package speaks (``hello.protocol``).
PROTOCOL_VERSION: Final = 4
#: Versions this package can decode; a ``hello`` for another one is refused.
SUPPORTED_VERSIONS: Final[tuple[int, ...]] = (1, 2, 3, 4)
#: Default frame limit (body bytes, excluding the 4-byte length prefix).
DEFAULT_MAX_FRAME_SIZE: Final = 64 * 1024
#: ``table_list`` holds at most this many tables.
MAX_TABLES_LISTED: Final = 20
#: ``leaderboard_page`` holds at most this many rows.
MAX_LEADERBOARD_ROWS: Final = 100
#: ``seated.autoplayed`` holds at most this many decisions (the latest).
MAX_AUTOPLAYED: Final = 200
#: ``seated.round_penalties`` / ``watching.round_penalties`` hold at most this many
#: rounds (the first): a msgpack array may hold 1024 elements.
MAX_ROUNDS_SENT: Final = 1000

# --- shared kinds --------------------------------------------------------------
SEAT: Final = Int(0, 9)
ROW: Final = Int(0, 3)
CARD: Final = Int(1, 104)
ROUND: Final = Int(1, 10_000)
TURN: Final = Int(1, 10)
PICK: Final = Int(1, 104)
END: Final = OneOf("left", "right")
DEADLINE: Final = Float(0.0, 1e11)
REMAINING: Final = Float(0.0, 86_400.0)
TOTAL: Final = Int(0, 100_000)
PENALTY: Final = Int(0, 10_000)
NONCE: Final = Int(0, MAX_SAFE_INT)
NAME: Final = Text(1, 32)
TABLE_NAME: Final = Text(0, 40)
MESSAGE_TEXT: Final = Text(0, 500)
CHAT_TEXT: Final = Text(1, 500)
TABLE_ID: Final = Ident(r"[A-Za-z0-9_-]+", 32, "1..32 chars of A-Z a-z 0-9 _ -")
TOKEN: Final = Ident(r"[A-Za-z0-9_-]{16,128}", 128, "16..128 chars of A-Z a-z 0-9 _ -")
#: a claimed name's secret key: at least 22 URL-safe characters (>= 128 random bits)
CLAIM_KEY: Final = Ident(r"[A-Za-z0-9_-]{22,128}", 128, "22..128 chars of A-Z a-z 0-9 _ -")
CODE: Final = Ident(r"[a-z][a-z0-9_]*", 40, "1..40 chars of a-z 0-9 _, a letter first")
STRATEGY: Final = Ident(r"[a-z][a-z0-9_-]*", 32, "1..32 chars of a-z 0-9 _ -, a letter first")
SOFTWARE: Final = Text(1, 64)
SEAT_LIST: Final = IntList(0, 9, 0, 10, unique=True)
HAND: Final = IntList(1, 104, 0, 10, unique=True)
POOL: Final = IntList(1, 104, 0, 104, unique=True)
SEAT_CARD: Final = Pair(SEAT, CARD, "[seat, card]: [int 0..9, int 1..104]")
PER_SEAT_TOTALS: Final = IntList(0, 100_000, 2, 10)
PER_SEAT_PENALTIES: Final = IntList(0, 10_000, 2, 10)
#: verifiable deals (docs/PROTOCOL.md, "Verifiable deals"): 32 bytes as lowercase hex
HASH_HEX: Final = Ident(r"[0-9a-f]{64}", 64, "64 lowercase hex digits (32 bytes)")
#: a seat's contribution: 1..32 bytes as lowercase hex (the request; the reveal allows 0)
ENTROPY: Final = Ident(r"(?:[0-9a-f]{2}){1,32}", 64, "2..64 lowercase hex digits (1..32 bytes)")
#: a rating as shown: the conservative ordinal (docs/PROTOCOL.md, "Ratings"), and its change
RATING: Final = Float(-10_000.0, 10_000.0)
GAMES: Final = Int(0, MAX_SAFE_INT)
#: a rated name: a player's, or a built-in bot's level (``bot:easy``)
RATED_NAME: Final = Text(1, 40)
CONTRIBUTION: Final = Ident(r"(?:[0-9a-f]{2}){0,32}", 64,
                            "0..64 lowercase hex digits (0..32 bytes)")


def _bad(code: str, text: str, field: str | None) -> LocalProtocolError:
    return LocalProtocolError(code, text, field)


@struct
class Place(Struct):
    """Where a card may go: an end of a row."""

    row: int = F(ROW, "row, 0..3")
    end: str = F(END, '"right" (after the last card) or "left" (before the first, Professional)')


PLACE: Final = Nested(Place, "map Place {row, end}")


@struct
class TableOptions(Struct):
    """A table's options (every field may be omitted in ``create_table``: default)."""

    seats: int = F(Int(2, 10), "number of seats", default=4)
    tactic_deck: bool = F(Bool, "play with cards 1..10*seats+4 only", default=False)
    draft: bool = F(Bool, "Draft variant: hands are picked from an open pool", default=False)
    professional: bool = F(Bool, "Professional rows: cards may go before a row", default=False)
    point_limit: int | None = F(
        Optional(Int(1, 1000)), "game ends after the round a total reaches this; nil "
        "with rounds nil too is out_of_range, field options.point_limit", default=66
    )
    rounds: int | None = F(Optional(Int(1, 100)), "game ends after this many rounds",
                           default=None)
    countdown: bool = F(Bool, "display scores counting down from the limit", default=False)
    turn_time: float = F(Float(0.1, MAX_DECISION_TIME), "seconds to commit a card", default=30.0)
    choice_time: float = F(Float(0.1, MAX_DECISION_TIME), "seconds for a row or tie choice", default=20.0)
    draft_time: float = F(Float(0.1, MAX_DECISION_TIME), "seconds for a draft pick", default=15.0)
    step_delay: float = F(Float(0.0, 10.0), "pause between resolution steps", default=0.8)
    autoplay_when_away: str = F(
        OneOf("grace", "immediately"), "play for a disconnected seat at once or after grace",
        default="grace",
    )
    grace_time: float = F(Float(0.0, 3600.0), "grace before a disconnected seat is played for",
                          default=30.0)
    fallback: str = F(STRATEGY, 'the autopilot\'s strategy: a level ("easy", "normal", '
                      '"hard") or a strategy name', default="heuristic")
    time_bank: float = F(Float(0.0, 3600.0), "seconds of extra time each seat may draw on "
                         "in a game once a decision's time is up, before the autopilot "
                         "decides (0: none)", default=0.0)
    rated: bool = F(Bool, "a rated table: finished games update the ratings of claimed "
                    "players (see Ratings); only players with claimed names may sit",
                    default=False, since=2)
    coach: bool | None = F(Optional(Bool), "the coach: while a player chooses a card, their "
                           "client shows where it would go and what it would take, "
                           "computed from what that player sees (the server sends nothing "
                           "more for it); nil in a request: the server's default, on at a "
                           "table that is not rated; a rated table never has it (true there: "
                           "not_allowed, field options.coach). The server sends true or "
                           "false", default=None, since=4)

    @property
    def coached(self) -> bool:
        """Whether the table has the coach: ``coach``, or when nil, not ``rated``."""
        return self.coach if self.coach is not None else not self.rated

    def _cross(self) -> None:
        if self.point_limit is None and self.rounds is None:
            raise _bad(ErrorCode.OUT_OF_RANGE, "point_limit and rounds cannot both be nil",
                       "point_limit")


@struct
class SeatInfo(Struct):
    """An occupied seat."""

    name: str = F(NAME, "player name")
    kind: str = F(OneOf("human", "bot"), "who sits there")
    connected: bool = F(Bool, "false while the player is away (built-in bots: true)")
    total: int = F(TOTAL, "penalty total of the game so far")
    penalties: int = F(PENALTY, "penalties taken in the current round")
    strategy: str | None = F(Optional(STRATEGY), "built-in bot strategy, nil for a client",
                             default=None)
    claimed: bool = F(Bool, "the player's name is claimed with a key (see Claimed names)",
                      default=False, since=2)
    rating: float | None = F(Optional(RATING), "the rating (conservative, see Ratings) of the "
                             "claimed name, or of a built-in bot's level; nil if it has "
                             "played no rated game", default=None, since=2)
    games: int = F(GAMES, "the rated games behind ``rating`` (0 when nil)", default=0,
                   since=2)


@struct
class TableInfo(Struct):
    """A table as listed in the lobby and sent on changes."""

    table_id: str = F(TABLE_ID, "table id")
    name: str = F(TABLE_NAME, "table name (may be empty)")
    options: TableOptions = F(Nested(TableOptions, "map TableOptions"), "the options")
    seats: tuple[SeatInfo | None, ...] = F(
        ListOf(Optional(Nested(SeatInfo, "map SeatInfo")), 2, 10),
        "one entry per seat, nil for an empty seat",
    )
    host: int | None = F(Optional(SEAT), "seat of the host (may add bots, start), nil if none")
    status: str = F(OneOf("waiting", "playing", "over"), "waiting to start, playing, game over")
    spectators: int = F(Int(0, 10_000), "number of spectators")
    commitment: str | None = F(Optional(HASH_HEX), "SHA-256 of the seed the next game (while "
                               "playing: this game) is dealt from, nil if it is not dealt "
                               "verifiably (see Verifiable deals)", default=None, since=2)

    def _cross(self) -> None:
        if len(self.seats) != self.options.seats:
            raise _bad(ErrorCode.OUT_OF_RANGE, "there must be one entry per seat", "seats")


@struct
class LeaderboardRow(Struct):
    """One line of the leaderboard (``leaderboard_page``)."""

    rank: int = F(Int(1, MAX_SAFE_INT), "1 for the best rating; equal ratings share no rank "
                  "(more games first, then the name)")
    name: str = F(RATED_NAME, "the claimed name, or a built-in bot's level: bot:easy, "
                  "bot:normal, bot:hard")
    rating: float = F(RATING, "the conservative rating (mu - 3 sigma, see Ratings), "
                      "rounded to 2 decimals")
    games: int = F(GAMES, "rated games played")
    trend: float = F(RATING, "the rating's change over the name's last trend_games rated "
                     "games (since its first if it has fewer), rounded to 2 decimals")
    bot: bool = F(Bool, "a bot: a built-in bot's level, or a name whose last rated game "
                  "was played by a bot client")


@struct
class Limits(Struct):
    """The server's limits and timers (``welcome.limits``)."""

    max_frame_size: int = F(Int(1024, 16 * 1024 * 1024), "largest frame body accepted, bytes")
    hello_timeout: float = F(Float(0.1, 3600.0), "seconds allowed between connect and hello")
    ping_interval: float = F(Float(0.1, 3600.0), "the server pings an idle client this often")
    pong_timeout: float = F(Float(0.1, 3600.0), "seconds to answer a ping before being dropped")
    reconnect_grace: float = F(Float(0.0, 86_400.0), "seconds a session token stays valid "
                               "after a disconnect")
    rate_limit: int = F(Int(1, 100_000), "messages per second a client may send (burst 2x)")


@struct
class Pending(Struct):
    """The decision the table is waiting for, besides the commits."""

    kind: str = F(OneOf("row", "tie", "draft"), "row choice, tie choice or draft pick")
    seat: int = F(SEAT, "the deciding seat")
    deadline: float = F(DEADLINE, "absolute deadline (server clock, Unix seconds)")
    remaining: float = F(REMAINING, "seconds left when the snapshot was sent")
    card: int | None = F(Optional(CARD), "row/tie: the card being placed; draft: nil",
                         default=None)
    pick: int | None = F(Optional(PICK), "draft: the pick number; otherwise nil", default=None)
    rows: tuple[int, ...] = F(IntList(0, 3, 0, 4, unique=True), "row: legal rows, else []",
                              default=())
    places: tuple[Place, ...] = F(ListOf(PLACE, 0, 8), "tie: the tied places, else []",
                                  default=())



@struct
class Autoplayed(Struct):
    """A decision the autopilot made for your seat while your connection was down."""

    kind: str = F(OneOf("commit", "row", "tie", "draft"),
                  "a card played, a row taken, a tied place chosen, or a draft pick")
    round: int = F(ROUND, "round number")
    turn: int = F(Int(0, 10), "turn number; 0 for a draft pick")
    card: int = F(CARD, "commit: the card played; row, tie: your card being placed; "
                  "draft: the card picked")
    row: int | None = F(Optional(ROW), "row: the row taken; tie: the row of the place "
                        "chosen; nil otherwise", default=None)
    end: str | None = F(Optional(END), "tie: the end of the place chosen; nil otherwise",
                        default=None)

    def _cross(self) -> None:
        if (self.kind == "draft") != (self.turn == 0):
            raise _bad(ErrorCode.OUT_OF_RANGE, "a draft pick has turn 0, nothing else has",
                       "turn")
        if (self.row is None) != (self.kind in ("commit", "draft")):
            raise _bad(ErrorCode.OUT_OF_RANGE, "row and tie have a row, nothing else has",
                       "row")
        if (self.end is None) != (self.kind != "tie"):
            raise _bad(ErrorCode.OUT_OF_RANGE, "a tie has an end, nothing else has", "end")


#: per round, each seat's bullheads (``seated.round_penalties``)
ROUND_PENALTIES: Final = ListOf(PER_SEAT_PENALTIES, 0, MAX_ROUNDS_SENT)
AUTOPLAYED: Final = ListOf(Nested(Autoplayed, "map Autoplayed"), 0, MAX_AUTOPLAYED)
