"""protocol/ against a fresh sample of mutants (issue 43, seed 25).

The example session of docs/PROTOCOL.md played by the rules alone: its deal given to the
engine, Ann's requests as the session sends them and the bot's cards chosen by the
heuristic strategy (the "easy" level the session adds), so that a changed card, row or
number in the example fails here in a second, not only against a server
(tests/test_protocol_settled.py). No trio, no hypothesis (``tools/mutate.py --plain``)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from nimmt import protocol as P
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
from nimmt.protocol import CLIENT, SERVER, Connection, LocalProtocolError, RemoteProtocolError, catalogue
from nimmt.protocol.catalogue import SESSION_HANDS, SESSION_ROWS
from nimmt.protocol.examples import EXAMPLES, TABLE

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


# ----------------------------------------------------------------- what crosses the wire
def frame(obj: object) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    return len(body).to_bytes(4, "big") + body


def welcomed() -> tuple[Connection, Connection]:
    """A server and a client connection past hello and welcome, at the current version."""
    client, server = Connection(CLIENT), Connection(SERVER)
    server.receive_data(client.send(P.Hello(protocol=P.PROTOCOL_VERSION, name="Ann", kind="bot")))
    assert isinstance(server.next_message(), P.Hello)
    client.receive_data(server.send(EXAMPLES["welcome"]))
    assert isinstance(client.next_message(), P.Welcome)
    return server, client


def told(server: Connection, client: Connection, msg: P.Message) -> P.Message:
    client.receive_data(server.send(msg))
    got = client.next_message()
    assert isinstance(got, P.Message)
    return got


def refused(build: Any) -> tuple[str, str, str | None]:
    with pytest.raises(LocalProtocolError) as caught:
        build()
    return caught.value.code, caught.value.message, caught.value.field


def test_a_resumed_seat_hears_each_kind_of_decision_the_autopilot_made() -> None:
    autoplayed = (
        P.Autoplayed(kind="commit", round=1, turn=1, card=46),
        P.Autoplayed(kind="row", round=1, turn=2, card=3, row=2),
        P.Autoplayed(kind="tie", round=2, turn=10, card=50, row=0, end="left"),
        P.Autoplayed(kind="draft", round=3, turn=0, card=104),
    )
    server, client = welcomed()
    got = told(server, client, P.Seated(table=TABLE, seat=0, autoplayed=autoplayed))
    assert isinstance(got, P.Seated)
    assert [(a.kind, a.round, a.turn, a.card, a.row, a.end) for a in got.autoplayed] == [
        ("commit", 1, 1, 46, None, None), ("row", 1, 2, 3, 2, None),
        ("tie", 2, 10, 50, 0, "left"), ("draft", 3, 0, 104, None, None)]


@pytest.mark.parametrize(("fields", "why"), [
    ({"kind": "draft", "turn": 1}, ("a draft pick has turn 0, nothing else has", "turn")),
    ({"kind": "commit", "turn": 0}, ("a draft pick has turn 0, nothing else has", "turn")),
    ({"kind": "commit", "row": 1}, ("row and tie have a row, nothing else has", "row")),
    ({"kind": "row"}, ("row and tie have a row, nothing else has", "row")),
    ({"kind": "tie", "row": 1}, ("a tie has an end, nothing else has", "end")),
    ({"kind": "row", "row": 1, "end": "right"}, ("a tie has an end, nothing else has", "end")),
])
def test_an_autoplayed_decision_that_cannot_be_is_refused_saying_why(
        fields: dict[str, Any], why: tuple[str, str]) -> None:
    built = {"round": 1, "turn": 4, "card": 9, **fields}
    assert refused(lambda: P.Autoplayed(**built)) == ("out_of_range", *why)


def test_a_draft_picks_deadline_warning_received_from_the_wire_is_accepted() -> None:
    """The kind arrives as a string decoded from the frame, not the program's own literal."""
    server, client = welcomed()
    told(server, client, P.Seated(table=TABLE, seat=0))
    told(server, client, P.RoundStarted(round=1))
    got = told(server, client, P.DeadlineWarning(kind="draft", round=1, turn=0, pick=3,
                                                 deadline=5.0, remaining=2.0))
    assert isinstance(got, P.DeadlineWarning)
    assert (got.kind, got.turn, got.pick) == ("draft", 0, 3)
    for seq, turn, pick, said in ((5, 2, 3, "a draft pick has turn 0"),
                                  (6, 0, 0, "a draft pick has a pick number from 1")):
        bad = {"type": "deadline_warning", "seq": seq, "kind": "draft",
               "round": 1, "turn": turn, "pick": pick, "deadline": 5.0, "remaining": 2.0}
        client.receive_data(frame(bad))
        with pytest.raises(RemoteProtocolError) as caught:
            client.next_message()
        assert (caught.value.code, caught.value.message) == ("out_of_range", said)


def test_a_queue_request_sends_its_entropy_in_the_clear_or_its_hash_not_both() -> None:
    entropy, digest = "0a0b", "cd" * 32
    assert P.Queue(entropy=entropy).entropy == entropy
    assert P.Queue(entropy_hash=digest).entropy_hash == digest
    assert refused(lambda: P.Queue(entropy=entropy, entropy_hash=digest)) == (
        "out_of_range", "send entropy (in the clear) or entropy_hash (revealed later), not both",
        "entropy_hash")
    server, client = welcomed()
    server.receive_data(client.send(P.Queue(entropy_hash=digest)))
    got = server.next_message()
    assert isinstance(got, P.Queue) and (got.entropy, got.entropy_hash) == (None, digest)
    server.receive_data(frame({"type": "queue", "entropy": entropy, "entropy_hash": digest}))
    with pytest.raises(RemoteProtocolError) as caught:
        server.next_message()
    assert (caught.value.code, caught.value.field) == ("out_of_range", "entropy_hash")
