"""Tonight's standings (issue 45, "the evening"): at a table that plays one game
after another (the host presses ``s`` again after ``game_over``: the same table,
the same seats), per player the games played and won, the bullheads a round, the
best round, and your expected loss a decision from the analysis of your rounds.

Sans-IO: :class:`Evening` reads the messages a :class:`~nimmt.client.model.TableModel`
has just applied (``TableModel.apply`` hands them on) and the analyses the screen
gets back (:meth:`Evening.analysed`). It belongs to one table: sitting down at (or
watching) another starts a new evening; a reconnection, or a new run that comes
back to the same table (the per server and name file of :mod:`.keep` holds it),
goes on with it.

What counts (docs/CLIENT.md, "Tonight"):

* players are told apart by name: a player who left keeps the games they sat in
  (the autopilot finished a seat left mid-game) and plays no more;
* a game is *played* and can be *won* once it is over; the rounds scored of the
  game under way already count for the bullheads a round and the best round;
* *won*: first place, fewest bullheads at the end; a first place shared by a tie
  is a win for each player who shares it;
* *a round*: the game totals over the rounds scored (a round missed while the
  link was down still counts, by the totals); the best round is the fewest
  bullheads in one round seen here, the earliest of equal ones;
* standings order: most games won, then fewest bullheads a round, then the name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from nimmt import protocol as P

__all__ = ["Evening", "Standing", "Best", "LossSoFar"]

RUNNING: Final = "running"
OVER: Final = "over"
UNFINISHED: Final = "unfinished"  # given up on: we never saw its end


@dataclass(frozen=True, slots=True, order=True)
class Best:
    """The fewest bullheads in one round: ``bullheads`` in game ``game``'s round ``round``."""

    bullheads: int
    game: int
    round: int


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's evening so far."""

    name: str
    games: int  # games over in which the name had a seat
    won: int  # of those, the ones in first place (shared or not)
    rounds: int  # rounds scored, the running game's included
    bullheads: int  # in those rounds
    best: Best | None
    here: bool  # the name has a seat at the table now

    @property
    def average(self) -> float | None:
        """Bullheads a round (None: no round scored yet)."""
        return self.bullheads / self.rounds if self.rounds else None


@dataclass(frozen=True, slots=True)
class LossSoFar:
    """Your expected loss a decision tonight, from the rounds analysed."""

    average: float | None  # None: no round analysed (off, failed, or not yet back)
    decisions: int
    rounds: int  # rounds analysed
    failed: int  # rounds whose analysis failed
    waiting: int  # rounds being analysed now


@dataclass(slots=True)
class _Game:
    number: int
    names: list[str | None]
    scored: int = 0  # the last round scored
    totals: tuple[int, ...] = ()  # after round ``scored``
    rounds: dict[int, tuple[int, ...]] = field(default_factory=dict)  # round -> penalties
    winners: tuple[int, ...] = ()
    state: str = RUNNING


