"""A bot in Python: one decide(view) function (docs/BOTS.md, "Python: the SDK").

Measure it against the built-in strategies, in process (docs/ARENA.md):

    nimmt-arena --seats "py:docs/examples/decide.py:decide,search:ms=20,random,random" --rounds 400

or play it on a server:

    python docs/examples/decide.py localhost
"""

import sys

from nimmt.bots.sdk import Phase, cheapest_row, places_for, play, row_bullheads


def decide(view):
    if view.phase is Phase.ROW_CHOICE:
        return cheapest_row(view.rows)  # a row to take, 0..3
    if view.phase is Phase.TIE_CHOICE:
        return view.legal[0]  # one of the tied places
    if view.phase is Phase.DRAFT:
        return min(view.draft_pool)  # a card to pick

    def risk(card):  # a card that would be a row's sixth, or fits nowhere, costs that row
        places = places_for(view.rows, card, view.options.professional)
        if not places:
            return min(row_bullheads(row) for row in view.rows)
        row = view.rows[places[0].row]
        return row_bullheads(row) if len(row) == 5 else 0

    return min(view.hand, key=lambda card: (risk(card), -card))


if __name__ == "__main__":
    address = sys.argv[1] if len(sys.argv) > 1 else "localhost"
    print(play(decide, address, name="decide.py", create=True, add_bots=3))
