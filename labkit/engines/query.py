"""The engines a claim file runs on: labkit's model of MongoDB's rules, and a real MongoDB.

Each engine answers a claim's reads on the claim's fixture. The model answers from
``labkit.model`` (the documented comparison rules); MongoDB answers through pymongo on a fresh
``labkit_`` database. The in-process fakes live in ``labkit.engines.fakes``, named as fakes.
"""

from __future__ import annotations

import copy
import difflib
import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from labkit._version import __version__
from labkit.claims.claim import one_line
from labkit.claims.spec import NEUTRAL_ARGUMENTS, Answer, ClaimSpec, Step, Ties
from labkit.engines.undefined import as_bson
from labkit.engines.writes import MODEL_WRITES, model_write, pymongo_write
from labkit.errors import (
    BadInput,
    CannotJudge,
    ModelLimit,
    NotSupported,
    said,
    write_errors,
)
from labkit.i18n import N_, Message, Text, english
from labkit.model import bson_order, expr, reads, regex
from labkit.model.bson_order import MISSING
from labkit.model.versions import CURRENT_MAJOR, check_rules_version
from labkit.names import EngineInfo, engine_name, where

if TYPE_CHECKING:
    from labkit.model.bson_order import Document
    from labkit.servers import MongoServer

ENGINES = ("model", "mongodb", "mongomock", "montydb")

# A find's arguments (besides filter and projection) as pymongo's keyword arguments.
_FIND_KWARGS = {"sort": "sort", "skip": "skip", "limit": "limit", "batchSize": "batch_size",
                "comment": "comment", "hint": "hint", "collation": "collation",
                "maxTimeMS": "max_time_ms", "allowDiskUse": "allow_disk_use", "let": "let"}


def called(key: str, detail: Text) -> Message:
    """An engine's name with what the name alone does not say: ``mongomock (in-process fake)``
    (a row's engine in a claim check's results: English in results.json, shown in the
    learner's language)."""
    return Message(N_("{engine} ({detail})"), engine=engine_name(key), detail=detail)


def _rules(version: str) -> Message:
    """What the model follows, beside its name: ``labkit's rules for MongoDB 8.0``."""
    return Message(N_("labkit's rules for MongoDB {version}"), version=version)


class Engine:
    """An engine that answers claims' reads. ``version`` is the exact version of what answers;
    ``speaks_for`` the MongoDB version its answers stand for (None: it claims none); ``detail``
    what its display name alone does not say, and ``name`` the two together."""

    key = ""
    name: Text = ""
    detail: Text = ""
    version = ""
    speaks_for: str | None = None
    topology = "single"

    @property
    def label(self) -> str:
        """The column of the matrix: ``MongoDB 7.0.14``, ``mongomock 4.3.0``."""
        return where(engine_name(self.key), self.version)

    def info(self) -> EngineInfo:
        """The engine as the run records it: key, version and detail, each a field."""
        return EngineInfo(self.key, self.version, detail=self.detail)

    def describe(self) -> str:
        """One line for the report's list of engines."""
        return self.info().line()

    def performs(self, step: Step) -> bool:
        """Whether the engine performs ``step``: every read; no write (an engine that
        writes says which it performs)."""
        return not step.writes

    def answer(self, spec: ClaimSpec, steps: list[Step]) -> list[Answer]:
        """Answer the given steps of a claim on its fixture, in order (the writes among them
        changing what the reads after them see); raise ``NotSupported`` if it cannot."""
        raise NotImplementedError


# The model -------------------------------------------------------------------------------


