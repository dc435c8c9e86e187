"""Generate each class's ``__post_init__``, ``_from_wire`` and ``to_wire``.

The generated code does what :meth:`Struct._validate_slowly` and the generic
``to_wire`` do, with the common case of every field checked inline (the kind's
``fast`` expression) and the kind's full ``check`` called otherwise.  This is
what makes decoding a commit frame cost a few microseconds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import LocalProtocolError
from .fields import Kind

__all__ = ["generate"]


def generate(
    cls: type,
    fields: list[tuple[str, Kind, Any]],
    envelope: tuple[str, ...],
    tag: str | None,
    missing: Any,
) -> tuple[Callable[..., None], Callable[[dict[Any, Any]], Any], Callable[..., dict[str, Any]]]:
    ns: dict[str, Any] = {
        "_cls": cls,
        "_new": object.__new__,
        "_set": object.__setattr__,
        "LocalProtocolError": LocalProtocolError,
    }
    has_cross = "_cross" in cls.__dict__
    post: list[str] = ["def __post_init__(self):", "    n = None", "    try:"]
    wire: list[str] = ["def _from_wire(d):", "    self = _new(_cls)", "    n = None", "    try:"]
    for i, (name, kind, default) in enumerate(fields):
        check = f"_k{i}"
        ns[check] = kind.check
        fast = kind.fast
        if fast is not None:
            cname = f"_c{i}"
            ns[cname] = kind.const
            fast = fast.replace("{c}", cname)
        # __post_init__: read the attribute, normalise it if needed
        post.append(f"        v = self.{name}")
        if fast is None:
            post.append(f"        n = {name!r}; w = {check}(v)")
        else:
            post.append(f"        if {fast}:")
            post.append("            w = v")
            post.append("        else:")
            post.append(f"            n = {name!r}; w = {check}(v)")
        post.append(f"        if w is not v: _set(self, {name!r}, w)")
        # _from_wire: read the map (keys already checked), set the attribute
        if default is missing:
            wire.append(f"        v = d[{name!r}]")
        else:
            dname = f"_d{i}"
            ns[dname] = default
            wire.append(f"        v = d.get({name!r}, {dname})")
        if fast is None:
            wire.append(f"        n = {name!r}; v = {check}(v)")
        else:
            wire.append(f"        if not ({fast}):")
            wire.append(f"            n = {name!r}; v = {check}(v)")
        wire.append(f"        _set(self, {name!r}, v)")
    for lines in (post, wire):
        if len(lines) == (3 if lines is post else 4):
            lines.append("        pass")
        lines.append("    except LocalProtocolError as e:")
        lines.append("        e._prefix(n)")
        lines.append("        raise")
    if has_cross:
        post.append("    self._cross()")
        wire.append("    self._cross()")
    wire.append("    return self")

    enc: list[str]
    if tag is None:
        enc = ["def to_wire(self):", "    return {"]
    else:
        ns["_tag"] = tag
        enc = [
            "def to_wire(self, seq=None):",
            "    if seq is None: seq = self.seq",
            "    out = {'type': _tag}",
            "    if seq is not None: out['seq'] = seq",
            "    if self.re is not None: out['re'] = self.re",
            "    if self.id is not None: out['id'] = self.id",
            "    out.update({",
        ]
    for i, (name, kind, _default) in enumerate(fields):
        if name in envelope:
            continue
        if kind.encode is None:
            enc.append(f"        {name!r}: self.{name},")
        else:
            ns[f"_e{i}"] = kind.encode
            enc.append(f"        {name!r}: _e{i}(self.{name}),")
    if tag is None:
        enc.append("    }")
    else:
        enc.append("    })")
        enc.append("    return out")

    src = "\n".join(post) + "\n\n" + "\n".join(wire) + "\n\n" + "\n".join(enc) + "\n"
    exec(compile(src, f"<nimmt.protocol generated for {cls.__name__}>", "exec"), ns)
    return ns["__post_init__"], ns["_from_wire"], ns["to_wire"]
