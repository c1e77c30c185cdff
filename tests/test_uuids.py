"""UUID anatomy: RFC 9562's UUIDv7 example, versions, variants and bad input."""

from __future__ import annotations

import time
import uuid

import pytest

from labkit.errors import BadInput
from labkit.model import uuids


def test_rfc9562_v7_example_fields():
    """RFC 9562 appendix A.6: 017f22e2-79b0-7cc3-98c4-dc0c0c07398f, made 2022-02-22 19:22:22 UTC."""
    info = uuids.explain("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")
    assert info == {
        "uuid": "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "version": 7, "variant": "rfc9562",
        "variant_bits": "10", "unix_ts_ms": 0x017F22E279B0,
        "datetime": "2022-02-22T19:22:22Z", "rand_a": 0xCC3, "rand_b": 0x18C4DC0C0C07398F,
    }


def test_v4_has_no_time_fields():
    """A UUIDv4 is explained by version and variant only."""
    info = uuids.explain(uuid.UUID("919108f7-52d1-4320-9bac-f847db4148a8"))
    assert info["version"] == 4
    assert info["variant"] == "rfc9562"
    assert "unix_ts_ms" not in info


def test_generated_v7_reads_back_its_time():
    """A fresh UUIDv7's timestamp lies between clock readings taken around it."""
    before = time.time_ns() // 1_000_000
    value = uuids.uuid7()
    after = time.time_ns() // 1_000_000
    assert before <= uuids.explain(value)["unix_ts_ms"] <= after


def test_chosen_time_is_stamped_to_the_millisecond():
    """``uuid7_at`` writes the chosen time, truncated to milliseconds."""
    assert uuids.explain(uuids.uuid7_at(1_700_000_000_123_456_789))["datetime"] == \
        "2023-11-14T22:13:20.123Z"


@pytest.mark.parametrize("bad", ["", "not-a-uuid", "017f22e2-79b0-7cc3-98c4-dc0c0c07398", "x" * 32])
def test_malformed_uuid_is_refused(bad):
    """Text that is not 32 hex digits is bad input."""
    with pytest.raises(BadInput):
        uuids.explain(bad)


@pytest.mark.parametrize(("first_byte_of_clock_seq", "bits"), [(0x00, "0"), (0x80, "10"),
                                                               (0xC0, "110"), (0xE0, "111")])
def test_variant_bits(first_byte_of_clock_seq, bits):
    """The variant is read from the top bits of byte 8."""
    raw = bytearray(16)
    raw[8] = first_byte_of_clock_seq
    assert uuids.variant_bits(uuid.UUID(bytes=bytes(raw))) == bits
