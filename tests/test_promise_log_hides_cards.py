"""docs/SERVER.md, *Logging*: "A committed card is never logged before the reveal,
and hands never are: the person running the server may be playing too." Attacked
over a whole game at ``debug`` level (the most the log ever says): a commit, a
commit replaced, the autopilot committing for a seat that left, each turn's
cards looked for in every line logged before that turn's reveal. Sans-IO, on
tests/test_match.py's ``Harness``."""

from __future__ import annotations

import re

import pytest

from nimmt import protocol as P
from nimmt.engine import Deal
from nimmt.server.game.io import Disconnected

from test_match import ANN, BOB, Harness, fixed

# Every card in a hand is 61 or more, so that no seat, row, turn, round or bullhead
# count logged in this one-round game can be mistaken for one.
DEAL = Deal(rows=(11, 12, 13, 14), hands=(tuple(range(61, 71)), tuple(range(71, 81))))
CARDS = set(DEAL.hands[0]) | set(DEAL.hands[1])


def _numbers(line: str) -> set[int]:
    return {int(n) for n in re.findall(r"\d+", line)}


def test_no_card_of_a_hand_is_logged_before_its_reveal(caplog: pytest.LogCaptureFixture):
    h = Harness.new(fixed(DEAL), rounds=1, point_limit=0, autoplay_when_away="immediately")
    lines: list[str] = []
    leaks: list[tuple[str, set[int]]] = []
    revealed: set[int] = set()

    def read_log() -> None:
        """The lines logged since the last look, each checked against what is revealed."""
        for record in caplog.records[len(lines):]:
            line = record.getMessage()
            lines.append(line)
            if " revealed " in line:  # "revealed 0:61 1:71": these are public now
                revealed.update(int(c) for c in re.findall(r"\d+:(\d+)", line))
            hidden = (_numbers(line) & CARDS) - revealed
            if hidden:
                leaks.append((line, hidden))

    with caplog.at_level("DEBUG", logger="nimmt.server"):
        h.start_two()
        read_log()
        ann_hand = list(DEAL.hands[0])
        for turn in range(1, 11):
            if turn == 1:  # a commit replaced: neither card may show
                h.send(ANN, P.Commit(round=1, turn=1, card=ann_hand[-1], id=10))
                read_log()
            card = ann_hand.pop(0)
            h.send(ANN, P.Commit(round=1, turn=turn, card=card, id=10 + turn))
            read_log()
            if turn == 4:  # Bob goes: the autopilot commits for him from now on
                h.input(Disconnected(BOB.id, h.now))
            elif turn < 4:
                h.send(BOB, P.Commit(round=1, turn=turn, card=70 + turn, id=10 + turn))
            read_log()
            h.run_until(h.now + 1.0)
            read_log()
        h.run_until(h.now + 5.0)
        read_log()

    assert leaks == []
    assert h.match.status in ("over", "waiting") and len(h.finished) == 1
    # the log said what happened: the commits, the replacement, the autopilot, the reveals
    assert sum("committed a card" in line for line in lines) >= 20 - 1
    assert any("changed its commit" in line for line in lines)
    assert any("autopilot" in line for line in lines)
    assert revealed == CARDS  # every card was revealed in the end, and only then logged
