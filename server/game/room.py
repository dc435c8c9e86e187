"""Who is at a table: its seats, the sessions in them and the spectators.

Plain data and the questions the match asks about it; no game, no time.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from nimmt import protocol as P

from ..ladder.ratings import bot_name

__all__ = ["Member", "SeatState", "Room", "NAME_MAX"]

#: the longest name the protocol allows (``NAME`` in protocol/structs.py)
NAME_MAX = 32


@dataclass(slots=True)
class Member:
    """A session at the table: in a seat (``seat``) or watching (``seat`` None)."""

    id: int
    name: str
    kind: str  # "human", "bot" (a bot client) or "spectator"
    connected: bool
    seat: int | None
    away_since: float | None = None  # a spectator's connection dropped then


@dataclass(slots=True)
class SeatState:
    """One seat: a member's (``member``) or a built-in bot's (``strategy``)."""

    index: int
    name: str
    member: int | None = None  # None for a built-in bot, or a player who left the game
    strategy: str | None = None
    seed: int | None = None
    client_kind: str = "human"  # "bot" for a bot client
    away_since: float | None = None  # the member's connection dropped then
    gone: bool = False  # the member left during the game: played for at once

    @property
    def builtin(self) -> bool:
        return self.strategy is not None


class Room:
    """The seats (``seats[i]``: None when free), the members by session id, the host."""

    def __init__(self, seats: int) -> None:
        self.seats: list[SeatState | None] = [None] * seats
        self.members: dict[int, Member] = {}
        self.host: int | None = None

    def seat_of(self, member_id: int) -> int | None:
        member = self.members.get(member_id)
        return member.seat if member is not None else None

    def seat_kind(self, seat: SeatState) -> str:
        return "bot" if seat.builtin or seat.client_kind == "bot" else "human"

    def seat_connected(self, seat: SeatState) -> bool:
        if seat.builtin:
            return True
        member = self.members.get(seat.member) if seat.member is not None else None
        return member is not None and member.connected

    def someone_connected(self) -> bool:
        return any(m.connected for m in self.members.values())

    def person_watching(self) -> bool:
        """A person (not a bot client) is connected: pace the resolution for them."""
        return any(m.connected and m.kind != "bot" for m in self.members.values())

    def full(self) -> bool:
        return all(s is not None for s in self.seats)

    def free_seat(self, wanted: int | None) -> int | tuple[str, str, str | None]:
        """The seat to take (``wanted``, or the first free one), or why not
        (an error code, its message and the field)."""
        E = P.ErrorCode
        if wanted is None:
            free = [i for i, s in enumerate(self.seats) if s is None]
            return free[0] if free else (E.TABLE_FULL, "every seat is taken", None)
        if wanted >= len(self.seats):
            return E.NO_SUCH_SEAT, f"seats are 0 to {len(self.seats) - 1}", "seat"
        if self.seats[wanted] is not None:
            return E.SEAT_TAKEN, f"seat {wanted} is taken", "seat"
        return wanted

    def unique_name(self, name: str) -> str:
        """``name``, or ``name`` with a number when a seat has it already: ``"Ann (2)"``.
        The base is shortened so that the result stays within the protocol's names
        (``NAME_MAX`` characters), whatever the length of the number.

        >>> room = Room(3)
        >>> room.seats[0] = SeatState(0, "N" * 32)
        >>> new = room.unique_name("N" * 32)
        >>> new, len(new)
        ('NNNNNNNNNNNNNNNNNNNNNNNNNNNN (2)', 32)
        """
        taken = {s.name for s in self.seats if s is not None}
        if name not in taken:
            return name
        for n in range(2, len(self.seats) + 2):
            suffix = f" ({n})"
            candidate = f"{name[:NAME_MAX - len(suffix)].rstrip()}{suffix}"
            if candidate not in taken:
                return candidate
        raise AssertionError("more names taken than seats")  # pragma: no cover

    def next_host(self) -> int | None:
        """The host after the host left: the first seat of a connected member, else the
        first seat of a member who is away (it may come back: a table with a player
        always has a host); None: no member sits."""
        held = [s for s in self.seats if s is not None and s.member is not None]
        return next((s.index for s in held if self.seat_connected(s)),
                    held[0].index if held else None)

    def spectators(self) -> int:
        return sum(1 for m in self.members.values() if m.seat is None)

    def seat_infos(self, totals: tuple[int, ...] | None, penalties: tuple[int, ...] | None,
                   claimed: Container[str] = (),
                   ratings: Mapping[str, tuple[float, int]] | None = None,
                   ) -> tuple[P.SeatInfo | None, ...]:
        """``claimed``: the claimed names, casefolded (a player's seat is marked);
        ``ratings``: casefolded rated name -> (rating, games) (ladder.py), shown for a
        claimed player and a built-in bot's level."""
        seats: list[P.SeatInfo | None] = []
        for i, seat in enumerate(self.seats):
            if seat is None:
                seats.append(None)
                continue
            is_claimed = not seat.builtin and seat.name.casefold() in claimed
            rated = None
            if ratings:
                if seat.builtin:
                    rated = ratings.get(bot_name(seat.strategy or "heuristic"))
                elif is_claimed:
                    rated = ratings.get(seat.name.casefold())
            seats.append(P.SeatInfo(
                name=seat.name, kind=self.seat_kind(seat), connected=self.seat_connected(seat),
                total=totals[i] if totals else 0,
                penalties=penalties[i] if penalties else 0,
                # a spec with parameters (nimmt-server --bot-level search:ms=50) is
                # shown by its strategy's name: the wire allows no ":"
                strategy=seat.strategy.partition(":")[0] if seat.strategy else None,
                claimed=is_claimed,
                rating=rated[0] if rated is not None else None,
                games=rated[1] if rated is not None else 0,
            ))
        return tuple(seats)

    def to_data(self) -> dict[str, Any]:
        return {
            "seats": [None if s is None else asdict(s) for s in self.seats],
            "members": [asdict(m) for m in self.members.values()],
            "host": self.host,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Room:
        room = cls(len(data["seats"]))
        room.seats = [None if s is None else SeatState(**s) for s in data["seats"]]
        room.members = {d["id"]: Member(**d) for d in data["members"]}
        room.host = data["host"]
        return room
