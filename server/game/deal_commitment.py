"""The seed a table's next game is dealt from, and the contributions that count for it.

docs/PROTOCOL.md, "Verifiable deals": a table draws a secret seed and shows its
commitment (SHA-256) at once; a player who joins adds entropy for the game dealt
from the commitment shown then; the game is dealt from the seed and every
seat's contribution (``seal``, a ``FairDeal``); once it ends a new seed is drawn
(``renew``) and the contributions made for the old one count no more.

A seat may commit to its contribution first (protocol version 3): it sends the
SHA-256 of its entropy (``commit``) and reveals the entropy (``reveal``) only once
the game's seats are fixed and the commitment was shown to them; a seat that does
not reveal in time contributes nothing (``withhold``), and the game's ``FairDeal``
keeps the hashes and the seats that withheld, for its record. Once a reveal is
made the contributions are final for these seats: the server knows it, so a seat
that changes hands afterwards gets a new seed (``revealed_any``; seats.py).

``DealCommitment`` is that value, whole: frozen, no I/O, written and read back
as one unit (``to_data``/``from_data``; also the payload of its fact, which lets
a restarted server deal the next game from the seed its players saw).

>>> first = DealCommitment(bytes(32))
>>> first.commitment
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> joined = first.contribute(1, bytes.fromhex("b0b0"))
>>> joined.seal(3).contributions
(b'', b'\\xb0\\xb0', b'')
>>> next_game = joined.renew(random.Random(1))
>>> next_game.commitment != first.commitment, next_game.seal(3).contributions
(True, (b'', b'', b''))
>>> DealCommitment.from_data(joined.to_data()) == joined
True
>>> hashed = first.commit(0, hashlib.sha256(b"ann").digest()).commit(2, bytes(32))
>>> hashed.waiting_reveals
(0, 2)
>>> revealed = hashed.reveal(0, b"ann").withhold_rest()
>>> fair = revealed.seal(3)
>>> fair.contributions, fair.hashes[1], fair.withheld
((b'ann', b'', b''), b'', (2,))
>>> hashed.reveal(2, b"not it")
Traceback (most recent call last):
...
ValueError: seat 2's reveal does not match its hash: its SHA-256 is ...
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from dataclasses import dataclass, replace
from typing import Any

from nimmt.engine import FairDeal, commitment_of
from nimmt.engine.fair_deal import MAX_CONTRIBUTION, SEED_BYTES

from ..storage.facts import Fact

__all__ = ["DealCommitment", "FACT_KIND", "HASH_BYTES"]

#: a committed contribution's hash: SHA-256
HASH_BYTES = 32

#: the kind of the fact that keeps the value (``fact``), written each time it changes
FACT_KIND = "deal_commitment"


@dataclass(frozen=True, slots=True)
class DealCommitment:
    """A secret ``seed`` (32 bytes) and the seats' ``contributions`` made after its
    commitment was shown: ``(seat, bytes)`` pairs in seat order, none empty; the
    ``hashes`` seats committed to (``(seat, 32 bytes)`` in seat order: such a seat's
    contribution is its reveal, none until it is made) and the seats that
    ``withheld`` their reveal."""

    seed: bytes
    contributions: tuple[tuple[int, bytes], ...] = ()
    hashes: tuple[tuple[int, bytes], ...] = ()
    withheld: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if len(self.seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes, not {len(self.seed)}")
        seats = [seat for seat, _ in self.contributions]
        if seats != sorted(set(seats)) or any(s < 0 for s in seats):
            raise ValueError(f"contributions by seat, in order, once each: {seats}")
        for seat, c in self.contributions:
            if not 0 < len(c) <= MAX_CONTRIBUTION:
                raise ValueError(f"seat {seat}'s contribution is 1 to {MAX_CONTRIBUTION} "
                                 f"bytes, not {len(c)}")
        hashed = [seat for seat, _ in self.hashes]
        if hashed != sorted(set(hashed)) or any(s < 0 for s in hashed):
            raise ValueError(f"hashes by seat, in order, once each: {hashed}")
        if any(len(h) != HASH_BYTES for _, h in self.hashes):
            raise ValueError(f"a hash is {HASH_BYTES} bytes")
        if not set(self.withheld) <= set(hashed) - set(seats):
            raise ValueError(f"only a seat with a hash and no reveal withholds: {self.withheld}")

    @classmethod
    def draw(cls, stream: random.Random | None = None) -> DealCommitment:
        """A new secret seed (from ``stream`` when given: a seeded, reproducible match;
        otherwise unpredictable), no contributions yet."""
        if stream is not None:
            return cls(stream.randbytes(SEED_BYTES))
        return cls(secrets.token_bytes(SEED_BYTES))

    @property
    def commitment(self) -> str:
        """SHA-256 of the seed, lowercase hex: what the table shows."""
        return commitment_of(self.seed)

    def _without(self, seat: int) -> DealCommitment:
        return DealCommitment(self.seed, tuple((s, c) for s, c in self.contributions if s != seat),
                              tuple((s, h) for s, h in self.hashes if s != seat),
                              tuple(s for s in self.withheld if s != seat))

    def contribute(self, seat: int, entropy: bytes) -> DealCommitment:
        """``seat``'s contribution in the clear (made now: after this commitment was
        shown), in place of any it had or committed to; empty: it has none."""
        rest = self._without(seat)
        if not entropy:
            return rest
        return replace(rest, contributions=tuple(sorted((*rest.contributions, (seat, entropy)))))

    def commit(self, seat: int, digest: bytes) -> DealCommitment:
        """``seat`` commits to a contribution it reveals later: ``digest`` is its
        SHA-256 (32 bytes), in place of anything the seat had."""
        rest = self._without(seat)
        return replace(rest, hashes=tuple(sorted((*rest.hashes, (seat, digest)))))

    def withdraw(self, seat: int) -> DealCommitment:
        """The seat is free: whoever sits there next has contributed nothing."""
        return self._without(seat)

    def contribution(self, seat: int) -> bytes:
        return next((c for s, c in self.contributions if s == seat), b"")

    def hash_of(self, seat: int) -> bytes:
        """The hash ``seat`` committed to (empty: none)."""
        return next((h for s, h in self.hashes if s == seat), b"")

    @property
    def waiting_reveals(self) -> tuple[int, ...]:
        """The seats that committed to a hash and have neither revealed nor withheld."""
        made = {s for s, _ in self.contributions}
        return tuple(s for s, _ in self.hashes if s not in made and s not in self.withheld)

    @property
    def revealed_any(self) -> bool:
        """Whether a committed contribution was revealed (the server knows it now)."""
        made = {s for s, _ in self.contributions}
        return any(s in made for s, _ in self.hashes)

    def reveal(self, seat: int, entropy: bytes) -> DealCommitment:
        """``seat`` reveals the contribution it committed to. Raises ``ValueError``
        (saying why) when it has no reveal to make or ``entropy`` is not what its
        hash committed it to."""
        if seat not in self.waiting_reveals:
            raise ValueError(f"seat {seat} has no reveal to make" if not self.hash_of(seat)
                             else f"seat {seat}'s reveal is made (or its time is over)")
        got = hashlib.sha256(entropy).digest()
        if not entropy or not hmac.compare_digest(got, self.hash_of(seat)):
            raise ValueError(f"seat {seat}'s reveal does not match its hash: its SHA-256 is "
                             f"{got.hex()}, the hash you sent {self.hash_of(seat).hex()}")
        return replace(self, contributions=tuple(sorted((*self.contributions, (seat, entropy)))))

    def withhold_rest(self) -> DealCommitment:
        """The reveals not made now are withheld: those seats contribute nothing."""
        return replace(self, withheld=tuple(sorted((*self.withheld, *self.waiting_reveals))))

    def seal(self, seats: int) -> FairDeal:
        """What a game of ``seats`` seats is dealt from: the seed and each seat's
        contribution (empty for a seat that made none, or withheld it), with the
        hashes seats committed to (``()``: none did) and the seats that withheld."""
        hashes = tuple(self.hash_of(s) for s in range(seats)) if self.hashes else ()
        return FairDeal(self.seed, tuple(self.contribution(s) for s in range(seats)),
                        hashes, tuple(s for s in self.withheld if s < seats))

    def renew(self, stream: random.Random | None = None) -> DealCommitment:
        """The next game's: a new seed (this one is revealed), no contributions (those
        were made for this commitment)."""
        return DealCommitment.draw(stream)

    @classmethod
    def of_game(cls, fair: FairDeal) -> DealCommitment:
        """The value a game in progress was sealed from (its ``game_started`` fact)."""
        return cls(fair.seed, tuple((s, c) for s, c in enumerate(fair.contributions) if c),
                   tuple((s, h) for s, h in enumerate(fair.hashes) if h), fair.withheld)

    # ------------------------------------------------------------------ as data
    def to_data(self) -> dict[str, Any]:
        """Plain data (hex strings): the seed and ``[seat, contribution]`` pairs."""
        data: dict[str, Any] = {
            "seed": self.seed.hex(),
            "contributions": [[seat, c.hex()] for seat, c in self.contributions]}
        if self.hashes:  # (the data of a table nobody committed to a hash at, as before)
            data["hashes"] = [[seat, h.hex()] for seat, h in self.hashes]
            data["withheld"] = list(self.withheld)
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> DealCommitment:
        """Raises ``ValueError`` (or ``KeyError``, ``TypeError``) for data ``to_data``
        did not write."""
        return cls(bytes.fromhex(data["seed"]),
                   tuple((int(seat), bytes.fromhex(c)) for seat, c in data["contributions"]),
                   tuple((int(seat), bytes.fromhex(h)) for seat, h in data.get("hashes", ())),
                   tuple(int(seat) for seat in data.get("withheld", ())))

    def fact(self) -> Fact:
        """The fact that keeps this value (a table's facts are never shown to clients:
        the seed stays secret until the game dealt from it is over)."""
        return Fact(FACT_KIND, self.to_data())
