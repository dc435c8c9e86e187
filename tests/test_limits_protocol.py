"""docs/PROTOCOL.md and the server agree on what an outsider found (issue 24, part 4),
checked against a real server on 127.0.0.1: the rule for nil fields and `re`, the
snapshot taken while cards are being placed, and what becomes of the autopilot's
decisions when the player is back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import msgpack
import trio

from nimmt import protocol as P
from nimmt.protocol.examples import EXAMPLES
from nimmt.server import start_server
from server_helpers import (
    Player,
    ScriptClient,
    fixed_dealer,
    make_config,
    play_all,
    seat_players,
    standard_hands,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md"
FAST = P.TableOptions(seats=2, step_delay=0, rounds=1)
#: the direct replies, the only messages that may carry `re` (docs/PROTOCOL.md)
REPLIES = {"welcome", "table_list", "seated", "watching", "left", "table_updated",
           "commit_accepted", "clock_paused", "pong", "error", "leaderboard_page", "queued",
           "queue_left", "reveal_accepted"}


def frames(raw: bytes) -> list[dict]:
    """Every frame's map, as the bytes came."""
    out, at = [], 0
    while at + 4 <= len(raw):
        size = int.from_bytes(raw[at:at + 4], "big")
        out.append(msgpack.unpackb(raw[at + 4:at + 4 + size]))
        at += 4 + size
    return out


def check_fields(wire: dict) -> None:
    """The rule of docs/PROTOCOL.md: every field of the message, nil included; of the
    envelope, `type` and `seq` always, `re` only on a reply to a request with an id."""
    cls = P.REGISTRY[wire["type"]]
    assert set(wire) - {"type", "seq", "re"} == set(cls._FIELDS), wire
    assert "seq" in wire
    if "re" in wire:
        assert wire["re"] is not None and wire["type"] in REPLIES, wire


async def connect(port: int, name: str, kind: str = "human", *,
                  token: str | None = None) -> ScriptClient:
    return await ScriptClient.tcp(port, name, kind, token=token)


async def test_every_server_frame_follows_the_documented_rule_for_nil_and_re(autojump_clock):
    """A whole game against the real server: every frame carries all its fields (nil
    ones too) and `re` only when it answers a request that had an id; a commit with
    an id is answered with `re`, and `placed` (an event) never has one. The doc and
    its examples say the same."""
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config())
        ann, bob = await connect(port, "Ann"), await connect(port, "Bob")
        await seat_players(ann, [bob], FAST)
        await ann.send(P.Start())

        def with_ids(player: Player, msg: P.Message) -> P.Message | None:
            if isinstance(msg, P.TurnStarted):
                card = player.rng.choice(player.hand)
                return P.Commit(round=msg.round, turn=msg.turn, card=card, id=100 + msg.turn)
            return None

        await play_all([Player(ann, 1, with_ids), Player(bob, 2, with_ids)])
        for client in (ann, bob):
            wires = frames(bytes(client.raw))
            assert len(wires) == len(client.log) > 30
            for wire in wires:
                check_fields(wire)
            accepted = [w for w in wires if w["type"] == "commit_accepted"]
            assert len(accepted) == 10 and all(w["re"] == 100 + w["turn"] for w in accepted)
            placed = [w for w in wires if w["type"] == "placed"]
            assert placed and all("re" not in w for w in placed)
        nursery.cancel_scope.cancel()
    for msg in EXAMPLES.values():
        if msg.seq is not None:  # as a server sends it
            check_fields(msg.to_wire())
    text = DOC.read_text(encoding="utf-8")
    assert "every field of its messages, `nil` included" in text
    assert "`re` is left out when it is nil" in text


async def test_a_snapshot_taken_while_cards_are_placed_lists_every_seat_as_committed(
        autojump_clock):
    """Both seats committed; Ann's card fits no row and she has to choose one: a
    spectator who comes in now, and Ann coming back, see the turn's cards revealed
    and both seats in `committed` (on d27b87c: `committed: []`)."""
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config(),
                                     dealer=fixed_dealer(standard_hands(2, low_seat=0)))
        ann, bob = await connect(port, "Ann"), await connect(port, "Bob")
        await seat_players(ann, [bob], replace(FAST, step_delay=0.8))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        await ann.send(P.Commit(round=1, turn=1, card=1))
        await bob.send(P.Commit(round=1, turn=1, card=15))
        await ann.expect("row_choice_request")
        cy = await connect(port, "Cy", "spectator")
        await cy.send(P.Watch(table_id=ann.table_id))
        await cy.expect("watching")
        snapshot = await cy.expect("snapshot")
        assert snapshot.phase == "resolve" and snapshot.pending.kind == "row"
        assert snapshot.revealed == ((0, 1), (1, 15))
        assert snapshot.committed == (0, 1)
        await ann.aclose()
        ann = await connect(port, "Ann", token=ann.token)
        mine = await ann.expect("snapshot")
        assert (mine.phase, mine.committed, mine.commit) == ("resolve", (0, 1), None)
        assert mine.revealed == ((0, 1), (1, 15))
        nursery.cancel_scope.cancel()


async def test_what_a_player_back_may_change_of_the_autopilots_decisions(autojump_clock):
    """The one rule of docs/PROTOCOL.md ("Deadlines and the autopilot"): a commit, the
    autopilot's too, may be replaced until the cards are revealed (tests/
    test_protocol_settled.py plays that); a commit after the reveal that a deadline
    brought, and a row choice after the autopilot's, get `stale_turn`."""
    options = replace(FAST, turn_time=5.0, choice_time=5.0)
    async with trio.open_nursery() as nursery:
        _, port = await start_server(nursery, make_config(),
                                     dealer=fixed_dealer(standard_hands(2, low_seat=0)))
        ann, bob = await connect(port, "Ann"), await connect(port, "Bob")
        await seat_players(ann, [bob], options)
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        await bob.send(P.Commit(round=1, turn=1, card=15))
        auto = await ann.expect("commit_accepted")  # Ann's turn time ran out
        assert auto.re is None
        await ann.expect("revealed")
        late = await ann.request(P.Commit(round=1, turn=1, card=2))
        assert isinstance(late, P.Error) and late.code == "stale_turn"
        taken = await ann.expect("row_taken")  # the autopilot chose for her
        assert ann.of_type("row_choice_request") and taken.seat == 0
        late = await ann.request(P.ChooseRow(round=1, turn=1, row=(taken.row + 1) % 4))
        assert isinstance(late, P.Error) and late.code == "stale_turn"
        await ann.expect("turn_started")
        nursery.cancel_scope.cancel()
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    rule = ("A commit, yours or the autopilot's, may be **replaced** until the cards are "
            "`revealed`")
    assert text.count(rule) == 1 and "it can be **replaced**" not in text


def test_the_doc_names_the_field_of_options_that_never_end():
    """{point_limit: nil, rounds: nil} is refused with `field` `options.point_limit`
    (tests/test_protocol_settled.py sends it): the doc says so where it lists the
    options and where it lists create_table's errors, and nowhere says `options`."""
    text = DOC.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `point_limit` |"))
    assert "options.point_limit" in row and "out_of_range" in row
    create = text[text.index("- `create_table` (with `options`"):]
    create = create[:create.index("\n- ")]
    assert "`field` `options.point_limit`" in create
