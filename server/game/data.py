"""A match's parts as plain data (lists, dicts, str, int, float, bool, None) and back:
decisions, deals, random generators and the inputs that wait in a match."""

from __future__ import annotations

import random
from dataclasses import asdict
from typing import Any

from nimmt import protocol as P
from nimmt.engine import ChooseRow, ChooseTie, Commit, Deal, Decision, DraftPick, End, Place
from nimmt.engine import FairDeal

from .bank import Bank
from .io import BotDecided, Disconnected, Greet, Input, Reconnected, Request, Who

__all__ = [
    "decision_to_data",
    "decision_from_data",
    "deal_to_data",
    "deal_from_data",
    "rng_to_data",
    "rng_from_data",
    "fair_to_data",
    "fair_from_data",
    "input_to_data",
    "input_from_data",
    "bank_to_data",
    "bank_from_data",
]


def decision_to_data(d: Decision) -> list[Any]:
    if isinstance(d, Commit):
        return ["commit", d.seat, d.card, d.round, d.turn]
    if isinstance(d, ChooseRow):
        return ["row", d.seat, d.row]
    if isinstance(d, ChooseTie):
        return ["tie", d.seat, d.place.row, d.place.end.value]
    return ["pick", d.seat, d.card]


def decision_from_data(data: list[Any]) -> Decision:
    kind, seat, *rest = data
    if kind == "commit":
        return Commit(seat, rest[0], rest[1], rest[2])
    if kind == "row":
        return ChooseRow(seat, rest[0])
    if kind == "tie":
        return ChooseTie(seat, Place(rest[0], End(rest[1])))
    if kind == "pick":
        return DraftPick(seat, rest[0])
    raise ValueError(f"no decision of kind {kind!r}")


def deal_to_data(deal: Deal) -> dict[str, Any]:
    hands = [list(h) for h in deal.hands] if deal.hands is not None else None
    return {"rows": list(deal.rows), "hands": hands}


def deal_from_data(data: dict[str, Any]) -> Deal:
    hands = data["hands"]
    return Deal(rows=tuple(data["rows"]),
                hands=tuple(tuple(h) for h in hands) if hands is not None else None)


def rng_to_data(rng: random.Random) -> list[Any]:
    version, state, gauss = rng.getstate()
    return [version, list(state), gauss]


def rng_from_data(data: list[Any]) -> random.Random:
    rng = random.Random()
    rng.setstate((data[0], tuple(data[1]), data[2]))
    return rng


def fair_to_data(fair: FairDeal | None) -> dict[str, Any] | None:
    """A game's seed and contributions as hex strings (None: not dealt verifiably)."""
    if fair is None:
        return None
    data: dict[str, Any] = {"seed": fair.seed.hex(),
                            "contributions": [c.hex() for c in fair.contributions]}
    if fair.hashes:  # seats committed to their contributions first (protocol 3)
        data["hashes"] = [h.hex() for h in fair.hashes]
        data["withheld"] = list(fair.withheld)
    return data


def fair_from_data(data: dict[str, Any] | None) -> FairDeal | None:
    if data is None:
        return None
    return FairDeal(bytes.fromhex(data["seed"]),
                    tuple(bytes.fromhex(c) for c in data["contributions"]),
                    tuple(bytes.fromhex(h) for h in data.get("hashes", ())),
                    tuple(int(s) for s in data.get("withheld", ())))


def input_to_data(item: Input) -> list[Any]:
    match item:
        case Request(who=who, msg=msg):
            return ["request", asdict(who), msg.to_wire()]
        case Disconnected(member=member, at=at):
            return ["disconnected", member, at]
        case Reconnected(member=member):
            return ["reconnected", member]
        case Greet(member=member):
            return ["greet", member]
        case BotDecided(seat=seat, key=key, decision=decision):
            return ["bot", seat, list(key), decision_to_data(decision)]
    raise AssertionError(item)  # pragma: no cover


def input_from_data(data: list[Any]) -> Input:
    kind = data[0]
    if kind == "request":
        return Request(Who(**data[1]), P.decode_message(data[2], P.CLIENT))
    if kind == "disconnected":
        return Disconnected(data[1], data[2])
    if kind == "reconnected":
        return Reconnected(data[1])
    if kind == "greet":
        return Greet(data[1])
    return BotDecided(data[1], tuple(data[2]), decision_from_data(data[3]))


def bank_to_data(bank: Bank | None) -> dict[str, Any] | None:
    """The seats' time banks of a game (None: no bank was drawn on or looked at)."""
    if bank is None:
        return None
    return {"game": bank.game, "left": [[seat, left] for seat, left in sorted(bank.left.items())],
            "charged": [[seat, list(key), amount]
                        for seat, (key, amount) in sorted(bank.charged.items())],
            "told": sorted(([list(key), seat] for key, seat in bank.told), key=repr)}


def bank_from_data(data: dict[str, Any] | None) -> Bank | None:
    if data is None:
        return None
    return Bank(data["game"], {seat: left for seat, left in data["left"]},
                {seat: (tuple(key), amount) for seat, key, amount in data.get("charged", ())},
                {(tuple(key), seat) for key, seat in data.get("told", ())})
