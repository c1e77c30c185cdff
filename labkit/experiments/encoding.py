"""Claims about how BSON encodes values, observed with the driver's own encoder."""

from __future__ import annotations

import datetime as dt

from ..claims import Observation, claim

ISO_TEXT = "2026-10-01T00:00:00.000Z"


def bson_engine() -> tuple[str, str]:
    """The BSON encoder these claims run on: pymongo's ``bson`` package and its version."""
    import pymongo

    return "pymongo bson", pymongo.version


def value_bytes(value, codec_options=None) -> bytes:
    """The bytes BSON spends on one value: its document minus the same document holding null."""
    import bson

    kwargs = {"codec_options": codec_options} if codec_options else {}
    doc = bson.encode({"v": value}, **kwargs)
    # Layout: int32 length, type byte, "v\0", value, trailing \0; null has no value bytes.
    return doc[4 + 1 + 2 : -1]


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
