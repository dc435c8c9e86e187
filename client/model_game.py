"""The game's messages (rounds, the draft, turns, the resolution, scores and the
snapshot after a reconnect) applied to a :class:`~.model_state.TableState`."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from nimmt import protocol as P

from .cards import MAX_ROW
from .decisions import COMMIT, DRAFT, ROW, TIE, Pending
from .model_state import TableState, table_label
from .records import GameResult, Notice, RoundResult, Step
from .words import cards_text, deadline_warning_text, extra_time_text, place_text, rows_text

__all__ = ["GameMessages", "autopilot_words"]


def _listed(items: list[str]) -> str:
    """``"46"``, ``"46 and 52"``, ``"46, 52 and 7"``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def autopilot_words(made: list[P.Autoplayed], now: int | None = None) -> str:
    """What the autopilot did for us while we were away, as ``seated.autoplayed``
    lists it: ``"While you were away the autopilot played 46 and 52 and took row 2
    for you"`` (no full stop). Rounds are named unless every decision is of round
    ``now`` (the round being played)."""
    rounds: list[tuple[int, list[tuple[str, list[str]]]]] = []
    for a in made:
        if a.kind == "commit":
            verb, what = "played", str(a.card)
        elif a.kind == "draft":
            verb, what = "picked", str(a.card)
        elif a.kind == "row":
            verb, what = "took", f"row {(a.row or 0) + 1}"
        else:
            side = "before" if a.end == "left" else "after"
            verb, what = "put", f"{a.card} {side} row {(a.row or 0) + 1}"
        if not rounds or rounds[-1][0] != a.round:
            rounds.append((a.round, []))
        acts = rounds[-1][1]
        if acts and acts[-1][0] == verb:
            acts[-1][1].append(what)
        else:
            acts.append((verb, [what]))
    named = len(rounds) > 1 or (bool(rounds) and rounds[0][0] != now)
    parts = [_listed([f"{verb} {_listed(whats)}" for verb, whats in acts])
             + (f" in round {number}" if named else "") for number, acts in rounds]
    return f"While you were away the autopilot {_listed(parts)} for you"


