"""docs/PROTOCOL.md stays in step with nimmt.protocol."""

from __future__ import annotations

import re
from pathlib import Path

import msgpack
import nimmt.protocol as P
from nimmt.protocol import catalogue
from nimmt.protocol.examples import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "PROTOCOL.md"
BOT = ROOT / "docs" / "examples" / "minimal_bot.py"


def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_generated_sections_are_up_to_date() -> None:
    text = doc()
    fresh = catalogue.update_document(text, BOT.read_text(encoding="utf-8"))
    assert text == fresh, ("docs/PROTOCOL.md is stale: run python -m nimmt.protocol.catalogue "
                           "--update docs/PROTOCOL.md docs/examples/minimal_bot.py")


def test_catalogue_covers_every_message_type_once() -> None:
    ordered = [t for tags in catalogue.ORDER.values() for t in tags]
    assert sorted(ordered) == sorted(P.REGISTRY)
    text = doc()
    for tag in P.REGISTRY:
        assert text.count(f"#### `{tag}`\n") == 1, tag


def test_every_error_code_and_goodbye_reason_is_documented() -> None:
    text = doc()
    for code in P.ERROR_CODES:
        assert f"| `{code}` |" in text, code
    for reason in P.GOODBYE_REASONS:
        assert f"`{reason}`" in text, reason


def test_every_state_is_documented() -> None:
    text = doc()
    for st in P.ConnState:
        assert f"`{st.value}`" in text


def test_hex_frames_in_the_doc_decode_to_the_messages_shown() -> None:
    text = doc()
    blocks = re.findall(r"^(C → S|S → C) `(.*?)`.*?\n\n```\n([0-9a-f \n]+?)\n```", text,
                        flags=re.M)
    assert len(blocks) >= 5
    for direction, _shown, hexes in blocks:
        data = bytes.fromhex(hexes.replace("\n", " "))
        assert int.from_bytes(data[:4], "big") == len(data) - 4
        wire = msgpack.unpackb(data[4:])
        sender = P.CLIENT if direction == "C → S" else P.SERVER
        dec = P.FrameDecoder(sender)
        dec.receive_data(data)
        msg = dec.next_message()
        assert isinstance(msg, P.Message) and msg.TYPE == wire["type"]


def test_examples_in_the_catalogue_are_the_examples_module() -> None:
    text = doc()
    for tag, msg in EXAMPLES.items():
        assert f"Example: `{catalogue._json(msg.to_wire())}`" in text, tag


def test_minimal_bot_listing_is_the_file() -> None:
    src = BOT.read_text(encoding="utf-8")
    assert "```python\n" + src.rstrip("\n") + "\n```" in doc()


def test_every_generated_description_is_whole_sentences() -> None:
    """A docstring's first paragraph, however many lines it takes, is the description:
    its first line alone cut `queued`, `pause`, `resume` and `clock_paused` mid-sentence."""
    from nimmt.protocol.base import REGISTRY

    text = catalogue.render_messages() + catalogue.render_structs()
    described = [line for line in text.splitlines() if line.startswith("*") and " — " in line]
    assert len(described) == len(REGISTRY)
    for line in described:
        words = line.split(" — ", 1)[1].removesuffix(" **Version 2 and later.**") \
            .removesuffix(" **Version 3 and later.**")
        assert words.endswith((".", ")")), line
    assert ("You wait in the queue: the answer to queue (re set), and again (re nil) when "
            "your position, waiting or server_full changed, at most once a second.") in text
