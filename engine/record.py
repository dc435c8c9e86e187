"""The game record: a language-neutral JSON file of one game (the project's PGN).

A record holds the options, the seats, each round's explicit deal (or draft
picks), every final commit, every row and tie choice and, optionally, the
outcome it claims (rows after a turn, a round's bullheads, the result). It may
start from a hand-made position and may stop part-way. ``docs/RECORD.md``
documents the format field by field.

``replay(record)`` re-runs a record through the engine and checks it: a record
that contradicts the rules raises ``RecordContradiction`` naming the round,
turn and seat. Rows are numbered 0..3 in a record, as everywhere in the code.

>>> game = Game(Options(players=2, rounds=1), seed=5)
>>> while not game.is_over:
...     seat = min(game.pending.seats)
...     _ = game.apply(game.legal_decisions(seat)[0])
>>> record = record_from_game(game, seats=["Ann", "Bob"])
>>> text = record.to_json()
>>> Record.from_json(text) == record
True
>>> replay(Record.from_json(text)).run().game.result == game.result
True
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NoReturn

from .errors import CardNotInHand, InvalidOptions, NimmtError
from .events import (
    CardPlaced,
    Event,
    GameOver,
    GameResult,
    RoundScored,
    RowsDealt,
    RowTaken,
    TurnStarted,
)
from .game import Game
from .moves import ChooseRow, ChooseTie, Commit, Deal, Decision, DraftPick, End, Place
from .options import HAND_SIZE, ROWS, Options
from .pending import (
    AwaitingCommits,
    AwaitingDeal,
    AwaitingDraftPick,
    AwaitingRowChoice,
    AwaitingTieChoice,
)

__all__ = [
    "FORMAT",
    "VERSION",
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
    "Record",
    "record_from_bytes",
    "record_from_game",
    "Step",
    "Replay",
    "replay",
    "describe_pending",
    "follow_rows",
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

    ``turn`` None means ``11 - hand size`` (the engine's default).
    """

    rows: Rows
    hands: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...] | None = None
    penalties: tuple[int, ...] | None = None
    round: int = 1
    turn: int | None = None
    comment: str | None = None

    @property
    def first_turn(self) -> int:
        if self.turn is not None:
            return self.turn
        return HAND_SIZE - (len(self.hands[0]) if self.hands else 0) + 1

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
    def of(cls, game: Game) -> Start:
        """The position ``game`` is at now, which must be a commit step with no
        commit made yet. Take it from a ``Game.from_position`` game before playing,
        to pass to ``record_from_game(game, start=...)`` afterwards."""
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
class Record:
    """A whole record. ``rounds[0]`` is round 1, or with a ``start`` the rest of
    the start's round (which has no deal); the rounds after it follow in order."""

    options: Options
    rounds: tuple[RoundRecord, ...] = ()
    seats: tuple[str, ...] | None = None
    start: Start | None = None
    result: ResultClaim | None = None
    comment: str | None = None

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
        plain: dict[str, Any] = _plain(out)
        return plain

    def to_json(self) -> str:
        """The record as JSON text, indented for reading, short lists on one line."""
        return _pretty(self.to_dict(), 0) + "\n"

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """Check and read a record from plain JSON values; ``InvalidRecord`` if it is not one."""
        return _parse_record(data)

    @classmethod
    def from_json(cls, text: str) -> Record:
        """Read a record from JSON text.

        >>> Record.from_json('{"format": "nimmt-record", "version": 1, "options": {"players": 11}, "rounds": []}')
        Traceback (most recent call last):
        ...
        nimmt.engine.record.InvalidRecord: options: players must be 2 to 10, not 11
        """
        return _parse_record(_loads(text))


