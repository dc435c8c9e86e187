"""Game messages: events (server to all at the table), private messages and decisions."""

from __future__ import annotations

from typing import Final

from .base import F, Message, message
from .errors import ErrorCode, LocalProtocolError
from .fields import Bool, Float, Int, IntList, ListOf, Nested, OneOf, Optional
from .states import Role
from .structs import (
    CARD,
    CONTRIBUTION,
    HASH_HEX,
    DEADLINE,
    END,
    HAND,
    PER_SEAT_PENALTIES,
    PER_SEAT_TOTALS,
    PICK,
    PLACE,
    POOL,
    REMAINING,
    ROUND,
    ROW,
    SEAT,
    SEAT_CARD,
    SEAT_LIST,
    TURN,
    Pending,
    Place,
    TableInfo,
)

__all__ = [
    "RoundStarted",
    "HandDealt",
    "DraftOpened",
    "DraftPickNeeded",
    "DraftPickRequest",
    "DraftPicked",
    "DeadlineWarning",
    "RowsDealt",
    "TurnStarted",
    "CommitAccepted",
    "SeatCommitted",
    "Revealed",
    "Placed",
    "RowTaken",
    "RowChoiceNeeded",
    "RowChoiceRequest",
    "TieChoiceNeeded",
    "TieChoiceRequest",
    "RoundScored",
    "GameOver",
    "Snapshot",
    "Commit",
    "ChooseRow",
    "ChooseTie",
    "DraftPick",
    "Pause",
    "Resume",
    "ClockPaused",
    "MAX_PAUSE",
]

C: Final = Role.CLIENT
S: Final = Role.SERVER

#: seconds a pause lasts at most: the clock then runs again by itself
MAX_PAUSE: Final = 600.0

_DL: Final = "absolute deadline, Unix seconds, server clock"
_REM: Final = "seconds left when sent (use this if your clock is skewed)"
ROWS4: Final = ListOf(IntList(1, 104, 1, 1), 4, 4)
SNAP_ROWS: Final = ListOf(IntList(1, 104, 0, 5), 0, 4)
PLACES: Final = ListOf(PLACE, 2, 8)


def _bad(text: str, field: str) -> LocalProtocolError:
    return LocalProtocolError(ErrorCode.OUT_OF_RANGE, text, field)


# --- events: every seat and every spectator of the table ------------------------


@message("round_started", S)
class RoundStarted(Message):
    """A round begins (the game begins with round 1)."""

    round: int = F(ROUND, "round number, from 1")
    commitment: str | None = F(Optional(HASH_HEX), "round 1 of a game dealt verifiably: "
                               "SHA-256 of its seed (see Verifiable deals); nil otherwise",
                               default=None, since=2)


@message("draft_opened", S)
class DraftOpened(Message):
    """Draft variant: the open pool of cards the hands are picked from."""

    round: int = F(ROUND, "round number")
    pool: tuple[int, ...] = F(POOL, "the cards to pick from, ascending")
    first_picker: int = F(SEAT, "seat that picks first; picks go on in seat order")


@message("draft_pick_needed", S)
class DraftPickNeeded(Message):
    """Draft variant: seat ``seat`` must pick now."""

    seat: int = F(SEAT, "the picking seat")
    round: int = F(ROUND, "round number")
    pick: int = F(PICK, "pick number in the round, from 1")
    deadline: float = F(DEADLINE, _DL)
    remaining: float = F(REMAINING, _REM)


@message("draft_picked", S)
class DraftPicked(Message):
    """Draft variant: a seat took a card from the pool (public)."""

    seat: int = F(SEAT, "the seat")
    card: int = F(CARD, "the card taken")


@message("rows_dealt", S)
class RowsDealt(Message):
    """The four rows of the round are laid out."""

    rows: tuple[tuple[int, ...], ...] = F(ROWS4, "4 rows of 1 card each, row 0 first")


@message("turn_started", S)
class TurnStarted(Message):
    """Every seat must commit a card for this turn before the deadline."""

    round: int = F(ROUND, "round number")
    turn: int = F(TURN, "turn number in the round, 1..10")
    deadline: float = F(DEADLINE, _DL)
    remaining: float = F(REMAINING, _REM)


