"""A table brought back from the database after a restart (docs/SERVER.md, "Storage").

The database holds each open table's settings, its seats (a player's session
token hashed) and its facts since the last game started. ``restore_match``
turns one ``StoredTable`` into a ``Match`` in the state a restart should give:

* the game in progress rebuilt by replaying its deals and decisions through the
  engine (``rebuild_game``); a game over and kept is "over";
* built-in bots seated again; a player who left mid-game is played for by the
  autopilot at once, and once that game is over the seat is free, unless someone
  took it since (``seats_left``);
* every player's seat waits for them as if their connection had just dropped
  (the grace runs from the restart): their client reconnects with its token and
  finds the seat (``RestoredSeat.token_hash``);
* no deadline is stored: the decision awaited gets its full time again from the
  restart, not what was left of it; each seat's time bank is what it had left
  after its last decision that drew on it (the decision's fact says: ``bank``);
* the seed the next game is dealt from, and the entropy the seated players added
  for it, are the ones kept (``deal_kept``): the commitment the players saw holds.

Plain code, no trio and no I/O: the lobby makes the sessions and the actors.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from nimmt.engine import Deal, Decision, FairDeal

from ..config import ConfigError, TableSettings
from ..game.data import bank_from_data, fair_from_data
from ..game.deal_commitment import FACT_KIND, DealCommitment
from ..game.match import Dealer, Match
from ..game.room import Member, Room, SeatState
from ..storage import Fact, FactError, StoredTable, deal_from, decision_from, rebuild_game

__all__ = ["RestoredSeat", "RestoreError", "restore_match", "seats_left", "skip_on_restore",
           "banks_left", "deal_kept"]


class RestoreError(ValueError):
    """A stored table that cannot be brought back (it is logged and left out)."""


@dataclass(frozen=True, slots=True)
class RestoredSeat:
    """A player's seat (or a spectator's place) waiting for its session: ``member``
    is the session number the lobby gives the session it makes for ``token_hash``."""

    member: int
    seat: int | None  # None: a spectator, watching again
    name: str
    kind: str  # "human" or "bot" (a bot client)
    token_hash: str


def seats_left(facts: Iterable[Fact]) -> set[int]:
    """The seats whose player left the last game and that nobody has taken since.

    A seat's row holds whoever has it now; a ``left`` fact of the last game says its
    player left (the game is played on for them, and the seat is free once it is
    over). A ``seat`` fact after it (the table logs the seats taken or freed once a
    game is over) says the row is newer than the leaving: a player or a bot sat down.

    >>> seats_left([Fact("game_started", {}), Fact("left", {"seat": 2}),
    ...             Fact("left", {"seat": 1}), Fact("game_over", {}),
    ...             Fact("seat", {"seat": 2, "name": "Dan"})])
    {1}
    """
    left: set[int] = set()
    for fact in facts:
        if fact.kind == "game_started":
            left = set()
        elif fact.kind == "left" and isinstance(fact.payload.get("seat"), int):
            left.add(fact.payload["seat"])
        elif fact.kind == "seat":
            left.discard(fact.payload.get("seat"))
    return left


def banks_left(facts: Iterable[Fact], game_no: int, seats: int,
               reserve: float) -> dict[str, Any] | None:
    """The time banks of the game in progress as ``Match`` data (None: no decision of
    it drew on a bank): what each seat had left after its last such decision, the
    whole ``reserve`` for the others.

    >>> banks_left([Fact("game_started", {}), Fact("decision", {"seat": 1, "bank": 7.5})],
    ...            1, 2, 30.0)["left"]
    [[0, 30.0], [1, 7.5]]
    """
    drawn: dict[int, float] = {}
    for fact in facts:
        if fact.kind == "game_started":
            drawn = {}
        elif fact.kind == "decision":
            seat, left = fact.payload.get("seat"), fact.payload.get("bank")
            if isinstance(seat, int) and 0 <= seat < seats and isinstance(left, (int, float)):
                drawn[seat] = max(0.0, min(float(left), reserve))
    if not drawn:
        return None
    return {"game": game_no,
            "left": [[seat, drawn.get(seat, reserve)] for seat in range(seats)]}


def deal_kept(facts: Iterable[Fact], *, playing: bool
              ) -> tuple[FairDeal | None, DealCommitment | None]:
    """The game in progress's ``FairDeal`` (``playing``; None: not dealt verifiably) and
    the table's seed and contributions: while playing, the ``game_started`` fact's;
    otherwise the last ``deal_commitment`` fact's since the last game started;
    None when none was kept (a new seed is drawn, and kept).

    >>> kept = DealCommitment(bytes(32)).contribute(1, b"\\xb0")
    >>> deal_kept([Fact("game_started", {}), kept.fact(), Fact("seat", {})],
    ...           playing=False) == (None, kept)
    True
    """
    fair: FairDeal | None = None
    deal: DealCommitment | None = None
    for fact in facts:
        if fact.kind == "game_started":
            fair = fair_from_data(fact.payload.get("fair"))
            deal = None  # its seed is revealed once it is over: the next one comes after
        elif fact.kind == FACT_KIND:
            deal = DealCommitment.from_data(fact.payload)
    if playing:  # the game's own (a seed drawn at its end is drawn again when it ends)
        return fair, DealCommitment.of_game(fair) if fair is not None else None
    return None, deal


def skip_on_restore(stored: StoredTable) -> bool:
    """A ``--bots`` table still waiting for its player: the server opens a new one."""
    return bool(stored.settings.get("persistent")) and not any(
        f.kind == "game_started" for f in stored.facts)


def restore_match(stored: StoredTable, *, now: float, members: list[int],
                  dealer: Dealer | None = None) -> tuple[Match, list[RestoredSeat]]:
    """``stored`` as a ``Match`` at ``now`` (the server's clock) and its players' seats.
    ``members``: fresh session numbers, one per player seat and spectator (taken
    from the front). Spectators watch again, away from ``now`` (their client comes
    back with its token, or they are removed after the spectators' grace).
    Raises ``RestoreError`` when the stored table cannot be used."""
    try:
        settings = TableSettings(**stored.settings["table"]).validate()
    except (KeyError, TypeError, ConfigError) as e:
        raise RestoreError(f"table {stored.id}: its stored settings cannot be used: {e}") from None
    try:
        rebuilt = rebuild_game(stored.facts)
    except FactError as e:
        raise RestoreError(f"table {stored.id}: {e}") from None
    game = rebuilt.game
    if game is not None and game.options.players != settings.seats:
        raise RestoreError(f"table {stored.id}: its game has {game.options.players} players "
                           f"and the table {settings.seats} seats")

    room = Room(settings.seats)
    people: list[RestoredSeat] = []
    rng = random.Random()
    left = seats_left(stored.facts)
    for s in stored.seats:
        if not 0 <= s.seat < settings.seats:
            raise RestoreError(f"table {stored.id}: no seat {s.seat}")
        if s.seat in left and (game is None or rebuilt.kept_as is not None):
            continue  # left during a game that is over, not taken since: the seat is free
        if s.kind == "builtin" or s.strategy is not None:
            state = SeatState(s.seat, s.name, strategy=s.strategy or "heuristic",
                              seed=rng.randrange(2**32))
        elif s.seat in left or s.token_hash is None:
            if game is None:
                continue  # a waiting table: the seat is free
            state = SeatState(s.seat, s.name, client_kind=s.kind, away_since=now, gone=True)
        else:
            member = members.pop(0)
            state = SeatState(s.seat, s.name, member=member, client_kind=s.kind, away_since=now)
            people.append(RestoredSeat(member, s.seat, s.name, s.kind, s.token_hash))
            room.members[member] = Member(member, s.name, s.kind, False, s.seat)
            if room.host is None:
                room.host = s.seat
        room.seats[s.seat] = state
    seated = {p.token_hash for p in people}
    for watcher in stored.spectators:
        if watcher.token_hash in seated:
            continue  # sat down later: the seat is what counts
        member = members.pop(0)
        people.append(RestoredSeat(member, None, watcher.name, watcher.kind, watcher.token_hash))
        room.members[member] = Member(member, watcher.name, watcher.kind, False, None,
                                      away_since=now)

    history: list[Deal | Decision] | None = None
    status = "waiting"
    unsent: list[tuple[int | None, bool]] = []
    shown = (0, 0)
    if game is not None:
        if rebuilt.kept_as is None and any(seat is None for seat in room.seats):
            raise RestoreError(f"table {stored.id}: a game in progress with a free seat")
        history = [deal_from(f.payload) if f.kind == "deal" else decision_from(f.payload)
                   for f in stored.facts if f.kind in ("deal", "decision")]
        shown = (game.round, game.turn)
        if rebuilt.kept_as is not None:
            status = "over"
        else:
            status = "playing"
            if game.is_over:
                # the last decision is on disk, the game not kept yet: its last event
                # (game_over) goes out again and the game is kept then
                unsent = [(None, False)]
    try:
        fair, deal = deal_kept(stored.facts, playing=status == "playing")
        if deal is not None:  # a seat freed by the restart has contributed nothing
            for index, seat in enumerate(room.seats):
                if seat is None:
                    deal = deal.withdraw(index)
        match = Match.restored(
            stored.id, stored.name, settings, now=now,
            # a --bots table's game stays one: it closes once its player has left
            persistent=bool(stored.settings.get("persistent")),
            autostart=bool(stored.settings.get("autostart")),
            dealer=dealer, deal=deal if dealer is None else None, room=room,
            status=status, games_played=rebuilt.game_no or 0, history=history,
            unsent=unsent, shown=shown, fair=fair if dealer is None else None,
            bank=bank_from_data(banks_left(stored.facts, rebuilt.game_no or 0, settings.seats,
                                           settings.time_bank)) if status == "playing" else None,
            started_wall=next((f.at for f in stored.facts if f.kind == "game_started"
                               and f.at is not None), stored.created))
    except Exception as e:  # the engine refused what the facts said
        raise RestoreError(f"table {stored.id}: cannot be rebuilt: {e}") from None
    return match, people
