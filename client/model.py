"""Everything a screen (or a bot) needs to know, rebuilt from protocol messages.

:class:`TableModel` is pure: no I/O, no asyncio. Feed it every message the
server sends, in order, with :meth:`TableModel.apply` (plus the
:mod:`~nimmt.client.link` notices and the ``welcome``); read its attributes.

Public attributes (all rows are *wire* rows 0..3; people see them as 1..4):

=================  ==================================================================
``my_name``        the name the server shows for you (``welcome.name``)
``token``          the session token (secret)
``server``         the server's software string
``limits``         the server's :class:`~nimmt.protocol.Limits`
``online``         false between a :class:`LinkLost` and a :class:`LinkRestored`
``resyncing``      true from a drop until the server has put you back (``seated`` or
                   ``watching``, then the ``snapshot`` of a running game): no
                   :attr:`decision` meanwhile — decide again after it, since an
                   answer sent as the link died may have been lost
``tables``         lobby: the tables, newest first (list of ``TableInfo``)
``table``          the ``TableInfo`` of your table, or ``None`` in the lobby
``seat``           your seat (0..9) or ``None`` (lobby, or watching)
``watching``       true when you watch ``table`` as a spectator
``phase``          ``"lobby"``, ``"waiting"`` (at a table, no game yet), ``"draft"``,
                   ``"deal"`` (round started, rows not out yet), ``"commit"``,
                   ``"resolve"``, ``"scored"`` (between rounds), ``"over"``
``round``          round number (0 before the first), ``turn``: 1..10 (0 outside turns)
``hand``           your cards, ascending (in a draft: your picks so far)
``my_commit``      the card you committed this turn (until the reveal), or ``None``
``rows``           the 4 rows as lists of cards, left to right (``[]`` before dealt)
``committed``      seats that have committed this turn (a set)
``revealed``       this turn's plays ``(seat, card)``, sorted by card
``unresolved``     the revealed plays not yet placed, in resolution order
``step``           the resolution :class:`Step` the board shows now (the card just placed,
                   the row it took and its cards), until the next step; or ``None``
``turn_deadline``  local monotonic time the turn's commits are due (or ``None``)
``pending``        the row/tie/draft :class:`~nimmt.client.decisions.Pending`, or ``None``
``warning``        the last ``deadline_warning`` received this turn (or draft pick), or
                   ``None``; :attr:`hurry` says whether it is for :attr:`decision`
``draft_pool``     Draft: the cards left to pick; ``draft_picks``: ``(seat, card)``
``totals``         per seat: game total so far; ``penalties``: taken this round
``last_round``     :class:`RoundResult` of the last round scored, or ``None``
``result``         :class:`GameResult` once the game is over, or ``None``
``log``            :class:`LogLine` list: what happened, in words, oldest first
``last_error``     the last ``error`` message from the server, or ``None``
``goodbye``        the server's ``goodbye``, once it came
``notices``        :class:`Notice` list for a screen's status line (the autopilot played
                   for you, a rename, a forgotten session); the screen empties it
``version``        increases with every message applied
=================  ==================================================================

Derived: :attr:`options`, :attr:`seats` (:class:`SeatView` list), :attr:`decision`
(what you must decide now, with :meth:`~nimmt.client.decisions.Decision.answer`),
:attr:`hurry` (the server warned that :attr:`decision` is due soon), :meth:`legal_actions`,
:meth:`name_of`, :meth:`display_total`, :meth:`seconds_left`, :attr:`plays` (this turn's
plays with their state: placed, now, waiting), :attr:`clock_unknown` (offline with a
deadline running). A screen calls :meth:`answered` when it sends an answer and
:meth:`said` when it sends chat, so that the autopilot's choices and a namesake's
chat are told apart from yours.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from nimmt import protocol as P
from nimmt.protocol import Message, TableInfo, TableOptions

from .cards import MAX_ROW, row_bullheads
from .decisions import COMMIT, DRAFT, ROW, TIE, Decision, Pending
from .link import LinkLost, LinkRestored
from .words import (
    Words,
    cards_text,
    code_words,
    deadline_warning_text,
    error_hint,
    place_text,
    rows_text,
)

__all__ = ["TableModel", "SeatView", "LogLine", "RoundResult", "GameResult", "PHASES", "Step",
           "Notice"]

PHASES: Final = ("lobby", "waiting", "draft", "deal", "commit", "resolve", "scored", "over")
IN_GAME: Final = frozenset({"draft", "deal", "commit", "resolve", "scored"})
MAX_LOG: Final = 500
DEFAULT_LIMIT: Final = 66


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line of the event log. ``kind``: ``info``, ``event``, ``take`` (a row
    taken), ``round`` (round/game boundaries), ``chat``, ``error``, ``link``, ``warn``
    (a deadline is near)."""

    text: str
    kind: str = "event"


