"""Engine values translated to protocol messages (and table options both ways).

Pure functions, no state.

Everything a table sends about its game is built here from engine events, a
``View`` (``game.view(seat)``) and public table data; nothing here can see a
``Game``.
"""

from __future__ import annotations

import random
from dataclasses import replace
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
    Deal,
    IllegalDecision,
    IllegalPlace,
    IllegalRow,
    Options,
    Phase,
    Place,
    StaleTurn,
    View,
)

from .config import TableSettings

__all__ = [
    "options_from_settings",
    "settings_from_options",
    "random_deal",
    "places",
    "snapshot",
    "requests_for",
    "error_field",
]

E = P.ErrorCode

# the protocol's TableOptions <-> the server's TableSettings
_OPTION_NAMES = (
    "seats", "tactic_deck", "draft", "professional", "countdown", "turn_time", "choice_time",
    "draft_time", "step_delay", "autoplay_when_away", "grace_time", "fallback",
)
ALL_ROWS = (0, 1, 2, 3)

def options_from_settings(s: TableSettings) -> P.TableOptions:
    return P.TableOptions(
        point_limit=s.point_limit or None, rounds=s.rounds or None,
        **{name: getattr(s, name) for name in _OPTION_NAMES},
    )


def settings_from_options(o: P.TableOptions, base: TableSettings) -> TableSettings:
    """A new table's settings: the client's ``create_table.options``, where a field left
    at the protocol's default takes the server's configured default instead."""
    default = P.TableOptions()
    changes: dict[str, Any] = {}
    for name in _OPTION_NAMES:
        value = getattr(o, name)
        if value != getattr(default, name):
            changes[name] = value
    if (o.point_limit, o.rounds) != (default.point_limit, default.rounds):
        changes["point_limit"] = o.point_limit or 0
        changes["rounds"] = o.rounds or 0
    return replace(base, **changes).validate()


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
        committed=tuple(sorted(view.committed)), revealed=view.unresolved,
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
