"""docs/BOTS.md's examples of the SDK's helpers and decision types run, and give what
the page says."""

from __future__ import annotations

import doctest
from pathlib import Path

BOTS = Path(__file__).resolve().parent.parent / "docs" / "BOTS.md"


def test_the_sdk_examples_in_bots_md_are_true() -> None:
    result = doctest.testfile(str(BOTS), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted >= 15  # Phase, the helpers, the decisions, plays and result
