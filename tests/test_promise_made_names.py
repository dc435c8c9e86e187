"""docs/PROTOCOL.md, *Limits*: names the server makes unique at a table (``Ann (2)``)
are "never longer than 32 characters: the name is shortened before the number"
(and docs/SERVER.md: "a made name is never longer than the protocol's names").
Attacked at the worst case: ten seats, every player with a 32-character name, the
same one, a player who took the very name the server would make, and a number of
two digits at the last seat. Every seat's name is then distinct, at most 32
characters, and goes on the wire. Sans-IO, on tests/test_match.py's ``Harness``."""

from __future__ import annotations

from nimmt import protocol as P
from nimmt.protocol.framing import encode_frame
from nimmt.server.game.io import Who

from test_match import Harness

LONG = "N" * 32
N28 = "N" * 28


def test_ten_players_of_one_32_character_name_get_ten_names_within_32_characters():
    h = Harness.new(seats=10)
    people = [Who(1, LONG, "human"), Who(2, N28 + " (2)", "human")] + [
        Who(id_, LONG, "human") for id_ in range(3, 11)]
    h.send(people[0], P.CreateTable(options=P.TableOptions(seats=10), id=1))
    for who in people[1:]:
        h.send(who, P.Join(table_id="t1", id=1))
        assert h.last(who, "seated").seat == who.id - 1
    table = h.last(people[-1], "seated").table
    names = [seat.name for seat in table.seats]
    assert names == [LONG, N28 + " (2)"] + [N28 + f" ({n})" for n in range(3, 10)] + [
        "N" * 27 + " (10)"]
    assert max(map(len, names)) == 32
    encode_frame(h.last(people[-1], "seated"))  # within the protocol's names: it encodes
