"""A table's facts: what happened at it, as small JSON objects, and the game rebuilt from them.

A table is stored as its options, its seats and the facts appended as they
happen (``Store.append``). The engine is deterministic and chance is explicit
(``Deal``), so the game in progress is rebuilt by replaying the deals and
decisions since the last ``game_started`` fact (``rebuild_game``). Every
decision is stored, a commit replaced before the reveal included; the facts are
never shown to clients.

>>> from nimmt.engine import Commit, Deal
>>> decision_fact(Commit(seat=1, card=42))
Fact(kind='decision', payload={'type': 'commit', 'seat': 1, 'card': 42})
>>> decision_from(decision_fact(Commit(seat=1, card=42)).payload)
Commit(seat=1, card=42)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any

from nimmt.engine import (
    ChooseRow,
    ChooseTie,
    Commit,
    Deal,
    Decision,
    DraftPick,
    End,
    Event,
    Game,
    NimmtError,
    Options,
    Place,
)

__all__ = [
    "KINDS",
    "Fact",
    "FactError",
    "game_started_fact",
    "deal_fact",
    "decision_fact",
    "seat_fact",
    "left_fact",
    "game_over_fact",
    "options_to_json",
    "options_from",
    "deal_from",
    "decision_from",
    "GameRebuilder",
    "rebuild_game",
]

#: Every kind of fact. ``game_started``: a new game at the table (its number and
#: engine options); ``deal``: chance resolved; ``decision``: a decision the engine
#: accepted (``by``: who made it, for the logs: "player", "bot", "autopilot");
#: ``seat``: a seat taken, changed or freed; ``left``: a player left during the
#: game (the autopilot plays their seat at once); ``game_over``: the game ended
#: and was kept as finished game ``game_id``; ``deal_commitment``: the seed the
#: next game is dealt from and the contributions made for it, written each time
#: it changes (server/game/deal_commitment.py).
KINDS = frozenset({"game_started", "deal", "decision", "seat", "left", "game_over",
                   "deal_commitment"})


class FactError(ValueError):
    """A stored fact that cannot be read or does not follow from the ones before it."""


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing that happened at a table: a ``kind`` (one of ``KINDS``) and its
    JSON ``payload``. Stored facts also have their ``seq`` (1, 2, ... per table) and
    ``at`` (Unix seconds when it was stored); facts being made have neither."""

    kind: str
    payload: dict[str, Any]
    seq: int | None = field(default=None, compare=False)
    at: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise FactError(f"unknown fact kind {self.kind!r}: one of {sorted(KINDS)}")

    def __repr__(self) -> str:
        stored = "" if self.seq is None else f", seq={self.seq!r}, at={self.at!r}"
        return f"Fact(kind={self.kind!r}, payload={self.payload!r}{stored})"


# ----------------------------------------------------------------- making facts


def options_to_json(options: Options) -> dict[str, Any]:
    """The engine options as a JSON object (every field, as in a record's ``options``)."""
    return {f.name: getattr(options, f.name) for f in fields(Options)}


def game_started_fact(game_no: int, options: Options,
                      fair: dict[str, Any] | None = None) -> Fact:
    """``fair``: a game dealt verifiably, its seed and contributions (hex), kept so
    that a restored game deals on from them."""
    payload: dict[str, Any] = {"game": game_no, "options": options_to_json(options)}
    if fair is not None:
        payload["fair"] = fair
    return Fact("game_started", payload)


def deal_fact(deal: Deal) -> Fact:
    hands = None if deal.hands is None else [list(h) for h in deal.hands]
    return Fact("deal", {"rows": list(deal.rows), "hands": hands})


def decision_fact(decision: Decision, by: str | None = None) -> Fact:
    payload: dict[str, Any]
    if isinstance(decision, Commit):
        payload = {"type": "commit", "seat": decision.seat, "card": decision.card}
    elif isinstance(decision, ChooseRow):
        payload = {"type": "choose_row", "seat": decision.seat, "row": decision.row}
    elif isinstance(decision, ChooseTie):
        place = {"row": decision.place.row, "end": End(decision.place.end).value}
        payload = {"type": "choose_tie", "seat": decision.seat, "place": place}
    elif isinstance(decision, DraftPick):
        payload = {"type": "draft_pick", "seat": decision.seat, "card": decision.card}
    else:
        raise TypeError(f"not a decision: {decision!r}")
    if by is not None:
        payload["by"] = by
    return Fact("decision", payload)


def seat_fact(seat: int, name: str | None, kind: str | None = None,
              strategy: str | None = None, *, member: int | None = None) -> Fact:
    """Seat ``seat`` is now ``name`` (a ``kind``: human, bot, builtin); ``name`` None: freed.
    ``member``: the server's session number of a player (whose token the table stores
    with the seat, hashed)."""
    payload: dict[str, Any] = {"seat": seat, "name": name, "kind": kind, "strategy": strategy}
    if member is not None:
        payload["member"] = member
    return Fact("seat", payload)


