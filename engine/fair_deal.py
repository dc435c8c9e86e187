"""Deals anyone can verify: every deal derived from a committed seed and the
players' contributions (docs/PROTOCOL.md, "Verifiable deals", is the spec).

Before a game the dealer draws a secret 32-byte ``seed`` and publishes its
``commitment`` (SHA-256, hex). Each seat may add a contribution (0 to 32
bytes). The deal of round ``r`` is a Fisher-Yates shuffle of the cards
available, its random indices drawn by rejection sampling from an HMAC-SHA256
counter stream keyed by a digest of the seed and every contribution. When the
game ends the seed is revealed, and anyone can recompute every deal.

A contribution may be committed to first (protocol version 3): the seat sends
``entropy_hash(entropy)`` when it sits down and reveals ``entropy`` only once the
seats and the seed are fixed; the game's ``FairDeal`` then keeps each seat's
``hashes`` (empty for a seat that sent none) and the seats that ``withheld`` their
reveal (their contribution is empty), and ``check_reveals`` checks them.

Pure functions, no I/O.

>>> fair = FairDeal(bytes(range(32)), (b"alice", b""))
>>> fair.commitment
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> from .options import Options
>>> deal = deal_round(Options(players=2), 1, fair)
>>> deal.hands[0]
(2, 18, 26, 28, 29, 43, 80, 81, 92, 96)
>>> deal.rows
(51, 90, 70, 63)
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from .moves import Deal
from .options import HAND_SIZE, ROWS, Options

__all__ = [
    "FairDeal",
    "SEED_BYTES",
    "MAX_CONTRIBUTION",
    "KEY_LABEL",
    "commitment_of",
    "entropy_hash",
    "deal_key",
    "shuffled",
    "deal_round",
    "check_deal",
    "UnfairDeal",
]

SEED_BYTES = 32
MAX_CONTRIBUTION = 32  # bytes a seat may contribute
KEY_LABEL = b"nimmt fair deal v1"
_WORD = 2**32


class UnfairDeal(ValueError):
    """A deal, seed or commitment that does not match what the derivation gives."""


def commitment_of(seed: bytes) -> str:
    """The commitment to ``seed``: SHA-256 of its bytes, lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def entropy_hash(entropy: bytes) -> str:
    """What a seat commits to before revealing ``entropy``: its SHA-256, lowercase hex.

    >>> entropy_hash(b"alice")
    '2bd806c97f0e00af1a1fc3328fa763a9269723c8db8fac4f93af71db186d6e90'
    """
    return hashlib.sha256(entropy).hexdigest()


def deal_key(seed: bytes, contributions: Sequence[bytes]) -> bytes:
    """The HMAC key: SHA-256 of the label, the seed and each seat's contribution
    (in seat order, each preceded by its length as one byte)."""
    if len(seed) != SEED_BYTES:
        raise UnfairDeal(f"a seed is {SEED_BYTES} bytes, not {len(seed)}")
    h = hashlib.sha256(KEY_LABEL)
    h.update(seed)
    for c in contributions:
        if len(c) > MAX_CONTRIBUTION:
            raise UnfairDeal(f"a contribution is at most {MAX_CONTRIBUTION} bytes, not {len(c)}")
        h.update(bytes([len(c)]))
        h.update(c)
    return h.digest()


def _words(key: bytes, round_no: int) -> Iterator[int]:
    """The round's stream of 32-bit words: HMAC-SHA256(key, "deal" u32(round) u32(block))
    for block 0, 1, 2, ..., each cut into 8 big-endian words."""
    block = 0
    while True:
        message = b"deal" + round_no.to_bytes(4, "big") + block.to_bytes(4, "big")
        digest = hmac.new(key, message, hashlib.sha256).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i:i + 4], "big")
        block += 1


def _uniform(words: Iterator[int], bound: int) -> int:
    """A uniform index in ``0..bound-1``: words at or above the largest multiple of
    ``bound`` below 2**32 are rejected (drawn again)."""
    limit = _WORD - _WORD % bound
    for w in words:
        if w < limit:
            return w % bound
    raise AssertionError("unreachable: the stream is endless")  # pragma: no cover


def shuffled(cards: Iterable[int], key: bytes, round_no: int) -> list[int]:
    """``cards`` (taken in ascending order) shuffled by Fisher-Yates: for ``i`` from
    the last index down to 1, swap ``a[i]`` with ``a[j]``, ``j`` uniform in ``0..i``.

    >>> key = deal_key(bytes(32), ())
    >>> shuffled([1, 2, 3, 4, 5], key, 1)
    [3, 2, 1, 5, 4]
    """
    a = sorted(cards)
    words = _words(key, round_no)
    for i in range(len(a) - 1, 0, -1):
        j = _uniform(words, i + 1)
        a[i], a[j] = a[j], a[i]
    return a


