"""Names are compared without case, the Unicode way (``str.casefold``, not ``lower``):
"STRASSE" is "Straße", so a claim on one covers the other (server/ladder/claims.py,
issue 43)."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from nimmt.server.ladder.claims import ClaimBook, name_key

KEY = "k" * 40


def test_names_that_differ_only_in_case_have_one_key():
    assert name_key("STRASSE") == name_key("Straße") == name_key("strasse")
    assert name_key("ann") == name_key("Ann") == name_key("ANN")
    assert name_key("ΣΊΣΥΦΟΣ") == name_key("σίσυφος")  # the final sigma is a sigma
    # lower() keeps the sharp s, so a key made with lower() would tell these apart
    assert "Straße".lower() != "STRASSE".lower()


def test_different_names_keep_different_keys():
    for one, other in (("Ann", "Anne"), ("Bob", "Rob"), ("Strasse", "Strase"), ("Ann", "An n")):
        assert name_key(one) != name_key(other), (one, other)


@given(st.text(alphabet=string.ascii_letters + string.digits + " _-", min_size=1, max_size=24))
def test_any_spelling_in_other_cases_has_the_same_key(name: str):
    assert name_key(name.swapcase()) == name_key(name)
    assert name_key(name.upper()) == name_key(name.lower())


def test_a_claim_on_straße_covers_strasse_in_any_case_and_keeps_its_spelling():
    book = ClaimBook()
    first = book.check("Straße", KEY, now=1.0)
    assert first.claimed is True and first.new is not None and first.new.name == "Straße"
    assert len(book) == 1
    for spelling in ("STRASSE", "strasse", "Strasse", "STRAßE"):
        assert book.is_claimed(spelling), spelling
        assert book.claimed_name(spelling) == "Straße"
        refused = book.check(spelling, None, now=2.0)  # no key: the claim holds
        assert refused.claimed is False and "is claimed" in refused.refused
        again = book.check(spelling, KEY, now=3.0)  # its key: claimed, nothing new to save
        assert again.claimed is True and again.new is None and not again.refused
    assert len(book) == 1
    assert not book.is_claimed("Strase") and book.claimed_name("Strase") == "Strase"
