"""Reconnection: mid-turn, after committing, during a row choice, during a draft; a
second connection with the same token; unknown, expired and long-absent tokens."""

from __future__ import annotations

import pytest
import trio

from nimmt import protocol as P
from nimmt.server import start_server
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


async def back(server, nursery, old: ScriptClient) -> ScriptClient:
    """``old``'s player connects again with its token."""
    new = await ScriptClient.memory(server, nursery, old.name, token=old.token)
    assert new.welcome.resumed and new.welcome.token == old.token
    return new


async def start_two(nursery, options: P.TableOptions, dealer=None, **config):
    server = await serve_memory(nursery, make_config(**config), dealer=dealer)
    ann = await ScriptClient.memory(server, nursery, "Ann")
    bob = await ScriptClient.memory(server, nursery, "Bob")
    await seat_players(ann, [bob], options)
    await ann.send(P.Start())
    return server, ann, bob


async def test_reconnect_mid_turn_over_tcp(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config())
        ann = await ScriptClient.tcp(port, "Ann")
        bob = await ScriptClient.tcp(port, "Bob")
        await seat_players(ann, [bob], P.TableOptions(seats=2, step_delay=0))
        await ann.send(P.Start())
        hand = (await ann.expect("hand_dealt")).cards
        await ann.expect("turn_started")
        await trio.sleep(10)
        await ann.aclose()
        await trio.sleep(5)
        ann2 = await ScriptClient.tcp(port, "Ann", token=ann.token)
        assert ann2.welcome.resumed
        seated = await ann2.expect("seated")
        assert seated.seat == 0 and seated.table.seats[0].connected
        snap = await ann2.expect("snapshot")
        assert (snap.seat, snap.round, snap.turn, snap.phase) == (0, 1, 1, "commit")
        assert snap.hand == hand and snap.commit is None and snap.committed == ()
        assert snap.remaining == pytest.approx(15.0) and len(snap.rows) == 4
        # and she plays on: the game finishes normally
        (result,) = (await play_all([Player(ann2), Player(bob, seed=1)]))[:1]
        assert len(result.totals) == 2
        assert not bob.of_type("deadline_warning")  # nobody was warned: nobody ran late
        nursery.cancel_scope.cancel()


