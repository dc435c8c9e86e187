"""The machinery shared by every message: ``Struct``, ``Message``, the registry.

A message class is a frozen, slotted dataclass whose fields are declared with
:func:`F` (a kind from :mod:`.fields` plus a one-line meaning).  Validation is
done once, in ``__post_init__``: building an invalid message locally raises
:class:`LocalProtocolError`; :func:`decode_message` turns the same failures into
:class:`RemoteProtocolError`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar, Final, TypeVar, dataclass_transform

from ._codegen import generate
from .errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from .fields import Int, Kind, Optional
from .states import Role

__all__ = [
    "Struct",
    "Message",
    "F",
    "struct",
    "message",
    "REGISTRY",
    "decode_message",
    "decode_table",
    "decode_with",
    "MAX_SAFE_INT",
    "downgrade",
    "drop_newer_nils",
    "newer_field",
]

#: Ids, sequence numbers and nonces stay below 2**53 so that every language's
#: msgpack library (including JavaScript's doubles) reads them exactly.
MAX_SAFE_INT: Final = 2**53 - 1

_MISSING: Final = dataclasses.MISSING

#: tag -> message class, filled by the :func:`message` decorator.
REGISTRY: Final[dict[str, type[Message]]] = {}

_S = TypeVar("_S", bound="Struct")


def F(kind: Kind, doc: str, *, default: Any = _MISSING, since: int = 1) -> Any:
    """Declare a field: its kind, its meaning, and a default (= the field may be omitted).

    ``since``: the first protocol version with the field; a connection of an older
    version never sends nor accepts it (see :func:`downgrade`), so it needs a default.
    """
    if since > 1 and default is _MISSING:
        raise TypeError("a field added in a later version needs a default")
    meta = {"kind": kind, "doc": doc, "since": since}
    if default is _MISSING:
        return dataclasses.field(metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


class Struct:
    """Base of nested maps and messages: validation, wire conversion.

    ``__post_init__``, ``_from_wire`` and ``to_wire`` are generated per class by
    :mod:`._codegen` (inline checks of the common case, the kind's full check
    otherwise); :meth:`_validate_slowly` is the plain reference version.
    """

    __slots__ = ()

    _SPECS: ClassVar[tuple[tuple[str, Callable[[Any], Any]], ...]] = ()
    _ENCODERS: ClassVar[tuple[tuple[str, Callable[[Any], Any] | None], ...]] = ()
    _FIELDS: ClassVar[frozenset[str]] = frozenset()
    _REQUIRED: ClassVar[frozenset[str]] = frozenset()
    _CROSS: ClassVar[bool] = False
    #: (field, since, nested downgrader or None, default): fields newer than version 1,
    #: and nested maps holding such fields (see :func:`downgrade`)
    _NEWER: ClassVar[tuple[tuple[str, int, Callable[[Any, int], Any] | None, Any], ...]] = ()
    _from_wire: ClassVar[Callable[[dict[Any, Any]], Any]]

    def _cross(self) -> None:
        """Cross-field checks of a subclass (only called if the subclass defines one)."""

    def __post_init__(self) -> None:  # replaced by the generated version
        self._validate_slowly()

    def _validate_slowly(self) -> None:
        setattr_ = object.__setattr__
        for name, check in self._SPECS:
            v = getattr(self, name)
            try:
                w = check(v)
            except LocalProtocolError as e:
                e._prefix(name)
                raise
            if w is not v:
                setattr_(self, name, w)
        if self._CROSS:
            self._cross()

    @classmethod
    def from_map(cls: type[_S], data: dict[Any, Any]) -> _S:
        """Build from a decoded map; problems raise :class:`LocalProtocolError`."""
        keys = data.keys()
        if not keys <= cls._FIELDS:
            raise _extra(keys, cls._FIELDS)
        if not cls._REQUIRED <= keys:
            raise _missing(keys, cls._REQUIRED)
        obj: _S = cls._from_wire(data)
        return obj

    def to_wire(self) -> dict[str, Any]:  # replaced by the generated version
        """The map sent on the wire (nested structs become maps, tuples stay arrays)."""
        out: dict[str, Any] = {}
        for name, enc in self._ENCODERS:
            v = getattr(self, name)
            out[name] = v if enc is None else enc(v)
        return out


def _extra(keys: Any, allowed: frozenset[str]) -> LocalProtocolError:
    for k in keys:
        if k not in allowed:
            # an empty or blank key is shown quoted: a field path must be visible text
            ok = type(k) is str and len(k) <= 40 and k.isprintable() and k.strip() == k != ""
            name = k if ok else repr(k)[:40]
            return LocalProtocolError(ErrorCode.EXTRA_FIELD, f"unknown field {name!r}", name)
    raise AssertionError("unreachable")  # pragma: no cover


def _missing(keys: Any, required: frozenset[str]) -> LocalProtocolError:
    name = min(required - set(keys))
    return LocalProtocolError(ErrorCode.MISSING_FIELD, f"field {name!r} is required", name)


def _nested_downgrader(kind: Kind) -> Callable[[Any, int], Any] | None:
    """How to remove newer fields from a wire value of ``kind`` (None: nothing to do)."""
    shape = kind.shape
    if not shape:
        return None
    if shape[0] == "Nested":
        cls = shape[1]
        if not cls._NEWER:
            return None
        return lambda w, version: _strip(cls, w, version)
    if shape[0] in ("Optional", "ListOf"):
        inner = _nested_downgrader(shape[1])
        if inner is None:
            return None
        if shape[0] == "Optional":
            return lambda w, version: None if w is None else inner(w, version)

        def each(w: Any, version: int) -> None:
            for x in w:
                inner(x, version)
        return each
    return None


def _strip(cls: type[Struct], wire: dict[str, Any], version: int) -> None:
    for name, since, nested, _ in cls._NEWER:
        if since > version:
            wire.pop(name, None)
        elif nested is not None and name in wire:
            nested(wire[name], version)


def downgrade(msg: Message, wire: dict[str, Any], version: int) -> dict[str, Any]:
    """``wire`` (``msg.to_wire()``, changed in place) without the fields, nested ones
    included, that protocol ``version`` does not have."""
    if msg._NEWER:
        _strip(type(msg), wire, version)
    return wire


def _find_newer(cls: type[Struct], data: dict[Any, Any], version: int) -> str | None:
    for name, since, nested, default in cls._NEWER:
        if name not in data:
            continue
        if since > version:
            if data[name] is None or data[name] == default:  # a nil: means nothing
                continue
            return name
        if nested is None:
            continue
        for sub, path in _nested_maps(cls, name, data[name]):
            found = _find_newer(sub, path[1], version)
            if found is not None:
                return f"{name}{path[0]}.{found}"
    return None


def _nested_maps(cls: type[Struct], name: str, value: Any) -> list[tuple[type[Struct],
                                                                       tuple[str, Any]]]:
    kind: Kind = next(f.metadata["kind"] for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                      if f.name == name)
    out: list[tuple[type[Struct], tuple[str, Any]]] = []

    def walk(k: Kind, v: Any, path: str) -> None:
        tag = k.shape[0] if k.shape else None
        if tag == "Nested" and type(v) is dict:
            out.append((k.shape[1], (path, v)))
        elif tag == "Optional" and v is not None:
            walk(k.shape[1], v, path)
        elif tag == "ListOf" and type(v) in (list, tuple):
            for i, x in enumerate(v):
                walk(k.shape[1], x, f"{path}[{i}]")

    walk(kind, value, "")
    return out


def drop_newer_nils(data: dict[Any, Any], version: int) -> bool:
    """Remove from the received map ``data`` (in place) every field, nested ones
    included, that protocol ``version`` does not have and that holds nil: a nil there
    says nothing (docs/PROTOCOL.md), even where the later version takes no nil (a
    version 1 client's ``options.rated: nil``). Whether one was removed."""
    tag = data.get("type")
    cls = REGISTRY.get(tag) if type(tag) is str else None
    return cls is not None and _drop_nils(cls, data, version)


def _drop_nils(cls: type[Struct], data: dict[Any, Any], version: int) -> bool:
    dropped = False
    for name, since, nested, _ in cls._NEWER:
        if name not in data:
            continue
        if since > version:
            if data[name] is None:
                del data[name]
                dropped = True
        elif nested is not None:
            for sub, (_, value) in _nested_maps(cls, name, data[name]):
                dropped = _drop_nils(sub, value, version) or dropped
    return dropped


def newer_field(msg_type: type[Message], data: dict[Any, Any], version: int) -> str | None:
    """The path of a field in the received map ``data`` that protocol ``version`` does
    not have (e.g. ``"options.rated"``), or None. Such a field holding its default
    (a nil) is tolerated: it says nothing the version cannot hear."""
    if not msg_type._NEWER:
        return None
    return _find_newer(msg_type, data, version)


def _finalize(cls: type[Struct], envelope: tuple[str, ...] = (), tag: str | None = None) -> None:
    specs: list[tuple[str, Callable[[Any], Any]]] = []
    encoders: list[tuple[str, Callable[[Any], Any] | None]] = []
    gen: list[tuple[str, Kind, Any]] = []
    newer: list[tuple[str, int, Callable[[Any, int], Any] | None, Any]] = []
    names: set[str] = set()
    required: set[str] = set()
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        kind = f.metadata.get("kind")
        if not isinstance(kind, Kind):
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with F()")
        specs.append((f.name, kind.check))
        gen.append((f.name, kind, f.default))
        if f.name in envelope:
            continue
        since = f.metadata.get("since", 1)
        nested = _nested_downgrader(kind)
        if since > 1 or nested is not None:
            newer.append((f.name, since, nested, f.default))
        encoders.append((f.name, kind.encode))
        names.add(f.name)
        if f.default is _MISSING and f.default_factory is _MISSING:
            required.add(f.name)
    cls._SPECS = tuple(specs)
    cls._ENCODERS = tuple(encoders)
    cls._FIELDS = frozenset(names)
    cls._REQUIRED = frozenset(required)
    cls._CROSS = "_cross" in cls.__dict__
    cls._NEWER = tuple(newer)
    post_init, from_wire, to_wire = generate(cls, gen, envelope, tag, _MISSING)
    cls.__post_init__ = post_init  # type: ignore[method-assign]
    cls._from_wire = staticmethod(from_wire)
    cls.to_wire = to_wire  # type: ignore[method-assign]


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, F))
def struct(cls: type[_S]) -> type[_S]:
    """Class decorator for a nested map type (a ``Struct`` subclass; frozen, slotted)."""
    if not issubclass(cls, Struct):
        raise TypeError(f"{cls.__name__} must derive from Struct")
    new = dataclasses.dataclass(frozen=True, slots=True)(cls)
    _finalize(new)
    return new


