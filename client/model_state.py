"""The state under :class:`~nimmt.client.model.TableModel`: what it holds, how it
is reset between tables, rounds and turns, and the helpers its message handlers
share (the log, deadlines, names, scores, the autopilot notice).

Three classes build the model, each in its own module and each on the one
before: ``TableState`` (here), ``GameMessages`` (:mod:`.model_game`, the game's
messages) and ``TableModel`` (:mod:`.model`, the session and the lobby, and what
a screen asks of it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final

from nimmt import protocol as P
from nimmt.protocol import TableInfo, TableOptions

from .decisions import Decision, Pending
from .evening import Evening
from .leaderboard import Leaderboard
from .round_analysis import AnalysedRound, turning_point_line
from .round_record import RoundTrail
from .records import GameResult, LogLine, Notice, RoundResult, Step
from .words import Words

__all__ = ["TableState", "PHASES", "IN_GAME", "MAX_LOG", "DEFAULT_LIMIT", "UNTIMED",
           "table_label"]

PHASES: Final = ("lobby", "waiting", "draft", "deal", "commit", "resolve", "scored", "over")
IN_GAME: Final = frozenset({"draft", "deal", "commit", "resolve", "scored"})
MAX_LOG: Final = 500
DEFAULT_LIMIT: Final = 66
#: The longest time the protocol lets a table give a decision (an hour): a table that
#: gives it is shown as untimed (no clock), as ``nimmt-client --solo`` is by default.
UNTIMED: Final = P.MAX_DECISION_TIME


class TableState:
    """The client's picture of the server, as data; see :class:`~nimmt.client.model.TableModel`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.my_name: str | None = None
        self.token: str | None = None
        self.server: str | None = None
        self.limits: P.Limits | None = None
        self.online = True
        self.resyncing = False
        self.tables: list[TableInfo] = []
        self.leaderboard = Leaderboard()
        self.log: list[LogLine] = []
        self.last_error: P.Error | None = None
        self.goodbye: P.Goodbye | None = None
        self.notices: list[Notice] = []
        self.lost_at: float | None = None
        self.claimed = False  # our name is claimed with our key (welcome.claimed)
        #: where we stand in the ladder queue (the last ``queued``), and since when
        self.queued: P.Queued | None = None
        self.queued_at = 0.0
        self._answered: set[tuple[str, int, int, int]] = set()
        self._said: list[str] = []
        # a score sheet and ranking kept by an earlier run (client.keep): (table, ...)
        self._kept: tuple[str, list[RoundResult], GameResult | None] | None = None
        #: the table where an earlier run had a seat (client.keep), as the log names it
        self.kept_seat_at: str | None = None
        #: the link is down because the server stopped (goodbye ``server_shutdown``)
        self.server_stopped = False
        #: the totals when the link dropped (the ``seated`` of a resume changes them)
        self.totals_at_drop: list[int] | None = None
        # a resume puts us back at a table: its first words ("Reconnected", "Welcome
        # back"), then the line that says where, said once the snapshot says when
        self._back: str | None = None
        self._back_line: str | None = None
        #: what the autopilot did for our seat while we were away, as a resume's
        #: ``seated`` says (protocol 4): said once the snapshot says where the game is
        self._autoplayed_back: list[P.Autoplayed] = []
        self.version = 0
        #: rounds of ours just scored, for the screen to analyse: (round, record)
        self.to_analyse: list[tuple[int, dict[str, Any]]] = []
        #: rounds of ours just scored that cannot be analysed: (round, why)
        self.not_to_analyse: list[tuple[int, str]] = []
        #: counts the games (and tables): an analysis of an earlier one is not kept
        self.game_serial = 0
        #: tonight's standings at this table, game after game (:mod:`.evening`)
        self.evening = Evening()
        self._leave_table()

    # ------------------------------------------------------------------ state
    def _leave_table(self) -> None:
        self.table: TableInfo | None = None
        self.seat: int | None = None
        self.watching = False
        self.phase = "lobby"
        self.result: GameResult | None = None
        self.last_round: RoundResult | None = None
        self.scores: list[RoundResult] = []  # every round scored this game, in order
        # the server stopped this table's clock (``pause``): since when, on our clock
        self.paused_since: float | None = None
        self.totals: list[int] = []
        self.penalties: list[int] = []
        #: each seat's time bank left, as seen from here (the server tells a seat only
        #: its own, when it draws on it): what it used past its deadlines is taken off
        self.banks: list[float] = []
        self._forget_analyses()
        self._reset_game()

    def _forget_analyses(self) -> None:
        """A new game (or table): its rounds are analysed afresh."""
        #: your rounds of this game and their analysis (issue 45), by round number
        self.analysed: dict[int, AnalysedRound] = {}
        self.game_serial += 1

    def _reset_game(self) -> None:
        self.round = 0
        self.turn = 0
        self._reset_round()

    def _reset_round(self) -> None:
        self.hand: list[int] = []
        self.rows: list[list[int]] = []
        self.draft_pool: list[int] = []
        self.draft_picks: list[tuple[int, int]] = []
        self.draft_first: int | None = None
        #: every card seen on the table this round (the rows dealt, the cards revealed)
        self.seen: set[int] = set()
        #: the round as a record, for its turning point (issue 45)
        self.trail = RoundTrail()
        self._reset_turn()

    def _reset_turn(self) -> None:
        self.my_commit: int | None = None
        self.committed: set[int] = set()
        self.revealed: list[tuple[int, int]] = []
        self.unresolved: list[tuple[int, int]] = []
        self.turn_deadline: float | None = None
        self.pending: Pending | None = None
        self.warning: P.DeadlineWarning | None = None
        self.extra_time = False  # your decision's time is up: its clock is your time bank
        self.step: Step | None = None
        self.lost_deadline = False  # the link dropped while the clock ran: time unknown

    def _set_table(self, table: TableInfo) -> None:
        if len(self.banks) != len(table.seats):
            self.table = table
            self._fill_banks()
        self.table = table
        self.totals = [s.total if s else 0 for s in table.seats]
        self.penalties = [s.penalties if s else 0 for s in table.seats]

    def _scores_from(self, rounds: tuple[tuple[int, ...], ...]) -> None:
        """The score sheet as the server keeps it (``seated``/``watching``
        ``round_penalties``, protocol 4): each round's bullheads, the totals summed."""
        if not rounds:
            return
        totals = [0] * len(rounds[0])
        self.scores = []
        for number, penalties in enumerate(rounds, 1):
            totals = [t + p for t, p in zip(totals, penalties, strict=False)]
            self.scores.append(RoundResult(number, tuple(penalties), tuple(totals)))
        self.last_round = self.scores[-1]

    def recall(self, table_id: str, scores: list[RoundResult],
               result: GameResult | None) -> None:
        """A score sheet and ranking an earlier run kept for table ``table_id``: shown
        again if this session is back at that table, in the same game."""
        self._kept = (table_id, scores, result)

    def _bring_back(self) -> None:
        self._bring_back_kept()
        t = self.table
        if self.phase == "over" and self.result is None and t is not None \
                and t.status == "over" and any(self.totals):
            # a finished game found again (a new run, a server restarted): the server
            # sends no game_over then, but its seats carry the final totals
            totals = tuple(self.totals)
            places = tuple(1 + sum(other < mine for other in totals) for mine in totals)
            self.result = GameResult(totals, places,
                                     tuple(s for s, p in enumerate(places) if p == 1))

    def _bring_back_kept(self) -> None:
        kept = self._kept
        if kept is None or self.table is None or kept[0] != self.table.table_id:
            return
        self._kept = None
        table_id, scores, result = kept
        if scores and not self.scores and list(scores[-1].totals) == self.totals:
            self.scores = list(scores)  # the same game: its totals are the sheet's
            self.last_round = scores[-1]
        if result is not None and self.result is None and self.phase == "over" \
                and list(result.totals) == self.totals:
            self.result = result
            self.scores = list(scores)

    def _fill_banks(self) -> None:
        """Every seat's whole time bank (a new game, or a table we just came to)."""
        bank = self.options.time_bank if self.options is not None else 0.0
        self.banks = [bank] * (len(self.table.seats) if self.table is not None else 0)

    def _used_bank(self, seat: int, deadline: float | None) -> None:
        """``seat`` decided now: what it took past ``deadline`` came from its bank."""
        if deadline is None or not 0 <= seat < len(self.banks):
            return
        now = self.paused_since if self.paused_since is not None else self.clock()
        if seat == self.seat and self.extra_time:  # ``deadline`` is our later one
            self.banks[seat] = max(0.0, deadline - now)
        elif now > deadline:
            self.banks[seat] = max(0.0, self.banks[seat] - (now - deadline))

    def analysis_started(self, round_number: int) -> int:
        """The screen analyses round ``round_number`` of yours: the game it belongs to,
        to give back with the answer."""
        self.analysed[round_number] = AnalysedRound(round_number)
        self.evening.analysing(self.game_serial, round_number)
        self.version += 1
        return self.game_serial

    def analysis_done(self, game: int, round_number: int, analysis: dict[str, Any]) -> None:
        """The round's analysis (the command's whole JSON): its turning point in the
        log, the analysis kept for the score sheet and the analysis screen (unless a
        new game began meanwhile)."""
        self._analysed(game, AnalysedRound(round_number, analysis),
                       turning_point_line(round_number, analysis))

    def analysis_failed(self, game: int, round_number: int, why: str) -> None:
        line = f"Round {round_number}'s analysis failed: {why}"
        self._analysed(game, AnalysedRound(round_number, why=line), line)

    def not_analysed(self, game: int, round_number: int, why: str) -> None:
        """Round ``round_number`` of yours is not analysed: the log says ``why``."""
        line = f"Round {round_number} is not analysed: {why}."
        self._analysed(game, AnalysedRound(round_number, why=line), line)

    def _analysed(self, game: int, entry: AnalysedRound, line: str) -> None:
        self.evening.analysed(game, entry.round, entry.analysis)  # (tonight's too)
        if game == self.game_serial:
            self.analysed[entry.round] = entry
        self.note(line, "info")

    def note(self, text: str, kind: str = "info") -> None:
        """A line for the log from outside the messages (a round's turning point)."""
        self._say(text, kind)
        self.version += 1

    def _say(self, text: str, kind: str = "event") -> None:
        self.log.append(LogLine(text, kind))
        if len(self.log) > MAX_LOG:
            del self.log[: len(self.log) - MAX_LOG]

    def _deadline(self, remaining: float | None) -> float | None:
        """A deadline ``remaining`` s away on our clock (paused: from the pause on, as
        the countdown stands still there)."""
        if remaining is None:
            return None
        base = self.paused_since if self.paused_since is not None else self.clock()
        return base + remaining

    @property
    def words(self) -> Words:
        return Words(self.name_of, self.seat)

    @property
    def options(self) -> TableOptions | None:
        return self.table.options if self.table is not None else None

    def name_of(self, seat: int) -> str:
        """The name at ``seat`` ("seat N" for an empty or unknown seat, N from 1)."""
        if self.table is not None and 0 <= seat < len(self.table.seats):
            info = self.table.seats[seat]
            if info is not None:
                return info.name
        return f"seat {seat + 1}"

    @property
    def untimed(self) -> bool:
        """Whether the table gives every decision the longest time there is (no clock)."""
        opts = self.options
        return opts is not None and min(opts.turn_time, opts.choice_time,
                                        opts.draft_time) >= UNTIMED

    def could_come(self) -> frozenset[int]:
        """The cards another player may still play this round, as far as we can tell:
        with Draft the cards the others picked, else every card of the deck in play;
        less our hand and the cards seen on the table this round."""
        opts = self.options
        if opts is not None and opts.draft:
            pool = {c for s, c in self.draft_picks if s != self.seat}
        else:
            seats = len(self.table.seats) if self.table is not None else 0
            top = 10 * seats + 4 if opts is not None and opts.tactic_deck else 104
            pool = set(range(1, top + 1))
        return frozenset(pool - set(self.hand) - self.seen)

    @property
    def point_limit(self) -> int:
        opts = self.options
        return opts.point_limit if opts is not None and opts.point_limit else DEFAULT_LIMIT

    def display_total(self, seat: int) -> int:
        """The score to show for ``seat``: its total, or with ``options.countdown``
        the points it has left (point limit, 66 by default, minus its total)."""
        total = self.totals[seat] if seat < len(self.totals) else 0
        opts = self.options
        if opts is not None and opts.countdown:
            return self.point_limit - total
        return total

    def answered(self, d: Decision) -> None:
        """The screen sent an answer to ``d``: a later autopilot notice is not for it."""
        self._answered.add((d.kind, d.round, d.turn, d.pick))

    def _autopilot(self, kind: str, what: str) -> None:
        p = self.pending
        if p is None or not p.mine or not p.requested or p.kind != kind:
            return
        if (p.kind, p.round, p.turn, p.pick) in self._answered:
            return
        text = f"Time ran out: the autopilot {what} for you."
        self._say(text, "warn")
        self.notices.append(Notice(text, "error"))


def table_label(t: TableInfo) -> str:
    return f"{t.table_id} “{t.name}”" if t.name else t.table_id
