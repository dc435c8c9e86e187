"""Render the message catalogue and the state table as Markdown (for docs/PROTOCOL.md).

``python -m nimmt.protocol.catalogue`` prints the generated sections; the test
suite checks that docs/PROTOCOL.md contains them verbatim, so the document
cannot drift from the code.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from .base import REGISTRY, Message, Struct
from .examples import COMMITMENT, EXAMPLES, SEED
from .fields import Kind
from .framing import encode_frame
from .states import TABLE, ConnState, Role
from .structs import (
    Autoplayed,
    LeaderboardRow,
    Limits,
    Pending,
    Place,
    SeatInfo,
    TableInfo,
    TableOptions,
)

__all__ = ["render_messages", "render_structs", "render_states", "render_all", "hexdump",
           "session", "session_script", "SESSION_ROWS", "SESSION_HANDS",
           "ORDER"]

#: The order of the catalogue in the document, by section.
ORDER: dict[str, tuple[str, ...]] = {
    "Handshake": ("hello", "welcome"),
    "Always": ("error", "goodbye", "ping", "pong", "chat", "chat_message"),
    "Lobby and tables": (
        "list_tables", "table_list", "table_updated", "table_closed", "create_table", "join",
        "watch", "leave", "add_bot", "remove_bot", "start", "seated", "watching", "left",
    ),
    "Ratings (version 2)": ("leaderboard", "leaderboard_page"),
    "The ladder queue (version 2)": ("queue", "queued", "leave_queue", "queue_left"),
    "Commit, then reveal (version 3)": ("reveal_request", "reveal", "reveal_accepted"),
    "Game events (to every seat and spectator of the table)": (
        "round_started", "draft_opened", "draft_pick_needed", "draft_picked", "rows_dealt",
        "turn_started", "seat_committed", "revealed", "placed", "row_taken",
        "row_choice_needed", "tie_choice_needed", "round_scored", "game_over", "snapshot",
    ),
    "Private game messages (to one seated player only)": (
        "hand_dealt", "commit_accepted", "row_choice_request", "tie_choice_request",
        "draft_pick_request", "deadline_warning",
    ),
    "Decisions (client to server)": ("commit", "choose_row", "choose_tie", "draft_pick"),
    "The clock of a solo game": ("pause", "resume", "clock_paused"),
}

STRUCTS: tuple[type[Struct], ...] = (Place, TableOptions, SeatInfo, TableInfo, LeaderboardRow,
                                     Limits, Pending, Autoplayed)


def _fmt_default(v: Any) -> str:
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, tuple):
        return "[]" if not v else repr(list(v))
    if isinstance(v, Struct):
        return "{} (all defaults)"
    return repr(v)


def _rows(cls: type[Struct], envelope: bool) -> list[str]:
    out = ["| field | type | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if envelope and f.name in ("seq", "re", "id"):
            continue
        kind: Kind = f.metadata["kind"]
        opt = ""
        if f.default is not dataclasses.MISSING:
            opt = f" (optional, default {_fmt_default(f.default)})"
        doc = f.metadata["doc"].replace("|", "\\|")
        if f.metadata.get("since", 1) > 1:
            doc = f"**version {f.metadata['since']}:** {doc}"
        out.append(f"| `{f.name}` | {kind.text.replace('|', 'or')} | {doc}{opt} |")
    return out


def _states_for(tag: str) -> str:
    parts = []
    for states, sender, tags, target in TABLE:
        if tag in tags:
            names = ", ".join(s.value for s in states)
            arrow = "" if target is None else f" → {target.value}"
            parts.append(f"{sender.value} in {names}{arrow}")
    return "; ".join(parts)


def _direction(cls: type[Message]) -> str:
    if cls.SENDERS == {Role.CLIENT, Role.SERVER}:
        return "both ways"
    return "client → server" if Role.CLIENT in cls.SENDERS else "server → client"


def hexdump(data: bytes) -> str:
    """Bytes as lines of 16 hex pairs."""
    return "\n".join(data[i:i + 16].hex(" ") for i in range(0, len(data), 16))


def _summary(cls: Any) -> str:
    """A class's description: its docstring's first paragraph, on one line (its
    first line alone would cut a sentence that goes on)."""
    paragraph = (cls.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(line.strip() for line in paragraph.splitlines())


def render_messages() -> str:
    lines: list[str] = []
    done: set[str] = set()
    for section, tags in ORDER.items():
        lines += [f"### {section}", ""]
        for tag in tags:
            cls = REGISTRY[tag]
            done.add(tag)
            doc = _summary(cls)
            since = f" **Version {cls.SINCE} and later.**" if cls.SINCE > 1 else ""
            lines += [f"#### `{tag}`", "", f"*{_direction(cls)}* — {doc}{since}", ""]
            lines += [f"Accepted: {_states_for(tag)}.", ""]
            if cls._FIELDS:
                lines += _rows(cls, envelope=True)
            else:
                lines.append("No fields.")
            ex = EXAMPLES[tag]
            lines += ["", "Example: `" + _json(ex.to_wire()) + "`", ""]
    missing = set(REGISTRY) - done
    if missing:  # pragma: no cover - guarded by the tests
        raise AssertionError(f"catalogue ORDER misses {sorted(missing)}")
    return "\n".join(lines).rstrip() + "\n"


def _json(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f'"{k}": {_json(x)}' for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_json(x) for x in v) + "]"
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v + '"'
    return repr(v)


def render_structs() -> str:
    lines: list[str] = []
    for cls in STRUCTS:
        doc = _summary(cls)
        lines += [f"#### `{cls.__name__}`", "", doc, ""]
        lines += _rows(cls, envelope=False)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def render_states() -> str:
    lines = ["| from state | sender | message types | to state |", "|---|---|---|---|"]
    for states, sender, tags, target in TABLE:
        names = ", ".join(s.value for s in states)
        to = "(same)" if target is None else target.value
        lines.append(
            f"| {names} | {sender.value} | {', '.join(f'`{t}`' for t in sorted(tags))} | {to} |"
        )
    lines.append("")
    lines.append("States: " + ", ".join(f"`{s.value}`" for s in ConnState) + ".")
    return "\n".join(lines) + "\n"


def render_frame(msg: Message) -> str:
    data = encode_frame(msg)
    return f"{_json(msg.to_wire())}  ({len(data)} bytes)\n\n```\n{hexdump(data)}\n```\n"


#: The example session's deal: the rows, then Ann's hand (seat 0) and the bot's (seat 1).
#: tests/test_protocol_settled.py plays the session against the real server with it.
SESSION_ROWS = (10, 37, 43, 55)
SESSION_HANDS = ((3, 14, 21, 36, 44, 58, 61, 68, 90, 93), (1, 5, 16, 31, 40, 60, 62, 69, 76, 92))


def session_script() -> list[tuple[str, Any, str]]:
    """The example session as (sender, item, note): a client item is the plain map a
    minimal client packs, a server item the ``Message``; ``("skip", n, note)`` stands
    for ``n`` server messages left out."""
    from .examples import LIMITS, SERVER, TOKEN
    from .messages_game import (
        CommitAccepted,
        GameOver,
        HandDealt,
        Placed,
        Revealed,
        RoundScored,
        RoundStarted,
        RowChoiceNeeded,
        RowChoiceRequest,
        RowsDealt,
        RowTaken,
        SeatCommitted,
        TurnStarted,
    )
    from .messages_session import Error, Ping, Seated, TableUpdated, Welcome

    deadline = 1767225630.0
    seats1 = (SeatInfo(name="Ann", kind="bot", connected=True, total=0, penalties=0), None)
    seats2 = (seats1[0], SeatInfo(name="Bot 1", kind="bot", connected=True, total=0,
                                  penalties=0, strategy="easy"))
    opts = TableOptions(seats=2, step_delay=0.0)
    table1 = TableInfo(table_id="kqzd1", name="Ann's table", options=opts, seats=seats1, host=0,
                       status="waiting", spectators=0, commitment=COMMITMENT)
    table2 = dataclasses.replace(table1, seats=seats2)
    return [
        ("client", {"type": "hello", "protocol": 2, "name": "Ann", "kind": "bot"},
         "within hello_timeout of connecting; no token: a new session; version 2 "
         "(a version 1 client gets the same messages without the fields of version 2)"),
        ("server", Welcome(protocol=2, server=SERVER, name="Ann", token=TOKEN,
                           resumed=False, limits=LIMITS), "state: lobby"),
        ("client", {"type": "create_table", "id": 1, "options": {"seats": 2, "step_delay": 0}},
         "omitted options take their defaults; id 1 is echoed as re"),
        ("server", Seated(table=table1, seat=0, re=1),
         "state: seated; Ann is host; no name was asked for: the server named the table"),
        ("server", TableUpdated(table=table1),
         "everyone at a table hears of each of its changes, Ann's own arrival included"),
        ("client", {"type": "add_bot", "strategy": "easy"},
         'no id: the reply has no re; "easy": a bot that decides at once (the default, '
         '"hard", thinks 100 ms)'),
        ("server", TableUpdated(table=table2), ""),
        ("client", {"type": "start"}, "start has no reply of its own: the game starts"),
        ("server", RoundStarted(round=1, commitment=COMMITMENT),
         "state: playing; the commitment is the one the table showed (Verifiable deals)"),
        ("server", HandDealt(cards=SESSION_HANDS[0]), "to Ann only"),
        ("server", RowsDealt(rows=tuple((c,) for c in SESSION_ROWS)), "rows 0 to 3"),
        ("server", TurnStarted(round=1, turn=1, deadline=deadline, remaining=30.0), ""),
        ("server", SeatCommitted(seat=1), "the bot has committed; its card stays secret"),
        ("client", {"type": "commit", "id": 2, "round": 1, "turn": 1, "card": 3},
         "Ann's lowest card"),
        ("server", CommitAccepted(round=1, turn=1, card=3, re=2), "to Ann only"),
        ("server", SeatCommitted(seat=0), "everyone has committed"),
        ("server", Revealed(plays=((0, 3), (1, 40))), "resolved in this order"),
        ("server", RowChoiceNeeded(seat=0, card=3, deadline=deadline + 20, remaining=20.0),
         "3 is lower than every row: Ann must take a row"),
        ("server", RowChoiceRequest(round=1, turn=1, card=3, rows=(0, 1, 2, 3),
                                    deadline=deadline + 20, remaining=20.0), "to Ann only"),
        ("client", {"type": "choose_row", "round": 1, "turn": 1, "row": 1},
         "rows 1 (37) and 2 (43) cost 1 bullhead each, the fewest; Ann takes row 1"),
        ("server", RowTaken(seat=0, row=1, cards=(37,), bullheads=1), ""),
        ("server", Placed(seat=0, card=3, row=1, end="right"),
         "3 starts row 1 anew (a card that starts a row after a row choice is always "
         "placed at the right end)"),
        ("server", Placed(seat=1, card=40, row=0, end="right"),
         "40 goes after 10, the closest lower last card"),
        ("server", Ping(nonce=7),
         "a ping may come at any time after the welcome: answer it"),
        ("client", {"type": "pong", "nonce": 7}, ""),
        ("server", TurnStarted(round=1, turn=2, deadline=deadline + 40, remaining=30.0), ""),
        ("server", SeatCommitted(seat=1), ""),
        ("client", {"type": "commit", "id": 3, "round": 1, "turn": 2, "card": 3},
         "a mistake: 3 was played"),
        ("server", Error(code="illegal_card", message="card 3 is not in seat 0's hand",
                         request="commit", field="card", re=3), "the request is refused"),
        ("client", {"type": "commit", "id": 4, "round": 1, "turn": 2, "card": 14}, ""),
        ("server", CommitAccepted(round=1, turn=2, card=14, re=4), ""),
        ("skip", 250, "(about 250 messages later)"),
        ("server", RoundScored(round=6, penalties=(9, 14), totals=(52, 71)), ""),
        ("server", GameOver(totals=(52, 71), places=(1, 2), winners=(0,), seed=SEED,
                            contributions=("", "")),
         "Bot 1 reached 66: state back to seated; the seed is revealed (in this shortened "
         "example the deals above are made up, not derived from it)"),
        ("client", {"type": "goodbye", "reason": "quit"}, "state: closed; Ann closes the socket"),
    ]


def session() -> list[tuple[str, Message | None, bytes, str]]:
    """An example session: (sender, message as decoded, frame bytes, note); a left-out
    stretch is ``("skip", None, b"", note)``.

    Client frames are packed from plain maps, the way a minimal bot writes them
    (optional fields left out); server frames come from ``Connection.send``.
    Every frame is checked by a pair of Connections on the way.
    """
    import msgpack

    from .connection import Connection

    script = session_script()
    client, server = Connection(Role.CLIENT), Connection(Role.SERVER)
    out: list[tuple[str, Message | None, bytes, str]] = []
    for who, item, note in script:
        if who == "skip":  # pretend `item` server messages went by
            server._next_seq += item
            client._last_seq += item
            out.append((who, None, b"", note))
            continue
        if who == "client":
            body = msgpack.packb(item)
            data = len(body).to_bytes(4, "big") + body
            client.send(REGISTRY[item["type"]].from_map(
                {k: v for k, v in item.items() if k not in ("type", "id")}))
            server.receive_data(data)
            msg = server.next_message()
        else:
            data = server.send(item)
            client.receive_data(data)
            msg = client.next_message()
        assert isinstance(msg, Message)
        out.append((who, msg, data, note))
    return out


HEX_FRAMES = ("hello", "commit", "commit_accepted", "error", "placed", "goodbye")


def render_session() -> str:
    lines: list[str] = []
    shown: set[str] = set()
    for who, msg, data, note in session():
        if msg is None:
            lines += [f"*{note}*", ""]
            continue
        arrow = "C → S" if who == "client" else "S → C"
        wire = msgpack_map(data)
        lines.append(f"{arrow} `{_json(wire)}`" + (f" — {note}" if note else ""))
        lines.append("")
        if msg.TYPE in HEX_FRAMES and msg.TYPE not in shown:
            shown.add(msg.TYPE)
            lines += ["```", hexdump(data), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def msgpack_map(data: bytes) -> Any:
    import msgpack

    return msgpack.unpackb(data[4:])


def sections(bot_source: str | None = None) -> dict[str, str]:
    """name -> generated Markdown, as delimited in docs/PROTOCOL.md."""
    out = {"states": render_states(), "messages": render_messages(),
           "structs": render_structs(), "session": render_session()}
    if bot_source is not None:
        out["bot"] = "```python\n" + bot_source.rstrip("\n") + "\n```\n"
    return out


def update_document(text: str, bot_source: str | None = None) -> str:
    """``text`` with every ``<!-- BEGIN GENERATED: name -->`` section regenerated."""
    for name, body in sections(bot_source).items():
        begin = f"<!-- BEGIN GENERATED: {name} -->\n"
        end = f"<!-- END GENERATED: {name} -->"
        a = text.find(begin)
        b = text.find(end)
        if a < 0 or b < a:
            raise ValueError(f"section {name!r} not found")
        text = text[:a + len(begin)] + body + text[b:]
    return text


def render_all() -> str:
    return "".join(
        f"<!-- BEGIN GENERATED: {name} -->\n{body}<!-- END GENERATED: {name} -->\n\n"
        for name, body in sections().items()
    )


def main(argv: list[str]) -> None:
    """``catalogue`` prints the sections; ``catalogue --update DOC [BOT]`` rewrites DOC."""
    if argv[:1] == ["--update"]:
        from pathlib import Path

        doc = Path(argv[1])
        bot = Path(argv[2]).read_text() if len(argv) > 2 else None
        doc.write_text(update_document(doc.read_text(), bot))
    else:
        sys.stdout.write(render_all())


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
