"""The coach as a table option (issue 45, *while choosing*): ``options.coach`` on the
wire (protocol 4), its default by the table's kind, and the server's settings."""

from __future__ import annotations

from dataclasses import replace

import msgpack
import pytest

from nimmt import protocol as P
from nimmt.protocol import CLIENT, SERVER, Connection, RemoteProtocolError
from nimmt.protocol.examples import EXAMPLES
from nimmt.server.config import CoachAtRated, ConfigError, TableSettings, load_config_text


def test_the_coach_round_trips_and_absent_it_is_on_unless_the_table_is_rated() -> None:
    for coach in (True, False):
        wire = P.TableOptions(coach=coach).to_wire()
        assert wire["coach"] is coach
        back = P.TableOptions.from_map(wire)
        assert back.coach is coach and back.coached is coach
    absent = P.TableOptions.from_map({"seats": 3})
    assert absent.coach is None and absent.coached is True
    rated = P.TableOptions.from_map({"rated": True})
    assert rated.coach is None and rated.coached is False
    assert P.TableOptions.from_map({"rated": True, "coach": True}).coached is True  # as sent


def test_a_coach_that_is_not_a_bool_is_refused_naming_the_field() -> None:
    for bad in ("yes", 1, [True]):
        with pytest.raises(RemoteProtocolError) as e:
            P.decode_message({"type": "create_table", "options": {"coach": bad}}, CLIENT)
        assert (e.value.code, e.value.field) == ("wrong_type", "options.coach")
        assert e.value.message.startswith("expected bool")
    ok = P.decode_message({"type": "create_table", "options": {"coach": None}}, CLIENT)
    assert isinstance(ok, P.CreateTable) and ok.options.coach is None


def _handshake(version: int) -> tuple[Connection, Connection]:
    client, server = Connection(CLIENT), Connection(SERVER)
    server.receive_data(client.send(P.Hello(protocol=version, name="Ann", kind="bot")))
    assert isinstance(server.next_message(), P.Hello)
    client.receive_data(server.send(P.Welcome(protocol=version, server="nimmt", name="Ann",
                                              token="t" * 32, resumed=False,
                                              limits=EXAMPLES["welcome"].limits)))
    assert isinstance(client.next_message(), P.Welcome)
    return client, server


def test_only_protocol_4_hears_the_coach_and_older_clients_may_not_send_it() -> None:
    table = EXAMPLES["table_updated"].table
    coached = P.TableUpdated(table=replace(table, options=replace(table.options, coach=False)))
    for version in (1, 2, 3, 4):
        client, server = _handshake(version)
        client.receive_data(server.send(EXAMPLES["seated"]))
        assert isinstance(client.next_message(), P.Seated)
        data = server.send(coached)
        wire = msgpack.unpackb(data[4:])
        assert ("coach" in wire["table"]["options"]) is (version == 4), version
        client.receive_data(data)
        heard = client.next_message()
        assert isinstance(heard, P.TableUpdated)
        # an older client reads no coach: nil, which a client reads as "on unless rated"
        assert heard.table.options.coach == (False if version == 4 else None), version
    for version in (1, 2, 3):
        _, server = _handshake(version)
        body = msgpack.packb({"type": "create_table", "options": {"coach": False}})
        server.receive_data(len(body).to_bytes(4, "big") + body)
        with pytest.raises(RemoteProtocolError) as e:
            server.next_message()
        assert (e.value.code, e.value.field) == ("extra_field", "options.coach")


# ------------------------------------------------------------------ the server's settings
BASE = TableSettings()


def test_a_casual_table_has_the_coach_unless_its_host_or_the_server_turns_it_off() -> None:
    assert BASE.coach is True
    assert TableSettings.from_wire(P.TableOptions(), BASE).to_wire().coach is True
    assert TableSettings.from_wire(P.TableOptions(coach=False), BASE).to_wire().coach is False
    quiet = load_config_text("[table]\ncoach = false\n").table
    assert TableSettings.from_wire(P.TableOptions(), quiet).to_wire().coach is False
    assert TableSettings.from_wire(P.TableOptions(coach=True), quiet).to_wire().coach is True
    with pytest.raises(ConfigError, match="table.coach must be true or false"):
        load_config_text('[table]\ncoach = "on"\n')


def test_a_rated_table_asking_for_the_coach_is_refused_and_otherwise_has_none() -> None:
    with pytest.raises(CoachAtRated) as e:
        TableSettings.from_wire(P.TableOptions(rated=True, coach=True), BASE)
    assert "Leave coach out (or false) for a rated table" in str(e.value)
    for coach in (None, False):
        settings = TableSettings.from_wire(P.TableOptions(rated=True, coach=coach), BASE)
        assert (settings.coach, settings.coached, settings.to_wire().coach) == (False,) * 3
    # a server whose tables are rated by default: a table asked for without coach has none
    rated_base = load_config_text("[table]\nrated = true\n").table
    assert TableSettings.from_wire(P.TableOptions(), rated_base).to_wire().coach is False
    # settings kept before the coach existed (a rated table restored) show it off
    assert TableSettings(rated=True).to_wire().coach is False


def test_the_score_sheet_and_the_autopilot_s_turns_reach_only_version_4_connections() -> None:
    """Protocol 4's other fields (issue 44): a version 1, 2 or 3 client, written before
    them, never gets a key it does not know (it would refuse the frame: extra_field)."""
    table = EXAMPLES["seated"].table
    sheet = ((3, 0, 0, 1), (5, 1, 0, 0))
    seated = P.Seated(table=table, seat=0, round_penalties=sheet, autoplayed=(
        P.Autoplayed(kind="commit", round=2, turn=3, card=46),
        P.Autoplayed(kind="row", round=2, turn=4, card=7, row=1)))
    watching = P.Watching(table=table, round_penalties=sheet)
    for version in (1, 2, 3, 4):
        for message in (seated, watching):
            client, server = _handshake(version)
            data = server.send(message)
            wire = msgpack.unpackb(data[4:])
            newer = {"round_penalties", "autoplayed"} & set(wire)
            assert newer == (set() if version < 4 else
                             {"round_penalties", "autoplayed"} if message is seated
                             else {"round_penalties"}), (version, message.TYPE)
            client.receive_data(data)
            heard = client.next_message()
            assert heard.round_penalties == (sheet if version == 4 else ()), version
            if isinstance(heard, P.Seated):
                assert [(a.kind, a.turn, a.card, a.row) for a in heard.autoplayed] == (
                    [("commit", 3, 46, None), ("row", 4, 7, 1)] if version == 4 else [])
