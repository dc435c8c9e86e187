"""Protocol exceptions and the stable error codes.

Two exception types, both ``ValueError`` subclasses:

* :class:`LocalProtocolError`: *we* tried to build or send something invalid
  (a message with a field out of range, a message the current state forbids).
  It is a bug in the calling code.
* :class:`RemoteProtocolError`: the *peer* sent something invalid.  It carries a
  stable ``code`` (one of the strings below), the ``field`` at fault (a dotted
  path such as ``"options.turn_time"`` or ``"places[1].end"``, or ``None``),
  ``fatal`` (the byte stream can no longer be trusted: close the connection),
  and, when they could be read, the ``request`` type and the ``re`` (request
  ``id``) of the message that caused it, so that an ``error`` reply can name it.

Any other exception escaping the decoder is a bug in this package.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ProtocolError",
    "LocalProtocolError",
    "RemoteProtocolError",
    "ErrorCode",
    "PROTOCOL_ERROR_CODES",
    "APPLICATION_ERROR_CODES",
    "ERROR_CODES",
    "GOODBYE_REASONS",
]


class ErrorCode:
    """Namespace of the stable error-code strings (plain ``str`` constants)."""

    # --- protocol level: raised by this package -------------------------------
    FRAME_TOO_LARGE: Final = "frame_too_large"
    TRUNCATED: Final = "truncated"
    BAD_MSGPACK: Final = "bad_msgpack"
    NOT_A_MAP: Final = "not_a_map"
    UNKNOWN_TYPE: Final = "unknown_type"
    MISSING_FIELD: Final = "missing_field"
    EXTRA_FIELD: Final = "extra_field"
    WRONG_TYPE: Final = "wrong_type"
    OUT_OF_RANGE: Final = "out_of_range"
    UNEXPECTED_MESSAGE: Final = "unexpected_message"
    UNSUPPORTED_VERSION: Final = "unsupported_version"
    BAD_SEQUENCE: Final = "bad_sequence"
    # --- application level: raised by the server ------------------------------
    BAD_TOKEN: Final = "bad_token"
    NAME_CLAIMED: Final = "name_claimed"
    TIMEOUT: Final = "timeout"
    RATE_LIMITED: Final = "rate_limited"
    SERVER_FULL: Final = "server_full"
    NOT_ALLOWED: Final = "not_allowed"
    NO_SUCH_TABLE: Final = "no_such_table"
    TABLE_FULL: Final = "table_full"
    SEAT_TAKEN: Final = "seat_taken"
    NO_SUCH_SEAT: Final = "no_such_seat"
    NOT_HOST: Final = "not_host"
    NOT_ENOUGH_PLAYERS: Final = "not_enough_players"
    ALREADY_STARTED: Final = "already_started"
    UNKNOWN_STRATEGY: Final = "unknown_strategy"
    NOT_YOUR_TURN: Final = "not_your_turn"
    STALE_TURN: Final = "stale_turn"
    ILLEGAL_CARD: Final = "illegal_card"
    ILLEGAL_CHOICE: Final = "illegal_choice"
    REVEAL_MISMATCH: Final = "reveal_mismatch"
    INTERNAL_ERROR: Final = "internal_error"


PROTOCOL_ERROR_CODES: Final[frozenset[str]] = frozenset(
    {
        ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.TRUNCATED,
        ErrorCode.BAD_MSGPACK,
        ErrorCode.NOT_A_MAP,
        ErrorCode.UNKNOWN_TYPE,
        ErrorCode.MISSING_FIELD,
        ErrorCode.EXTRA_FIELD,
        ErrorCode.WRONG_TYPE,
        ErrorCode.OUT_OF_RANGE,
        ErrorCode.UNEXPECTED_MESSAGE,
        ErrorCode.UNSUPPORTED_VERSION,
        ErrorCode.BAD_SEQUENCE,
    }
)

APPLICATION_ERROR_CODES: Final[frozenset[str]] = frozenset(
    {
        ErrorCode.BAD_TOKEN,
        ErrorCode.NAME_CLAIMED,
        ErrorCode.TIMEOUT,
        ErrorCode.RATE_LIMITED,
        ErrorCode.SERVER_FULL,
        ErrorCode.NOT_ALLOWED,
        ErrorCode.NO_SUCH_TABLE,
        ErrorCode.TABLE_FULL,
        ErrorCode.SEAT_TAKEN,
        ErrorCode.NO_SUCH_SEAT,
        ErrorCode.NOT_HOST,
        ErrorCode.NOT_ENOUGH_PLAYERS,
        ErrorCode.ALREADY_STARTED,
        ErrorCode.UNKNOWN_STRATEGY,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.STALE_TURN,
        ErrorCode.ILLEGAL_CARD,
        ErrorCode.ILLEGAL_CHOICE,
        ErrorCode.REVEAL_MISMATCH,
        ErrorCode.INTERNAL_ERROR,
    }
)

#: Every code documented in docs/PROTOCOL.md.
ERROR_CODES: Final[frozenset[str]] = PROTOCOL_ERROR_CODES | APPLICATION_ERROR_CODES

#: The reasons a ``goodbye`` documents (any error code may also be a reason).
GOODBYE_REASONS: Final[frozenset[str]] = frozenset(
    {"quit", "replaced", "server_shutdown", "protocol_error", "timeout", "kicked"}
)


class ProtocolError(ValueError):
    """Base class: a stable ``code``, a human ``message`` and the ``field`` at fault."""

    code: str
    message: str
    field: str | None
    fatal: bool

    def __init__(
        self, code: str, message: str, field: str | None = None, *, fatal: bool = False
    ) -> None:
        super().__init__(code, message, field)
        self.code = code
        self.message = message
        self.field = field
        self.fatal = fatal

    def _prefix(self, name: str) -> None:
        """Put ``name`` in front of the field path (used while unwinding nested checks)."""
        if self.field is None:
            self.field = name
        elif self.field.startswith("["):
            self.field = name + self.field
        else:
            self.field = f"{name}.{self.field}"

    def __str__(self) -> str:
        where = f" (field {self.field!r})" if self.field else ""
        return f"{self.code}: {self.message}{where}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.code!r}, {self.message!r}, {self.field!r}, "
            f"fatal={self.fatal!r})"
        )


class LocalProtocolError(ProtocolError):
    """We built or tried to send something the protocol forbids (a bug on our side)."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol forbids.

    ``request`` and ``re`` are the offending message's ``type`` and ``id`` when
    they could be read (so the server can answer with an ``error`` naming them).
    """

    request: str | None
    re: int | None

    def __init__(
        self,
        code: str,
        message: str,
        field: str | None = None,
        *,
        fatal: bool = False,
        request: str | None = None,
        re: int | None = None,
    ) -> None:
        super().__init__(code, message, field, fatal=fatal)
        self.request = request
        self.re = re

    @classmethod
    def from_local(cls, exc: LocalProtocolError) -> RemoteProtocolError:
        return cls(exc.code, exc.message, exc.field, fatal=exc.fatal)