_SEQ: Final = Optional(Int(1, MAX_SAFE_INT))
_ID: Final = Optional(Int(0, MAX_SAFE_INT))
_ENVELOPE: Final = ("seq", "re", "id")


@dataclasses.dataclass(frozen=True, slots=True)
class Message(Struct):
    """Base of every message.

    ``seq`` (server messages: per-connection counter from 1, set by
    ``Connection.send``), ``re`` (server messages: the ``id`` of the request this
    answers) and ``id`` (client messages: an optional request id) form the
    envelope; each class adds its own fields.
    """

    TYPE: ClassVar[str] = ""
    SENDERS: ClassVar[frozenset[Role]] = frozenset()
    #: the first protocol version with this message type (an older connection never
    #: sends nor accepts it: ``Connection`` refuses it with ``unknown_type``)
    SINCE: ClassVar[int] = 1
    _KEYS: ClassVar[dict[Role, tuple[frozenset[str], frozenset[str]]]] = {}
    _PRECHECK: ClassVar[Callable[[dict[Any, Any]], None] | None] = None
    _from_wire: ClassVar[Callable[[dict[Any, Any]], Any]]

    _: dataclasses.KW_ONLY
    seq: int | None = F(_SEQ, "server messages: sequence number, 1, 2, 3, ...", default=None)
    re: int | None = F(_ID, "server messages: the id of the request answered", default=None)
    id: int | None = F(_ID, "client messages: request id, echoed as re", default=None)

    def __repr__(self) -> str:
        # a name's secret key never reaches a log or a traceback through a repr
        parts = [f"{name}={'<secret>' if name == 'key' and getattr(self, name) else getattr(self, name)!r}"
                 for name, _ in self._ENCODERS]
        for name in ("seq", "re", "id"):
            v = getattr(self, name)
            if v is not None:
                parts.append(f"{name}={v!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def to_wire(self, seq: int | None = None) -> dict[str, Any]:
        """The wire map: ``type``, envelope, fields; ``seq`` given here wins over ``self.seq``.

        (Replaced per class by a generated version with the same behaviour.)
        """
        out: dict[str, Any] = {"type": self.TYPE}
        if seq is None:
            seq = self.seq
        for name, v in (("seq", seq), ("re", self.re), ("id", self.id)):
            if v is not None:
                out[name] = v
        for name, enc in self._ENCODERS:
            v = getattr(self, name)
            out[name] = v if enc is None else enc(v)
        return out


_M = TypeVar("_M", bound=Message)


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, F))
def message(tag: str, *senders: Role, since: int = 1) -> Callable[[type[_M]], type[_M]]:
    """Class decorator: make a frozen validated message class and register ``tag``
    (``since``: the first protocol version that has it)."""
    if not senders:
        raise TypeError("a message needs at least one sender role")

    def deco(cls: type[_M]) -> type[_M]:
        if tag in REGISTRY:
            raise TypeError(f"message type {tag!r} registered twice")
        new = dataclasses.dataclass(frozen=True, slots=True, repr=False)(cls)
        new.TYPE = tag
        new.SENDERS = frozenset(senders)
        new.SINCE = since
        _finalize(new, _ENVELOPE, tag)
        pre = new.__dict__.get("_precheck")
        new._PRECHECK = pre if callable(pre) else None
        fields = new._FIELDS
        req = new._REQUIRED
        new._KEYS = {
            Role.SERVER: (fields | {"type", "seq", "re"}, req | {"type", "seq"}),
            Role.CLIENT: (fields | {"type", "id"}, req | {"type"}),
        }
        REGISTRY[tag] = new
        return new

    return deco


