"""ObjectId anatomy: split, build, decode, and a generator that follows the documented layout.

An ObjectId is 12 bytes: a 4-byte big-endian count of seconds since the Unix
epoch, a 5-byte random value chosen once per process, and a 3-byte big-endian
counter that starts at a random value. The generator here wraps the counter
after 0xffffff and the timestamp after 0xffffffff, as the layout implies.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from labkit.errors import BadInput
from labkit.i18n import N_, Message

MAX_TIMESTAMP = 2**32 - 1
MAX_RANDOM = 2**40 - 1
MAX_COUNTER = 2**24 - 1
MAX_BATCH = 100
_HEX24 = re.compile(r"^[0-9a-fA-F]{24}$")
_HEX10 = re.compile(r"^[0-9a-fA-F]{10}$")


@dataclass(frozen=True)
class Parts:
    """The three fields of an ObjectId."""

    timestamp: int
    random: int
    counter: int

    @property
    def hex(self) -> str:
        """The 24 lowercase hex characters of the ObjectId these parts make."""
        return build(self.timestamp, self.random, self.counter)

    @property
    def datetime(self) -> dt.datetime:
        """The creation time encoded in the timestamp field (UTC, whole seconds)."""
        return dt.datetime.fromtimestamp(self.timestamp, tz=dt.UTC)

    def to_dict(self) -> dict[str, Any]:
        """The fields as ``labkit objectid explain --json`` prints them."""
        return {
            "hex": self.hex,
            "timestamp": self.timestamp,
            "datetime": iso_z(self.datetime),
            "random": f"{self.random:010x}",
            "counter": self.counter,
        }


def iso_z(moment: dt.datetime) -> str:
    """Format a UTC datetime as ISO 8601 with a ``Z`` suffix, milliseconds only if non-zero."""
    moment = moment.astimezone(dt.UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond // 1000:03d}"
    return text + "Z"


def _check_range(name: str, value: int, top: int) -> int:
    """``value``, an integer from 0 to ``top``; else BadInput naming it by ``name`` (marked
    with ``N_``, shown in the learner's language)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(Message(N_("{name} must be an integer, not {value}"),
                                       name=Message(name), value=repr(value)))
    if not 0 <= value <= top:
        raise BadInput(Message(N_("{name} {value:d} is outside 0..{top:,}"),
                                       name=Message(name), value=value, top=top))
    return value


def split(value: object) -> Parts:
    """Split an ObjectId (24 hex characters, 12 bytes, or a ``bson.ObjectId``) into its parts."""
    raw = _as_bytes(value)
    return Parts(
        timestamp=int.from_bytes(raw[0:4], "big"),
        random=int.from_bytes(raw[4:9], "big"),
        counter=int.from_bytes(raw[9:12], "big"),
    )


def _as_bytes(value: object) -> bytes:
    if isinstance(value, str):
        value = value.strip()  # a pasted ID often carries a newline
        if not _HEX24.match(value):
            raise BadInput(Message(N_("{value} is not an ObjectId: expected 24 hex "
                                              "characters"), value=repr(value)))
        return bytes.fromhex(value)
    if isinstance(value, bytes | bytearray):
        if len(value) != 12:
            raise BadInput(Message(N_("an ObjectId is 12 bytes, not {count:,}"),
                                           count=len(value)))
        return bytes(value)
    binary = getattr(value, "binary", None)
    if isinstance(binary, bytes) and len(binary) == 12:
        return binary
    raise BadInput(Message(N_("{value} is not an ObjectId"), value=repr(value)))


def build(timestamp: int, random: int, counter: int) -> str:
    """Build the hex of an ObjectId from its three fields, each checked against its width."""
    _check_range(N_("timestamp"), timestamp, MAX_TIMESTAMP)
    _check_range(N_("random value"), random, MAX_RANDOM)
    _check_range(N_("counter"), counter, MAX_COUNTER)
    return f"{timestamp:08x}{random:010x}{counter:06x}"


def explain(value: object) -> dict[str, Any]:
    """Return hex, timestamp, datetime (ISO 8601, ``Z``), random (10 hex) and counter."""
    return split(value).to_dict()


def lower_bound(seconds: int) -> str:
    """The smallest ObjectId of a second: the timestamp followed by zeros (``from_datetime``)."""
    return build(seconds, 0, 0)


def parse_random(text: str) -> int:
    """Parse a 5-byte random value given as 10 hex characters."""
    if not _HEX10.match(text):
        raise BadInput(Message(N_("random value {text} must be 10 hex characters"),
                                       text=repr(text)))
    return int(text, 16)


