"""Builders shared by the client tests (no tests here): tables, seats, a hand-moved clock."""

from __future__ import annotations

from typing import Any

from nimmt import protocol as P

TOKEN = "tok_0123456789abcdef"
LIMITS = P.Limits(max_frame_size=65536, hello_timeout=5.0, ping_interval=15.0,
                  pong_timeout=10.0, reconnect_grace=120.0, rate_limit=50)


class Clock:
    """A monotonic clock that only moves when told to."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def welcome(name: str = "Ann", resumed: bool = False, token: str = TOKEN) -> P.Welcome:
    return P.Welcome(protocol=1, server="nimmt-test 1", name=name, token=token,
                     resumed=resumed, limits=LIMITS, seq=1)


def seat(name: str, kind: str = "human", *, connected: bool = True, total: int = 0,
         penalties: int = 0) -> P.SeatInfo:
    strategy = "heuristic" if kind == "bot" else None
    return P.SeatInfo(name=name, kind=kind, connected=connected, total=total,
                      penalties=penalties, strategy=strategy)


def table(names: list[str | None], *, table_id: str = "t1", host: int | None = 0,
          status: str = "waiting", name: str = "", bots: tuple[int, ...] = (),
          **options: Any) -> P.TableInfo:
    seats = tuple(None if n is None else seat(n, "bot" if i in bots else "human")
                  for i, n in enumerate(names))
    opts = P.TableOptions(seats=len(names), **options)
    return P.TableInfo(table_id=table_id, name=name, options=opts, seats=seats, host=host,
                       status=status, spectators=0)
