"""Names that read alike share one ``skeleton`` (server/ladder/names.py): a player
cannot pass for "Ann" as "Аnn" (Cyrillic A), "ᴀɴɴ" or "A.nn", and names that read
differently stay apart. The expected skeletons are written out by hand."""

from __future__ import annotations

import pytest

from nimmt.server.ladder.names import skeleton


@pytest.mark.parametrize(("name", "expected"), [
    ("Ann", "ann"),
    ("\uff21\uff4e\uff4e", "ann"),  # fullwidth: a compatibility form
    ("\U0001d400nn", "ann"),  # mathematical bold capital A
    ("\u00c0nn\u00e9", "anne"),  # accents dropped
    ("A\u0301nn", "ann"),  # a combining accent typed apart
    ("STRASSE", "strasse"),
    ("Stra\u00dfe", "strasse"),  # casefold, not lower: ß is ss
    ("\u0410nn", "ann"),  # Cyrillic A
    ("\u0391nn", "ann"),  # Greek Alpha
    ("B\u043eb", "bob"),  # Cyrillic o
    ("\u1d00\u0274\u0274", "ann"),  # small capitals from both blocks
    ("\u0299\u1d0f\u0299", "bob"),
    ("\u1d22o\u1d07", "zoe"),  # the last Latin small capital before U+1E00
    ("\u0262uy", "guy"),  # the first one after U+0250
    ("B0b", "bob"),
    ("$am", "sam"),
    ("A n-n_!", "ann"),  # spacing and punctuation do not count
    ("Bill", "bill"),
    ("BILL", "blll"),  # a capital I reads as an l
    ("B1LL", "blll"),
    ("\u0399an", "lan"),  # Greek capital Iota is an l too, before casefolding
    ("\u039dina", "nina"),  # Greek capital Nu is an n, not the v its small letter reads as
    ("Ann2", "ann2"),  # digits that read as no letter are kept
])
def test_each_kind_of_lookalike_reads_as_the_latin_letters_it_looks_like(name, expected):
    assert skeleton(name) == expected


def test_a_small_capital_that_is_two_letters_is_not_read_as_one():
    # LATIN LETTER SMALL CAPITAL OE: kept as it is (one letter of two is a guess)
    assert skeleton("\u0276") == "\u0276"
    assert skeleton("\u0276") != skeleton("o")


@pytest.mark.parametrize(("one", "other"), [
    ("Ann", "Anna"), ("Bob", "Rob"), ("Ann", "Am"), ("Zoe", "Joe"),
])
def test_names_that_read_differently_stay_apart(one, other):
    assert skeleton(one) != skeleton(other)


def test_a_name_with_no_letter_or_digit_is_compared_by_its_casefolded_form():
    assert skeleton("!!!") == "!!!"
    assert skeleton("???") == "???"
    assert skeleton("!!!") != skeleton("???")
    assert skeleton("\u2605") == "\u2605"  # a star


def test_letters_named_after_a_latin_letter_but_drawn_otherwise_keep_their_own_form():
    # only the small capitals are read as their letter by name: Cyrillic и (named
    # "I", drawn like a reversed N) and a turned t are not an i and a t
    assert skeleton("\u0438") == "\u0438"
    assert skeleton("\u0418van") != skeleton("Ivan")
    assert skeleton("\u0287om") == "\u0287om"
    assert skeleton("\u0287om") != skeleton("tom")
