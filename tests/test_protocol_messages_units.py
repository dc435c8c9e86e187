"""The protocol's messages and structs as a server or bot author meets them
(docs/PROTOCOL.md): the cross-field checks at their exact boundary (a seat equal to
the number of seats is no seat), what a table's options mean (``coached``), a field
of a later protocol version inside a nested map, and the generated sections of the
document. No trio, no hypothesis (``tools/mutate.py --plain``)."""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

import msgpack
import pytest

from nimmt import protocol as P
from nimmt.protocol import LocalProtocolError, RemoteProtocolError
from nimmt.protocol.catalogue import sections, update_document
from nimmt.protocol.examples import EXAMPLES, TABLE


def refused(build: Any) -> tuple[str, str, str | None]:
    with pytest.raises(LocalProtocolError) as caught:
        build()
    e = caught.value
    return e.code, e.message, e.field


def test_a_game_over_names_only_seats_of_the_game() -> None:
    ok = P.GameOver(totals=(3, 9), places=(1, 2), winners=(1,))
    assert ok.winners == (1,)
    assert refused(lambda: P.GameOver(totals=(3, 9), places=(1, 2), winners=(2,))) == (
        "out_of_range", "a winner is not a seat of the game", "winners")
    assert refused(lambda: P.GameOver(totals=(3, 9), places=(1, 2, 3), winners=(0,))) == (
        "out_of_range", "totals and places must have one entry per seat", "places")
    assert refused(lambda: P.GameOver(totals=(3, 9), places=(1, 2), winners=(0,),
                                      seed="ab" * 32, contributions=None)) == (
        "out_of_range", "seed and contributions come together", "contributions")
    assert refused(lambda: P.GameOver(totals=(3, 9), places=(1, 2), winners=(0,),
                                      seed="ab" * 32, contributions=("", "", ""))) == (
        "out_of_range", "contributions must have one entry per seat", "contributions")
    assert refused(lambda: P.GameOver(totals=(3, 9), places=(1, 2), winners=(0,),
                                      withheld=(2,))) == (
        "out_of_range", "a seat that withheld is not a seat of the game", "withheld")
    assert P.GameOver(totals=(3, 9), places=(1, 2), winners=(0,), withheld=(1,)).withheld == (1,)


def test_revealed_plays_and_scores_per_seat() -> None:
    assert P.Revealed(plays=((1, 5), (0, 9))).plays == ((1, 5), (0, 9))
    assert refused(lambda: P.Revealed(plays=((0, 9), (1, 5)))) == (
        "out_of_range", "plays must be sorted by distinct cards", "plays")
    assert refused(lambda: P.Revealed(plays=((0, 5), (1, 5)))) == (
        "out_of_range", "plays must be sorted by distinct cards", "plays")
    assert refused(lambda: P.RoundScored(round=1, penalties=(1, 2, 0), totals=(1, 2))) == (
        "out_of_range", "penalties and totals must have one entry per seat", "totals")


def test_a_deadline_warning_says_turn_0_only_for_a_draft_pick() -> None:
    def warn(kind: str, turn: int, pick: int) -> P.DeadlineWarning:
        return P.DeadlineWarning(kind=kind, round=1, turn=turn, pick=pick, deadline=5.0,
                                 remaining=2.0)

    assert warn("draft", 0, 1).pick == 1
    assert warn("commit", 10, 0).turn == 10
    assert refused(lambda: warn("draft", 1, 1)) == ("out_of_range", "a draft pick has turn 0", "turn")
    assert refused(lambda: warn("draft", 0, 0)) == (
        "out_of_range", "a draft pick has a pick number from 1", "pick")
    assert refused(lambda: warn("row", 0, 0)) == (
        "out_of_range", "a commit, row or tie choice has a turn from 1", "turn")
    assert refused(lambda: warn("tie", 3, 2)) == (
        "out_of_range", "pick is 0 unless kind is draft", "pick")


