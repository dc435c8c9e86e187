"""Issue 44, "Replays": a game record keeps its table's public facts (its name, whether
it was rated, its clock and time bank: docs/RECORD.md, "Table"), so that a replay from
a record file shows them as one from the database does; records written before
(tests/data/record_before_table_facts.json, written by the server before this
change) load, replay and verify exactly as before."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import trio

from nimmt import protocol as P
from nimmt.bots.sdk import verify_game
from nimmt.client.replay import ReplayPlayer, load_replay
from nimmt.client.tui import render
from nimmt.engine.records import (
    InvalidRecord,
    TableFacts,
    record_from_bytes,
    record_from_dict,
    record_from_json,
)
from nimmt.server import start_server
from nimmt.server.records.replay import main as replay_main
from nimmt.server.records.replay import spectator_messages
from nimmt.server.storage import AsyncStore, Store
from server_helpers import Player, ScriptClient, make_config, play_until_over
from test_client_watch import controller

OLD = Path(__file__).parent / "data" / "record_before_table_facts.json"
KEY = "annkey-" + "t" * 30  # a claimed name may play at a rated table
FRIDAY = P.TableOptions(seats=2, rounds=1, point_limit=None, step_delay=0, rated=True,
                        turn_time=30.0, choice_time=20.0, draft_time=15.0, time_bank=60.0)


def text_of(frags: Any) -> str:
    return "".join(t for _, t in frags)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = replay_main(argv)
    out, err = capsys.readouterr()
    return status, out, err


# ------------------------------------------------------------------ end to end
async def test_a_rated_timed_game_exported_to_a_file_replays_with_its_name_rated_and_clock(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "nimmt.db"
    store = await AsyncStore.open(str(db))
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, make_config(), store=store)
        ann = await ScriptClient.tcp(port, "Ann", key=KEY)
        seated = await ann.request(P.CreateTable(options=FRIDAY, name="Friday night"))
        assert isinstance(seated, P.Seated), seated
        assert isinstance(await ann.request(P.AddBot(strategy="easy")), P.TableUpdated)
        await ann.send(P.Start())
        await play_until_over(Player(ann, 3))
        await ann.aclose()
        await server.shutdown()
    await store.aclose()
    with Store.open(db, read_only=True) as kept:
        (game,) = kept.games()

    exported = tmp_path / "friday.json"
    assert run(["games", "--db", str(db), str(game.id), "--export", str(exported)],
               capsys)[0] == 0
    kept_table = json.loads(exported.read_text(encoding="utf-8"))["table"]
    assert kept_table == {"name": "Friday night", "rated": True, "turn_time": 30.0,
                          "choice_time": 20.0, "draft_time": 15.0, "time_bank": 60.0}

    # nimmt-client --replay FILE: the title names the table, says rated and the turn time
    player = ReplayPlayer(load_replay(str(exported)))
    c = controller(player.model)
    c.replay = player
    assert text_of(render.title_bar(c, 120)) == (" nimmt  replay of “Friday night” · rated · "
                                                 "1 round · 30 s a turn · round 1 · turn 1/10")
    options = player.model.options
    assert options is not None and not player.model.untimed
    assert (options.turn_time, options.choice_time, options.draft_time, options.time_bank) == (
        30.0, 20.0, 15.0, 60.0)
    # ... as --replay GAME_ID (the database's record) does
    by_id = ReplayPlayer(load_replay(str(game.id), str(db)))
    assert by_id.model.options == options
    assert by_id.model.table is not None and by_id.model.table.name == "Friday night, game 1"

    # nimmt-replay show FILE says it first; verify and the SDK check the deals as before
    status, out, _ = run(["show", str(exported)], capsys)
    assert status == 0
    assert out.splitlines()[:2] == [
        "Table “Friday night”: rated · 30 s a turn, 20 s a row or tie choice, "
        "15 s a draft pick · a time bank of 60 s",
        "Round 1"]
    status, out, _ = run(["verify", str(exported)], capsys)
    assert status == 0 and "verified" in out
    assert verify_game(exported.read_text(encoding="utf-8")) == 1


# ------------------------------------------------------------------ older records
def test_a_record_written_before_the_table_was_kept_reads_replays_and_verifies_as_before(
        capsys: pytest.CaptureFixture[str]) -> None:
    text = OLD.read_text(encoding="utf-8")
    record = record_from_bytes(OLD.read_bytes())
    assert record.table is None
    assert record.to_json() == text  # written out again: the same bytes, no "table"
    assert verify_game(text) == 1
    status, out, _ = run(["verify", str(OLD)], capsys)
    assert status == 0 and "verified" in out
    status, shown, _ = run(["show", str(OLD)], capsys)
    assert status == 0 and shown.splitlines()[:2] == ["Round 1",
                                                      "  Ann holds 6 15 16 25 42 51 52 69 88 96"]
    assert shown.splitlines()[-1] == ("Game over: Bot 1 wins. 1st Bot 1 (1 bullhead), "
                                      "2nd Bot 2 (6 bullheads), 3rd Ann (34 bullheads)")
    watching = spectator_messages(record, "replay", "record_before_table_facts")[0]
    assert isinstance(watching, P.Watching)
    o = watching.table.options
    assert (o.turn_time, o.choice_time, o.draft_time, o.time_bank, o.rated) == (
        P.MAX_DECISION_TIME, P.MAX_DECISION_TIME, P.MAX_DECISION_TIME, 0.0, False)
    player = ReplayPlayer(spectator_messages(record, "replay", "record_before_table_facts"))
    c = controller(player.model)
    c.replay = player
    assert text_of(render.title_bar(c, 120)) == (" nimmt  replay of “record_before_table_facts”"
                                                 " · 66 pts · 1 round · round 1 · turn 1/10")


def test_the_same_game_with_its_table_kept_replays_the_same_steps_and_hides_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(OLD.read_text(encoding="utf-8"))
    data["table"] = {"name": "Friday", "rated": True, "turn_time": 45}
    with_table = tmp_path / "with_table.json"
    with_table.write_text(json.dumps(data), encoding="utf-8")
    old, new = record_from_bytes(OLD.read_bytes()), record_from_bytes(with_table.read_bytes())
    assert new.table == TableFacts("Friday", True, 45.0)
    assert new.rounds == old.rounds and new.fair_deal == old.fair_deal
    _, old_lines, _ = run(["show", str(OLD)], capsys)
    status, new_lines, _ = run(["show", str(with_table)], capsys)
    assert status == 0
    assert new_lines.splitlines() == ["Table “Friday”: rated · 45 s a turn",
                                      *old_lines.splitlines()]
    assert run(["show", "--json", str(with_table)], capsys)[1] == run(
        ["show", "--json", str(OLD)], capsys)[1]  # the events only, as before
    assert run(["verify", str(with_table)], capsys)[0] == 0
    assert verify_game(with_table.read_text(encoding="utf-8")) == 1
    # a spectator (and a seat) of the replay sees what it saw before: only the table differs
    for seat in (None, 1):
        before = spectator_messages(old, seat=seat)
        after = spectator_messages(new, seat=seat)
        assert after[1:] == before[1:]
        first, was = after[0], before[0]
        assert isinstance(first, (P.Watching, P.Seated)) and isinstance(was, type(first))
        assert (first.table.options.turn_time, first.table.options.rated) == (45.0, True)
        assert (was.table.options.turn_time, was.table.options.rated) == (
            P.MAX_DECISION_TIME, False)
        hands = [m for m in after if isinstance(m, P.HandDealt)]
        assert len(hands) == (0 if seat is None else 1)


# ------------------------------------------------------------------ the field itself
def test_the_table_is_written_after_the_options_and_read_back_the_same() -> None:
    record = record_from_bytes(OLD.read_bytes())
    kept = dataclasses.replace(record, table=TableFacts("Friday", False, 30.0, 20.0, 15.0))
    data = kept.to_dict()
    assert list(data)[:5] == ["format", "version", "options", "table", "seats"]
    assert data["version"] == 1
    assert data["table"] == {"name": "Friday", "rated": False, "turn_time": 30.0,
                             "choice_time": 20.0, "draft_time": 15.0}  # no bank: not written
    assert record_from_json(kept.to_json()) == kept
    assert record_from_dict({**data, "table": {}}).table == TableFacts()


@pytest.mark.parametrize(("table", "message"), [
    ({"nmae": "x"}, "table: unknown field 'nmae' (table has the fields: name, rated, "
                    "turn_time, choice_time, draft_time, time_bank)"),
    ({"rated": "yes"}, "table.rated: rated must be true or false, not \"yes\""),
    ({"turn_time": 0}, "table.turn_time: turn_time must be more than 0, not 0"),
    ({"choice_time": "20"}, "table.choice_time: choice_time must be a number of seconds, "
                            "not \"20\""),
    ({"draft_time": True}, "table.draft_time: draft_time must be a number of seconds, not true"),
    ({"time_bank": -1}, "table.time_bank: time_bank must be at least 0, not -1"),
    ({"name": 7}, "table.name: the table's name must be a string, not 7"),
    ([], "table: table must be a JSON object, not []"),
])
def test_a_table_that_is_not_one_is_an_invalid_record(table: Any, message: str) -> None:
    data = json.loads(OLD.read_text(encoding="utf-8"))
    with pytest.raises(InvalidRecord) as caught:
        record_from_dict({**data, "table": table})
    assert str(caught.value) == message
    assert record_from_dict({**data, "table": {"time_bank": 0}}).table == TableFacts()
