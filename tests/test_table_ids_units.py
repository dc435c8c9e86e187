"""A table's id (``server/lobby/table_ids.py``): 4 random lowercase letters fresh at each
server start (none that reads like a digit: no l, no o), then the table's number, so
an id kept from an earlier run names no table of this one (docs/SERVER.md)."""

from __future__ import annotations

import re
import string

from nimmt.server.lobby.table_ids import new_table_id, table_id_prefix

LETTERS = set(string.ascii_lowercase) - {"l", "o"}


def test_a_prefix_is_4_letters_drawn_from_all_24_that_read_as_no_digit() -> None:
    prefixes = [table_id_prefix() for _ in range(2000)]
    assert {len(p) for p in prefixes} == {4}
    seen = set("".join(prefixes))
    assert seen == LETTERS  # every one of the 24 turns up in 8,000 draws; nothing else
    # fresh at each start: 2,000 starts out of 331,776 prefixes make about 6 repeated
    # pairs (Poisson); more than 25 comes in fewer than 1 run in 10**8 (at 1,990: 4%),
    # while 3 letters (13,824 prefixes) would repeat about 140
    assert len(set(prefixes)) >= 1975


def test_an_id_is_the_prefix_then_the_tables_number() -> None:
    assert new_table_id("kqzd", 1) == "kqzd1"
    assert new_table_id("kqzd", 12) == "kqzd12"
    longest = new_table_id(table_id_prefix(), 10**9)
    assert re.fullmatch(r"[a-z]{4}1000000000", longest)
    assert len(longest) <= 32  # within the protocol's table_id
