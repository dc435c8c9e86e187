#!/usr/bin/env python3
"""A complete nimmt bot: standard library and msgpack only. See docs/PROTOCOL.md.

Usage: minimal_bot.py HOST PORT [--join TABLE_ID | --bots N]  (default: a new table, 3 bots)
Plays its lowest card, the cheapest row, the first tied place, the lowest draft card.
"""
import socket
import struct
import sys

import msgpack


def bullheads(card):
    return 7 if card == 55 else 5 if card % 11 == 0 else 3 if card % 10 == 0 else 2 if card % 5 == 0 else 1


def send(sock, **msg):
    body = msgpack.packb(msg)
    sock.sendall(struct.pack(">I", len(body)) + body)


def play(sock, join=None, bots=3, name="minibot"):
    """Play one game on a connected socket; return the game_over (or goodbye) message."""
    send(sock, type="hello", protocol=1, name=name, kind="bot")
    stream, seat, hand, rows = sock.makefile("rb"), None, [], [[], [], [], []]
    while True:
        header = stream.read(4)
        if len(header) < 4:
            raise ConnectionError("the server closed the connection")
        m = msgpack.unpackb(stream.read(struct.unpack(">I", header)[0]))
        t = m["type"]
        if t == "welcome" and join:
            send(sock, type="join", table_id=join)
        elif t == "welcome":
            send(sock, type="create_table", options={"seats": bots + 1, "step_delay": 0})
        elif t == "seated":
            seat = m["seat"]
            if not join:
                for _ in range(bots):
                    send(sock, type="add_bot")
                send(sock, type="start")
        elif t == "ping":
            send(sock, type="pong", nonce=m["nonce"])
        elif t == "hand_dealt":
            hand = sorted(m["cards"])
        elif t == "rows_dealt":
            rows = [list(r) for r in m["rows"]]
        elif t == "turn_started":
            send(sock, type="commit", round=m["round"], turn=m["turn"], card=min(hand))
        elif t == "revealed":
            hand = [c for c in hand if [seat, c] not in m["plays"]]
        elif t == "row_taken":
            rows[m["row"]] = []
        elif t == "placed":
            row = rows[m["row"]]
            row.insert(0 if m["end"] == "left" else len(row), m["card"])
        elif t == "row_choice_request":
            row = min(m["rows"], key=lambda r: (sum(map(bullheads, rows[r])), r))
            send(sock, type="choose_row", round=m["round"], turn=m["turn"], row=row)
        elif t == "tie_choice_request":
            send(sock, type="choose_tie", round=m["round"], turn=m["turn"], place=m["places"][0])
        elif t == "draft_pick_request":
            send(sock, type="draft_pick", round=m["round"], pick=m["pick"], card=min(m["pool"]))
        elif t == "error":
            print("error:", m["code"], m["message"], file=sys.stderr)
        elif t == "game_over":
            send(sock, type="goodbye", reason="quit")
            return m
        elif t == "goodbye":
            return m


if __name__ == "__main__":
    host, port, opts = sys.argv[1], int(sys.argv[2]), sys.argv[3:] + ["", ""]
    join = opts[1] if opts[0] == "--join" else None
    with socket.create_connection((host, port)) as s:
        print(play(s, join, int(opts[1]) if opts[0] == "--bots" else 3))