def test_a_snapshot_names_only_seats_of_its_table() -> None:
    snap = EXAMPLES["snapshot"]
    n = snap.table.options.seats
    assert P.Snapshot(**{**_fields(snap), "seat": n - 1}).seat == n - 1
    assert refused(lambda: P.Snapshot(**{**_fields(snap), "seat": n})) == (
        "out_of_range", "not a seat of the table", "seat")
    assert refused(lambda: P.Snapshot(**{**_fields(snap), "committed": (n,)})) == (
        "out_of_range", "a seat is not a seat of the table", "committed")
    assert refused(lambda: P.Snapshot(**{**_fields(snap), "revealed": ((n, 7),)})) == (
        "out_of_range", "a seat is not a seat of the table", "revealed")
    assert refused(lambda: P.Snapshot(**{**_fields(snap), "rows": ((1,), (2,))})) == (
        "out_of_range", "rows must hold 0 or 4 rows", "rows")
    assert P.Snapshot(**{**_fields(snap), "rows": (), "committed": (n - 1,)}).rows == ()


def _fields(msg: P.Message) -> dict[str, Any]:
    return {f.name: getattr(msg, f.name) for f in dataclasses.fields(msg)
            if f.name not in ("seq", "re", "id")}


def test_a_table_lists_one_entry_per_seat_and_its_options_need_an_end() -> None:
    assert refused(lambda: P.TableInfo(**{**_fields_of(TABLE), "seats": TABLE.seats[:-1]})) == (
        "out_of_range", "there must be one entry per seat", "seats")
    assert refused(lambda: P.TableOptions(point_limit=None, rounds=None)) == (
        "out_of_range", "point_limit and rounds cannot both be nil", "point_limit")
    assert P.TableOptions(point_limit=None, rounds=3).rounds == 3


