"""Lesson 04, ObjectId anatomy: the layout, the generator page's worked example and decoding,
the wrap rules, batches, and ObjectId against UUID size (claims O1-O5, O10)."""

from __future__ import annotations

import time
import uuid
from typing import Any

from labkit.claims.claim import Context, Observation, subset_of_observed
from labkit.claims.registry import claim
from labkit.engines import processes
from labkit.experiments._common import bson_engine, counter_steps, value_bytes
from labkit.i18n import N_, Message, _, number
from labkit.model import objectid


@claim("O1", title="12 bytes: 4-byte seconds, 5-byte per-process random, 3-byte counter; "
       "24 hex characters", source="002", topic="objectid", judge=subset_of_observed,
       expected={"bytes": 12, "hex_characters": 24, "timestamp_is_clock_seconds": True,
                 "random_values_in_process": 1, "counter_steps": [1]})
def layout(ctx: Context) -> Observation:
    """Make IDs with pymongo in this process; read each field against the clock."""
    from bson import ObjectId

    before = int(time.time())
    made = [ObjectId() for _ in range(10)]
    after = int(time.time())
    parts = [objectid.split(o) for o in made]
    engine, version = bson_engine()
    return Observation(
        {"bytes": len(made[0].binary), "hex_characters": len(str(made[0])),
         "lowercase_hex": all(str(o) == str(o).lower() for o in made),
         "timestamp_is_clock_seconds": all(before <= p.timestamp <= after for p in parts),
         "random_values_in_process": len({p.random for p in parts}),
         "counter_steps": sorted(counter_steps([str(o) for o in made]))},
        engine, version, [objectid.explain(o) for o in made[:3]])


@claim("O5", title="A batch of IDs shares the process's random value; each counter is one "
       "above the previous", source="000", topic="objectid",
       expected={"random_values": 1, "counter_steps": [1]}, judge=subset_of_observed)
def batch(ctx: Context) -> Observation:
    """Make a batch of 100 IDs with pymongo's generator in a fresh process."""
    (result,) = processes.in_processes(["batch"], count=100)
    engine, version = bson_engine()
    table = processes.rows([result])
    return Observation({"ids": len(result["ids"]),
                        "random_values": len({row["random"] for row in table}),
                        "counter_steps": sorted(counter_steps(result["ids"]))},
                       engine, version, table[:3] + table[-2:])



def _decoded(hex_id: str) -> dict[str, Any]:
    """What pymongo's ``ObjectId`` reads from an ID: its hex and its generation time."""
    from bson import ObjectId

    oid = ObjectId(hex_id)
    return {"hex": str(oid), "datetime": objectid.iso_z(oid.generation_time)}


@claim("O2", title="Worked example: 1,700,000,000 s, random 3f2a91c8d4, counter 12,345",
       source="000", topic="objectid", judge=subset_of_observed, expected={
           "timestamp_hex": "6553f100", "datetime": "2023-11-14T22:13:20Z",
           "counter_hex": "003039", "oid": "6553f1003f2a91c8d4003039",
           "next": "6553f1003f2a91c8d400303a"})
def worked_example(ctx: Context) -> Observation:
    """Generate two IDs in one second from the example's parts; decode them with pymongo."""
    gen = objectid.Generator(random=0x3F2A91C8D4, counter=12345)
    first, second = gen.batch(2, at=1_700_000_000)
    decoded = _decoded(first)
    engine, version = bson_engine()
    evidence = [dict(objectid.explain(h), pymongo_datetime=_decoded(h)["datetime"])
                for h in (first, second)]
    return Observation({"timestamp_hex": first[:8], "datetime": decoded["datetime"],
                        "counter_hex": first[18:], "oid": decoded["hex"],
                        "next": _decoded(second)["hex"]}, engine, version, evidence)


@claim("O3", title="507f1f77bcf86cd799439011 was made at 2012-10-17 21:13:27 UTC",
       source="000", topic="objectid",
       expected={"timestamp_hex": "507f1f77", "seconds": 1_350_508_407,
                 "datetime": "2012-10-17T21:13:27Z"})