def record_from_bytes(data: bytes) -> Record:
    """Read a record from the bytes of a file (UTF-8, a byte-order mark allowed);
    ``InvalidRecord`` if they are not a record, including bytes that are not UTF-8."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidRecord(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    return Record.from_json(text)


# ----------------------------------------------------------------- writing JSON


def _plain(value: Any) -> Any:
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


# ----------------------------------------------------------------- reading JSON


def _loads(text: str) -> Any:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise InvalidRecord(f"field {key!r} appears twice in one object")
            out[key] = value
        return out

    def no_constant(name: str) -> NoReturn:
        raise InvalidRecord(f"{name} is not a number a record may hold")

    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constant)
    except json.JSONDecodeError as e:
        raise InvalidRecord(
            f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}"
        ) from None
    except RecursionError:
        raise InvalidRecord("not valid JSON: nested too deeply") from None


@dataclass(frozen=True, slots=True)
class _At:
    """Where in the record a value is: its JSON path and the round, turn, seat it belongs to."""

    path: str
    round: int | None = None
    turn: int | None = None
    seat: int | None = None

    def key(self, name: str, **where: int | None) -> _At:
        path = f"{self.path}.{name}" if self.path else name
        return _At(
            path,
            where.get("round", self.round),
            where.get("turn", self.turn),
            where.get("seat", self.seat),
        )

    def index(self, i: int, **where: int | None) -> _At:
        return _At(
            f"{self.path}[{i}]",
            where.get("round", self.round),
            where.get("turn", self.turn),
            where.get("seat", self.seat),
        )

    def fail(self, message: str) -> NoReturn:
        detail = f"{self.path}: {message}" if self.path else message
        raise InvalidRecord(detail, round=self.round, turn=self.turn, seat=self.seat)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _object(
    value: Any, at: _At, what: str, required: tuple[str, ...], optional: tuple[str, ...]
) -> dict[str, Any]:
    if not isinstance(value, dict):
        at.fail(f"{what} must be a JSON object, not {_show(value)}")
    allowed = required + optional
    for key in value:
        if key not in allowed:
            at.fail(f"unknown field {key!r} ({what} has the fields: {', '.join(allowed)})")
    for key in required:
        if key not in value:
            at.fail(f"missing field {key!r} ({what} must have: {', '.join(required)})")
    return value


def _int(value: Any, at: _At, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if type(value) is not int:
        at.fail(f"{what} must be a whole number, not {_show(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"{lo} to {hi}" if hi is not None else f"at least {lo}"
        at.fail(f"{what} must be {span}, not {value}")
    return value


def _str(value: Any, at: _At, what: str) -> str:
    if not isinstance(value, str):
        at.fail(f"{what} must be a string, not {_show(value)}")
    return value


def _list(value: Any, at: _At, what: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        at.fail(f"{what} must be a JSON list, not {_show(value)}")
    if length is not None and len(value) != length:
        at.fail(f"{what} must hold {length} entries, not {len(value)}")
    return value


def _cards(value: Any, at: _At, what: str, length: int | None = None) -> tuple[int, ...]:
    items = _list(value, at, what, length)
    return tuple(_int(c, at.index(i), "a card", 1) for i, c in enumerate(items))


def _per_seat(value: Any, at: _At, what: str, n: int) -> tuple[int, ...]:
    items = _list(value, at, f"{what} (one number per seat)", n)
    return tuple(_int(v, at.index(s, seat=s), what, 0) for s, v in enumerate(items))


def _rows(value: Any, at: _At, what: str) -> Rows:
    items = _list(value, at, f"{what} (rows 0 to {ROWS - 1}, each a list of cards)", ROWS)
    return tuple(_cards(row, at.index(i), f"row {i}") for i, row in enumerate(items))


def _hands(value: Any, at: _At, n: int) -> tuple[tuple[int, ...], ...]:
    items = _list(value, at, "hands (one list of cards per seat)", n)
    return tuple(_cards(h, at.index(s, seat=s), f"seat {s}'s hand") for s, h in enumerate(items))


def _comment(data: dict[str, Any], at: _At) -> str | None:
    if "comment" not in data:
        return None
    return _str(data["comment"], at.key("comment"), "a comment")


def _parse_options(value: Any, at: _At) -> Options:
    names = tuple(f.name for f in fields(Options))
    data = _object(value, at, "options", ("players",), names[1:])
    try:
        return Options(**data)
    except InvalidOptions as e:
        at.fail(str(e))


def _parse_record(data: Any) -> Record:
    top = _At("")
    obj = _object(
        data,
        top,
        "a record",
        ("format", "version", "options", "rounds"),
        ("comment", "seats", "start", "result"),
    )
    if obj["format"] != FORMAT:
        top.key("format").fail(f"must be {FORMAT!r}, not {_show(obj['format'])}")
    version = _int(obj["version"], top.key("version"), "the version", 1)
    if version != VERSION:
        top.key("version").fail(
            f"this program reads version {VERSION} records, not version {version}"
        )
    options = _parse_options(obj["options"], top.key("options"))
    n = options.players
    seats = None
    if "seats" in obj:
        at = top.key("seats")
        names = _list(obj["seats"], at, "seats (one name per seat)", n)
        seats = tuple(_str(s, at.index(i, seat=i), "a seat's name") for i, s in enumerate(names))
    start = _parse_start(obj["start"], top.key("start"), n) if "start" in obj else None
    first_round = start.round if start is not None else 1
    at = top.key("rounds")
    round_list = _list(obj["rounds"], at, "rounds")
    rounds = []
    for i, r in enumerate(round_list):
        number = first_round + i
        is_last = i == len(round_list) - 1
        first_turn = start.first_turn if (start is not None and i == 0) else 1
        rounds.append(
            _parse_round(
                r,
                at.index(i, round=number),
                options,
                i == 0 and start is not None,
                is_last,
                first_turn,
            )
        )
    result = _parse_result(obj["result"], top.key("result"), n) if "result" in obj else None
    return Record(options, tuple(rounds), seats, start, result, _comment(obj, top))


def _parse_start(value: Any, at: _At, n: int) -> Start:
    obj = _object(
        value, at, "a start", ("rows", "hands"), ("comment", "round", "turn", "totals", "penalties")
    )
    rnd = _int(obj["round"], at.key("round"), "the round", 1) if "round" in obj else 1
    at = _At(at.path, round=rnd)
    turn = _int(obj["turn"], at.key("turn"), "the turn", 1) if "turn" in obj else None
    return Start(
        rows=_rows(obj["rows"], at.key("rows"), "rows"),
        hands=_hands(obj["hands"], at.key("hands"), n),
        totals=_per_seat(obj["totals"], at.key("totals"), "a total", n)
        if "totals" in obj
        else None,
        penalties=_per_seat(obj["penalties"], at.key("penalties"), "a penalty", n)
        if "penalties" in obj
        else None,
        round=rnd,
        turn=turn,
        comment=_comment(obj, at),
    )


def _parse_round(
    value: Any, at: _At, options: Options, from_start: bool, is_last: bool, first_turn: int
) -> RoundRecord:
    n = options.players
    if isinstance(value, dict):
        deal = [k for k in ("hands", "rows", "picks") if k in value]
        if from_start and deal:
            at.key(deal[0]).fail(
                'the round of a hand-made start has no deal: its rows and hands are in "start"'
            )
        if options.draft and not from_start and "hands" in value:
            at.key("hands").fail('in a Draft round the hands are picked: give "picks" and "rows"')
        if not options.draft and "picks" in value:
            at.key("picks").fail(
                '"picks" are for Draft rounds only (the options say "draft": false)'
            )
    if from_start:
        obj = _object(
            value, at, "the start's round", (), ("comment", "turns", "penalties", "totals")
        )
    elif options.draft:
        obj = _object(
            value,
            at,
            "a Draft round",
            ("picks",),
            ("comment", "rows", "turns", "penalties", "totals"),
        )
    else:
        obj = _object(
            value, at, "a round", ("hands", "rows"), ("comment", "turns", "penalties", "totals")
        )
    hands = _hands(obj["hands"], at.key("hands"), n) if "hands" in obj else None
    rows = (
        _cards(obj["rows"], at.key("rows"), "rows (the 4 cards that start the rows)", ROWS)
        if "rows" in obj
        else None
    )
    picks = None
    if "picks" in obj:
        pat = at.key("picks")
        items = _list(obj["picks"], pat, "picks")
        parsed = []
        for i, pick in enumerate(items):
            pick_at = pat.index(i)
            pair = _list(pick, pick_at, "a pick ([seat, card])", 2)
            seat = _int(pair[0], pick_at.index(0), "a seat", 0, n - 1)
            card = _int(pair[1], pick_at.index(1, seat=seat), "a card", 1)
            parsed.append((seat, card))
        picks = tuple(parsed)
    turn_list = _list(obj["turns"], at.key("turns"), "turns") if "turns" in obj else []
    if options.draft and not from_start and rows is None and (turn_list or not is_last):
        at.fail("missing field 'rows': a Draft round draws its 4 row cards after the picks")
    turns = []
    for j, t in enumerate(turn_list):
        last_turn = is_last and j == len(turn_list) - 1
        turns.append(_parse_turn(t, at.key("turns").index(j, turn=first_turn + j), n, last_turn))
    return RoundRecord(
        turns=tuple(turns),
        hands=hands,
        rows=rows,
        picks=picks,
        penalties=_per_seat(obj["penalties"], at.key("penalties"), "a penalty", n)
        if "penalties" in obj
        else None,
        totals=_per_seat(obj["totals"], at.key("totals"), "a total", n)
        if "totals" in obj
        else None,
        comment=_comment(obj, at),
    )


def _parse_turn(value: Any, at: _At, n: int, last: bool) -> TurnRecord:
    obj = _object(value, at, "a turn", ("commits",), ("comment", "choices", "rows_after"))
    cat = at.key("commits")
    items = _list(obj["commits"], cat, "commits (one card per seat, in seat order)", n)
    commits: list[int | None] = []
    for s, c in enumerate(items):
        if c is None:
            if not last:
                cat.index(s, seat=s).fail(
                    "null (no commit) is allowed only in the record's last turn, where the record stops"
                )
            commits.append(None)
        else:
            commits.append(_int(c, cat.index(s, seat=s), "a card", 1))
    choices = []
    if "choices" in obj:
        chat = at.key("choices")
        for k, c in enumerate(_list(obj["choices"], chat, "choices")):
            choices.append(_parse_choice(c, chat.index(k), n))
    rows_after = (
        _rows(obj["rows_after"], at.key("rows_after"), "rows_after")
        if "rows_after" in obj
        else None
    )
    if None in commits and (choices or rows_after is not None):
        at.fail(
            "a turn where not every seat has committed is not resolved: it can have no choices or rows_after"
        )
    return TurnRecord(tuple(commits), tuple(choices), rows_after, _comment(obj, at))


def _parse_choice(value: Any, at: _At, n: int) -> Choice:
    if not isinstance(value, dict):
        at.fail(
            f'a choice must be {{"seat": S, "row": R}} or {{"seat": S, "place": {{...}}}}, not {_show(value)}'
        )
    kind = "place" if "place" in value else "row"
    obj = _object(value, at, "a choice", ("seat", kind), ())
    seat = _int(obj["seat"], at.key("seat"), "a seat", 0, n - 1)
    at = _At(at.path, at.round, at.turn, seat)
    if kind == "row":
        return RowChoice(
            seat, _int(obj["row"], at.key("row"), "a row (rows are numbered 0 to 3)", 0, ROWS - 1)
        )
    pat = at.key("place")
    place = _object(obj["place"], pat, "a place", ("row", "end"), ())
    row = _int(place["row"], pat.key("row"), "a row (rows are numbered 0 to 3)", 0, ROWS - 1)
    if place["end"] not in ("left", "right"):
        pat.key("end").fail(f'the end must be "left" or "right", not {_show(place["end"])}')
    return TieChoice(seat, Place(row, End(place["end"])))


def _parse_result(value: Any, at: _At, n: int) -> ResultClaim:
    obj = _object(value, at, "a result", (), ("totals", "places", "winners"))
    winners = None
    if "winners" in obj:
        wat = at.key("winners")
        items = _list(obj["winners"], wat, "winners (a list of seats)")
        winners = tuple(_int(w, wat.index(i), "a seat", 0, n - 1) for i, w in enumerate(items))
    return ResultClaim(
        totals=_per_seat(obj["totals"], at.key("totals"), "a total", n)
        if "totals" in obj
        else None,
        places=_per_seat(obj["places"], at.key("places"), "a place", n)
        if "places" in obj
        else None,
        winners=winners,
    )


# ----------------------------------------------------------------- rows from events


def follow_rows(rows: list[list[int]], event: Event) -> None:
    """Update ``rows`` (a list of 4 lists) by one event, as the table would."""
    if isinstance(event, RowsDealt):
        rows[:] = [[c] for c in event.rows]
    elif isinstance(event, RowTaken):
        rows[event.row] = []
    elif isinstance(event, CardPlaced):
        if event.end is End.LEFT:
            rows[event.row].insert(0, event.card)
        else:
            rows[event.row].append(event.card)


def _freeze(rows: list[list[int]]) -> Rows:
    return tuple(tuple(r) for r in rows)


# ----------------------------------------------------------------- from a game


@dataclass
class _TurnDraft:
    number: int
    commits: list[int | None]
    choices: list[Choice] = field(default_factory=list)
    rows_after: Rows | None = None


@dataclass
class _RoundDraft:
    number: int
    hands: tuple[tuple[int, ...], ...] | None = None
    rows: tuple[int, ...] | None = None
    picks: list[tuple[int, int]] | None = None
    turns: list[_TurnDraft] = field(default_factory=list)
    penalties: tuple[int, ...] | None = None
    totals: tuple[int, ...] | None = None


def _follow(shadow: Game, item: Deal | Decision) -> list[Event]:
    """Apply one item of a game's history to its shadow copy."""
    try:
        return shadow.deal(item) if isinstance(item, Deal) else shadow.apply(item)
    except NimmtError as e:
        raise ValueError(f"the game's history does not follow from its start: {e}") from None