class ModelEngine(Engine):
    """labkit's executable model of MongoDB's documented comparison rules (``labkit.model``),
    following one MongoDB version's rule set (``model.versions.VERSIONS``; the current major
    unless told otherwise)."""

    key = "model"
    detail: Text = _rules(CURRENT_MAJOR)  # the current major's, by default
    name = called(key, detail)
    speaks_for = CURRENT_MAJOR

    def __init__(self, rules: str | None = None) -> None:
        self.version = __version__
        self.rules = check_rules_version(rules)
        self.speaks_for = self.rules
        self.detail = _rules(self.rules)
        self.name = called(self.key, self.detail)

    @property
    def label(self) -> str:
        """The column of the matrix."""
        return f"model {self.rules}"

    def performs(self, step: Step) -> bool:
        """Every read, and the inserts (``writes.MODEL_WRITES``)."""
        return not step.writes or step.operation in MODEL_WRITES

    def answer(self, spec: ClaimSpec, steps: list[Step]) -> list[Answer]:
        """The model's answer to each step, on its own copy of the fixture (it predicts
        results, never server errors)."""
        # Each collection's own list: an insert adds to it, no step changes a document, and
        # the documents stay the fixture's own (the model's UNDEFINED is known by identity).
        collections = {name: list(docs) for name, docs in spec.fixture.items()}
        answers = []
        for step in steps:
            on_database = step.on == "database"
            docs = [] if on_database else collections.setdefault(step.collection, [])
            try:
                if step.writes:
                    answers.append(Answer(model_write(docs, step.operation, step.arguments)))
                    continue
                arguments = _collated(step, spec.collations)
                value, ties = model_answer(docs, step.operation, arguments,
                                           on_database=on_database, rules=self.rules)
                answers.append(Answer(value, ties=ties))
            except (BadInput, ValueError) as exc:
                expected = step.expect is not None and step.expect.kind == "error"
                if expected and predicts_refusal(exc):  # the server's refusal, predicted
                    answers.append(Answer(raised=said(exc), server_error=True))
                    continue
                raise NotSupported(_unsupported(exc)) from exc
        return answers


