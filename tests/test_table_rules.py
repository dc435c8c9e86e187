"""The match's states and transitions as one table (``server.match_rules.RULES``),
enumerated: every status x every input, against a ``Match`` in that status."""

from __future__ import annotations

import hashlib

import pytest

from nimmt import protocol as P
from nimmt.server.game.io import BotDecided, Disconnected, Reconnected, Request, Who
from nimmt.server.game.rules import IGNORED, INPUTS, NEXT, RULES, STATUSES, TAKEN, Refused

from test_match import ANN, BOB, WALL, Harness, fixed, standard_deal

CY = Who(4, "Cy", "human")  # a newcomer
EVE = Who(5, "Eve", "spectator")
BOB_ENTROPY = "b0b0"  # Bob joins with its hash (protocol 3) and reveals it when asked
STATUS_TEXTS = {r.text for r in RULES.values() if isinstance(r, Refused)}


def table_in(status: str) -> Harness:
    """Ann (the host, seat 0) and Bob at a three-seat table; a bot in seat 2 once a game
    has started; its status ``status``. Revealing: dealt from its seed, Bob sent a hash
    of its entropy and has not revealed it yet."""
    revealing = status == "revealing"
    h = Harness.new(dealer=None if revealing else fixed(standard_deal(players=3)), seats=3,
                    rounds=1, point_limit=0, autoplay_when_away="immediately")
    h.send(ANN, P.CreateTable(options=P.TableOptions(seats=3), id=1))
    digest = hashlib.sha256(bytes.fromhex(BOB_ENTROPY)).hexdigest() if revealing else None
    h.send(BOB, P.Join(table_id="t1", entropy_hash=digest, id=1))
    if status == "waiting":
        return h
    h.send(ANN, P.AddBot(strategy="heuristic", id=2))
    h.send(ANN, P.Start(id=3))
    if status in ("over", "closed"):
        h.input(Disconnected(ANN.id, 0.0))
        h.input(Disconnected(BOB.id, 0.0))
        h.run_until(10.0)  # the autopilot plays the round out for them
        assert h.match.status == "over"
        h.input(Reconnected(ANN.id))
        h.input(Reconnected(BOB.id))
    if status == "closed":
        h.take(h.match.close("stopped", h.now, WALL + h.now))
    assert h.match.status == status
    return h


def the_input(h: Harness, name: str):
    """A well-formed ``name`` from whoever would send it (the host for the table's
    own requests, a newcomer for create_table, join and watch)."""
    game = h.match._game
    round_, turn = (game.round, game.turn) if game is not None else (1, 1)
    hand = game.view(0).hand if game is not None and game.view(0).hand else (1,)
    messages = {
        "create_table": (CY, P.CreateTable(options=P.TableOptions(seats=3), id=7)),
        "join": (CY, P.Join(table_id="t1", id=7)),
        "watch": (EVE, P.Watch(table_id="t1", id=7)),
        "leave": (BOB, P.Leave(id=7)),
        "add_bot": (ANN, P.AddBot(strategy="heuristic", id=7)),
        "remove_bot": (ANN, P.RemoveBot(seat=2, id=7)),
        "start": (ANN, P.Start(id=7)),
        "chat": (BOB, P.Chat(text="hi", id=7)),
        "commit": (ANN, P.Commit(round=round_, turn=turn, card=hand[0], id=7)),
        "choose_row": (ANN, P.ChooseRow(round=round_, turn=turn, row=0, id=7)),
        "choose_tie": (ANN, P.ChooseTie(round=round_, turn=turn, place=P.Place(row=0, end="right"), id=7)),
        "draft_pick": (ANN, P.DraftPick(round=round_, pick=1, card=hand[0], id=7)),
        "pause": (ANN, P.Pause(id=7)),
        "resume": (ANN, P.Resume(id=7)),
        "reveal": (BOB, P.Reveal(entropy=BOB_ENTROPY, id=7)),
    }
    if name in messages:
        who, msg = messages[name]
        return who, Request(who, msg)
    if name == "disconnected":
        return BOB, Disconnected(BOB.id, h.now)
    if name == "reconnected":
        return BOB, Reconnected(BOB.id)
    key = h.match._armed or ("commit", 1, 1)
    return ANN, BotDecided(2, key, None)  # an answer for the bot's seat


def test_the_table_names_every_status_and_input():
    assert set(RULES) == {(s, i) for s in STATUSES for i in INPUTS}
    assert set(NEXT) == set(STATUSES) and all(set(n) <= set(STATUSES) for n in NEXT.values())


@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("name", INPUTS)
def test_each_input_in_each_status_is_what_the_table_says(status: str, name: str):
    h = table_in(status)
    if status == "over" and name == "add_bot":
        h.send(ANN, P.RemoveBot(seat=2, id=6))  # a free seat for it
    who, item = the_input(h, name)
    before = h.match.status
    rule = RULES[status, name]
    if isinstance(item, BotDecided) and rule is TAKEN:
        return  # answered in every game the harness plays (Harness.take)
    out = h.input(item)
    errors = [m for member, m in out.sends if member == who.id and isinstance(m, P.Error)]
    if rule is IGNORED:
        assert out.sends == [] and out.facts == [] and h.match.status == before
    elif isinstance(rule, Refused):
        assert [(e.code, e.message) for e in errors] == [(rule.code, rule.text)]
    else:
        assert rule is TAKEN
        assert not [e for e in errors if e.message in STATUS_TEXTS], errors
    assert h.match.status == before or h.match.status in NEXT[before]


