"""The pieces the screen is drawn with: prompt_toolkit style/text fragments for
cards, card slots and clocks, their measures, text flowed over lines, and the
sizes the table is laid out for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from prompt_toolkit.formatted_text import OneStyleAndTextTuple, StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

from ..cards import bullheads

__all__ = ["SUPERSCRIPT", "MIN_COLUMNS", "MIN_LINES", "PLAYER_WIDTH", "ROWS_WIDTH", "Frags",
           "card_chip", "slot", "clock_text", "frags_width", "frags_height", "flow", "plural"]

SUPERSCRIPT: Final = {1: "¹", 2: "²", 3: "³", 5: "⁵", 7: "⁷"}
#: The smallest terminal the table is laid out for (docs/CLIENT.md says so too).
MIN_COLUMNS: Final = 60
MIN_LINES: Final = 20
#: Width of one player's entry in the players panel.
PLAYER_WIDTH: Final = 30
#: Width of the rows (label, 6 card slots, cost): the rest of a line is for notes.
ROWS_WIDTH: Final = 46
Frags = StyleAndTextTuples


def card_chip(card: int, extra: str = "") -> tuple[str, str]:
    """A card as text: its number and, in superscript, its bullheads; coloured by them."""
    bh = bullheads(card)
    style = f"class:card.h{bh}" + (f" {extra}" if extra else "")
    return (style, f"{card:>3}{SUPERSCRIPT.get(bh, str(bh))}")


def slot(card: int, style: str = "", marked: bool = False, after: str = " ") -> Frags:
    """A card in a 6-wide slot: `` 22⁵ `` or, ``marked``, `` [22⁵]`` (no colour needed).
    ``after``: the last character when not marked (e.g. ``✔``)."""
    chip_style, text = card_chip(card, style)
    if not marked:
        return [(style, " "), (chip_style, text), (style if after == " " else "class:mark.ok",
                                                   after)]
    core = text.strip()
    return [("", " " * (4 - len(core))), (style, "["), (chip_style, core), (style, "]")]


def clock_text(seconds: float | None, hot: bool = False, unknown: bool = False,
               extra: bool = False, paused: bool = False) -> tuple[str, str]:
    """The countdown; ``hot`` (the server's deadline warning came) or 5 s left: in red;
    ``unknown``: the link is down, the server's clock cannot be read; ``extra``: the
    time given is up and this is your time bank; ``paused``: the server stopped it
    while you read (a solo game's help or score sheet)."""
    if unknown:
        return ("class:clock", " ⏱ ?:?? paused ")
    if seconds is None:
        return ("", "")
    s = int(seconds + 0.999)
    if paused:
        return ("class:clock", f" ⏱ {s // 60}:{s % 60:02d} paused ")
    style = "class:clock.hot" if hot or seconds <= 5 else "class:clock"
    return (style, f" ⏱ {'extra ' if extra else ''}{s // 60}:{s % 60:02d} ")


def frags_width(frags: Frags) -> int:
    return sum(get_cwidth(t) for _, t, *_ in frags)


def frags_height(frags: Frags, width: int) -> int:
    """Lines ``frags`` take in a window ``width`` wide that wraps long lines."""
    width = max(1, width)
    text = "".join(t for _, t, *_ in frags)
    return sum(max(1, -(-get_cwidth(line) // width)) for line in text.split("\n"))


def flow(items: Sequence[Frags], width: int, *, lead: Sequence[OneStyleAndTextTuple] = (),
         sep: str = "  ", indent: int = 2) -> Frags:
    """``items`` one after another, a new line (indented) when the next one would not fit:
    nothing is cut off, whatever the width."""
    out: Frags = list(lead)
    x = frags_width(out)
    for i, item in enumerate(items):
        w = frags_width(item)
        if i and x + len(sep) + w > width:
            out.append(("", "\n" + " " * indent))
            x = indent
        elif i:
            out.append(("class:dim", sep))
            x += len(sep)
        out.extend(item)
        x += w
    return out


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