def _collated(step: Step, collations: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A read's arguments with its collection's default collation where it gives none of its
    own (the manual's db.createCollection: a read without a collation uses the collection's;
    one with its own uses that)."""
    default = collations.get(step.collection) if step.on != "database" else None
    if default is None or "collation" in step.arguments:
        return step.arguments
    return {**step.arguments, "collation": default}


def predicts_refusal(exc: Exception) -> bool:
    """Whether the model's refusal ``exc`` is its prediction that MongoDB refuses the
    operation (``$mod: [4]``, ``$size: -1``, an unknown ``$type`` name: the rules it follows
    are the server's own), not something the model cannot answer (a library missing, an
    operator or stage it does not know, a value it will not guess)."""
    return isinstance(exc, BadInput) and not isinstance(exc, CannotJudge | ModelLimit)


def _unsupported(exc: Exception) -> Text:
    """Why the model gives no answer, from its refusal ``exc``: kept a message where it was
    one, and read in its English (the learner's form may be another language)."""
    reason = said(exc)
    message = english(reason)
    operator = re.search(r"\$[A-Za-z]+", message)
    if operator and "does not know" in message:
        return Message(N_("the model does not support {operator}"), operator=operator.group(0))
    if message.startswith("the model"):
        return reason
    return Message(N_("the model cannot answer: {reason}"), reason=reason)


# The arguments the model reads for each read; any other is refused, save the neutral ones.
_MODEL_ARGUMENTS = {
    "find": {"filter", "sort", "projection", "skip", "limit", "collation", "let"},
    "findOne": {"filter", "sort", "projection", "skip", "collation"},
    "countDocuments": {"filter", "skip", "limit", "collation", "hint"},
    "count": {"filter", "skip", "limit", "collation", "hint"},
    "estimatedDocumentCount": set(),
    "distinct": {"fieldName", "filter", "hint", "collation"},
    "aggregate": {"pipeline", "collation", "let"}}


def model_read(docs: list[Document], operation: str, arguments: dict[str, Any], *,
               on_database: bool = False, rules: str = CURRENT_MAJOR) -> Any:
    """What the model says a read returns on ``docs`` (documents in insertion order), by the
    rule set of MongoDB ``rules``; ``on_database``: an aggregate on the database, whose
    pipeline starts with ``$documents``. The whole read is one bound on backtracking patterns
    (``regex.one_read``): every stage's ``$match`` and ``$regexMatch`` counts toward it."""
    return model_answer(docs, operation, arguments, on_database=on_database, rules=rules)[0]


def model_answer(docs: list[Document], operation: str, arguments: dict[str, Any], *,
                 on_database: bool = False, rules: str = CURRENT_MAJOR
                 ) -> tuple[Any, Ties | None]:
    """``model_read``'s answer, and for a ``find`` (or ``findOne``) where its order is not
    decided (``Ties``; None for other reads), from the same one read."""
    with regex.one_read():
        return _model_read(docs, operation, arguments, on_database=on_database, rules=rules)


def _model_read(docs: list[Document], operation: str, arguments: dict[str, Any], *,
                on_database: bool, rules: str) -> tuple[Any, Ties | None]:
    unknown = sorted(set(arguments) - _MODEL_ARGUMENTS[operation] - set(NEUTRAL_ARGUMENTS))
    if unknown:
        raise NotSupported(Message(N_("the model does not support the {operation} option "
                                      "{option}"), operation=operation, option=unknown[0]))
    if "hint" in arguments and not _names_the_id_index(arguments["hint"]):
        raise NotSupported(Message(N_("the model supports a {operation} hint of the _id index "
                                      "only"), operation=operation))
    if "let" in arguments:
        arguments = _bound(operation, arguments)
    if operation == "aggregate":
        return _pipeline(docs, arguments["pipeline"], arguments.get("collation"),
                         on_database=on_database, rules=rules), None
    if operation == "estimatedDocumentCount":
        return len(docs), None
    if operation == "count" and int(arguments.get("limit") or 0) < 0:
        raise NotSupported(Message(N_("the model does not support a negative count limit")))
    if operation == "findOne":  # the first document find gives, or none
        found, ties = _find(docs, {**arguments, "limit": 1}, rules)
        return (found[0] if found else None), ties
    found, ties = _find(docs, arguments, rules)
    if operation == "find":
        return found, ties
    if operation in ("countDocuments", "count"):
        return len(found), None
    return _distinct(found, arguments["fieldName"], arguments.get("collation")), None


def _bound(operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A read's arguments with its ``let`` variables put where its expressions read them: in
    a find's filter, each ``$expr``; in an aggregate, each ``$match``'s ``$expr`` and each
    ``$project``'s expressions (the manual's "find" and "aggregate" command pages, ``let``)."""
    variables = expr.let_values(arguments["let"])
    out = {k: v for k, v in arguments.items() if k != "let"}
    if operation == "find":
        out["filter"] = _bound_filter(out.get("filter") or {}, variables)
        return out
    stages = []
    for stage in out["pipeline"]:
        (name, spec), = stage.items()
        if name == "$match":
            spec = _bound_filter(spec, variables)
        elif name == "$project":
            spec = {k: expr.bind(v, variables) for k, v in spec.items()}
        stages.append({name: spec})
    out["pipeline"] = stages
    return out


def _bound_filter(query: Any, variables: dict[str, Any]) -> Any:
    """A filter whose ``$expr`` (at its top, or under ``$and``, ``$or``, ``$nor``) reads the
    variables; a variable's name written elsewhere in a filter is a string, left as is."""
    if not isinstance(query, dict):
        return query
    out = {}
    for key, value in query.items():
        if key == "$expr":
            value = expr.bind(value, variables)
        elif key in ("$and", "$or", "$nor") and isinstance(value, list):
            value = [_bound_filter(item, variables) for item in value]
        out[key] = value
    return out


def _names_the_id_index(hint: Any) -> bool:
    """A hint of the _id index, which every collection has: by its name or its key. A count
    or a distinct so hinted gives what it gives without the hint."""
    return hint == "_id_" or (isinstance(hint, dict) and list(hint.items()) == [("_id", 1)])


def _ties(matched: int, runs: list[tuple[int, int]], arguments: dict[str, Any]) -> Ties:
    """Where a find's answer has documents that tie on every sort path, in the positions it
    returns them at (``matched``: how many its filter matched, before skip and limit); without
    a sort, every document it matches ties with the others, since MongoDB guarantees no order
    then (db.collection.find), which the model's fixture order would otherwise stand in for."""
    unsorted = not arguments.get("sort")
    if unsorted:
        runs = [(0, matched)] if matched > 1 else []
    start = int(arguments.get("skip") or 0)
    limit = abs(int(arguments.get("limit") or 0))
    end = start + limit if limit else matched
    inside = tuple((a - start, b - start) for a, b in runs if start <= a and b <= end)
    cut = any(a < edge < b for a, b in runs for edge in (start, end))
    return Ties(inside, cut, unsorted)


def _matched(docs: list[Document], arguments: dict[str, Any], rules: str
             ) -> tuple[list[Document], list[tuple[int, int]]]:
    """The documents a find's filter matches, in its sort's order, and the runs of them that
    tie on every sort path (``bson_order.sort_with_ties``; none without a sort)."""
    collation = arguments.get("collation")
    found = reads.find(docs, arguments.get("filter") or {}, collation, rules)
    if not arguments.get("sort"):
        return found, []
    return bson_order.sort_with_ties(found, arguments["sort"], collation)


def _find(docs: list[Document], arguments: dict[str, Any], rules: str
          ) -> tuple[list[Document], Ties]:
    """A find's documents after its skip, limit and projection, and where their order is not
    decided."""
    found, runs = _matched(docs, arguments, rules)
    ties = _ties(len(found), runs, arguments)
    found = found[int(arguments.get("skip") or 0):]
    limit = abs(int(arguments.get("limit") or 0))
    if limit:
        found = found[:limit]
    if arguments.get("projection"):
        _check_projection(arguments["projection"], stage=False)
        found = [_project(doc, arguments["projection"]) for doc in found]
    return found, ties


def _check_projection(projection: Any, stage: bool) -> None:
    """What the server refuses of a projection as it parses it, before any document: an empty
    ``$project`` (the $project page: "$project specification must have at least one field"),
    and two paths of which one holds the other (``contact`` and ``contact.address.country``:
    "Path collision"), in either order."""
    if not isinstance(projection, dict):
        raise BadInput(Message(N_("a projection is a document")))
    if stage and not projection:
        raise BadInput(Message(N_("$project specification must have at least one field")))
    paths = {str(name) for name in projection}
    for longer in sorted(paths):
        parts = longer.split(".")
        shorter = next((".".join(parts[:n]) for n in range(1, len(parts))
                        if ".".join(parts[:n]) in paths), None)
        if shorter is not None:
            raise BadInput(Message(N_("Path collision at {path}: {inner} is inside it"),
                                   path=shorter, inner=longer))


def _project(doc: Document, projection: dict[str, Any], *, computed: bool = False) -> Document:
    """Top-level inclusion or exclusion; with ``computed`` (a ``$project`` stage), also
    top-level fields computed from an expression (a field path, an operator, a ``$literal``)
    beside included ones; anything else is beyond the model."""
    if computed and any(_computes(v) for k, v in projection.items() if k != "_id"):
        return _computed(doc, projection)
    fields = {k: v for k, v in projection.items() if k != "_id"}
    if any("." in k or isinstance(v, dict) or k.startswith("$") for k, v in projection.items()):
        raise NotSupported(Message(N_("the model supports only top-level inclusion or "
                                      "exclusion projections")))
    keep_id = bool(projection.get("_id", 1))
    including = any(bool(v) for v in fields.values()) or (not fields and "_id" in projection
                                                          and keep_id)
    if including:
        out = {k: v for k, v in doc.items() if fields.get(k)}
        if keep_id and "_id" in doc:
            out = {"_id": doc["_id"], **out}
        return out
    return {k: v for k, v in doc.items()
            if not (k in fields and not fields[k]) and not (k == "_id" and not keep_id)}


def _nested(value: Any) -> bool:
    """Whether a ``$project`` value is a nested projection (``{stop: {title: 1}}``: a document
    whose keys are fields, not an operator), which the model does not apply (to an array it
    applies to each element); an expression object needs ``$literal`` to be one."""
    return isinstance(value, dict) and not any(str(k).startswith("$") for k in value)


def _computes(value: Any) -> bool:
    """Whether a ``$project`` value computes a field (an expression) rather than including or
    excluding one (a number or a boolean)."""
    return not isinstance(value, bool | int | float)


def _computed(doc: Document, projection: dict[str, Any]) -> Document:
    """A ``$project`` of computed and included top-level fields: ``_id`` unless excluded,
    then each field as the projection names it, an expression evaluated on the document (a
    field that evaluates to nothing is left out)."""
    if any("." in k or k.startswith("$") for k in projection) or any(
            (not _computes(v) and not v) or _nested(v)
            for k, v in projection.items() if k != "_id"):
        raise NotSupported(Message(N_("the model supports only top-level computed or "
                                      "included fields in a $project")))
    out: Document = {}
    if projection.get("_id", 1) and "_id" in doc and not _computes(projection.get("_id", 1)):
        out["_id"] = doc["_id"]
    for name, value in projection.items():
        if name == "_id" and not _computes(value):
            continue
        got = expr.compile_expression(value)(doc) if _computes(value) else doc.get(
            name, MISSING)
        if got is not MISSING:
            out[name] = got
    return out


def _values_at(doc: Any, parts: list[str]) -> list[Any]:
    if not parts:
        return [doc]
    if isinstance(doc, dict):
        return _values_at(doc[parts[0]], parts[1:]) if parts[0] in doc else []
    if isinstance(doc, list):
        return [v for item in doc for v in _values_at(item, parts)]
    return []


def _distinct(docs: list[Document], field: str,
              collation: dict[str, Any] | None = None) -> list[Any]:
    """Each value once (arrays give their elements), in ascending BSON order; values the
    collation makes equal (``PING`` and ``ping`` at strength 2) count once, as the first
    document gives it in the collection's order: the model's choice, which the CRUD spec's
    distinct-collation.yml (mongodb/specifications at 92b3c0b9) pins only for its two
    documents, expecting ``PING``, the first."""
    def compare(a: Any, b: Any) -> int:
        return bson_order.compare(a, b, collation)

    values: list[Any] = []
    for doc in docs:
        for value in _values_at(doc, field.split(".")):
            values.extend(value if isinstance(value, list) else [value])
    ordered = sorted(values, key=functools.cmp_to_key(compare))
    out: list[Any] = []
    for value in ordered:
        if not out or compare(out[-1], value) != 0:
            out.append(value)
    return out


def _pipeline(docs: list[Document], pipeline: list[dict[str, Any]],
              collation: dict[str, Any] | None = None, *,
              on_database: bool = False, rules: str = CURRENT_MAJOR) -> list[Document]:
    """``$match``, ``$sort``, ``$skip``, ``$limit``, ``$project`` (top-level), ``$count`` and a
    ``$group`` by ``{$type: "$path"}`` that counts, after ``$documents`` of literal documents
    where the aggregate is on a database; any other stage is not supported. The aggregate's
    collation applies to ``$match`` and ``$sort``."""
    out, pipeline = _pipeline_input(docs, pipeline, on_database)
    for stage in pipeline:
        (name, spec), = stage.items()
        if name == "$match":
            out = reads.find(out, spec, collation, rules)
        elif name == "$sort":
            out = bson_order.sort(out, spec, collation)
        elif name == "$skip":
            out = out[int(spec):]
        elif name == "$limit":
            out = out[:int(spec)]
        elif name == "$project":
            _check_projection(spec, stage=True)
            out = [_project(doc, spec, computed=True) for doc in out]
        elif name == "$count":
            out = [{spec: len(out)}] if out else []
        elif name == "$group" and _is_type_census(spec):
            path = spec["_id"]["$type"][1:]
            counter = next(k for k in spec if k != "_id")
            out = [{"_id": kind, counter: n}
                   for kind, n in reads.census(out, path).items()]
        else:
            raise NotSupported(
                Message(N_("the model does not support the stage {name} (only a count by "
                           "{example})"), name=name, example='{$type: "$path"}')
                if name == "$group" else
                _unknown_stage(name))
    return out


# The stages the model performs, by name ($group: a count by type only).
_STAGES = ("$match", "$sort", "$skip", "$limit", "$project", "$count", "$group")


def _unknown_stage(name: str) -> Message:
    """The model's refusal of a stage it does not perform, with the stage a typo was
    probably meant to be."""
    close = difflib.get_close_matches(name, _STAGES, n=1, cutoff=0.8)
    if close:
        return Message(N_("the model does not support the stage {name}: did you mean {close}? "
                          "MongoDB refuses a stage it does not know (\"Unrecognized pipeline "
                          "stage name\")"), name=name, close=close[0])
    return Message(N_("the model does not support the stage {name}"), name=name)


def _pipeline_input(docs: list[Document], pipeline: list[dict[str, Any]], on_database: bool
                    ) -> tuple[list[Document], list[dict[str, Any]]]:
    """The documents a pipeline starts from and the stages left: the collection's, or, on a
    database, those of its first stage, ``$documents``."""
    if not on_database:
        return list(docs), pipeline
    first = pipeline[0] if pipeline else {}
    if list(first) != ["$documents"]:
        raise NotSupported(Message(N_("the model supports an aggregate on a database that "
                                      "starts with $documents only")))
    return _literal_documents(first["$documents"]), pipeline[1:]


def _literal_documents(value: Any) -> list[Document]:
    """``$documents``' documents, where they are written out: no field path, variable or
    operator, which the model would have to evaluate."""
    def literal(item: Any) -> bool:
        if isinstance(item, str):
            return not item.startswith("$")
        if isinstance(item, dict):
            return all(not str(k).startswith("$") and literal(v) for k, v in item.items())
        if isinstance(item, list):
            return all(literal(v) for v in item)
        return True

    if not isinstance(value, list) or not all(isinstance(d, dict) for d in value) or \
            not literal(value):
        raise NotSupported(Message(N_("the model supports $documents of documents written out "
                                      "only")))
    return copy.deepcopy(value)


def _is_type_census(spec: Any) -> bool:
    if not isinstance(spec, dict) or len(spec) != 2:
        return False
    key = spec.get("_id")
    counter = [v for k, v in spec.items() if k != "_id"]
    return (isinstance(key, dict) and list(key) == ["$type"] and isinstance(key["$type"], str)
            and key["$type"].startswith("$") and counter == [{"$sum": 1}])


# Engines that speak pymongo's API --------------------------------------------------------


def pymongo_read(collection: Any, operation: str, arguments: dict[str, Any]) -> Any:
    """Run one read through a pymongo-like collection (pymongo, mongomock, montydb), or, for
    an aggregate on a database, a pymongo-like database."""
    args = dict(arguments)
    if operation in ("find", "findOne"):
        kwargs = {_FIND_KWARGS.get(k, k): v for k, v in args.items()
                  if k not in ("filter", "projection")}
        if "sort" in kwargs:
            kwargs["sort"] = list(kwargs["sort"].items())
        if operation == "findOne":
            return collection.find_one(args.get("filter") or {}, args.get("projection"),
                                       **kwargs)
        return list(collection.find(args.get("filter") or {}, args.get("projection"),
                                    **kwargs))
    if operation == "aggregate":
        pipeline = args.pop("pipeline")
        return list(collection.aggregate(pipeline, **args))
    if operation == "countDocuments":
        return collection.count_documents(args.pop("filter", {}) or {}, **args)
    if operation == "estimatedDocumentCount":
        return collection.estimated_document_count(**args)
    if operation == "count":  # the count command (pymongo 4 has no Collection.count)
        query = args.pop("filter", {}) or {}
        return collection.database.command("count", collection.name, query=query, **args)["n"]
    field = args.pop("fieldName")
    return collection.distinct(field, args.pop("filter", None) or {}, **args)


def load_and_read(database: Any, spec: ClaimSpec, steps: list[Step], *,
                  server_errors: tuple[type[BaseException], ...],
                  passes: tuple[type[BaseException], ...] = (),
                  arguments: Callable[[Step], dict[str, Any]] | None = None,
                  is_answer: Callable[[BaseException], bool] | None = None) -> list[Answer]:
    """Insert a claim's fixture into ``database`` and answer each step through pymongo's API
    (the server and the in-process fakes alike), a write through ``writes.pymongo_write``.
    The fixture is copied: ``insert_many`` adds an ``_id`` to what it is given (but to a
    document holding undefined, sent as BSON bytes, the server gives one). ``arguments``
    adapts a step's arguments to the engine; ``is_answer`` says which exceptions are the
    engine's answer (see ``answer_with``)."""
    # A default collation: the collection made with it before the data, on a fresh database
    # (pymongo would ask listCollections first; montydb takes the option, mongomock refuses
    # every option of create_collection, its own error).
    for name, options in spec.collations.items():
        database.create_collection(name, collation=options, check_exists=False)
    for name, docs in spec.fixture.items():
        if docs:  # a document holding undefined goes as BSON bytes (labkit.engines.undefined)
            database[name].insert_many([as_bson(doc) for doc in copy.deepcopy(docs)])
    pick = arguments or (lambda step: step.arguments)

    def perform(step: Step) -> Any:
        if step.writes:
            return pymongo_write(database[step.collection], step.operation, step.arguments)
        return pymongo_read(database if step.on == "database" else database[step.collection],
                            step.operation, pick(step))

    return answer_with(perform, steps, server_errors=server_errors, passes=passes,
                       is_answer=is_answer)


def answer_with(read: Callable[[Step], Any], steps: list[Step],
                server_errors: tuple[type[BaseException], ...] = (),
                passes: tuple[type[BaseException], ...] = (),
                is_answer: Callable[[BaseException], bool] | None = None) -> list[Answer]:
    """Each step's answer: its result, or the exception it raised as one line. Exceptions in
    ``passes`` (a lost connection) are not answers: they propagate and cost the row. An
    exception ``is_answer`` refuses (a fake's own ``TypeError``, a bug of the code that asked)
    is no answer either: it propagates, and the row is that engine's error, naming it."""
    answers = []
    for step in steps:
        try:
            answers.append(Answer(read(step)))
        except NotSupported:  # a step labkit does not send: no answer
            raise
        except passes:
            raise
        except Exception as exc:  # an engine's exception is what it answered, if it is one
            if is_answer is not None and not is_answer(exc):
                raise
            code, code_name = error_code(exc)
            answers.append(Answer(raised=one_line(exc),
                                  server_error=isinstance(exc, server_errors),
                                  code=code, code_name=code_name))
    return answers


def error_code(exc: BaseException) -> tuple[int | None, str]:
    """The server's code and code name of an error, as ``expectError``'s ``errorCode`` and
    ``errorCodeName`` read them: a command's refusal carries both in its reply; a write error
    (pymongo's WriteError, its ``details`` the write error itself) carries its code only,
    as the server writes it (WriteError::serialize in src/mongo/db/ops/write_ops.cpp,
    mongodb/mongo at 02fe612f: index, code, errmsg and errInfo, no codeName);
    a bulk write's refusal (insertMany, bulkWrite: pymongo's BulkWriteError) is pymongo's own
    code 65 over the server's write errors, so its code is the first write error's, or the
    first write concern error's where no write failed."""
    if written := write_errors(exc):
        found = written[0].get("code")
        return (found if isinstance(found, int) else None), str(written[0].get("codeName", ""))
    details = getattr(exc, "details", None)
    return getattr(exc, "code", None), str(details.get("codeName", "")) \
        if isinstance(details, dict) else ""


def deployment(client: Any) -> str:
    """The deployment a client reaches, as the Unified Test Format's ``topologies`` name it:
    "single", "replicaset", "sharded" or "load-balanced". The driver's topology type says it,
    except where it connected straight to one server (``directConnection``: "Single" for a
    replica set's member too) or knows none yet ("Unknown"): there the server's ``hello``
    says, a set name for a member, ``msg: "isdbgrid"`` for a mongos (the manual's "hello"
    page)."""
    from pymongo.errors import PyMongoError

    # the servers' room (with the URI parsers): only a run on a server comes here
    from labkit.servers import in_replica_set

    kind = client.topology_description.topology_type_name
    known = {"ReplicaSetWithPrimary": "replicaset", "ReplicaSetNoPrimary": "replicaset",
             "Sharded": "sharded", "LoadBalanced": "load-balanced"}
    if kind in known:
        return known[kind]
    try:
        hello = client.admin.command("hello")
    except PyMongoError:  # the claims' own commands will meet the failure and say it
        return "single"
    if hello.get("msg") == "isdbgrid":
        return "sharded"
    return "replicaset" if in_replica_set(hello) else "single"


class MongoDBEngine(Engine):
    """A real MongoDB server (``servers.MongoServer``): each claim in a fresh database."""

    key = "mongodb"
    name = engine_name("mongodb")

    def __init__(self, server: MongoServer) -> None:
        self.server = server
        self.name = server.name  # MongoDB, or the product that answers in its place
        self.version = server.version
        self.speaks_for = server.version
        self.topology = deployment(server.client())

    @property
    def label(self) -> str:
        """The column of the matrix."""
        return f"{self.name} {self.version}"

    def info(self) -> EngineInfo:
        """The server as the run records it (``Server.info``)."""
        return self.server.info()

    def performs(self, step: Step) -> bool:
        """Every read and every CRUD write, in the claim's own fresh database."""
        return True

    def answer(self, spec: ClaimSpec, steps: list[Step]) -> list[Answer]:
        """Insert the fixture in a fresh database, run the reads, drop the database."""
        from pymongo.errors import ConnectionFailure, OperationFailure

        database = self.server.fresh_database(f"check_{spec.id}")
        try:
            return load_and_read(database, spec, steps, server_errors=(OperationFailure,),
                                 passes=(ConnectionFailure,), is_answer=driver_raised)
        finally:
            self.server.drop(database.name)


def driver_raised(exc: BaseException) -> bool:
    """True when pymongo or bson raised ``exc``: one of their errors (a server's, or the
    driver's own refusal), or a ``TypeError``/``ValueError`` raised inside their code (how
    pymongo refuses an argument). Anything else is a bug of the code that asked, no answer."""
    import bson.errors
    import pymongo.errors

    if isinstance(exc, pymongo.errors.PyMongoError | bson.errors.BSONError):
        return True
    trace = exc.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    module = str(trace.tb_frame.f_globals.get("__name__", "")) if trace is not None else ""
    return isinstance(exc, TypeError | ValueError) and module.split(".")[0] in ("pymongo",
                                                                             "bson")
