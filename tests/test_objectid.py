"""ObjectId anatomy: the documents' examples, the wrap rules, round trips and bad input."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from bson import ObjectId
from hypothesis import given
from hypothesis import strategies as st

from labkit.engines import processes
from labkit.errors import BadInput
from labkit.model import objectid

timestamps = st.integers(0, objectid.MAX_TIMESTAMP)
randoms = st.integers(0, objectid.MAX_RANDOM)
counters = st.integers(0, objectid.MAX_COUNTER)


def test_worked_example_is_reproduced_exactly():
    """The generator page's example: 1,700,000,000 s, 3f2a91c8d4, counter 12,345, then +1."""
    gen = objectid.Generator(random=0x3F2A91C8D4, counter=12345)
    assert gen.batch(2, at=1_700_000_000) == ["6553f1003f2a91c8d4003039",
                                              "6553f1003f2a91c8d400303a"]


def test_decoding_example():
    """507f1f77bcf86cd799439011 decodes to 1,350,508,407 s, 2012-10-17 21:13:27 UTC."""
    info = objectid.explain("507f1f77bcf86cd799439011")
    assert info == {"hex": "507f1f77bcf86cd799439011", "timestamp": 1_350_508_407,
                    "datetime": "2012-10-17T21:13:27Z", "random": "bcf86cd799",
                    "counter": 0x439011}


def test_explain_accepts_uppercase_and_bson_objectids():
    """Hex case does not matter, and a pymongo ObjectId explains the same as its hex."""
    oid = ObjectId("6553F1003F2A91C8D4003039")
    assert objectid.explain(oid) == objectid.explain("6553F1003F2A91C8D4003039")
    assert objectid.explain(oid)["hex"] == "6553f1003f2a91c8d4003039"


def test_lower_bound_of_a_second_matches_pymongo_from_datetime():
    """The safe lower bound is the timestamp and zeros, as ``ObjectId.from_datetime`` builds it."""
    moment = dt.datetime(2026, 10, 8, tzinfo=dt.UTC)
    bound = objectid.lower_bound(int(moment.timestamp()))
    assert bound == "6ac6dd000000000000000000"
    assert bound == str(ObjectId.from_datetime(moment))


def test_counter_wraps_to_zero_after_its_top():
    """The counter goes 16,777,215 then 0, in the same second."""
    gen = objectid.Generator(random=1, counter=objectid.MAX_COUNTER)
    first, second = gen.batch(2, at=10)
    assert objectid.split(first).counter == objectid.MAX_COUNTER
    assert objectid.split(second).counter == 0


def test_timestamp_field_wraps_after_2106():
    """A time of 2^32 s is written as 00000000; 2^32 - 1 s decodes to 2106-02-07 06:28:15 UTC."""
    gen = objectid.Generator(random=1, counter=0)
    assert gen.next(at=objectid.MAX_TIMESTAMP + 1).startswith("00000000")
    assert objectid.split("ffffffff0000000000000000").datetime == dt.datetime(
        2106, 2, 7, 6, 28, 15, tzinfo=dt.UTC)


def test_a_batch_shares_the_random_value_and_steps_the_counter():
    """Every ID of a batch has the generator's random value and counter + 1 each time."""
    gen = objectid.Generator()
    parts = [objectid.split(h) for h in gen.batch(100)]
    assert {p.random for p in parts} == {gen.random}
    assert len({p.timestamp for p in parts}) == 1
    assert all((b.counter - a.counter) % (objectid.MAX_COUNTER + 1) == 1
               for a, b in itertools.pairwise(parts))


@given(timestamps, randoms, counters)
def test_build_and_split_round_trip(timestamp, random, counter):
    """Building from parts and splitting again gives back the same parts."""
    hex_id = objectid.build(timestamp, random, counter)
    assert len(hex_id) == 24
    assert objectid.split(hex_id) == objectid.Parts(timestamp, random, counter)
    assert objectid.split(bytes.fromhex(hex_id)) == objectid.split(ObjectId(hex_id))


@given(st.tuples(timestamps, randoms, counters), st.tuples(timestamps, randoms, counters))
def test_order_of_ids_is_order_of_their_bytes(a, b):
    """Comparing two IDs' hex, their bytes, and their (timestamp, random, counter) agree."""
    ha, hb = objectid.build(*a), objectid.build(*b)
    assert (ha < hb) == (bytes.fromhex(ha) < bytes.fromhex(hb)) == (a < b)
    assert (ObjectId(ha) < ObjectId(hb)) == (a < b)