def _request_info(obj: dict[Any, Any]) -> tuple[str | None, int | None]:
    tag = obj.get("type")
    rid = obj.get("id")
    return (
        tag if type(tag) is str and tag in REGISTRY else None,
        rid if type(rid) is int and 0 <= rid <= MAX_SAFE_INT else None,
    )


def _remote(code: str, text: str, field: str | None, obj: dict[Any, Any]) -> RemoteProtocolError:
    request, re_ = _request_info(obj)
    return RemoteProtocolError(code, text, field, request=request, re=re_)


_Entry = tuple[Any, frozenset[str], frozenset[str], Any]
_TABLES: dict[Role, tuple[int, dict[str, _Entry]]] = {}


def decode_table(sender: Role) -> dict[str, _Entry]:
    """tag -> (class, allowed keys, required keys, precheck) for what ``sender`` may send."""
    cached = _TABLES.get(sender)
    if cached is not None and cached[0] == len(REGISTRY):
        return cached[1]
    table: dict[str, _Entry] = {}
    for tag, cls in REGISTRY.items():
        if sender in cls.SENDERS:
            allowed, required = cls._KEYS[sender]
            table[tag] = (cls._from_wire, allowed, required, cls._PRECHECK)
    _TABLES[sender] = (len(REGISTRY), table)
    return table


