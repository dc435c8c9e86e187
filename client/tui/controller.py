"""What the keys do: turns key presses into requests, and messages into screen state.

The controller owns the :class:`~nimmt.client.model.TableModel` and the
:class:`~nimmt.client.tui.state.UiState`. It talks to the server through any
object with ``async send(msg)`` (a :class:`~nimmt.client.net.ClientConnection`
or a test double), and never blocks: sends run as tasks.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from nimmt import protocol as P
from nimmt.protocol import Message

from ..decisions import COMMIT, DRAFT, ROW, TIE, Decision
from ..history import HistoryError, load_history, replay_argv
from ..link import LinkLost, LinkRestored
from ..model import TableModel
from ..net import ClientError
from ..round_analysis import analyse_round
from ..words import BOT_LEVELS, DEFAULT_BOT_LEVEL, LEVEL_WORDS, code_words, error_hint
from .analysis_keys import AnalysisKeys
from .history import HistoryView
from .ladder_keys import LadderKeys
from .queue_keys import QueueKeys
from .state import CreateForm, Status, UiState

__all__ = ["Sender", "StartPlan", "Controller"]

CONFIRM_SECONDS = 3.0
STATUS_SECONDS = 6.0
SOLO_START_AFTER = 1.0
#: What to do when a rated table is refused because the name is not claimed.
RATED_HINT = ("Rated games are for claimed names: start nimmt-client again with --claim "
              "(or play a table that is not rated).")


class Sender(Protocol):
    async def send(self, msg: Message) -> int | None: ...


@dataclass(frozen=True, slots=True)
class StartPlan:
    """What to do once welcomed: join or watch a table, or (solo) join the bot table."""

    join: str | None = None
    watch: str | None = None
    solo: bool = False
    resumed: bool = False  # the saved session was taken back: the seat comes back
    had_session: bool = False  # a saved session was offered (resumed or not)
    #: why a saved session was not taken back (no session saved for the name, the
    #: server's refusal, --new-session), or None
    not_resumed: str | None = None
    bot_level: str = DEFAULT_BOT_LEVEL  # the level of the bots added ("a", the new-table form)
    spectator: bool = False  # connected as a spectator: tables are watched, never joined
    history_db: str | None = None  # the history screen's database (None: the default)


class Controller(AnalysisKeys, LadderKeys, QueueKeys):
    """Key actions and message handling for the terminal UI (the leaderboard's:
    :class:`~nimmt.client.tui.ladder_keys.LadderKeys`; the queue's,
    :class:`~nimmt.client.tui.queue_keys.QueueKeys`; the rounds' analysis,
    :class:`~nimmt.client.tui.analysis_keys.AnalysisKeys`)."""

    def __init__(self, model: TableModel, conn: Sender, *, plan: StartPlan | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.model = model
        self.conn = conn
        self.ui = UiState()
        self.plan = plan or StartPlan()
        self.clock = clock
        self.invalidate: Callable[[], None] = lambda: None
        self.exit: Callable[[], None] = lambda: None
        self.on_welcome: Callable[[P.Welcome], None] = lambda welcome: None
        #: whether the terminal is big enough to show the table (set by the screen):
        #: keys that decide do nothing when it is not
        self.fits: Callable[[], bool] = lambda: True
        #: a replay being shown (``nimmt-client --replay``), or None
        self.replay: Any = None
        self._chat_backlog: list[str] = []
        self._welcomed = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._analyses: set[asyncio.Task[None]] = set()
        self._plan_done = False
        # the level of the bots that fill the empty seats when you start the table you
        # created (the new-table form's choice; None: ask first)
        self._fill_level: str | None = None
        self._creating: str | None = None  # the fill level of the table being created
        self._queue_request: P.Queue | None = None  # the last queue sent (queue_keys)
        self.bot_level = self.plan.bot_level
        self._pause_sent = False  # we asked the server to stop a solo game's clock
        #: the score sheet is drawn under the table, not over it (the layout says)
        self.sheet_inline: Callable[[], bool] = lambda: False
        #: a scored round's analysis for a seat (a subprocess, awaited aside)
        self.round_analyser: Callable[[dict[str, Any], int], Awaitable[dict[str, Any]]] = \
            analyse_round

    # ------------------------------------------------------------------ sending
    def send(self, msg: Message) -> None:
        """Send ``msg`` in the background; a failure shows in the status line."""
        task = asyncio.get_running_loop().create_task(self._send(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, msg: Message) -> None:
        try:
            await self.conn.send(msg)
        except ClientError as exc:
            self.status(f"Not sent: {exc}", "error")
            self.invalidate()

    async def drain(self) -> None:
        """Wait for the sends in flight (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def status(self, text: str, kind: str = "info", seconds: float | None = STATUS_SECONDS) -> None:
        until = None if seconds is None else self.clock() + seconds
        self.ui.status = Status(text, kind, until)

    def current_status(self) -> Status | None:
        s = self.ui.status
        if s is not None and s.until is not None and self.clock() > s.until:
            self.ui.status = None
            return None
        return s

    # ------------------------------------------------------------------ receiving
    def start(self) -> None:
        """Call once, after the welcome was applied to the model."""
        self.send(P.ListTables())
        if self.plan.join:
            self.send(P.Join(table_id=self.plan.join))
            self._plan_done = True
        elif self.plan.watch:
            self.send(P.Watch(table_id=self.plan.watch))
            self._plan_done = True
        elif not self.plan.solo:
            self._plan_done = True
        lost = None if self.plan.resumed or self.plan.not_resumed is None else \
            self.model.seat_not_kept(self.plan.not_resumed)
        if lost is not None:
            self.status(lost, "error")
        elif self.plan.had_session and not self.plan.resumed:
            self.status("The server no longer knows your earlier session (restarted, or "
                        "you were away too long): this is a new one.", "info")

    def on_message(self, msg: Message | LinkLost | LinkRestored) -> None:
        self._on_message(msg)
        self.sync_clock()  # a score sheet opened by the round's end pauses it too

    def _on_message(self, msg: Message | LinkLost | LinkRestored) -> None:
        m = self.model
        # a spectator the server forgot (a restart) watches its table again: a
        # watcher has nothing to lose, so there is nothing to ask
        rewatch = (m.table.table_id if isinstance(msg, LinkRestored) and not msg.welcome.resumed
                   and m.watching and m.table is not None else None)
        was_queued = isinstance(msg, LinkRestored) and m.queued is not None
        m.apply(msg)
        self._analyse_rounds()
        if isinstance(msg, LinkLost | P.Snapshot | P.GameOver | P.Left):
            # the server runs a clock again when its player drops, and a game's end or
            # leaving ends the pause (a resume would not even be a valid message then)
            self._pause_sent = False
        if isinstance(msg, LinkLost):
            self.ui.status = None  # the title, the decision bar and the log say it, once
        elif isinstance(msg, LinkRestored):
            self.on_welcome(msg.welcome)
            if not msg.welcome.resumed:  # (a resume: the log says "Reconnected.")
                self.status("Reconnected as a new session: the server had forgotten you.",
                            "ok")
            if not msg.welcome.resumed:
                self.send(P.ListTables())
            if rewatch is not None:
                self.send(P.Watch(table_id=rewatch))
            self._queue_again(was_queued)
            for text in self._chat_backlog:
                self.send_chat(text)
            self._chat_backlog.clear()
        elif isinstance(msg, P.Error):
            if msg.request == "create_table":
                self._creating = None
            if msg.request == "queue":
                self._queue_request = None  # not queued: nothing to queue again
            if msg.code != "bad_token":
                hint = error_hint(msg.code)
                if "Press w" in hint and (m.table is not None or self.plan.spectator):
                    hint = ""  # w watches from the lobby; a spectator only watches
                if msg.code == "not_allowed" and not m.claimed and (
                        msg.field == "options.rated" or msg.request == "queue"):
                    hint = RATED_HINT  # the form's Rated or Q, with a name not claimed
                self.status(f"{msg.message or code_words(msg.code)}. {hint}".strip(), "error")
        elif isinstance(msg, P.LeaderboardPage):
            self._ladder_page(msg)
        elif isinstance(msg, P.TableList):
            self._clamp_lobby()
            if not self._plan_done and self.plan.solo:
                self._join_bot_table()
        elif isinstance(msg, P.Seated | P.Watching) and self.plan.resumed and not self._welcomed:
            self._welcomed = True  # the saved session was at a table: say so once
            where = f"seat {msg.seat + 1}" if isinstance(msg, P.Seated) else "watching"
            self.status(f"Welcome back: you are at table {msg.table.table_id} again ({where}).",
                        "ok")
        elif isinstance(msg, P.Seated):
            self.ui.ladder = None  # (the lobby's screens close at a table)
            if self._creating is not None:  # the table we asked for
                self._fill_level, self._creating = self._creating, None
            if self.plan.solo and msg.table.status == "waiting":
                # the --bots table starts by itself when we sit down; if it has not
                # started a moment later, start it ourselves
                asyncio.get_running_loop().call_later(SOLO_START_AFTER, self._solo_start)
        elif isinstance(msg, P.Left):
            self._fill_level = None
            self.ui.sheet_open = False
            self.ui.analysis = None
            self.ui.armed = None
            self.ui.status = None  # "Leave the game? … Press L again." is over
            self.send(P.ListTables())
        elif isinstance(msg, P.CommitAccepted):
            if not m.notices and not self._asking():  # (a notice: the autopilot chose)
                self.status(f"Committed {msg.card}.", "ok")
        elif isinstance(msg, P.TurnStarted):
            if not self._asking():  # ("Quit? … press q again" stays its 3 s)
                self.ui.status = None
            self._clamp_hand()
        elif isinstance(msg, P.RoundScored | P.GameOver):
            if not self.ui.help_open and not self.ui.chat_open and self.ui.analysis is None:
                self.ui.sheet_open = True
                self.ui.sheet_auto = isinstance(msg, P.RoundScored)
                self.ui.sheet_page = 0  # (the rounds' page: tonight's is a Tab away)
            if isinstance(msg, P.GameOver):
                self.ui.armed = None
                self.ui.status = None  # "You take row 3." belongs to the game that ended
        elif isinstance(msg, P.RoundStarted):
            self.ui.armed = None
            self.ui.status = None
        elif isinstance(msg, P.RowChoiceRequest):
            self.ui.row_cursor = min(msg.rows, key=lambda r: (m.row_cost(r), r))
        elif isinstance(msg, P.TieChoiceRequest):
            self.ui.tie_cursor = 0
        elif isinstance(msg, P.Revealed | P.HandDealt):
            self._clamp_hand()
        elif isinstance(msg, P.Goodbye):
            self.exit()
        for notice in m.notices:
            self.status(notice.text, notice.kind)
        m.notices.clear()

    def _asking(self) -> bool:
        """Whether a question ("Quit? … press q again") is on the status line: a
        message's confirmation does not push it away (the log has the message)."""
        return self.ui.armed is not None and self.clock() <= self.ui.armed_until

    def _too_small(self) -> bool:
        """True (and says so) when the screen cannot show the table: no blind moves."""
        if self.fits():
            return False
        self.status("The window is too small: that key did nothing.", "error")
        return True

    def _solo_start(self) -> None:
        m = self.model
        if m.phase == "waiting" and m.is_host and m.table is not None \
                and None not in m.table.seats:
            self.send(P.Start())

    def _join_bot_table(self) -> None:
        for t in self.model.tables:
            if t.status == "waiting" and sum(s is None for s in t.seats) == 1:
                self._plan_done = True
                self.send(P.Join(table_id=t.table_id))
                return
        self._plan_done = True
        self.status("The solo table was not found on the server.", "error")

    def _clamp_hand(self) -> None:
        n = len(self.model.hand)
        self.ui.card_cursor = max(0, min(self.ui.card_cursor, n - 1))

    def _clamp_lobby(self) -> None:
        n = len(self.model.tables)
        self.ui.table_cursor = max(0, min(self.ui.table_cursor, n - 1))

    # ------------------------------------------------------------------ keys
    def horizontal(self, delta: int) -> None:
        """←/→ (h/l): the card, place or draft pick under the cursor; form values."""
        if self._too_small():
            return
        if self.replay is not None:
            self.replay.step(delta)
            self._replayed()
            return
        ui, d = self.ui, self.model.decision
        if ui.analysis is not None and not ui.help_open:
            self.analysis_round(delta)
        elif ui.form is not None:
            ui.form.change(delta)
        elif d is not None and d.kind == TIE:
            ui.tie_cursor = (ui.tie_cursor + delta) % len(d.places)
        elif d is not None and d.kind == ROW:
            rows = sorted(d.rows)
            i = rows.index(ui.row_cursor) if ui.row_cursor in rows else 0
            ui.row_cursor = rows[(i + delta) % len(rows)]
        elif d is not None and d.kind == DRAFT and d.cards:
            ui.pick_cursor = (ui.pick_cursor + delta) % len(d.cards)
        elif self.model.hand:
            ui.card_cursor = max(0, min(ui.card_cursor + delta, len(self.model.hand) - 1))

    def vertical(self, delta: int) -> None:
        """↑/↓ (k/j): the lobby's table list, form fields, rows, places, the draft pool."""
        if self._too_small():
            return
        ui, d = self.ui, self.model.decision
        if ui.help_open:
            ui.help_scroll = max(0, ui.help_scroll + delta)  # the screen clamps it
        elif ui.analysis is not None:
            self.analysis_scroll(delta)
        elif ui.history is not None:
            ui.history.move(delta)
        elif ui.ladder is not None:
            ui.ladder.move(delta, self.model.leaderboard)
            self._ladder_more()
        elif self.replay is not None:
            self.replay.round_step(delta)
            self._replayed()
        elif ui.form is not None:
            ui.form.move(delta)
        elif self.model.table is None:
            n = len(self.model.tables)
            if n:
                ui.table_cursor = max(0, min(ui.table_cursor + delta, n - 1))
        elif d is not None and d.kind in (TIE, ROW):
            self.horizontal(delta)
        elif d is not None and d.kind == DRAFT and d.cards:
            step = ui.pool_columns * delta
            if 0 <= ui.pick_cursor + step < len(d.cards):
                ui.pick_cursor += step

    def enter(self) -> None:
        """Enter: create (form), join (lobby), commit / choose / pick (game)."""
        if self._too_small():
            return
        ui, m = self.ui, self.model
        if self.replay is not None:
            self.replay.toggle()
            return
        if ui.history is not None:
            self.replay_chosen()
            return
        if ui.ladder is not None:
            return  # (Enter would join the table under it)
        if ui.form is not None:
            self.create_table()
            return
        if m.table is None:
            if self.plan.spectator:
                self.watch_selected()
            else:
                self.join_selected()
            return
        if m.watching and m.table.status != "playing" and not self.plan.spectator:
            self.take_seat()
            return
        d = m.decision
        if d is None:
            self._nothing_to_decide()
        elif d.kind == COMMIT:
            self._answer(d, d.cards[max(0, min(ui.card_cursor, len(d.cards) - 1))])
        elif d.kind == DRAFT:
            self._answer(d, d.cards[max(0, min(ui.pick_cursor, len(d.cards) - 1))])
        elif d.kind == TIE:
            self._answer(d, d.places[ui.tie_cursor % len(d.places)])
        else:
            self.choose_row(ui.row_cursor + 1)

    def choose_row(self, number: int) -> None:
        """1–4: take row ``number`` (as people count) when asked; a tie: go to that row."""
        if self._too_small():
            return
        d = self.model.decision
        row = number - 1
        if self.replay is not None:
            self.status("A replay: ←/→ step, Space plays.", "info")
        elif d is not None and d.kind == ROW:
            if row in d.rows:
                self._answer(d, row)
            else:
                self.status(f"Row {number} cannot be taken now.", "error")
        elif d is not None and d.kind == TIE:
            places = [p for p in d.places if p.row == row]
            if len(places) == 1:
                self._answer(d, places[0])
            elif places:
                self.ui.tie_cursor = d.places.index(places[0])
                self.status("Both ends of that row are possible: use ←/→ and Enter.", "error")
            else:
                self.status(f"Your card cannot go to row {number}.", "error")
        else:
            self.status("The row keys 1–4 work when your card fits no row.", "info")

    def _answer(self, d: Decision, choice: int | P.Place) -> None:
        try:
            msg = d.answer(choice)
        except ValueError as exc:
            self.status(str(exc), "error")
            return
        self.model.answered(d)
        self.send(msg)
        if self.ui.sheet_auto:  # the round's sheet stays until you play on
            self.ui.sheet_open = self.ui.sheet_auto = False
        if d.kind == ROW:
            self.status(f"You take row {int(choice) + 1}.", "ok")  # type: ignore[arg-type]

    def _nothing_to_decide(self) -> None:
        m = self.model
        if m.watching:
            self.status("You are watching: nothing to play.", "info")
        elif m.phase == "commit" and m.hand:
            self.status("Wait for the next turn.", "info")
        elif m.pending is not None and not m.pending.mine:
            self.status(f"Waiting for {m.name_of(m.pending.seat)} to decide.", "info")
        elif not m.in_game:
            self.status("The game has not started." if m.phase == "waiting"
                        else "The game is over.", "info")
        else:
            self.status("Nothing to decide right now.", "info")

    # -- lobby --------------------------------------------------------------------
    def selected_table(self) -> P.TableInfo | None:
        tables = self.model.tables
        if not tables:
            return None
        return tables[max(0, min(self.ui.table_cursor, len(tables) - 1))]

    def join_selected(self) -> None:
        if self._too_small():
            return
        t = self.selected_table()
        if self._queue_blocks():
            pass
        elif t is None:
            self.status("No table yet: press n to create one.", "info")
        elif t.status == "playing":
            self.status("That game is running: press w to watch it.", "info")
        else:
            self.send(P.Join(table_id=t.table_id))

    def watch_selected(self) -> None:
        if self._too_small():
            return
        t = self.selected_table()
        if self.model.table is not None:
            self.status("Leave your table first (L).", "info")
        elif self._queue_blocks():
            pass
        elif t is None:
            self.status("No table to watch.", "info")
        else:
            self.send(P.Watch(table_id=t.table_id))

    def refresh(self) -> None:
        """r: the tables again (the leaderboard, when it is open)."""
        if self.ui.ladder is not None:
            self.open_ladder()
        else:
            self.send(P.ListTables())

    def open_form(self) -> None:
        if self._too_small():
            return
        if self.model.table is not None:
            self.status("Leave your table first (L).", "info")
            return
        if self.plan.spectator:
            self.status("A spectator watches tables: it cannot create one.", "info")
            return
        if self._queue_blocks():
            return
        self.ui.form = CreateForm()
        self.ui.form.values["bot_level"] = self.bot_level

    def close_form(self) -> None:
        self.ui.form = None

    def create_table(self) -> None:
        form = self.ui.form
        if form is None:
            return
        name = f"{self.model.my_name}'s table" if self.model.my_name else ""
        self._creating = form.fill_level
        self.bot_level = str(form.values["bot_level"])
        self.ui.form = None
        self.send(P.CreateTable(options=form.options(), name=name[:40]))

    # -- at a table ---------------------------------------------------------------
    def add_bot(self) -> None:
        if self._too_small():
            return
        self.send(P.AddBot(strategy=self.bot_level, name=self._bot_name()))

    def cycle_bot_level(self) -> None:
        """The next level for the bots added from now on (easy, normal, hard, easy…)."""
        levels = list(BOT_LEVELS)
        i = levels.index(self.bot_level) if self.bot_level in levels else -1
        self.bot_level = levels[(i + 1) % len(levels)]
        self.status(f"Bots you add now are {LEVEL_WORDS[self.bot_level]}.", "info")

    def _bot_name(self, extra: int = 0) -> str:
        """"Bot 1", "Bot 2", …: the lowest number no bot at the table has (the server
        would name a bot after its seat: Bot-1, Bot-3, no Bot-2)."""
        t = self.model.table
        names = {s.name for s in t.seats if s is not None} if t is not None else set()
        n, skipped = 1, 0
        while True:
            name = f"Bot {n}"
            if name not in names:
                if skipped == extra:
                    return name
                skipped += 1
            n += 1

    def remove_bot(self) -> None:
        if self._too_small():
            return
        t = self.model.table
        bots = [i for i, s in enumerate(t.seats) if s is not None and s.strategy] if t else []
        if not bots:
            self.status("There is no bot to remove.", "info")
        else:
            self.send(P.RemoveBot(seat=bots[-1]))

    def start_game(self) -> None:
        """s: start; the empty seats are filled with bots first (as the new-table form
        said, or once s is pressed again)."""
        if self._too_small():
            return
        m = self.model
        t = m.table
        empty = sum(s is None for s in t.seats) if t is not None else 0
        if t is not None and empty and m.is_host and not m.in_game:
            level = self._fill_level
            if level is None:
                if not self._confirm("fill"):
                    seats = "1 seat is" if empty == 1 else f"{empty} seats are"
                    self.status(f"{seats} empty: press s again to fill them with "
                                f"{self.bot_level} bots and start (or wait for friends).",
                                "info", CONFIRM_SECONDS)
                    return
                level = self.bot_level
            for k in range(empty):
                self.send(P.AddBot(strategy=level, name=self._bot_name(k)))
        self.send(P.Start())

    def take_seat(self) -> None:
        """A spectator sits down (if the game has not started)."""
        if self._too_small():
            return
        t = self.model.table
        if t is not None and self.model.watching:
            self.send(P.Join(table_id=t.table_id))

    def leave(self) -> None:
        if self._too_small():
            return
        m = self.model
        if m.table is None:
            return
        if m.in_game and not m.watching and not self._confirm("leave"):
            self.status("Leave the game? The autopilot will play your seat. Press L again.",
                        "error", CONFIRM_SECONDS)
            return
        self.send(P.Leave())

    def quit(self) -> None:
        """q or Ctrl-C: in a game, only when pressed twice."""
        m = self.model
        if self.replay is None and m.in_game and not m.watching and not self._confirm("quit"):
            if self.plan.solo:
                text = "Quit? This ends your solo game (its server stops). Press q again."
            else:
                text = "Quit? The autopilot plays for you until you come back. Press q again."
            self.status(text, "error", CONFIRM_SECONDS)
            return
        self.exit()

    def _confirm(self, what: str) -> bool:
        ui, now = self.ui, self.clock()
        if ui.armed == what and now <= ui.armed_until:
            ui.armed = None
            return True
        ui.armed, ui.armed_until = what, now + CONFIRM_SECONDS
        return False

    # -- replays -------------------------------------------------------------------
    def _replayed(self) -> None:
        """The replay moved: show its model (the sheet as the step leaves it)."""
        replay = self.replay
        assert replay is not None
        self.model = replay.model
        last = replay.messages[replay.steps[replay.position] - 1]
        self.ui.sheet_open = last.TYPE in ("round_scored", "game_over") and \
            not self.ui.help_open

    def replay_speed(self, delta: int) -> None:
        """+ and -: a replay plays faster or slower."""
        if self.replay is not None:
            self.replay.faster(delta)
            self.status(f"Replay speed: {self.replay.speed:g} steps a second.", "info")

    def replay_edge(self, end: bool) -> None:
        """Home and End: a replay's first or last step."""
        if self.replay is not None:
            self.replay.go(len(self.replay.steps) - 1 if end else 0)
            self._replayed()

    def replay_tick(self) -> bool:
        """A playing replay's next step is due (the app calls it each 1/speed s)."""
        replay = self.replay
        if replay is None or not replay.playing:
            return False
        replay.step(+1)
        self._replayed()
        return True

    # -- chat and panels ----------------------------------------------------------
    def send_chat(self, text: str) -> None:
        """Say ``text``; while the connection is down it waits and goes out on reconnect."""
        text = "".join(ch for ch in text if ch.isprintable()).strip()[:500]
        if not text:
            return
        if not self.model.online:
            self._chat_backlog.append(text)
            self.status("Not connected: your message is sent when the connection is back.",
                        "info")
            return
        self.model.said(text)
        self.send(P.Chat(text=text))

    def sync_clock(self) -> None:
        """In a timed game where you are the only human player, ask the server to stop
        the clock while the help or the score sheet covers the table, and to run it
        again once they are closed (docs/CLIENT.md, "The clock")."""
        m = self.model
        seats = m.table.seats if m.table is not None else ()
        solo = m.seat is not None and all(
            s is None or s.kind == "bot" for i, s in enumerate(seats) if i != m.seat)
        covered = self.ui.help_open or self.ui.analysis is not None or (
            self.ui.sheet_open and not self.sheet_inline())
        want = covered and solo and m.online \
            and m.in_game and not m.untimed and self.replay is None
        if want != self._pause_sent:
            self._pause_sent = want
            self.send(P.Pause() if want else P.Resume())

    def toggle_help(self) -> None:
        self.ui.help_open = not self.ui.help_open
        self.ui.help_scroll = 0

    def toggle_sheet(self) -> None:
        """t: the score sheet (bullheads per seat per round), at a table."""
        if self.model.table is None:
            self.status("The score sheet is at a table.", "info")
            return
        self.ui.sheet_open = not self.ui.sheet_open
        self.ui.sheet_auto = False
        if self.ui.sheet_open:
            self.ui.analysis = None  # (the sheet's A opens it again)

    def toggle_preview(self) -> None:
        """p: the line under your hand (where the card would go), on or off for you,
        where the table's host turned the coach on (a rated table never has it)."""
        opts = self.model.options
        if opts is not None and opts.rated:
            self.status("A rated table shows no preview of where a card goes.", "info")
            return
        if opts is not None and not opts.coached:
            self.status("The host has not turned the coach on at this table.", "info")
            return
        self.ui.preview = not self.ui.preview
        self.status(f"The preview under your hand is {'on' if self.ui.preview else 'off'}.",
                    "info")

    def close_overlay(self) -> bool:
        """Esc: close the help, a lobby screen, the analysis or the score sheet; False
        when none was open."""
        if self.ui.help_open:
            self.ui.help_open = False
        elif self.ui.history is not None:
            self.ui.history = None
        elif self.ui.ladder is not None:
            self.ui.ladder = None
        elif self.ui.analysis is not None:
            self.ui.analysis = None
        elif self.ui.sheet_open:
            self.ui.sheet_open = self.ui.sheet_auto = False
        else:
            return False
        return True

    # ------------------------------------------------------------------ LAN
    def look_for_servers(self) -> None:
        """F in the lobby: look on the LAN again; the status line says what is there."""
        from ..discovery import LOOK_FOR

        self.status("Looking for nimmt servers on the LAN…", "info", LOOK_FOR + 2)
        task = asyncio.get_running_loop().create_task(self._look_for_servers())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _look_for_servers(self) -> None:
        from ..discovery import find_servers, found_line

        found = await find_servers()
        self.status(found_line(found), "info", 20.0)
        self.invalidate()

    # ------------------------------------------------------------------ history
    def open_history(self) -> None:
        """H in the lobby: the finished games of the database, newest first."""
        self.ui.ladder = None
        view = HistoryView(self.plan.history_db)
        self.ui.history = view
        task = asyncio.get_running_loop().create_task(self._load_history(view))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _load_history(self, view: HistoryView) -> None:
        try:
            view.games = await asyncio.to_thread(load_history, view.db)
        except HistoryError as exc:
            view.error = f"The games cannot be listed: {exc}"
        self.invalidate()

    def replay_chosen(self) -> None:
        """Enter on the history screen: the chosen game in the replay player, in this
        terminal; the lobby comes back when it is quit."""
        view = self.ui.history
        game = view.chosen if view is not None else None
        if view is None or game is None:
            return
        task = asyncio.get_running_loop().create_task(self._replay(game.id, view.db))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _replay(self, game_id: int, db: str | None) -> None:
        from prompt_toolkit.application import run_in_terminal

        argv = replay_argv(game_id, db)
        done = await run_in_terminal(
            lambda: subprocess.run(argv, stderr=subprocess.PIPE, check=False),
            in_executor=True)
        if done.returncode == 0:
            self.status(f"Back from the replay of game {game_id}.", "info")
        else:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()
            self.status(why[-1] if why else f"The replay of game {game_id} failed.", "error")

    def scroll_log(self, delta: int) -> None:
        self.ui.log_back = max(0, min(self.ui.log_back + delta, len(self.model.log) - 1))
