"""UUIDv7 claims observed on a real generator (PyPI ``uuid_utils``): layout and time read-back."""

from __future__ import annotations

import time

from .. import uuids
from ..claims import Observation, claim

SAMPLES = 1000
FIELDS = (("unix_ts_ms", 48), ("ver", 4), ("rand_a", 12), ("var", 2), ("rand_b", 62))


def generator_engine() -> tuple[str, str]:
    """The UUIDv7 generator these claims observe and its version."""
    import uuid_utils

    return "uuid_utils", uuid_utils.__version__


def layout_rows(u) -> list[dict]:
    """The RFC 9562 fields of one UUIDv7, most significant first, with their bits."""
    bits = f"{u.int:0128b}"
    rows, start = [], 0
    for name, width in FIELDS:
        chunk = bits[start : start + width]
        rows.append({"field": name, "bits": width, "first_bit": start,
                     "value": int(chunk, 2), "binary": chunk if width <= 12 else f"{chunk[:12]}…"})
        start += width
    return rows


def layout_figure(u):
    """A bar of the 128 bits, coloured by field."""
    from ..plots import bit_layout

    return bit_layout(layout_rows(u), title=f"UUIDv7 {u}")


@claim("U1", title="UUIDv7: 48-bit Unix ms, version 0111, 12-bit rand_a, variant 10, 62-bit rand_b",
       source="003", topic="btree",
       expected={"version_bits": ["0111"], "variant_bits": ["10"],
                 "unix_ts_ms_within_clock": True})
def v7_layout(ctx) -> Observation:
    """Generate UUIDv7s and read their version, variant and timestamp bits."""
    before = time.time_ns() // 1_000_000
    samples = [uuids.uuid7() for _ in range(SAMPLES)]
    after = time.time_ns() // 1_000_000
    versions = sorted({f"{(u.int >> 76) & 0xF:04b}" for u in samples})
    variants = sorted({uuids.variant_bits(u) for u in samples})
    within = all(before <= u.int >> 80 <= after for u in samples)
    engine, version = generator_engine()
    return Observation({"version_bits": versions, "variant_bits": variants,
                        "unix_ts_ms_within_clock": within},
                       engine, version, layout_rows(samples[0]),
                       note=f"{SAMPLES} UUIDs generated between {before} and {after} ms",
                       figure=lambda: layout_figure(samples[0]))


@claim("U3", title="A UUIDv7's creation time can be read back from it", source="003",
       topic="btree", expected={"chosen": "2023-11-14T22:13:20.123Z", "now_within_clock": True})
def v7_time_read_back(ctx) -> Observation:
    """Stamp a UUIDv7 with a chosen time and with now; read both times back from the bits."""
    chosen = uuids.uuid7_at(1_700_000_000_123_456_789)
    before = time.time_ns() // 1_000_000
    now = uuids.uuid7()
    after = time.time_ns() // 1_000_000
    now_ms = uuids.explain(now)["unix_ts_ms"]
    engine, version = generator_engine()
    return Observation({"chosen": uuids.explain(chosen)["datetime"],
                        "now_within_clock": before <= now_ms <= after},
                       engine, version,
                       [uuids.explain(chosen), uuids.explain(now)],
                       note=f"now: clock window {before}..{after} ms, read back {now_ms} ms")
