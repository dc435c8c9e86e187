"""Property tests: any valid message survives encode -> split anywhere -> decode."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import nimmt.protocol as P
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nimmt.protocol import CLIENT, NEED_DATA, SERVER, LocalProtocolError
from nimmt.protocol.base import newer_field
from nimmt.protocol.examples import EXAMPLES, LIMITS, SNAPSHOT, TABLE
from nimmt.protocol.fields import Kind

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

STRUCT_EXAMPLES: dict[type, P.Struct] = {
    P.Place: P.Place(row=0, end="right"),
    P.TableOptions: P.TableOptions(),
    P.SeatInfo: TABLE.seats[0],  # type: ignore[dict-item]
    P.TableInfo: TABLE,
    P.Limits: LIMITS,
    P.Pending: SNAPSHOT.pending,  # type: ignore[dict-item]
    P.Autoplayed: P.Autoplayed(kind="commit", round=1, turn=1, card=46),
}
_ENVELOPE = ("seq", "re", "id")


def kind_strategy(kind: Kind) -> st.SearchStrategy[Any]:
    """Values that ``kind`` accepts (not exhaustive at the edges of unique lists)."""
    name, *args = kind.shape
    if name == "Int":
        lo, hi = args
        return st.integers(lo, hi)
    if name == "Float":
        lo, hi = args
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False) | st.integers(
            int(lo), int(min(hi, 2**40)))
    if name == "Bool":
        return st.booleans()
    if name == "Text":
        lo, hi = args
        return st.text(st.characters(codec="utf-8"), min_size=lo, max_size=hi).filter(
            lambda s: s.isprintable() and not (lo and s.isspace()))
    if name == "Ident":
        pattern, hi = args
        return st.from_regex(pattern, fullmatch=True).filter(lambda s: len(s) <= hi)
    if name == "OneOf":
        return st.sampled_from(args)
    if name == "Optional":
        return st.none() | kind_strategy(args[0])
    if name == "IntList":
        lo, hi, nmin, nmax, unique = args
        return st.lists(st.integers(lo, hi), min_size=nmin, max_size=nmax,
                        unique=unique).map(tuple)
    if name == "ListOf":
        inner, nmin, nmax = args
        return st.lists(kind_strategy(inner), min_size=nmin,
                        max_size=max(nmin, min(nmax, 6))).map(tuple)
    if name == "Pair":
        return st.tuples(kind_strategy(args[0]), kind_strategy(args[1]))
    if name == "Nested":
        return struct_strategy(args[0])
    raise AssertionError(f"no strategy for {kind.shape}")


def _fix(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    """Make random field values meet the cross-field rules of ``cls``."""
    v = values
    if cls is P.TableInfo:
        n = v["options"].seats
        seats = (list(v["seats"]) * 10)[:n] or [None] * n
        v["seats"] = tuple(seats)
        if len(v["seats"]) < n:
            v["seats"] += (None,) * (n - len(v["seats"]))
    elif cls is P.Revealed:
        best: dict[int, tuple[int, int]] = {}
        for s, c in v["plays"]:
            best[c] = (s, c)
        v["plays"] = tuple(best[c] for c in sorted(best))
    elif cls is P.RoundScored:
        n = min(len(v["penalties"]), len(v["totals"]))
        v["penalties"], v["totals"] = v["penalties"][:n], v["totals"][:n]
    elif cls is P.GameOver:
        n = min(len(v["totals"]), len(v["places"]))
        v["totals"], v["places"] = v["totals"][:n], v["places"][:n]
        v["winners"] = tuple(w for w in v["winners"] if w < n) or (0,)
    elif cls is P.Snapshot:
        if len(v["rows"]) not in (0, 4):
            v["rows"] = (v["rows"] * 4)[:4]
        v["table"] = dataclasses.replace(v["table"], options=dataclasses.replace(
            v["table"].options, seats=10), seats=(v["table"].seats * 10)[:10])
    elif cls is P.Autoplayed:
        kind = v["kind"]
        v["turn"] = 0 if kind == "draft" else v["turn"] or 1
        v["row"] = None if kind in ("commit", "draft") else v["row"] or 0
        v["end"] = (v["end"] or "left") if kind == "tie" else None
    elif cls in (P.Seated, P.Watching):
        n = v["table"].options.seats
        v["round_penalties"] = tuple((tuple(r) * n)[:n] or (0,) * n for r in v["round_penalties"])
    elif cls is P.TableOptions and v["point_limit"] is None and v["rounds"] is None:
        v["rounds"] = 1
    return v


def _fields(cls: type) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(cls) if f.name not in _ENVELOPE]


@st.composite
def _struct(draw: st.DrawFn, cls: type) -> Any:
    values = {f.name: draw(kind_strategy(f.metadata["kind"])) for f in _fields(cls)}
    try:
        return cls(**_fix(cls, values))
    except LocalProtocolError:
        return STRUCT_EXAMPLES.get(cls) or EXAMPLES[cls.TYPE]  # rare: a rule not fixed up


_STRUCT_CACHE: dict[type, st.SearchStrategy[Any]] = {}


def struct_strategy(cls: type) -> st.SearchStrategy[Any]:
    if cls not in _STRUCT_CACHE:
        _STRUCT_CACHE[cls] = st.deferred(lambda: _struct(cls))
    return _STRUCT_CACHE[cls]


@st.composite
def messages(draw: st.DrawFn, tags: list[str] | None = None) -> tuple[P.Role, P.Message]:
    tag = draw(st.sampled_from(tags or sorted(P.REGISTRY)))
    cls = P.REGISTRY[tag]
    role = draw(st.sampled_from(sorted(cls.SENDERS, key=lambda r: r.value)))
    msg = draw(struct_strategy(cls))
    ids = st.none() | st.integers(0, P.MAX_SAFE_INT)
    if role is SERVER:
        env = {"seq": draw(st.integers(1, P.MAX_SAFE_INT)), "re": draw(ids), "id": None}
    else:
        env = {"seq": None, "re": None, "id": draw(ids)}
    return role, dataclasses.replace(msg, **env)


def test_every_kind_has_a_strategy() -> None:
    for cls in P.REGISTRY.values():
        for f in dataclasses.fields(cls):
            kind_strategy(f.metadata["kind"])


@SETTINGS
@given(messages())
def test_encode_split_at_every_offset_decode(rm: tuple[P.Role, P.Message]) -> None:
    role, msg = rm
    data = P.encode_frame(msg)
    for i in range(len(data) + 1):
        dec = P.FrameDecoder(role)
        if i:  # (b"" would mean end of stream)
            dec.receive_data(data[:i])
        if i < len(data):
            assert dec.next_message() is NEED_DATA
            dec.receive_data(data[i:])
        assert dec.next_message() == msg
        assert dec.next_message() is NEED_DATA
        assert dec.buffered == 0


@SETTINGS
@given(st.lists(messages(), min_size=1, max_size=6), st.data())
def test_streams_of_messages_cut_into_random_chunks(batch, data) -> None:
    role = data.draw(st.sampled_from([CLIENT, SERVER]))
    msgs = [m for r, m in batch if r is role]
    stream = b"".join(P.encode_frame(m) for m in msgs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    dec = P.FrameDecoder(role)
    got = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        if a == b:
            continue
        dec.receive_data(stream[a:b])
        while (m := dec.next_message()) is not NEED_DATA:
            got.append(m)
    assert got == msgs


@SETTINGS
@given(messages())
def test_wire_map_round_trip_and_rebuild(rm: tuple[P.Role, P.Message]) -> None:
    role, msg = rm
    wire = msg.to_wire()
    assert P.decode_message(wire, role) == msg
    # omitting optional fields that hold their default gives the same message
    cls = type(msg)
    slim = dict(wire)
    for f in _fields(cls):
        if f.default is not dataclasses.MISSING and getattr(msg, f.name) == f.default:
            del slim[f.name]
    assert P.decode_message(slim, role) == msg
    if getattr(msg, "key", None):  # a name's secret key is never shown by a repr
        assert msg.key not in repr(msg) and "key='<secret>'" in repr(msg)
        msg = dataclasses.replace(msg, key=None)
    assert eval(repr(msg), vars(P)) == msg


@SETTINGS
@given(messages())
def test_connection_pair_round_trip(rm: tuple[P.Role, P.Message]) -> None:
    role, msg = rm
    tag = msg.TYPE
    state = next(s for (s, r, t) in P.TRANSITIONS if r is role and t == tag)
    a, b = P.Connection(role), P.Connection(role.other)
    a._set_state(state)
    b._set_state(state)
    if role is SERVER:
        msg = dataclasses.replace(msg, seq=None, id=None)
    else:
        msg = dataclasses.replace(msg, seq=None, re=None)
    if isinstance(msg, P.Hello) and msg.protocol < P.PROTOCOL_VERSION:
        # a hello of an older version may not carry what that version lacks: a local error
        later = newer_field(P.Hello, msg.to_wire(), msg.protocol)
        if later is not None:
            with pytest.raises(P.LocalProtocolError) as refused:
                a.send(msg)
            assert refused.value.code == "extra_field" and refused.value.field == later
            return
    b.receive_data(a.send(msg))
    got = b.next_message()
    assert got == (dataclasses.replace(msg, seq=1) if role is SERVER else msg)
