"""Key streams for the B-tree lessons: UUIDv4, UUIDv7, ObjectId and integers, made lazily.

Every stream yields the key's bytes in the order an application would make them,
so memory does not grow with the number of keys. Bytes compare the way each
engine orders these keys (BinData and ``uuid`` by bytes, integers big-endian).
"""

from __future__ import annotations

import itertools
import os
import secrets
import struct
import time
from collections.abc import Iterator

from labkit.errors import BadInput
from labkit.i18n import N_, Message

KINDS = ("uuid4", "uuid7", "objectid", "int")
EXTRA_KINDS = ("uuid7-naive",)
KEY_BYTES = {"uuid4": 16, "uuid7": 16, "uuid7-naive": 16, "objectid": 12, "int": 8}


def parse_kinds(text: str) -> list[str]:
    """Parse ``uuid4,uuid7,...``; refuse unknown kinds with the list of known ones."""
    kinds = [part.strip() for part in text.split(",") if part.strip()]
    known = KINDS + EXTRA_KINDS
    unknown = [k for k in kinds if k not in known]
    if unknown or not kinds:
        raise BadInput(Message(N_("unknown key kind {kind}; choose from {known}"),
                                       kind=repr(unknown[0] if unknown else text),
                                       known=", ".join(known)))
    return kinds


def _uuid4() -> Iterator[bytes]:
    urandom = os.urandom
    while True:
        raw = bytearray(urandom(16))
        raw[6] = (raw[6] & 0x0F) | 0x40
        raw[8] = (raw[8] & 0x3F) | 0x80
        yield bytes(raw)


def _uuid7() -> Iterator[bytes]:
    import uuid_utils

    make = uuid_utils.uuid7
    while True:  # not iter(make, sentinel): comparing each UUID with a sentinel is slow
        yield make().bytes


def _uuid7_naive() -> Iterator[bytes]:
    """UUIDv7 with every bit after the timestamp random: unordered within a millisecond."""
    while True:
        ms = time.time_ns() // 1_000_000
        rand = secrets.randbits(74)
        value = (ms << 80) | (0x7 << 76) | ((rand >> 62) << 64) | (0b10 << 62) | (
            rand & ((1 << 62) - 1))
        yield value.to_bytes(16, "big")


def _objectid() -> Iterator[bytes]:
    from bson import ObjectId

    while True:
        yield ObjectId().binary


def _int() -> Iterator[bytes]:
    return map(struct.Struct(">q").pack, itertools.count(1))


_MAKERS = {"uuid4": _uuid4, "uuid7": _uuid7, "uuid7-naive": _uuid7_naive,
           "objectid": _objectid, "int": _int}


def stream(kind: str, n: int) -> Iterator[bytes]:
    """Yield ``n`` keys of ``kind`` as bytes, generated one at a time."""
    if kind not in _MAKERS:
        parse_kinds(kind)
    if n < 1:
        raise BadInput(Message(N_("the number of keys must be at least 1, not {n}"),
                                       n=repr(n)))
    return itertools.islice(_MAKERS[kind](), n)


def batches(kind: str, n: int, size: int = 10_000) -> Iterator[list[bytes]]:
    """Yield the keys of ``stream(kind, n)`` in lists of at most ``size``."""
    keys = stream(kind, n)
    while batch := list(itertools.islice(keys, size)):
        yield batch


def rate(kind: str, n: int = 200_000) -> float:
    """Keys of ``kind`` generated per second (a benchmark, not a test)."""
    start = time.perf_counter()
    for _ in stream(kind, n):
        pass
    return n / (time.perf_counter() - start)
