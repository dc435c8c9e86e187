"""One valid, realistic instance of every message type (``EXAMPLES[tag]``).

Used by the test suite (a message type without an example fails it), by the
benchmark and by the generated parts of ``docs/PROTOCOL.md``.  Server
messages carry ``seq`` (as received by a client) and ``re`` only where they
answer a request (nil ``re`` is left out of the wire, as the server does:
docs/PROTOCOL.md, "Conventions"); client messages carry no ``id`` unless shown.
"""

from __future__ import annotations

from typing import Final

from .base import Message
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
from .messages_queue import LeaveQueue, Queue, Queued, QueueLeft
from .messages_reveal import Reveal, RevealAccepted, RevealRequest
from .structs import (
    PROTOCOL_VERSION,
    LeaderboardRow,
    Limits,
    Pending,
    Place,
    SeatInfo,
    TableInfo,
    TableOptions,
)

__all__ = ["EXAMPLES", "SERVER", "TABLE", "OPTIONS", "LIMITS", "SNAPSHOT", "TOKEN", "DEADLINE"]

#: what the reference server sends (tests/test_protocol_settled.py checks these)
SERVER: Final = "nimmt-server 0.1.0"
TOKEN: Final = "q3F8xk2LmZ0vYb7TnW4sJd9Rk_Pa1Hc-"  # 32 characters, like the server's
DEADLINE: Final = 1767225630.0  # 2026-01-01T00:00:30Z
OPTIONS: Final = TableOptions(seats=4, point_limit=66, turn_time=30.0)
LIMITS: Final = Limits(
    max_frame_size=65536,
    hello_timeout=5.0,
    ping_interval=15.0,
    pong_timeout=30.0,
    reconnect_grace=120.0,
    rate_limit=20,
)
#: the worked example of docs/PROTOCOL.md, "Verifiable deals": a seed and its SHA-256
SEED: Final = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
COMMITMENT: Final = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
#: SHA-256 of the entropy 5eed5eed (join.entropy_hash, then reveal)
ENTROPY_HASH: Final = "dc22e6ed20cedb33c99467aea8ebf804147c07952e124db30898b3cf5b784a71"
TABLE: Final = TableInfo(
    table_id="kqzd7",
    name="Friday night",
    options=OPTIONS,
    seats=(
        SeatInfo(name="Alice", kind="human", connected=True, total=12, penalties=3,
                 claimed=True, rating=14.27, games=31),
        SeatInfo(name="Bot 1", kind="bot", connected=True, total=20, penalties=0,
                 strategy="heuristic"),
        SeatInfo(name="Bob", kind="human", connected=False, total=7, penalties=5),
        SeatInfo(name="deepnimmt", kind="bot", connected=True, total=9, penalties=1),
    ),
    host=0,
    status="playing",
    spectators=1,
    commitment=COMMITMENT,
)
SNAPSHOT: Final = Snapshot(
    table=TABLE,
    seat=0,
    round=2,
    turn=4,
    phase="resolve",
    hand=(8, 33, 47, 61, 90, 101),
    commit=None,
    rows=((30, 36), (3,), (43, 44, 52), (58, 61, 68, 93)),
    deadline=None,
    remaining=None,
    committed=(0, 1, 2, 3),
    revealed=((2, 17), (0, 70)),
    draft_pool=(),
    draft_picks=(),
    pending=Pending(kind="row", seat=3, deadline=DEADLINE, remaining=19.5, card=2,
                    rows=(0, 1, 2, 3)),
    seq=1,
)

