"""The client's model tests again, every server message first sent through the wire
(encoded as the server frames it, decoded as the client reads it): strings decoded
from a frame are new objects, never the interned literals a test writes, so a model
that compares a status, a phase or a kind with ``is`` instead of ``==`` works on the
tests' messages and fails on a real server's (issue 43: the model's before-run
survivors were many such comparisons)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import test_client_details as details
import test_client_model as model
import test_client_model_units as units

from nimmt import protocol as P
from nimmt.client import TableModel
from nimmt.protocol.errors import RemoteProtocolError


def through_the_wire(msg: Any) -> Any:
    """``msg`` as the client would decode it off a frame (not a server message: as it is)."""
    if not isinstance(msg, P.Message):
        return msg
    body = P.unpack_body(P.encode_frame(msg)[P.HEADER_SIZE:])
    try:
        return P.decode_message(body, P.SERVER)
    except RemoteProtocolError:
        return P.decode_message({**body, "seq": 1}, P.SERVER)


def test_a_decoded_message_s_strings_are_not_the_literals_a_test_writes() -> None:
    from test_client_support import table
    got = through_the_wire(P.TableUpdated(table=table(["Ann", "Bob"], status="playing")))
    assert got.table.status == "playing" and got.table.status is not "playing"  # noqa: F632


@pytest.fixture(autouse=True)
def wire(monkeypatch: pytest.MonkeyPatch) -> None:
    apply = TableModel.apply

    def apply_decoded(self: TableModel, msg: Any) -> Any:
        return apply(self, through_the_wire(msg))
    monkeypatch.setattr(TableModel, "apply", apply_decoded)


MODEL = [name for name in dir(model) if name.startswith("test_")]
DETAILS = [name for name in dir(details) if name.startswith("test_")]
UNITS = [name for name in dir(units) if name.startswith("test_")
         and not inspect.signature(getattr(units, name)).parameters]


@pytest.mark.parametrize("name", MODEL)
def test_the_model_s_tests_hold_with_decoded_messages(name: str) -> None:
    getattr(model, name)()


@pytest.mark.parametrize("name", DETAILS)
def test_the_client_details_hold_with_decoded_messages(name: str) -> None:
    getattr(details, name)()


@pytest.mark.parametrize("name", UNITS)
def test_the_model_units_hold_with_decoded_messages(name: str) -> None:
    getattr(units, name)()
