"""Give strategies an engine ``View`` of what one network seat has been sent.

A network bot sees only the messages the server sends to its seat. The
client's ``TableModel`` follows them (resuming after a drop included);
``SeatTracker`` reads that model as the same ``View`` that ``Game.view(seat)``
gives in-process, so every strategy plays over the network unchanged, and turns
the strategy's decision back into the protocol message that answers it.
"""

from __future__ import annotations

from nimmt import protocol as wire
from nimmt.client.decisions import COMMIT, DRAFT, ROW, TIE
from nimmt.client.decisions import Decision as Request
from nimmt.client.link import LinkEvent
from nimmt.client.model import TableModel
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

_PHASES = {"draft": Phase.DRAFT, "commit": Phase.COMMIT, "resolve": Phase.COMMIT, "over": Phase.OVER}


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


def _place(place: wire.Place) -> Place:
    return Place(place.row, End(place.end))


class SeatTracker:
    """One seat's picture of its table, as the engine's ``View``."""

    def __init__(self) -> None:
        self.model = TableModel()
        self._seen: list[int] = []
        self._plays: list[tuple[int, int]] = []

    @property
    def seat(self) -> int | None:
        return self.model.seat

    @property
    def request(self) -> Request | None:
        """What the server asks of this seat now (None: nothing)."""
        return self.model.decision

    def apply(self, message: wire.Message | LinkEvent) -> None:
        """Take one message the server sent (or a link notice), in order."""
        self.model.apply(message)
        if isinstance(message, wire.RoundStarted):
            self._seen = []
            self._plays = []
        elif isinstance(message, wire.RowsDealt):
            self._seen.extend(c for row in message.rows for c in row)
        elif isinstance(message, wire.Revealed):
            self._seen.extend(card for _, card in message.plays)
            self._plays.extend((seat, card) for seat, card in message.plays)
        elif isinstance(message, wire.DraftPicked):
            self._seen.append(message.card)
        elif isinstance(message, wire.Snapshot):
            # What was seen before the snapshot is not in it: keep what is on view.
            self._seen = [c for row in message.rows for c in row]
            self._seen += [c for _, c in message.revealed] + [c for _, c in message.draft_picks]
            # nor who played the earlier turns' cards: the round's plays start unknown
            self._plays = []

    def view(self) -> View:
        """This seat's view now, in the engine's terms."""
        m = self.model
        if m.options is None:
            raise ValueError("not at a table yet")
        phase = _PHASES.get(m.phase, Phase.DEAL)
        pending: Pending | None
        p = m.pending
        if p is not None and p.kind == ROW:
            phase, pending = Phase.ROW_CHOICE, AwaitingRowChoice(p.seat, p.card or 0)
        elif p is not None and p.kind == TIE:
            phase = Phase.TIE_CHOICE
            pending = AwaitingTieChoice(p.seat, p.card or 0, tuple(_place(x) for x in p.places))
        elif p is not None and p.kind == DRAFT:
            phase, pending = Phase.DRAFT, AwaitingDraftPick(p.seat, p.round, p.pick)
        elif m.phase == "commit":
            committed = frozenset(m.committed)
            waiting = frozenset(range(len(m.totals))) - committed
            pending = AwaitingCommits(m.round, m.turn, waiting, committed)
        elif m.phase == "over":
            pending = None
        else:
            pending = AwaitingDeal(m.round, rows_only=False)
        result = None
        if m.result is not None:
            result = GameResult(m.result.totals, m.result.places, m.result.winners)
        return View(
            seat=m.seat,
            options=options_from_wire(m.options),
            round=m.round,
            turn=m.turn,
            phase=phase,
            hand=tuple(m.hand),
            own_commit=m.my_commit,
            rows=tuple(tuple(r) for r in m.rows),
            totals=tuple(m.totals),
            penalties=tuple(m.penalties),
            committed=frozenset(m.committed),
            revealed=tuple(m.revealed),
            unresolved=tuple(m.unresolved),
            seen=tuple(self._seen),
            draft_pool=tuple(m.draft_pool),
            draft_picks=tuple(m.draft_picks),
            pending=pending,
            legal=self.legal(),
            result=result,
            plays=tuple(self._plays),
        )

    def legal(self) -> tuple[Decision, ...]:
        """What this seat may decide now: nothing unless the server asks."""
        seat, request = self.model.seat, self.model.decision
        if seat is None or request is None:
            return ()
        if request.kind == COMMIT:
            return tuple(Commit(seat, c) for c in request.cards)
        if request.kind == ROW:
            return tuple(ChooseRow(seat, r) for r in request.rows)
        if request.kind == TIE:
            return tuple(ChooseTie(seat, _place(p)) for p in request.places)
        return tuple(DraftPick(seat, c) for c in request.cards)

    def answer(self, decision: Decision) -> wire.Message:
        """The protocol message that sends ``decision`` for the request awaiting it."""
        request = self.model.decision
        if request is None:
            raise ValueError(f"{decision!r} answers nothing: no request awaits this seat")
        if isinstance(decision, ChooseTie):
            place = decision.place
            return request.answer(wire.Place(row=place.row, end=End(place.end).value))
        if isinstance(decision, ChooseRow):
            return request.answer(decision.row)
        return request.answer(decision.card)