_LIST: Final[tuple[Message, ...]] = (
    # handshake and always
    Hello(protocol=PROTOCOL_VERSION, name="Alice", kind="human", software="nimmt-tui 0.1"),
    Welcome(protocol=PROTOCOL_VERSION, server=SERVER, name="Alice", token=TOKEN,
            resumed=False, limits=LIMITS, seq=1),
    Error(code="illegal_card", message="card 5 is not in seat 0's hand", request="commit",
          field="card", seq=9, re=12),
    Goodbye(reason="quit", message="see you"),
    Ping(nonce=77, seq=5),
    Pong(nonce=77),
    Chat(text="gg"),
    ChatMessage(name="Alice", seat=0, text="gg", seq=30),
    # lobby
    ListTables(id=1),
    TableList(tables=(TABLE,), seq=2, re=1),
    TableUpdated(table=TABLE, seq=4),
    TableClosed(table_id="kqzd3", seq=6),
    CreateTable(options=TableOptions(seats=3, professional=True, point_limit=None, rounds=3),
                name="pros", id=2),
    Join(table_id="kqzd7", seat=2, entropy_hash=ENTROPY_HASH, id=3),
    Watch(table_id="kqzd7"),
    Leave(),
    AddBot(strategy="heuristic", seat=1),
    RemoveBot(seat=1),
    Start(id=4),
    Seated(table=TABLE, seat=0, seq=3, re=3),
    Watching(table=TABLE, seq=3),
    Left(table_id="kqzd7", reason="left", seq=40),
    # ratings (version 2)
    Leaderboard(limit=3, name="Alice", id=8),
    LeaderboardPage(rows=(
        LeaderboardRow(rank=4, name="deepnimmt", rating=15.02, games=112, trend=0.85, bot=True),
        LeaderboardRow(rank=5, name="Alice", rating=14.27, games=31, trend=-1.1, bot=False),
        LeaderboardRow(rank=6, name="bot:hard", rating=13.9, games=240, trend=0.12, bot=True),
    ), offset=3, total=17, trend_games=5, found=5, seq=41, re=8),
    # the ladder queue
    Queue(seats=4, options=TableOptions(professional=True), fill_after=30.0, bot_level="easy",
          entropy_hash=ENTROPY_HASH, id=9),
    Queued(seats=4, position=2, waiting=3, fill_in=30.0, seq=42, re=9),
    LeaveQueue(id=10),
    QueueLeft(reason="left", seq=43, re=10),
    # commit, then reveal
    RevealRequest(commitment=COMMITMENT, deadline=DEADLINE - 20.0, remaining=10.0, seq=44),
    Reveal(entropy="5eed5eed", id=11),
    RevealAccepted(seq=45, re=11),
    # game events
    RoundStarted(round=1, commitment=COMMITMENT, seq=10),
    DraftOpened(round=1, pool=tuple(range(1, 45)), first_picker=1, seq=11),
    DraftPickNeeded(seat=1, round=1, pick=1, deadline=DEADLINE, remaining=15.0, seq=12),
    DraftPicked(seat=1, card=44, seq=13),
    RowsDealt(rows=((12,), (37,), (43,), (58,)), seq=14),
    TurnStarted(round=1, turn=1, deadline=DEADLINE, remaining=30.0, seq=15),
    SeatCommitted(seat=2, seq=16),
    Revealed(plays=((0, 14), (1, 15), (2, 44), (3, 61)), seq=17),
    Placed(seat=0, card=14, row=0, end="right", seq=18),
    RowTaken(seat=2, row=0, cards=(12, 14, 15, 21, 26), bullheads=6, seq=19),
    RowChoiceNeeded(seat=3, card=3, deadline=DEADLINE, remaining=20.0, seq=20),
    TieChoiceNeeded(seat=1, card=40, places=(Place(row=0, end="right"), Place(row=2, end="left")),
                    deadline=DEADLINE, remaining=20.0, seq=21),
    RoundScored(round=1, penalties=(6, 0, 1, 3), totals=(6, 0, 1, 3), seq=22),
    GameOver(totals=(70, 41, 38, 52), places=(4, 2, 1, 3), winners=(2,), seed=SEED,
             contributions=("", "", "5eed5eed", ""), seq=23),
    SNAPSHOT,
    # private
    HandDealt(cards=(3, 14, 21, 36, 44, 58, 61, 68, 90, 93), seq=24),
    CommitAccepted(round=1, turn=1, card=14, seq=25, re=5),
    RowChoiceRequest(round=1, turn=3, card=3, rows=(0, 1, 2, 3), deadline=DEADLINE,
                     remaining=20.0, seq=26),
    TieChoiceRequest(round=1, turn=5, card=40,
                     places=(Place(row=0, end="right"), Place(row=2, end="left")),
                     deadline=DEADLINE, remaining=20.0, seq=27),
    DraftPickRequest(round=1, pick=2, pool=(1, 2, 3, 5, 8, 13, 21, 34), deadline=DEADLINE,
                     remaining=15.0, seq=28),
    DeadlineWarning(kind="commit", round=1, turn=1, pick=0, deadline=DEADLINE, remaining=5.0,
                    seq=29),
    # decisions
    Commit(round=1, turn=1, card=14, id=5),
    ChooseRow(round=1, turn=3, row=1),
    ChooseTie(round=1, turn=5, place=Place(row=2, end="left")),
    DraftPick(round=1, pick=2, card=34),
    # the clock of a solo game
    Pause(id=6),
    ClockPaused(paused=True, ends_in=600.0, deadline=DEADLINE + 12.5, remaining=17.5, re=6,
                seq=30),
    Resume(id=7),
)

#: tag -> example message.
EXAMPLES: Final[dict[str, Message]] = {m.TYPE: m for m in _LIST}