def record_from_game(
    game: Game,
    seats: Sequence[str] | None = None,
    *,
    start: Start | None = None,
    claims: bool = True,
) -> Record:
    """The record of ``game`` so far (over or not), built from ``game.history``.

    With ``claims`` (the default) the record also claims what happened: the rows
    after each turn, each round's bullheads and totals, and the result, so that a
    replay checks them. A game made by ``Game.from_position`` does not keep its
    starting position: pass ``start=Start.of(game)``, taken before play.

    >>> game = Game(Options(players=3, rounds=1), seed=2)
    >>> highest = [game.view(s).hand[-1] for s in range(3)]
    >>> _ = [game.apply(Commit(s, card)) for s, card in enumerate(highest)]
    >>> record = record_from_game(game)
    >>> record.rounds[0].turns[0].commits == tuple(highest)
    True
    >>> len(record.rounds), len(record.rounds[0].turns), record.result is None
    (1, 1, True)
    """
    options = game.options
    n = options.players
    if seats is not None:
        seats = tuple(seats)
        if len(seats) != n or not all(isinstance(s, str) for s in seats):
            raise ValueError(f"seats must be {n} names, one per seat")
    from_position = not game.opening_events or isinstance(game.opening_events[0], TurnStarted)
    if from_position and start is None:
        raise ValueError(
            "this game began at a hand-made position, which its history does not hold: "
            "pass start=Start.of(game), taken before the first commit"
        )
    if not from_position and start is not None:
        raise ValueError("this game began with a deal, not at a hand-made position: pass no start")
    shadow = start.game(options) if start is not None else Game(options)
    rounds: list[_RoundDraft] = []
    rows: list[list[int]] = []
    if start is not None:
        rounds.append(_RoundDraft(start.round))
        rows = [list(r) for r in start.rows]
    current: _TurnDraft | None = None  # the turn being resolved, until its end
    result: GameResult | None = None
    for item in game.history:
        number = shadow.round
        if isinstance(item, Deal):
            if options.draft:
                rounds[-1].rows = tuple(item.rows)
            else:
                rounds.append(
                    _RoundDraft(
                        number,
                        hands=tuple(tuple(h) for h in item.hands or ()),
                        rows=tuple(item.rows),
                    )
                )
            events = _follow(shadow, item)
        else:
            if isinstance(item, DraftPick):
                if not rounds or rounds[-1].number != number:
                    rounds.append(_RoundDraft(number, picks=[]))
                assert rounds[-1].picks is not None
                rounds[-1].picks.append((item.seat, item.card))
            elif isinstance(item, Commit):
                turns = rounds[-1].turns
                if not turns or turns[-1].number != shadow.turn:
                    turns.append(_TurnDraft(shadow.turn, [None] * n))
                turns[-1].commits[item.seat] = item.card
                current = turns[-1]
            elif isinstance(item, ChooseRow):
                rounds[-1].turns[-1].choices.append(RowChoice(item.seat, item.row))
            elif isinstance(item, ChooseTie):
                rounds[-1].turns[-1].choices.append(
                    TieChoice(item.seat, Place(item.place.row, End(item.place.end)))
                )
            events = _follow(shadow, item)
        for event in events:
            if isinstance(event, (TurnStarted, RoundScored)) and current is not None:
                current.rows_after = _freeze(rows)
                current = None
            if isinstance(event, RoundScored):
                rounds[-1].penalties, rounds[-1].totals = event.penalties, event.totals
            elif isinstance(event, GameOver):
                result = event.result
            follow_rows(rows, event)
    if shadow.result != game.result or shadow.totals != game.totals:
        raise ValueError(
            "the game's history does not lead to its state: was start taken from this game?"
        )
    return Record(
        options=options,
        rounds=tuple(
            RoundRecord(
                turns=tuple(
                    TurnRecord(tuple(t.commits), tuple(t.choices), t.rows_after if claims else None)
                    for t in r.turns
                ),
                hands=r.hands,
                rows=r.rows,
                picks=tuple(r.picks) if r.picks is not None else None,
                penalties=r.penalties if claims else None,
                totals=r.totals if claims else None,
            )
            for r in rounds
        ),
        seats=seats,
        start=start,
        result=ResultClaim.of(result) if (claims and result is not None) else None,
    )