@message("seat_committed", S)
class SeatCommitted(Message):
    """Seat ``seat`` has committed a card (which one stays secret); once per seat and turn."""

    seat: int = F(SEAT, "the seat")


@message("revealed", S)
class Revealed(Message):
    """All commits of the turn, face up, in the order they will be resolved."""

    plays: tuple[tuple[int, int], ...] = F(ListOf(SEAT_CARD, 1, 10),
                                           "[seat, card] pairs sorted by card")

    def _cross(self) -> None:
        cards = [c for _, c in self.plays]
        if cards != sorted(set(cards)):
            raise _bad("plays must be sorted by distinct cards", "plays")


@message("placed", S)
class Placed(Message):
    """A resolution step: the card goes to an end of a row."""

    seat: int = F(SEAT, "who played it")
    card: int = F(CARD, "the card")
    row: int = F(ROW, "the row")
    end: str = F(END, '"right", or "left" (before the first card, Professional)')


@message("row_taken", S)
class RowTaken(Message):
    """A resolution step: a seat takes a row (a placed of the card that starts it follows)."""

    seat: int = F(SEAT, "who takes it")
    row: int = F(ROW, "the row")
    cards: tuple[int, ...] = F(IntList(1, 104, 1, 5, unique=True), "the cards taken")
    bullheads: int = F(Int(1, 100), "their bullheads, added to the seat's round penalties")


@message("row_choice_needed", S)
class RowChoiceNeeded(Message):
    """Seat ``seat``'s card fits no row: they must choose a row to take."""

    seat: int = F(SEAT, "the choosing seat")
    card: int = F(CARD, "the card to place")
    deadline: float = F(DEADLINE, _DL)
    remaining: float = F(REMAINING, _REM)


@message("tie_choice_needed", S)
class TieChoiceNeeded(Message):
    """Professional rows: seat ``seat``'s card may go to several places; they choose."""

    seat: int = F(SEAT, "the choosing seat")
    card: int = F(CARD, "the card to place")
    places: tuple[Place, ...] = F(PLACES, "the tied places, in row order")
    deadline: float = F(DEADLINE, _DL)
    remaining: float = F(REMAINING, _REM)


@message("round_scored", S)
class RoundScored(Message):
    """The round is over; penalties and totals per seat (index = seat)."""

    round: int = F(ROUND, "round number")
    penalties: tuple[int, ...] = F(PER_SEAT_PENALTIES, "bullheads taken this round, per seat")
    totals: tuple[int, ...] = F(PER_SEAT_TOTALS, "game totals after this round, per seat")

    def _cross(self) -> None:
        if len(self.penalties) != len(self.totals):
            raise _bad("penalties and totals must have one entry per seat", "totals")


@message("game_over", S)
class GameOver(Message):
    """The game is over (seated clients go back to the seated state)."""

    totals: tuple[int, ...] = F(PER_SEAT_TOTALS, "final totals, per seat")
    places: tuple[int, ...] = F(IntList(1, 10, 2, 10), "final place per seat, 1 = best; "
                                "equal totals share a place")
    winners: tuple[int, ...] = F(IntList(0, 9, 1, 10, unique=True), "the seats in place 1")
    seed: str | None = F(Optional(HASH_HEX), "a game dealt verifiably: its seed, revealed "
                         "(see Verifiable deals); nil otherwise", default=None, since=2)
    contributions: tuple[str, ...] | None = F(
        Optional(ListOf(CONTRIBUTION, 2, 10)), "with seed: each seat's contribution mixed "
        "into the deals, per seat (\"\" for none)", default=None, since=2)
    withheld: tuple[int, ...] = F(SEAT_LIST, "with seed: the seats that sent an entropy_hash "
                                  "and did not reveal it in time (their contribution is \"\")",
                                  default=(), since=3)

    def _cross(self) -> None:
        if len(self.places) != len(self.totals):
            raise _bad("totals and places must have one entry per seat", "places")
        if any(s >= len(self.totals) for s in self.withheld):
            raise _bad("a seat that withheld is not a seat of the game", "withheld")
        if (self.seed is None) != (self.contributions is None):
            raise _bad("seed and contributions come together", "contributions")
        if self.contributions is not None and len(self.contributions) != len(self.totals):
            raise _bad("contributions must have one entry per seat", "contributions")
        if any(w >= len(self.totals) for w in self.winners):
            raise _bad("a winner is not a seat of the game", "winners")


