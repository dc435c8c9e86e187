"""Codec speed of nimmt.protocol: frames encoded and decoded per second, one core.

    python benchmarks/protocol.py [--runs 7] [--seconds 0.3]

Each figure is the median of --runs timed runs of about --seconds each.
"Decode" means framing + msgpack unpack + full validation + building the
frozen message, as the server (or client) does it for every frame it reads.
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import statistics
import sys
import time
from collections.abc import Callable

import msgpack
import nimmt.protocol as P
from nimmt.protocol.examples import EXAMPLES, SNAPSHOT

Case = tuple[str, Callable[[int], None]]


def per_second(fn: Callable[[int], None], runs: int, seconds: float) -> float:
    """Median operations per second of ``fn(n)`` (which performs n operations)."""
    n = 1000
    while True:  # calibrate n so one run lasts about `seconds`
        t = time.perf_counter()
        fn(n)
        dt = time.perf_counter() - t
        if dt >= seconds / 4:
            break
        n *= 4
    n = max(1, int(n * seconds / dt))
    rates = []
    for _ in range(runs):
        t = time.perf_counter()
        fn(n)
        rates.append(n / (time.perf_counter() - t))
    return statistics.median(rates)


def server_in(state: P.ConnState) -> P.Connection:
    conn = P.Connection(P.SERVER)
    conn._set_state(state)
    return conn


def client_in(state: P.ConnState) -> P.Connection:
    conn = P.Connection(P.CLIENT)
    conn._set_state(state)
    return conn


def decode_one_per_chunk(msg: P.Message, role: P.Role) -> Callable[[int], None]:
    """A Connection fed one frame per receive_data call (one frame per socket read)."""
    state = P.ConnState.PLAYING
    frame = P.encode_frame(dataclasses.replace(msg, seq=1) if role is P.CLIENT else msg)
    if role is P.CLIENT:  # the server sends: a client connection decodes, checking seq

        def fn(n: int) -> None:
            conn = client_in(state)
            rd, nm = conn.receive_data, conn.next_message
            for _ in range(n):
                conn._last_seq = 0  # replay the same frame (seq 1) without a seq error
                rd(frame)
                nm()
    else:

        def fn(n: int) -> None:
            conn = server_in(state)
            rd, nm = conn.receive_data, conn.next_message
            for _ in range(n):
                rd(frame)
                nm()
    return fn


def decode_batched(msg: P.Message) -> Callable[[int], None]:
    """A Connection fed 100 frames per receive_data call."""
    chunk = P.encode_frame(msg) * 100

    def fn(n: int) -> None:
        conn = server_in(P.ConnState.PLAYING)
        rd, nm = conn.receive_data, conn.next_message
        for _ in range(max(1, n // 100)):
            rd(chunk)
            for _ in range(100):
                nm()
    return fn


def encode(msg: P.Message) -> Callable[[int], None]:
    """Connection(SERVER).send: validation already done at construction, seq stamped."""
    msg = dataclasses.replace(msg, seq=None, re=None) if P.SERVER in msg.SENDERS else msg

    def fn(n: int) -> None:
        conn = server_in(P.ConnState.PLAYING) if P.SERVER in msg.SENDERS else client_in(
            P.ConnState.PLAYING)
        send = conn.send
        for _ in range(n):
            send(msg)
    return fn


def build_and_encode(make: Callable[[], P.Message]) -> Callable[[int], None]:
    def fn(n: int) -> None:
        conn = server_in(P.ConnState.PLAYING)
        send = conn.send
        for _ in range(n):
            send(make())
    return fn


def plain_msgpack(msg: P.Message) -> tuple[Callable[[int], None], Callable[[int], None]]:
    wire = msg.to_wire()
    body = msgpack.packb(wire)

    def unpack(n: int) -> None:
        u = msgpack.unpackb
        for _ in range(n):
            u(body)

    def pack(n: int) -> None:
        p = msgpack.packb
        for _ in range(n):
            p(wire)
    return unpack, pack


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=0.3)
    args = ap.parse_args()

    commit = EXAMPLES["commit"]
    placed = EXAMPLES["placed"]
    snapshot = SNAPSHOT
    raw_unpack, raw_pack = plain_msgpack(commit)
    cases: list[Case] = [
        ("plain msgpack.unpackb of the commit map (reference)", raw_unpack),
        ("plain msgpack.packb of the commit map (reference)", raw_pack),
        ("decode commit, server side, 1 frame per receive_data", decode_one_per_chunk(
            commit, P.SERVER)),
        ("decode commit, server side, 100 frames per receive_data", decode_batched(commit)),
        ("decode placed, client side (seq checked)", decode_one_per_chunk(placed, P.CLIENT)),
        ("decode snapshot, client side", decode_one_per_chunk(snapshot, P.CLIENT)),
        ("encode placed (Connection.send)", encode(placed)),
        ("build + encode placed", build_and_encode(
            lambda: P.Placed(seat=1, card=44, row=2, end="right"))),
        ("encode snapshot (Connection.send)", encode(snapshot)),
        ("encode commit, client side (Connection.send)", encode(commit)),
    ]
    sizes = {"commit": len(P.encode_frame(commit)), "placed": len(P.encode_frame(placed)),
             "snapshot": len(P.encode_frame(snapshot))}
    print(f"python {platform.python_version()} ({platform.python_implementation()}), "
          f"msgpack {'.'.join(map(str, msgpack.version))}, {platform.machine()}")
    print(f"frame sizes (bytes, prefix included): {sizes}")
    print(f"median of {args.runs} runs of ~{args.seconds}s each\n")
    width = max(len(name) for name, _ in cases)
    print(f"{'case':<{width}}  {'frames/s':>12}  {'us/frame':>9}")
    for name, fn in cases:
        rate = per_second(fn, args.runs, args.seconds)
        print(f"{name:<{width}}  {rate:>12,.0f}  {1e6 / rate:>9.2f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