# ----------------------------------------------------------------- replay


@dataclass(frozen=True, slots=True)
class Step:
    """One thing a replayed record made happen, and the events it caused.

    ``action`` is the record's ``Start``, a ``Deal``, a ``Decision``, or None for
    the opening of a game that begins with a deal. ``turn`` is None outside turns
    (deals, draft picks); ``seat`` is None for chance (a start, a deal).
    """

    round: int
    turn: int | None
    seat: int | None
    action: Start | Deal | Decision | None
    events: tuple[Event, ...]


class Replay:
    """A record being re-run through the engine. Iterate it (once) for the steps;
    a contradiction raises ``RecordContradiction`` when it is reached, after the
    steps before it. Then ``game`` is the final state and ``stopped`` says where
    a record that stops part-way stops (None when the game is over)."""

    def __init__(self, record: Record) -> None:
        self.record = Record.from_dict(record.to_dict())  # the same checks as a file gets
        self.game: Game | None = None
        self.steps: list[Step] = []
        self._started = False
        self._rows: list[list[int]] = []
        self._turn_done = False
        self._scored: RoundScored | None = None

    def __iter__(self) -> Iterator[Step]:
        if self._started:
            raise RuntimeError("a Replay runs once: make a new one")
        self._started = True
        for step in self._run():
            self.steps.append(step)
            yield step

    def run(self) -> Replay:
        """Run to the end of the record; return self."""
        for _ in self:
            pass
        return self

    @property
    def stopped(self) -> str | None:
        """Where the record stops, in words, if the game is not over; else None."""
        if self.game is None or self.game.is_over:
            return None
        return describe_pending(self.game, self.record.name)

    # the run ----------------------------------------------------------------

    def _name(self, seat: int) -> str:
        return self.record.name(seat)

    def _step(self, step: Step) -> Step:
        self._turn_done = False
        self._scored = None
        for event in step.events:
            if isinstance(event, (TurnStarted, RoundScored)):
                self._turn_done = True
            if isinstance(event, RoundScored):
                self._scored = event
            follow_rows(self._rows, event)
        return step

    def _run(self) -> Iterator[Step]:
        record = self.record
        if record.start is not None:
            try:
                game = record.start.game(record.options)
            except NimmtError as e:
                raise RecordContradiction(f"start: {e}", round=record.start.round) from None
            self.game = game
            self._rows = [list(r) for r in record.start.rows]
            yield self._step(Step(game.round, game.turn, None, record.start, game.opening_events))
        else:
            game = Game(record.options)
            self.game = game
            yield self._step(Step(1, None, None, None, game.opening_events))
        for index, rnd in enumerate(record.rounds):
            number = record.first_round + index
            last_round = index == len(record.rounds) - 1
            if not (index == 0 and record.start is not None):
                self._check_round_can_begin(game, number)
                if record.options.draft:
                    yield from self._picks(game, number, rnd, last_round)
                    if rnd.rows is None:  # the record stops during (or right after) the draft
                        self._check_round_end(game, number, rnd, last_round)
                        break
                yield self._deal(game, number, rnd)
            first_turn = record.start.first_turn if (index == 0 and record.start is not None) else 1
            for j, turn in enumerate(rnd.turns):
                last_turn = last_round and j == len(rnd.turns) - 1
                yield from self._turn(game, number, first_turn + j, turn, last_turn)
            self._check_round_end(game, number, rnd, last_round)
        self._check_result(game)

    def _check_round_can_begin(self, game: Game, number: int) -> None:
        pending = game.pending
        if pending is None:
            raise RecordContradiction(
                f"the game is over after round {number - 1} ({_why_over(game)}), but the record goes on",
                round=number,
            )
        # Earlier rounds were checked complete, so the game waits for this round's deal or draft.
        assert isinstance(pending, (AwaitingDeal, AwaitingDraftPick)) and pending.round == number

    def _picks(self, game: Game, number: int, rnd: RoundRecord, last_round: bool) -> Iterator[Step]:
        picks = rnd.picks or ()
        for k, (seat, card) in enumerate(picks):
            pending = game.pending
            if not isinstance(pending, AwaitingDraftPick):
                raise RecordContradiction(
                    f"pick {k + 1}: every seat already holds {HAND_SIZE} cards; the draft is over "
                    f"after {k} picks",
                    round=number,
                    seat=seat,
                )
            if seat != pending.seat:
                raise RecordContradiction(
                    f"pick {k + 1} of this round is {self._name(pending.seat)}'s (seat {pending.seat}), "
                    f"not seat {seat}'s: the seats pick in turn, one card each, from seat "
                    f"{(number - 1) % game.options.players} this round",
                    round=number,
                    seat=seat,
                )
            try:
                events = game.apply(DraftPick(seat, card))
            except CardNotInHand:
                taken = [s for s, c in game.view(None).draft_picks if c == card]
                why = (
                    f"{self._name(taken[0])} picked it earlier"
                    if taken
                    else f"it is not in the deck in use (1 to {len(game.options.deck)})"
                )
                raise RecordContradiction(
                    f"pick {k + 1}: {self._name(seat)} picks {card}, which is not in the pool: {why}",
                    round=number,
                    seat=seat,
                ) from None
            yield self._step(Step(number, None, seat, DraftPick(seat, card), tuple(events)))
        if isinstance(game.pending, AwaitingDraftPick) and (rnd.rows is not None or not last_round):
            raise RecordContradiction(
                f"the draft is not over after {len(picks)} picks (each seat picks {HAND_SIZE} cards, "
                f"{HAND_SIZE * game.options.players} in all), but the record goes on",
                round=number,
                seat=game.pending.seat,
            )

    def _deal(self, game: Game, number: int, rnd: RoundRecord) -> Step:
        assert rnd.rows is not None
        deal = Deal(rows=rnd.rows, hands=None if game.options.draft else rnd.hands)
        try:
            events = game.deal(deal)
        except NimmtError as e:
            raise RecordContradiction(f"the deal: {e}", round=number) from None
        return self._step(Step(number, None, None, deal, tuple(events)))

    def _turn(
        self, game: Game, number: int, turn: int, rec: TurnRecord, last_turn: bool
    ) -> Iterator[Step]:
        pending = game.pending
        if not (
            isinstance(pending, AwaitingCommits)
            and pending.round == number
            and pending.turn == turn
        ):
            raise RecordContradiction(
                f"round {number} is over after turn {turn - 1}: the hands are empty, but the record has a turn {turn}",
                round=number,
                turn=turn,
            )
        for seat, card in enumerate(rec.commits):
            if card is None:
                continue
            try:
                events = game.apply(Commit(seat, card, round=number, turn=turn))
            except CardNotInHand:
                hand = " ".join(map(str, game.view(seat).hand))
                raise RecordContradiction(
                    f"{self._name(seat)} commits {card}, which is not in their hand (they hold {hand})",
                    round=number,
                    turn=turn,
                    seat=seat,
                ) from None
            yield self._step(Step(number, turn, seat, Commit(seat, card), tuple(events)))
        if None in rec.commits:
            return  # the record stops here, before the reveal
        choices = list(rec.choices)
        while isinstance(game.pending, (AwaitingRowChoice, AwaitingTieChoice)):
            needed = game.pending
            if not choices:
                if last_turn and rec.rows_after is None and not self._claims_after(number):
                    return  # the record stops here, waiting for this choice
                raise RecordContradiction(
                    f"{_need(needed, self._name)}, but the record gives no choice for it",
                    round=number,
                    turn=turn,
                    seat=needed.seat,
                )
            choice = choices.pop(0)
            decision = self._decision(needed, choice, number, turn)
            events = game.apply(decision)
            yield self._step(Step(number, turn, choice.seat, decision, tuple(events)))
        if choices:
            extra = choices[0]
            kind = "row choice" if isinstance(extra, RowChoice) else "tie choice"
            if len(choices) < len(rec.choices):
                why = "no further choice was needed in this turn: the cards after it each had one place to go"
            else:
                why = "no choice was needed in this turn: every card had one place to go (rules 1 to 3)"
            raise RecordContradiction(
                f"the record gives {self._name(extra.seat)} a {kind}, but {why}",
                round=number,
                turn=turn,
                seat=extra.seat,
            )
        if rec.rows_after is not None:
            self._check_rows(rec.rows_after, number, turn)

    def _claims_after(self, number: int) -> bool:
        """Whether the record claims anything that needs the last turn finished."""
        record = self.record
        rnd = record.rounds[number - record.first_round]
        return rnd.penalties is not None or rnd.totals is not None or record.result is not None

    def _decision(
        self, needed: AwaitingRowChoice | AwaitingTieChoice, choice: Choice, number: int, turn: int
    ) -> Decision:
        where = {"round": number, "turn": turn, "seat": choice.seat}
        name = self._name
        kind = "row" if isinstance(choice, RowChoice) else "tie"
        if choice.seat != needed.seat:
            raise RecordContradiction(
                f"the record has {name(choice.seat)} make a {kind} choice, but {_need(needed, name)}",
                **where,
            )
        if isinstance(needed, AwaitingRowChoice):
            if not isinstance(choice, RowChoice):
                raise RecordContradiction(
                    f"the record gives a tie choice (a place), but {_need(needed, name)}: "
                    f'write {{"seat": {needed.seat}, "row": R}}',
                    **where,
                )
            return ChooseRow(choice.seat, choice.row)
        if not isinstance(choice, TieChoice):
            raise RecordContradiction(
                f"the record gives a row choice, but {_need(needed, name)}: "
                f'write {{"seat": {needed.seat}, "place": {{"row": R, "end": "left" or "right"}}}}',
                **where,
            )
        if choice.place not in needed.places:
            raise RecordContradiction(
                f"{_place(choice.place)} is not one of the places {needed.card} fits equally well "
                f"({_places(needed.places)})",
                **where,
            )
        return ChooseTie(choice.seat, choice.place)

    def _check_rows(self, claimed: Rows, number: int, turn: int) -> None:
        if not self._turn_done:
            raise RecordContradiction(
                "the record claims rows_after, but the turn is not resolved",
                round=number,
                turn=turn,
            )
        actual = _freeze(self._rows)
        if claimed != actual:
            row = next(i for i in range(ROWS) if claimed[i] != actual[i])
            raise RecordContradiction(
                f"the record claims the rows after this turn are {_rows_text(claimed)}, but by the rules "
                f"they are {_rows_text(actual)} (row {row} differs)",
                round=number,
                turn=turn,
            )

    def _check_round_end(self, game: Game, number: int, rnd: RoundRecord, last_round: bool) -> None:
        scored = self._scored if self._turn_done else None
        if scored is None or scored.round != number:
            if not last_round:
                hand = len(game.view(0).hand)
                raise RecordContradiction(
                    f"the record goes on to round {number + 1}, but round {number} is not over: "
                    f"the record has {len(rnd.turns)} turns and the hands still hold {hand} cards",
                    round=number,
                )
            if rnd.penalties is not None or rnd.totals is not None:
                raise RecordContradiction(
                    "the record claims this round's penalties or totals, but it stops before the round ends",
                    round=number,
                )
            return
        for what, claimed, actual in (
            ("took", rnd.penalties, scored.penalties),
            ("has a total of", rnd.totals, scored.totals),
        ):
            if claimed is None or claimed == actual:
                continue
            seat = next(s for s in range(len(actual)) if claimed[s] != actual[s])
            label = "this round" if what == "took" else "after this round"
            raise RecordContradiction(
                f"the record claims {self._name(seat)} {what} {_heads(claimed[seat])} {label}, "
                f"but by the rules {self._name(seat)} {what} {_heads(actual[seat])}",
                round=number,
                seat=seat,
            )

    def _check_result(self, game: Game) -> None:
        claim = self.record.result
        if claim is None:
            return
        if game.result is None:
            raise RecordContradiction(
                f"the record claims a result, but {describe_pending(game, self._name)}"
            )
        result = game.result
        for what, claimed, actual in (
            ("total", claim.totals, result.totals),
            ("place", claim.places, result.places),
        ):
            if claimed is not None and claimed != actual:
                seat = next(s for s in range(len(actual)) if claimed[s] != actual[s])
                raise RecordContradiction(
                    f"the result claims {self._name(seat)}'s {what} is {claimed[seat]}, but by the rules it is "
                    f"{actual[seat]}",
                    seat=seat,
                )
        if claim.winners is not None and tuple(sorted(claim.winners)) != result.winners:
            seat = min(set(claim.winners) ^ set(result.winners))
            names = ", ".join(self._name(s) for s in result.winners)
            raise RecordContradiction(
                f"the result claims the winners are {', '.join(self._name(s) for s in claim.winners)}, "
                f"but by the rules the winners (fewest bullheads) are {names}",
                seat=seat,
            )


