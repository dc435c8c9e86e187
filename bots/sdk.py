"""Write a bot in Python: a ``decide(view)`` function and one call to play it on a server.

>>> from nimmt.bots.sdk import Phase, cheapest_row, play
>>> def decide(view):
...     if view.phase is Phase.ROW_CHOICE:
...         return cheapest_row(view.rows)      # a row to take, 0..3
...     if view.phase is Phase.TIE_CHOICE:
...         return view.legal[0]                # a decision from view.legal
...     if view.phase is Phase.DRAFT:
...         return min(view.draft_pool)         # a card to pick
...     return min(view.hand)                   # a card to commit
>>> play(decide, "localhost:6066", name="Lowest", create=True, add_bots=3)  # doctest: +SKIP
BotResult(table_id='t1', seat=0, games=1, places=[2], ...)

Try ``decide`` on a game in process first (``nimmt.engine.Game``):

>>> from nimmt.engine import Game, Options
>>> decide(Game(Options(players=3), seed=2).view(1))
5

``decide`` gets the seat's ``View`` (``nimmt.engine.View``: hand, rows, totals,
cards seen, ``legal``...; docs/BOTS.md) and returns one of ``view.legal``, or a
bare card, row or ``Place`` (``nimmt.bots.players.to_decision``). A ``Strategy``
subclass, or any object with a ``decide(view)`` method, works the same. The call
connects, takes a seat, answers every decision (in a worker thread, so the
connection stays alive while you think), resumes after a dropped connection, and
returns a ``BotResult`` when its games are over.
"""

from __future__ import annotations

import asyncio
from typing import Any

from nimmt import protocol as wire
from nimmt.client.net import parse_address
from nimmt.client.sessions import SessionStore
from nimmt.engine import (
    ChooseRow,
    ChooseTie,
    Commit,
    Decision,
    DraftPick,
    End,
    Phase,
    Place,
    Record,
    UnfairDeal,
    View,
    bullheads,
    cheapest_row,
    places_for,
    record_from_json,
    row_bullheads,
    verify_deals,
)

from .runner import BotResult, play_bot
from .session import FILL_AFTER, RECONNECT_FOR, TABLE_WAIT, LadderAsk

__all__ = [
    "play", "play_async", "BotResult",
    "View", "Phase", "Decision", "Commit", "ChooseRow", "ChooseTie", "DraftPick", "Place", "End",
    "bullheads", "row_bullheads", "places_for", "cheapest_row", "verify_game",
]


def verify_game(record: Record | str, commitment: str | None = None) -> int:
    """Check a finished game's deals (docs/PROTOCOL.md, "Verifiable deals"): ``record``
    is a ``Record`` or its JSON text (``nimmt-replay --db PATH ID --export -``);
    ``commitment``: the one you saw before the game (``round_started``), checked
    too. Returns how many deals were checked; raises ``nimmt.engine.UnfairDeal``
    naming the first thing that does not match."""
    if isinstance(record, str):
        record = record_from_json(record)
    count = verify_deals(record)
    claim = record.fair_deal
    if commitment is not None and claim is not None and claim.commitment != commitment:
        raise UnfairDeal(f"the record's commitment {claim.commitment} is not the one "
                         f"announced, {commitment}")
    return count


def _table_options(create: bool | wire.TableOptions, seats: int,
                   rounds: int | None) -> wire.TableOptions | None:
    if isinstance(create, wire.TableOptions):
        return create
    if not create:
        return None
    return _new_table_options(seats, rounds)


def _new_table_options(seats: int, rounds: int | None) -> wire.TableOptions:
    return wire.TableOptions(seats=seats, rounds=rounds, point_limit=None if rounds else 66,
                             step_delay=0.0)


async def play_async(decide: Any, address: str = "localhost", *, name: str = "python bot",
                     table: str | None = None, create: bool | wire.TableOptions = False,
                     seats: int = 4, rounds: int | None = None, add_bots: int = 0,
                     games: int = 1, bot_level: str = "hard", table_wait: float = TABLE_WAIT,
                     reconnect_for: float = RECONNECT_FOR, claim: bool = False,
                     ladder: bool = False, fill_after: float | None = FILL_AFTER) -> BotResult:
    """:func:`play` for code that already runs an asyncio loop."""
    host, port = parse_address(address)
    options = _table_options(create, seats, rounds)
    new_table = options if options is not None else _new_table_options(seats, rounds)
    key = SessionStore().key(host, port, name, create=claim or ladder)
    queue = LadderAsk(seats, new_table, fill_after, bot_level) if ladder else None
    return await play_bot(host, port, decide, name=name, join=table,
                          create=None if ladder else options, add_bots=add_bots, games=games,
                          bot_level=bot_level, new_table=new_table, table_wait=table_wait,
                          reconnect_for=reconnect_for, key=key, ladder=queue)


def play(decide: Any, address: str = "localhost", *, name: str = "python bot",
         table: str | None = None, create: bool | wire.TableOptions = False, seats: int = 4,
         rounds: int | None = None, add_bots: int = 0, games: int = 1, bot_level: str = "hard",
         table_wait: float = TABLE_WAIT, reconnect_for: float = RECONNECT_FOR,
         claim: bool = False, ladder: bool = False,
         fill_after: float | None = FILL_AFTER) -> BotResult:
    """Play ``games`` games on the server at ``address`` (``HOST[:PORT]``) with ``decide``.

    Where to sit: ``table="t3"`` joins that table; ``create=True`` creates a table
    of ``seats`` seats (ending after ``rounds`` rounds, or at 66 points), fills
    ``add_bots`` seats with the server's bots and starts it when full (pass a
    ``nimmt.protocol.TableOptions`` for every option); neither joins a waiting
    table or creates one. Added bots play at ``bot_level``. A table that has not
    started after ``table_wait`` seconds is filled with bots and started (if ours)
    or left for one of our own; a server that shut down or cannot be reached is
    tried again for ``reconnect_for`` seconds (0: stop at once). ``claim=True``
    claims ``name`` on the server with a secret key kept in the state folder
    (``nimmt.client.sessions``; a name claimed before is always sent its key): only
    claimed names play rated tables. ``ladder=True`` queues for rated games of
    ``seats`` players instead (the rules of ``create`` if it is a ``TableOptions``),
    queueing again after each game until ``games`` are played (0: until stopped);
    after ``fill_after`` seconds in the queue (None: never) the server fills the
    table with bots of ``bot_level``; it claims ``name`` as ``claim=True`` does.
    Every seat taken adds 16 random bytes of entropy to the deals (their hash first,
    the bytes once the seats are fixed: ``ClientConnection``). Raises
    ``nimmt.client.ClientError`` (one line for a person) if the server cannot be
    reached at the start.
    """
    return asyncio.run(play_async(decide, address, name=name, table=table, create=create,
                                  seats=seats, rounds=rounds, add_bots=add_bots, games=games,
                                  bot_level=bot_level, table_wait=table_wait,
                                  reconnect_for=reconnect_for, claim=claim, ladder=ladder,
                                  fill_after=fill_after))
