"""What docs/PROTOCOL.md says about the places a new bot author found unclear, checked
against the real server (issue 10): each test performs what the doc describes and
checks what the server sends."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import msgpack
import pytest
import trio

from nimmt import protocol as P
from nimmt.engine import Deal
from nimmt.protocol import catalogue
from nimmt.protocol.examples import EXAMPLES
from server_helpers import (
    Player,
    ScriptClient,
    fixed_dealer,
    make_config,
    play_all,
    seat_players,
    serve_memory,
    standard_hands,
)

FAST = P.TableOptions(seats=2, step_delay=0)


async def two_players(nursery, options: P.TableOptions = FAST, dealer=None, **config):
    server = await serve_memory(nursery, make_config(**config), dealer=dealer)
    ann = await ScriptClient.memory(server, nursery, "Ann")
    bob = await ScriptClient.memory(server, nursery, "Bob")
    table_id = await seat_players(ann, [bob], options)
    return server, ann, bob, table_id


async def refused(client: ScriptClient, msg: P.Message, code: str) -> P.Error:
    reply = await client.request(msg, unchecked=True)
    assert isinstance(reply, P.Error) and reply.code == code, reply
    assert reply.request == msg.TYPE
    return reply


def _normal(msg: P.Message) -> dict[str, Any]:
    """A message as plain data without what differs from run to run (the token, the
    table id's random prefix, the wall-clock deadlines, the deals' seed and its
    commitment, which the fixed dealer here does without: tests/test_fair_deal_server.py
    checks those)."""
    wire = msg.to_wire()
    wire.pop("seq", None)
    for name in ("commitment", "seed", "contributions"):
        if name in wire:
            wire[name] = "?"
    if "token" in wire:
        assert len(wire["token"]) == 32  # like the example's
        wire["token"] = "?"
    if "table" in wire:
        assert re.fullmatch(r"[a-z]{4}[0-9]+", wire["table"]["table_id"])  # e.g. kqzd1
        wire["table"] = dict(wire["table"], table_id="?", commitment="?")
    if "deadline" in wire:
        wire["deadline"] = "?"
        wire["remaining"] = round(wire["remaining"], 6)
    return wire


# ====================================================================== the examples
async def test_the_example_session_is_what_the_server_sends(autojump_clock):
    """The generated example session (welcome values, the table_updated after seated,
    the error text...) is played against a server with default settings."""
    deal = Deal(rows=catalogue.SESSION_ROWS, hands=catalogue.SESSION_HANDS)
    script = catalogue.session_script()
    expected = []
    for who, item, _ in script:
        if who == "skip":
            break
        if who == "server" and item.TYPE != "ping":  # pings depend on time
            expected.append(_normal(item))
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(), dealer=fixed_dealer(deal))
        ann = await ScriptClient.memory(server, nursery, "Ann", "bot", hello=False)
        for who, item, _ in script:
            if who == "skip":
                break
            if who == "client":
                if item["type"] == "pong":
                    continue
                body = msgpack.packb(item)
                await ann.send_raw(len(body).to_bytes(4, "big") + body)
                ann.conn.send(P.REGISTRY[item["type"]].from_map(
                    {k: v for k, v in item.items() if k not in ("type", "id")}))
            elif item.TYPE != "ping":
                got = await ann.recv()
                while got.TYPE == "ping":
                    got = await ann.recv()
                assert _normal(got) == expected.pop(0)
        assert not expected
        nursery.cancel_scope.cancel()


async def test_the_welcome_example_shows_the_default_server(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        example = EXAMPLES["welcome"]
        assert ann.welcome.server == example.server
        assert ann.welcome.limits == example.limits
        assert len(ann.welcome.token) == len(example.token)
        nursery.cancel_scope.cancel()


# ====================================================================== framing, rate
async def test_an_oversized_frame_gets_an_error_then_goodbye(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        big = await ScriptClient.memory(server, nursery, "Big")
        await big.send_raw((65537).to_bytes(4, "big"))
        await big.wait_closed()
        tail = [(m.TYPE, getattr(m, "code", None) or getattr(m, "reason", None))
                for m in big.log[1:]]
        assert tail == [("error", "frame_too_large"), ("goodbye", "protocol_error")]
        nursery.cancel_scope.cancel()


async def test_a_zero_length_frame_is_bad_msgpack_and_the_stream_goes_on(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        await ann.send_raw(b"\x00\x00\x00\x00")
        assert (await ann.recv()).code == "bad_msgpack"
        assert isinstance(await ann.request(P.ListTables()), P.TableList)
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("count", [79, 80])
async def test_the_rate_limit_example(autojump_clock, count):
    """rate_limit 20: 80 messages at once after the welcome (the hello takes no token:
    the bucket holds 2 x rate_limit): 40 through, as "2 x rate_limit at once" says,
    the 41st answered rate_limited, the 80th ends the connection."""
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        flood = await ScriptClient.memory(server, nursery, "Flo")
        assert flood.welcome.limits.rate_limit == 20
        await flood.send_raw(b"".join(flood.conn.send(P.Ping(nonce=i)) for i in range(count)))
        if count == 80:
            assert (await flood.wait_closed()).reason == "rate_limited"
        else:
            await trio.sleep(10)  # the debt is paid back: the connection is fine
            assert isinstance(await flood.request(P.Ping(nonce=0)), P.Pong)
            assert not flood.closed
        kinds = [m.TYPE for m in flood.log[1:]]
        assert kinds[:41] == ["pong"] * 40 + ["error"]
        assert flood.of_type("error")[0].code == "rate_limited"
        assert kinds[41:] == (["goodbye"] if count == 80 else ["pong"])
        nursery.cancel_scope.cancel()


# ====================================================================== lobby errors
async def test_create_table_or_watch_at_a_table_is_unexpected(autojump_clock):
    async with trio.open_nursery() as nursery:
        _, ann, bob, table_id = await two_players(nursery)
        await refused(ann, P.CreateTable(), "unexpected_message")  # state seated
        await refused(bob, P.Watch(table_id=table_id), "unexpected_message")
        nursery.cancel_scope.cancel()


async def test_requests_that_cross_their_reply_are_not_allowed(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        first = P.CreateTable(options=FAST, id=1)
        await ann.send_raw(P.encode_frame(first) + P.encode_frame(P.CreateTable(id=2))
                           + P.encode_frame(P.Watch(table_id="nope", id=3)))
        replies = {}
        while len(replies) < 3:
            msg = await ann.recv()
            if msg.re is not None:
                replies[msg.re] = msg
        assert replies[1].TYPE == "seated"
        assert (replies[2].code, replies[3].code) == ("not_allowed", "no_such_table")
        nursery.cancel_scope.cancel()


async def test_options_with_no_end_name_options_point_limit(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        ann = await ScriptClient.memory(server, nursery, "Ann")
        body = msgpack.packb({"type": "create_table", "id": 1,
                              "options": {"point_limit": None, "rounds": None}})
        await ann.send_raw(len(body).to_bytes(4, "big") + body)
        error = await ann.expect("error")
        assert (error.code, error.field, error.re) == ("out_of_range", "options.point_limit", 1)
        nursery.cancel_scope.cancel()


# ====================================================================== decisions
async def test_a_spectators_decision_is_unexpected_a_decision_after_leave_not_allowed(
        autojump_clock):
    async with trio.open_nursery() as nursery:
        server, ann, bob, table_id = await two_players(nursery, FAST,
                                                       fixed_dealer(standard_hands(2)))
        sam = await ScriptClient.memory(server, nursery, "Sam", "spectator")
        await sam.request(P.Watch(table_id=table_id))
        await ann.send(P.Start())
        await sam.expect("turn_started")
        await refused(sam, P.Commit(round=1, turn=1, card=15), "unexpected_message")
        await bob.expect("turn_started")
        # Bob leaves and commits in one write: the commit crosses his own leave
        leave, commit = P.Leave(id=1), P.Commit(round=1, turn=1, card=25, id=2)
        await bob.send_raw(P.encode_frame(leave) + P.encode_frame(commit))
        error = await bob.expect(lambda m: m.re == 2)
        assert error.code == "not_allowed"
        assert [m.re for m in bob.log if m.TYPE == "left"] == [1]
        nursery.cancel_scope.cancel()


def _error_code(msg: P.Message) -> str:
    assert isinstance(msg, P.Error), msg
    return msg.code


async def test_decisions_of_the_wrong_kind_get_the_documented_error(autojump_clock):
    """The table of docs/PROTOCOL.md, "Which error a decision gets"."""
    async with trio.open_nursery() as nursery:
        _, ann, bob, _ = await two_players(nursery, P.TableOptions(seats=2, step_delay=0,
                                                                   choice_time=10.0),
                                           fixed_dealer(standard_hands(2, low_seat=0)))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        # the commits of round 1 turn 1 are awaited
        await refused(ann, P.Commit(round=1, turn=2, card=1), "stale_turn")
        await refused(ann, P.ChooseRow(round=1, turn=1, row=0), "not_your_turn")
        await refused(ann, P.ChooseTie(round=1, turn=1, place=P.Place(row=0, end="right")),
                      "not_your_turn")
        await refused(ann, P.DraftPick(round=1, pick=1, card=1), "stale_turn")
        await ann.request(P.Commit(round=1, turn=1, card=1))
        await bob.request(P.Commit(round=1, turn=1, card=15))
        await ann.expect("row_choice_request")
        await bob.expect("row_choice_needed")
        # Ann's row choice is awaited: a tie choice from her is the other kind
        await refused(ann, P.ChooseTie(round=1, turn=1, place=P.Place(row=0, end="right")),
                      "not_your_turn")
        # ... and Bob's decisions
        await refused(bob, P.Commit(round=1, turn=1, card=16), "stale_turn")
        await refused(bob, P.ChooseRow(round=1, turn=1, row=0), "not_your_turn")
        await refused(bob, P.DraftPick(round=1, pick=1, card=1), "stale_turn")
        # Ann lets the time run out: the autopilot chooses; her late choice is stale
        await ann.expect("row_taken")
        await refused(ann, P.ChooseRow(round=1, turn=1, row=0), "stale_turn")
        nursery.cancel_scope.cancel()


async def test_draft_first_picker_wrong_decisions_and_start_without_reply(autojump_clock):
    options = P.TableOptions(seats=2, step_delay=0, draft=True, rounds=2)
    async with trio.open_nursery() as nursery:
        _, ann, bob, _ = await two_players(nursery, options)
        await ann.send(P.Start(id=9))
        started = await ann.expect("round_started")
        assert started.re is None  # start has no reply of its own
        request = await ann.expect("draft_pick_request")
        assert (request.round, request.pick) == (1, 1)  # seat 0 picks first in round 1
        await refused(bob, P.DraftPick(round=1, pick=1, card=request.pool[0]), "not_your_turn")
        await refused(bob, P.DraftPick(round=1, pick=2, card=request.pool[0]), "stale_turn")
        await refused(ann, P.Commit(round=1, turn=1, card=request.pool[0]), "stale_turn")
        await refused(ann, P.ChooseRow(round=1, turn=1, row=0), "stale_turn")
        ann.drain()
        await ann.send(P.DraftPick(round=1, pick=1, card=request.pool[0]))
        await play_all([Player(ann, seed=1), Player(bob, seed=2)])
        assert not [m for m in ann.log if m.re == 9]
        opened = ann.of_type("draft_opened")
        assert [(m.round, m.first_picker) for m in opened] == [(1, 0), (2, 1)]
        for log in (ann.log, bob.log):
            needed = [m for m in log if m.TYPE == "draft_pick_needed"]
            for rnd, first in ((1, 0), (2, 1)):
                seats = [m.seat for m in needed if m.round == rnd]
                assert len(seats) == 20
                assert seats == [(first + i) % 2 for i in range(20)]
        nursery.cancel_scope.cancel()


# ====================================================================== deadlines
async def test_every_message_about_a_decision_carries_the_same_deadline(autojump_clock):
    """turn_started, the snapshot after a resume, and deadline_warning: one deadline,
    bit for bit; the same for a row choice's request, the request sent again after a
    resume, and its warning."""
    async with trio.open_nursery() as nursery:
        server, ann, bob, _ = await two_players(nursery, P.TableOptions(seats=2, step_delay=0),
                                                fixed_dealer(standard_hands(2, low_seat=0)))
        await ann.send(P.Start())
        turn = await ann.expect("turn_started")
        assert (await bob.expect("turn_started")).deadline == turn.deadline
        await bob.send(P.Commit(round=1, turn=1, card=15))
        await trio.sleep(3)
        await ann.aclose()  # Ann drops and comes back within her grace
        await trio.sleep(3)
        ann = await ScriptClient.memory(server, nursery, "Ann", token=ann.token)
        snapshot = await ann.expect("snapshot")
        assert (snapshot.phase, snapshot.deadline) == ("commit", turn.deadline)
        warning = await ann.expect("deadline_warning")
        assert (warning.kind, warning.deadline) == ("commit", turn.deadline)
        await ann.send(P.Commit(round=1, turn=1, card=1))
        request = await ann.expect("row_choice_request")
        assert (await bob.expect("row_choice_needed")).deadline == request.deadline
        await ann.aclose()
        await trio.sleep(1)
        ann = await ScriptClient.memory(server, nursery, "Ann", token=ann.token)
        assert (await ann.expect("snapshot")).pending.deadline == request.deadline
        again = await ann.expect("row_choice_request")
        assert again.deadline == request.deadline and again.remaining < request.remaining
        warning = await ann.expect("deadline_warning")
        assert (warning.kind, warning.deadline) == ("row", request.deadline)
        nursery.cancel_scope.cancel()


# ====================================================================== the autopilot
async def test_the_autopilots_commit_is_private_without_re(autojump_clock):
    async with trio.open_nursery() as nursery:
        _, ann, bob, _ = await two_players(nursery, FAST, fixed_dealer(standard_hands(2)))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await ann.send(P.Commit(round=1, turn=1, card=15, id=1))
        await ann.expect("commit_accepted")
        mine = await bob.expect("commit_accepted")  # Bob's time ran out
        assert mine.re is None and (mine.round, mine.turn) == (1, 1)
        assert (1, mine.card) in (await bob.expect("revealed")).plays
        assert len(ann.of_type("commit_accepted")) == 1  # private
        nursery.cancel_scope.cancel()


async def test_a_player_back_replaces_the_autopilots_commit_until_the_reveal(autojump_clock):
    options = replace(FAST, autoplay_when_away="immediately")
    async with trio.open_nursery() as nursery:
        server, ann, bob, _ = await two_players(nursery, options,
                                                fixed_dealer(standard_hands(2)))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        await ann.aclose()
        assert (await bob.expect("seat_committed")).seat == 0  # the autopilot, at once
        ann = await ScriptClient.memory(server, nursery, "Ann", token=ann.token)
        snapshot = await ann.expect("snapshot")
        chosen = snapshot.commit
        assert chosen is not None and chosen in snapshot.hand  # committed, not yet revealed
        other = next(c for c in snapshot.hand if c != chosen)
        accepted = await ann.request(P.Commit(round=1, turn=1, card=other))
        assert isinstance(accepted, P.CommitAccepted) and accepted.card == other
        await bob.send(P.Commit(round=1, turn=1, card=25))
        assert (0, other) in (await bob.expect("revealed")).plays
        nursery.cancel_scope.cancel()


async def test_the_snapshot_hand_holds_the_committed_card_until_revealed(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, ann, bob, _ = await two_players(nursery, FAST, fixed_dealer(standard_hands(2)))
        await ann.send(P.Start())
        hand = (await ann.expect("hand_dealt")).cards
        await ann.expect("turn_started")
        await ann.request(P.Commit(round=1, turn=1, card=hand[3]))
        await ann.aclose()
        ann = await ScriptClient.memory(server, nursery, "Ann", token=ann.token)
        snapshot = await ann.expect("snapshot")
        assert snapshot.commit == hand[3] and snapshot.hand == hand
        nursery.cancel_scope.cancel()


# ====================================================================== the game
async def test_placed_end_of_a_card_that_starts_a_taken_row(autojump_clock):
    """Professional: a sixth card played before a row's first card takes the row and
    is placed at the left end; one played after its last card, at the right end."""
    deal = Deal(rows=(50, 60, 70, 80), hands=(tuple(range(40, 50)), tuple(range(81, 91))))
    options = P.TableOptions(seats=2, step_delay=0, professional=True)
    async with trio.open_nursery() as nursery:
        _, ann, bob, _ = await two_players(nursery, options, fixed_dealer(deal))
        await ann.send(P.Start())
        for turn in range(1, 6):  # Ann plays 49, 48, ... before row 0; Bob 81, 82, ...
            for client in (ann, bob):
                await client.expect(lambda m, t=turn: m.TYPE == "turn_started" and m.turn == t)
            await ann.send(P.Commit(round=1, turn=turn, card=50 - turn))
            await bob.send(P.Commit(round=1, turn=turn, card=80 + turn))
        await ann.expect(lambda m: m.TYPE == "turn_started" and m.turn == 6)
        log = ann.log
        steps = [(m.seat, m.row, m.cards, log[i + 1].card, log[i + 1].end)
                 for i, m in enumerate(log) if m.TYPE == "row_taken"]
        assert steps == [(0, 0, (46, 47, 48, 49, 50), 45, "left"),
                         (1, 3, (80, 81, 82, 83, 84), 85, "right")]
        nursery.cancel_scope.cancel()


def _rows(client: ScriptClient) -> list[list[int]]:
    """The rows as ``client`` saw them."""
    rows: list[list[int]] = []
    for m in client.log:
        if m.TYPE == "rows_dealt":
            rows = [list(r) for r in m.rows]
        elif m.TYPE == "row_taken":
            rows[m.row] = []
        elif m.TYPE == "placed":
            rows[m.row].insert(0 if m.end == "left" else len(rows[m.row]), m.card)
    return rows


async def test_equal_totals_share_a_place_and_the_next_place_is_skipped(autojump_clock):
    """Seat 0 takes a row every turn, seats 1 and 2 nothing: places 3, 1, 1."""
    deal = Deal(rows=(11, 12, 13, 14),
                hands=(tuple(range(1, 11)), tuple(range(15, 25)), tuple(range(25, 35))))

    def lowest_first(player: Player, msg: P.Message) -> P.Message | None:
        if isinstance(msg, P.TurnStarted):
            hand = player.hand
            card = max(hand) if player.client.seat == 0 else min(hand)
            return P.Commit(round=msg.round, turn=msg.turn, card=card)
        if isinstance(msg, P.RowChoiceRequest):  # the row the others just built
            rows = _rows(player.client)
            row = max(range(4), key=lambda r: rows[r][-1])
            return P.ChooseRow(round=msg.round, turn=msg.turn, row=row)
        return None

    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config(), dealer=fixed_dealer(deal))
        clients = [await ScriptClient.memory(server, nursery, name) for name in "ABC"]
        await seat_players(clients[0], clients[1:], P.TableOptions(seats=3, rounds=1,
                                                                   step_delay=0))
        await clients[0].send(P.Start())
        results = await play_all([Player(c, choose=lowest_first) for c in clients])
        over = results[0]
        assert over.totals[0] > 0 and over.totals[1:] == (0, 0)
        assert (over.places, over.winners) == ((3, 1, 1), (1, 2))
        nursery.cancel_scope.cancel()
