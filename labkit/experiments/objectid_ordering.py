"""Lesson 05, ObjectId ordering: processes in one second, the counter's wrap, IDs the server
makes, range boundaries and order across processes (claims O6-O9, X6)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from labkit.claims.claim import Context, Figure, Observation, retry_until, subset_of_observed
from labkit.claims.registry import claim
from labkit.engines import processes
from labkit.experiments._common import bson_engine, counter_steps
from labkit.i18n import N_, Message, _
from labkit.model import objectid, reads


def _same_second(results: list[dict[str, Any]]) -> bool:
    stamps = {objectid.split(h).timestamp for r in results for h in r["ids"]}
    return len(stamps) == 1


@claim("O6", title="Processes in one second share the timestamp; each has its own random "
       "value; counters step by 1; the time has no milliseconds", source="002",
       topic="objectid", judge=subset_of_observed,
       expected={"shared_timestamp": True, "random_values": 3, "one_random_per_process": True,
                 "counter_steps": [1], "milliseconds": [0], "new_random_after_restart": True})
def processes_in_one_second(ctx: Context) -> Observation:
    """Three fresh processes make 5 IDs each in the same second; a fourth 'restarts' the first."""
    from bson import ObjectId

    results, tries = retry_until(
        lambda: processes.in_processes(["P1", "P2", "P3"], count=5), _same_second)
    (restarted,) = processes.in_processes(["P1 again"], count=1)
    table = processes.rows(results)
    per_process = {r["label"]: {objectid.split(h).random for h in r["ids"]} for r in results}
    first_random = objectid.split(results[0]["ids"][0]).random
    engine, version = bson_engine()
    return Observation(
        {"shared_timestamp": _same_second(results),
         "random_values": len({row["random"] for row in table}),
         "one_random_per_process": all(len(v) == 1 for v in per_process.values()),
         "counter_steps": sorted(set().union(*(counter_steps(r["ids"]) for r in results))),
         "milliseconds": sorted({ObjectId(h).generation_time.microsecond // 1000
                                 for r in results for h in r["ids"]}),
         "new_random_after_restart":
             objectid.split(restarted["ids"][0]).random != first_random,
         "tries": tries},
        engine, version, table,
        note=Message(N_("tries until all three landed in one second: {tries}"), tries=tries),
        figure=Figure("id_rank", (table, N_("Three processes, one second"))))


@claim("X6", title="One process's IDs are not monotonic within a second when the counter "
       "wraps from 0xffffff to 0", source="manual", topic="objectid", judge=subset_of_observed,
       expected={"counters": [16_777_214, 16_777_215, 0], "sorted_like_creation": False})
def counter_wrap_order(ctx: Context) -> Observation:
    """Put pymongo's counter just below its top, make three IDs in one second, sort them."""
    made, _ = retry_until(lambda: objectid.driver_ids_from_counter(objectid.MAX_COUNTER - 1, 3),
                          lambda ids: len({h[:8] for h in ids}) == 1)
    engine, version = bson_engine()
    return Observation({"counters": [objectid.split(h).counter for h in made],
                        "sorted_like_creation": sorted(made) == made},
                       engine, version,
                       [{"made": i + 1, "sorted_position": sorted(made).index(h) + 1,
                         **objectid.explain(h)} for i, h in enumerate(made)])


# On the server ------------------------------------------------------------------------


@claim("O7", title="An _id the server generates (upsert without _id) carries mongod's random "
       "value, not the client's", source="002", topic="objectid", needs=("mongodb",),
       judge=subset_of_observed, recorded=True,
       expected={"server_generated": True, "server_random_differs_from_client": True,
                 "server_ids_share_random": True})
def server_generated(ctx: Context) -> Observation:
    """Upsert two documents without ``_id``; compare their IDs' random value with the client's."""
    from bson import ObjectId

    db = ctx.mongodb_database("o7")
    ids = [db.seq.update_one({"proc": f"server{i}"}, {"$set": {"at": dt.datetime.now(dt.UTC)}},
                             upsert=True).upserted_id for i in (1, 2)]
    client_id = ObjectId()
    # A reply that names no upserted _id, or one that is no ObjectId, gives nothing to split:
    # the claim's first part is then observed false and the others cannot be compared.
    missing = sum(not isinstance(i, ObjectId) for i in ids)
    server = [] if missing else [objectid.split(i) for i in ids]
    client_random = objectid.split(client_id).random
    return Observation(
        {"server_generated": not missing,
         "server_random_differs_from_client":
             None if missing else all(p.random != client_random for p in server),
         "server_ids_share_random": None if missing else server[0].random == server[1].random},
        ctx.mongodb().name, ctx.mongodb().version,
        [{"made_by": "server", **objectid.explain(i)} if isinstance(i, ObjectId)
         else {"made_by": "server", "hex": None} for i in ids]
        + [{"made_by": "client (pymongo)", **objectid.explain(client_id)}],
        note=Message(N_("the update reply named no ObjectId as the upserted _id of {count} of "
                        "the 2 upserts"), count=missing) if missing else "", engine_key="mongodb")


O8_SECOND = int(dt.datetime(2026, 10, 8, tzinfo=dt.UTC).timestamp())


