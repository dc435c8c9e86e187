"""nimmt.engine.records: the game record, a language-neutral JSON file of one game
(the project's PGN), and its replay.

A record holds the options, the seats, each round's explicit deal (or draft
picks), every final commit, every row and tie choice and, optionally, the
outcome it claims (rows after a turn, a round's bullheads, the result). It may
start from a hand-made position and may stop part-way. ``docs/RECORD.md``
documents the format field by field.

``replay(record)`` re-runs a record through the engine and checks it: a record
that contradicts the rules raises ``RecordContradiction`` naming the round,
turn and seat. Rows are numbered 0..3 in a record, as everywhere in the code.

The modules import one way: ``format`` (the dataclasses, errors and JSON
writing) imports none of its siblings; ``parse`` (reading), ``build`` (from a
played game), ``replay`` and ``narrate`` (words and JSON lines) import it.

>>> from nimmt.engine import Game, Options
>>> game = Game(Options(players=2, rounds=1), seed=5)
>>> while not game.is_over:
...     seat = min(game.pending.seats)
...     _ = game.apply(game.legal_decisions(seat)[0])
>>> record = record_from_game(game, seats=["Ann", "Bob"])
>>> text = record.to_json()
>>> record_from_json(text) == record
True
>>> replay(record_from_json(text)).run().game.result == game.result
True
"""

from .build import record_from_game
from .format import (
    FORMAT,
    VERSION,
    Choice,
    FairDealClaim,
    InvalidRecord,
    Record,
    RecordContradiction,
    RecordError,
    ResultClaim,
    RoundRecord,
    RowChoice,
    Start,
    TableFacts,
    TieChoice,
    TurnRecord,
)
from .narrate import (
    Narrator,
    event_to_json,
    position_set_json,
    record_stopped_json,
    step_lines,
    table_line,
)
from .parse import load_json, record_from_bytes, record_from_dict, record_from_json
from .replay import Replay, Step, describe_pending, replay
from .rows import follow_rows, freeze_rows
from .verify import claim_for, verify_deals

__all__ = [
    "FORMAT", "VERSION",
    "RecordError", "InvalidRecord", "RecordContradiction",
    "Record", "RoundRecord", "TurnRecord", "RowChoice", "TieChoice", "Choice", "Start",
    "ResultClaim", "FairDealClaim", "TableFacts", "verify_deals", "claim_for",
    "record_from_json", "record_from_bytes", "record_from_dict", "load_json",
    "record_from_game",
    "replay", "Replay", "Step", "describe_pending",
    "follow_rows", "freeze_rows",
    "Narrator", "step_lines", "table_line",
    "event_to_json", "position_set_json", "record_stopped_json",
]
