"""The history screen: the lobby's ``H`` lists the finished games of a database
(``nimmt-client --db PATH``, else the server's default one) and Enter plays the
chosen one with the replay player (``nimmt-client --replay GAME_ID --db PATH``,
run in this terminal while the lobby waits; ``q`` there comes back)."""

from __future__ import annotations

from dataclasses import dataclass

from ..history import PastGame

__all__ = ["HistoryView"]


@dataclass(slots=True)
class HistoryView:
    """The screen's state: the games (None while they load), the cursor, or why they
    could not be listed."""

    db: str | None
    games: list[PastGame] | None = None
    cursor: int = 0
    error: str | None = None

    @property
    def title(self) -> str:
        return f"Finished games · {self.db or 'the server’s default database'}"

    def move(self, delta: int) -> None:
        if self.games:
            self.cursor = max(0, min(self.cursor + delta, len(self.games) - 1))

    @property
    def chosen(self) -> PastGame | None:
        return self.games[self.cursor] if self.games else None

    def lines(self, width: int, height: int) -> list[tuple[str, str]]:
        """What the screen shows in ``width`` × ``height``: the games around the cursor
        (newest first), or a line saying why there is none."""
        if self.error is not None:
            return [("class:status.error", f" {self.error}"[:width])]
        if self.games is None:
            return [("class:dim", " Loading the games…")]
        if not self.games:
            return [("class:dim", " No finished games in this database yet.")]
        first = max(0, min(self.cursor - height // 2, len(self.games) - height))
        out: list[tuple[str, str]] = []
        for i, game in enumerate(self.games[first:first + height], first):
            mark = "▶" if i == self.cursor else " "
            text = f"{mark}{game.line()}"
            if len(text) > width:
                text = text[:max(1, width - 1)] + "…"
            out.append(("class:seat.me" if i == self.cursor else "", text))
            out.append(("", "\n"))
        return out[:-1]

    def foot(self) -> str:
        return " ↑/↓ game · Enter replays it · Esc closes"