class Evening:
    """The games played at one table tonight; see the module doc."""

    def __init__(self, table_id: str | None = None) -> None:
        self.table_id = table_id
        self.games: list[_Game] = []
        #: (game, round) -> (decisions, expected loss in all), or None: the analysis failed
        self.losses: dict[tuple[int, int], tuple[int, float] | None] = {}
        #: rounds being analysed: (ticket, round) -> (game, round)
        self.waiting: dict[tuple[Any, int], tuple[int, int]] = {}
        self.present: frozenset[str] = frozenset()

    # ------------------------------------------------------------------ reading
    @property
    def games_over(self) -> int:
        return sum(g.state == OVER for g in self.games)

    def standings(self) -> list[Standing]:
        """Every name that sat in a game tonight, best first (the module doc's order)."""
        seen: dict[str, list[Any]] = {}  # name -> [games, won, rounds, bullheads, best]
        for g in self.games:
            for seat, name in enumerate(g.names):
                if name is None:
                    continue
                row = seen.setdefault(name, [0, 0, 0, 0, None])
                if g.state == OVER:
                    row[0] += 1
                    row[1] += seat in g.winners
                if seat < len(g.totals):
                    row[2] += g.scored
                    row[3] += g.totals[seat]
                for number, penalties in g.rounds.items():
                    if seat < len(penalties):
                        best = Best(penalties[seat], g.number, number)
                        row[4] = best if row[4] is None else min(row[4], best)
        out = [Standing(name, games=row[0], won=row[1], rounds=row[2], bullheads=row[3],
                        best=row[4], here=name in self.present) for name, row in seen.items()]
        out.sort(key=lambda s: (-s.won, s.average if s.average is not None else float("inf"),
                                s.name))
        return out

    def loss_so_far(self) -> LossSoFar:
        done = [v for v in self.losses.values() if v is not None]
        decisions = sum(n for n, _ in done)
        loss = sum(total for _, total in done)
        return LossSoFar(loss / decisions if decisions else None, decisions, len(done),
                         sum(v is None for v in self.losses.values()), len(self.waiting))

    # ------------------------------------------------------------------ messages
    def see(self, msg: Any, table: P.TableInfo | None) -> None:
        """``msg`` was just applied to the model, whose table is now ``table``: what it
        changes tonight."""
        if isinstance(msg, P.Seated | P.Watching | P.Snapshot | P.TableUpdated):
            if msg.table.table_id != self.table_id:
                if isinstance(msg, P.TableUpdated):
                    return  # (the lobby's news of another table)
                self._reset(msg.table.table_id)
            self.present = frozenset(s.name for s in msg.table.seats if s is not None)
            if isinstance(msg, P.Snapshot):
                self._snapshot(msg)
            else:
                self._name_seats(msg.table)
        elif table is None or table.table_id != self.table_id:
            return
        elif isinstance(msg, P.RoundStarted):
            g = self._running()
            if g is not None and msg.round == 1:
                if g.scored:
                    g.state = UNFINISHED  # its end went by unseen
                else:
                    self.games.pop()  # (nothing of it was scored: it is this one)
                g = None
            if g is None:
                self._start(table)
        elif isinstance(msg, P.RoundScored):
            g = self._running() or self._start(table)
            g.rounds[msg.round] = tuple(msg.penalties)
            g.scored, g.totals = max(g.scored, msg.round), tuple(msg.totals)
        elif isinstance(msg, P.GameOver):
            g = self._running()
            if g is not None:
                g.totals, g.winners, g.state = tuple(msg.totals), tuple(msg.winners), OVER

    def analysing(self, ticket: Any, round_number: int) -> None:
        """Your round ``round_number`` of the game under way goes to the analysis;
        ``ticket`` (any key) names it again in :meth:`analysed`."""
        g = self._running() or (self.games[-1] if self.games else None)
        if g is not None:
            self.waiting[ticket, round_number] = (g.number, round_number)

    def analysed(self, ticket: Any, round_number: int, analysis: dict[str, Any] | None) -> None:
        """The ``nimmt-replay analyse --json`` of the round :meth:`analysing` was told
        of (None: its analysis failed); any other round is none of tonight's."""
        key = self.waiting.pop((ticket, round_number), None)
        if key is None:
            return
        try:
            decisions = analysis["seats"][0]["rounds"][0]["decisions"]  # type: ignore[index]
            self.losses[key] = (len(decisions), sum(float(d["loss"]) for d in decisions))
        except (TypeError, KeyError, IndexError, ValueError):
            self.losses[key] = None

    def _reset(self, table_id: str) -> None:
        """Another table: another evening."""
        self.table_id = table_id
        self.games, self.losses, self.waiting = [], {}, {}

    def _running(self) -> _Game | None:
        return self.games[-1] if self.games and self.games[-1].state == RUNNING else None

    def _start(self, table: P.TableInfo) -> _Game:
        g = _Game(len(self.games) + 1, [s.name if s else None for s in table.seats])
        self.games.append(g)
        return g

    def _name_seats(self, table: P.TableInfo) -> None:
        """A seat of the game under way whose name was not known yet (the game was
        found part-way) takes the name the table shows."""
        g = self._running()
        if g is None:
            return
        for i, s in enumerate(table.seats[: len(g.names)]):
            if g.names[i] is None and s is not None:
                g.names[i] = s.name

    def _snapshot(self, m: P.Snapshot) -> None:
        """Back at the table (a reconnection, a new run): the game under way goes on
        from what the snapshot says, rounds missed meanwhile counted by the totals."""
        if m.phase == "waiting" or m.round == 0:
            return
        done = m.phase in ("scored", "over")
        seats = m.table.seats
        totals = tuple((s.total - (0 if done else s.penalties)) if s else 0 for s in seats)
        scored = m.round if done else m.round - 1
        g = self._running()
        last = self.games[-1] if self.games else None
        if g is None and last is not None and m.phase == "over" and last.totals == totals:
            return  # the game we saw end
        if g is None or scored < g.scored:
            if g is not None:
                g.state = UNFINISHED
            g = self._start(m.table)
        self._name_seats(m.table)
        if scored >= g.scored:
            g.scored, g.totals = scored, totals
        if m.phase == "over":
            low = min(totals)
            g.winners, g.state = tuple(s for s, t in enumerate(totals) if t == low), OVER

    # ------------------------------------------------------------------ kept
    def to_json(self) -> dict[str, Any]:
        return {"table_id": self.table_id,
                "games": [{"names": g.names, "scored": g.scored, "totals": list(g.totals),
                           "rounds": [[r, list(p)] for r, p in sorted(g.rounds.items())],
                           "winners": list(g.winners), "state": g.state} for g in self.games],
                "losses": [[game, rnd, *(v if v is not None else [None, None])]
                           for (game, rnd), v in sorted(self.losses.items())]}

    @classmethod
    def from_json(cls, data: Any) -> Evening:
        """An evening kept by :meth:`to_json` (ValueError: not one)."""
        try:
            e = cls()
            e.table_id = str(data["table_id"]) if data["table_id"] is not None else None
            for k, g in enumerate(data["games"], start=1):
                if g["state"] not in (RUNNING, OVER, UNFINISHED):
                    raise ValueError(f"no game state {g['state']!r}")
                e.games.append(_Game(
                    k, [None if n is None else str(n) for n in g["names"]], int(g["scored"]),
                    tuple(int(t) for t in g["totals"]),
                    {int(r): tuple(int(x) for x in p) for r, p in g["rounds"]},
                    tuple(int(s) for s in g["winners"]), g["state"]))
            for game, rnd, n, loss in data["losses"]:
                e.losses[int(game), int(rnd)] = None if n is None else (int(n), float(loss))
        except (TypeError, KeyError, ValueError) as exc:
            raise ValueError(f"not a kept evening: {exc}") from exc
        return e
