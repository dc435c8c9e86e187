"""When two names read alike: ``skeleton``, the one comparison of names that may be
mistaken for each other (a claimed name and its lookalikes, the reserved "server").

In the spirit of Unicode TR 39's confusable skeletons, reduced to what a player
could use to pass for another in the lobby, at a table or on the leaderboard:
compatibility forms (fullwidth, mathematical bold, superscripts: NFKD), accents
(combining marks dropped), case (``casefold``), letters of other scripts drawn
like Latin ones (Cyrillic, Greek), small capitals, a few digits and signs read as
letters, and spacing and punctuation (only letters and digits count). The table
is not the whole of TR 39's confusables.txt (no dependency, no data file): it
covers the scripts a LAN's keyboards type; a name that keeps no letter or digit
at all is compared by its casefolded form.

>>> {skeleton(n) for n in ("Ann", "ann", "\u0410nn", "\u0391nn", "\uff21\uff4e\uff4e",
...                          "\u00c0nn", "\U0001d400\U0001d427\U0001d427", "\u1d00\u0274\u0274",
...                          "A n n", "A.nn")}
{'ann'}
>>> skeleton("Bob") == skeleton("B0b"), skeleton("Anna") == skeleton("Ann")
(True, False)
"""

from __future__ import annotations

import unicodedata

__all__ = ["skeleton"]

#: before casefolding: capitals whose small letter reads as another Latin letter
_CAPITALS = str.maketrans({
    "I": "l", "\u0399": "l", "\u0406": "l", "\u04c0": "l",  # Latin, Greek, Cyrillic I
    "\u0397": "h", "\u039d": "n", "\u03a5": "y", "\u039c": "m",  # Greek Eta, Nu, Upsilon, Mu
})

_LETTERS = {
    # Cyrillic
    "\u0430": "a", "\u0432": "b", "\u0435": "e", "\u0454": "e", "\u0433": "r", "\u043a": "k",
    "\u043c": "m", "\u043d": "h", "\u043e": "o", "\u043f": "n", "\u0440": "p", "\u0441": "c",
    "\u0442": "t", "\u0443": "y", "\u0445": "x", "\u0455": "s", "\u0456": "i", "\u0458": "j",
    "\u0475": "v", "\u0501": "d", "\u04bb": "h", "\u051b": "q", "\u051d": "w", "\u04cf": "l",
    "\u044c": "b", "\u0491": "r",
    # Greek
    "\u03b1": "a", "\u03b2": "b", "\u03b3": "y", "\u03b5": "e", "\u03b6": "z", "\u03b7": "n",
    "\u03b9": "i", "\u03ba": "k", "\u03bd": "v", "\u03bf": "o", "\u03c1": "p", "\u03c4": "t",
    "\u03c5": "u", "\u03c7": "x", "\u03c3": "o", "\u03c2": "c",
    # Latin letters with a stroke (no decomposition) and other small forms
    "\u0131": "i", "\u0142": "l", "\u00f8": "o", "\u0111": "d", "\u0127": "h", "\u0167": "t",
    "\u0180": "b", "\u0268": "i", "\u0289": "u", "\u01e5": "g", "\u01b6": "z", "\u0237": "j",
    "\u1d26": "r", "\u1d20": "v",
    # digits and signs read as letters
    "0": "o", "1": "l", "3": "e", "5": "s", "$": "s", "\u20ac": "e", "@": "a", "|": "l",
}


def _small_capitals() -> dict[str, str]:
    """Every "LATIN LETTER SMALL CAPITAL X" (ᴀ, ɴ, ʀ, ...): the letter x."""
    out = {}
    for code in range(0x0250, 0x1E00):
        name = unicodedata.name(chr(code), "")
        head, _, letter = name.rpartition(" ")
        if head == "LATIN LETTER SMALL CAPITAL" and len(letter) == 1:
            out[chr(code)] = letter.lower()
    return out


_LOOKALIKES = str.maketrans({**_small_capitals(), **_LETTERS})


def skeleton(name: str) -> str:
    """The form in which names that read alike are equal ("Ann", "ann", "Аnn" in
    Cyrillic, "Ａｎｎ", "Ànn", "ᴀɴɴ", "A n n"): compare two names' skeletons."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.translate(_CAPITALS).casefold().translate(_LOOKALIKES)
    kept = "".join(ch for ch in text if ch.isalnum())
    return kept or name.casefold()
