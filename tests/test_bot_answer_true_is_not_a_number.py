"""A program's answer must carry a number: ``{"card": true}`` or ``{"row": false}`` is
refused with the message saying what an answer looks like, although JSON's true and
false would pass for 1 and 0 in Python (and card 1, row 0 are legal here)."""

from __future__ import annotations

import pytest

from nimmt.bots.bridge import read_answer
from nimmt.engine import ChooseRow, Commit, Deal, Game, Options


def _game() -> Game:
    game = Game(Options(players=2))
    game.deal(Deal(rows=(11, 12, 13, 14), hands=(tuple(range(1, 11)), tuple(range(15, 25)))))
    return game


def test_a_commit_answered_with_true_is_refused_card_1_is_taken():
    view = _game().view(0)
    with pytest.raises(ValueError, match=r'^a commit is answered with \{"card": NUMBER\}, '
                                         r"not '\{\"card\": true\}'$"):
        read_answer(view, '{"card": true}\n')
    assert read_answer(view, '{"card": 1}\n') == Commit(0, 1)


def test_a_row_choice_answered_with_false_is_refused_row_0_is_taken():
    game = _game()
    game.apply(Commit(0, 1))
    game.apply(Commit(1, 15))
    view = game.view(0)
    with pytest.raises(ValueError, match=r'^a row is answered with \{"row": NUMBER\}'):
        read_answer(view, '{"row": false}')
    assert read_answer(view, '{"row": 0}') == ChooseRow(0, 0)
