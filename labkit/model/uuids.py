"""UUID anatomy: version, variant, and the fields of a UUIDv7 (RFC 9562)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from labkit.errors import BadInput
from labkit.i18n import N_, Message
from labkit.model.objectid import iso_z


def parse(value: object) -> uuid.UUID:
    """Parse a UUID from text (hyphens, braces and ``urn:uuid:`` allowed) or a UUID object."""
    if isinstance(value, uuid.UUID):
        return value
    if hasattr(value, "bytes") and len(getattr(value, "bytes", b"")) == 16:
        return uuid.UUID(bytes=value.bytes)
    text = str(value).strip()
    if text.startswith("{") != text.endswith("}"):
        raise BadInput(Message(N_("{value} is not a UUID: its braces do not pair"),
                                       value=repr(value)))
    try:
        return uuid.UUID(text)
    except ValueError as exc:
        raise BadInput(Message(N_("{value} is not a UUID: expected 32 hex digits"),
                                       value=repr(value))) from exc


def variant_bits(u: uuid.UUID) -> str:
    """The variant field as bits: ``10`` for RFC 9562 UUIDs."""
    top = u.bytes[8]
    if top & 0x80 == 0:
        return "0"
    if top & 0x40 == 0:
        return "10"
    if top & 0x20 == 0:
        return "110"
    return "111"


_VARIANT_NAMES = {"0": "ncs", "10": "rfc9562", "110": "microsoft", "111": "future"}


def v7_fields(u: uuid.UUID) -> dict[str, Any]:
    """The UUIDv7 fields: 48-bit ``unix_ts_ms``, 12-bit ``rand_a``, 62-bit ``rand_b``."""
    value = u.int
    unix_ts_ms = value >> 80
    return {
        "unix_ts_ms": unix_ts_ms,
        "datetime": ms_to_text(unix_ts_ms),
        "rand_a": (value >> 64) & 0xFFF,
        "rand_b": value & ((1 << 62) - 1),
    }


_LAST_MS = int(dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=dt.UTC).timestamp() * 1000)


def ms_to_text(unix_ts_ms: int) -> str:
    """Milliseconds since 1970 (a UUIDv7's time) as ISO 8601 in UTC; 48 bits reach past year
    9999, which a calendar date cannot."""
    if unix_ts_ms > _LAST_MS:
        return f"after 9999-12-31T23:59:59.999Z (about year {1970 + unix_ts_ms // 31_556_952_000})"
    return iso_z(dt.datetime.fromtimestamp(unix_ts_ms / 1000, tz=dt.UTC))


def explain(value: object) -> dict[str, Any]:
    """Return the UUID, its version, its variant and, for version 7, its fields."""
    u = parse(value)
    bits = variant_bits(u)
    info = {
        "uuid": str(u),
        "version": (u.int >> 76) & 0xF,
        "variant": _VARIANT_NAMES[bits],
        "variant_bits": bits,
    }
    if info["version"] == 7 and bits == "10":
        info.update(v7_fields(u))
    return info


def uuid7() -> uuid.UUID:
    """A UUIDv7 from ``uuid_utils``, which keeps IDs monotonic within a millisecond."""
    import uuid_utils

    return uuid.UUID(bytes=uuid_utils.uuid7().bytes)


def uuid7_at(unix_ns: int) -> uuid.UUID:
    """A UUIDv7 stamped with a chosen time in nanoseconds since the epoch."""
    import uuid_utils

    return uuid.UUID(bytes=uuid_utils.uuid7(nanoseconds=unix_ns).bytes)