async def test_reconnect_after_committing_keeps_the_commit(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, ann, bob = await start_two(nursery, P.TableOptions(seats=2, step_delay=0))
        hand = (await ann.expect("hand_dealt")).cards
        await ann.expect("turn_started")
        await ann.request(P.Commit(round=1, turn=1, card=hand[3]))
        await ann.aclose()
        ann2 = await back(server, nursery, ann)
        snap = await ann2.expect("snapshot")
        assert snap.commit == hand[3] and snap.committed == (0,) and snap.hand == hand
        # the commit may still be replaced
        replaced = await ann2.request(P.Commit(round=1, turn=1, card=hand[5]))
        assert isinstance(replaced, P.CommitAccepted) and replaced.card == hand[5]
        bob_hand = bob.of_type("hand_dealt") or [await bob.expect("hand_dealt")]
        await bob.expect("turn_started")
        await bob.send(P.Commit(round=1, turn=1, card=bob_hand[0].cards[0]))
        revealed = await ann2.expect("revealed")
        assert (0, hand[5]) in revealed.plays
        nursery.cancel_scope.cancel()


async def test_reconnect_during_a_row_choice(autojump_clock):
    dealer = fixed_dealer(standard_hands(2, low_seat=0))
    async with trio.open_nursery() as nursery:
        server, ann, bob = await start_two(nursery, P.TableOptions(seats=2, step_delay=0),
                                           dealer)
        await ann.expect("turn_started")
        await bob.expect("turn_started")
        await ann.send(P.Commit(round=1, turn=1, card=1))
        await bob.send(P.Commit(round=1, turn=1, card=15))
        await ann.expect("row_choice_request")
        await trio.sleep(3)
        await ann.aclose()
        ann2 = await back(server, nursery, ann)
        snap = await ann2.expect("snapshot")
        assert snap.phase == "resolve" and snap.revealed == ((0, 1), (1, 15))
        pending = snap.pending
        assert (pending.kind, pending.seat, pending.card, pending.rows) == ("row", 0, 1,
                                                                           (0, 1, 2, 3))
        assert pending.remaining == pytest.approx(17.0)
        request = await ann2.expect("row_choice_request")  # asked again
        assert request.card == 1 and request.remaining == pytest.approx(17.0)
        await ann2.send(P.ChooseRow(round=1, turn=1, row=3))
        taken = await bob.expect("row_taken")
        assert (taken.seat, taken.row, taken.cards) == (0, 3, (14,))
        nursery.cancel_scope.cancel()


async def test_reconnect_during_a_draft(autojump_clock):
    options = P.TableOptions(seats=2, draft=True, tactic_deck=True, step_delay=0)
    async with trio.open_nursery() as nursery:
        server, ann, bob = await start_two(nursery, options)
        request = await ann.expect("draft_pick_request")
        await ann.send(P.DraftPick(round=1, pick=1, card=request.pool[0]))
        # Bob picks 2; Ann drops before her pick 3
        request = await bob.expect("draft_pick_request")
        await ann.aclose()
        await bob.send(P.DraftPick(round=1, pick=2, card=request.pool[-1]))
        await bob.expect("draft_pick_needed")
        ann2 = await back(server, nursery, ann)
        snap = await ann2.expect("snapshot")
        assert snap.phase == "draft" and snap.hand == (1,) and snap.turn == 0
        assert snap.draft_picks == ((0, 1), (1, 24))
        assert snap.draft_pool == tuple(range(2, 24))
        assert (snap.pending.kind, snap.pending.seat, snap.pending.pick) == ("draft", 0, 3)
        again = await ann2.expect("draft_pick_request")
        assert again.pick == 3 and again.pool == snap.draft_pool
        await ann2.send(P.DraftPick(round=1, pick=3, card=2))
        picked = await bob.expect(lambda m: m.TYPE == "draft_picked" and m.seat == 0)
        assert picked.card == 2
        nursery.cancel_scope.cancel()


async def test_a_second_connection_with_the_same_token_replaces_the_first(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, ann, bob = await start_two(nursery, P.TableOptions(seats=2, step_delay=0))
        await ann.expect("turn_started")
        ann2 = await back(server, nursery, ann)  # while the first is still connected
        goodbye = await ann.wait_closed()
        assert goodbye.reason == "replaced"
        snap = await ann2.expect("snapshot")
        assert snap.seat == 0
        (result,) = (await play_all([Player(ann2), Player(bob, seed=2)]))[:1]
        assert len(result.totals) == 2
        nursery.cancel_scope.cancel()


async def test_an_unknown_token_gets_bad_token_and_a_fresh_session(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        client = await ScriptClient.memory(server, nursery, "Ann", hello=False)
        await client.send(P.Hello(protocol=1, name="Ann", kind="human",
                                  token="x" * 32))
        error = await client.recv()
        assert isinstance(error, P.Error) and error.code == "bad_token"
        welcome = await client.recv()
        assert isinstance(welcome, P.Welcome) and not welcome.resumed
        assert welcome.token != "x" * 32
        listing = await client.request(P.ListTables())  # a usable session
        assert isinstance(listing, P.TableList)
        nursery.cancel_scope.cancel()


async def test_tokens_expire_unless_their_seat_is_still_waiting(autojump_clock):
    async with trio.open_nursery() as nursery:
        server = await serve_memory(nursery, make_config())
        lou = await ScriptClient.memory(server, nursery, "Lou")  # in the lobby only
        ann = await ScriptClient.memory(server, nursery, "Ann")
        bob = await ScriptClient.memory(server, nursery, "Bob")
        await seat_players(ann, [bob], P.TableOptions(seats=2, step_delay=0))
        await ann.send(P.Start())
        await ann.expect("turn_started")
        await lou.aclose()
        await ann.aclose()
        nursery.start_soon(bob.wait_closed)  # Bob plays on (his turns time out)
        await trio.sleep(119)
        lou2 = await ScriptClient.memory(server, nursery, "Lou", token=lou.token)
        assert lou2.welcome.resumed  # within reconnect_grace (120 s)
        await lou2.aclose()
        await trio.sleep(121)
        late = await ScriptClient.memory(server, nursery, "Lou", token=lou.token,
                                         hello=False)
        await late.send(P.Hello(protocol=1, name="Lou", kind="human", token=lou.token))
        assert (await late.recv()).code == "bad_token"  # expired
        # Ann was away for 240 s, far beyond the grace: her seat is still hers
        ann2 = await ScriptClient.memory(server, nursery, "Ann", token=ann.token)
        assert ann2.welcome.resumed
        snap = await ann2.expect("snapshot")
        assert snap.seat == 0 and snap.turn > 1  # she was played for meanwhile
        nursery.cancel_scope.cancel()


async def test_a_spectator_comes_back_to_watching(autojump_clock):
    async with trio.open_nursery() as nursery:
        server, ann, bob = await start_two(nursery, P.TableOptions(seats=2, step_delay=0))
        eve = await ScriptClient.memory(server, nursery, "Eve", "spectator")
        watching = await eve.request(P.Watch(table_id=ann.table_id))
        assert isinstance(watching, P.Watching)
        first = await eve.expect("snapshot")
        assert first.seat is None and first.hand == ()
        await eve.aclose()
        eve2 = await back(server, nursery, eve)
        await eve2.expect("watching")
        snap = await eve2.expect("snapshot")
        assert snap.seat is None and snap.hand == () and snap.commit is None
        nursery.cancel_scope.cancel()