@dataclass(frozen=True, slots=True)
class FairDeal:
    """A game's secret ``seed`` (32 bytes) and each seat's ``contributions``; when a
    seat committed to its contribution first, ``hashes`` (one per seat, 32 bytes, or
    empty for a seat that sent none; ``()`` when no seat did) and the seats that
    ``withheld`` their reveal (ascending: they contribute nothing)."""

    seed: bytes
    contributions: tuple[bytes, ...]
    hashes: tuple[bytes, ...] = ()
    withheld: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        deal_key(self.seed, self.contributions)  # raises UnfairDeal for a bad length
        if self.hashes and len(self.hashes) != len(self.contributions):
            raise UnfairDeal(f"{len(self.hashes)} hashes for {len(self.contributions)} seats")
        if list(self.withheld) != sorted(set(self.withheld)):
            raise UnfairDeal(f"withheld seats in ascending order, once each: {self.withheld}")

    def check_reveals(self) -> None:
        """Raise ``UnfairDeal`` unless every seat's contribution is the one its hash
        committed it to: a seat that withheld its reveal had a hash and contributes
        nothing; a seat with no hash made its contribution (if any) in the clear."""
        for seat in self.withheld:
            if not 0 <= seat < len(self.hashes) or not self.hashes[seat]:
                raise UnfairDeal(f"seat {seat} withheld a reveal it never committed to "
                                 "(it sent no hash)")
            if self.contributions[seat]:
                raise UnfairDeal(f"seat {seat} withheld its reveal, yet its contribution is "
                                 f"{self.contributions[seat].hex()}, not empty")
        for seat, h in enumerate(self.hashes):
            if not h or seat in self.withheld:
                continue
            if len(h) != 32:
                raise UnfairDeal(f"seat {seat}'s hash is {len(h)} bytes, not 32")
            got = entropy_hash(self.contributions[seat])
            if not hmac.compare_digest(got, h.hex()):
                raise UnfairDeal(f"seat {seat}'s contribution does not match its hash: its "
                                 f"SHA-256 is {got}, the hash sent {h.hex()}")

    @property
    def commitment(self) -> str:
        return commitment_of(self.seed)

    @property
    def key(self) -> bytes:
        return deal_key(self.seed, self.contributions)


def deal_round(options: Options, round_no: int, fair: FairDeal,
               picked: Iterable[int] = ()) -> Deal:
    """The deal of round ``round_no`` (from 1). Without Draft: every card of the deck
    (the Tactic deck's when it is used) shuffled; seat ``s`` gets positions
    ``10s .. 10s+9`` (sorted), the rows the 4 after the hands. With Draft the hands
    were picked: the cards not ``picked`` are shuffled and the rows are the first 4."""
    key = fair.key
    if options.draft:
        taken = set(picked)
        left = shuffled((c for c in options.deck if c not in taken), key, round_no)
        return Deal(rows=tuple(left[:ROWS]))
    a = shuffled(options.deck, key, round_no)
    n = options.players
    hands = tuple(tuple(sorted(a[s * HAND_SIZE:(s + 1) * HAND_SIZE])) for s in range(n))
    return Deal(rows=tuple(a[n * HAND_SIZE:n * HAND_SIZE + ROWS]), hands=hands)


def check_deal(options: Options, round_no: int, fair: FairDeal, deal: Deal,
               picked: Iterable[int] = ()) -> None:
    """Raise ``UnfairDeal`` unless ``deal`` is exactly ``deal_round``'s."""
    want = deal_round(options, round_no, fair, picked)
    if tuple(deal.rows) != want.rows:
        raise UnfairDeal(f"round {round_no}: the rows {list(deal.rows)} are not the ones "
                         f"the seed gives, {list(want.rows)}")
    if want.hands is not None:
        got = tuple(tuple(sorted(h)) for h in deal.hands or ())
        for seat, (g, w) in enumerate(zip(got, want.hands, strict=False)):
            if g != w:
                raise UnfairDeal(f"round {round_no}: seat {seat}'s hand {list(g)} is not "
                                 f"the one the seed gives, {list(w)}")
        if len(got) != len(want.hands):
            raise UnfairDeal(f"round {round_no}: {len(got)} hands dealt, "
                             f"{len(want.hands)} expected")
