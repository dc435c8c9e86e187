"""The record format: the dataclasses of a game record, its errors, and its
JSON writing. This module imports no other module of ``nimmt.engine.records``;
reading (``parse``), building (``build``), replaying (``replay``) and narrating
(``narrate``) import it. ``docs/RECORD.md`` documents the format field by field.

>>> from nimmt.engine import Options
>>> record = Record(Options(players=2, rounds=1), seats=("Ann", "Bob"))
>>> record.to_dict()["seats"], record.to_dict()["options"]["rounds"]
(['Ann', 'Bob'], 1)
>>> print(record.to_json(), end="")  # doctest: +ELLIPSIS
{
  "format": "nimmt-record",
  "version": 1,
  "options": {
    "players": 2,
...
  "seats": ["Ann", "Bob"],
  "rounds": []
}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

from ..events import GameResult
from ..fair_deal import FairDeal
from ..game import Game
from ..moves import End, Place
from ..options import Options
from ..pending import AwaitingCommits
from ..position import Position

__all__ = [
    "FORMAT",
    "VERSION",
    "Rows",
    "RecordError",
    "InvalidRecord",
    "RecordContradiction",
    "RowChoice",
    "TieChoice",
    "Choice",
    "TurnRecord",
    "RoundRecord",
    "Start",
    "ResultClaim",
    "FairDealClaim",
    "TableFacts",
    "Record",
]

FORMAT = "nimmt-record"
VERSION = 1

Rows = tuple[tuple[int, ...], ...]


# ----------------------------------------------------------------- errors


class RecordError(ValueError):
    """A record that cannot be replayed. ``round``, ``turn`` and ``seat`` say where,
    when known (else None); ``detail`` is the message without that location."""

    def __init__(
        self,
        detail: str,
        *,
        round: int | None = None,
        turn: int | None = None,
        seat: int | None = None,
    ) -> None:
        self.detail = detail
        self.round = round
        self.turn = turn
        self.seat = seat
        super().__init__(str(self))

    @property
    def where(self) -> str:
        """``"round R, turn T, seat S"`` (the parts that are known), or ``""``."""
        parts = [
            f"{name} {value}"
            for name, value in (("round", self.round), ("turn", self.turn), ("seat", self.seat))
            if value is not None
        ]
        return ", ".join(parts)

    def __str__(self) -> str:
        return f"{self.where}: {self.detail}" if self.where else self.detail


class InvalidRecord(RecordError):
    """Not a record: bad JSON, a missing, unknown or ill-typed field, a wrong shape."""


class RecordContradiction(RecordError):
    """A well-formed record that the rules contradict: a card not in the hand, a
    choice that was not needed or not that seat's, a claimed outcome that does
    not follow, a round that goes on after the game is over, ..."""


# ----------------------------------------------------------------- the record


@dataclass(frozen=True, slots=True)
class RowChoice:
    """``seat``'s card fitted no row: they took ``row`` (0..3)."""

    seat: int
    row: int


@dataclass(frozen=True, slots=True)
class TieChoice:
    """Professional rows: ``seat``'s card fitted two places equally; it went to ``place``."""

    seat: int
    place: Place


Choice = RowChoice | TieChoice


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn: the final commit of each seat (seat order; None for a seat that
    had not committed when the record stops), the choices made while the turn
    was resolved (in order) and, optionally, the rows it claims after the turn."""

    commits: tuple[int | None, ...]
    choices: tuple[Choice, ...] = ()
    rows_after: Rows | None = None
    comment: str | None = None


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One round: its deal (``hands`` and ``rows``; in Draft ``picks`` then ``rows``;
    nothing for the round of a hand-made start), its turns, and optionally the
    bullheads taken (``penalties``) and ``totals`` it claims at its end."""

    turns: tuple[TurnRecord, ...] = ()
    hands: tuple[tuple[int, ...], ...] | None = None
    rows: tuple[int, ...] | None = None
    picks: tuple[tuple[int, int], ...] | None = None
    penalties: tuple[int, ...] | None = None
    totals: tuple[int, ...] | None = None
    comment: str | None = None


