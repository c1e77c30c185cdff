"""What several lessons' experiments share: asking the server and the model the same
questions about a fixture, a server-side type census, and the BSON encoder's byte counts."""

from __future__ import annotations

from collections.abc import Mapping

from labkit.claims.claim import Observation
from labkit.model import bson_order, fixtures, reads
from labkit.names import engine_name


def server_census(collection, path: str) -> dict[str, int]:
    """``$group`` by ``{$type: "$path"}`` on the server: type alias -> documents."""
    rows = collection.aggregate([{"$group": {"_id": {"$type": f"${path}"}, "n": {"$sum": 1}}}])
    return dict(sorted((row["_id"], row["n"]) for row in rows))


def _server_answer(collection, kind: str, spec):
    if kind == "find":
        return sorted(d["_id"] for d in collection.find(spec, {"_id": 1}))
    if kind == "sort":
        pairs = bson_order.parse_sort(spec)
        return [d["_id"] for d in collection.find({}, {"_id": 1}).sort(pairs)]
    if kind == "census":
        return server_census(collection, spec)
    raise ValueError(kind)


def _model_answer(docs: list[dict], kind: str, spec):
    if kind == "find":
        return sorted(reads.ids(reads.find(docs, spec)))
    if kind == "sort":
        return reads.ids(bson_order.sort(docs, spec))
    return reads.census(docs, spec)


def compare_with_model(ctx, name: str, questions: Mapping[str, tuple[str, object]],
                       docs: list[dict] | None = None, label: str | None = None) -> Observation:
    """Ask the server and the model the same questions about a fixture; observe the server.

    ``questions`` maps a label to ``("find", filter)``, ``("sort", spec)`` or
    ``("census", path)``. The evidence has one row per question, server beside model.
    """
    docs = docs if docs is not None else fixtures.load(name)
    database = ctx.mongodb_database(label or name)
    collection = fixtures.insert(database, name, docs)
    observed, rows, disagreements = {}, [], []
    for key, (kind, spec) in questions.items():
        server = _server_answer(collection, kind, spec)
        model = _model_answer(docs, kind, spec)
        observed[key] = server
        rows.append({"question": key, "asked": fixtures.dumps(spec), "server": server,
                     "model": model})
        if fixtures.relaxed(server) != fixtures.relaxed(model):
            disagreements.append(key)
    note = ("the model agrees with the server on every question" if not disagreements else
            f"the model disagrees with the server on: {', '.join(disagreements)}")
    return Observation(observed, engine_name("mongodb"), ctx.mongodb().version, rows, note=note)



def model_answers(name: str, questions: Mapping[str, tuple[str, object]],
                  docs: list[dict] | None = None) -> dict:
    """What the model predicts for each question on a fixture, before any server is asked."""
    docs = docs if docs is not None else fixtures.load(name)
    return {key: _model_answer(docs, kind, spec) for key, (kind, spec) in questions.items()}


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


def counter_steps(hex_ids: list[str]) -> set[int]:
    """The steps between consecutive ObjectIds' counters (modulo the counter's wrap)."""
    from labkit.model import objectid

    counters = [objectid.split(h).counter for h in hex_ids]
    return {(b - a) % (objectid.MAX_COUNTER + 1) for a, b in zip(counters, counters[1:],
                                                                  strict=False)}
