"""Follow one seat's protocol messages and give strategies an engine ``View``.

A network bot sees only what the server sends to its seat; ``SeatTracker``
turns those messages into the same ``View`` that ``Game.view(seat)`` gives
in-process, so every strategy plays over the network unchanged, and turns the
strategy's decision back into the protocol message that answers the request.
"""

from __future__ import annotations

from nimmt import protocol as wire
from nimmt.engine import (
    AwaitingCommits,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
    ChooseRow,
    ChooseTie,
    Commit,
    Decision,
    DraftPick,
    End,
    GameResult,
    Options,
    Pending,
    Phase,
    Place,
    View,
)

__all__ = ["SeatTracker", "options_from_wire"]

_SNAPSHOT_PHASES = {
    "waiting": Phase.DEAL,
    "draft": Phase.DRAFT,
    "commit": Phase.COMMIT,
    "resolve": Phase.COMMIT,
    "scored": Phase.DEAL,
    "over": Phase.OVER,
}


def options_from_wire(options: wire.TableOptions) -> Options:
    """The engine options of a table's wire options (timers are the server's)."""
    return Options(
        players=options.seats,
        tactic_deck=options.tactic_deck,
        draft=options.draft,
        professional=options.professional,
        point_limit=options.point_limit,
        rounds=options.rounds,
    )


