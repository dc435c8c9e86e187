"""Colours. Bullheads run from plain (1) through yellow, orange and red to white on red (7)."""

from __future__ import annotations

from prompt_toolkit.styles import Style

__all__ = ["STYLE"]

STYLE = Style.from_dict({
    # cards, by bullheads
    "card.h1": "",
    "card.h2": "#d7af00",
    "card.h3": "#ff8700 bold",
    "card.h5": "#ff3f3f bold",
    "card.h7": "bg:#af0000 #ffffff bold",
    "card.cursor": "reverse",
    "card.committed": "underline",
    "tie.cursor": "reverse bold",
    "card.placed": "reverse bold",
    "card.box": "#8a8a8a",
    "row.taken": "#808080 strike",
    "row.takenote": "bold #ff5f5f",
    # rows
    "row.label": "bold",
    "row.legal": "bold #ffd700",
    "row.choose": "reverse bold #ffd700",
    "row.cursor": "bold #ffd700",
    "row.empty": "#585858",
    "row.full": "#ff5f5f italic",
    "cost": "",
    "cost.warm": "#ff8700",
    "cost.hot": "#ff3f3f bold",
    # panels
    "panel.head": "bold #87afd7",
    "dim": "#808080",
    "help": "bg:#1c1c1c #d0d0d0",
    "frame.border": "#4e4e4e",
    "frame.label": "bold #87afd7",
    # title bar
    "title": "bg:#303030 #d0d0d0",
    "title.app": "bg:#af5f00 #ffffff bold",
    "title.rules": "bg:#303030 #ffd787",
    "title.name": "bg:#303030 #ffffff bold",
    "title.watch": "bg:#303030 #87d7ff",
    "title.online": "bg:#303030 #5fd75f",
    "title.offline": "bg:#303030 #ff5f5f bold",
    # seats
    "seat.me": "bold #ffffff",
    "seat.away": "#808080 italic",
    "seat.tag": "#d7af00",
    "seat.pen": "#ff8700",
    "mark.ok": "#5fd75f bold",
    "mark.wait": "#ffd700 bold",
    "winner": "#ffd700 bold",
    # decision bar and clock
    "prompt.mine": "bg:#5f5f00 #ffffff bold",
    "prompt.done": "bg:#005f00 #ffffff",
    "prompt.other": "bg:#262626 #bcbcbc",
    "clock": "bg:#262626 #ffffff",
    "clock.hot": "bg:#af0000 #ffffff bold",
    # event log
    "log.event": "",
    "log.take": "#ff8700",
    "log.round": "bold #87d7ff",
    "log.chat": "#87d787",
    "log.error": "#ff5f5f",
    "log.info": "#9e9e9e",
    "log.link": "#d787d7",
    "log.warn": "#ffd700 bold",
    # lobby and form
    "lobby.selected": "reverse",
    "lobby.waiting": "#5fd75f",
    "lobby.playing": "#d7af00",
    "form.selected": "bold",
    "form.value": "reverse",
    # bottom lines
    "status": "",
    "status.info": "#d0d0d0",
    "status.ok": "#5fd75f",
    "status.error": "bg:#870000 #ffffff bold",
    "keys": "bg:#262626 #9e9e9e",
    "keys.key": "bg:#444444 #ffffff bold",
    "chat.prompt": "bold #87d787",
})
