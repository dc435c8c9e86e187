"""Issue 27 item 5, "Deals anyone can verify": the derivation (engine.fair_deal),
the spec's worked example (docs/PROTOCOL.md) against the code, the record's
fair_deal field, and ``nimmt-replay --verify`` / the SDK's ``verify_game`` on a
fair and a tampered record."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from nimmt.bots.sdk import verify_game
from nimmt.engine import (
    AwaitingDeal,
    FairDeal,
    Game,
    InvalidRecord,
    Options,
    Record,
    UnfairDeal,
    commitment_of,
    deal_round,
    record_from_game,
    record_from_json,
    verify_deals,
)
from nimmt.engine.fair_deal import deal_key, shuffled
from nimmt.engine.records import claim_for
from nimmt.server.records.replay import main as replay_main

DOC = Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md"


def play_out(options: Options, fair: FairDeal, seed: int = 0) -> Game:
    """A game dealt from ``fair``, each seat playing its first legal decision."""
    game = Game(options)
    while not game.is_over:
        pending = game.pending
        if isinstance(pending, AwaitingDeal):
            view = game.view(None)
            picked = [c for _, c in view.draft_picks]
            game.deal(deal_round(options, game.round, fair, picked))
            continue
        seat = min(pending.seats)
        legal = game.legal_decisions(seat)
        game.apply(legal[seed % len(legal)])
    return game


def fair_record(options: Options, fair: FairDeal) -> Record:
    game = play_out(options, fair)
    return record_from_game(game, [f"P{i}" for i in range(options.players)],
                            fair_deal=claim_for(fair))


FAIR = FairDeal(bytes(range(32)), (b"alice", b"", b"\x01\x02"))


# ------------------------------------------------------------------ the derivation
def test_the_worked_example_in_the_protocol_document_is_what_the_code_computes():
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Verifiable deals"):]
    section = section[:section.index("\n## ", 5)]

    def value(label: str) -> str:
        found = re.search(rf"^{label}\s+(.+)$", section, re.M)
        assert found, f"the worked example has no line {label!r}"
        return found.group(1).strip()

    seed = bytes.fromhex(value("seed"))
    contributions = tuple(bytes.fromhex(c) for c in json.loads(value("contributions")))
    # commit, then reveal (issue 42): seat 0's hash is the SHA-256 of its reveal, seat 1
    # sent none; the hashes are checked, never mixed into the key
    hashes = tuple(bytes.fromhex(h) for h in json.loads(value("hashes")))
    assert hashes[0] == hashlib.sha256(contributions[0]).digest() and hashes[1] == b""
    fair = FairDeal(seed, contributions, hashes)
    fair.check_reveals()
    assert fair.key == FairDeal(seed, contributions).key
    assert value("commitment") == hashlib.sha256(seed).hexdigest() == fair.commitment
    assert value("key") == fair.key.hex()
    message = bytes.fromhex(value("message"))
    assert message == b"deal" + (1).to_bytes(4, "big") + (0).to_bytes(4, "big")
    block = hmac.new(fair.key, message, hashlib.sha256).digest()
    assert value("block") == block.hex()
    words = [int.from_bytes(block[i:i + 4], "big") for i in range(0, 12, 4)]
    assert json.loads(value("words")) == words
    deal = deal_round(Options(players=2), 1, fair)
    assert deal.hands is not None
    assert json.loads(value("hand 0")) == list(deal.hands[0])
    assert json.loads(value("hand 1")) == list(deal.hands[1])
    assert json.loads(value("rows")) == list(deal.rows)


def test_every_contribution_and_the_seed_change_the_deal():
    options = Options(players=3)
    base = deal_round(options, 1, FAIR)
    for other in (FairDeal(bytes(32), FAIR.contributions),
                  FairDeal(FAIR.seed, (b"alice", b"", b"\x01\x03")),
                  FairDeal(FAIR.seed, (b"alice", b"\x00", b"\x01\x02")),
                  # the length prefix: moving a byte between seats is another deal
                  FairDeal(FAIR.seed, (b"alic", b"e", b"\x01\x02"))):
        assert deal_round(options, 1, other) != base
    assert deal_round(options, 2, FAIR) != base  # each round its own stream
    assert deal_round(options, 1, FAIR) == base  # and the same inputs, the same deal


@pytest.mark.parametrize("options", [
    Options(players=2), Options(players=10), Options(players=4, tactic_deck=True),
    Options(players=5, professional=True)])
def test_a_deal_is_a_valid_deal_of_the_cards_in_use(options: Options):
    deal = deal_round(options, 3, FAIR)
    assert deal.hands is not None and len(deal.hands) == options.players
    cards = [c for h in deal.hands for c in h] + list(deal.rows)
    assert len(cards) == len(set(cards)) == options.players * 10 + 4
    assert set(cards) <= set(options.deck)
    assert all(list(h) == sorted(h) for h in deal.hands)
    Game(options).deal(deal)  # the engine accepts it


def test_a_draft_round_deals_its_rows_from_the_cards_nobody_picked():
    options = Options(players=2, draft=True)
    picked = list(range(1, 21))
    deal = deal_round(options, 1, FAIR, picked)
    assert deal.hands is None and len(deal.rows) == 4
    assert not set(deal.rows) & set(picked)
    assert deal == deal_round(options, 1, FAIR, reversed(picked))  # the order of picks: no matter


def test_the_shuffle_is_uniform_over_small_permutations():
    # 6000 keys over the 6 orders of 3 cards: each order about 1000 times
    counts = Counter(tuple(shuffled([1, 2, 3], deal_key(i.to_bytes(32, "big"), ()), 1))
                     for i in range(6000))
    assert len(counts) == 6
    assert all(850 < n < 1150 for n in counts.values()), counts


def test_bad_seeds_and_contributions_are_refused_with_a_reason():
    with pytest.raises(UnfairDeal, match="a seed is 32 bytes, not 3"):
        FairDeal(b"abc", ())
    with pytest.raises(UnfairDeal, match="at most 32 bytes, not 33"):
        FairDeal(bytes(32), (bytes(33),))


# ------------------------------------------------------------------ records
@pytest.mark.parametrize("options", [
    Options(players=3, rounds=2), Options(players=2, rounds=2, draft=True),
    Options(players=4, rounds=1, tactic_deck=True)])
def test_a_fair_record_verifies_and_keeps_its_proof_through_json(options: Options):
    record = fair_record(options, FairDeal(FAIR.seed, FAIR.contributions[:1] + (b"",) *
                                           (options.players - 1)))
    text = record.to_json()
    back = record_from_json(text)
    assert back == record and back.fair_deal is not None
    assert json.loads(text)["fair_deal"]["seed"] == FAIR.seed.hex()
    assert verify_deals(back) == len(record.rounds)
    assert verify_game(text, commitment=commitment_of(FAIR.seed)) == len(record.rounds)


def test_a_tampered_deal_a_wrong_seed_or_another_commitment_fails():
    record = fair_record(Options(players=3, rounds=2), FAIR)
    claim = record.fair_deal
    assert claim is not None
    first = record.rounds[0]
    assert first.hands is not None and first.rows is not None
    # seat 0 and seat 1 swap a card: still a legal deal, not the seed's
    h0, h1 = list(first.hands[0]), list(first.hands[1])
    h0[0], h1[0] = h1[0], h0[0]
    swapped = replace(first, hands=(tuple(sorted(h0)), tuple(sorted(h1)), first.hands[2]))
    tampered = replace(record, rounds=(swapped,) + record.rounds[1:])
    with pytest.raises(UnfairDeal, match="round 1: seat 0's hand"):
        verify_deals(tampered)
    other_seed = replace(claim, seed=bytes(32))
    with pytest.raises(UnfairDeal, match="does not match the commitment"):
        verify_deals(replace(record, fair_deal=other_seed))
    with pytest.raises(UnfairDeal, match="round 1: the rows"):
        # a seed and commitment that agree, but not the seed the deals came from
        verify_deals(replace(record, fair_deal=claim_for(FairDeal(bytes(32), FAIR.contributions))))
    with pytest.raises(UnfairDeal, match="no fair_deal"):
        verify_deals(replace(record, fair_deal=None))
    with pytest.raises(UnfairDeal, match="not the one announced"):
        verify_game(record, commitment="0" * 64)


def test_a_record_with_a_malformed_fair_deal_is_refused_where_it_is_wrong():
    data = json.loads(fair_record(Options(players=2, rounds=1),
                                  FairDeal(FAIR.seed, (b"", b""))).to_json())
    data["fair_deal"]["seed"] = "xyz"
    with pytest.raises(InvalidRecord, match="fair_deal.seed: the seed must be hexadecimal"):
        record_from_json(json.dumps(data))
    data["fair_deal"]["seed"] = FAIR.seed.hex()
    data["fair_deal"]["contributions"] = [""]
    with pytest.raises(InvalidRecord, match="contributions"):
        record_from_json(json.dumps(data))


# ------------------------------------------------------------------ nimmt-replay --verify
def test_replay_verify_passes_a_fair_record_and_fails_a_tampered_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    record = fair_record(Options(players=3, rounds=2), FAIR)
    good = tmp_path / "good.json"
    good.write_text(record.to_json(), encoding="utf-8")
    assert replay_main(["--verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "verified" in out and record.fair_deal is not None
    assert record.fair_deal.commitment in out and "all 2 deals" in out

    data = json.loads(record.to_json())
    rows = data["rounds"][1]["rows"]
    rows[0], rows[1] = rows[1], rows[0]  # round 2's rows 0 and 1 swapped
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert replay_main(["--verify", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "NOT VERIFIED: round 2: the rows" in err

    assert replay_main(["--verify", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert replay_main(["--verify", "--db", str(tmp_path / "x.db"), "seven"]) == 2
    assert "give a game id (a number), not 'seven'" in capsys.readouterr().err
