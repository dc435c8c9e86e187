"""protocol/ against a fresh sample of mutants (issue 43, seed 25).

The example session of docs/PROTOCOL.md played by the rules alone: its deal given to the
engine, Ann's requests as the session sends them and the bot's cards chosen by the
heuristic strategy (the "easy" level the session adds), so that a changed card, row or
number in the example fails here in a second, not only against a server
(tests/test_protocol_settled.py). No trio, no hypothesis (``tools/mutate.py --plain``)."""

from __future__ import annotations

from typing import Any

from nimmt.bots.basic import HeuristicStrategy
from nimmt.engine import (
    CardNotInHand,
    CardPlaced,
    CardsRevealed,
    ChooseRow,
    Commit,
    Deal,
    Game,
    Options,
    RowChoiceNeeded,
    RowTaken,
)
from nimmt.protocol import catalogue
from nimmt.protocol.catalogue import SESSION_HANDS, SESSION_ROWS

SHOWN = ("hand_dealt", "rows_dealt", "revealed", "row_choice_needed", "row_taken", "placed",
         "error")


def the_script() -> list[tuple[str, Any, str]]:
    script = catalogue.session_script()
    return script[:next(i for i, (who, _, _) in enumerate(script) if who == "skip")]


def documented() -> list[dict[str, Any]]:
    """The game's messages of the example session up to its skip, as plain maps."""
    out: list[dict[str, Any]] = []
    for who, item, _ in the_script():
        if who != "server" or item.TYPE not in SHOWN:
            continue
        wire = {k: v for k, v in item.to_wire().items() if v is not None}
        for name in ("seq", "deadline", "remaining"):
            wire.pop(name, None)
        out.append(wire)
    return out


def played() -> list[dict[str, Any]]:
    """The same messages as the rules give them for the session's deal and requests."""
    game = Game(Options(players=2))
    events = game.deal(Deal(rows=SESSION_ROWS, hands=SESSION_HANDS))
    out: list[dict[str, Any]] = [
        {"type": "hand_dealt", "cards": tuple(game.view(0).hand)},
        {"type": "rows_dealt", "rows": tuple(tuple(r) for r in game.rows)},
    ]
    bot = HeuristicStrategy()
    script = the_script()
    last = max(i for i, (who, _, _) in enumerate(script) if who == "client")
    for i, (who, item, _) in enumerate(script):
        if who == "server" and item.TYPE == "turn_started":
            events = game.apply(bot.decide(game.view(1)))
        if who != "client" or item["type"] not in ("commit", "choose_row"):
            continue
        try:
            if item["type"] == "commit":
                events = game.apply(Commit(0, item["card"]))
            else:
                events = game.apply(ChooseRow(0, item["row"]))
        except CardNotInHand as e:
            out.append({"type": "error", "code": e.code, "message": str(e),
                        "request": "commit", "field": "card", "re": item["id"]})
            continue
        if i == last:  # the session skips what follows its last request
            break
        for event in events:
            if isinstance(event, CardsRevealed):
                out.append({"type": "revealed", "plays": event.plays})
            elif isinstance(event, RowChoiceNeeded):
                out.append({"type": "row_choice_needed", "seat": event.seat, "card": event.card})
            elif isinstance(event, RowTaken):
                out.append({"type": "row_taken", "seat": event.seat, "row": event.row,
                            "cards": event.cards, "bullheads": event.bullheads})
            elif isinstance(event, CardPlaced):
                out.append({"type": "placed", "seat": event.seat, "card": event.card,
                            "row": event.row, "end": event.end.value})
    return out


def test_the_example_sessions_game_is_what_the_rules_and_the_easy_bot_make_of_its_deal() -> None:
    assert played() == documented()


def test_the_example_session_shows_the_turns_that_matter() -> None:
    """What the session is there to show, pinned whole: Ann's 3 fits no row, she takes
    row 1 (37: 1 bullhead), 3 starts it anew and the bot's 40 goes after 10."""
    assert documented() == [
        {"type": "hand_dealt", "cards": (3, 14, 21, 36, 44, 58, 61, 68, 90, 93)},
        {"type": "rows_dealt", "rows": ((10,), (37,), (43,), (55,))},
        {"type": "revealed", "plays": ((0, 3), (1, 40))},
        {"type": "row_choice_needed", "seat": 0, "card": 3},
        {"type": "row_taken", "seat": 0, "row": 1, "cards": (37,), "bullheads": 1},
        {"type": "placed", "seat": 0, "card": 3, "row": 1, "end": "right"},
        {"type": "placed", "seat": 1, "card": 40, "row": 0, "end": "right"},
        {"type": "error", "code": "illegal_card", "message": "card 3 is not in seat 0's hand",
         "request": "commit", "field": "card", "re": 3},
    ]