def decoding_example(ctx: Context) -> Observation:
    """Decode the example ID's creation time with pymongo's ``generation_time``."""
    hex_id = "507f1f77bcf86cd799439011"
    engine, version = bson_engine()
    return Observation({"timestamp_hex": hex_id[:8], "seconds": int(hex_id[:8], 16),
                        "datetime": _decoded(hex_id)["datetime"]},
                       engine, version, [objectid.explain(hex_id)])


@claim("O4", title="The timestamp wraps after 4,294,967,295 s (2106-02-07); the counter after "
       "16,777,215", source="000", topic="objectid",
       expected={"last_second": "2106-02-07T06:28:15Z", "timestamp_after_last": "00000000",
                 "counter_wrap": [16_777_215, 0]})
def wrap_rules(ctx: Context) -> Observation:
    """Decode the last second with pymongo, step the generator past it, and wrap the counter."""
    last = objectid.build(objectid.MAX_TIMESTAMP, 0, 0)
    past = objectid.Generator(random=1, counter=0).next(at=objectid.MAX_TIMESTAMP + 1)
    counters = [objectid.split(h).counter
                for h in objectid.driver_ids_from_counter(objectid.MAX_COUNTER, 2)]
    engine, version = bson_engine()
    return Observation(
        {"last_second": _decoded(last)["datetime"], "timestamp_after_last": past[:8],
         "counter_wrap": counters},
        engine, version,
        [{"step": "decode ffffffff…", "result": _decoded(last)["datetime"]},
         {"step": "generate at 2^32 s", "result": past},
         {"step": "pymongo counter at 0xffffff, two IDs", "result": counters}],
        note=Message(N_("the counter wrap is pymongo's own generator; the timestamp wrap is "
                        "labkit's generator, since pymongo refuses times past 2106")))


@claim("O10", title="An ObjectId is 12 bytes; a UUID is 16", source="002", topic="objectid",
       judge=subset_of_observed, expected={"objectid_bytes": 12, "uuid_bytes": 16})
def id_sizes(ctx: Context) -> Observation:
    """Measure a fresh ObjectId and a UUID as values and as BSON fields."""
    from bson import ObjectId
    from bson.binary import UuidRepresentation
    from bson.codec_options import CodecOptions

    standard: CodecOptions[Any] = CodecOptions(uuid_representation=UuidRepresentation.STANDARD)
    oid, uid = ObjectId(), uuid.uuid4()
    engine, version = bson_engine()
    return Observation(
        {"objectid_bytes": len(oid.binary), "uuid_bytes": len(uid.bytes),
         "objectid_bson_value_bytes": len(value_bytes(oid)),
         "uuid_bson_value_bytes": len(value_bytes(uid, standard))},
        engine, version,
        note=Message(N_("as a BSON value a UUID also carries an int32 length and a subtype "
                        "byte")))


def below_in_second(second: int, others: int = 8) -> list[dict[str, str]]:
    """The lesson's range-boundary demonstration, in the learner's words: the lower bound of
    ``second`` (``ObjectId.from_datetime``) and an ID made at that second, each with how many
    of ``others`` IDs made in the same second by other processes sort below it."""
    import datetime as dt

    from bson import ObjectId

    bound = str(ObjectId.from_datetime(dt.datetime.fromtimestamp(second, dt.UTC)))
    # The ID made at that second is the middle one of all made then, so that some of the
    # others always fall below it: one picked at random was the smallest once in others + 1
    # runs, and then the table showed it like the bound, hiding the point.
    made = sorted(objectid.Generator().next(at=second) for _ in range(others + 1))
    made_at = made.pop(len(made) // 2)
    rows = []
    for label, hex_id in ((_("the lower bound (from_datetime)"), bound),
                          (_("an ID made at that second (the middle one of the {n} made "
                             "then)").format(n=number(others + 1)), made_at)):
        below = sum(h < hex_id for h in made)
        rows.append({_("ID"): label, "hex": hex_id,
                     _("IDs of that second below it"): _("{count} of {total}").format(
                         count=number(below), total=number(others))})
    return rows
