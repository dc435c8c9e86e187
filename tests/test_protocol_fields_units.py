"""The protocol's field kinds (protocol/fields.py) and errors (protocol/errors.py) as a
bot author meets them: which values a field takes at its bounds, the exact
``code``, message and field path of a refusal (docs/PROTOCOL.md, "Errors"), and
how an error reads. No trio, no hypothesis (``tools/mutate.py --plain``)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from nimmt import protocol as P
from nimmt.protocol import LocalProtocolError, RemoteProtocolError
from nimmt.protocol.fields import (
    Bool,
    Float,
    Ident,
    Int,
    IntList,
    ListOf,
    Nested,
    OneOf,
    Optional,
    Pair,
    Text,
)


def refusal(kind: Any, value: Any) -> tuple[str, str, str | None]:
    with pytest.raises(LocalProtocolError) as caught:
        kind.check(value)
    e = caught.value
    return e.code, e.message, e.field


def test_an_int_field_takes_its_bounds_and_refuses_one_past_them_and_bools() -> None:
    card = Int(1, 104)
    assert (card.check(1), card.check(104)) == (1, 104)
    assert refusal(card, 0) == ("out_of_range", "0 is not in 1..104", None)
    assert refusal(card, 105) == ("out_of_range", "105 is not in 1..104", None)
    assert refusal(card, True) == ("wrong_type", "expected int, got bool", None)
    assert refusal(card, 5.0) == ("wrong_type", "expected int, got float", None)
    assert refusal(card, None) == ("wrong_type", "expected int, got nil", None)
    assert card.text == "int 1..104"


def test_a_float_field_takes_ints_as_floats_and_refuses_what_is_not_finite() -> None:
    time = Float(0.5, 60)
    assert time.check(1) == 1.0 and type(time.check(1)) is float
    assert (time.check(0.5), time.check(60.0)) == (0.5, 60.0)
    assert refusal(time, 0.4) == ("out_of_range", "0.4 is not in 0.5..60", None)
    assert refusal(time, 61) == ("out_of_range", "61.0 is not in 0.5..60", None)
    assert refusal(time, math.nan)[0] == "out_of_range"
    assert refusal(time, math.inf)[1] == "inf is not in 0.5..60"
    assert refusal(time, "1") == ("wrong_type", "expected float, got str", None)
    assert refusal(time, False) == ("wrong_type", "expected float, got bool", None)
    assert time.text == "float 0.5..60"


def test_bool_text_ident_and_one_of() -> None:
    assert (Bool.check(True), Bool.check(False)) == (True, False)
    assert refusal(Bool, 1) == ("wrong_type", "expected bool, got int", None)
    name = Text(1, 5)
    assert (name.check("a"), name.check("abcde")) == ("a", "abcde")
    assert refusal(name, "") == ("out_of_range", "length 0 is not in 1..5", None)
    assert refusal(name, "abcdef") == ("out_of_range", "length 6 is not in 1..5", None)
    assert refusal(name, "a\nb") == ("out_of_range", "text contains control or unprintable characters", None)
    assert refusal(name, "   ") == ("out_of_range", "text is blank", None)
    assert refusal(name, b"ab") == ("wrong_type", "expected str, got bin", None)
    assert Text(0, 5).check("  ") == "  "  # a field that may be empty may be blank
    table_id = Ident(r"t[0-9]+", 4, "a table id")
    assert table_id.check("t123") == "t123"
    assert refusal(table_id, "t1234") == ("out_of_range", "'t1234' is not a table id", None)
    assert refusal(table_id, "x1") == ("out_of_range", "'x1' is not a table id", None)
    long = "t" + "9" * 60
    assert refusal(Ident(r"t[0-9]+", 100, "an id"), long + "x")[1] == (
        repr(long + "x")[:37] + "... is not an id")
    assert refusal(table_id, 7) == ("wrong_type", "expected str, got int", None)
    kind = OneOf("human", "bot")
    assert kind.check("bot") == "bot"
    assert refusal(kind, "robot") == ("out_of_range", "'robot' is not one of human, bot", None)
    assert refusal(kind, ["bot"]) == ("wrong_type", "expected str, got array", None)
    assert kind.text == '"human" | "bot"'
    maybe = Optional(Int(1, 3))
    assert (maybe.check(None), maybe.check(3)) == (None, 3)
    assert refusal(maybe, 4) == ("out_of_range", "4 is not in 1..3", None)
    assert maybe.text == "int 1..3, or nil"


def test_lists_and_pairs_name_the_index_at_fault() -> None:
    hand = IntList(1, 104, 0, 3, unique=True)
    assert hand.check([3, 1]) == (3, 1)
    assert hand.check(()) == ()
    assert refusal(hand, [1, 2, 3, 4]) == ("out_of_range", "length 4 is not in 0..3", None)
    assert refusal(hand, [1, 0]) == ("out_of_range", "0 is not in 1..104", "[1]")
    assert refusal(hand, [5, "x"]) == ("wrong_type", "expected int, got str", "[1]")
    assert refusal(hand, [5, 5]) == ("out_of_range", "values are not distinct", None)
    assert IntList(1, 9, 2, 2).check([4, 4]) == (4, 4)
    assert refusal(hand, {"a": 1}) == ("wrong_type", "expected array, got map", None)
    assert hand.text == "array of 0..3 distinct int 1..104"
    assert IntList(1, 9, 4, 4).text == "array of 4 int 1..9"
    names = ListOf(Text(1, 3), 1, 2)
    assert names.check(["a", "b"]) == ("a", "b")
    assert refusal(names, []) == ("out_of_range", "length 0 is not in 1..2", None)
    assert refusal(names, ["a", ""]) == ("out_of_range", "length 0 is not in 1..3", "[1]")
    assert refusal(names, "ab") == ("wrong_type", "expected array, got str", None)
    assert names.text == "array of 1..2 (str, 1..3 printable chars)"
    nested = ListOf(IntList(1, 9, 1, 2), 1, 3)
    assert refusal(nested, [[1], [2, 10]]) == ("out_of_range", "10 is not in 1..9", "[1][1]")
    play = Pair(Int(0, 9), Int(1, 104), "[seat, card]")
    assert play.check([2, 50]) == (2, 50)
    assert refusal(play, [2]) == ("out_of_range", "length 1 is not 2", None)
    assert refusal(play, [10, 50]) == ("out_of_range", "10 is not in 0..9", "[0]")
    assert refusal(play, [1, 105]) == ("out_of_range", "105 is not in 1..104", "[1]")
    assert refusal(play, 7) == ("wrong_type", "expected array, got int", None)


def test_a_nested_map_is_read_into_its_class_and_a_fault_inside_named_by_its_path() -> None:
    kind = Nested(P.TableOptions)
    opts = P.TableOptions(seats=3)
    assert kind.check(opts) is opts
    assert kind.check({"seats": 3}) == opts
    assert refusal(kind, [3]) == ("wrong_type", "expected map (TableOptions), got array", None)
    with pytest.raises(LocalProtocolError) as caught:
        kind.check({"seats": 11})
    assert (caught.value.code, caught.value.field) == ("out_of_range", "seats")
    assert kind.encode is not None and kind.encode(opts) == opts.to_wire()


def test_a_message_refused_on_receipt_names_the_nested_field() -> None:
    with pytest.raises(RemoteProtocolError) as caught:
        P.decode_message({"type": "create_table", "id": 3, "options": {"seats": 1}}, P.CLIENT)
    e = caught.value
    assert (e.code, e.message, e.field, e.request, e.re, e.fatal) == (
        "out_of_range", "1 is not in 2..10", "options.seats", "create_table", 3, False)
    with pytest.raises(RemoteProtocolError) as caught:
        P.decode_message({"type": "commit", "id": 4, "round": 1, "turn": 1, "card": 0}, P.CLIENT)
    assert (caught.value.field, caught.value.message) == ("card", "0 is not in 1..104")


# ----------------------------------------------------------------- errors


def test_an_error_reads_code_message_and_field() -> None:
    e = LocalProtocolError("out_of_range", "5 is not in 1..4", "seat")
    assert str(e) == "out_of_range: 5 is not in 1..4 (field 'seat')"
    assert repr(e) == "LocalProtocolError('out_of_range', '5 is not in 1..4', 'seat', fatal=False)"
    assert str(LocalProtocolError("bad_message", "nope")) == "bad_message: nope"
    e._prefix("seats")
    assert e.field == "seats.seat"
    f = LocalProtocolError("out_of_range", "x", "[2]")
    f._prefix("hands")
    assert f.field == "hands[2]"
    g = LocalProtocolError("out_of_range", "x")
    g._prefix("card")
    assert g.field == "card"
    remote = RemoteProtocolError.from_local(LocalProtocolError("too_large", "big", "x", fatal=True))
    assert (remote.code, remote.message, remote.field, remote.fatal, remote.request, remote.re) == (
        "too_large", "big", "x", True, None, None)
    assert isinstance(remote, ValueError)


def test_an_error_message_to_the_peer_carries_what_the_exception_says() -> None:
    e = RemoteProtocolError("out_of_range", "1 is not in 2..10", "options.seats",
                            request="create_table", re=3)
    reply = P.Error.from_exception(e)
    assert (reply.code, reply.message, reply.field, reply.request, reply.re) == (
        "out_of_range", "1 is not in 2..10", "options.seats", "create_table", 3)
