"""A table's id: short, typeable, and never one of an earlier run's."""

from __future__ import annotations

import secrets

__all__ = ["table_id_prefix", "new_table_id"]

#: letters of a table id's prefix: lowercase, none that reads like a digit (l, o)
_PREFIX_LETTERS = "abcdefghijkmnpqrstuvwxyz"


def table_id_prefix() -> str:
    """A fresh prefix at each server start, so that an id of an earlier run (kept by a
    client or a bot across a restart) names no table of this one: 4 random letters
    (24**4 = 331,776 prefixes), then the table's number. Nothing is stored."""
    return "".join(secrets.choice(_PREFIX_LETTERS) for _ in range(4))


def new_table_id(prefix: str, number: int) -> str:
    """The id of this run's ``number``-th table, e.g. ``kqzd1``: short, typeable, and
    within the protocol's ``table_id`` (1..32 of A-Z a-z 0-9 _ -).

    >>> new_table_id("kqzd", 12)
    'kqzd12'
    """
    return f"{prefix}{number}"
