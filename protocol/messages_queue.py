"""The ladder queue (protocol version 2): ask for a rated game, and be seated when
the server has formed its table (docs/PROTOCOL.md, "The ladder queue")."""

from __future__ import annotations

from typing import Final

from .base import F, Message, message
from .fields import Bool, Float, Int, Nested, OneOf, Optional
from .states import Role
from .errors import ErrorCode, LocalProtocolError
from .structs import ENTROPY, HASH_HEX, STRATEGY, TableOptions

__all__ = ["Queue", "Queued", "LeaveQueue", "QueueLeft", "MAX_FILL_AFTER"]

C: Final = Role.CLIENT
S: Final = Role.SERVER

#: ``queue.fill_after`` is at most this many seconds (an hour): longer, ask for nil.
MAX_FILL_AFTER: Final = 3600.0


@message("queue", C, since=2)
class Queue(Message):
    """Ask for a rated game: the server seats you at a table it forms (answered with queued)."""

    seats: int = F(Int(2, 10), "players at the table (options.seats is not read)", default=4)
    options: TableOptions = F(Nested(TableOptions, "map TableOptions"),
                              "the rules and timers wanted, as in create_table; those who "
                              "ask for the same seats and options play together; the table "
                              "is always rated, without the coach (options.rated and "
                              "options.coach are not read)",
                              default=TableOptions())
    fill_after: float | None = F(Optional(Float(0.0, MAX_FILL_AFTER)),
                                 "seconds after which the server forms your table with whoever "
                                 "waits and fills the other seats with built-in bots; nil: never "
                                 "(wait for players)", default=60.0)
    bot_level: str | None = F(Optional(STRATEGY), "the built-in bots that fill: a level "
                              '("easy", "normal", "hard") or a strategy name; nil: the '
                              "server's level", default=None)
    entropy: str | None = F(Optional(ENTROPY), "your contribution to the deals of the game "
                            "you are seated for, as join.entropy (see Verifiable deals)",
                            default=None)
    entropy_hash: str | None = F(Optional(HASH_HEX), "the SHA-256 of your contribution to "
                                 "the deals of the game you are seated for, as "
                                 "join.entropy_hash; not with entropy", default=None, since=3)

    def _cross(self) -> None:
        if self.entropy is not None and self.entropy_hash is not None:
            raise LocalProtocolError(ErrorCode.OUT_OF_RANGE, "send entropy (in the clear) or "
                                     "entropy_hash (revealed later), not both", "entropy_hash")


@message("queued", S, since=2)
class Queued(Message):
    """You wait in the queue: the answer to queue (re set), and again (re nil) when your
    position, waiting or server_full changed, at most once a second."""

    seats: int = F(Int(2, 10), "the seats of the game you wait for")
    position: int = F(Int(1, 1_000_000), "your place among those waiting for that game, "
                      "1: the longest waiting")
    waiting: int = F(Int(1, 1_000_000), "players waiting for that game, you included")
    fill_in: float | None = F(Optional(Float(0.0, MAX_FILL_AFTER)),
                              "seconds until your table is filled with built-in bots; nil: "
                              "never")
    server_full: bool = F(Bool, "the server has as many tables as it allows: "
                          "your table is formed when one closes", default=False)


@message("leave_queue", C, since=2)
class LeaveQueue(Message):
    """Stop waiting in the queue (answered with queue_left)."""


@message("queue_left", S, since=2)
class QueueLeft(Message):
    """You no longer wait in the queue."""

    reason: str = F(OneOf("left", "replaced"), "left (you asked), or replaced (a new queue "
                    "request took its place: queued follows)")