@dataclass(frozen=True, slots=True)
class Start:
    """A hand-made position: the commit step of turn ``turn`` of round ``round``.

    ``turn`` None means ``11 - hand size`` (the engine's default). The fields are
    those of the engine's ``Position``, and a ``comment``.
    """

    rows: Rows
    hands: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...] | None = None
    penalties: tuple[int, ...] | None = None
    round: int = 1
    turn: int | None = None
    comment: str | None = None

    @property
    def position(self) -> Position:
        """This start as the engine's ``Position`` (without the comment)."""
        return Position(self.rows, self.hands, self.totals, self.penalties, self.round, self.turn)

    @property
    def first_turn(self) -> int:
        return self.position.first_turn

    def game(self, options: Options) -> Game:
        """A ``Game`` at this position (no random source: later rounds need deals)."""
        return Game.from_position(
            options,
            self.rows,
            self.hands,
            totals=self.totals,
            penalties=self.penalties,
            round=self.round,
            turn=self.turn,
        )

    @classmethod
    def at(cls, position: Position, comment: str | None = None) -> Start:
        """The start at ``position`` (a ``Game.from_position`` game's ``game.start``)."""
        return cls(
            position.rows,
            position.hands,
            position.totals,
            position.penalties,
            position.round,
            position.turn,
            comment,
        )

    @classmethod
    def of(cls, game: Game) -> Start:
        """The position ``game`` is at now, which must be a commit step with no
        commit made yet. ``record_from_game`` takes a ``Game.from_position`` game's
        start from ``game.start``; ``Start.of`` is for a start taken later in play."""
        pending = game.pending
        if not isinstance(pending, AwaitingCommits) or pending.committed:
            raise ValueError("a start is taken at a commit step before anyone has committed")
        spectator = game.view(None)
        return cls(
            rows=game.rows,
            hands=tuple(game.view(s).hand for s in range(game.options.players)),
            totals=game.totals,
            penalties=spectator.penalties,
            round=game.round,
            turn=game.turn,
        )


@dataclass(frozen=True, slots=True)
class ResultClaim:
    """The result a record claims; each part is checked when given."""

    totals: tuple[int, ...] | None = None
    places: tuple[int, ...] | None = None
    winners: tuple[int, ...] | None = None

    @classmethod
    def of(cls, result: GameResult) -> ResultClaim:
        return cls(result.totals, result.places, result.winners)


@dataclass(frozen=True, slots=True)
class FairDealClaim:
    """How the game was dealt (docs/PROTOCOL.md, "Verifiable deals"): the
    ``commitment`` published before the first deal, the ``seed`` revealed at the
    end and each seat's ``contributions`` (bytes, empty for none); when seats
    committed to their contributions first (protocol version 3), each seat's
    ``hashes`` (empty for none; ``()`` when no seat sent one) and the seats that
    ``withheld`` their reveal."""

    commitment: str
    seed: bytes
    contributions: tuple[bytes, ...]
    hashes: tuple[bytes, ...] = ()
    withheld: tuple[int, ...] = ()

    @property
    def fair(self) -> FairDeal:
        return FairDeal(self.seed, self.contributions, self.hashes, self.withheld)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"commitment": self.commitment, "seed": self.seed.hex(),
                               "contributions": [c.hex() for c in self.contributions]}
        if self.hashes:  # a record of a game nobody committed to a hash in reads as before
            out["hashes"] = [h.hex() for h in self.hashes]
            out["withheld"] = list(self.withheld)
        return out


@dataclass(frozen=True, slots=True)
class TableFacts:
    """The public facts of the table a server played the game at: its ``name``, whether
    the game was ``rated``, and its clock in seconds (``turn_time`` to commit a card,
    ``choice_time`` for a row or tied place, ``draft_time`` for a pick; None: not
    kept) with each seat's ``time_bank`` for the game (0: none). Shown by replays,
    never checked: the rules do not depend on them."""

    name: str | None = None
    rated: bool = False
    turn_time: float | None = None
    choice_time: float | None = None
    draft_time: float | None = None
    time_bank: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out = _drop_none({"name": self.name, "rated": self.rated, "turn_time": self.turn_time,
                          "choice_time": self.choice_time, "draft_time": self.draft_time})
        if self.time_bank > 0:  # a table without a bank says nothing of one
            out["time_bank"] = self.time_bank
        return out


