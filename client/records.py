"""The small values a :class:`~nimmt.client.model.TableModel` shows: log lines,
notices, the resolution step on the board, round and game results, seats."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LogLine", "Step", "Notice", "RoundResult", "GameResult", "SeatView"]


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line of the event log. ``kind``: ``info``, ``event``, ``take`` (a row
    taken), ``round`` (round/game boundaries), ``chat``, ``error``, ``link``, ``warn``
    (a deadline is near)."""

    text: str
    kind: str = "event"


@dataclass(frozen=True, slots=True)
class Step:
    """The resolution step the board shows now: ``card`` of ``seat`` placed in ``row``
    (``None`` until it lands); ``taken``/``bullheads``: the cards that step took from
    that row (``()`` when it took none). A screen shows the taken cards with the new
    card beside them until the next step, so a take can be watched."""

    seat: int
    row: int
    card: int | None = None
    end: str = "right"
    taken: tuple[int, ...] = ()
    bullheads: int = 0


@dataclass(frozen=True, slots=True)
class Notice:
    """A one-time notice for the screen's status line (``kind``: ``info``/``error``)."""

    text: str
    kind: str = "info"


@dataclass(frozen=True, slots=True)
class RoundResult:
    round: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameResult:
    totals: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as a screen shows it."""

    index: int
    name: str | None  # None: empty seat
    kind: str | None  # "human" or "bot"
    connected: bool
    total: int
    penalties: int
    strategy: str | None
    me: bool
    host: bool
    committed: bool
    deciding: bool  # the table waits for this seat's row/tie/draft decision
    rating: float | None = None  # a claimed name's (or a built-in level's) rating
    games: int = 0  # the rated games behind it

    @property
    def empty(self) -> bool:
        return self.name is None
