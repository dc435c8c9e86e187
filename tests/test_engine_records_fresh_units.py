"""engine/records/ against a fresh sample of mutants (issue 43, seed 25): what a reader
of a record file sees when a fair deal's hash is not one. No trio, no hypothesis
(``tools/mutate.py --plain``). (Not tests/test_records_fresh_units.py: that one is
server/records/'s.)"""

from __future__ import annotations

import pytest

from test_record_parse_units import full, refused


@pytest.mark.parametrize(("hash_", "text"), [
    ("CD" * 32, 'seat 1: fair_deal.hashes[1]: a hash (or "" for none) must be 0 to 32 bytes as '
                'lowercase hex, not "' + "CD" * 18 + '...'),
    ("cd" * 33, 'seat 1: fair_deal.hashes[1]: a hash (or "" for none) must be 0 to 32 bytes as '
                'lowercase hex, not "' + "cd" * 18 + '...'),
    ("c", 'seat 1: fair_deal.hashes[1]: a hash (or "" for none) must be hexadecimal digits, '
          'not "c"'),
    (7, 'seat 1: fair_deal.hashes[1]: a hash (or "" for none) must be a string, not 7'),
])
def test_a_hash_that_is_not_lowercase_hex_of_at_most_32_bytes_is_refused_saying_so(
        hash_: object, text: str) -> None:
    data = full()
    data["fair_deal"]["hashes"] = ["", hash_]
    assert str(refused(data)) == text
