"""``check_deal``: a deal passes only if it is exactly the one the seed and the
contributions give (engine/fair_deal.py): the rows, each seat's hand, and as many
hands as seats, no fewer and no more (issue 43)."""

from __future__ import annotations

import pytest

from nimmt.engine import Deal, FairDeal, Options, UnfairDeal, deal_round
from nimmt.engine.fair_deal import check_deal

FAIR = FairDeal(bytes(range(32)), (b"alice", b"", b"\x01\x02"))
THREE = Options(players=3, rounds=2)


def test_the_seeds_own_deal_passes_whatever_the_order_of_the_cards_in_a_hand():
    want = deal_round(THREE, 2, FAIR)
    assert want.hands is not None and len(want.hands) == 3
    check_deal(THREE, 2, FAIR, want)
    reversed_hands = Deal(rows=want.rows, hands=tuple(tuple(reversed(h)) for h in want.hands))
    check_deal(THREE, 2, FAIR, reversed_hands)  # a hand is a set of cards: no order


def test_a_deal_with_a_seat_left_out_is_refused_with_the_count():
    want = deal_round(THREE, 2, FAIR)
    assert want.hands is not None
    for kept in (want.hands[:2], want.hands[:1], ()):
        with pytest.raises(UnfairDeal) as refused:
            check_deal(THREE, 2, FAIR, Deal(rows=want.rows, hands=kept))
        assert str(refused.value) == f"round 2: {len(kept)} hands dealt, 3 expected"


def test_a_deal_with_a_hand_too_many_is_refused_with_the_count():
    want = deal_round(THREE, 1, FAIR)
    assert want.hands is not None
    extra = want.hands + (tuple(range(1, 11)),)
    with pytest.raises(UnfairDeal) as refused:
        check_deal(THREE, 1, FAIR, Deal(rows=want.rows, hands=extra))
    assert str(refused.value) == "round 1: 4 hands dealt, 3 expected"
    # the same hand twice over is no better
    with pytest.raises(UnfairDeal, match=r"^round 1: 4 hands dealt, 3 expected$"):
        check_deal(THREE, 1, FAIR, Deal(rows=want.rows, hands=want.hands + want.hands[-1:]))


def test_a_deal_without_hands_is_refused_where_hands_are_dealt():
    want = deal_round(THREE, 1, FAIR)
    with pytest.raises(UnfairDeal, match=r"^round 1: 0 hands dealt, 3 expected$"):
        check_deal(THREE, 1, FAIR, Deal(rows=want.rows))


def test_the_first_wrong_hand_is_named_before_the_count():
    want = deal_round(THREE, 1, FAIR)
    assert want.hands is not None
    other = deal_round(THREE, 2, FAIR).hands
    assert other is not None
    with pytest.raises(UnfairDeal) as refused:
        check_deal(THREE, 1, FAIR, Deal(rows=want.rows, hands=(want.hands[0], other[1])))
    assert str(refused.value) == (f"round 1: seat 1's hand {sorted(other[1])} is not the one "
                                  f"the seed gives, {sorted(want.hands[1])}")


def test_wrong_rows_are_refused_first_and_said_in_row_order():
    want = deal_round(THREE, 1, FAIR)
    rows = (want.rows[1], want.rows[0], *want.rows[2:])
    with pytest.raises(UnfairDeal) as refused:
        check_deal(THREE, 1, FAIR, Deal(rows=rows, hands=()))  # the count would fail too
    assert str(refused.value) == (f"round 1: the rows {list(rows)} are not the ones the seed "
                                  f"gives, {list(want.rows)}")


def test_a_draft_round_checks_its_rows_against_the_cards_nobody_picked():
    draft = Options(players=2, rounds=1, draft=True)
    picked = [5, 17, 33]
    want = deal_round(draft, 1, FAIR, picked)
    assert want.hands is None and not set(want.rows) & set(picked)
    check_deal(draft, 1, FAIR, Deal(rows=want.rows), picked)
    with pytest.raises(UnfairDeal, match="round 1: the rows"):
        check_deal(draft, 1, FAIR, Deal(rows=want.rows))  # the picks change the rows


# --- the draw (docs/PROTOCOL.md: a word at or above the largest multiple of the bound
# below 2**32 is drawn again) ---------------------------------------------------------------


def test_a_word_in_the_last_partial_multiple_is_drawn_again():
    from nimmt.engine.fair_deal import _uniform

    limit = 4294967248  # the largest multiple of 104 below 2**32 (the document's figure)
    assert _uniform(iter([limit - 1, 7]), 104) == (limit - 1) % 104 == 103
    assert _uniform(iter([limit, 7]), 104) == 7  # the first rejected word
    assert _uniform(iter([2**32 - 1, limit + 50, 45010773]), 104) == 93  # the worked example's j
    assert _uniform(iter([2**32 - 1, 2**32 - 2, 5]), 2) == 1  # 2**32 is a multiple of 2


# --- a seat's reveal against the hash it committed to (protocol 3) ------------------------


