"""A hello's claim key and a join's entropy at the exact bounds docs/PROTOCOL.md gives
them: a key of 22 URL-safe characters (128 random bits) is the shortest a server takes,
and a join's entropy in the clear is 1 to 32 bytes (an empty one is a reveal's, never a
request's). Planted-bug survivors (issue 43, second sample: 20 and 22)."""

from __future__ import annotations

from typing import Any

import pytest

from nimmt import protocol as P
from nimmt.protocol import LocalProtocolError, RemoteProtocolError
from nimmt.protocol.base import decode_message


def hello(key: str) -> dict[str, Any]:
    return {"type": "hello", "id": 1, "protocol": 4, "name": "Ann", "kind": "human", "key": key}


def join(entropy: str) -> dict[str, Any]:
    return {"type": "join", "id": 2, "table_id": "t1", "entropy": entropy}


@pytest.mark.parametrize("length", [22, 128])
def test_a_claim_key_of_22_to_128_characters_is_taken(length: int) -> None:
    key = "k" * length
    assert P.Hello(protocol=4, name="Ann", kind="human", key=key).key == key
    assert decode_message(hello(key), P.Role.CLIENT).key == key  # type: ignore[attr-defined]


@pytest.mark.parametrize("length", [16, 21, 129])
def test_a_claim_key_shorter_than_22_or_longer_than_128_is_refused(length: int) -> None:
    key = "k" * length
    with pytest.raises(LocalProtocolError) as local:
        P.Hello(protocol=4, name="Ann", kind="human", key=key)
    assert (local.value.code, local.value.field) == ("out_of_range", "key")
    with pytest.raises(RemoteProtocolError) as remote:
        decode_message(hello(key), P.Role.CLIENT)
    assert (remote.value.code, remote.value.field) == ("out_of_range", "key")
    assert "22..128 chars" in remote.value.message


@pytest.mark.parametrize("entropy", ["00", "ab" * 32])
def test_a_join_s_entropy_of_1_to_32_bytes_is_taken(entropy: str) -> None:
    assert P.Join(table_id="t1", entropy=entropy).entropy == entropy
    assert decode_message(join(entropy), P.Role.CLIENT).entropy == entropy  # type: ignore[attr-defined]


@pytest.mark.parametrize("entropy", ["", "ab" * 33])
def test_a_join_s_empty_or_too_long_entropy_is_refused(entropy: str) -> None:
    with pytest.raises(LocalProtocolError) as local:
        P.Join(table_id="t1", entropy=entropy)
    assert (local.value.code, local.value.field) == ("out_of_range", "entropy")
    with pytest.raises(RemoteProtocolError) as remote:
        decode_message(join(entropy), P.Role.CLIENT)
    assert (remote.value.code, remote.value.field) == ("out_of_range", "entropy")
    assert "2..64 lowercase hex digits (1..32 bytes)" in remote.value.message
