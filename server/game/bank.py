"""Each seat's time bank (Board Game Arena's "extra time"): a reserve of seconds for
the whole game that a decision not made by its deadline draws on, before the
autopilot makes it.

The table option ``time_bank`` sets the reserve (0: none, the default). Only
seats a client plays have one (a built-in bot decides at once). A seat whose
decision is still awaited at the deadline is sent a ``deadline_warning`` whose
``deadline`` is its own, later one (the deadline plus what is left of its
bank), and the autopilot decides for it only then; what it used is taken from
its bank when it decides (``spend``, from ``play.apply``). What is left
goes with the match's data (``data.bank_to_data``) and, when a decision
drew on it, in that decision's fact (``bank``): a server restarted mid-game
gives each seat what it had left after its last decision (``server.restore``).
Functions over the match's state (``state.MatchState``), like
``timing``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .state import MatchState

__all__ = ["Bank", "enabled", "left", "seat_deadline", "spend", "notice_due", "noticed"]


@dataclass(slots=True)
class Bank:
    """The reserves of one game (``game``: the match's ``games_played`` then)."""

    game: int
    left: dict[int, float]
    # seat -> (the decision's key, seconds already taken from the bank for it)
    charged: dict[int, tuple[Any, float]] = field(default_factory=dict)
    # (decision key, seat): told that its extra time runs (one warning each)
    told: set[tuple[Any, int]] = field(default_factory=set)


def _bank(m: MatchState) -> Bank:
    bank: Bank | None = m._bank
    if bank is None or bank.game != m.games_played:
        reserve = m.settings.time_bank
        bank = Bank(m.games_played, {i: reserve for i in range(len(m.room.seats))})
        m._bank = bank
    return bank


def enabled(m: MatchState, index: int) -> bool:
    """Whether seat ``index`` has a bank: the table gives one, and a client plays it."""
    seat = m.room.seats[index] if 0 <= index < len(m.room.seats) else None
    return m.settings.time_bank > 0 and seat is not None and not seat.builtin


def _charged(bank: Bank, index: int, key: Any) -> float:
    at, amount = bank.charged.get(index, (None, 0.0))
    return amount if at == key else 0.0


def left(m: MatchState, index: int) -> float:
    """Seconds left in seat ``index``'s bank (not counting what the decision being
    made has used so far)."""
    return _bank(m).left.get(index, 0.0) if enabled(m, index) else 0.0


def seat_deadline(m: MatchState, index: int) -> float:
    """When seat ``index``'s awaited decision is made for it: the deadline, plus its
    bank (what it had when this decision's deadline passed)."""
    assert m._deadline is not None
    if not enabled(m, index):
        return m._deadline
    bank = _bank(m)
    return m._deadline + _charged(bank, index, m._armed) + bank.left.get(index, 0.0)


def spend(m: MatchState, index: int) -> float | None:
    """Seat ``index`` decided now (or was decided for): take the time it used past the
    deadline from its bank. A replaced commit is charged once, not twice. Returns
    what is left of the bank when this decision drew on it (None: it did not)."""
    if not enabled(m, index) or m._deadline is None or m._armed is None:
        return None
    bank = _bank(m)
    over = max(0.0, m._now - m._deadline)
    charged = _charged(bank, index, m._armed)
    extra = min(bank.left.get(index, 0.0), max(0.0, over - charged))
    if extra <= 0:
        return None
    bank.left[index] = bank.left.get(index, 0.0) - extra
    bank.charged[index] = (m._armed, charged + extra)
    return bank.left[index]


def notice_due(m: MatchState, pending_seats: frozenset[int] | set[int]) -> list[int]:
    """The seats to tell, once the deadline passed, that their extra time runs: those
    still awaited, with a bank, not told yet for this decision."""
    if m._deadline is None or m.settings.time_bank <= 0:
        return []
    bank = _bank(m)
    return [i for i in sorted(pending_seats)
            if enabled(m, i) and (m._armed, i) not in bank.told
            and seat_deadline(m, i) > m._deadline]


def noticed(m: MatchState, index: int) -> None:
    """Seat ``index`` was told that its extra time runs for the decision awaited."""
    _bank(m).told.add((m._armed, index))
