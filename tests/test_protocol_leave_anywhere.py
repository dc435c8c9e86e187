"""Whoever is at a table may leave it, whatever they do there: a player seated before
the game, a player in a game and a spectator send ``leave``, the server takes it, and
its ``left`` brings both ends back to the lobby (docs/PROTOCOL.md, the state table).
A spectator's ``leave`` forgotten in protocol/states.py (a bug planted for issue 43)
was caught only by the generated docs' check, which regenerating the docs silences.
Sans-IO: two ``Connection`` ends fed each other's bytes."""

from __future__ import annotations

import pytest

from nimmt import protocol as P
from nimmt.protocol import CLIENT, SERVER, ConnState, Connection
from nimmt.protocol.examples import LIMITS, TABLE, TOKEN


class Pair:
    """A client end and a server end, each message carried to the other at once."""

    def __init__(self) -> None:
        self.client = Connection(CLIENT)
        self.server = Connection(SERVER)

    def from_client(self, msg: P.Message) -> P.Message:
        self.server.receive_data(self.client.send(msg))
        got = self.server.next_message()
        assert isinstance(got, type(msg))
        return got

    def from_server(self, msg: P.Message) -> None:
        self.client.receive_data(self.server.send(msg))
        assert isinstance(self.client.next_message(), type(msg))

    def states(self) -> tuple[ConnState, ConnState]:
        return self.client.state, self.server.state


def at_table(how: str) -> Pair:
    pair = Pair()
    pair.from_client(P.Hello(protocol=P.PROTOCOL_VERSION, name="Ann", kind="human"))
    pair.from_server(P.Welcome(protocol=P.PROTOCOL_VERSION, server="nimmt", name="Ann",
                               token=TOKEN, resumed=False, limits=LIMITS))
    if how == "watching":
        pair.from_client(P.Watch(table_id=TABLE.table_id))
        pair.from_server(P.Watching(table=TABLE))
    else:
        pair.from_client(P.Join(table_id=TABLE.table_id))
        pair.from_server(P.Seated(table=TABLE, seat=0))
        if how == "playing":
            pair.from_server(P.RoundStarted(round=1))
    return pair


@pytest.mark.parametrize("how, state", [("seated", ConnState.SEATED),
                                        ("watching", ConnState.WATCHING),
                                        ("playing", ConnState.PLAYING)])
def test_a_member_at_a_table_leaves_it_and_both_ends_are_back_in_the_lobby(how, state):
    pair = at_table(how)
    assert pair.states() == (state, state)
    leave = pair.from_client(P.Leave())
    assert leave.TYPE == "leave"
    assert pair.states() == (state, state)  # a request moves nothing by itself
    pair.from_server(P.Left(table_id=TABLE.table_id, reason="left"))
    assert pair.states() == (ConnState.LOBBY, ConnState.LOBBY)


def test_in_the_lobby_there_is_nothing_to_leave():
    pair = at_table("watching")
    pair.from_server(P.Left(table_id=TABLE.table_id, reason="table_closed"))
    with pytest.raises(P.LocalProtocolError) as refused:
        pair.client.send(P.Leave())
    assert (refused.value.code, str(refused.value.message)) == (
        "unexpected_message", "cannot send 'leave' in state 'lobby'")
