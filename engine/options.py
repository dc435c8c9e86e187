"""Game options: player count, variants and the end condition.

>>> Options(players=4)
Options(players=4, tactic_deck=False, draft=False, professional=False, point_limit=66, rounds=None)
>>> Options(players=3, tactic_deck=True).deck[-1]
34
>>> Options(players=11)
Traceback (most recent call last):
...
nimmt.engine.errors.InvalidOptions: players must be 2 to 10, not 11
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import deck_for
from .errors import InvalidOptions

__all__ = ["Options", "MIN_PLAYERS", "MAX_PLAYERS", "ROWS", "ROW_LIMIT", "HAND_SIZE"]

MIN_PLAYERS = 2
MAX_PLAYERS = 10
ROWS = 4
ROW_LIMIT = 5  # a row holds at most 5 cards; the 6th takes it
HAND_SIZE = 10


@dataclass(frozen=True, slots=True)
class Options:
    """The rules a game is played under. Any combination of variants is allowed.

    ``point_limit``: the game ends after the round in which a total reaches it.
    ``rounds``: the game ends after that many rounds. Set either or both (the
    first reached ends the game); at least one must be set.
    """

    players: int
    tactic_deck: bool = False
    draft: bool = False
    professional: bool = False
    point_limit: int | None = 66
    rounds: int | None = None

    def __post_init__(self) -> None:
        if type(self.players) is not int or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise InvalidOptions(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {self.players!r}")
        for name in ("tactic_deck", "draft", "professional"):
            if type(getattr(self, name)) is not bool:
                raise InvalidOptions(f"{name} must be true or false, not {getattr(self, name)!r}")
        if self.point_limit is None and self.rounds is None:
            raise InvalidOptions("set a point_limit or a number of rounds, or the game never ends")
        if self.point_limit is not None and (
            type(self.point_limit) is not int or not 1 <= self.point_limit <= 10_000
        ):
            raise InvalidOptions(f"point_limit must be 1 to 10000 or None, not {self.point_limit!r}")
        if self.rounds is not None and (type(self.rounds) is not int or not 1 <= self.rounds <= 1000):
            raise InvalidOptions(f"rounds must be 1 to 1000 or None, not {self.rounds!r}")

    @property
    def deck(self) -> tuple[int, ...]:
        """The cards in use this game, ascending."""
        return deck_for(self.players, self.tactic_deck)