# --- private: only to the seat concerned -----------------------------------------


@message("hand_dealt", S)
class HandDealt(Message):
    """Your hand for the round (in Draft: once your 10 picks are done)."""

    cards: tuple[int, ...] = F(IntList(1, 104, 1, 10, unique=True), "your cards, ascending")


@message("commit_accepted", S)
class CommitAccepted(Message):
    """Your commit (or its replacement) is registered."""

    round: int = F(ROUND, "round number")
    turn: int = F(TURN, "turn number")
    card: int = F(CARD, "the card now committed")


@message("row_choice_request", S)
class RowChoiceRequest(Message):
    """You must choose the row to take; answer with choose_row."""

    round: int = F(ROUND, "round number, echo it")
    turn: int = F(TURN, "turn number, echo it")
    card: int = F(CARD, "your card that fits no row")
    rows: tuple[int, ...] = F(IntList(0, 3, 1, 4, unique=True), "the rows you may take")
    deadline: float = F(DEADLINE, _DL)
    remaining: float = F(REMAINING, _REM)


@message("tie_choice_request", S)
class TieChoiceRequest(Message):
    """You must choose where your card goes; answer with choose_tie."""

    round: int = F(ROUND, "round number, echo it")
    turn: int = F(TURN, "turn number, echo it")
    card: int = F(CARD, "your card")
    places: tuple[Place, ...] = F(PLACES, "the places you may choose, in row order")
    deadline: float = F(DEADLINE, _DL)
    remaining: float = F(REMAINING, _REM)


@message("draft_pick_request", S)
class DraftPickRequest(Message):
    """Draft variant: your pick; answer with draft_pick."""

    round: int = F(ROUND, "round number, echo it")
    pick: int = F(PICK, "pick number, echo it")
    pool: tuple[int, ...] = F(IntList(1, 104, 1, 104, unique=True), "the cards you may pick")
    deadline: float = F(DEADLINE, _DL)
    remaining: float = F(REMAINING, _REM)


@message("deadline_warning", S)
class DeadlineWarning(Message):
    """Your decision is due soon: when ``deadline`` passes, the autopilot makes it."""

    kind: str = F(OneOf("commit", "row", "tie", "draft"),
                  "the decision awaited: a commit, a row choice, a tie choice or a draft pick")
    round: int = F(ROUND, "round number")
    turn: int = F(Int(0, 10), "turn number; 0 for a draft pick")
    pick: int = F(Int(0, 104), "draft: pick number; otherwise 0")
    deadline: float = F(DEADLINE, "the decision's deadline, as announced with it; " + _DL)
    remaining: float = F(REMAINING, _REM)

    def _cross(self) -> None:
        draft = self.kind == "draft"
        if draft and self.turn != 0:
            raise _bad("a draft pick has turn 0", "turn")
        if draft and self.pick == 0:
            raise _bad("a draft pick has a pick number from 1", "pick")
        if not draft and self.turn == 0:
            raise _bad("a commit, row or tie choice has a turn from 1", "turn")
        if not draft and self.pick != 0:
            raise _bad("pick is 0 unless kind is draft", "pick")


# --- snapshot ---------------------------------------------------------------------