# ---------------------------------------------------------------------------------------
# A second, independent statement of the rules (issue 43): the test above compares the
# match with RULES, the very table the match reads, so a wrong entry changes both sides.
# Here each outcome is written out by hand, and every pair is played against a Match
# (the bots' answers too). T: taken; I: ignored (nobody told); any other letter: refused
# with the code and message below.
EXPECTED_TEXTS = {
    "S": ("already_started", "the game has started: watch it instead"),
    "R": ("already_started", "the game has started"),
    "G": ("not_allowed", "you are not playing at this table"),
    "C": ("not_allowed", "no game is being played: there is no clock to pause"),
    "F": ("already_started", "the game is starting: its seats are fixed"),
    "X": ("not_allowed", "the game is starting: the seats stay as they are while the "
                         "reveals are made (leave once it has started)"),
    "V": ("not_allowed", "no reveal is asked for now (the game has started, or not every "
                         "seat is taken yet)"),
}
EXPECTED_STATUSES = ("waiting", "revealing", "playing", "over", "closed")
EXPECTED = """
                waiting revealing playing over closed
create_table    T       F         S       T    I
join            T       F         S       T    I
watch           T       T         T       T    I
leave           T       X         T       T    I
add_bot         T       F         R       T    I
remove_bot      T       F         R       T    I
start           T       F         R       T    I
chat            T       T         T       T    I
commit          G       G         T       G    I
choose_row      G       G         T       G    I
choose_tie      G       G         T       G    I
draft_pick      G       G         T       G    I
pause           C       C         T       C    I
resume          T       T         T       T    I
reveal          V       T         V       V    I
disconnected    T       T         T       T    I
reconnected     T       T         T       T    I
bot_decided     I       I         T       I    I
"""


def _expected() -> dict[tuple[str, str], str]:
    header, *rows = EXPECTED.strip().splitlines()
    assert tuple(header.split()) == EXPECTED_STATUSES
    out = {}
    for row in rows:
        name, *cells = row.split()
        assert len(cells) == len(EXPECTED_STATUSES), row
        out.update({(status, name): cell for status, cell in zip(EXPECTED_STATUSES, cells)})
    return out


EXPECTED_RULES = _expected()


def test_the_rules_are_the_ones_written_out_here():
    """Every status and input of RULES has its outcome written above, and it is that
    one (a new status or input must be stated twice)."""
    assert set(RULES) == set(EXPECTED_RULES)
    for pair, cell in EXPECTED_RULES.items():
        rule = RULES[pair]
        got = "T" if rule is TAKEN else "I" if rule is IGNORED else (rule.code, rule.text)
        want = cell if cell in "TI" else EXPECTED_TEXTS[cell]
        assert got == want, pair


def _a_bots_turn_awaited() -> tuple[Harness, BotDecided]:
    """A game playing whose bot (seat 2) has been asked for its commit and not answered:
    its answer, as the strategy makes it."""
    h = table_in("waiting")
    h.send(ANN, P.AddBot(strategy="heuristic", id=2))
    h.answer = False
    h.send(ANN, P.Start(id=3))
    assert h.match.status == "playing"
    (think,) = [t for t in h.thinks if t.seat == 2]
    decision = h.fallback.decide(think.view)
    return h, BotDecided(2, think.key, decision)


@pytest.mark.parametrize("status,name", sorted(EXPECTED_RULES))
def test_each_input_in_each_status_does_what_is_written_out_here(status: str, name: str):
    cell = EXPECTED_RULES[status, name]
    if (status, name) == ("playing", "bot_decided"):
        h, item = _a_bots_turn_awaited()
        out = h.input(item)
        assert [(m, x.seat) for m, x in out.sends if isinstance(x, P.SeatCommitted)] == [
            (ANN.id, 2), (BOB.id, 2)]
        assert [f.kind for f in out.facts] == ["decision"]
        return
    h = table_in(status)
    if status == "over" and name == "add_bot":
        h.send(ANN, P.RemoveBot(seat=2, id=6))  # a free seat for it
    who, item = the_input(h, name)
    before = h.match.status
    out = h.input(item)
    errors = [(m.code, m.message) for member, m in out.sends
              if member == who.id and isinstance(m, P.Error)]
    if cell == "I":
        assert out.sends == [] and out.facts == [] and h.match.status == before
    elif cell == "T":
        refusals = set(EXPECTED_TEXTS.values())
        assert not [e for e in errors if e in refusals], errors
        assert out.sends or out.facts or name in ("disconnected", "reconnected")
    else:
        assert errors == [EXPECTED_TEXTS[cell]]
