"""What a table does with its match's ``Effects`` that needs no task: the sessions they
link to the table, the writes they hand to the store, the ratings a rated game's last
messages show; the notice the players get when the database stops (or starts again)
taking writes, and what the database keeps of a table's settings. Plain functions:
``table.Table`` calls them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any

from nimmt import protocol as P

from ..game.io import Effects
from ..game.match import Match
from ..sessions.session import Session, TableRef
from ..storage import Fact, StorageWriteError, Writes
from ..storage.ladder import RatingChange

__all__ = ["link_sessions", "hand_in_writes", "storage_notice", "stored_settings", "show_new_ratings"]


def link_sessions(table: TableRef, match: Match, effects: Effects,
                  sessions: Mapping[int, Session],
                  watchers: set[int]) -> tuple[list[Session], list[Session]]:
    """Link the sessions that just sat down or started watching to ``table``; return
    the sessions that start watching and those that stop (their spectator rows, for
    the database). ``watchers``: the sessions seen watching, kept up to date."""
    watch: list[Session] = []
    unwatch: list[Session] = []
    for sid, seat in effects.entered:
        session = sessions.get(sid)
        if session is None:
            continue
        session.table, session.seat = table, seat
        if seat is None:
            watchers.add(sid)
            watch.append(session)
        elif sid in watchers:  # watched, sits down now
            watchers.discard(sid)
            unwatch.append(session)
    members = match.members
    for sid in effects.released:
        session = sessions.get(sid)
        if sid in members:  # left, and came back in the same call
            continue
        if sid in watchers:
            watchers.discard(sid)
            if session is not None:
                unwatch.append(session)
    return watch, unwatch


def hand_in_writes(writes: Writes, table: str, match: Match, effects: Effects,
                   sessions: Mapping[int, Session], watch: Sequence[Session],
                   unwatch: Sequence[Session], ratings: Sequence[RatingChange] = ()) -> None:
    """Hand to ``writes`` what ``effects`` of ``table`` changed, in order: the facts
    (seats with their session's token, hashed), the spectators that came (``watch``)
    and went (``unwatch``), the finished game with its ``ratings`` (a rated game's:
    never kept without them) and the table's end."""
    batch: list[Fact] = []
    for fact in effects.facts:
        if fact.kind != "seat":
            batch.append(fact)
            continue
        if batch:
            writes.append(table, batch)
            batch = []
        p = fact.payload
        if p["name"] is None:
            writes.free_seat(table, p["seat"])
        else:
            session = sessions.get(p.get("member", -1))
            token = session.token if session is not None else None
            writes.set_seat(table, p["seat"], p["name"], p["kind"], token=token,
                            strategy=p["strategy"])
        if match.status == "over":  # logged after the game's "left" facts (restore.py)
            batch.append(Fact("seat", {k: v for k, v in p.items() if k != "member"}))
    if batch:
        writes.append(table, batch)
    for session in watch:  # so that a restart brings the spectators back too
        writes.watch(table, session.token_hash, session.name, session.kind)
    for session in unwatch:
        writes.unwatch(table, session.token_hash)
    if effects.started:
        writes.update_table(table, status="playing")
    done = effects.finished
    if done is not None:
        writes.finish_game(table, match.name, done.game_no, done.record,
                           done.kinds, done.started, done.ended, ratings)
        writes.update_table(table, status="over")
    if effects.closed is not None and effects.closed != "server shutdown":
        writes.close_table(table)


def storage_notice(error: StorageWriteError | None, lost: str | None = None) -> P.ChatMessage:
    """What the players are told when the database stops (or starts again) taking writes.
    ``lost``: what the store gave up on (``Dropped.describe()``), if it did."""
    if error is not None and lost is not None:
        text = (f"server notice: the database could not be written for too long "
                f"({error.reason}): {lost} were DROPPED; those tables go on in memory only "
                "and will not come back after a restart. What comes next is saved once the "
                "database can be written")
    elif error is not None:
        text = (f"server notice: the database cannot be written ({error.reason}): games "
                "continue in memory; a restart now would lose what is not saved")
    elif lost is not None:
        text = (f"server notice: the database is written again; {lost} were LOST: those "
                "tables go on in memory only and will not come back after a restart")
    else:
        text = "server notice: the database is written again: nothing was lost"
    return P.ChatMessage(name="server", seat=None, text=text)


def stored_settings(match: Match) -> dict[str, Any]:
    """What the database keeps of a table's settings (``restore`` reads it back)."""
    return {"table": asdict(match.settings), "persistent": match.persistent,
            "autostart": match.autostart}


def show_new_ratings(effects: Effects, info: P.TableInfo) -> None:
    """Make the ``table_updated`` messages after the ``game_over`` in ``effects`` show
    the seats' ratings of ``info`` (the table now, just rated): they were made before."""
    over = False
    sends = effects.sends
    remade: dict[int, P.Message] = {}  # one message sent to many stays one
    for i, (sid, msg) in enumerate(sends):
        if isinstance(msg, P.GameOver):
            over = True
        elif over and isinstance(msg, P.TableUpdated):
            new = remade.get(id(msg))
            if new is None:
                seats = tuple(
                    replace(seat, rating=now.rating, games=now.games)
                    if seat is not None and now is not None and now.name == seat.name
                    else seat for seat, now in zip(msg.table.seats, info.seats))
                new = remade[id(msg)] = replace(msg, table=replace(msg.table, seats=seats))
            sends[i] = (sid, new)
