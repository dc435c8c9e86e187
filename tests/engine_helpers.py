"""Helpers shared by the engine's tests."""

from __future__ import annotations

import pytest

from nimmt.engine import Commit, Game, NimmtError


def snapshot(game: Game) -> tuple:
    """Everything anybody can observe of a game."""
    n = game.options.players
    return (
        tuple(game.view(s) for s in range(n)),
        game.view(None),
        game.pending,
        game.phase,
        tuple(game.history),
        tuple(tuple(game.legal_decisions(s)) for s in range(n)),
        tuple(game.autopilot(s) for s in range(n)),
        game.rows,
        game.totals,
        game.round,
        game.turn,
        game.result,
        game.is_over,
    )


def assert_refused(game: Game, decision: object, error: type[Exception]) -> None:
    """``decision`` raises exactly ``error`` (narrowly) and changes nothing."""
    before = snapshot(game)
    with pytest.raises(error) as info:
        game.apply(decision)  # type: ignore[arg-type]
    if issubclass(error, NimmtError):
        assert type(info.value) is error, f"{decision!r} raised {type(info.value).__name__}"
    assert snapshot(game) == before


def play_turn(game: Game, cards: dict[int, int]) -> list:
    """Every seat in ``cards`` commits its card; the events, in order."""
    events: list = []
    for seat, card in cards.items():
        events.extend(game.apply(Commit(seat, card)))
    return events
