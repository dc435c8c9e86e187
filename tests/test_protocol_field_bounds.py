"""Every bounded field of every message, at its bounds and one past them.

The bounds below are stated by hand from docs/PROTOCOL.md (the value notation under
"Values", the prose under it and the message catalogue), never read from the code's
field objects, so that a bound changed in protocol/ fails here: a claim key taken at
16 characters, a join's entropy taken empty (issue 43, second planted-bug sample).

For each bound: the message is built (``LocalProtocolError`` past the bound) and a
frame's map is decoded (``RemoteProtocolError`` ``out_of_range`` naming the field
past the bound), at the lower and the upper bound and one past each. Only the
field under test moves; the rest of each message is a valid one.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from typing import Any

import pytest

from nimmt import protocol as P
from nimmt.protocol import LocalProtocolError, RemoteProtocolError
from nimmt.protocol.base import decode_message

MAX_INT = 2**53 - 1  # "int 0..2^53−1": the largest integer a double holds exactly
HEX32 = "ab" * 32  # "64 lowercase hex digits (32 bytes)"


# -- how a kind of the doc's "Values" table is bounded --------------------------------

class Bound:
    """What a field takes at its bounds, and the values one past them."""

    def __init__(self, at: list[Any], past: list[Any], decoded_refused: str = "out_of_range"
                 ) -> None:
        self.at = at
        self.past = past
        self.decoded_refused = decoded_refused  # the peer's error code past a bound


def ints(lo: int, hi: int, nil: bool = False) -> Bound:
    return Bound([lo, hi] + [None] * nil, [lo - 1, hi + 1])


def one_of_ints(*values: int) -> Bound:
    return Bound(list(values), [min(values) - 1, max(values) + 1])


def floats(lo: float, hi: float, nil: bool = False) -> Bound:
    """``float a..b``: the next double outside each end is refused, NaN too."""
    past = [math.nextafter(float(lo), -math.inf), math.nextafter(float(hi), math.inf),
            math.nan, math.inf]
    return Bound([float(lo), float(hi)] + [None] * nil, past)


def text(lo: int, hi: int, nil: bool = False) -> Bound:
    """``str, a..b printable chars``: when a >= 1, not only spaces; when a = 0, a blank
    one is text like any other."""
    at = ["n" * lo, "n" * hi, "é" * hi] + [None] * nil
    past = ["n" * (hi + 1), "n\x00"[: max(lo, 2)]]
    if lo:
        past += ["n" * (lo - 1), " " * lo]
    else:
        at.append(" ")
    return Bound(at, past)


def chars(alphabet_sample: str, outsider: str, lo: int, hi: int, nil: bool = False,
          letter_first: bool = False) -> Bound:
    """``str, a..b chars of …``: a fixed alphabet, a..b of them."""
    c = alphabet_sample
    at = [c * lo, c * hi] + [None] * nil
    past = [c * (hi + 1), outsider + c * max(lo - 1, 0)]
    if lo:
        past.append(c * (lo - 1))
    if letter_first:
        past += ["_" + c * max(lo - 1, 0), "1" + c * max(lo - 1, 0)]
    return Bound(at, past)


def token(lo: int, hi: int, nil: bool = False) -> Bound:
    """``chars of A-Z a-z 0-9 _ -``"""
    b = chars("k", "!", lo, hi, nil)
    b.at += ["A-_9" * (lo // 4) + "z" * (lo % 4)]
    b.past += ["k" * (lo - 1) + "="]
    return b


def code(lo: int, hi: int, nil: bool = False) -> Bound:
    """``chars of a-z 0-9 _, a letter first``"""
    b = chars("e", "E", lo, hi, nil, letter_first=True)
    b.at.append("e9_" + "x" * max(hi - 3, 0))
    b.past.append("e-")
    return b


def name_id(lo: int, hi: int, nil: bool = False) -> Bound:
    """``chars of a-z 0-9 _ -, a letter first`` (strategies, levels)"""
    b = chars("h", "H", lo, hi, nil, letter_first=True)
    b.at.append("h9_-")
    b.past.append("h.")
    return b


def hexes(lo_bytes: int, hi_bytes: int, nil: bool = False) -> Bound:
    """``a..b lowercase hex digits (n..m bytes)``: whole bytes only."""
    at = ["0f" * lo_bytes, "ab" * hi_bytes] + [None] * nil
    past = ["ab" * (hi_bytes + 1), "AB" * max(lo_bytes, 1), "ab" * max(lo_bytes, 1) + "a",
            "xy" * max(lo_bytes, 1)]
    if lo_bytes:
        past.append("ab" * (lo_bytes - 1))
    return Bound(at, past)


def one_of(*values: str, nil: bool = False) -> Bound:
    return Bound(list(values) + [None] * nil,
                 ["", values[0].upper(), values[0] + " ", "nope"])


def array(lo: int, hi: int, item: Callable[[int], Any], nil: bool = False,
          past_items: Callable[[int], Any] | None = None) -> Bound:
    """``array of a..b (…)``: ``item(i)`` is the i-th element of a valid array."""
    more = past_items or item
    at = [[item(i) for i in range(lo)], [item(i) for i in range(hi)]] + [None] * nil
    past = [[more(i) for i in range(hi + 1)]]
    if lo:
        past.append([item(i) for i in range(lo - 1)])
    return Bound(at, past)


def seat(i: int) -> int:
    return i % 10


def card(i: int) -> int:
    return i % 104 + 1


# -- a valid message of each type ------------------------------------------------------

LIMITS = {"max_frame_size": 65536, "hello_timeout": 5.0, "ping_interval": 10.0,
          "pong_timeout": 10.0, "reconnect_grace": 120.0, "rate_limit": 50}
SEAT_INFO = {"name": "Ann", "kind": "human", "connected": True, "total": 0, "penalties": 0,
             "strategy": None, "claimed": False, "rating": None, "games": 0}


def table_info(seats: int = 2) -> dict[str, Any]:
    return {"table_id": "t1", "name": "", "options": {"seats": seats},
            "seats": [dict(SEAT_INFO) for _ in range(seats)], "host": 0,
            "status": "waiting", "spectators": 0, "commitment": None}


ROW = {"rank": 1, "name": "Ann", "rating": 0.0, "games": 0, "trend": 0.0, "bot": False}
AUTOPLAYED = {"kind": "commit", "round": 1, "turn": 1, "card": 1, "row": None, "end": None}
PENDING = {"kind": "row", "seat": 0, "deadline": 0.0, "remaining": 0.0, "card": 5,
           "pick": None, "rows": [0], "places": []}
PLACE = {"row": 0, "end": "right"}
TIMED = {"deadline": 1e9, "remaining": 10.0}

CLIENT_MESSAGES: dict[str, dict[str, Any]] = {
    "hello": {"protocol": 4, "name": "Ann", "kind": "human"},
    "ping": {"nonce": 0},
    "pong": {"nonce": 0},
    "chat": {"text": "hi"},
    "create_table": {"options": {}, "name": ""},
    "join": {"table_id": "t1"},
    "watch": {"table_id": "t1"},
    "add_bot": {},
    "remove_bot": {"seat": 1},
    "leaderboard": {},
    "queue": {"options": {}},
    "reveal": {"entropy": "ab"},
    "commit": {"round": 1, "turn": 1, "card": 1},
    "choose_row": {"round": 1, "turn": 1, "row": 0},
    "choose_tie": {"round": 1, "turn": 1, "place": dict(PLACE)},
    "draft_pick": {"round": 1, "pick": 1, "card": 1},
}

SERVER_MESSAGES: dict[str, dict[str, Any]] = {
    "welcome": {"protocol": 4, "server": "nimmt", "name": "Ann", "token": "t" * 16,
                "resumed": False, "limits": dict(LIMITS), "claimed": False},
    "error": {"code": "out_of_range", "message": "", "request": None, "field": None,
              "supported": None},
    "goodbye": {"reason": "quit", "message": "", "kept": None},
    "ping": {"nonce": 0},
    "pong": {"nonce": 0},
    "chat_message": {"name": "Ann", "seat": None, "text": "hi"},
    "table_list": {"tables": []},
    "table_updated": {"table": table_info()},
    "table_closed": {"table_id": "t1"},
    "seated": {"table": table_info(), "seat": 0, "round_penalties": [], "autoplayed": []},
    "watching": {"table": table_info(), "round_penalties": []},
    "left": {"table_id": "t1", "reason": "left"},
    "leaderboard_page": {"rows": [], "offset": 0, "total": 0, "trend_games": 20, "found": None},
    "queued": {"seats": 4, "position": 1, "waiting": 1, "fill_in": None, "server_full": False},
    "queue_left": {"reason": "left"},
    "reveal_request": {"commitment": HEX32, **TIMED},
    "round_started": {"round": 1, "commitment": None},
    "draft_opened": {"round": 1, "pool": [1, 2], "first_picker": 0},
    "draft_pick_needed": {"seat": 0, "round": 1, "pick": 1, **TIMED},
    "draft_picked": {"seat": 0, "card": 1},
    "rows_dealt": {"rows": [[1], [2], [3], [4]]},
    "turn_started": {"round": 1, "turn": 1, **TIMED},
    "seat_committed": {"seat": 0},
    "revealed": {"plays": [[0, 1]]},
    "placed": {"seat": 0, "card": 1, "row": 0, "end": "right"},
    "row_taken": {"seat": 0, "row": 0, "cards": [1], "bullheads": 1},
    "row_choice_needed": {"seat": 0, "card": 1, **TIMED},
    "tie_choice_needed": {"seat": 0, "card": 1, "places": [dict(PLACE), {"row": 1, "end": "right"}],
                          **TIMED},
    "round_scored": {"round": 1, "penalties": [0, 0], "totals": [0, 0]},
    "game_over": {"totals": list(range(10)), "places": list(range(1, 11)), "winners": [0],
                  "seed": None,
                  "contributions": None, "withheld": []},
    "snapshot": {"table": table_info(10), "seat": None, "round": 0, "turn": 0, "phase": "waiting",
                 "hand": [], "commit": None, "rows": [], "deadline": None, "remaining": None,
                 "committed": [], "revealed": [], "draft_pool": [], "draft_picks": [],
                 "pending": None},
    "hand_dealt": {"cards": [1]},
    "commit_accepted": {"round": 1, "turn": 1, "card": 1},
    "row_choice_request": {"round": 1, "turn": 1, "card": 1, "rows": [0], **TIMED},
    "tie_choice_request": {"round": 1, "turn": 1, "card": 1,
                           "places": [dict(PLACE), {"row": 1, "end": "right"}], **TIMED},
    "draft_pick_request": {"round": 1, "pick": 1, "pool": [1], **TIMED},
    "deadline_warning": {"kind": "commit", "round": 1, "turn": 1, "pick": 0, **TIMED},
    "clock_paused": {"paused": False, "ends_in": 0.0, "deadline": None, "remaining": None},
}

ROUND = ints(1, 10000)
TURN = ints(1, 10)
CARD = ints(1, 104)
SEAT = ints(0, 9)
DEADLINE = floats(0, 1e11)
REMAINING = floats(0, 86400)
TABLE_ID = token(1, 32)
PLACES = array(2, 8, lambda i: {"row": i % 4, "end": "right"})

# (sender, type, field path, bound). A path reaches into nested maps and arrays:
# "table.seats[0].name". Written from the catalogue of docs/PROTOCOL.md.
C, S = P.Role.CLIENT, P.Role.SERVER
FIELDS: list[tuple[P.Role, str, str, Bound]] = [
    # handshake
    # a version not spoken is answered unsupported_version (listing those spoken)
    (C, "hello", "protocol", Bound([1, 4], [0, 5], decoded_refused="unsupported_version")),
    (C, "hello", "name", text(1, 32)),
    (C, "hello", "kind", one_of("human", "bot", "spectator")),
    (C, "hello", "token", token(16, 128, nil=True)),
    (C, "hello", "software", text(1, 64, nil=True)),
    (C, "hello", "key", token(22, 128, nil=True)),
    (S, "welcome", "protocol", one_of_ints(1, 2, 3, 4)),
    (S, "welcome", "server", text(1, 64)),
    (S, "welcome", "name", text(1, 32)),
    (S, "welcome", "token", token(16, 128)),
    (S, "welcome", "limits.max_frame_size", ints(1024, 16777216)),
    (S, "welcome", "limits.hello_timeout", floats(0.1, 3600)),
    (S, "welcome", "limits.ping_interval", floats(0.1, 3600)),
    (S, "welcome", "limits.pong_timeout", floats(0.1, 3600)),
    (S, "welcome", "limits.reconnect_grace", floats(0, 86400)),
    (S, "welcome", "limits.rate_limit", ints(1, 100000)),
    # always
    (S, "error", "code", code(1, 40)),
    (S, "error", "message", text(0, 500)),
    (S, "error", "field", text(1, 100, nil=True)),
    # "a message type" is checked for its shape (1..40 of a-z _, a letter first), not
    # against the catalogue
    (S, "error", "request", Bound(["hello", "x", "no_such_type", "t" * 40, None],
                                  ["", "t" * 41, "Hello", "h1", "_h", "h-"])),
    (S, "error", "supported", array(1, 16, lambda i: i % 1000 + 1, nil=True)),
    (S, "error", "supported[0]", ints(1, 1000)),
    (S, "goodbye", "reason", code(1, 40)),
    (S, "goodbye", "message", text(0, 500)),
    (C, "ping", "nonce", ints(0, MAX_INT)),
    (C, "pong", "nonce", ints(0, MAX_INT)),
    (S, "ping", "nonce", ints(0, MAX_INT)),
    (S, "pong", "nonce", ints(0, MAX_INT)),
    (C, "chat", "text", text(1, 500)),
    (S, "chat_message", "name", text(1, 32)),
    (S, "chat_message", "seat", ints(0, 9, nil=True)),
    (S, "chat_message", "text", text(1, 500)),
    # lobby and tables
    (S, "table_list", "tables", array(0, 20, lambda i: table_info())),
    (S, "table_closed", "table_id", TABLE_ID),
    (C, "create_table", "name", text(0, 40)),
    (C, "join", "table_id", TABLE_ID),
    (C, "join", "seat", ints(0, 9, nil=True)),
    (C, "join", "entropy", hexes(1, 32, nil=True)),
    (C, "join", "entropy_hash", hexes(32, 32, nil=True)),
    (C, "watch", "table_id", TABLE_ID),
    (C, "add_bot", "strategy", name_id(1, 32)),
    (C, "add_bot", "seat", ints(0, 9, nil=True)),
    (C, "add_bot", "name", text(1, 32, nil=True)),
    (C, "remove_bot", "seat", SEAT),
    (S, "seated", "seat", SEAT),
    (S, "seated", "round_penalties", array(0, 1000, lambda i: [0, 0])),
    (S, "seated", "round_penalties[0][1]", ints(0, 10000)),
    (S, "watching", "round_penalties", array(0, 1000, lambda i: [0, 0])),
    (S, "seated", "autoplayed", array(0, 200, lambda i: dict(AUTOPLAYED))),
    (S, "left", "table_id", TABLE_ID),
    (S, "left", "reason", code(1, 40)),
    # ratings
    (C, "leaderboard", "limit", ints(1, 100)),
    (C, "leaderboard", "offset", ints(0, MAX_INT)),
    (C, "leaderboard", "name", text(1, 40, nil=True)),
    (S, "leaderboard_page", "rows", array(0, 100, lambda i: dict(ROW, rank=i + 1))),
    (S, "leaderboard_page", "offset", ints(0, MAX_INT)),
    (S, "leaderboard_page", "total", ints(0, MAX_INT)),
    (S, "leaderboard_page", "trend_games", ints(1, 1000)),
    (S, "leaderboard_page", "found", ints(1, MAX_INT, nil=True)),
    # the ladder queue
    (C, "queue", "seats", ints(2, 10)),
    (C, "queue", "fill_after", floats(0, 3600, nil=True)),
    (C, "queue", "bot_level", name_id(1, 32, nil=True)),
    (C, "queue", "entropy", hexes(1, 32, nil=True)),
    (C, "queue", "entropy_hash", hexes(32, 32, nil=True)),
    (S, "queued", "seats", ints(2, 10)),
    (S, "queued", "position", ints(1, 1000000)),
    (S, "queued", "waiting", ints(1, 1000000)),
    (S, "queued", "fill_in", floats(0, 3600, nil=True)),
    (S, "queue_left", "reason", one_of("left", "replaced")),
    # commit, then reveal
    (S, "reveal_request", "commitment", hexes(32, 32)),
    (S, "reveal_request", "deadline", DEADLINE),
    (S, "reveal_request", "remaining", REMAINING),
    (C, "reveal", "entropy", hexes(1, 32)),
    # game events
    (S, "round_started", "round", ROUND),
    (S, "round_started", "commitment", hexes(32, 32, nil=True)),
    (S, "draft_opened", "round", ROUND),
    (S, "draft_opened", "pool", array(0, 104, card)),
    (S, "draft_opened", "first_picker", SEAT),
    (S, "draft_pick_needed", "seat", SEAT),
    (S, "draft_pick_needed", "round", ROUND),
    (S, "draft_pick_needed", "pick", ints(1, 104)),
    (S, "draft_pick_needed", "deadline", DEADLINE),
    (S, "draft_pick_needed", "remaining", REMAINING),
    (S, "draft_picked", "seat", SEAT),
    (S, "draft_picked", "card", CARD),
    (S, "rows_dealt", "rows", Bound([[[1], [2], [3], [4]]],
                                    [[[1], [2], [3]], [[1], [2], [3], [4], [5]]])),
    (S, "rows_dealt", "rows[0]", Bound([[1]], [[], [1, 5]])),
    (S, "rows_dealt", "rows[0][0]", CARD),
    (S, "turn_started", "round", ROUND),
    (S, "turn_started", "turn", TURN),
    (S, "turn_started", "deadline", DEADLINE),
    (S, "turn_started", "remaining", REMAINING),
    (S, "seat_committed", "seat", SEAT),
    (S, "revealed", "plays", array(1, 10, lambda i: [seat(i), card(i)])),
    (S, "revealed", "plays[0]", Bound([[0, 1], [9, 104]], [[0], [0, 1, 2]])),
    (S, "revealed", "plays[0][0]", SEAT),
    (S, "revealed", "plays[0][1]", CARD),
    (S, "placed", "seat", SEAT),
    (S, "placed", "card", CARD),
    (S, "placed", "row", ints(0, 3)),
    (S, "placed", "end", one_of("left", "right")),
    (S, "row_taken", "seat", SEAT),
    (S, "row_taken", "row", ints(0, 3)),
    (S, "row_taken", "cards", array(1, 5, card)),
    (S, "row_taken", "bullheads", ints(1, 100)),
    (S, "row_choice_needed", "seat", SEAT),
    (S, "row_choice_needed", "card", CARD),
    (S, "row_choice_needed", "deadline", DEADLINE),
    (S, "row_choice_needed", "remaining", REMAINING),
    (S, "tie_choice_needed", "seat", SEAT),
    (S, "tie_choice_needed", "card", CARD),
    (S, "tie_choice_needed", "places", PLACES),
    (S, "tie_choice_needed", "deadline", DEADLINE),
    (S, "tie_choice_needed", "remaining", REMAINING),
    (S, "round_scored", "round", ROUND),
    (S, "round_scored", "penalties[0]", ints(0, 10000)),
    (S, "round_scored", "totals[0]", ints(0, 100000)),
    (S, "game_over", "totals[0]", ints(0, 100000)),
    (S, "game_over", "places[1]", ints(1, 10)),
    (S, "game_over", "winners[0]", SEAT),
    (S, "game_over", "seed", hexes(32, 32)),
    (S, "game_over", "contributions[3]", hexes(0, 32)),
    (S, "game_over", "withheld", array(0, 10, seat)),
    (S, "snapshot", "seat", ints(0, 9, nil=True)),
    (S, "snapshot", "round", ints(0, 10000)),
    (S, "snapshot", "turn", ints(0, 10)),
    (S, "snapshot", "phase", one_of("waiting", "draft", "commit", "resolve", "scored", "over")),
    (S, "snapshot", "hand", array(0, 10, card)),
    (S, "snapshot", "commit", ints(1, 104, nil=True)),
    (S, "snapshot", "rows", array(0, 4, lambda i: [card(i)])),
    (S, "snapshot", "deadline", floats(0, 1e11, nil=True)),
    (S, "snapshot", "remaining", floats(0, 86400, nil=True)),
    (S, "snapshot", "committed", array(0, 10, seat)),
    (S, "snapshot", "revealed", array(0, 10, lambda i: [seat(i), card(i)])),
    (S, "snapshot", "draft_pool", array(0, 104, card)),
    (S, "snapshot", "draft_picks", array(0, 104, lambda i: [seat(i), card(i)])),
    # private game messages
    (S, "hand_dealt", "cards", array(1, 10, card)),
    (S, "commit_accepted", "round", ROUND),
    (S, "commit_accepted", "turn", TURN),
    (S, "commit_accepted", "card", CARD),
    (S, "row_choice_request", "round", ROUND),
    (S, "row_choice_request", "turn", TURN),
    (S, "row_choice_request", "card", CARD),
    (S, "row_choice_request", "rows", array(1, 4, lambda i: i, past_items=lambda i: i % 4)),
    (S, "row_choice_request", "rows[0]", ints(0, 3)),
    (S, "row_choice_request", "deadline", DEADLINE),
    (S, "row_choice_request", "remaining", REMAINING),
    (S, "tie_choice_request", "round", ROUND),
    (S, "tie_choice_request", "turn", TURN),
    (S, "tie_choice_request", "card", CARD),
    (S, "tie_choice_request", "places", PLACES),
    (S, "tie_choice_request", "deadline", DEADLINE),
    (S, "tie_choice_request", "remaining", REMAINING),
    (S, "draft_pick_request", "round", ROUND),
    (S, "draft_pick_request", "pick", ints(1, 104)),
    (S, "draft_pick_request", "pool", array(1, 104, card)),
    (S, "draft_pick_request", "deadline", DEADLINE),
    (S, "draft_pick_request", "remaining", REMAINING),
    (S, "deadline_warning", "kind", one_of("commit", "row", "tie")),
    (S, "deadline_warning", "round", ROUND),
    (S, "deadline_warning", "pick", ints(1, 104)),
    (S, "deadline_warning", "turn", TURN),
    (S, "deadline_warning", "deadline", DEADLINE),
    (S, "deadline_warning", "remaining", REMAINING),
    # decisions
    (C, "commit", "round", ROUND),
    (C, "commit", "turn", TURN),
    (C, "commit", "card", CARD),
    (C, "choose_row", "round", ROUND),
    (C, "choose_row", "turn", TURN),
    (C, "choose_row", "row", ints(0, 3)),
    (C, "choose_tie", "round", ROUND),
    (C, "choose_tie", "turn", TURN),
    (C, "choose_tie", "place.row", ints(0, 3)),
    (C, "choose_tie", "place.end", one_of("left", "right")),
    (C, "draft_pick", "round", ROUND),
    (C, "draft_pick", "pick", ints(1, 104)),
    (C, "draft_pick", "card", CARD),
    # the clock of a solo game
    (S, "clock_paused", "ends_in", floats(0, 600)),
    (S, "clock_paused", "deadline", floats(0, 1e11, nil=True)),
    (S, "clock_paused", "remaining", floats(0, 86400, nil=True)),
    # nested maps: TableOptions (in create_table and queue)
    (C, "create_table", "options.seats", ints(2, 10)),
    (C, "create_table", "options.point_limit", ints(1, 1000)),
    (C, "create_table", "options.rounds", ints(1, 100, nil=True)),
    (C, "create_table", "options.turn_time", floats(0.1, 3600)),
    (C, "create_table", "options.choice_time", floats(0.1, 3600)),
    (C, "create_table", "options.draft_time", floats(0.1, 3600)),
    (C, "create_table", "options.step_delay", floats(0, 10)),
    (C, "create_table", "options.autoplay_when_away", one_of("grace", "immediately")),
    (C, "create_table", "options.grace_time", floats(0, 3600)),
    (C, "create_table", "options.fallback", name_id(1, 32)),
    (C, "create_table", "options.time_bank", floats(0, 3600)),
    (C, "queue", "options.turn_time", floats(0.1, 3600)),
    # SeatInfo, TableInfo (in table_updated)
    (S, "table_updated", "table.table_id", TABLE_ID),
    (S, "table_updated", "table.name", text(0, 40)),
    (S, "table_updated", "table.host", ints(0, 9, nil=True)),
    (S, "table_updated", "table.status", one_of("waiting", "playing", "over")),
    (S, "table_updated", "table.spectators", ints(0, 10000)),
    (S, "table_updated", "table.commitment", hexes(32, 32, nil=True)),
    (S, "table_updated", "table.seats[0].name", text(1, 32)),
    (S, "table_updated", "table.seats[0].kind", one_of("human", "bot")),
    (S, "table_updated", "table.seats[0].total", ints(0, 100000)),
    (S, "table_updated", "table.seats[0].penalties", ints(0, 10000)),
    (S, "table_updated", "table.seats[0].strategy", name_id(1, 32, nil=True)),
    (S, "table_updated", "table.seats[0].rating", floats(-10000, 10000, nil=True)),
    (S, "table_updated", "table.seats[0].games", ints(0, MAX_INT)),
    # LeaderboardRow (in leaderboard_page)
    (S, "leaderboard_page", "rows[0].rank", ints(1, MAX_INT)),
    (S, "leaderboard_page", "rows[0].name", text(1, 40)),
    (S, "leaderboard_page", "rows[0].rating", floats(-10000, 10000)),
    (S, "leaderboard_page", "rows[0].games", ints(0, MAX_INT)),
    (S, "leaderboard_page", "rows[0].trend", floats(-10000, 10000)),
    # Pending (in snapshot)
    (S, "snapshot", "pending.seat", SEAT),
    (S, "snapshot", "pending.deadline", DEADLINE),
    (S, "snapshot", "pending.remaining", REMAINING),
    (S, "snapshot", "pending.card", CARD),
    (S, "snapshot", "pending.kind", Bound(["row"], one_of("row").past)),
    (S, "snapshot", "pending.pick", ints(1, 104)),
    # Autoplayed (in seated)
    (S, "seated", "autoplayed[0].kind", Bound(["commit"], one_of("commit").past)),
    (S, "seated", "autoplayed[0].round", ROUND),
    (S, "seated", "autoplayed[0].card", CARD),
    (S, "seated", "autoplayed[0].row", ints(0, 3)),
    (S, "seated", "autoplayed[0].end", one_of("left", "right")),
]

# Fields whose valid base differs from the message's usual one.
BASES: dict[tuple[str, str], dict[str, Any]] = {
    ("error", "supported[0]"): {"code": "unsupported_version", "supported": [1]},
    ("round_scored", "penalties[0]"): {},
    ("snapshot", "pending.seat"): {"pending": dict(PENDING)},
    ("snapshot", "pending.deadline"): {"pending": dict(PENDING)},
    ("snapshot", "pending.remaining"): {"pending": dict(PENDING)},
    ("snapshot", "pending.card"): {"pending": dict(PENDING)},
    ("seated", "autoplayed[0].kind"): {"autoplayed": [dict(AUTOPLAYED)]},
    ("seated", "autoplayed[0].round"): {"autoplayed": [dict(AUTOPLAYED)]},
    ("seated", "autoplayed[0].card"): {"autoplayed": [dict(AUTOPLAYED)]},
    ("seated", "autoplayed[0].row"): {"autoplayed": [dict(AUTOPLAYED, kind="row", row=0)]},
    ("seated", "autoplayed[0].end"): {"autoplayed": [dict(AUTOPLAYED, kind="tie", row=0,
                                                          end="left")]},
    ("game_over", "seed"): {"seed": HEX32, "contributions": [""] * 10},
    ("leaderboard_page", "rows[0].rank"): {"rows": [dict(ROW)]},
    ("leaderboard_page", "rows[0].name"): {"rows": [dict(ROW)]},
    ("leaderboard_page", "rows[0].rating"): {"rows": [dict(ROW)]},
    ("leaderboard_page", "rows[0].games"): {"rows": [dict(ROW)]},
    ("leaderboard_page", "rows[0].trend"): {"rows": [dict(ROW)]},
    ("create_table", "options.point_limit"): {"options": {"rounds": 5}},
    ("queued", "position"): {"waiting": 1000000},
    ("seated", "round_penalties[0][1]"): {"round_penalties": [[0, 0]]},
    ("game_over", "contributions[3]"): {"seed": HEX32, "contributions": [""] * 10},
    ("deadline_warning", "pick"): {"kind": "draft", "turn": 0},
    ("snapshot", "pending.kind"): {"pending": dict(PENDING)},
    ("snapshot", "pending.pick"): {"pending": dict(PENDING, kind="draft", card=None, rows=[])},
}


_STEP = re.compile(r"\.?([a-z_]+)|\[(\d+)\]")


def with_value(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``base`` with the field at ``path`` set to ``value`` (a deep copy)."""
    msg = copy.deepcopy(base)
    steps = [name if name else int(index) for name, index in _STEP.findall(path)]
    here: Any = msg
    for step in steps[:-1]:
        here = here[step]
    here[steps[-1]] = value
    return msg