def _boundary_ids(second: int) -> tuple[list[str], str]:
    """30 IDs around ``second`` (5 before, 20 in it, 5 after) and one made at it, last."""
    this_process = objectid.Generator()
    made = [objectid.Generator().next(at=second - 1) for _ in range(5)]
    made += [this_process.next(at=second) for _ in range(5)]  # this process, earlier
    made += [objectid.Generator().next(at=second) for _ in range(15)]  # other processes
    made += [objectid.Generator().next(at=second + 1) for _ in range(5)]
    return made, this_process.next(at=second)  # what ObjectId(secs) gives in the shell


def predict_range_boundaries() -> dict[str, Any]:
    """The same count from each boundary, by labkit's model of the comparison rules."""
    from bson import ObjectId

    made, made_at = _boundary_ids(O8_SECOND)
    docs = [{"_id": ObjectId(h)} for h in made]
    bound = ObjectId.from_datetime(dt.datetime.fromtimestamp(O8_SECOND, dt.UTC))
    from_bound = len(reads.find(docs, {"_id": {"$gte": bound}}))
    from_made_at = len(reads.find(docs, {"_id": {"$gte": ObjectId(made_at)}}))
    return {"lower_bound": str(bound), "made_at": made_at, "count_from_lower_bound": from_bound,
            "count_from_made_at": from_made_at,
            "made_at_misses_documents": from_made_at < from_bound}


@claim("O8", title="from_datetime (zeros after the timestamp) is the safe lower bound of a "
       "second; an ID made at that second is not", source="002", topic="objectid",
       needs=("mongodb",), judge=subset_of_observed, predict=predict_range_boundaries,
       expected={"lower_bound": "6ac6dd000000000000000000", "count_from_lower_bound": 25,
                 "made_at_misses_documents": True})
def range_boundaries(ctx: Context) -> Observation:
    """Insert IDs from the seconds around 2026-10-08T00:00:00Z; count from each boundary."""
    from bson import ObjectId

    second = O8_SECOND
    docs, made_at = _boundary_ids(second)
    db = ctx.mongodb_database("o8")
    db.seq.insert_many([{"_id": ObjectId(h)} for h in docs])
    bound = ObjectId.from_datetime(dt.datetime.fromtimestamp(second, dt.UTC))
    from_bound = db.seq.count_documents({"_id": {"$gte": bound}})
    from_made_at = db.seq.count_documents({"_id": {"$gte": ObjectId(made_at)}})
    return Observation(
        {"lower_bound": str(bound), "made_at": made_at, "count_from_lower_bound": from_bound,
         "count_from_made_at": from_made_at,
         "made_at_misses_documents": from_made_at < from_bound},
        ctx.mongodb().name, ctx.mongodb().version,
        [{"boundary": "ObjectId.from_datetime", "hex": str(bound), "count": from_bound},
         {"boundary": "an ID made at that second", "hex": made_at, "count": from_made_at}],
        note=Message(N_("25 documents were inserted in the second and the one after, 5 the "
                        "second before")), engine_key="mongodb")


@claim("O9", title="Within one second _id order follows the random value, not time: "
       "a later process can sort first", source="002", topic="objectid", needs=("mongodb",),
       judge=subset_of_observed, recorded=True,
       expected={"same_second": True, "later_process_sorts_first": True})
def order_across_processes(ctx: Context) -> Observation:
    """Processes A then B (250 ms later) insert 3 documents each; retry until B sorts first."""
    db = ctx.mongodb_database("o9")
    uri = ctx.mongodb().uri

    def attempt() -> list[dict[str, Any]]:
        db.seq.delete_many({})
        processes.in_processes(["A", "B"], count=3, offsets_ms=[0, 250], uri=uri,
                              database=db.name, collection="seq")
        return list(db.seq.find().sort("_id", 1))

    def same_second(docs: list[dict[str, Any]]) -> bool:
        return len({d["_id"].binary[:4] for d in docs}) == 1

    docs, tries = retry_until(attempt, lambda d: same_second(d) and d[0]["process"] == "B")
    same = same_second(docs)
    table = [{"process": d["process"], **objectid.explain(d["_id"]),
              "clock": objectid.iso_z(d["inserted_at"]), "clock_ns": d["inserted_ns"]}
             for d in docs]
    return Observation(
        {"same_second": same, "later_process_sorts_first": same and docs[0]["process"] == "B",
         "tries": tries},
        ctx.mongodb().name, ctx.mongodb().version, table,
        note=Message(N_("tries (each with two fresh processes) until B sorted first: {tries}"),
                     tries=tries),
        figure=Figure("id_rank", (table, N_("Insert time against _id rank"))),
        engine_key="mongodb")


def clock_skew(skew_s: int = -2) -> list[dict[str, str]]:
    """The lesson's clock-skew example in the learner's words, in ``_id`` order: A writes with
    a true clock, B one second later with a clock ``skew_s`` seconds off
    (``objectid.skew_example``)."""
    return [{_("process"): row["process"],
             _("wrote at (true clock)"): objectid.iso_z(
                 dt.datetime.fromtimestamp(row["true_time"], dt.UTC)),
             "_id": row["hex"], _("time in the _id"): row["datetime"]}
            for row in objectid.skew_example(skew_s=skew_s)]
