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
``leaderboard``    the :class:`~nimmt.client.leaderboard.Leaderboard` pages received
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

from typing import Any

from nimmt import protocol as P
from nimmt.protocol import Message, TableInfo

from .cards import row_bullheads
from .decisions import COMMIT, DRAFT, ROW, TIE, Decision
from .leaderboard import rating_text
from .link import LinkLost, LinkRestored
from .model_game import GameMessages, autopilot_words
from .model_state import IN_GAME, PHASES, table_label
from .records import GameResult, LogLine, Notice, RoundResult, SeatView, Step
from .words import code_words, error_hint, queue_words

__all__ = ["TableModel", "SeatView", "LogLine", "RoundResult", "GameResult", "PHASES", "Step",
           "Notice"]


class TableModel(GameMessages):
    """The client's picture of the server: lobby, table and game. See the module doc."""

    # ------------------------------------------------------------------ derived
    @property
    def in_game(self) -> bool:
        return self.phase in IN_GAME

    @property
    def is_host(self) -> bool:
        return self.table is not None and self.seat is not None and self.table.host == self.seat

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
                rating=s.rating if s else None, games=s.games if s else 0,
            ))
        return out

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
        """Seconds until the deadline of what the table waits for now, or ``None``
        (while the clock is paused, what is left when it runs again)."""
        now = self.clock() if now is None else now
        if self.paused_since is not None:
            now = self.paused_since
        if self.pending is not None and self.pending.deadline is not None:
            left = self.pending.deadline - now
        elif self.phase == "commit" and self.turn_deadline is not None:
            left = self.turn_deadline - now
        else:
            return None
        if left <= 0:  # someone may be on extra time: the longest of theirs
            extra = [e for s in self.awaited() if (e := self.extra_left(s, now)) is not None]
            return max(extra, default=0.0)
        return left

    def awaited(self) -> list[int]:
        """The seats the table waits for now (a row, tie or draft decision: one)."""
        if self.pending is not None:
            return [self.pending.seat]
        if self.phase == "commit" and self.table is not None:
            return [i for i, s in enumerate(self.table.seats)
                    if s is not None and i not in self.committed]
        return []

    def extra_left(self, seat: int, now: float | None = None) -> float | None:
        """The extra time (time bank) ``seat`` has left on the decision awaited from it,
        once that decision's own time is up; ``None``: its time is not up (or nothing
        is awaited from it). Yours is what the server said; another seat's is
        reckoned here from what it used of its bank before."""
        now = self.clock() if now is None else now
        if self.paused_since is not None:
            now = self.paused_since
        if seat not in self.awaited():
            return None
        if seat == self.seat and self.extra_time:
            return None  # the deadline is already our later one: the clock shows it
        deadline = self.pending.deadline if self.pending is not None else self.turn_deadline
        if deadline is None or now < deadline or not 0 <= seat < len(self.banks):
            return None
        return max(0.0, deadline + self.banks[seat] - now)

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
        self.evening.see(msg, self.table)
        if not isinstance(msg, _BACK_MESSAGES) or (
                isinstance(msg, P.TableUpdated) and self.table is None):
            self._back = None  # a resume's seat comes at once, or not at all
            if self._back_line is not None:  # no snapshot came: where we are, alone
                self._say(self._back_line + ".", "link")
                self._back_line = None

    def _back_at(self, where: str, playing: bool) -> bool:
        """A resume put us ``where``: said in one line (with the game's round and turn
        from the snapshot that follows when ``playing``); False: not a resume."""
        if self._back is None:
            return False
        line, self._back = f"{self._back}: you are {where}", None
        if playing:
            self._back_line = line
        else:
            self._say(line + ".", "link")
        return True

    # -- session ---------------------------------------------------------------
    def _on_welcome(self, m: P.Welcome) -> None:
        fresh = self.token is not None and not m.resumed
        if m.resumed:
            self._back = "Reconnected" if self.token is not None else "Welcome back"
        asked = self.my_name
        self.my_name, self.token, self.server, self.limits = m.name, m.token, m.server, m.limits
        self.claimed = m.claimed  # rated tables and the queue are for claimed names
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

    def seat_not_kept(self, why: str) -> str | None:
        """This run did not take back the seat an earlier one had (:attr:`kept_seat_at`):
        say so in the log, with ``why``; the line said, or None (no seat was kept)."""
        where, self.kept_seat_at = self.kept_seat_at, None
        if where is None:
            return None
        text = f"Your seat at table {where} could not be kept: {why}."
        self._say(text, "error")
        return text

    def _on_link_lost(self, m: LinkLost) -> None:
        self.online = False
        self.lost_at = self.clock()
        self.totals_at_drop = list(self.totals)
        self.lost_deadline = self.phase == "commit" or self.pending is not None
        self.resyncing = self.table is not None
        self.server_stopped = m.stopped
        if m.stopped:
            self._say(self._stopped_text(m.address), "link")
        else:
            self._say(f"Connection lost ({m.reason}) — reconnecting…", "link")

    def _stopped_text(self, address: str) -> str:
        again = f"nimmt-client {address}".strip()
        if self.table is not None and self.seat is not None and not self.watching:
            kept = "your game is kept" if self.in_game else "your seat is kept"
            return (f"The server stopped; {kept}. Once it is started again you are back at "
                    f"your seat: wait here, or quit with q and run {again} then.")
        if self.table is not None:
            return ("The server stopped. Once it is started again you watch the table "
                    f"again: wait here, or quit with q and run {again} then.")
        return ("The server stopped; you are no longer in the queue. Once it is started "
                "again you queue again: wait here, or quit with q.")

    def _on_link_restored(self, m: LinkRestored) -> None:
        self.queued = None  # a queue entry belongs to the connection that made it
        self.server_stopped = False
        self._on_welcome(m.welcome)
        if m.welcome.resumed and self.table is None:
            self._back = None  # (in the lobby: nothing follows)
            self._say("Reconnected.", "link")

    def _on_goodbye(self, m: P.Goodbye) -> None:
        self.goodbye = m
        gone = self.nothing_kept_text()
        if gone is not None:
            self._say(gone, "error")
            return
        text = m.message or m.reason.replace("_", " ")
        self._say(f"The server closed the connection: {text}.", "error")

    def nothing_kept_text(self) -> str | None:
        """What a server stopping without keeping its games (goodbye ``kept`` false)
        ended for us, or None: another goodbye, or nothing of ours to end (the lobby)."""
        g = self.goodbye
        if g is None or g.reason != "server_shutdown" or g.kept is not False:
            return None
        if self.table is not None and self.seat is not None and not self.watching:
            what = "your game is over" if self.in_game else "your seat is gone"
        elif self.table is not None:
            what = "the table you watched is gone"
        elif self.queued is not None:
            what = "you are no longer in the queue"
        else:
            return None
        return f"The server stopped and keeps no games (it ran without a database): {what}."

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
            self._rating_changes(self.table, t)
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
                be = w.verb(i, "is", "are")
                whom = w.verb(i, "them", "you")
                text = f"{be} back" if b.connected else f"{be} away (the autopilot may play for {whom})"
                self._say(f"{w.subject(i)} {text}.", "info")
        if old.host != new.host and new.host is not None:
            self._say(f"{w.subject(new.host)} {w.verb(new.host, 'is', 'are')} the host now.",
                      "info")

    def _rating_changes(self, old: TableInfo, new: TableInfo) -> None:
        """A rated game's end: what it did to each rating (the ``table_updated`` after
        ``game_over`` carries the new ones; a name starts at 0)."""
        if not new.options.rated or self.phase != "over":
            return
        changes = []
        for a, b in zip(old.seats, new.seats, strict=False):
            if a is None or b is None or b.rating is None or a.name != b.name \
                    or (a.rating == b.rating and a.games == b.games):
                continue
            before = rating_text(a.rating if a.rating is not None else 0.0)
            changes.append(f"{b.name} {before} → {rating_text(b.rating)}")
        if changes:
            self._say(f"Ratings after this game: {', '.join(changes)}.", "round")

    def _on_leaderboard_page(self, m: P.LeaderboardPage) -> None:
        self.leaderboard.apply(m)

    def _on_table_closed(self, m: P.TableClosed) -> None:
        self.tables = [t for t in self.tables if t.table_id != m.table_id]

    # -- the ladder queue (protocol 2) -----------------------------------------
    def _on_queued(self, m: P.Queued) -> None:
        if m.re is not None:  # the answer (a refresh changes the lobby's line only)
            self._say(f"You wait in the queue: {queue_words(m)}.", "info")
        self.queued, self.queued_at = m, self.clock()

    def _on_queue_left(self, m: P.QueueLeft) -> None:
        self.queued = None
        if m.reason == "left":
            self._say("You left the queue.", "info")

    def _on_seated(self, m: P.Seated) -> None:
        self.queued = None  # (a table the queue formed)
        was_here = self.table is not None and self.table.table_id == m.table.table_id
        if not was_here or self.watching:
            self._reset_game()
            self.phase = "over" if m.table.status == "over" else "waiting"
        self._set_table(m.table)
        self.seat, self.watching = m.seat, False
        self._scores_from(m.round_penalties)
        self._autoplayed_back = list(m.autoplayed)
        if m.table.status != "playing":
            self.resyncing = False  # no game: no snapshot follows
        self._bring_back()
        if not self._back_at(f"at table {table_label(m.table)}, seat {m.seat + 1}",
                             m.table.status == "playing"):
            self._say(f"You sit at table {table_label(m.table)}, seat {m.seat + 1}.", "info")
        if m.table.status != "playing" and self._autoplayed_back:
            made, self._autoplayed_back = self._autoplayed_back, []
            self._say(autopilot_words(made) + ".", "warn")
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
        self._scores_from(m.round_penalties)
        if m.table.status != "playing":
            self.resyncing = False
        self.phase = {"playing": "deal", "over": "over"}.get(m.table.status, "waiting")
        self._bring_back()
        if not self._back_at(f"watching table {table_label(m.table)}",
                             m.table.status == "playing"):
            self._say(f"You watch table {table_label(m.table)}.", "info")

    def _on_left(self, m: P.Left) -> None:
        why = {"left": "You left", "kicked": "You were removed from",
               "table_closed": "The server closed"}.get(m.reason, "You left")
        self._leave_table()
        self._say(f"{why} table {m.table_id}.", "info")


#: what may come between a resume's ``welcome`` and the ``snapshot`` that ends it
_BACK_MESSAGES = (P.Welcome, LinkRestored, P.Seated, P.Watching, P.TableUpdated, P.Pong,
                  P.Ping)


def _tag(msg: Any) -> str:
    if isinstance(msg, LinkLost):
        return "link_lost"
    if isinstance(msg, LinkRestored):
        return "link_restored"
    return getattr(msg, "TYPE", "")
