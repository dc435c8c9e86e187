"""A reveal whose SHA-256 is not the hash its seat sent is refused and counts
against the sender's request rate (game/reveals.py): a client cannot grind
reveals at the server for free. A reveal that matches costs nothing extra."""

from __future__ import annotations

from nimmt import protocol as P

from test_commit_reveal import BOB_ENTROPY, CY, CY_ENTROPY, digest, three_seats
from test_match import ANN, BOB


def test_only_a_reveal_that_does_not_match_its_hash_is_charged_to_its_sender():
    h = three_seats()
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest(BOB_ENTROPY), id=1))
    h.send(CY, P.Join(table_id="t1", entropy_hash=digest(CY_ENTROPY), id=1))
    h.send(ANN, P.Start(id=2))
    assert h.charges == []
    h.send(CY, P.Reveal(entropy="ee" * 16, id=3))
    assert (h.last(CY, "error").code, h.last(CY, "error").re) == ("reveal_mismatch", 3)
    assert h.charges == [CY.id]
    h.send(BOB, P.Reveal(entropy=BOB_ENTROPY, id=4))
    h.send(CY, P.Reveal(entropy=CY_ENTROPY, id=5))
    assert h.last(CY, "reveal_accepted").re == 5
    assert h.charges == [CY.id]