def base_of(sender: P.Role, mtype: str, path: str) -> dict[str, Any]:
    messages = CLIENT_MESSAGES if sender is C else SERVER_MESSAGES
    return {**copy.deepcopy(messages[mtype]), **copy.deepcopy(BASES.get((mtype, path), {}))}


def envelope(sender: P.Role) -> dict[str, int]:
    return {"id": 7} if sender is C else {"seq": 1}


def build(sender: P.Role, mtype: str, fields: dict[str, Any]) -> P.Message:
    return P.REGISTRY[mtype](**envelope(sender), **copy.deepcopy(fields))


def decode(sender: P.Role, mtype: str, fields: dict[str, Any]) -> P.Message:
    return decode_message({"type": mtype, **envelope(sender), **copy.deepcopy(fields)}, sender)


def case_id(value: Any) -> str:
    r = repr(value)
    return r if len(r) <= 30 else f"{r[:20]}...len{len(value) if hasattr(value, '__len__') else ''}"


AT = [pytest.param(s, t, f, v, id=f"{s.name.lower()}-{t}.{f}={case_id(v)}")
      for s, t, f, b in FIELDS for v in b.at]
PAST = [pytest.param(s, t, f, v, id=f"{s.name.lower()}-{t}.{f}={case_id(v)}")
        for s, t, f, b in FIELDS for v in b.past]


@pytest.mark.parametrize(("sender", "mtype", "path", "value"), AT)
def test_a_value_at_a_bound_is_built_and_decoded(sender: P.Role, mtype: str, path: str,
                                                 value: Any) -> None:
    fields = with_value(base_of(sender, mtype, path), path, value)
    built = build(sender, mtype, fields)
    decoded = decode(sender, mtype, fields)
    assert decoded == built


@pytest.mark.parametrize(("sender", "mtype", "path", "value"), PAST)
def test_a_value_one_past_a_bound_is_refused_built_and_decoded(
        sender: P.Role, mtype: str, path: str, value: Any) -> None:
    fields = with_value(base_of(sender, mtype, path), path, value)
    with pytest.raises(LocalProtocolError) as local:
        build(sender, mtype, fields)
    assert local.value.code == "out_of_range"
    assert local.value.field == path
    with pytest.raises(RemoteProtocolError) as remote:
        decode(sender, mtype, fields)
    assert remote.value.code == next(b.decoded_refused for s, t, f, b in FIELDS
                                     if (s, t, f) == (sender, mtype, path))
    assert remote.value.field == path
    assert remote.value.request == mtype
