"""What the screen remembers besides the game: cursors, open panels, the form, status."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Final

from nimmt import protocol as P
from nimmt.protocol import TableOptions

from ..model_state import UNTIMED
from ..words import BOT_LEVELS, DEFAULT_BOT_LEVEL
from .analysis_view import AnalysisView
from .history import HistoryView
from .ladder import LadderView

__all__ = ["Status", "FormField", "CreateForm", "UiState", "FORM_FIELDS", "POOL_COLUMNS"]

#: Cards per line of the draft pool until the screen lays it out (↑/↓ move by a line).
POOL_COLUMNS: Final = 8


@dataclass(frozen=True, slots=True)
class Status:
    """The status line: ``kind`` is ``info``, ``ok`` or ``error``; shown until ``until``."""

    text: str
    kind: str = "info"
    until: float | None = None


@dataclass(frozen=True, slots=True)
class FormField:
    key: str
    label: str
    choices: tuple[object, ...]
    help: str


_OFF: Final = None
FORM_FIELDS: Final[tuple[FormField, ...]] = (
    FormField("seats", "Seats", tuple(range(2, 11)),
              "players at the table, bots included; friends join the empty seats"),
    FormField("fill", "Fill with bots at start", (True, False),
              "when you start (s), bots take the seats nobody took"),
    FormField("bot_level", "Bots' level", BOT_LEVELS,
              "easy: the card least likely to take a row now; normal: thinks ahead "
              "30 ms a card; hard: 100 ms a card"),
    FormField("rated", "Rated", (False, True),
              "finished games change the players' ratings (the leaderboard: R); only "
              "claimed names may sit (nimmt-client --claim), and built-in bots"),
    FormField("coach", "Coach", (True, False),
              "while players choose, the line under their hand says where the card would "
              "go and what it would take (p hides it for oneself); never at a rated table"),
    FormField("tactic_deck", "Tactic deck", (False, True), "only cards 1 to 10 × seats + 4"),
    FormField("draft", "Draft", (False, True), "pick your hand from an open pool"),
    FormField("professional", "Professional rows", (False, True),
              "cards may also go before a row's first card"),
    FormField("point_limit", "Point limit", (_OFF, 11, 22, 33, 44, 55, 66, 77, 88, 99, 110),
              "the game ends after the round someone reaches it"),
    FormField("rounds", "Rounds", (_OFF, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20),
              "or: the game ends after this many rounds"),
    FormField("countdown", "Countdown scores", (False, True),
              "show points left (limit minus bullheads)"),
    FormField("turn_time", "Turn time (s)",
              (10.0, 15.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, UNTIMED),
              "seconds to choose a card (a row: 20 s); then the autopilot decides; "
              "untimed: no clock"),
    FormField("time_bank", "Time bank (s)", (0.0, 30.0, 60.0, 120.0, 300.0),
              "extra time each player has for the whole game, used when a decision's "
              "time is up, before the autopilot decides"),
    FormField("step_delay", "Step delay (s)", (0.0, 0.3, 0.5, 0.8, 1.2, 2.0),
              "pause between the placing steps"),
    FormField("autoplay_when_away", "When a player is away", ("grace", "immediately"),
              "play for them after a grace time, or at once"),
    FormField("fill_after", "Queue: bots after (s)",
              (0.0, 10.0, 30.0, 60.0, 120.0, 300.0, _OFF),
              "Q queues for a rated game with these seats and rules instead: the server "
              "seats you with the players who asked the same; after this long, bots take "
              "the seats left (off: wait for players)"),
)


@dataclass(slots=True)
class CreateForm:
    """The "new table" form: one value per :data:`FORM_FIELDS` entry."""

    values: dict[str, Any] = field(default_factory=lambda: {
        "seats": 4, "fill": True, "bot_level": DEFAULT_BOT_LEVEL, "rated": False,
        "coach": True,
        "tactic_deck": False,
        "draft": False, "professional": False, "point_limit": 66, "rounds": None,
        "countdown": False, "turn_time": 30.0, "time_bank": 60.0, "step_delay": 0.8,
        "autoplay_when_away": "grace", "fill_after": 30.0})
    cursor: int = 0
    #: opened by Q: the seats and rules of a queue game, which is always rated
    for_queue: bool = False

    def change(self, delta: int) -> None:
        f = FORM_FIELDS[self.cursor]
        if self.for_queue and f.key == "rated":
            return  # (the server reads no options.rated from a queue: it is rated)
        if f.key == "coach" and self.coach_fixed:
            return
        choices = f.choices
        cur = self.values[f.key]
        i = choices.index(cur) if cur in choices else 0
        self.values[f.key] = choices[(i + delta) % len(choices)]
        if self.values["point_limit"] is None and self.values["rounds"] is None:
            other = "rounds" if f.key == "point_limit" else "point_limit"
            self.values[other] = 66 if other == "point_limit" else 5

    def move(self, delta: int) -> None:
        self.cursor = (self.cursor + delta) % len(FORM_FIELDS)

    @property
    def coach_fixed(self) -> bool:
        """The coach is off and cannot be turned on: a rated table or a queue game."""
        return self.for_queue or bool(self.values["rated"])

    def options(self) -> TableOptions:
        v = self.values
        options = TableOptions(
            seats=int(v["seats"]),
            rated=bool(v["rated"]),
            # (a rated table with coach true is refused: the form never asks for it)
            coach=bool(v["coach"]) and not self.coach_fixed,
            tactic_deck=bool(v["tactic_deck"]), draft=bool(v["draft"]),
            professional=bool(v["professional"]),
            point_limit=v["point_limit"],
            rounds=v["rounds"],
            countdown=bool(v["countdown"]),
            turn_time=float(v["turn_time"]),
            time_bank=float(v["time_bank"]),
            step_delay=float(v["step_delay"]),
            autoplay_when_away=str(v["autoplay_when_away"]),
        )
        if options.turn_time >= UNTIMED:  # an untimed table times no decision
            return replace(options, choice_time=UNTIMED, draft_time=UNTIMED)
        return options

    def queue_request(self) -> P.Queue:
        """The ``queue`` for a rated game of these seats and rules (Q in the form)."""
        v = self.values
        return P.Queue(seats=int(v["seats"]), options=self.options(),
                       fill_after=v["fill_after"], bot_level=str(v["bot_level"]))

    @property
    def fill_level(self) -> str | None:
        """The level of the bots that fill the empty seats at the start (None: no filling)."""
        return str(self.values["bot_level"]) if self.values["fill"] else None


@dataclass(slots=True)
class UiState:
    """Cursors and panels. Cursors are indexes into what is shown (clamped on render)."""

    card_cursor: int = 0  # in the hand
    pick_cursor: int = 0  # in the draft pool
    tie_cursor: int = 0  # in the offered places
    row_cursor: int = 0  # row highlighted for a row choice (wire row)
    table_cursor: int = 0  # in the lobby's table list
    chat_open: bool = False
    help_open: bool = False
    help_scroll: int = 0  # first help line shown
    sheet_open: bool = False  # the score sheet
    sheet_auto: bool = False  # opened by the end of a round: closes at the next one
    sheet_page: int = 0  # the sheet's page: 0 the game's rounds, 1 tonight (Tab)
    sheet_scroll: int = 0  # first line shown of the tonight page
    form: CreateForm | None = None
    status: Status | None = None
    armed: str | None = None  # "quit" or "leave": pressed once, press again to confirm
    armed_until: float = 0.0
    log_back: int = 0  # lines scrolled back from the end of the log
    history: HistoryView | None = None  # the lobby's history screen (H), when open
    ladder: LadderView | None = None  # the lobby's leaderboard screen (R), when open
    analysis: AnalysisView | None = None  # the analysis of your rounds (A), when open
    pool_columns: int = POOL_COLUMNS  # draft pool cards per line, as last laid out
    #: p: the line under your hand saying where the card under the cursor would go
    #: (where the table's host turned the coach on: options.coached)
    preview: bool = True
