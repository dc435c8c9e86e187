"""Claimed names without a server (issue 43): what a ``hello`` with or without a key
gets, the spelling a key holder is welcomed under, what the refusals say, and which
of two claims that read alike holds the name. The server's side (a welcome only once
the claim is on disk): tests/test_ladder_claims.py."""

from __future__ import annotations

import hashlib
import string

import pytest

from nimmt.server.ladder.claims import Claim, ClaimBook, Verdict, claim_hash, name_key, new_key


def test_an_unclaimed_name_without_a_key_is_welcomed_unclaimed_and_stays_free():
    book = ClaimBook()
    assert book.check("Ann", None, 5.0) == Verdict(claimed=False)
    assert not book.is_claimed("Ann") and len(book) == 0 and book.names == set()


def test_a_key_claims_a_free_name_with_a_salted_hash_of_the_key_at_that_time():
    book = ClaimBook()
    verdict = book.check("Ann", "k" * 43, 12.5)
    assert (verdict.claimed, verdict.refused, verdict.name) == (True, "", "Ann")
    claim = verdict.new
    assert claim is not None
    assert (claim.name, claim.at, len(claim.salt)) == ("Ann", 12.5, 16)
    assert claim.digest == hashlib.sha256(claim.salt + b"k" * 43).digest()
    assert claim_hash(claim.salt, "k" * 43) == claim.digest
    assert book.is_claimed("Ann") and book.is_claimed("aNN") and len(book) == 1
    assert book.names == {"ann"}
    # two claims of two names get two salts
    other = book.check("Bob", "k" * 43, 13.0).new
    assert other is not None and other.salt != claim.salt and len(book) == 2


def test_the_key_holder_is_welcomed_under_the_name_as_claimed_in_any_case_or_lookalike():
    book = ClaimBook()
    key = new_key()
    book.check("Ann", key, 1.0)
    for spelling in ("Ann", "ann", "ANN", "\u0410nn"):  # the last with a Cyrillic A
        verdict = book.check(spelling, key, 2.0)
        assert verdict == Verdict(claimed=True, name="Ann"), spelling
        assert book.claimed_name(spelling) == "Ann"
    assert len(book) == 1  # no second claim made
    assert book.claimed_name("Bob") == "Bob"  # unclaimed: as it is


def test_a_claimed_name_without_its_key_or_with_another_is_refused_saying_which():
    book = ClaimBook()
    key = new_key()
    book.check("Ann", key, 1.0)
    without = book.check("Ann", None, 2.0)
    assert (without.claimed, without.new, without.name) == (False, None, "")
    assert without.refused.startswith("the name 'Ann' is claimed and you connected without "
                                      "its key: send the key you claimed it with")
    wrong = book.check("Ann", new_key(), 2.0)
    assert not wrong.claimed
    assert wrong.refused.startswith("the name 'Ann' is claimed and you connected with a key "
                                    "that is not its own:")
    # a key that differs in one character is not the key
    assert book.check("Ann", key[:-1] + ("A" if key[-1] != "A" else "B"), 2.0).refused


def test_a_refused_lookalike_is_told_which_claimed_name_it_reads_as_but_not_a_case_variant():
    book = ClaimBook()
    book.check("Ann", new_key(), 1.0)
    lookalike = book.check("\u0410nn", None, 2.0).refused
    assert "is claimed (it reads as 'Ann', which is claimed) and you connected" in lookalike
    # and the other way round: the name claimed with a Cyrillic A, asked in Latin letters
    other = ClaimBook()
    other.check("\u0410nn", new_key(), 1.0)
    latin = other.check("Ann", None, 2.0).refused
    assert "is claimed (it reads as '\u0410nn', which is claimed) and you connected" in latin
    case = book.check("ANN", None, 2.0).refused
    assert case.startswith("the name 'ANN' is claimed and you connected without its key")
    assert "reads as" not in case


def test_a_name_in_use_by_an_unclaimed_player_is_not_claimed_from_under_them():
    book = ClaimBook()
    verdict = book.check("Ann", new_key(), 1.0, in_use=True)
    assert (verdict.claimed, verdict.new) == (False, None)
    assert verdict.refused == ("the name 'Ann' is in use by a player who has not claimed it: "
                               "connect again with another name, or later")
    assert not book.is_claimed("Ann") and len(book) == 0
    # without a key nothing is claimed either way
    assert book.check("Ann", None, 1.0, in_use=True) == Verdict(claimed=False)


def test_strasse_in_capitals_is_the_claim_of_strasse_and_its_key_is_casefolded():
    assert name_key("STRASSE") == name_key("Straße") == "strasse"
    book = ClaimBook()
    key = new_key()
    book.check("Straße", key, 1.0)
    assert book.check("STRASSE", key, 2.0) == Verdict(claimed=True, name="Straße")
    assert book.names == {"strasse"}


def _claim(name: str, at: float, salt: bytes = b"s" * 16) -> Claim:
    return Claim(name, salt, claim_hash(salt, "key of " + name), at)


@pytest.mark.parametrize("order", ["earlier first", "later first"])
def test_of_two_stored_claims_that_read_alike_the_earlier_holds_the_name(order):
    early, late = _claim("Ann", 10.0), _claim("\u0410nn", 20.0)
    claims = [early, late] if order == "earlier first" else [late, early]
    book = ClaimBook(claims)
    assert len(book) == 1 and book.claimed_name("ann") == "Ann"
    assert book.names == {"ann"}  # the later's spelling is not counted
    assert book.check("Ann", "key of Ann", 30.0).claimed
    assert not book.check("\u0410nn", "key of \u0410nn", 30.0).claimed


def test_of_two_claims_that_read_alike_made_at_the_same_time_the_first_counted_holds():
    book = ClaimBook([_claim("Ann", 10.0), _claim("ANN", 10.0)])
    assert book.claimed_name("ann") == "Ann" and book.names == {"ann"}


def test_a_claim_of_the_same_name_again_replaces_its_key():
    old = _claim("Ann", 10.0, b"a" * 16)
    # (the same name read back from the database: an equal string, not the same object)
    new = Claim("".join(["A", "nn"]), b"b" * 16, claim_hash(b"b" * 16, "new key"), 20.0)
    book = ClaimBook([old, new])
    assert len(book) == 1 and book.names == {"ann"}
    assert book.check("Ann", "new key", 30.0).claimed
    assert not book.check("Ann", "key of Ann", 30.0).claimed


def test_an_earlier_claim_counted_later_takes_the_name_and_its_spelling():
    book = ClaimBook([_claim("ANN", 20.0)])
    assert book.names == {"ann"}
    book.add(_claim("\u0410nn", 10.0))
    assert book.claimed_name("ann") == "\u0410nn"
    assert book.names == {name_key("\u0410nn")}  # the old spelling is no longer marked


def test_a_new_key_is_43_url_safe_characters_and_never_the_same():
    keys = {new_key() for _ in range(50)}
    assert len(keys) == 50
    allowed = set(string.ascii_letters + string.digits + "-_")
    assert all(len(k) == 43 and set(k) <= allowed for k in keys)
