"""benchmarks/tail_match.py: which of the slowest reveals came while the writes waited."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import load_benchmark

tail_match = load_benchmark("tail_match")


def test_the_slowest_reveals_are_matched_with_the_waits_they_overlapped(tmp_path: Path) -> None:
    # 200 reveals of 1 ms at 10.000, 10.010, ...; two slow ones: 9 ms ending at 20.0
    # (a fold from 19.995 to 19.998 in it) and 8 ms ending at 30.0 (nothing in it)
    reveals = tmp_path / "reveals.txt"
    lines = [f"{10 + n / 100} 0.001" for n in range(198)] + ["20.0 0.009", "30.0 0.008"]
    reveals.write_text("\n".join(lines) + "\n", encoding="utf-8")
    waits = tmp_path / "probe.waits"
    waits.write_text("19.995 19.998 fold\n25.0 25.1 checkpoint\n", encoding="utf-8")
    read = tail_match.read_reveals(str(reveals))
    assert read[-1] == (20.0, 0.009)  # slowest last
    count, by_kind, none = tail_match.slowest_overlapping(read, tail_match.read_waits(str(waits)))
    assert (count, dict(by_kind), none) == (2, {"fold": 1}, 1)