def parse_time(text: str) -> int:
    """Parse seconds since the epoch, or an ISO 8601 time (naive means UTC), into seconds."""
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        if len(text.lstrip("-")) > 20:  # far beyond any timestamp; int() of it is slow or refused
            raise BadInput(Message(N_("time must be between 0 and {most:,} seconds, not "
                                              "a {digits:,}-digit number"), most=MAX_TIMESTAMP,
                                           digits=len(text)))
        seconds = int(text)
    else:
        try:
            moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError as exc:
            raise BadInput(Message(N_("{text} is neither seconds since the epoch nor an "
                                              "ISO 8601 time"), text=repr(text))) from exc
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        seconds = int(moment.timestamp())
    return _check_range(N_("time"), seconds, MAX_TIMESTAMP)


class Generator:
    """Makes ObjectIds the documented way: one random value for its life, a counter that steps by 1.

    ``random`` and ``counter`` default to fresh random values; ``clock`` returns
    seconds since the epoch. Given all three, the output is deterministic.
    """

    def __init__(self, random: int | None = None, counter: int | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.random = _check_range(N_("random value"), random, MAX_RANDOM) \
            if random is not None \
            else secrets.randbits(40)
        self._counter = _check_range(N_("counter"), counter, MAX_COUNTER) \
            if counter is not None \
            else secrets.randbits(24)
        self._clock = clock
        self._lock = threading.Lock()

    def next(self, at: int | None = None) -> str:
        """Return the next ObjectId's hex, stamped with ``at`` seconds or the clock."""
        seconds = int(self._clock()) if at is None else at
        with self._lock:
            counter = self._counter
            self._counter = (counter + 1) & MAX_COUNTER
        return build(seconds & MAX_TIMESTAMP, self.random, counter)

    def batch(self, count: int, at: int | None = None) -> list[str]:
        """Return ``count`` (1..100) consecutive ObjectIds made in the same second."""
        _check_range(N_("count"), count, MAX_BATCH)
        if count < 1:
            raise BadInput(Message(N_("count {count:d} is outside 1..{most:,}"),
                                           count=count, most=MAX_BATCH))
        seconds = int(self._clock()) if at is None else at
        return [self.next(seconds) for _ in range(count)]


def driver_ids_from_counter(counter: int, count: int) -> list[str]:
    """Make ``count`` IDs with pymongo's own generator, its counter first set to ``counter``.

    The driver keeps its next counter in a class attribute; moving it near the top
    is the only way to watch the wrap without making 16 million IDs. Later IDs
    simply continue from there, as they would after a natural wrap.
    """
    from bson import ObjectId

    _check_range(N_("counter"), counter, MAX_COUNTER)
    with ObjectId._inc_lock:
        ObjectId._inc = counter
    return [str(ObjectId()) for _ in range(count)]


def sorted_by_id(table: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows in the order ``sort({_id: 1})`` returns them: by the 12 bytes."""
    return sorted(table, key=lambda row: row["hex"])


def fields_view(table: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows made in several processes (each with ``process``, ``hex`` and an ISO ``clock``) as
    a table narrow enough for a projector, the way the chapter's recorded table shows them: in
    ``sort({_id: 1})`` order, each ID's three fields apart in hex, its counter in decimal, and
    the clock at the millisecond as the time of day (UTC); the whole hex, the timestamp in
    seconds and the clock in nanoseconds (a 19-digit number) are left to the plot."""
    return [{"process": row["process"], "timestamp_hex": row["hex"][:8],
             "random": row["hex"][8:18], "counter_hex": row["hex"][18:],
             "counter": int(row["hex"][18:], 16),
             "clock": str(row["clock"]).partition("T")[2].removesuffix("Z")}
            for row in sorted_by_id(table)]


RECORDED_INVERSION = (  # the course chapter's run: process, random, first counter, insert ms
    ("A", 0xD1375A74BD, 0x43981A, (591, 609, 610)),
    ("B", 0xA9FDED4F0C, 0x2E7EC8, (844, 849, 850)),
)


def inversion_example(second: int = 0x6AC71201) -> list[dict[str, Any]]:
    """The chapter's run rebuilt exactly: A inserts 3 IDs, B 3 more ~250 ms later; sort by ``_id``.

    Both processes are in the same second, so their random values decide the
    order, and B's (a9fded4f0c) is below A's (d1375a74bd): B sorts first.
    """
    table = []
    for label, random, counter, times_ms in RECORDED_INVERSION:
        gen = Generator(random=random, counter=counter)
        for i, made_ms in enumerate(times_ms, start=1):
            table.append({"process": f"{label}{i}", "made_at_ms": made_ms,
                          **explain(gen.next(at=second))})
    return sorted_by_id(table)


def skew_example(skew_s: int = -2, second: int = 1_700_000_000) -> list[dict[str, Any]]:
    """A writes with a true clock; B, one second later, has a clock ``skew_s`` seconds off.

    Sorted by ``_id``, B's later write comes first whenever its clock is behind.
    """
    a = Generator(random=0x1111111111, counter=0).next(at=second)
    b = Generator(random=0xEEEEEEEEEE, counter=0).next(at=second + 1 + skew_s)
    table = [{"process": "A", "true_time": second, **explain(a)},
             {"process": "B", "true_time": second + 1, **explain(b)}]
    return sorted_by_id(table)