def replay(record: Record) -> Replay:
    """Re-run ``record`` through the engine: iterate the result for the ``Step``s.

    >>> record = Record.from_json('''{"format": "nimmt-record", "version": 1,
    ...   "options": {"players": 2, "rounds": 1},
    ...   "start": {"rows": [[10], [20], [30], [40]], "hands": [[5], [41]]},
    ...   "rounds": [{"turns": [{"commits": [5, 41], "choices": [{"seat": 0, "row": 2}]}]}]}''')
    >>> run = replay(record).run()
    >>> run.game.rows, run.game.totals
    (((10,), (20,), (5,), (40, 41)), (3, 0))
    >>> bad = Record.from_json(record.to_json().replace('"seat": 0, "row"', '"seat": 1, "row"'))
    >>> replay(bad).run()
    Traceback (most recent call last):
    ...
    nimmt.engine.record.RecordContradiction: round 1, turn 10, seat 1: the record has seat 1 make a row choice, but seat 0's 5 fits no row (it is lower than the last card of every row), so seat 0 chooses a row to take
    """
    return Replay(record)


# ----------------------------------------------------------------- words


def _heads(n: int) -> str:
    return f"{n} bullhead" if n == 1 else f"{n} bullheads"


def _rows_text(rows: Sequence[Sequence[int]]) -> str:
    return " | ".join(" ".join(map(str, r)) for r in rows)