def decode_message(obj: Any, sender: Role) -> Message:
    """Validate a decoded msgpack object sent by ``sender`` and build its message.

    Raises :class:`RemoteProtocolError` (never anything else) when it is not a
    valid message of a type that ``sender`` may send.
    """
    return decode_with(obj, decode_table(sender), sender)


def decode_with(obj: Any, table: dict[str, _Entry], sender: Role) -> Message:
    """:func:`decode_message` with the sender's :func:`decode_table` already looked up."""
    if type(obj) is not dict:
        raise RemoteProtocolError(ErrorCode.NOT_A_MAP, "a message must be a msgpack map")
    tag = obj.get("type", _MISSING)
    entry = table.get(tag) if type(tag) is str else None
    if entry is None:
        raise _bad_tag(obj, tag, sender)
    from_wire, allowed, required, pre = entry
    keys = obj.keys()
    try:
        if pre is not None:
            pre(obj)
        if not keys <= allowed:
            raise _extra(keys, allowed)
        if not required <= keys:
            raise _missing(keys, required)
        msg: Message = from_wire(obj)
    except LocalProtocolError as e:
        raise _remote(e.code, e.message, e.field, obj) from None
    if msg.seq is None and sender is Role.SERVER:
        raise _remote(ErrorCode.WRONG_TYPE, "expected int, got nil", "seq", obj)
    return msg


def _bad_tag(obj: dict[Any, Any], tag: Any, sender: Role) -> RemoteProtocolError:
    if tag is _MISSING:
        return _remote(ErrorCode.MISSING_FIELD, "field 'type' is required", "type", obj)
    if type(tag) is not str:
        return _remote(ErrorCode.WRONG_TYPE, "field 'type' must be a str", "type", obj)
    if tag in REGISTRY:
        return _remote(
            ErrorCode.UNEXPECTED_MESSAGE, f"a {sender.value} never sends {tag!r}", "type", obj
        )
    t = tag if len(tag) <= 40 and tag.isprintable() else repr(tag)[:40]
    return _remote(ErrorCode.UNKNOWN_TYPE, f"unknown message type {t!r}", "type", obj)