def _sha(data: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(data).digest()


def test_reveals_that_match_their_hashes_pass_and_a_withheld_seat_contributes_nothing():
    FairDeal(bytes(32), (b"ann", b"", b"cy"), hashes=(_sha(b"ann"), _sha(b"x"), b""),
             withheld=(1,)).check_reveals()
    # a seat that sent no hash may still have contributed in the clear
    FairDeal(bytes(32), (b"", b"bob"), hashes=(b"", _sha(b"bob"))).check_reveals()
    FairDeal(bytes(32), (b"ann", b"bob")).check_reveals()  # nobody hashed


def test_each_wrong_reveal_is_refused_with_its_seat():
    def refused(fair: FairDeal) -> str:
        with pytest.raises(UnfairDeal) as error:
            fair.check_reveals()
        return str(error.value)

    assert refused(FairDeal(bytes(32), (b"", b"bob"), hashes=(b"", _sha(b"BOB")))) == (
        f"seat 1's contribution does not match its hash: its SHA-256 is {_sha(b'bob').hex()}, "
        f"the hash sent {_sha(b'BOB').hex()}")
    long = _sha(b"bob") + b"\x00"
    assert refused(FairDeal(bytes(32), (b"bob",), hashes=(long,))) == (
        "seat 0's hash is 33 bytes, not 32")
    assert refused(FairDeal(bytes(32), (b"bob",), hashes=(long[:31],))) == (
        "seat 0's hash is 31 bytes, not 32")
    assert refused(FairDeal(bytes(32), (b"", b""), hashes=(_sha(b"a"), b""), withheld=(1,))) == (
        "seat 1 withheld a reveal it never committed to (it sent no hash)")
    assert refused(FairDeal(bytes(32), (b"",), withheld=(0,))) == (
        "seat 0 withheld a reveal it never committed to (it sent no hash)")
    assert refused(FairDeal(bytes(32), (b"", b"late"), hashes=(b"", _sha(b"late")),
                            withheld=(1,))) == (
        "seat 1 withheld its reveal, yet its contribution is 6c617465, not empty")


def test_hashes_for_every_seat_and_withheld_seats_in_order():
    with pytest.raises(UnfairDeal, match=r"^1 hashes for 2 seats$"):
        FairDeal(bytes(32), (b"", b""), hashes=(_sha(b""),))
    with pytest.raises(UnfairDeal, match=r"^withheld seats in ascending order, once each: \(1, 0\)$"):
        FairDeal(bytes(32), (b"", b""), hashes=(_sha(b"a"), _sha(b"b")), withheld=(1, 0))
    with pytest.raises(UnfairDeal, match=r"once each: \(1, 1\)$"):
        FairDeal(bytes(32), (b"", b""), hashes=(_sha(b"a"), _sha(b"b")), withheld=(1, 1))


def test_a_changed_hand_is_refused_whether_its_cards_went_up_or_down():
    want = deal_round(THREE, 1, FAIR)
    assert want.hands is not None
    h0, h1, h2 = (list(h) for h in want.hands)
    # seat 1 gives its lowest card to seat 2 for seat 2's highest: seat 1's hand goes up
    up1, up2 = sorted(h1[1:] + [h2[-1]]), sorted(h2[:-1] + [h1[0]])
    # seat 1 gives its highest card to seat 0 for seat 0's lowest: seat 1's hand goes down
    down0, down1 = sorted(h0[1:] + [h1[-1]]), sorted(h1[:-1] + [h0[0]])
    for hands, seat in (((h0, up1, up2), 1), ((down0, down1, h2), 0)):
        with pytest.raises(UnfairDeal, match=rf"^round 1: seat {seat}'s hand "):
            check_deal(THREE, 1, FAIR, Deal(rows=want.rows, hands=tuple(map(tuple, hands))))
    with pytest.raises(UnfairDeal, match=r"^round 1: seat 1's hand "):
        check_deal(THREE, 1, FAIR, Deal(rows=want.rows, hands=(tuple(h0), tuple(up1), tuple(h2))))


def test_a_contribution_of_exactly_32_bytes_is_taken():
    FairDeal(bytes(32), (bytes(32), b"\xff" * 32))
    with pytest.raises(UnfairDeal, match=r"^a contribution is at most 32 bytes, not 33$"):
        FairDeal(bytes(32), (b"", bytes(33)))


def test_a_withheld_seat_past_the_last_is_refused_as_one_that_sent_no_hash():
    fair = FairDeal(bytes(32), (b"", b""), hashes=(_sha(b"a"), _sha(b"b")), withheld=(5,))
    with pytest.raises(UnfairDeal, match=r"^seat 5 withheld a reveal it never committed to "):
        fair.check_reveals()


def test_a_seed_is_exactly_32_bytes_and_hashes_one_per_seat():
    for size in (31, 33):
        with pytest.raises(UnfairDeal, match=rf"^a seed is 32 bytes, not {size}$"):
            FairDeal(bytes(size), ())
    with pytest.raises(UnfairDeal, match=r"^3 hashes for 2 seats$"):
        FairDeal(bytes(32), (b"", b""), hashes=(_sha(b""),) * 3)
    with pytest.raises(UnfairDeal, match=r"once each: \(0, 0, 1\)$"):
        FairDeal(bytes(32), (b"", b""), hashes=(_sha(b"a"), _sha(b"b")), withheld=(0, 0, 1))


def test_seat_0_may_withhold_and_a_seat_before_it_may_not():
    FairDeal(bytes(32), (b"", b"bob"), hashes=(_sha(b"ann"), _sha(b"bob")),
             withheld=(0,)).check_reveals()
    fair = FairDeal(bytes(32), (b"", b""), hashes=(_sha(b"a"), _sha(b"b")), withheld=(-1,))
    with pytest.raises(UnfairDeal, match=r"^seat -1 withheld a reveal it never committed to "):
        fair.check_reveals()


def test_a_fair_deal_is_a_value_that_cannot_be_changed_once_made():
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        FAIR.seed = bytes(32)  # type: ignore[misc]
    assert hash(FAIR) == hash(FairDeal(FAIR.seed, FAIR.contributions))