def _place(place: Place) -> str:
    return f"the {End(place.end).value} end of row {place.row}"


def _places(places: Sequence[Place]) -> str:
    return " and ".join(_place(p) for p in places)


def _need(pending: AwaitingRowChoice | AwaitingTieChoice, name: Any) -> str:
    who = name(pending.seat)
    if isinstance(pending, AwaitingRowChoice):
        return (
            f"{who}'s {pending.card} fits no row (it is lower than the last card of every row), "
            f"so {who} chooses a row to take"
        )
    return f"{who}'s {pending.card} fits {_places(pending.places)} equally well, so {who} chooses between them"


def _why_over(game: Game) -> str:
    options = game.options
    if options.rounds is not None and game.round >= options.rounds:
        return (
            "its one round is played"
            if options.rounds == 1
            else f"its {options.rounds} rounds are played"
        )
    return f"a total reached the point limit of {options.point_limit}"


def describe_pending(game: Game, name: Any = lambda s: f"seat {s}") -> str:
    """Where ``game`` waits, in words: ``"the record stops at round 1, turn 3: ..."``."""
    pending = game.pending
    if pending is None:
        return "the game is over"
    if isinstance(pending, AwaitingDeal):
        what = "the draw of the 4 row cards" if pending.rows_only else "the deal"
        return f"the record stops before {what} of round {pending.round}"
    if isinstance(pending, AwaitingDraftPick):
        return (
            f"the record stops at round {pending.round}, during the draft: "
            f"waiting for pick {pending.pick}, {name(pending.seat)}'s"
        )
    at = f"the record stops at round {game.round}, turn {game.turn}"
    if isinstance(pending, AwaitingCommits):
        waiting = ", ".join(name(s) for s in sorted(pending.waiting))
        done = ", ".join(name(s) for s in sorted(pending.committed))
        return f"{at}: waiting for {waiting} to commit" + (f" ({done} committed)" if done else "")
    return f"{at}: waiting for a choice: {_need(pending, name)}"
