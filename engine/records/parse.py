"""Reading a game record: JSON text, bytes or plain JSON values checked and read
into the dataclasses of ``nimmt.engine.records.format``. An ill-formed record
raises ``InvalidRecord`` naming its JSON path (and round, turn and seat, when
they apply).

>>> record_from_json('{"format": "nimmt-record", "version": 1, "options": {"players": 2}, "rounds": []}').options.players
2
>>> record_from_json('{"format": "nimmt-record", "version": 1, "options": {"players": 11}, "rounds": []}')
Traceback (most recent call last):
...
nimmt.engine.records.format.InvalidRecord: options: players must be 2 to 10, not 11
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from typing import Any, NoReturn

from ..errors import InvalidOptions
from ..fair_deal import MAX_CONTRIBUTION, SEED_BYTES
from ..moves import End, Place
from ..options import ROWS, Options
from .format import (
    FORMAT,
    VERSION,
    Choice,
    FairDealClaim,
    InvalidRecord,
    Record,
    ResultClaim,
    RoundRecord,
    Rows,
    RowChoice,
    Start,
    TableFacts,
    TieChoice,
    TurnRecord,
)

__all__ = ["load_json", "record_from_dict", "record_from_json", "record_from_bytes"]


def record_from_json(text: str) -> Record:
    """Read a record from JSON text; ``InvalidRecord`` if it is not one."""
    return record_from_dict(load_json(text))


def record_from_bytes(data: bytes) -> Record:
    """Read a record from the bytes of a file (UTF-8, a byte-order mark allowed);
    ``InvalidRecord`` if they are not a record, including bytes that are not UTF-8."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidRecord(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    return record_from_json(text)


def load_json(text: str) -> Any:
    """JSON text as plain values; ``InvalidRecord`` if it is not JSON a record may hold."""

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


def record_from_dict(data: Any) -> Record:
    """Check plain JSON values and read them as a record; ``InvalidRecord`` if they are not one."""
    top = _At("")
    obj = _object(
        data,
        top,
        "a record",
        ("format", "version", "options", "rounds"),
        ("comment", "table", "seats", "start", "result", "fair_deal"),
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
    fair_deal = (_parse_fair_deal(obj["fair_deal"], top.key("fair_deal"), n)
                 if "fair_deal" in obj else None)
    table = _parse_table(obj["table"], top.key("table")) if "table" in obj else None
    return Record(options, tuple(rounds), seats, start, result, _comment(obj, top), fair_deal,
                  table)


def _seconds(value: Any, at: _At, what: str, positive: bool) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        at.fail(f"{what} must be a number of seconds, not {_show(value)}")
    if value < 0 or (positive and value == 0):
        at.fail(f"{what} must be {'more than 0' if positive else 'at least 0'}, not {value}")
    return float(value)


def _parse_table(value: Any, at: _At) -> TableFacts:
    obj = _object(value, at, "table", (),
                  ("name", "rated", "turn_time", "choice_time", "draft_time", "time_bank"))
    name = _str(obj["name"], at.key("name"), "the table's name") if "name" in obj else None
    rated = obj.get("rated", False)
    if type(rated) is not bool:
        at.key("rated").fail(f"rated must be true or false, not {_show(rated)}")
    times = {key: _seconds(obj[key], at.key(key), key, True) if key in obj else None
             for key in ("turn_time", "choice_time", "draft_time")}
    bank = (_seconds(obj["time_bank"], at.key("time_bank"), "time_bank", False)
            if "time_bank" in obj else 0.0)
    return TableFacts(name, rated, times["turn_time"], times["choice_time"],
                      times["draft_time"], bank)


def _hex(value: Any, at: _At, what: str, lo: int, hi: int) -> bytes:
    text = _str(value, at, what)
    try:
        data = bytes.fromhex(text)
    except ValueError:
        at.fail(f"{what} must be hexadecimal digits, not {_show(value)}")
    if not lo <= len(data) <= hi or text != data.hex():
        at.fail(f"{what} must be {lo} to {hi} bytes as lowercase hex, not {_show(value)}")
    return data


def _parse_fair_deal(value: Any, at: _At, n: int) -> FairDealClaim:
    obj = _object(value, at, "fair_deal", ("commitment", "seed", "contributions"),
                  ("hashes", "withheld"))
    commitment = _hex(obj["commitment"], at.key("commitment"), "the commitment", 32, 32).hex()
    seed = _hex(obj["seed"], at.key("seed"), "the seed", SEED_BYTES, SEED_BYTES)
    where = at.key("contributions")
    items = _list(obj["contributions"], where, "contributions (one per seat)", n)
    contributions = tuple(_hex(c, where.index(i, seat=i), "a contribution", 0, MAX_CONTRIBUTION)
                          for i, c in enumerate(items))
    hashes: tuple[bytes, ...] = ()
    withheld: tuple[int, ...] = ()
    if "hashes" in obj:
        where = at.key("hashes")
        items = _list(obj["hashes"], where, "hashes (one per seat)", n)
        hashes = tuple(_hex(h, where.index(i, seat=i), "a hash (or \"\" for none)", 0, 32)
                       for i, h in enumerate(items))
        for i, h in enumerate(hashes):
            if len(h) not in (0, 32):
                where.index(i, seat=i).fail(f"a hash is 32 bytes (or \"\" for none), "
                                            f"not {len(h)}")
    if "withheld" in obj:
        where = at.key("withheld")
        items = _list(obj["withheld"], where, "withheld (seats)")
        withheld = tuple(_int(s, where.index(i), "a seat", 0, n - 1) for i, s in enumerate(items))
        if list(withheld) != sorted(set(withheld)):
            where.fail(f"withheld lists seats in ascending order, once each, not {list(withheld)}")
    return FairDealClaim(commitment, seed, contributions, hashes, withheld)


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

