"""What several lessons' experiments share: asking the server and the model the kit's own
claim files' questions (``claims/*.yaml``, by ID) through the one query driver
(``engines.query``), a server-side type census, and the BSON encoder's byte counts."""

from __future__ import annotations

import copy
import itertools
from typing import TYPE_CHECKING, Any

from labkit.claims.claim import Context, Observation
from labkit.claims.files import Step, kit_claim
from labkit.engines.query import model_read, pymongo_read
from labkit.i18n import N_, Message
from labkit.model import fixtures, objectid, reads

if TYPE_CHECKING:
    from bson.codec_options import CodecOptions
    from pymongo.collection import Collection

    from labkit.model.bson_order import Document

# A lesson's questions: the label its evidence shows -> the ID of the kit's claim that asks it.
Questions = dict[str, str]


def kit_questions(claim_id: str, *labels: str) -> Questions:
    """``kit_questions("B1", "eq_42")`` -> ``{"eq_42": "B1.eq_42"}``: questions by label."""
    return {label: f"{claim_id}.{label}" for label in labels}


def _on_one_fixture(questions: Questions) -> tuple[list[dict[str, Any]], dict[str, Step]]:
    """The questions' one fixture, and each question's read."""
    specs = {label: kit_claim(claim_id) for label, claim_id in questions.items()}
    docs = next(iter(specs.values())).fixture["claim"]
    for label, spec in specs.items():
        if fixtures.dumps(spec.fixture["claim"]) != fixtures.dumps(docs):
            raise ValueError(f"{spec.where}: {label} is asked on another fixture than "
                             f"{', '.join(questions)}")
    return docs, {label: spec.steps[0] for label, spec in specs.items()}


def _as_asked(step: Step) -> str:
    """A question as the lessons write it: a filter, ``"at:-1"`` for a sort, the path a type
    census groups by."""
    arguments = step.arguments
    if step.operation == "aggregate":
        (group,) = (stage["$group"] for stage in arguments["pipeline"] if "$group" in stage)
        return fixtures.dumps(group["_id"]["$type"].removeprefix("$"))
    if arguments.get("sort"):
        return fixtures.dumps(",".join(f"{path}:{way}" for path, way in
                                       arguments["sort"].items()))
    return fixtures.dumps(arguments["filter"])


def _shaped(step: Step, result: Any) -> Any:
    """An answer as a lesson reads it: ``_id``s (sorted, unless the order is the question),
    or a census's documents as ``{type: count}``."""
    expect = step.expect
    if expect is not None and expect.kind == "ids":
        ids = reads.ids(result)
        return ids if expect.ordered else sorted(ids)
    if step.operation == "aggregate":
        return census_counts(result)
    return result


def census_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """A ``$group`` by ``{$type: "$path"}``'s documents as type alias -> documents, sorted."""
    return dict(sorted((row["_id"], next(v for k, v in row.items() if k != "_id"))
                       for row in rows))


def server_census(collection: Collection[Document], path: str) -> dict[str, int]:
    """``$group`` by ``{$type: "$path"}`` on the server: type alias -> documents."""
    pipeline = [{"$group": {"_id": {"$type": f"${path}"}, "n": {"$sum": 1}}}]
    return census_counts(pymongo_read(collection, "aggregate", {"pipeline": pipeline}))


def compare_with_model(ctx: Context, name: str, questions: Questions,
                       label: str | None = None) -> Observation:
    """Ask the server and the model the same questions about their fixture; observe the server.

    ``questions`` maps a label to the ID of a kit's claim (``claims/*.yaml``) asked on one
    fixture, inserted as collection ``name``. The evidence has one row per question, server
    beside model.
    """
    docs, steps = _on_one_fixture(questions)
    database = ctx.mongodb_database(label or name)
    collection = fixtures.insert(database, name, copy.deepcopy(docs))
    observed, rows, disagreements = {}, [], []
    for key, step in steps.items():
        server = _shaped(step, pymongo_read(collection, step.operation, step.arguments))
        model = _shaped(step, model_read(docs, step.operation, step.arguments))
        observed[key] = server
        rows.append({"question": key, "asked": _as_asked(step), "server": server,
                     "model": model})
        if fixtures.relaxed(server) != fixtures.relaxed(model):
            disagreements.append(key)
    note = (Message(N_("the model disagrees with the server on: {questions}"),
                    questions=", ".join(disagreements)) if disagreements else
            Message(N_("the model agrees with the server on every question")))
    return Observation(observed, ctx.mongodb().name, ctx.mongodb().version, rows, note=note,
                       engine_key="mongodb")


def model_answers(questions: Questions) -> dict[str, Any]:
    """What the model predicts for each question on its fixture, before any server is asked."""
    docs, steps = _on_one_fixture(questions)
    return {key: _shaped(step, model_read(docs, step.operation, step.arguments))
            for key, step in steps.items()}


def fixture_of(claim_id: str) -> list[dict[str, Any]]:
    """The documents a kit's claim (``S1.ascending``) asks its question on."""
    return kit_claim(claim_id).fixture["claim"]


def bson_engine() -> tuple[str, str]:
    """The BSON encoder these claims run on: pymongo's ``bson`` package and its version."""
    import pymongo

    return "pymongo bson", pymongo.version


def value_bytes(value: object, codec_options: CodecOptions[Any] | None = None) -> bytes:
    """The bytes BSON spends on one value: its document minus the same document holding null."""
    import bson

    doc = (bson.encode({"v": value}, codec_options=codec_options) if codec_options
           else bson.encode({"v": value}))
    # Layout: int32 length, type byte, "v\0", value, trailing \0; null has no value bytes.
    return doc[4 + 1 + 2 : -1]


def counter_steps(hex_ids: list[str]) -> set[int]:
    """The steps between consecutive ObjectIds' counters (modulo the counter's wrap)."""
    counters = [objectid.split(h).counter for h in hex_ids]
    return {(b - a) % (objectid.MAX_COUNTER + 1) for a, b in itertools.pairwise(counters)}