def left_fact(seat: int) -> Fact:
    return Fact("left", {"seat": seat})


def game_over_fact(game_no: int, game_id: int | None) -> Fact:
    return Fact("game_over", {"game": game_no, "game_id": game_id})


# ----------------------------------------------------------------- reading facts


def _get(payload: Any, key: str) -> Any:
    if not isinstance(payload, dict) or key not in payload:
        raise FactError(f"a stored fact lacks {key!r}: {payload!r}")
    return payload[key]


def options_from(payload: Any) -> Options:
    """The engine options of a ``game_started`` fact's ``options``."""
    if not isinstance(payload, dict):
        raise FactError(f"stored options are not an object: {payload!r}")
    known = {f.name for f in fields(Options)}
    try:
        return Options(**{k: v for k, v in payload.items() if k in known})
    except (TypeError, NimmtError) as e:
        raise FactError(f"stored options cannot be used: {e}") from None


def deal_from(payload: Any) -> Deal:
    rows = _get(payload, "rows")
    hands = payload.get("hands")
    try:
        return Deal(rows=tuple(rows), hands=None if hands is None else tuple(tuple(h) for h in hands))
    except TypeError as e:
        raise FactError(f"a stored deal cannot be read: {e}") from None


def decision_from(payload: Any) -> Decision:
    kind, seat = _get(payload, "type"), _get(payload, "seat")
    if kind == "commit":
        return Commit(seat, _get(payload, "card"))
    if kind == "choose_row":
        return ChooseRow(seat, _get(payload, "row"))
    if kind == "choose_tie":
        place = _get(payload, "place")
        try:
            return ChooseTie(seat, Place(_get(place, "row"), End(_get(place, "end"))))
        except ValueError as e:
            raise FactError(f"a stored tie choice cannot be read: {e}") from None
    if kind == "draft_pick":
        return DraftPick(seat, _get(payload, "card"))
    raise FactError(f"unknown stored decision type {kind!r}")


# ----------------------------------------------------------------- rebuilding the game


class GameRebuilder:
    """Feed a table's facts in order; ``game`` is the engine game they lead to.

    A ``game_started`` fact begins a new ``Game`` (no random source: the facts
    hold every deal); deals and decisions are applied to it; ``left`` facts are
    collected in ``left`` (seats the autopilot plays at once); ``game_over`` sets
    ``kept_as``; seat facts change nothing here. A fact the engine refuses raises ``FactError``.
    """

    def __init__(self) -> None:
        self.game: Game | None = None
        self.game_no: int | None = None
        self.left: set[int] = set()
        self.last_seq: int = 0
        #: the finished game's id once the game's ``game_over`` fact is in (it is kept)
        self.kept_as: int | None = None

    def feed(self, fact: Fact) -> list[Event]:
        """Apply one fact; return the engine events it caused (none for most kinds)."""
        if fact.seq is not None:
            self.last_seq = fact.seq
        if fact.kind == "game_started":
            self.game = Game(options_from(_get(fact.payload, "options")))
            self.game_no = _get(fact.payload, "game")
            self.left = set()
            self.kept_as = None
            return list(self.game.opening_events)
        if fact.kind == "game_over":
            self.kept_as = _get(fact.payload, "game_id")
            return []
        if fact.kind == "left":
            self.left.add(_get(fact.payload, "seat"))
            return []
        if fact.kind not in ("deal", "decision"):
            return []
        game = self.game
        if game is None:
            raise FactError(f"a stored {fact.kind} (seq {fact.seq}) comes before any game_started")
        try:
            if fact.kind == "deal":
                return game.deal(deal_from(fact.payload))
            return game.apply(decision_from(fact.payload))
        except NimmtError as e:
            raise FactError(f"stored {fact.kind} (seq {fact.seq}) does not follow: {e}") from None


def rebuild_game(facts: Iterable[Fact]) -> GameRebuilder:
    """Replay ``facts`` (a table's, in order); the rebuilder holds the game they lead to.

    >>> from nimmt.engine import Options
    >>> original = Game(Options(players=2, rounds=1), seed=3)
    >>> facts = [game_started_fact(1, original.options)]
    >>> facts += [deal_fact(d) if isinstance(d, Deal) else decision_fact(d) for d in original.history]
    >>> for seat in (0, 1):
    ...     card = original.view(seat).hand[0]
    ...     _ = original.apply(Commit(seat, card))
    ...     facts.append(decision_fact(Commit(seat, card)))
    >>> rebuilt = rebuild_game(facts).game
    >>> rebuilt.view(0) == original.view(0) and rebuilt.view(1) == original.view(1)
    True
    """
    rebuilder = GameRebuilder()
    for fact in facts:
        rebuilder.feed(fact)
    return rebuilder
