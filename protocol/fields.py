"""Hand-written, fast field validators ("kinds").

A :class:`Kind` bundles a ``check`` function, an optional ``encode`` function
and a short human description used by the generated documentation.

``check(value)`` returns the normalised value (lists become tuples, ints in a
float field become floats, dicts in a nested field become the nested class) or
raises :class:`LocalProtocolError` with ``field=None`` (or a ``[i]`` path); the
caller prefixes the field name.  Every check compares exact types
(``type(v) is int``), so ``True`` is not an int and an ``IntEnum`` is not either.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from .errors import ErrorCode, LocalProtocolError

__all__ = [
    "Kind",
    "Int",
    "Float",
    "Bool",
    "Text",
    "Ident",
    "OneOf",
    "Optional",
    "IntList",
    "ListOf",
    "Pair",
    "Nested",
    "wrong_type",
    "out_of_range",
]

Check = Callable[[Any], Any]
Encode = Callable[[Any], Any]


class Kind:
    """A field kind: how to check it, how to encode it, how to describe it.

    ``fast`` is an optional Python expression over ``v`` (and ``{c}``, which the
    code generator replaces by the name it binds ``const`` to) that is true
    exactly when ``check(v)`` would return ``v`` unchanged; the generated
    validators evaluate it inline and only call ``check`` when it is false.
    """

    __slots__ = ("check", "encode", "text", "fast", "const", "shape")

    def __init__(
        self,
        check: Check,
        text: str,
        encode: Encode | None = None,
        *,
        fast: str | None = None,
        const: object = None,
        shape: tuple[Any, ...] = (),
    ) -> None:
        self.check = check
        self.text = text
        self.encode = encode
        self.fast = fast
        self.const = const
        #: A description of the kind for tools (test data generators): the
        #: constructor's name and arguments, e.g. ``("Int", 1, 104)``.
        self.shape = shape

    def __repr__(self) -> str:
        return f"Kind({self.text!r})"


_TYPE_NAMES: Final[dict[type, str]] = {
    int: "int",
    float: "float",
    bool: "bool",
    str: "str",
    bytes: "bin",
    list: "array",
    tuple: "array",
    dict: "map",
    type(None): "nil",
}


def _tname(v: object) -> str:
    return _TYPE_NAMES.get(type(v), type(v).__name__)


def wrong_type(expected: str, value: object) -> LocalProtocolError:
    return LocalProtocolError(ErrorCode.WRONG_TYPE, f"expected {expected}, got {_tname(value)}")


def out_of_range(message: str) -> LocalProtocolError:
    return LocalProtocolError(ErrorCode.OUT_OF_RANGE, message)


def _short(v: object) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _at(exc: LocalProtocolError, index: int) -> LocalProtocolError:
    exc._prefix(f"[{index}]")
    return exc


def Int(lo: int, hi: int, text: str | None = None) -> Kind:
    """An integer in ``lo..hi`` (booleans refused)."""

    def check(v: Any) -> int:
        if type(v) is not int:
            raise wrong_type("int", v)
        if v < lo or v > hi:
            raise out_of_range(f"{v} is not in {lo}..{hi}")
        return v

    return Kind(check, text or f"int {lo}..{hi}", fast=f"type(v) is int and {lo} <= v <= {hi}",
                shape=("Int", lo, hi))


def Float(lo: float, hi: float) -> Kind:
    """A finite number in ``lo..hi``; an int is accepted and becomes a float."""

    def check(v: Any) -> float:
        t = type(v)
        if t is int:
            f = float(v)
        elif t is float:
            f = v
        else:
            raise wrong_type("float", v)
        if not lo <= f <= hi:  # also refuses NaN and infinities
            raise out_of_range(f"{f} is not in {lo}..{hi}")
        return f

    return Kind(check, f"float {lo:g}..{hi:g}",
                fast=f"type(v) is float and {float(lo)!r} <= v <= {float(hi)!r}",
                shape=("Float", lo, hi))


def _check_bool(v: Any) -> bool:
    if type(v) is not bool:
        raise wrong_type("bool", v)
    return v


Bool: Final = Kind(_check_bool, "bool", fast="type(v) is bool", shape=("Bool",))


def Text(min_len: int, max_len: int) -> Kind:
    """Human-readable text: ``min_len..max_len`` characters, no control characters."""

    def check(v: Any) -> str:
        if type(v) is not str:
            raise wrong_type("str", v)
        n = len(v)
        if n < min_len or n > max_len:
            raise out_of_range(f"length {n} is not in {min_len}..{max_len}")
        if not v.isprintable():
            raise out_of_range("text contains control or unprintable characters")
        if min_len and v.isspace():
            raise out_of_range("text is blank")
        return v

    fast = f"type(v) is str and {min_len} <= len(v) <= {max_len} and v.isprintable()"
    if min_len:
        fast += " and not v.isspace()"
    return Kind(check, f"str, {min_len}..{max_len} printable chars", fast=fast,
                shape=("Text", min_len, max_len))


def Ident(pattern: str, max_len: int, text: str) -> Kind:
    """A machine string matching ``pattern`` (a regex, fully matched), at most ``max_len``."""
    rx = re.compile(pattern)
    match = rx.fullmatch

    def check(v: Any) -> str:
        if type(v) is not str:
            raise wrong_type("str", v)
        if len(v) > max_len or match(v) is None:
            raise out_of_range(f"{_short(v)} is not {text}")
        return v

    return Kind(check, f"str, {text}",
                fast=f"type(v) is str and len(v) <= {max_len} and {{c}}(v) is not None",
                const=match, shape=("Ident", pattern, max_len))


def OneOf(*values: str) -> Kind:
    """One of a fixed set of strings."""
    allowed = frozenset(values)

    def check(v: Any) -> str:
        if type(v) is not str:
            raise wrong_type("str", v)
        if v not in allowed:
            raise out_of_range(f"{_short(v)} is not one of {', '.join(values)}")
        return v

    return Kind(check, " | ".join(f'"{x}"' for x in values),
                fast="type(v) is str and v in {c}", const=allowed, shape=("OneOf", *values))


def Optional(kind: Kind) -> Kind:
    """``kind`` or nil."""
    inner = kind.check
    enc = kind.encode

    def check(v: Any) -> Any:
        if v is None:
            return None
        return inner(v)

    encode: Encode | None = None
    if enc is not None:
        def encode(v: Any) -> Any:
            return None if v is None else enc(v)

    fast = None if kind.fast is None else f"v is None or ({kind.fast})"
    return Kind(check, f"{kind.text}, or nil", encode, fast=fast, const=kind.const,
                shape=("Optional", kind))


def _len_text(min_len: int, max_len: int) -> str:
    return f"{min_len}" if min_len == max_len else f"{min_len}..{max_len}"


def IntList(lo: int, hi: int, min_len: int, max_len: int, *, unique: bool = False) -> Kind:
    """An array of ``min_len..max_len`` ints in ``lo..hi`` (a tuple in Python)."""

    def check(v: Any) -> tuple[int, ...]:
        t = type(v)
        if t is not list and t is not tuple:
            raise wrong_type("array", v)
        n = len(v)
        if n < min_len or n > max_len:
            raise out_of_range(f"length {n} is not in {min_len}..{max_len}")
        for i, x in enumerate(v):
            if type(x) is not int:
                raise _at(wrong_type("int", x), i)
            if x < lo or x > hi:
                raise _at(out_of_range(f"{x} is not in {lo}..{hi}"), i)
        if unique and len(set(v)) != n:
            raise out_of_range("values are not distinct")
        return v if t is tuple else tuple(v)

    u = "distinct " if unique else ""
    return Kind(check, f"array of {_len_text(min_len, max_len)} {u}int {lo}..{hi}",
                shape=("IntList", lo, hi, min_len, max_len, unique))


def ListOf(kind: Kind, min_len: int, max_len: int) -> Kind:
    """An array of ``min_len..max_len`` items of ``kind`` (a tuple in Python)."""
    inner = kind.check
    enc = kind.encode

    def check(v: Any) -> tuple[Any, ...]:
        t = type(v)
        if t is not list and t is not tuple:
            raise wrong_type("array", v)
        n = len(v)
        if n < min_len or n > max_len:
            raise out_of_range(f"length {n} is not in {min_len}..{max_len}")
        out = []
        for i, x in enumerate(v):
            try:
                out.append(inner(x))
            except LocalProtocolError as e:
                raise _at(e, i) from None
        return tuple(out)

    encode: Encode | None = None
    if enc is not None:
        def encode(v: Any) -> Any:
            return [enc(x) for x in v]

    return Kind(check, f"array of {_len_text(min_len, max_len)} ({kind.text})", encode,
                shape=("ListOf", kind, min_len, max_len))


def Pair(first: Kind, second: Kind, text: str) -> Kind:
    """A 2-element array ``[a, b]`` (a 2-tuple in Python)."""
    c1, c2 = first.check, second.check

    def check(v: Any) -> tuple[Any, Any]:
        t = type(v)
        if t is not list and t is not tuple:
            raise wrong_type("array", v)
        if len(v) != 2:
            raise out_of_range(f"length {len(v)} is not 2")
        try:
            a = c1(v[0])
        except LocalProtocolError as e:
            raise _at(e, 0) from None
        try:
            b = c2(v[1])
        except LocalProtocolError as e:
            raise _at(e, 1) from None
        return (a, b)

    return Kind(check, text, shape=("Pair", first, second))


def Nested(cls: type[Any], text: str | None = None) -> Kind:
    """A nested map decoded into ``cls`` (an instance of ``cls`` is accepted as is)."""

    def check(v: Any) -> Any:
        if type(v) is cls:
            return v
        if type(v) is dict:
            return cls.from_map(v)
        raise wrong_type(f"map ({cls.__name__})", v)

    def encode(v: Any) -> Any:
        return v.to_wire()

    return Kind(check, text or f"map {cls.__name__}", encode, fast="type(v) is {c}", const=cls,
                shape=("Nested", cls))

