"""nimmt.engine: the rules of 6 nimmt! as a pure, deterministic state machine.

No I/O, no clock; randomness comes only from the ``random.Random`` (or seed)
you pass in. Start with ``Game``; bots that simulate many turns use
``nimmt.engine.fast``.

>>> from nimmt.engine import Game, Options, Commit
>>> game = Game(Options(players=4), seed=1)
>>> view = game.view(0)
>>> len(view.hand), len(view.rows)
(10, 4)
"""

from .cards import BULLHEADS, FULL_DECK, bullheads, deck_for, row_bullheads
from .errors import (
    CardNotInHand,
    IllegalDecision,
    IllegalPlace,
    IllegalRow,
    InvalidDeal,
    InvalidOptions,
    InvalidPosition,
    NimmtError,
    NotYourDecision,
    StaleTurn,
    WrongPhase,
)
from .events import (
    CardPlaced,
    CardsRevealed,
    CommitAccepted,
    DraftOpened,
    DraftPicked,
    Event,
    GameOver,
    GameResult,
    HandDealt,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    SeatCommitted,
    TieChoiceNeeded,
    TurnStarted,
    events_for,
)
from .game import Game
from .moves import ChooseRow, ChooseTie, Commit, Deal, Decision, DraftPick, End, Place
from .options import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, ROW_LIMIT, ROWS, Options
from .pending import (
    AwaitingCommits,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
    Pending,
    Phase,
)
from .fair_deal import FairDeal, UnfairDeal, commitment_of, deal_round, entropy_hash
from .records import (
    Choice,
    FairDealClaim,
    InvalidRecord,
    Record,
    RecordContradiction,
    RecordError,
    Replay,
    ResultClaim,
    RoundRecord,
    RowChoice,
    Start as RecordStart,
    Step,
    TieChoice,
    TurnRecord,
    record_from_bytes,
    record_from_game,
    record_from_json,
    replay,
    verify_deals,
)
from .position import Position
from .rules import cheapest_row, first_place, places_for
from .view import View

__all__ = [
    "BULLHEADS", "FULL_DECK", "bullheads", "deck_for", "row_bullheads",
    "NimmtError", "InvalidOptions", "InvalidDeal", "InvalidPosition", "IllegalDecision",
    "WrongPhase", "NotYourDecision", "CardNotInHand", "IllegalRow", "IllegalPlace", "StaleTurn",
    "Event", "RoundStarted", "HandDealt", "DraftOpened", "DraftPicked", "RowsDealt", "TurnStarted",
    "CommitAccepted", "SeatCommitted", "CardsRevealed", "RowTaken", "CardPlaced",
    "RowChoiceNeeded", "TieChoiceNeeded", "RoundScored", "GameOver", "GameResult", "events_for",
    "Game",
    "End", "Place", "Commit", "ChooseRow", "ChooseTie", "DraftPick", "Decision", "Deal",
    "Options", "MIN_PLAYERS", "MAX_PLAYERS", "ROWS", "ROW_LIMIT", "HAND_SIZE",
    "Phase", "Pending", "AwaitingDeal", "AwaitingCommits", "AwaitingRowChoice",
    "AwaitingTieChoice", "AwaitingDraftPick",
    "places_for", "cheapest_row", "first_place",
    "View",
    "Position",
    "Record", "RoundRecord", "TurnRecord", "RowChoice", "TieChoice", "Choice", "RecordStart",
    "ResultClaim", "RecordError", "InvalidRecord", "RecordContradiction", "record_from_game",
    "record_from_bytes", "record_from_json", "replay", "Replay", "Step",
    "FairDeal", "UnfairDeal", "commitment_of", "deal_round", "entropy_hash", "FairDealClaim",
    "verify_deals",
]
