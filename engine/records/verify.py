"""Checking a record's deals against its commitment (``nimmt-replay --verify``).

>>> from nimmt.engine import Game, Options
>>> from nimmt.engine.fair_deal import FairDeal, deal_round
>>> fair = FairDeal(bytes(32), (b"", b"\\x07"))
>>> game = Game(Options(players=2, rounds=1))
>>> _ = game.deal(deal_round(game.options, 1, fair))
>>> while not game.is_over:
...     _ = game.apply(game.legal_decisions(min(game.pending.seats))[0])
>>> record = record_from_game(game, fair_deal=claim_for(fair))
>>> verify_deals(record)
1
>>> from dataclasses import replace
>>> verify_deals(replace(record, fair_deal=claim_for(FairDeal(bytes(32), (b"", b"")))))
Traceback (most recent call last):
...
nimmt.engine.fair_deal.UnfairDeal: round 1: the rows [...] are not the ones the seed gives, [...]
"""

from __future__ import annotations

import hmac

from ..fair_deal import FairDeal, UnfairDeal, check_deal, commitment_of
from ..moves import Deal
from .build import record_from_game
from .format import FairDealClaim, Record

__all__ = ["verify_deals", "claim_for"]

_ = record_from_game  # the doctest's


def claim_for(fair: FairDeal) -> FairDealClaim:
    """What a record keeps of ``fair``: its commitment, seed and contributions (and
    the hashes and withheld reveals of seats that committed first)."""
    return FairDealClaim(fair.commitment, fair.seed, fair.contributions, fair.hashes,
                         fair.withheld)


def verify_deals(record: Record) -> int:
    """Check every deal of ``record`` against its ``fair_deal`` (the seed hashes to the
    commitment; a seat that sent a hash revealed the entropy it hashes, or withheld
    it and contributes nothing; each round's deal is the one derived from the seed
    and the contributions); return how many deals were checked. ``UnfairDeal`` names the
    first one that fails, or says why the record cannot be checked."""
    claim = record.fair_deal
    if claim is None:
        raise UnfairDeal("the record has no fair_deal: it was not dealt verifiably "
                         "(or its seed was never revealed)")
    if record.start is not None:
        raise UnfairDeal("the record starts from a hand-made position: its deals are not "
                         "derived from a seed")
    n = record.options.players
    if len(claim.contributions) != n:
        raise UnfairDeal(f"fair_deal has {len(claim.contributions)} contributions for {n} seats")
    if not hmac.compare_digest(commitment_of(claim.seed), claim.commitment):
        raise UnfairDeal(f"the seed revealed does not match the commitment: its SHA-256 is "
                         f"{commitment_of(claim.seed)}, the commitment {claim.commitment}")
    fair = claim.fair
    fair.check_reveals()  # each reveal is the entropy its hash committed to
    checked = 0
    for number, r in enumerate(record.rounds, start=1):
        if r.rows is None:
            continue  # a round the record stops before its deal
        picked = [card for _, card in r.picks or ()]
        check_deal(record.options, number, fair, Deal(rows=r.rows, hands=r.hands), picked)
        checked += 1
    return checked

