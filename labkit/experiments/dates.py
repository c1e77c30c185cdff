"""Lesson 01, dates versus strings: a Date's encoding and size, and the chapter's events
fixture queried and sorted both ways (claims D1, D2, D3)."""

from __future__ import annotations

import datetime as dt

from .._claim import Observation, subset_of_observed
from .._registry import claim
from ._common import (
    bson_engine,
    compare_with_model,
    model_answers,  # noqa: F401  (lesson 01 asks the model D3's questions)
    value_bytes,
)

ISO_TEXT = "2026-10-01T00:00:00.000Z"

@claim("D1", title="A Date is a signed 64-bit count of milliseconds since 1970 UTC; no time zone",
       source="002", topic="dates", needs=("mongodb",), judge=subset_of_observed,
       expected={"types": ["date"], "millis": [-86_400_000, 1, 1_790_812_800_000],
                 "read_back": "2026-10-01T00:00:00Z"})
def date_is_utc_millis(ctx) -> Observation:
    """Store a date before 1970, one with microseconds, one at +07:00; read them as numbers."""
    from ..objectid import iso_z

    plus7 = dt.timezone(dt.timedelta(hours=7))
    docs = [{"_id": 1, "d": dt.datetime(1969, 12, 31, tzinfo=dt.UTC)},
            {"_id": 2, "d": dt.datetime(1970, 1, 1, 0, 0, 0, 1234, tzinfo=dt.UTC)},
            {"_id": 3, "d": dt.datetime(2026, 10, 1, 7, 0, tzinfo=plus7)}]
    collection = ctx.mongodb_database("d1").dates
    collection.insert_many(docs)
    rows = list(collection.aggregate([
        {"$sort": {"_id": 1}},
        {"$project": {"d": 1, "millis": {"$toLong": "$d"}, "type": {"$type": "$d"}}}]))
    return Observation({"types": sorted({r["type"] for r in rows}),
                        "millis": [r["millis"] for r in rows],
                        "read_back": iso_z(rows[2]["d"])},
                       "MongoDB", ctx.mongodb().version,
                       [{"stored": str(d["d"]), "millis": r["millis"], "read_back": iso_z(r["d"])}
                        for d, r in zip(docs, rows, strict=True)],
                       note="microseconds are cut to milliseconds; +07:00 comes back as UTC")


OCT1 = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
D3_QUESTIONS = {
    "string_range": ("find", {"at": {"$gte": "2026-10-01"}}),
    "date_range": ("find", {"atDate": {"$gte": OCT1}}),
    "sort_by_string_desc": ("sort", "at:-1"),
    "date_field_string_operand": ("find", {"atDate": {"$gte": "2026-10-01"}}),
}



@claim("D2", title="A Date takes 8 bytes; the ISO string of the same day takes 29",
       source="002", topic="dates", expected={"date_bytes": 8, "string_bytes": 29})
def date_versus_string_size(ctx) -> Observation:
    """Encode one day as a BSON Date and as its ISO 8601 string, and count the value bytes."""
    moment = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
    date_raw, text_raw = value_bytes(moment), value_bytes(ISO_TEXT)
    engine, version = bson_engine()
    evidence = [
        {"value": "Date 2026-10-01T00:00:00Z", "bytes": len(date_raw),
         "encoded": date_raw.hex(" ")},
        {"value": f'"{ISO_TEXT}"', "bytes": len(text_raw), "encoded": text_raw.hex(" ")},
    ]
    return Observation({"date_bytes": len(date_raw), "string_bytes": len(text_raw)},
                       engine, version, evidence,
                       note="the string is int32 length + 24 characters + NUL")


@claim("D3", title="Dates stored as strings compare bytewise: wrong ranges, wrong sorts, "
       "and a silent empty answer for a Date field queried with a string", source="002",
       topic="dates", needs=("mongodb",), judge=subset_of_observed,
       expected={"string_range": ["a", "b", "c"], "date_range": ["b", "c"],
                 "sort_by_string_desc": ["a", "c", "b"], "date_field_string_operand": []})
def dates_as_strings(ctx) -> Observation:
    """The chapter's events fixture: the same three days as strings and as Dates."""
    return compare_with_model(ctx, "events", D3_QUESTIONS)

