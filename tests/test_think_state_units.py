"""A searching bot's state between decisions, as a think worker loads and saves it
(server/thinking/worker.py's ``load_strategy``, ``save_strategy``): the bot's own
state is used as it was left (its next decisions are the same), a state of another
strategy, a corrupt one or one past 1 MiB is not (a fresh strategy, and the exact
reason for the log); a state of exactly 1 MiB is kept. Plain functions."""

from __future__ import annotations

import pickle

from nimmt.bots import HeuristicStrategy, RandomStrategy
from nimmt.engine import Game, Options
from nimmt.server.thinking.pool import MAX_STATE_BYTES
from nimmt.server.thinking.worker import load_strategy, save_strategy

VIEW = Game(Options(players=4), seed=5).view(0)


def _decisions(strategy: object, count: int = 8) -> list[object]:
    return [strategy.decide(VIEW) for _ in range(count)]  # type: ignore[attr-defined]


def test_a_bots_own_state_is_loaded_as_it_was_left() -> None:
    bot = RandomStrategy(3)
    _decisions(bot, 5)  # it has decided a few times: its generator moved on
    state = pickle.dumps(bot)
    loaded, note = load_strategy("random", 3, state)
    assert note is None
    assert _decisions(loaded) == _decisions(pickle.loads(state))
    assert _decisions(loaded) != _decisions(RandomStrategy(3))  # not a fresh one


def test_no_state_is_a_fresh_strategy_of_the_seed_without_a_note() -> None:
    fresh, note = load_strategy("random", 3, None)
    assert note is None and _decisions(fresh) == _decisions(RandomStrategy(3))


def test_a_state_of_another_strategy_is_not_used() -> None:
    fresh, note = load_strategy("random", 3, pickle.dumps(HeuristicStrategy()))
    assert isinstance(fresh, RandomStrategy) and _decisions(fresh) == _decisions(RandomStrategy(3))
    assert note == "its state holds a HeuristicStrategy, not a random: it starts afresh"


def test_a_state_that_is_no_strategy_is_not_used() -> None:
    fresh, note = load_strategy("heuristic", 3, pickle.dumps("hello"))
    assert isinstance(fresh, HeuristicStrategy)
    assert note == "its state holds a str, not a heuristic: it starts afresh"


def test_a_corrupt_state_is_not_used_and_the_note_says_why() -> None:
    fresh, note = load_strategy("random", 3, b"garbage")
    assert _decisions(fresh) == _decisions(RandomStrategy(3))
    assert note == ("its state could not be loaded (UnpicklingError('pickle data was "
                    "truncated')): it starts afresh")


def test_a_state_of_exactly_one_mebibyte_is_loaded() -> None:
    bot = RandomStrategy(3)
    _decisions(bot, 5)
    state = pickle.dumps(bot)
    padded = state + b"\0" * (MAX_STATE_BYTES - len(state))  # (read up to its STOP)
    assert len(padded) == MAX_STATE_BYTES
    loaded, note = load_strategy("random", 3, padded)
    assert note is None and _decisions(loaded) == _decisions(pickle.loads(state))


class _Hoard:
    """A strategy whose state is ``size`` bytes and a little."""

    def __init__(self, size: int) -> None:
        self.hoard = b"h" * size

    def decide(self, view: object) -> None:
        return None


def test_a_state_is_saved_up_to_one_mebibyte_and_dropped_past_it() -> None:
    # what pickle adds around a hoard of about this size (a large one is framed apart)
    overhead = len(pickle.dumps(_Hoard(MAX_STATE_BYTES),
                                protocol=pickle.HIGHEST_PROTOCOL)) - MAX_STATE_BYTES
    state, note = save_strategy(_Hoard(MAX_STATE_BYTES - overhead))  # type: ignore[arg-type]
    assert note is None and state is not None and len(state) == MAX_STATE_BYTES
    assert pickle.loads(state).hoard == b"h" * (MAX_STATE_BYTES - overhead)
    state, note = save_strategy(_Hoard(MAX_STATE_BYTES - overhead + 1))  # type: ignore[arg-type]
    assert state is None
    assert note == ("its state grew to 1048577 bytes, more than 1048576: it starts afresh "
                    "next time")


def test_a_strategy_that_does_not_pickle_is_not_kept_and_the_note_says_why() -> None:
    bot = RandomStrategy(3)
    bot.tap = lambda: None  # type: ignore[attr-defined]
    state, note = save_strategy(bot)
    assert state is None
    assert note is not None and note.startswith("its state could not be saved (")
    assert note.endswith("): it starts afresh next time")