class GameMessages(TableState):
    """``_on_<message type>`` for each game message; ``TableModel.apply`` calls them."""

    if TYPE_CHECKING:
        @property
        def hurry(self) -> bool:
            """``TableModel.hurry`` (it needs ``TableModel.decision``)."""
            ...

    # -- game ------------------------------------------------------------------
    def _on_round_started(self, m: P.RoundStarted) -> None:
        if m.round == 1 or self.phase in ("waiting", "over"):
            self.result = None
            self.last_round = None
            self.scores = []
            self._forget_analyses()
            self.totals = [0] * len(self.totals)
            self._fill_banks()
        self.phase = "draft" if self.options and self.options.draft else "deal"
        if self.table is not None and self.table.status != "playing":
            # the server announces a start with round_started alone (no table_updated)
            self.table = dataclasses.replace(self.table, status="playing")
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
        self.extra_time = False

    def _on_draft_picked(self, m: P.DraftPicked) -> None:
        if m.seat == self.seat:
            self._autopilot(DRAFT, f"picked {m.card}")
        if m.card in self.draft_pool:
            self.draft_pool.remove(m.card)
        self.draft_picks.append((m.seat, m.card))
        if m.seat == self.seat and m.card not in self.hand:
            self.hand = sorted([*self.hand, m.card])
        if self.pending is not None and self.pending.kind == DRAFT and self.pending.seat == m.seat:
            self._used_bank(m.seat, self.pending.deadline)
            self.pending = None
        w = self.words
        self._say(f"{w.subject(m.seat)} {w.verb(m.seat, 'picks', 'pick')} {m.card}.")

    def _on_hand_dealt(self, m: P.HandDealt) -> None:
        self.hand = sorted(m.cards)
        self._say(f"Your hand: {cards_text(self.hand)}.", "info")

    def _on_rows_dealt(self, m: P.RowsDealt) -> None:
        self.rows = [list(r) for r in m.rows]
        self.seen.update(c for r in self.rows for c in r)
        self.trail.dealt(m.rows)
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
                if self.seat not in self.committed:
                    self._used_bank(self.seat, self.turn_deadline)
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
        before = self.turn_deadline if m.kind == COMMIT else (
            self.pending.deadline if self.pending is not None else None)
        bank = self.options.time_bank if self.options is not None else 0.0
        if bank > 0 and self.seat is not None and self.seat < len(self.banks) \
                and before is not None and self.clock() >= before - 1.0:
            self.banks[self.seat] = m.remaining  # the server's own count of it
        if m.kind == COMMIT:
            self.turn_deadline = deadline
        elif self.pending is not None:
            self.pending.deadline = deadline
        if bank > 0 and before is not None and self.clock() >= before - 1.0:
            # the time given is up: this is your own later deadline (your time bank)
            self.extra_time = True
            self._say(extra_time_text(m.kind, m.remaining), "warn")
            return
        self._say(deadline_warning_text(m.kind, m.remaining), "warn")

    def _on_clock_paused(self, m: P.ClockPaused) -> None:
        was = self.paused_since is not None
        self.paused_since = self.clock() if m.paused else None
        deadline = self._deadline(m.remaining)
        if deadline is not None:
            if self.pending is not None:
                self.pending.deadline = deadline
            elif self.phase == "commit":
                self.turn_deadline = deadline
        if m.paused and not was:
            self._say("The clock is paused while you read.", "info")
        elif was and not m.paused:
            self._say("The clock runs again.", "info")

    def _on_seat_committed(self, m: P.SeatCommitted) -> None:
        if m.seat not in self.committed:
            self._used_bank(m.seat, self.turn_deadline)
        self.committed.add(m.seat)

    def _on_revealed(self, m: P.Revealed) -> None:
        self.phase = "resolve"
        self.step = None
        for seat, _ in m.plays:  # the autopilot's commits: at the seat's later deadline
            if seat not in self.committed:
                self._used_bank(seat, self.turn_deadline)
        self.revealed = [(s, c) for s, c in m.plays]
        self.seen.update(c for _, c in self.revealed)
        self.trail.revealed(m.plays)
        self.unresolved = list(self.revealed)
        self.committed = {s for s, _ in self.revealed}
        self.turn_deadline = None
        self.my_commit = None
        for s, c in self.revealed:
            if s == self.seat and c in self.hand:
                self.hand.remove(c)
        plays = ", ".join(f"{'you' if s == self.seat else self.name_of(s)} {c}"
                          for s, c in self.revealed)
        self._say(f"Turn {self.turn}: {plays}.")

    def _on_row_choice_needed(self, m: P.RowChoiceNeeded) -> None:
        self.trail.must_choose(m.seat, "row")
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
        if self.seat is not None:
            self.trail.must_choose(self.seat, "row")
        self.pending = Pending(ROW, self.seat if self.seat is not None else 0, True, m.round,
                               turn=m.turn, card=m.card, rows=tuple(m.rows),
                               deadline=self._deadline(m.remaining), requested=True)
        self.extra_time = False

    def _on_tie_choice_needed(self, m: P.TieChoiceNeeded) -> None:
        self.trail.must_choose(m.seat, "tie")
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
        if self.seat is not None:
            self.trail.must_choose(self.seat, "tie")
        self.pending = Pending(TIE, self.seat if self.seat is not None else 0, True, m.round,
                               turn=m.turn, card=m.card, places=tuple(m.places),
                               deadline=self._deadline(m.remaining), requested=True)
        self.extra_time = False

    def _on_row_taken(self, m: P.RowTaken) -> None:
        while len(self.rows) <= m.row:
            self.rows.append([])
        self.rows[m.row] = []
        self.trail.taken(m)
        self.step = Step(m.seat, m.row, taken=tuple(m.cards), bullheads=m.bullheads)
        if m.seat == self.seat:
            self._autopilot(ROW, f"took row {m.row + 1}")
        if m.seat < len(self.penalties):
            self.penalties[m.seat] += m.bullheads
        chosen = (self.pending is not None and self.pending.kind == ROW
                  and self.pending.seat == m.seat)
        if chosen and self.pending is not None:
            self._used_bank(m.seat, self.pending.deadline)
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
        self.trail.placed(m)
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
            self._used_bank(m.seat, self.pending.deadline)
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
        self.scores = [r for r in self.scores if r.round < m.round] + [self.last_round]
        parts = ", ".join(f"{'you' if s == self.seat else self.name_of(s)} +{p}"
                          for s, p in enumerate(m.penalties))
        self._say(f"Round {m.round} scored: {parts}.", "round")
        if self.seat is not None and not self.watching and self.options is not None:
            record = self.trail.record(self.options, [self.name_of(s)
                                                      for s in range(len(m.penalties))])
            if record is not None:
                self.to_analyse.append((m.round, record))
            else:
                self.not_to_analyse.append((m.round, self._why_not_analysed()))

    def _why_not_analysed(self) -> str:
        if self.options is not None and self.options.draft:
            return "a Draft round is not (a pick has up to 104 choices)"
        if not self.trail.whole:
            return "you came back to it part-way, and the cards taken before are in no snapshot"
        return "this client did not see the whole of it"

    def _on_game_over(self, m: P.GameOver) -> None:
        self.phase = "over"
        self.paused_since = None
        self.pending = None
        self.turn_deadline = None
        self.step = None  # the last card placed is an ordinary card now
        self.revealed, self.unresolved = [], []
        self.totals = list(m.totals)
        self.result = GameResult(tuple(m.totals), tuple(m.places), tuple(m.winners))
        w = self.words
        names = _listed([w.subject(s, mid=i > 0) for i, s in enumerate(m.winners)])
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
        away = self._before_snapshot(m)
        self.resyncing = False
        self.paused_since = None  # the server resumes a clock when its player drops
        self.step = None
        self.lost_deadline = False
        self._set_table(m.table)
        self.seat, self.watching = m.seat, m.seat is None
        self.phase = m.phase
        if m.round != self.round:
            self.seen = set()
        self.trail.broken()
        self.round, self.turn = m.round, m.turn
        self.hand = sorted(m.hand)
        self.rows = [list(r) for r in m.rows]
        self.my_commit = m.commit
        self.committed = set(m.committed)
        self.revealed = [(s, c) for s, c in m.revealed]
        # (cards taken earlier this round are in no snapshot: they count as unseen)
        self.seen.update(c for r in self.rows for c in r)
        self.seen.update(c for _, c in self.revealed)
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
        self._bring_back()
        where = f"round {m.round}, turn {m.turn}" if m.turn else f"round {m.round}"
        if self._back_line is not None:  # a resume: where we are and when, one line
            self._say(f"{self._back_line}; the game is at {where}.", "link")
            self._back_line = None
        else:
            self._say(f"Table {table_label(m.table)}: the game is at {where}.", "info")
        if away is not None:
            self._say(away, "warn")

    def _before_snapshot(self, m: P.Snapshot) -> str | None:
        """What the autopilot did for our seat while we were away, in words (None:
        nothing, or we cannot know): as the resume's ``seated`` lists it (protocol 4),
        else read from the hand we had and the one the snapshot shows (the server
        does not replay the events we missed)."""
        made, self._autoplayed_back = self._autoplayed_back, []
        if (m.seat is None or m.seat != self.seat or self.watching or self.table is None
                or self.table.table_id != m.table.table_id):
            return None
        if m.phase == "commit":  # the turn's commit is still ours to replace: not told
            made = [a for a in made if (a.kind, a.round, a.turn) != ("commit", m.round, m.turn)]
        if not self.round:  # a new run: what the server lists is all we know
            return autopilot_words(made, m.round) + "." if made else None
        totals, self.totals_at_drop = self.totals_at_drop or self.totals, None
        before = totals[m.seat] if m.seat < len(totals) else 0
        info = m.table.seats[m.seat] if m.seat < len(m.table.seats) else None
        taken = (info.total if info is not None else before) - before
        heads = (f" (you took {taken} bullhead{'s' if taken != 1 else ''})" if taken > 0
                 else "")
        if made:
            return f"{autopilot_words(made, m.round)}{heads}."
        if m.round == self.round:
            gone = sorted(set(self.hand) - set(m.hand) - {self.my_commit})
            if not gone:
                return None
            cards = " and ".join([", ".join(map(str, gone[:-1])), str(gone[-1])]
                                 if len(gone) > 1 else [str(gone[0])])
            return f"While you were away the autopilot played {cards} for you{heads}."

        if m.round > self.round:
            return (f"While you were away the autopilot played your turns from round "
                    f"{self.round} to round {m.round}{heads}.")
        return None