@pytest.mark.parametrize("bad", ["", "123", "g" * 24, "507f1f77bcf86cd7994390111",
                                 "507f1f77 cf86cd799439011"])
def test_malformed_hex_is_refused(bad):
    """Anything but 24 hex characters is bad input."""
    with pytest.raises(BadInput):
        objectid.split(bad)


@pytest.mark.parametrize(("field", "args"), [
    ("timestamp", (2**32, 0, 0)), ("timestamp", (-1, 0, 0)),
    ("random", (0, 2**40, 0)), ("counter", (0, 0, 2**24)),
])
def test_out_of_range_parts_are_refused(field, args):
    """Each part must fit its width: 32, 40 and 24 bits."""
    with pytest.raises(BadInput, match=field):
        objectid.build(*args)


@pytest.mark.parametrize("count", [0, 101, -3])
def test_batch_size_must_be_1_to_100(count):
    """A batch is 1 to 100 IDs."""
    with pytest.raises(BadInput):
        objectid.Generator().batch(count)


@pytest.mark.parametrize(("text", "seconds"), [
    ("1700000000", 1_700_000_000), ("2023-11-14T22:13:20Z", 1_700_000_000),
    ("2023-11-14T22:13:20", 1_700_000_000), ("2023-11-14T23:13:20+01:00", 1_700_000_000),
])
def test_parse_time_takes_seconds_or_iso(text, seconds):
    """``--at`` accepts seconds or ISO 8601; a naive time means UTC."""
    assert objectid.parse_time(text) == seconds


@pytest.mark.parametrize("text", ["yesterday", "4294967296", "-1", "1969-12-31T23:59:59Z"])
def test_parse_time_refuses_what_cannot_be_a_timestamp(text):
    """Times that are not times, or fall outside 0..2^32-1 seconds, are bad input."""
    with pytest.raises(BadInput):
        objectid.parse_time(text)


def test_inversion_example_rebuilds_the_chapters_sorted_output():
    """With A's random d1375a74bd and B's a9fded4f0c in one second, B's three IDs sort first."""
    table = objectid.inversion_example()
    assert [(row["process"], row["hex"]) for row in table] == [
        ("B1", "6ac71201a9fded4f0c2e7ec8"), ("B2", "6ac71201a9fded4f0c2e7ec9"),
        ("B3", "6ac71201a9fded4f0c2e7eca"), ("A1", "6ac71201d1375a74bd43981a"),
        ("A2", "6ac71201d1375a74bd43981b"), ("A3", "6ac71201d1375a74bd43981c")]
    assert table[0]["made_at_ms"] > table[-1]["made_at_ms"]


@pytest.mark.parametrize(("skew_s", "b_first"), [(-5, True), (-2, True), (-1, False), (0, False)])
def test_clock_skew_reorders_across_seconds(skew_s, b_first):
    """B writes a second after A; a clock two or more seconds behind puts B's ID first.

    One second behind lands B in A's second, where the random values decide (A's is lower).
    """
    table = objectid.skew_example(skew_s)
    assert (table[0]["process"] == "B") is b_first


def test_processes_have_their_own_random_values():
    """Fresh OS processes making IDs at one moment each use their own random value."""
    results = processes.in_processes(["P1", "P2"], count=3)
    randoms = [{objectid.split(h).random for h in r["ids"]} for r in results]
    assert all(len(r) == 1 for r in randoms)
    assert randoms[0] != randoms[1]


def test_the_projector_view_is_narrow_and_in_id_order():
    """Lesson 05's table of IDs made in several processes (issue 32: nine columns and a 19-digit
    clock_ns did not fit a projector): six short columns, the ID's three fields apart in hex as
    the chapter's recorded table shows them, the counter in decimal, the clock as the time of
    day at the millisecond, in sort({_id: 1}) order (the 12 bytes')."""
    rows = processes.rows([
        {"label": "P2", "ids": ["6ac71201a9fded4f0c2e7ec8"],
         "clock_ns": [1_791_430_913_849_000_000]},
        {"label": "P1", "ids": ["6ac71201d1375a74bd43981a"],
         "clock_ns": [1_791_430_913_591_000_000]},
    ])
    view = objectid.fields_view(rows)  # 1,791,430,913.849 s is 2026-10-08T03:41:53.849Z
    assert [row["process"] for row in view] == ["P2", "P1"]  # a9… sorts before d1…
    assert view[0] == {"process": "P2", "timestamp_hex": "6ac71201", "random": "a9fded4f0c",
                       "counter_hex": "2e7ec8", "counter": 0x2E7EC8, "clock": "03:41:53.849"}
    assert all(len(str(value)) <= 12 for row in view for value in row.values())