@dataclass(frozen=True, slots=True)
class Record:
    """A whole record. ``rounds[0]`` is round 1, or with a ``start`` the rest of
    the start's round (which has no deal); the rounds after it follow in order."""

    options: Options
    rounds: tuple[RoundRecord, ...] = ()
    seats: tuple[str, ...] | None = None
    start: Start | None = None
    result: ResultClaim | None = None
    comment: str | None = None
    fair_deal: FairDealClaim | None = None
    table: TableFacts | None = None  # None: a record that keeps no table (hand-made, or older)

    @property
    def first_round(self) -> int:
        return self.start.round if self.start is not None else 1

    def name(self, seat: int) -> str:
        """The seat's name, or ``"seat N"`` when the record names no seats."""
        if self.seats is not None and 0 <= seat < len(self.seats):
            return self.seats[seat]
        return f"seat {seat}"

    # JSON ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON values (every option written out)."""
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        if self.comment is not None:
            out["comment"] = self.comment
        out["options"] = {f.name: getattr(self.options, f.name) for f in fields(Options)}
        if self.table is not None:
            out["table"] = self.table.to_dict()
        if self.seats is not None:
            out["seats"] = list(self.seats)
        if self.start is not None:
            out["start"] = _start_to_dict(self.start)
        out["rounds"] = [_round_to_dict(r) for r in self.rounds]
        if self.result is not None:
            out["result"] = _drop_none(
                {
                    "totals": self.result.totals,
                    "places": self.result.places,
                    "winners": self.result.winners,
                }
            )
        if self.fair_deal is not None:
            out["fair_deal"] = self.fair_deal.to_dict()
        plain: dict[str, Any] = _plain(out)
        return plain

    def to_json(self) -> str:
        """The record as JSON text, indented for reading, short lists on one line."""
        return _pretty(self.to_dict(), 0) + "\n"


# ----------------------------------------------------------------- writing JSON


def _plain(value: Any) -> Any:
    kind = type(value)
    if kind is int or kind is str or value is None:  # most of a record: cards and names
        return value
    if kind is tuple or kind is list:
        return [v if type(v) is int else _plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, End):
        return value.value
    if isinstance(value, Place):
        return {"row": value.row, "end": value.end.value}
    return value


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _start_to_dict(start: Start) -> dict[str, Any]:
    return _drop_none(
        {
            "comment": start.comment,
            "round": start.round,
            "turn": start.turn,
            "rows": start.rows,
            "hands": start.hands,
            "totals": start.totals,
            "penalties": start.penalties,
        }
    )


def _choice_to_dict(choice: Choice) -> dict[str, Any]:
    if isinstance(choice, RowChoice):
        return {"seat": choice.seat, "row": choice.row}
    return {
        "seat": choice.seat,
        "place": {"row": choice.place.row, "end": End(choice.place.end).value},
    }


def _round_to_dict(r: RoundRecord) -> dict[str, Any]:
    out = _drop_none({"comment": r.comment, "hands": r.hands, "picks": r.picks, "rows": r.rows})
    turns = []
    for t in r.turns:
        turn: dict[str, Any] = {}
        if t.comment is not None:
            turn["comment"] = t.comment
        turn["commits"] = list(t.commits)
        if t.choices:
            turn["choices"] = [_choice_to_dict(c) for c in t.choices]
        if t.rows_after is not None:
            turn["rows_after"] = t.rows_after
        turns.append(turn)
    out["turns"] = turns
    out.update(_drop_none({"penalties": r.penalties, "totals": r.totals}))
    return out


def _pretty(value: Any, indent: int) -> str:
    """JSON with objects and long lists spread over lines, short ones kept on one."""
    flat = json.dumps(value, separators=(", ", ": "), ensure_ascii=False)
    if not isinstance(value, (dict, list)) or (indent and len(flat) + indent <= 96):
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {_pretty(v, indent + 2)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if not value:
        return "[]"
    if all(not isinstance(v, (dict, list)) or (isinstance(v, list) and len(v) <= 2) for v in value):
        # numbers or pairs (draft picks): as many to a line as fit
        lines, line = [], ""
        for v in value:
            item = json.dumps(v, separators=(", ", ": "), ensure_ascii=False)
            if line and len(pad) + len(line) + len(item) + 2 > 96:
                lines.append(line + ",")
                line = ""
            line = f"{line}, {item}" if line else item
        lines.append(line)
        return "[\n" + "\n".join(pad + x for x in lines) + "\n" + " " * indent + "]"
    items = [pad + _pretty(v, indent + 2) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"