@dataclass(frozen=True, slots=True)
class Step:
    """The resolution step the board shows now: ``card`` of ``seat`` placed in ``row``
    (``None`` until it lands); ``taken``/``bullheads``: the cards that step took from
    that row (``()`` when it took none). A screen shows the taken cards with the new
    card beside them until the next step, so a take can be watched."""

    seat: int
    row: int
    card: int | None = None
    end: str = "right"
    taken: tuple[int, ...] = ()
    bullheads: int = 0


@dataclass(frozen=True, slots=True)
class Notice:
    """A one-time notice for the screen's status line (``kind``: ``info``/``error``)."""

    text: str
    kind: str = "info"


@dataclass(frozen=True, slots=True)
class RoundResult:
    round: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameResult:
    totals: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as a screen shows it."""

    index: int
    name: str | None  # None: empty seat
    kind: str | None  # "human" or "bot"
    connected: bool
    total: int
    penalties: int
    strategy: str | None
    me: bool
    host: bool
    committed: bool
    deciding: bool  # the table waits for this seat's row/tie/draft decision

    @property
    def empty(self) -> bool:
        return self.name is None


class TableModel:
    """The client's picture of the server: lobby, table and game. See the module doc."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.my_name: str | None = None
        self.token: str | None = None
        self.server: str | None = None
        self.limits: P.Limits | None = None
        self.online = True
        self.resyncing = False
        self.tables: list[TableInfo] = []
        self.log: list[LogLine] = []
        self.last_error: P.Error | None = None
        self.goodbye: P.Goodbye | None = None
        self.notices: list[Notice] = []
        self.lost_at: float | None = None
        self._answered: set[tuple[str, int, int, int]] = set()
        self._said: list[str] = []
        self.version = 0
        self._leave_table()

    # ------------------------------------------------------------------ state
    def _leave_table(self) -> None:
        self.table: TableInfo | None = None
        self.seat: int | None = None
        self.watching = False
        self.phase = "lobby"
        self.result: GameResult | None = None
        self.last_round: RoundResult | None = None
        self.totals: list[int] = []
        self.penalties: list[int] = []
        self._reset_game()

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
        self._reset_turn()

    def _reset_turn(self) -> None:
        self.my_commit: int | None = None
        self.committed: set[int] = set()
        self.revealed: list[tuple[int, int]] = []
        self.unresolved: list[tuple[int, int]] = []
        self.turn_deadline: float | None = None
        self.pending: Pending | None = None
        self.warning: P.DeadlineWarning | None = None
        self.step: Step | None = None
        self.lost_deadline = False  # the link dropped while the clock ran: time unknown

    def _set_table(self, table: TableInfo) -> None:
        self.table = table
        self.totals = [s.total if s else 0 for s in table.seats]
        self.penalties = [s.penalties if s else 0 for s in table.seats]

    def _say(self, text: str, kind: str = "event") -> None:
        self.log.append(LogLine(text, kind))
        if len(self.log) > MAX_LOG:
            del self.log[: len(self.log) - MAX_LOG]

    def _deadline(self, remaining: float | None) -> float | None:
        return None if remaining is None else self.clock() + remaining

    @property
    def words(self) -> Words:
        return Words(self.name_of, self.seat)

    # ------------------------------------------------------------------ derived
    @property
    def options(self) -> TableOptions | None:
        return self.table.options if self.table is not None else None

    @property
    def in_game(self) -> bool:
        return self.phase in IN_GAME

    @property
    def is_host(self) -> bool:
        return self.table is not None and self.seat is not None and self.table.host == self.seat

    def name_of(self, seat: int) -> str:
        """The name at ``seat`` ("seat N" for an empty or unknown seat, N from 1)."""
        if self.table is not None and 0 <= seat < len(self.table.seats):
            info = self.table.seats[seat]
            if info is not None:
                return info.name
        return f"seat {seat + 1}"

    @property
    def seats(self) -> list[SeatView]:
        if self.table is None:
            return []
        pending = self.pending
        out = []
        for i, s in enumerate(self.table.seats):
            total = self.totals[i] if i < len(self.totals) else 0
            pen = self.penalties[i] if i < len(self.penalties) else 0
            out.append(SeatView(
                index=i, name=s.name if s else None, kind=s.kind if s else None,
                connected=s.connected if s else False, total=total, penalties=pen,
                strategy=s.strategy if s else None, me=i == self.seat,
                host=self.table.host == i, committed=i in self.committed,
                deciding=pending is not None and pending.seat == i,
            ))
        return out

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

    @property
    def decision(self) -> Decision | None:
        """What you must decide now (``None``: nothing is asked of you)."""
        if self.seat is None or self.watching or not self.online or self.resyncing:
            return None
        p = self.pending
        if p is not None:
            if not (p.mine and p.requested):
                return None
            if p.kind == DRAFT:
                return Decision(DRAFT, round=p.round, pick=p.pick,
                                cards=tuple(self.draft_pool), deadline=p.deadline)
            return Decision(p.kind, round=p.round, turn=p.turn, card=p.card, rows=p.rows,
                            places=p.places, deadline=p.deadline)
        if self.phase == "commit" and self.hand:
            return Decision(COMMIT, round=self.round, turn=self.turn, cards=tuple(self.hand),
                            committed=self.my_commit, deadline=self.turn_deadline)
        return None

    @property
    def hurry(self) -> bool:
        """True when the server warned (``deadline_warning``) that the decision you must
        make now is due soon, and you have not made it: a screen shows the clock hot."""
        w, d = self.warning, self.decision
        if w is None or d is None or (d.kind == COMMIT and d.committed is not None):
            return False
        return (w.kind, w.round, w.turn, w.pick) == (d.kind, d.round, d.turn, d.pick)

    def legal_actions(self) -> frozenset[str]:
        """The client message types that make sense to send now."""
        acts = {"chat", "list_tables", "ping"}
        if self.table is None:
            acts |= {"create_table", "join", "watch"}
        elif self.watching:
            acts.add("leave")
            if self.table.status != "playing" and None in self.table.seats:
                acts.add("join")
        else:
            acts.add("leave")
            if not self.in_game and self.is_host:
                seats = self.table.seats
                if None in seats:
                    acts.add("add_bot")
                else:
                    acts.add("start")
                if any(s is not None and s.strategy is not None for s in seats):
                    acts.add("remove_bot")
            d = self.decision
            if d is not None:
                acts.add({COMMIT: "commit", ROW: "choose_row", TIE: "choose_tie",
                          DRAFT: "draft_pick"}[d.kind])
        return frozenset(acts)

    def seconds_left(self, now: float | None = None) -> float | None:
        """Seconds until the deadline of what the table waits for now, or ``None``."""
        now = self.clock() if now is None else now
        if self.pending is not None and self.pending.deadline is not None:
            return max(0.0, self.pending.deadline - now)
        if self.phase == "commit" and self.turn_deadline is not None:
            return max(0.0, self.turn_deadline - now)
        return None

    @property
    def clock_unknown(self) -> bool:
        """True while offline with a deadline running: the clock cannot be trusted."""
        return not self.online and self.lost_deadline

    @property
    def plays(self) -> list[tuple[int, int, str]]:
        """This turn's revealed plays in play order, each with its state: ``"placed"``,
        ``"now"`` (the step the board shows) or ``"waiting"``."""
        out = []
        now = self.step
        for seat, card in self.revealed:
            if now is not None and now.seat == seat and now.card in (card, None) \
                    and (seat, card) not in self.unresolved:
                state = "now"
            elif (seat, card) in self.unresolved:
                state = "waiting"
            else:
                state = "placed"
            out.append((seat, card, state))
        return out

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

    def row_cost(self, row: int) -> int:
        """Bullheads of wire row ``row`` (0 if it is not there)."""
        return row_bullheads(self.rows[row]) if 0 <= row < len(self.rows) else 0

    # ------------------------------------------------------------------ applying
    def apply(self, msg: Message | LinkLost | LinkRestored) -> None:
        """Update the model with one message from the server (or a link notice)."""
        self.version += 1
        handler = getattr(self, "_on_" + _tag(msg), None)
        if handler is not None:
            handler(msg)

    # -- session ---------------------------------------------------------------
    def _on_welcome(self, m: P.Welcome) -> None:
        fresh = self.token is not None and not m.resumed
        asked = self.my_name
        self.my_name, self.token, self.server, self.limits = m.name, m.token, m.server, m.limits
        self.online = True
        if fresh:
            self.resyncing = False
            if self.table is not None:
                text = self._forgotten_text()
                self._say(text, "error")
                self.notices.append(Notice(text, "error"))
            self._leave_table()
        elif not m.resumed:
            self._say(f"Connected to {m.server} as {m.name}.", "info")
        if asked is not None and asked != m.name and not m.resumed:
            self._say(f"You are “{m.name}” on this server now.", "info")
        self.lost_at = None

    def _forgotten_text(self) -> str:
        """Why the server did not take us back (the protocol only says ``bad_token``).
        A spectator is not told it is back in the lobby: the client asks to watch
        its table again at once (``Controller``)."""
        grace = self.limits.reconnect_grace if self.limits is not None else None
        away = None if self.lost_at is None else self.clock() - self.lost_at
        if self.watching and self.table is not None:
            return ("The server no longer knows your session (restarted, or you were away "
                    f"too long): asking to watch table {self.table.table_id} again.")
        if grace is not None and away is not None and away > grace:
            return (f"You were away {away:.0f} s, longer than the server keeps a seat "
                    f"({grace:.0f} s): you are back in the lobby.")
        return ("The server no longer knows your session (it was probably restarted): "
                "your seat is gone and you are back in the lobby.")

    def _on_link_lost(self, m: LinkLost) -> None:
        self.online = False
        self.lost_at = self.clock()
        self.lost_deadline = self.phase == "commit" or self.pending is not None
        self.resyncing = self.table is not None
        self._say(f"Connection lost ({m.reason}) — reconnecting…", "link")

    def _on_link_restored(self, m: LinkRestored) -> None:
        self._on_welcome(m.welcome)
        if m.welcome.resumed:
            self._say("Reconnected.", "link")

    def _on_goodbye(self, m: P.Goodbye) -> None:
        self.goodbye = m
        text = m.message or m.reason.replace("_", " ")
        self._say(f"The server closed the connection: {text}.", "error")

    def _on_error(self, m: P.Error) -> None:
        self.last_error = m
        if m.code == "bad_token":
            return  # said by the welcome that follows (fresh session) in its own words
        self._say(f"Refused: {m.message or code_words(m.code)}. {error_hint(m.code)}".strip(),
                  "error")

    def _on_chat_message(self, m: P.ChatMessage) -> None:
        # names are unique at a table but not in the lobby, where the protocol sends no
        # seat: another player with your name is told apart from what you said
        who = m.name
        if m.seat is not None and m.seat != self.seat and self.name_of(m.seat) != m.name:
            who = f"{m.name}, seat {m.seat + 1}"
        elif m.name == self.my_name and (m.seat is None or m.seat != self.seat):
            if m.text in self._said:
                self._said.remove(m.text)
            else:
                who = f"{m.name} (not you)"
        elif m.seat is not None and m.seat == self.seat and m.text in self._said:
            self._said.remove(m.text)
        self._say(f"<{who}> {m.text}", "chat")

    def said(self, text: str) -> None:
        """The screen sent chat ``text``: its echo is ours (and not a namesake's)."""
        self._said.append(text)
        del self._said[:-20]

    # -- lobby -----------------------------------------------------------------
    def _on_table_list(self, m: P.TableList) -> None:
        self.tables = list(m.tables)

    def _on_table_updated(self, m: P.TableUpdated) -> None:
        t = m.table
        if self.table is not None and t.table_id == self.table.table_id:
            self._seat_changes(self.table, t)
            self._set_table(t)
        for i, old in enumerate(self.tables):
            if old.table_id == t.table_id:
                self.tables[i] = t
                return
        if self.table is None:
            self.tables.insert(0, t)

    def _seat_changes(self, old: TableInfo, new: TableInfo) -> None:
        w = self.words
        for i, (a, b) in enumerate(zip(old.seats, new.seats, strict=False)):
            if a is None and b is not None:
                self._say(f"{b.name} sits down at seat {i + 1}.", "info")
            elif a is not None and b is None:
                self._say(f"{a.name} leaves seat {i + 1}.", "info")
            elif a is not None and b is not None and a.connected != b.connected:
                text = "is back" if b.connected else "is away (the autopilot may play for them)"
                self._say(f"{w.subject(i)} {text}.", "info")
        if old.host != new.host and new.host is not None:
            self._say(f"{w.subject(new.host)} {w.verb(new.host, 'is', 'are')} the host now.",
                      "info")

    def _on_table_closed(self, m: P.TableClosed) -> None:
        self.tables = [t for t in self.tables if t.table_id != m.table_id]

    def _on_seated(self, m: P.Seated) -> None:
        was_here = self.table is not None and self.table.table_id == m.table.table_id
        if not was_here or self.watching:
            self._reset_game()
            self.phase = "over" if m.table.status == "over" else "waiting"
        self._set_table(m.table)
        self.seat, self.watching = m.seat, False
        if m.table.status != "playing":
            self.resyncing = False  # no game: no snapshot follows
        self._say(f"You sit at table {_table_label(m.table)}, seat {m.seat + 1}.", "info")
        here = self.name_of(m.seat)
        if self.my_name is not None and here != self.my_name and not was_here:
            text = (f"Someone at this table is already called {self.my_name}: "
                    f"you are “{here}” here.")
            self._say(text, "info")
            self.notices.append(Notice(text))

    def _on_watching(self, m: P.Watching) -> None:
        self._reset_game()
        self._set_table(m.table)
        self.seat, self.watching = None, True
        if m.table.status != "playing":
            self.resyncing = False
        self.phase = {"playing": "deal", "over": "over"}.get(m.table.status, "waiting")
        self._say(f"You watch table {_table_label(m.table)}.", "info")

    def _on_left(self, m: P.Left) -> None:
        why = {"left": "You left", "kicked": "You were removed from",
               "table_closed": "The server closed"}.get(m.reason, "You left")
        self._leave_table()
        self._say(f"{why} table {m.table_id}.", "info")

    # -- game ------------------------------------------------------------------
    def _on_round_started(self, m: P.RoundStarted) -> None:
        if m.round == 1 or self.phase in ("waiting", "over"):
            self.result = None
            self.last_round = None
            self.totals = [0] * len(self.totals)
        self.phase = "draft" if self.options and self.options.draft else "deal"
        self.round, self.turn = m.round, 0
        self.penalties = [0] * len(self.penalties)
        self._reset_round()
        self._say(f"Round {m.round} begins.", "round")

    def _on_draft_opened(self, m: P.DraftOpened) -> None:
        self.phase = "draft"
        self.draft_pool = sorted(m.pool)
        self.draft_picks = []
        self.draft_first = m.first_picker
        self.hand = []
        self._say(f"Draft: {len(m.pool)} cards lie open; "
                  f"{self.words.subject(m.first_picker, mid=True)} "
                  f"{self.words.verb(m.first_picker, 'picks', 'pick')} first.", "info")

    def _on_draft_pick_needed(self, m: P.DraftPickNeeded) -> None:
        mine = m.seat == self.seat
        keep = self.pending is not None and self.pending.requested and mine
        self.pending = Pending(DRAFT, m.seat, mine, m.round, pick=m.pick,
                               deadline=self._deadline(m.remaining), requested=keep)

    def _on_draft_pick_request(self, m: P.DraftPickRequest) -> None:
        self.draft_pool = sorted(m.pool)
        self.pending = Pending(DRAFT, self.seat if self.seat is not None else 0, True, m.round,
                               pick=m.pick, deadline=self._deadline(m.remaining),
                               requested=True)

    def _on_draft_picked(self, m: P.DraftPicked) -> None:
        if m.seat == self.seat:
            self._autopilot(DRAFT, f"picked {m.card}")
        if m.card in self.draft_pool:
            self.draft_pool.remove(m.card)
        self.draft_picks.append((m.seat, m.card))
        if m.seat == self.seat and m.card not in self.hand:
            self.hand = sorted([*self.hand, m.card])
        if self.pending is not None and self.pending.kind == DRAFT and self.pending.seat == m.seat:
            self.pending = None
        w = self.words
        self._say(f"{w.subject(m.seat)} {w.verb(m.seat, 'picks', 'pick')} {m.card}.")

    def _on_hand_dealt(self, m: P.HandDealt) -> None:
        self.hand = sorted(m.cards)
        self._say(f"Your hand: {cards_text(self.hand)}.", "info")

    def _on_rows_dealt(self, m: P.RowsDealt) -> None:
        self.rows = [list(r) for r in m.rows]
        self.pending = None
        if self.phase == "draft":
            self.phase = "deal"
        self._say(f"The rows: {rows_text(self.rows)}.", "info")

    def _on_turn_started(self, m: P.TurnStarted) -> None:
        self._reset_turn()
        self.phase = "commit"
        self.round, self.turn = m.round, m.turn
        self.turn_deadline = self._deadline(m.remaining)

    def _on_commit_accepted(self, m: P.CommitAccepted) -> None:
        if (m.round, m.turn) == (self.round, self.turn):
            self.my_commit = m.card
            if self.seat is not None:
                self.committed.add(self.seat)
            if m.re is None and (COMMIT, m.round, m.turn, 0) not in self._answered:
                # not the answer to a commit of ours: the server's autopilot chose
                text = f"Time ran out: the autopilot played {m.card} for you."
                self._say(text, "warn")
                self.notices.append(Notice(text, "error"))

    def _on_deadline_warning(self, m: P.DeadlineWarning) -> None:
        self.warning = m
        if not self.hurry:
            return  # it crossed your answer (or is for a decision that is over): moot
        deadline = self._deadline(m.remaining)  # the freshest count of the time left
        if m.kind == COMMIT:
            self.turn_deadline = deadline
        elif self.pending is not None:
            self.pending.deadline = deadline
        self._say(deadline_warning_text(m.kind, m.remaining), "warn")

    def _on_seat_committed(self, m: P.SeatCommitted) -> None:
        self.committed.add(m.seat)

    def _on_revealed(self, m: P.Revealed) -> None:
        self.phase = "resolve"
        self.step = None
        self.revealed = [(s, c) for s, c in m.plays]
        self.unresolved = list(self.revealed)
        self.committed = {s for s, _ in self.revealed}
        self.turn_deadline = None
        self.my_commit = None
        for s, c in self.revealed:
            if s == self.seat and c in self.hand:
                self.hand.remove(c)
        plays = ", ".join(f"{self.name_of(s)} {c}" for s, c in self.revealed)
        self._say(f"Turn {self.turn}: {plays}.")

    def _on_row_choice_needed(self, m: P.RowChoiceNeeded) -> None:
        mine = m.seat == self.seat
        if not (mine and self.pending is not None and self.pending.requested):
            self.pending = Pending(ROW, m.seat, mine, self.round, turn=self.turn, card=m.card,
                                   rows=tuple(range(len(self.rows))),
                                   deadline=self._deadline(m.remaining))
        w = self.words
        who = w.subject(m.seat)
        tail = ("choose the row to take (keys 1–4)" if mine
                else f"{who} {w.verb(m.seat, 'chooses', 'choose')} a row to take")
        self._say(f"{w.possessive(m.seat)} {m.card} is lower than every row: {tail}.")

    def _on_row_choice_request(self, m: P.RowChoiceRequest) -> None:
        self.pending = Pending(ROW, self.seat if self.seat is not None else 0, True, m.round,
                               turn=m.turn, card=m.card, rows=tuple(m.rows),
                               deadline=self._deadline(m.remaining), requested=True)

    def _on_tie_choice_needed(self, m: P.TieChoiceNeeded) -> None:
        mine = m.seat == self.seat
        if not (mine and self.pending is not None and self.pending.requested):
            self.pending = Pending(TIE, m.seat, mine, self.round, turn=self.turn, card=m.card,
                                   places=tuple(m.places), deadline=self._deadline(m.remaining))
        w = self.words
        options = " or ".join(place_text(p, self.rows) for p in m.places)
        chooser = ("you choose (←/→, Enter)" if mine
                   else f"{w.subject(m.seat)} {w.verb(m.seat, 'chooses', 'choose')}")
        self._say(f"{w.possessive(m.seat)} {m.card} may go {options}: {chooser}.")

    def _on_tie_choice_request(self, m: P.TieChoiceRequest) -> None:
        self.pending = Pending(TIE, self.seat if self.seat is not None else 0, True, m.round,
                               turn=m.turn, card=m.card, places=tuple(m.places),
                               deadline=self._deadline(m.remaining), requested=True)

    def _on_row_taken(self, m: P.RowTaken) -> None:
        while len(self.rows) <= m.row:
            self.rows.append([])
        self.rows[m.row] = []
        self.step = Step(m.seat, m.row, taken=tuple(m.cards), bullheads=m.bullheads)
        if m.seat == self.seat:
            self._autopilot(ROW, f"took row {m.row + 1}")
        if m.seat < len(self.penalties):
            self.penalties[m.seat] += m.bullheads
        chosen = (self.pending is not None and self.pending.kind == ROW
                  and self.pending.seat == m.seat)
        if chosen:
            self.pending = None
        w = self.words
        heads = f"{m.bullheads} bullhead{'s' if m.bullheads != 1 else ''}"
        why = ""
        if not chosen and len(m.cards) == MAX_ROW:
            card = next((c for s, c in self.unresolved if s == m.seat), None)
            if card is not None:
                why = f" — {card} is its sixth card"
        self._say(f"{w.subject(m.seat)} {w.verb(m.seat, 'takes', 'take')} row {m.row + 1}: "
                  f"{cards_text(m.cards)} ({heads}){why}.", "take")

    def _on_placed(self, m: P.Placed) -> None:
        while len(self.rows) <= m.row:
            self.rows.append([])
        row = self.rows[m.row]
        w = self.words
        if not row:
            where = f"starts row {m.row + 1}"
        elif m.end == "left":
            where = f"goes before {row[0]} in row {m.row + 1}"
        else:
            where = f"goes after {row[-1]} in row {m.row + 1}"
        if m.end == "left":
            row.insert(0, m.card)
        else:
            row.append(m.card)
        if (m.seat, m.card) in self.unresolved:
            self.unresolved.remove((m.seat, m.card))
        s = self.step
        if s is not None and s.card is None and s.row == m.row and s.seat == m.seat:
            self.step = Step(m.seat, m.row, m.card, m.end, s.taken, s.bullheads)
        else:
            self.step = Step(m.seat, m.row, m.card, m.end)
        if m.seat == self.seat:
            self._autopilot(TIE, f"put {m.card} {where.removeprefix('goes ')}")
        if self.pending is not None and self.pending.kind == TIE and self.pending.seat == m.seat:
            self.pending = None
        self._say(f"{w.possessive(m.seat)} {m.card} {where}.")

    def _on_round_scored(self, m: P.RoundScored) -> None:
        self.phase = "scored"
        self.turn = 0
        self.pending = None
        self.unresolved = []
        self.penalties = list(m.penalties)
        self.totals = list(m.totals)
        self.last_round = RoundResult(m.round, tuple(m.penalties), tuple(m.totals))
        parts = ", ".join(f"{self.name_of(s)} +{p}" for s, p in enumerate(m.penalties))
        self._say(f"Round {m.round} scored: {parts}.", "round")

    def _on_game_over(self, m: P.GameOver) -> None:
        self.phase = "over"
        self.pending = None
        self.turn_deadline = None
        self.totals = list(m.totals)
        self.result = GameResult(tuple(m.totals), tuple(m.places), tuple(m.winners))
        w = self.words
        names = " and ".join(w.subject(s, mid=i > 0) for i, s in enumerate(m.winners))
        score = self.display_total(m.winners[0])
        if len(m.winners) > 1:
            text = f"{names} share first place with {score}"
        elif m.winners[0] == self.seat:
            text = f"You win with {score}"
        else:
            text = f"{names} wins with {score}"
        unit = "points left" if self.options and self.options.countdown else "bullheads"
        self._say(f"Game over: {text} {unit}.", "round")

    def _on_snapshot(self, m: P.Snapshot) -> None:
        self.resyncing = False
        self.step = None
        self.lost_deadline = False
        self._set_table(m.table)
        self.seat, self.watching = m.seat, m.seat is None
        self.phase = m.phase
        self.round, self.turn = m.round, m.turn
        self.hand = sorted(m.hand)
        self.rows = [list(r) for r in m.rows]
        self.my_commit = m.commit
        self.committed = set(m.committed)
        self.revealed = [(s, c) for s, c in m.revealed]
        self.unresolved = list(self.revealed)
        self.turn_deadline = self._deadline(m.remaining) if m.phase == "commit" else None
        self.draft_pool = sorted(m.draft_pool)
        self.draft_picks = [(s, c) for s, c in m.draft_picks]
        self.pending = None
        p = m.pending
        if p is not None:
            mine = p.seat == self.seat
            self.pending = Pending(p.kind, p.seat, mine, m.round, turn=m.turn,
                                   pick=p.pick or 0, card=p.card, rows=tuple(p.rows),
                                   places=tuple(p.places),
                                   deadline=self._deadline(p.remaining), requested=mine)
        where = f"round {m.round}, turn {m.turn}" if m.turn else f"round {m.round}"
        self._say(f"Table {_table_label(m.table)}: the game is at {where}.", "info")


def _tag(msg: Any) -> str:
    if isinstance(msg, LinkLost):
        return "link_lost"
    if isinstance(msg, LinkRestored):
        return "link_restored"
    return getattr(msg, "TYPE", "")


def _table_label(t: TableInfo) -> str:
    return f"{t.table_id} “{t.name}”" if t.name else t.table_id
