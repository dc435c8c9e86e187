"""Engine values translated to protocol messages.

Pure functions, no state.

Everything a table sends about its game is built here from engine events, a
``View`` (``game.view(seat)``) and public table data; nothing here can see a
``Game``.
"""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Iterable

from nimmt import protocol as P
from nimmt.engine import (
    HAND_SIZE,
    ROWS,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
    CardNotInHand,
    ChooseRow,
    ChooseTie,
    Commit,
    Deal,
    Decision,
    DraftPick,
    FairDeal,
    IllegalDecision,
    IllegalPlace,
    IllegalRow,
    Options,
    Phase,
    Place,
    StaleTurn,
    View,
    deal_round,
)


__all__ = [
    "random_deal",
    "fair_deal",
    "places",
    "snapshot",
    "requests_for",
    "autoplayed",
    "error_field",
]

E = P.ErrorCode

ALL_ROWS = (0, 1, 2, 3)


def random_deal(options: Options, pending: AwaitingDeal, view: View,
                rng: random.Random) -> Deal:
    """A shuffled deal: hands and rows, or (after a draft) 4 rows from the cards left."""
    if pending.rows_only:
        picked = {card for _, card in view.draft_picks}
        left = [c for c in options.deck if c not in picked]
        return Deal(rows=tuple(rng.sample(left, ROWS)))
    n = options.players
    cards = rng.sample(options.deck, n * HAND_SIZE + ROWS)
    hands = tuple(tuple(sorted(cards[i * HAND_SIZE:(i + 1) * HAND_SIZE])) for i in range(n))
    return Deal(rows=tuple(cards[-ROWS:]), hands=hands)


def fair_deal(options: Options, pending: AwaitingDeal, view: View, fair: FairDeal) -> Deal:
    """The deal derived from the game's seed and contributions (``engine.fair_deal``):
    hands and rows, or (after a draft) 4 rows from the cards nobody picked."""
    picked = [card for _, card in view.draft_picks] if pending.rows_only else ()
    return deal_round(options, pending.round, fair, picked)


def places(items: Iterable[Place]) -> tuple[P.Place, ...]:
    return tuple(P.Place(row=p.row, end=p.end.value) for p in items)


_PHASES = {
    Phase.DRAFT: "draft", Phase.COMMIT: "commit", Phase.ROW_CHOICE: "resolve",
    Phase.TIE_CHOICE: "resolve", Phase.OVER: "over", Phase.DEAL: "scored",
}


def snapshot(view: View, table: P.TableInfo, deadline: float | None,
             remaining: float | None) -> P.Snapshot:
    """Everything ``view.seat`` may know now (None: a spectator): ``view`` is all it uses."""
    pending = view.pending
    pending_msg = None
    if deadline is not None and remaining is not None:
        if isinstance(pending, AwaitingRowChoice):
            pending_msg = P.Pending(kind="row", seat=pending.seat, deadline=deadline,
                                    remaining=remaining, card=pending.card, rows=ALL_ROWS)
        elif isinstance(pending, AwaitingTieChoice):
            pending_msg = P.Pending(kind="tie", seat=pending.seat, deadline=deadline,
                                    remaining=remaining, card=pending.card,
                                    places=places(pending.places))
        elif isinstance(pending, AwaitingDraftPick):
            pending_msg = P.Pending(kind="draft", seat=pending.seat, deadline=deadline,
                                    remaining=remaining, pick=pending.pick)
    commit_phase = view.phase is Phase.COMMIT
    return P.Snapshot(
        table=table, seat=view.seat, round=view.round, turn=view.turn,
        phase=_PHASES[view.phase], hand=view.hand, commit=view.own_commit, rows=view.rows,
        deadline=deadline if commit_phase else None,
        remaining=remaining if commit_phase else None,
        # once the cards are revealed every seat of this turn has committed (the
        # engine forgets the face-down cards at the reveal)
        committed=tuple(sorted(view.committed | {seat for seat, _ in view.revealed})),
        revealed=view.unresolved,
        draft_pool=view.draft_pool, draft_picks=view.draft_picks, pending=pending_msg,
    )


def requests_for(view: View, shown: tuple[int, int], deadline: float,
                 remaining: float) -> list[Any]:
    """The private request for the row, tie or draft decision awaited from ``view.seat``
    (none for a commit: ``turn_started`` asks for those)."""
    pending = view.pending
    if not view.legal or pending is None:
        return []
    rnd, turn = shown
    if isinstance(pending, AwaitingRowChoice):
        return [P.RowChoiceRequest(round=rnd, turn=turn, card=pending.card, rows=ALL_ROWS,
                                   deadline=deadline, remaining=remaining)]
    if isinstance(pending, AwaitingTieChoice):
        return [P.TieChoiceRequest(round=rnd, turn=turn, card=pending.card,
                                   places=places(pending.places), deadline=deadline,
                                   remaining=remaining)]
    if isinstance(pending, AwaitingDraftPick):
        return [P.DraftPickRequest(round=pending.round, pick=pending.pick,
                                   pool=view.draft_pool, deadline=deadline,
                                   remaining=remaining)]
    return []


def autoplayed(key: tuple[Any, ...], decision: Decision) -> P.Autoplayed | None:
    """``decision``, made by the autopilot for the decision ``key`` awaited
    (``play.decision_key``), as ``seated.autoplayed`` tells it to its seat."""
    if isinstance(decision, Commit) and key[0] == "commit":
        return P.Autoplayed(kind="commit", round=key[1], turn=key[2], card=decision.card)
    if isinstance(decision, DraftPick) and key[0] == "draft":
        return P.Autoplayed(kind="draft", round=key[1], turn=0, card=decision.card)
    if isinstance(decision, ChooseRow) and key[0] == "choice":
        return P.Autoplayed(kind="row", round=key[1], turn=key[2], card=key[4],
                            row=decision.row)
    if isinstance(decision, ChooseTie) and key[0] == "choice":
        return P.Autoplayed(kind="tie", round=key[1], turn=key[2], card=key[4],
                            row=decision.place.row, end=decision.place.end.value)
    return None


def error_field(e: IllegalDecision, msg: Any) -> str | None:
    if isinstance(e, CardNotInHand):
        return "card"
    if isinstance(e, IllegalRow):
        return "row"
    if isinstance(e, IllegalPlace):
        return "place"
    if isinstance(e, StaleTurn):
        return "pick" if isinstance(msg, P.DraftPick) else "turn"
    return None
