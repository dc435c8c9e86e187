"""What a record claims about its game, as a reader gets it (docs/RECORD.md): a table
that does not say it was rated was not (the field's default is ``false``), and a
record that starts from a hand-made position has no deals a seed could prove
(``verify_deals`` refuses it, saying why, instead of checking the later rounds)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nimmt.engine import FairDeal, Options, UnfairDeal, verify_deals
from nimmt.engine.records import record_from_dict
from nimmt.engine.records.format import Start

from test_fair_deal import fair_record

TWO_SEATS = {
    "format": "nimmt-record",
    "version": 1,
    "options": {"players": 2, "rounds": 1},
    "seats": ["Ann", "Bob"],
    "rounds": [],
}


@pytest.mark.parametrize("table, rated", [
    ({"name": "Mo"}, False),
    ({}, False),
    ({"rated": False}, False),
    ({"rated": True}, True),
])
def test_a_table_is_rated_only_if_the_record_says_so(table, rated):
    record = record_from_dict({**TWO_SEATS, "table": table})
    assert record.table is not None and record.table.rated is rated


def test_a_record_from_a_hand_made_start_is_not_verified_even_if_its_deals_match():
    fair = FairDeal(bytes(range(32)), (b"ann", b""))
    record = fair_record(Options(players=2, rounds=1), fair)
    assert verify_deals(record) == 1  # the same record, dealt from its seed: verified
    first = record.rounds[0]
    assert first.rows is not None and first.hands is not None
    started = replace(record, start=Start(rows=tuple((c,) for c in first.rows),
                                          hands=first.hands))
    with pytest.raises(UnfairDeal) as refused:
        verify_deals(started)
    assert str(refused.value) == ("the record starts from a hand-made position: its deals "
                                  "are not derived from a seed")
