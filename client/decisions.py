"""The decisions a seat makes, as plain data, and the messages that answer them.

A :class:`Decision` says what is asked of *you* right now (by
:attr:`nimmt.client.model.TableModel.decision`); :meth:`Decision.answer` builds
the protocol message with the right round/turn/pick numbers. :class:`Pending`
is the row/tie/draft decision the table is waiting for, yours or someone else's.
"""

from __future__ import annotations

from dataclasses import dataclass

from nimmt.protocol import ChooseRow, ChooseTie, Commit, DraftPick, Message, Place

__all__ = ["Pending", "Decision", "COMMIT", "ROW", "TIE", "DRAFT"]

COMMIT = "commit"
ROW = "row"
TIE = "tie"
DRAFT = "draft"


@dataclass(slots=True)
class Pending:
    """A row choice, tie choice or draft pick the table waits for.

    ``deadline`` is on the *local* monotonic clock (``time.monotonic()`` unless the
    model was given another clock). ``requested`` is true once the private
    request has arrived (or a snapshot said it is ours): only then may it be
    answered. Rows are wire rows (0..3).
    """

    kind: str  # ROW, TIE or DRAFT
    seat: int
    mine: bool
    round: int
    turn: int = 0
    pick: int = 0
    card: int | None = None
    rows: tuple[int, ...] = ()
    places: tuple[Place, ...] = ()
    deadline: float | None = None
    requested: bool = False


@dataclass(frozen=True, slots=True)
class Decision:
    """What you must (or may) decide now.

    * ``kind`` :data:`COMMIT`: ``cards`` is your hand, ``committed`` your current
      commit (``None`` if none yet; committing again replaces it);
    * :data:`ROW`: ``card`` fits no row, choose one of ``rows`` (wire rows 0..3);
    * :data:`TIE`: ``card`` may go to any of ``places``;
    * :data:`DRAFT`: pick one of ``cards`` (the pool).
    """

    kind: str
    round: int
    turn: int = 0
    pick: int = 0
    cards: tuple[int, ...] = ()
    rows: tuple[int, ...] = ()
    places: tuple[Place, ...] = ()
    card: int | None = None
    committed: int | None = None
    deadline: float | None = None

    def answer(self, choice: int | Place) -> Message:
        """The message answering this decision with ``choice``.

        A card for :data:`COMMIT` and :data:`DRAFT`, a wire row (0..3) for
        :data:`ROW`, a :class:`~nimmt.protocol.Place` for :data:`TIE`. Raises
        ``ValueError`` if ``choice`` is not one of the options.
        """
        if self.kind == TIE:
            if not isinstance(choice, Place) or choice not in self.places:
                raise ValueError(f"{choice!r} is not one of the offered places")
            return ChooseTie(round=self.round, turn=self.turn, place=choice)
        if not isinstance(choice, int) or isinstance(choice, bool):
            raise ValueError(f"{choice!r} is not a card or row number")
        if self.kind == ROW:
            if choice not in self.rows:
                raise ValueError(f"row {choice + 1} may not be taken now")
            return ChooseRow(round=self.round, turn=self.turn, row=choice)
        if choice not in self.cards:
            raise ValueError(f"{choice} is not one of the cards you may play")
        if self.kind == COMMIT:
            return Commit(round=self.round, turn=self.turn, card=choice)
        return DraftPick(round=self.round, pick=self.pick, card=choice)
