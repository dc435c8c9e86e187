"""DealCommitment, the value alone: what it accepts, what each step leaves, what a
game is sealed from and what is written for a restart, with every value written out
by hand (no trio, no server: tests/test_commit_reveal.py plays the same rules)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from nimmt.engine import FairDeal
from nimmt.server.game.deal_commitment import FACT_KIND, DealCommitment

SEED = bytes(range(32))
ANN, BOB = b"ann", b"bob"
H_ANN, H_BOB = hashlib.sha256(ANN).digest(), hashlib.sha256(BOB).digest()


# ================================================================== what it accepts
@pytest.mark.parametrize("length", [31, 33, 0])
def test_a_seed_of_any_length_but_32_bytes_is_refused(length):
    with pytest.raises(ValueError, match=f"a seed is 32 bytes, not {length}"):
        DealCommitment(bytes(length))


@pytest.mark.parametrize("length, ok", [(0, False), (1, True), (32, True), (33, False)])
def test_a_contribution_is_1_to_32_bytes(length, ok):
    if ok:
        assert DealCommitment(SEED, ((0, b"\x01" * length),)).contribution(0) == b"\x01" * length
    else:
        with pytest.raises(ValueError, match=f"1 to 32 bytes, not {length}"):
            DealCommitment(SEED, ((0, b"\x01" * length),))


@pytest.mark.parametrize("field", ["contributions", "hashes"])
@pytest.mark.parametrize("seats", [(1, 0), (0, 0), (0, 0, 1), (0, 2, 1), (-1, 0), (-1,)])
def test_seats_come_in_order_once_each_and_none_below_0(field, seats):
    pairs = tuple((s, b"\x01" if field == "contributions" else bytes(32)) for s in seats)
    with pytest.raises(ValueError, match="by seat, in order, once each"):
        DealCommitment(SEED, **{field: pairs})


def test_seat_0_and_gaps_between_seats_are_accepted():
    value = DealCommitment(SEED, ((0, b"\x01"), (2, b"\x03")), ((0, bytes(32)), (5, bytes(32))))
    assert value.contribution(0) == b"\x01" and value.hash_of(5) == bytes(32)


@pytest.mark.parametrize("length", [31, 33])
def test_a_hash_is_exactly_32_bytes(length):
    with pytest.raises(ValueError, match="a hash is 32 bytes"):
        DealCommitment(SEED, hashes=((0, bytes(length)),))


@pytest.mark.parametrize("withheld", [(1,), (0,), (2,)])
def test_only_a_seat_with_a_hash_and_no_reveal_withholds(withheld):
    # seat 0 hashed and revealed, seat 1 has nothing, seat 2 contributed in the clear
    with pytest.raises(ValueError, match="only a seat with a hash and no reveal withholds"):
        DealCommitment(SEED, ((0, ANN), (2, b"\x02")), ((0, H_ANN),), withheld)
    assert DealCommitment(SEED, (), ((0, H_ANN),), (0,)).withheld == (0,)


# ============================================================ in the clear, and freed
def test_draw_gives_32_unpredictable_bytes_or_the_stream_s_own():
    a, b = DealCommitment.draw(), DealCommitment.draw()
    assert len(a.seed) == 32 and a.seed != b.seed
    assert a.contributions == a.hashes == a.withheld == ()
    assert DealCommitment.draw(random.Random(5)).seed == random.Random(5).randbytes(32)
    assert DealCommitment(SEED).renew(random.Random(5)).seed == random.Random(5).randbytes(32)


def test_the_commitment_is_the_seed_s_sha256_in_lowercase_hex():
    assert DealCommitment(SEED).commitment == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")


def test_a_new_contribution_replaces_the_seat_s_old_one_and_keeps_the_others():
    value = (DealCommitment(SEED).contribute(2, b"\x02").contribute(0, b"\x00")
             .contribute(2, b"\x22"))
    assert value.contributions == ((0, b"\x00"), (2, b"\x22"))
    assert value.contribution(1) == b"" and value.contribution(2) == b"\x22"


def test_a_contribution_in_the_clear_replaces_the_seat_s_hash():
    value = DealCommitment(SEED).commit(1, H_BOB).contribute(1, b"\x01")
    assert value.hashes == () and value.contributions == ((1, b"\x01"),)
    assert value.waiting_reveals == ()


def test_withdraw_frees_one_seat_only_of_everything_it_had():
    value = (DealCommitment(SEED).commit(0, H_ANN).commit(1, H_BOB).commit(2, bytes(32))
             .reveal(0, ANN).withhold_rest())
    assert value.withheld == (1, 2)
    for seat in (0, 1):
        freed = value.withdraw(seat)
        assert freed.contribution(seat) == b"" and freed.hash_of(seat) == b""
        assert seat not in freed.withheld
    assert value.withdraw(1) == DealCommitment(SEED, ((0, ANN),), ((0, H_ANN), (2, bytes(32))),
                                               (2,))
    assert value.withdraw(0) == DealCommitment(SEED, (), ((1, H_BOB), (2, bytes(32))), (1, 2))
    assert value.withdraw(2) == DealCommitment(SEED, ((0, ANN),), ((0, H_ANN), (1, H_BOB)), (1,))


def test_freeing_a_seat_keeps_the_contributions_of_the_seats_on_either_side():
    value = DealCommitment(SEED).contribute(0, b"\x00").contribute(2, b"\x02")
    assert value.withdraw(1).contributions == ((0, b"\x00"), (2, b"\x02"))
    assert value.contribute(1, b"\x01").contributions == (
        (0, b"\x00"), (1, b"\x01"), (2, b"\x02"))
    assert value.commit(1, H_BOB).contributions == ((0, b"\x00"), (2, b"\x02"))


def test_the_value_cannot_be_changed_in_place():
    value = DealCommitment(SEED).contribute(0, b"\x00")
    with pytest.raises(AttributeError):
        value.contributions = ()  # type: ignore[misc]
    assert value.contributions == ((0, b"\x00"),)


# ================================================================ commit and reveal
def test_a_commit_replaces_the_seat_s_contribution_and_keeps_the_hashes_in_seat_order():
    value = DealCommitment(SEED).contribute(1, b"\x01").commit(2, H_BOB).commit(1, H_ANN)
    assert value.hashes == ((1, H_ANN), (2, H_BOB))
    assert value.contributions == ()
    assert value.hash_of(1) == H_ANN and value.hash_of(0) == b""
    assert value.waiting_reveals == (1, 2)


def test_a_reveal_counts_once_and_only_what_was_hashed():
    hashed = DealCommitment(SEED).commit(0, H_ANN).commit(1, H_BOB)
    assert not hashed.revealed_any
    one = hashed.reveal(1, BOB)
    assert one.contributions == ((1, BOB),) and one.waiting_reveals == (0,)
    assert one.revealed_any
    both = one.reveal(0, ANN)
    assert both.contributions == ((0, ANN), (1, BOB)) and both.waiting_reveals == ()
    with pytest.raises(ValueError, match="seat 1's reveal is made"):
        one.reveal(1, BOB)
    with pytest.raises(ValueError, match="seat 2 has no reveal to make"):
        hashed.reveal(2, BOB)


def test_a_contribution_in_the_clear_is_not_a_revealed_one():
    assert not DealCommitment(SEED).contribute(0, b"\x01").commit(1, H_BOB).revealed_any


@pytest.mark.parametrize("entropy", [b"bob", b"an", b"ann\x00", b""])
def test_a_reveal_that_is_not_the_hashed_entropy_is_refused(entropy):
    hashed = DealCommitment(SEED).commit(0, H_ANN)
    with pytest.raises(ValueError, match="seat 0's reveal does not match its hash"):
        hashed.reveal(0, entropy)


def test_an_empty_reveal_is_refused_even_against_the_hash_of_nothing():
    hashed = DealCommitment(SEED).commit(0, hashlib.sha256(b"").digest())
    with pytest.raises(ValueError, match="does not match"):
        hashed.reveal(0, b"")


def test_withhold_rest_withholds_only_the_reveals_not_made_and_keeps_earlier_ones():
    hashed = DealCommitment(SEED).commit(0, H_ANN).commit(1, H_BOB).commit(3, bytes(32))
    first = hashed.reveal(1, BOB).withhold_rest()
    assert first.withheld == (0, 3) and first.waiting_reveals == ()
    with pytest.raises(ValueError, match="seat 0's reveal is made \\(or its time is over\\)"):
        first.reveal(0, ANN)
    again = first.commit(2, bytes(32)).withhold_rest()
    assert again.withheld == (0, 2, 3)


# ====================================================================== the seal
def test_the_seal_has_one_entry_a_seat_and_drops_the_seats_beyond():
    value = (DealCommitment(SEED).contribute(0, b"\x00").commit(1, H_BOB).commit(2, H_ANN)
             .commit(3, bytes(32)).reveal(1, BOB).withhold_rest())
    assert value.seal(3) == FairDeal(SEED, (b"\x00", BOB, b""), (b"", H_BOB, H_ANN), (2,))
    assert value.seal(2) == FairDeal(SEED, (b"\x00", BOB), (b"", H_BOB), ())
    assert value.seal(4).withheld == (2, 3)


def test_a_seal_without_hashes_has_none():
    assert DealCommitment(SEED).contribute(1, b"\x01").seal(2) == FairDeal(
        SEED, (b"", b"\x01"), (), ())


def test_of_game_reads_back_the_value_a_game_was_sealed_from():
    value = (DealCommitment(SEED).contribute(0, b"\x00").commit(1, H_BOB).commit(2, H_ANN)
             .reveal(1, BOB).withhold_rest())
    assert DealCommitment.of_game(value.seal(3)) == value
    assert DealCommitment.of_game(FairDeal(SEED, (b"", b""))) == DealCommitment(SEED)


# ================================================================== as data
def test_the_data_with_hashes_is_written_out_and_read_back_exactly():
    value = (DealCommitment(SEED).contribute(0, b"\x00").commit(1, H_BOB).commit(2, H_ANN)
             .reveal(1, BOB).withhold_rest())
    data = json.loads(json.dumps(value.to_data()))
    assert data == {"seed": SEED.hex(), "contributions": [[0, "00"], [1, BOB.hex()]],
                    "hashes": [[1, H_BOB.hex()], [2, H_ANN.hex()]], "withheld": [2]}
    assert DealCommitment.from_data(data) == value
    fact = value.fact()
    assert fact.kind == FACT_KIND == "deal_commitment" and fact.payload == data


def test_data_without_hashes_has_no_hash_fields_and_reads_back():
    data = DealCommitment(SEED).to_data()
    assert data == {"seed": SEED.hex(), "contributions": []}
    assert DealCommitment.from_data(data) == DealCommitment(SEED)


@pytest.mark.parametrize("data", [
    {"seed": "00" * 31, "contributions": []},
    {"seed": "00" * 32, "contributions": [[0, ""]]},
    {"seed": "00" * 32, "contributions": [], "withheld": [0]},
    {"seed": "00" * 32, "contributions": [], "hashes": [[0, "00"]]},
])
def test_data_that_to_data_did_not_write_is_refused(data):
    with pytest.raises(ValueError):
        DealCommitment.from_data(data)