@message("snapshot", S)
class Snapshot(Message):
    """The whole visible state of the table's game, for a (re)connecting client."""

    table: TableInfo = F(Nested(TableInfo, "map TableInfo"), "table id, options and seats "
                         "(names, kinds, connected, totals, round penalties)")
    seat: int | None = F(Optional(SEAT), "your seat, nil for a spectator")
    round: int = F(Int(0, 10_000), "current round, 0 before the first")
    turn: int = F(Int(0, 10), "current turn, 0 outside the turns (draft, between rounds)")
    phase: str = F(OneOf("waiting", "draft", "commit", "resolve", "scored", "over"),
                   "what the table is doing")
    hand: tuple[int, ...] = F(HAND, "your hand (spectator: [])")
    commit: int | None = F(Optional(CARD), "your current commit this turn, if any")
    rows: tuple[tuple[int, ...], ...] = F(SNAP_ROWS, "the 4 rows ([] before they are dealt); "
                                          "a row may be empty between row_taken and placed")
    deadline: float | None = F(Optional(DEADLINE), "phase commit: the turn's deadline")
    remaining: float | None = F(Optional(REMAINING), "phase commit: seconds left")
    committed: tuple[int, ...] = F(SEAT_LIST, "seats that have committed this turn")
    revealed: tuple[tuple[int, int], ...] = F(ListOf(SEAT_CARD, 0, 10),
                                              "revealed cards not yet placed, [seat, card]")
    draft_pool: tuple[int, ...] = F(POOL, "Draft: cards left in the pool, else []")
    draft_picks: tuple[tuple[int, int], ...] = F(ListOf(SEAT_CARD, 0, 104),
                                                 "Draft: picks so far this round, in order")
    pending: Pending | None = F(Optional(Nested(Pending, "map Pending")),
                                "the row/tie/draft decision awaited, if any")

    def _cross(self) -> None:
        if len(self.rows) not in (0, 4):
            raise _bad("rows must hold 0 or 4 rows", "rows")
        n = self.table.options.seats
        for field, seats in (("committed", self.committed),
                             ("revealed", [s for s, _ in self.revealed]),
                             ("draft_picks", [s for s, _ in self.draft_picks])):
            if any(s >= n for s in seats):
                raise _bad("a seat is not a seat of the table", field)
        if self.seat is not None and self.seat >= n:
            raise _bad("not a seat of the table", "seat")


# --- decisions: client to server ---------------------------------------------------


@message("commit", C)
class Commit(Message):
    """Commit (or replace) your card for the turn; refused once the cards are revealed."""

    round: int = F(ROUND, "turn_started.round")
    turn: int = F(TURN, "turn_started.turn")
    card: int = F(CARD, "a card of your hand")


@message("choose_row", C)
class ChooseRow(Message):
    """Answer to row_choice_request."""

    round: int = F(ROUND, "row_choice_request.round")
    turn: int = F(TURN, "row_choice_request.turn")
    row: int = F(ROW, "one of row_choice_request.rows")


@message("choose_tie", C)
class ChooseTie(Message):
    """Answer to tie_choice_request."""

    round: int = F(ROUND, "tie_choice_request.round")
    turn: int = F(TURN, "tie_choice_request.turn")
    place: Place = F(PLACE, "one of tie_choice_request.places")


@message("draft_pick", C)
class DraftPick(Message):
    """Answer to draft_pick_request."""

    round: int = F(ROUND, "draft_pick_request.round")
    pick: int = F(PICK, "draft_pick_request.pick")
    card: int = F(CARD, "one of draft_pick_request.pool")



# --- the clock of a solo game: paused while its player reads ------------------------


@message("pause", C)
class Pause(Message):
    """Stop your table's clock (the decision's deadline, the time bank) while you read
    the help: only when you are the only player a client plays at the table (every
    other seat a built-in bot), else refused with not_allowed. Answered with
    clock_paused; the pause ends with resume, when you disconnect or after MAX_PAUSE
    (600) seconds."""


@message("resume", C)
class Resume(Message):
    """Start the clock you paused again; the deadline moves by the time it was stopped
    (answered with clock_paused, paused false)."""


@message("clock_paused", S)
class ClockPaused(Message):
    """To everyone at the table: its clock stopped (``paused``) or runs again; the
    decision awaited has the deadline given here (nil: none is awaited)."""

    paused: bool = F(Bool, "true: stopped; false: running again")
    ends_in: float = F(Float(0.0, MAX_PAUSE), "paused: seconds until it runs again by itself; "
                       "else 0")
    deadline: float | None = F(Optional(DEADLINE), "the decision's deadline, moved by the "
                               "pause; " + _DL)
    remaining: float | None = F(Optional(REMAINING), "seconds left of it (while paused: "
                                "what is left when the clock runs again)")