class SeatTracker:
    """The state one seat can see, rebuilt from the messages it receives."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.options: Options | None = None
        self._reset_game(players=0)

    def _reset_game(self, players: int) -> None:
        self.round = 0
        self.turn = 0
        self.phase = Phase.DEAL
        self.hand: list[int] = []
        self.own_commit: int | None = None
        self.rows: list[list[int]] = []
        self.totals = [0] * players
        self.penalties = [0] * players
        self.committed: set[int] = set()
        self.revealed: tuple[tuple[int, int], ...] = ()
        self.unresolved: list[tuple[int, int]] = []
        self.seen: list[int] = []
        self.draft_pool: list[int] = []
        self.draft_picks: list[tuple[int, int]] = []
        self.pending: Pending | None = None
        self.request: wire.Message | None = None  # the decision request awaiting my answer
        self.result: GameResult | None = None

    # ------------------------------------------------------------------ input

    def apply(self, message: wire.Message) -> None:
        """Take one message the server sent to this connection."""
        handler = getattr(self, "_on_" + type(message).__name__, None)
        if handler is not None:
            handler(message)

    def _on_Seated(self, m: wire.Seated) -> None:
        self._take_table(m.table, m.seat)

    def _on_Watching(self, m: wire.Watching) -> None:
        self._take_table(m.table, None)

    def _on_Left(self, m: wire.Left) -> None:
        self.seat = None
        self.options = None
        self._reset_game(players=0)

    def _take_table(self, table: wire.TableInfo, seat: int | None) -> None:
        self.seat = seat
        self.options = options_from_wire(table.options)
        self._reset_game(players=table.options.seats)
        for index, info in enumerate(table.seats):
            if info is not None:
                self.totals[index] = info.total
                self.penalties[index] = info.penalties

    def _on_RoundStarted(self, m: wire.RoundStarted) -> None:
        players = len(self.totals)
        if m.round == 1:
            self.totals = [0] * players
        self.round, self.turn, self.phase = m.round, 0, Phase.DEAL
        self.penalties = [0] * players
        self.hand, self.rows, self.seen = [], [], []
        self.draft_pool, self.draft_picks = [], []
        self.result = None
        self.pending = AwaitingDeal(m.round, rows_only=False)
        self.request = None

    def _on_DraftOpened(self, m: wire.DraftOpened) -> None:
        self.phase = Phase.DRAFT
        self.draft_pool = list(m.pool)

    def _on_DraftPickNeeded(self, m: wire.DraftPickNeeded) -> None:
        self.pending = AwaitingDraftPick(m.seat, m.round, m.pick)

    def _on_DraftPickRequest(self, m: wire.DraftPickRequest) -> None:
        self.phase = Phase.DRAFT
        self.pending = AwaitingDraftPick(self.seat if self.seat is not None else 0, m.round, m.pick)
        self.request = m

    def _on_DraftPicked(self, m: wire.DraftPicked) -> None:
        if m.card in self.draft_pool:
            self.draft_pool.remove(m.card)
        self.draft_picks.append((m.seat, m.card))
        self.seen.append(m.card)
        if m.seat == self.seat:
            self.hand = sorted([*self.hand, m.card])
            self.request = None

    def _on_HandDealt(self, m: wire.HandDealt) -> None:
        self.hand = sorted(m.cards)

    def _on_RowsDealt(self, m: wire.RowsDealt) -> None:
        self.rows = [list(r) for r in m.rows]
        self.seen.extend(c for r in m.rows for c in r)
        self.draft_pool = []

    def _on_TurnStarted(self, m: wire.TurnStarted) -> None:
        self.round, self.turn, self.phase = m.round, m.turn, Phase.COMMIT
        self.committed = set()
        self.own_commit = None
        self.revealed, self.unresolved = (), []
        self.request = m
        self._commit_pending()

    def _commit_pending(self) -> None:
        players = len(self.totals)
        committed = frozenset(self.committed)
        self.pending = AwaitingCommits(self.round, self.turn, frozenset(range(players)) - committed, committed)

    def _on_CommitAccepted(self, m: wire.CommitAccepted) -> None:
        self.own_commit = m.card

    def _on_SeatCommitted(self, m: wire.SeatCommitted) -> None:
        self.committed.add(m.seat)
        if self.phase is Phase.COMMIT:
            self._commit_pending()

    def _on_Revealed(self, m: wire.Revealed) -> None:
        self.revealed = tuple((s, c) for s, c in m.plays)
        self.unresolved = list(self.revealed)
        for seat, card in self.revealed:
            self.seen.append(card)
            if seat == self.seat and card in self.hand:
                self.hand.remove(card)
        self.committed = set()
        self.own_commit = None
        self.pending = None
        self.request = None

    def _on_RowChoiceNeeded(self, m: wire.RowChoiceNeeded) -> None:
        self.phase = Phase.ROW_CHOICE
        self.pending = AwaitingRowChoice(m.seat, m.card)

    def _on_RowChoiceRequest(self, m: wire.RowChoiceRequest) -> None:
        self.phase = Phase.ROW_CHOICE
        self.pending = AwaitingRowChoice(self.seat if self.seat is not None else 0, m.card)
        self.request = m

    def _on_TieChoiceNeeded(self, m: wire.TieChoiceNeeded) -> None:
        self.phase = Phase.TIE_CHOICE
        self.pending = AwaitingTieChoice(m.seat, m.card, tuple(_place(p) for p in m.places))

    def _on_TieChoiceRequest(self, m: wire.TieChoiceRequest) -> None:
        self.phase = Phase.TIE_CHOICE
        seat = self.seat if self.seat is not None else 0
        self.pending = AwaitingTieChoice(seat, m.card, tuple(_place(p) for p in m.places))
        self.request = m

    def _on_RowTaken(self, m: wire.RowTaken) -> None:
        self.rows[m.row] = []
        self.penalties[m.seat] += m.bullheads

    def _on_Placed(self, m: wire.Placed) -> None:
        row = self.rows[m.row]
        if m.end == "left":
            row.insert(0, m.card)
        else:
            row.append(m.card)
        if (m.seat, m.card) in self.unresolved:
            self.unresolved.remove((m.seat, m.card))
        if self.phase in (Phase.ROW_CHOICE, Phase.TIE_CHOICE):
            self.phase = Phase.COMMIT
            self.pending = None
            self.request = None

    def _on_RoundScored(self, m: wire.RoundScored) -> None:
        self.totals = list(m.totals)
        self.penalties = list(m.penalties)
        self.phase = Phase.DEAL
        self.pending = None
        self.request = None

    def _on_GameOver(self, m: wire.GameOver) -> None:
        self.totals = list(m.totals)
        self.result = GameResult(tuple(m.totals), tuple(m.places), tuple(m.winners))
        self.phase = Phase.OVER
        self.pending = None
        self.request = None

    def _on_Snapshot(self, m: wire.Snapshot) -> None:
        self._take_table(m.table, m.seat)
        self.round, self.turn = m.round, m.turn
        self.phase = _SNAPSHOT_PHASES[m.phase]
        self.hand = sorted(m.hand)
        self.own_commit = m.commit
        self.rows = [list(r) for r in m.rows]
        self.committed = set(m.committed)
        self.revealed = tuple((s, c) for s, c in m.revealed)
        self.unresolved = list(self.revealed)
        self.seen = [c for r in m.rows for c in r] + [c for _, c in m.draft_picks]
        self.draft_pool = list(m.draft_pool)
        self.draft_picks = [(s, c) for s, c in m.draft_picks]
        self.request = None
        self.pending = None
        if self.phase is Phase.COMMIT and m.phase == "commit":
            self._commit_pending()
            self.request = m
        pending = m.pending
        if pending is not None:
            if pending.kind == "row":
                self.phase = Phase.ROW_CHOICE
                self.pending = AwaitingRowChoice(pending.seat, pending.card or 0)
            elif pending.kind == "tie":
                self.phase = Phase.TIE_CHOICE
                self.pending = AwaitingTieChoice(
                    pending.seat, pending.card or 0, tuple(_place(p) for p in pending.places)
                )
            else:
                self.phase = Phase.DRAFT
                self.pending = AwaitingDraftPick(pending.seat, m.round, pending.pick or 1)
            # The server sends the request itself again after the snapshot; that
            # message, not the snapshot, is what a decision answers.

    # ------------------------------------------------------------------ output

    def view(self) -> View:
        """This seat's view now, in the engine's terms."""
        if self.options is None:
            raise ValueError("not at a table yet")
        return View(
            seat=self.seat,
            options=self.options,
            round=self.round,
            turn=self.turn,
            phase=self.phase,
            hand=tuple(self.hand),
            own_commit=self.own_commit,
            rows=tuple(tuple(r) for r in self.rows),
            totals=tuple(self.totals),
            penalties=tuple(self.penalties),
            committed=frozenset(self.committed),
            revealed=self.revealed,
            unresolved=tuple(self.unresolved),
            seen=tuple(self.seen),
            draft_pool=tuple(self.draft_pool),
            draft_picks=tuple(self.draft_picks),
            pending=self.pending,
            legal=self.legal(),
            result=self.result,
        )

    def legal(self) -> tuple[Decision, ...]:
        """What this seat may decide now: nothing unless a request awaits an answer."""
        seat, request = self.seat, self.request
        if seat is None or request is None:
            return ()
        if isinstance(request, (wire.TurnStarted, wire.Snapshot)):
            return tuple(Commit(seat, c) for c in self.hand)
        if isinstance(request, wire.RowChoiceRequest):
            return tuple(ChooseRow(seat, r) for r in request.rows)
        if isinstance(request, wire.TieChoiceRequest):
            return tuple(ChooseTie(seat, _place(p)) for p in request.places)
        if isinstance(request, wire.DraftPickRequest):
            return tuple(DraftPick(seat, c) for c in request.pool)
        return ()

    def answer(self, decision: Decision) -> wire.Message:
        """The protocol message that sends ``decision`` for the request awaiting it."""
        request = self.request
        if isinstance(decision, Commit):
            return wire.Commit(round=self.round, turn=self.turn, card=decision.card)
        if isinstance(decision, ChooseRow) and isinstance(request, wire.RowChoiceRequest):
            return wire.ChooseRow(round=request.round, turn=request.turn, row=decision.row)
        if isinstance(decision, ChooseTie) and isinstance(request, wire.TieChoiceRequest):
            place = wire.Place(row=decision.place.row, end=End(decision.place.end).value)
            return wire.ChooseTie(round=request.round, turn=request.turn, place=place)
        if isinstance(decision, DraftPick) and isinstance(request, wire.DraftPickRequest):
            return wire.DraftPick(round=request.round, pick=request.pick, card=decision.card)
        raise ValueError(f"{decision!r} answers no request awaiting this seat")


def _place(place: wire.Place) -> Place:
    return Place(place.row, End(place.end))