def _fields_of(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def test_a_table_has_the_coach_when_the_host_says_so_or_when_casual() -> None:
    assert P.TableOptions().coached is True  # casual, nothing said: on
    assert P.TableOptions(rated=True).coached is False
    assert P.TableOptions(coach=False).coached is False
    assert P.TableOptions(coach=True).coached is True


def test_a_newer_field_inside_a_nested_map_is_refused_from_an_older_peer() -> None:
    server = P.Connection(P.SERVER)
    server.receive_data(_frame(P.Hello(protocol=2, name="Ann", kind="bot").to_wire()))
    server.next_message()
    server.send(EXAMPLES["welcome"])
    server.receive_data(_frame({"type": "create_table", "id": 5,
                                "options": {"seats": 3, "coach": True}}))
    with pytest.raises(RemoteProtocolError) as caught:
        server.next_message()
    e = caught.value
    assert (e.code, e.message, e.field, e.request, e.re) == (
        "extra_field", "unknown field 'options.coach' (protocol 2 has no such field)",
        "options.coach", "create_table", 5)
    # nil there means nothing, as at the top level
    server.receive_data(_frame({"type": "create_table", "id": 6,
                                "options": {"seats": 3, "coach": None}}))
    got = server.next_message()
    assert isinstance(got, P.CreateTable) and got.options.seats == 3
    # and a table told to that peer has no coach in its options
    sent = server.send(P.TableUpdated(table=TABLE))
    options = msgpack.unpackb(sent[4:])["table"]["options"]
    assert "coach" not in options and "rated" in options


def _frame(obj: object) -> bytes:
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


def test_the_generated_sections_are_written_between_their_marks_wherever_they_are() -> None:
    names = list(sections())
    marks = "".join(f"<!-- BEGIN GENERATED: {n} -->\nstale text\n<!-- END GENERATED: {n} -->\n"
                    for n in names)
    text = update_document(marks)
    assert text.startswith(f"<!-- BEGIN GENERATED: {names[0]} -->\n")
    for name, body in sections().items():
        assert (f"<!-- BEGIN GENERATED: {name} -->\n{body}<!-- END GENERATED: {name} -->"
                in text)
    assert "stale text" not in text
    with pytest.raises(ValueError) as caught:
        update_document(marks.replace(f"<!-- END GENERATED: {names[-1]} -->", ""))
    assert str(caught.value) == f"section {names[-1]!r} not found"


def test_the_reference_validator_and_encoder_agree_with_the_generated_ones() -> None:
    """``Struct._validate_slowly`` and ``Struct.to_wire`` are the plain versions the
    generated code is checked against (tests/test_protocol_hostile.py): they must
    normalise and encode exactly as the generated code does."""
    for tag, msg in EXAMPLES.items():
        fields = [f for f in dataclasses.fields(msg) if f.name not in ("seq", "re", "id")]
        raw = object.__new__(type(msg))
        for f in dataclasses.fields(msg):
            value = getattr(msg, f.name)
            object.__setattr__(raw, f.name, list(value) if type(value) is tuple else value)
        raw._validate_slowly()
        assert raw == msg, tag
        assert all(type(getattr(raw, f.name)) is type(getattr(msg, f.name)) for f in fields), tag
        wire = msg.to_wire(1) if P.SERVER in msg.SENDERS else msg.to_wire()
        assert P.base.Struct.to_wire(msg) == {f.name: wire[f.name] for f in fields
                                              if f.name in wire}, tag


def test_an_error_names_an_unprintable_or_overlong_field_by_its_quoted_start() -> None:
    long = "k" * 200
    reply = P.Error.from_exception(RemoteProtocolError("extra_field", "unknown field", long))
    assert reply.field == repr(long)[:100] and len(reply.field) == 100
    reply = P.Error.from_exception(RemoteProtocolError("extra_field", "unknown field", "a\tb"))
    assert reply.field == "'a\\tb'"
    reply = P.Error.from_exception(RemoteProtocolError("extra_field", "x", "k" * 100))
    assert reply.field == "k" * 100  # 100 printable characters are a path as they are


def test_the_default_frame_limit_is_64_kib_inclusive() -> None:
    assert P.DEFAULT_MAX_FRAME_SIZE == 65536
    server = P.Connection(P.SERVER)
    server.receive_data(struct.pack(">I", 65536))
    assert server.next_message() is P.NEED_DATA  # a frame of 64 KiB may come
    server = P.Connection(P.SERVER)
    server.receive_data(struct.pack(">I", 65537))
    with pytest.raises(RemoteProtocolError) as caught:
        server.next_message()
    assert (caught.value.code, caught.value.message, caught.value.fatal) == (
        "frame_too_large", "frame length 65537 exceeds the limit 65536", True)


def test_the_catalogue_command_prints_the_sections_or_updates_a_document(tmp_path, capsys) -> None:
    from nimmt.protocol.catalogue import main

    names = list(sections())
    doc = tmp_path / "PROTOCOL.md"
    doc.write_text("# Title\n" + "".join(
        f"<!-- BEGIN GENERATED: {n} -->\nstale\n<!-- END GENERATED: {n} -->\n" for n in names))
    main(["--update", str(doc)])
    assert capsys.readouterr().out == ""
    assert doc.read_text() == update_document(doc.read_text()) and "stale" not in doc.read_text()
    assert doc.read_text().startswith("# Title\n<!-- BEGIN GENERATED: ")
    main([])
    out = capsys.readouterr().out
    assert out.startswith(f"<!-- BEGIN GENERATED: {names[0]} -->\n")
    assert out.count("<!-- END GENERATED: ") == len(names)


def test_a_table_with_an_empty_seat_told_to_a_version_1_client() -> None:
    seats = (TABLE.seats[0], None, TABLE.seats[2], TABLE.seats[3])
    table = dataclasses.replace(TABLE, seats=seats)
    server = P.Connection(P.SERVER)
    server.receive_data(_frame(P.Hello(protocol=1, name="Ann", kind="bot").to_wire()))
    server.next_message()
    server.send(EXAMPLES["welcome"])
    sent = msgpack.unpackb(server.send(P.TableList(tables=(table,)))[4:])
    told = sent["tables"][0]["seats"]
    assert told[1] is None
    assert [sorted(s) for s in told if s is not None] == [
        ["connected", "kind", "name", "penalties", "strategy", "total"]] * 3
    assert "commitment" not in sent["tables"][0]
