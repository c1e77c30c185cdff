"""Claim files: a user's claims about MongoDB, by hand in YAML or JSON, read into one model.

Two forms are read. The short form is a list of claims, each a fixture, one query (``find``,
``aggregate``, ``count`` or ``distinct``) and what it should give. The drivers' Unified Test
Format (``schemaVersion``, ``initialData``, ``tests``) is read for the part that fits a claim:
``runOnRequirements``, the fixture, the read operations ``find``, ``aggregate``,
``countDocuments`` and ``distinct`` on a collection, and ``expectResult``/``expectError``. What a
claim check cannot judge there (events, client options, writes) is named per test, never
dropped. Values are Extended JSON. Every mistake is one ``BadInput`` naming file, claim and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labkit._paths import CHECKOUT
from labkit.errors import BadInput

SUFFIXES = (".yaml", ".yml", ".json")
READS = ("find", "aggregate", "countDocuments", "distinct")
# Arguments that do not change what a read returns: sent to MongoDB, ignored elsewhere.
NEUTRAL_ARGUMENTS = ("batchSize", "comment", "maxTimeMS", "allowDiskUse")
_FIND_OPTIONS = {"filter", "sort", "projection", "skip", "limit"}
_SHORT_KEYS = {"id", "title", "source", "fixture", "fixture_file", "find", "aggregate", "count",
               "distinct", "expect", "min_server_version", "max_server_version", "note"}
_EXPECT_KEYS = {"ids", "count", "error", "documents", "values"}


@dataclass(frozen=True)
class Expectation:
    """What one read should give.

    ``kind``: ``ids`` (the ``_id`` of each document returned), ``documents`` (each returned
    document matches, extra fields allowed, as the Unified Test Format matches root documents),
    ``values`` (distinct values), ``value`` (a count), ``error`` (the read raises; ``value``
    holds the Unified Test Format's ``expectError`` checks, if any).
    """

    kind: str
    value: Any = None
    ordered: bool = False

    def shown(self) -> Any:
        """The expectation as the report shows it."""
        if self.kind == "error":
            return {"error": self.value or True}
        shown = {self.kind if self.kind != "value" else "result": self.value}
        if self.kind in ("ids", "documents", "values"):
            shown["ordered"] = self.ordered
        return shown


@dataclass(frozen=True)
class Step:
    """One read of a claim: the operation, its arguments (BSON values) and what it should give."""

    operation: str
    arguments: dict
    expect: Expectation | None
    line: int
    collection: str = "claim"
    skip: str = ""  # why this read cannot be judged (it follows a write the check does not do)


@dataclass(frozen=True)
class Requirement:
    """One ``runOnRequirement``: a server version range, plus anything the check cannot test."""

    min_version: str | None = None
    max_version: str | None = None
    topologies: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()

    def text(self) -> str:
        """``MongoDB 4.4 to 7.0``, ``MongoDB 7.0 or newer``, ``any MongoDB``."""
        low, high = self.min_version, self.max_version
        if low and high:
            return f"MongoDB {low} to {high}"
        if low:
            return f"MongoDB {low} or newer"
        if high:
            return f"MongoDB {high} or older"
        return "any MongoDB"


@dataclass(frozen=True)
class ClaimSpec:
    """A claim read from a file: where it is, its fixture, its reads, the versions it speaks for.

    ``requirements`` holds groups (top level, then per test): every group must have one
    requirement met. ``not_checked`` names what the file asks that a claim check cannot judge.
    """

    id: str
    title: str
    source: str
    path: Path
    line: int
    steps: tuple[Step, ...]
    fixture: dict[str, list[dict]] = field(default_factory=dict)
    requirements: tuple[tuple[Requirement, ...], ...] = ()
    not_checked: tuple[str, ...] = ()
    skip_reason: str = ""
    form: str = "short"

    @property
    def where(self) -> str:
        """``claims/lesson01_dates.yaml:12``."""
        return f"{self.path}:{self.line}"

    @property
    def expected(self) -> Any:
        """The expectation as the report shows it (a list when the claim has several reads)."""
        shown = [s.expect.shown() for s in self.steps if s.expect is not None]
        return shown[0] if len(shown) == 1 else shown


# Reading YAML with line numbers ----------------------------------------------------------


def _loader_class():
    import yaml

    class Loader(yaml.SafeLoader):
        """YAML as JSON sees it: ``2026-10-01`` stays a string, not a date."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers
                if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    return Loader


class _Node:
    """A parsed value with the line it starts on, and its children's nodes."""

    def __init__(self, node) -> None:
        self.node = node

    @property
    def line(self) -> int:
        return self.node.start_mark.line + 1

    def item(self, index: int) -> _Node:
        return _Node(self.node.value[index])

    def key(self, name: str) -> _Node | None:
        """The node of a mapping's value (its line is where the key is written)."""
        for key_node, value_node in getattr(self.node, "value", []):
            if getattr(key_node, "value", None) == name:
                return _Node(value_node)
        return None

    def line_of(self, *path: str | int) -> int:
        node: _Node | None = self
        line = self.line
        for part in path:
            if node is None:
                break
            node = node.item(part) if isinstance(part, int) else node.key(part)
            if node is not None:
                line = node.line
        return line


def _parse(path: Path) -> tuple[Any, _Node]:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"{path}: cannot read it: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path}: not UTF-8 text") from exc
    loader = _loader_class()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise BadInput(f"{path}:1: the file is empty; write a list of claims")
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise BadInput(f"{path}:{line}: not valid YAML or JSON: {exc.problem or exc}") from exc
    except yaml.YAMLError as exc:
        raise BadInput(f"{path}: not valid YAML or JSON: {exc}") from exc
    finally:
        loader.dispose()
    return data, _Node(node)


def extended_json(value: Any, where: str = "the value") -> Any:
    """A value as read from YAML or JSON, with Extended JSON (``$numberDecimal``, ``$date``, …)
    turned into BSON values, exactly as ``fixtures`` reads the data files."""
    from labkit.model import fixtures

    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError) as exc:
        raise BadInput(f"not a JSON value: {exc}") from exc
    return fixtures.parse_value(text, where)


# Finding files ---------------------------------------------------------------------------


def claim_files(paths: Iterable[str | Path]) -> list[Path]:
    """The claim files named, with every ``.yaml``, ``.yml`` or ``.json`` under a folder."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
            if not inside:
                raise BadInput(f"{path}: no claim files (.yaml, .yml, .json) in this folder")
            found += inside
        elif path.is_file():
            if path.suffix not in SUFFIXES:
                raise BadInput(f"{path}: a claim file ends in .yaml, .yml or .json")
            found.append(path)
        else:
            raise BadInput(f"{path}: no such file or folder")
    return list(dict.fromkeys(found))


# The kit's own query claims as claim files (D3, S2, B1, B2, X1-X5), in a checkout.
KIT_CLAIMS = CHECKOUT / "claims"


def load(paths: Iterable[str | Path]) -> list[ClaimSpec]:
    """Read every claim in the given files and folders; IDs must be unique across them."""
    specs: list[ClaimSpec] = []
    seen: dict[str, ClaimSpec] = {}
    for path in claim_files(paths):
        for spec in read(path):
            if spec.id in seen:
                raise BadInput(f"{spec.where}: claim {spec.id!r}: the ID is already used at "
                               f"{seen[spec.id].where}")
            seen[spec.id] = spec
            specs.append(spec)
    return specs


def read(path: str | Path) -> list[ClaimSpec]:
    """Read one claim file: the short form (a list) or the Unified Test Format (an object)."""
    path = Path(path)
    data, node = _parse(path)
    if isinstance(data, list):
        return _read_short(path, data, node)
    if isinstance(data, dict) and "tests" in data:
        return _read_unified(path, data, node)
    raise BadInput(f"{path}:{node.line}: a claim file is a list of claims, or a Unified Test "
                   "Format file (an object with schemaVersion and tests)")


# The short form --------------------------------------------------------------------------


class _Where:
    """Builds the one-line error for a claim: ``file:line: claim 'id': problem``."""

    def __init__(self, path: Path, node: _Node, claim_id: str | None) -> None:
        self.path, self.node, self.claim_id = path, node, claim_id

    def error(self, problem: str, *at: str | int) -> BadInput:
        who = f"claim {self.claim_id!r}" if self.claim_id else "a claim"
        return BadInput(f"{self.path}:{self.node.line_of(*at)}: {who}: {problem}")

    def bson(self, value: Any, what: str, *at: str | int) -> Any:
        try:
            return extended_json(value, what)
        except BadInput as exc:
            raise self.error(f"not Extended JSON: {exc}", *at) from exc


def _read_short(path: Path, data: list, node: _Node) -> list[ClaimSpec]:
    if not data:
        raise BadInput(f"{path}:{node.line}: the file has no claims")
    return [_short_claim(path, entry, node.item(i)) for i, entry in enumerate(data)]


def _short_claim(path: Path, entry: Any, node: _Node) -> ClaimSpec:
    claim_id = entry.get("id") if isinstance(entry, dict) else None
    where = _Where(path, node, claim_id if isinstance(claim_id, str) else None)
    if not isinstance(entry, dict):
        raise where.error("each claim is a mapping with id, title, fixture, a query and expect")
    unknown = sorted(set(entry) - _SHORT_KEYS)
    if unknown:
        raise where.error(f"unknown key {unknown[0]!r}; a claim has "
                          f"{', '.join(sorted(_SHORT_KEYS))}", unknown[0])
    for key in ("id", "title"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise where.error(f"{key!r} is missing or not a text", key)
    queries = [k for k in ("find", "aggregate", "count", "distinct") if k in entry]
    if len(queries) != 1:
        raise where.error("needs exactly one of find, aggregate, count, distinct"
                          + (f" (has {', '.join(queries)})" if queries else ""))
    operation, arguments = _short_query(where, queries[0], entry[queries[0]])
    if "expect" not in entry:
        raise where.error("'expect' is missing: ids, count, error, documents or values")
    expect = _short_expect(where, entry["expect"])
    versions = {k: entry.get(k) for k in ("min_server_version", "max_server_version")}
    for key, value in versions.items():
        if value is not None and not _is_version(value):
            raise where.error(f"{key} must be a version such as \"7.0\", not {value!r}", key)
    requirement = Requirement(_text(versions["min_server_version"]),
                              _text(versions["max_server_version"]))
    return ClaimSpec(
        id=entry["id"].strip(), title=entry["title"].strip(),
        source=str(entry.get("source") or "not given"), path=path, line=node.line,
        steps=(Step(operation, arguments, expect, node.line_of(queries[0])),),
        fixture={"claim": _short_fixture(where, path, entry)},
        requirements=((requirement,),) if requirement != Requirement() else ())


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _short_fixture(where: _Where, path: Path, entry: dict) -> list[dict]:
    if ("fixture" in entry) == ("fixture_file" in entry):
        raise where.error("needs exactly one of fixture (a list of documents) or fixture_file")
    if "fixture_file" in entry:
        from labkit.model import fixtures

        name = entry["fixture_file"]
        if not isinstance(name, str):
            raise where.error("fixture_file must be a path", "fixture_file")
        target = path.parent / name
        if not target.is_file():
            raise where.error(f"fixture_file {name!r} is not a file (paths are relative to "
                              "the claim file)", "fixture_file")
        try:
            return fixtures.read(target)
        except BadInput as exc:
            raise where.error(f"fixture_file {name!r}: {exc}", "fixture_file") from exc
    docs = entry["fixture"]
    if not isinstance(docs, list) or not all(isinstance(d, dict) for d in docs):
        raise where.error("fixture must be a list of documents", "fixture")
    return [where.bson(doc, f"fixture document {i + 1}", "fixture", i)
            for i, doc in enumerate(docs)]


def _short_query(where: _Where, kind: str, value: Any) -> tuple[str, dict]:
    if kind == "find":
        if not isinstance(value, dict):
            raise where.error("find is a filter document, or {filter, sort, projection, "
                              "skip, limit}", "find")
        long_form = bool(value) and set(value) <= _FIND_OPTIONS
        arguments = dict(value) if long_form else {"filter": value}
        arguments.setdefault("filter", {})
        for key in ("skip", "limit"):
            if key in arguments and (not isinstance(arguments[key], int)
                                     or isinstance(arguments[key], bool)):
                raise where.error(f"find's {key} must be a whole number", "find", key)
        for key in ("filter", "sort", "projection"):
            if key in arguments and not isinstance(arguments[key], dict):
                raise where.error(f"find's {key} must be a document", "find")
        return "find", where.bson(arguments, "find", "find")
    if kind == "aggregate":
        if not isinstance(value, list) or not all(isinstance(s, dict) and len(s) == 1
                                                  for s in value):
            raise where.error("aggregate is a pipeline: a list of stages, each one "
                              "{$stage: …}", "aggregate")
        return "aggregate", {"pipeline": where.bson(value, "aggregate", "aggregate")}
    if kind == "count":
        if not isinstance(value, dict):
            raise where.error("count is a filter document", "count")
        return "countDocuments", {"filter": where.bson(value, "count", "count")}
    if not isinstance(value, dict) or not isinstance(value.get("field"), str) or (
            set(value) - {"field", "filter"}):
        raise where.error("distinct is {field: name, filter: {…}}", "distinct")
    return "distinct", {"fieldName": value["field"],
                        "filter": where.bson(value.get("filter", {}), "distinct", "distinct")}


def _short_expect(where: _Where, value: Any) -> Expectation:
    if not isinstance(value, dict):
        raise where.error("expect is a mapping: {ids: […]}, {count: N}, {error: true}, "
                          "{documents: […]} or {values: […]}", "expect")
    kinds = sorted(set(value) & _EXPECT_KEYS)
    extra = sorted(set(value) - _EXPECT_KEYS - {"ordered"})
    if extra:
        raise where.error(f"expect has an unknown key {extra[0]!r}", "expect", extra[0])
    if len(kinds) != 1:
        raise where.error("expect needs exactly one of ids, count, error, documents, values",
                          "expect")
    kind = kinds[0]
    ordered = value.get("ordered", False)
    if not isinstance(ordered, bool):
        raise where.error("expect's ordered must be true or false", "expect", "ordered")
    given = value[kind]
    if kind == "error":
        if given is not True:
            raise where.error("expect's error must be true", "expect", "error")
        return Expectation("error")
    if kind == "count":
        if not isinstance(given, int) or isinstance(given, bool) or given < 0:
            raise where.error("expect's count must be a whole number", "expect", "count")
        return Expectation("value", given)
    if not isinstance(given, list):
        raise where.error(f"expect's {kind} must be a list", "expect", kind)
    if kind == "documents" and not all(isinstance(d, dict) for d in given):
        raise where.error("expect's documents must be a list of documents", "expect", kind)
    return Expectation(kind, where.bson(given, f"expect's {kind}", "expect", kind), ordered)


def _is_version(value: Any) -> bool:
    import re

    return isinstance(value, str | int | float) and not isinstance(value, bool) and bool(
        re.fullmatch(r"\d+(\.\d+){0,2}", str(value)))


# The Unified Test Format -----------------------------------------------------------------

_WRITES = {"insertOne", "insertMany", "updateOne", "updateMany", "replaceOne", "deleteOne",
           "deleteMany", "bulkWrite", "findOneAndUpdate", "findOneAndReplace",
           "findOneAndDelete", "clientBulkWrite", "createIndex", "dropIndex", "drop",
           "createCollection", "dropCollection", "rename"}
_CLIENT_PLAIN = {"id"}  # client options that change nothing a claim check judges
_ERROR_CHECKS = {"isError", "isClientError", "errorContains", "errorCode", "errorCodeName"}
_TEST_JUDGED = {"description", "operations", "runOnRequirements", "skipReason"}


def _read_unified(path: Path, data: dict, node: _Node) -> list[ClaimSpec]:
    def error(problem: str, *at: str | int) -> BadInput:
        return BadInput(f"{path}:{node.line_of(*at)}: {problem}")

    version = str(data.get("schemaVersion", ""))
    if not _is_version(version):
        raise error("a Unified Test Format file needs schemaVersion, such as \"1.0\"",
                    "schemaVersion")
    if version.split(".")[0] != "1":
        raise error(f"schemaVersion {version} is not supported: labkit reads version 1.x",
                    "schemaVersion")
    if not isinstance(data["tests"], list) or not data["tests"]:
        raise error("tests must be a list of one or more tests", "tests")
    collections, client_options = _unified_entities(data, error)
    fixture = _unified_data(data, collections, error)
    top = _requirements(data.get("runOnRequirements"), error, "runOnRequirements")
    name = str(data.get("description") or path.stem)
    specs = []
    for index, test in enumerate(data["tests"]):
        at = ("tests", index)
        if not isinstance(test, dict) or not isinstance(test.get("description"), str):
            raise error("each test needs a description", *at)
        specs.append(_unified_test(path, name, index, test, node, collections, client_options,
                                   fixture, top, error))
    return specs


def _unified_entities(data: dict, error) -> tuple[dict[str, tuple[str, str, str]], dict]:
    """Collection entities (id -> client, database, collection) and each client's options."""
    databases: dict[str, tuple[str, str]] = {}
    collections: dict[str, tuple[str, str, str]] = {}
    clients: dict[str, list[str]] = {}
    entities = data.get("createEntities") or []
    if not isinstance(entities, list):
        raise error("createEntities must be a list", "createEntities")
    for i, entity in enumerate(entities):
        if not isinstance(entity, dict) or len(entity) != 1:
            raise error("each entity has exactly one key (client, database, collection, …)",
                        "createEntities", i)
        (kind, spec), = entity.items()
        if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
            raise error(f"the {kind} entity needs an id", "createEntities", i)
        if kind == "client":
            clients[spec["id"]] = sorted(set(spec) - _CLIENT_PLAIN)
        elif kind == "database":
            databases[spec["id"]] = (spec.get("client", ""), str(spec.get("databaseName", "")))
        elif kind == "collection":
            client, database = databases.get(spec.get("database", ""), ("", ""))
            if not database:
                raise error(f"collection {spec['id']!r} names no known database entity",
                            "createEntities", i)
            options = sorted(set(spec) - {"id", "database", "collectionName"})
            if options:
                clients.setdefault(f"collection {spec['id']}", options)
            collections[spec["id"]] = (client, database, str(spec.get("collectionName", "")))
    return collections, clients


def _unified_data(data: dict, collections: dict, error) -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = {}
    initial = data.get("initialData") or []
    if not isinstance(initial, list):
        raise error("initialData must be a list", "initialData")
    for i, block in enumerate(initial):
        if not isinstance(block, dict) or not isinstance(block.get("documents"), list):
            raise error("each initialData entry needs collectionName, databaseName and "
                        "documents", "initialData", i)
        try:
            docs = extended_json(block["documents"])
        except BadInput as exc:
            raise error(f"initialData documents are {exc}", "initialData", i) from exc
        out[(str(block.get("databaseName", "")), str(block.get("collectionName", "")))] = docs
    return out


def _requirements(value: Any, error, *at: str | int) -> tuple[Requirement, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(r, dict) for r in value):
        raise error("runOnRequirements must be a list of one or more objects", *at)
    out = []
    for i, req in enumerate(value):
        for key in ("minServerVersion", "maxServerVersion"):
            if key in req and not _is_version(req[key]):
                raise error(f"{key} must be a version such as \"4.4.0\"", *at, i)
        unknown = tuple(f"{k}: {json.dumps(v)}" for k, v in req.items()
                        if k not in ("minServerVersion", "maxServerVersion", "topologies")
                        and not (k == "serverless" and v in ("allow", "forbid")))
        out.append(Requirement(_text(req.get("minServerVersion")),
                               _text(req.get("maxServerVersion")),
                               tuple(req.get("topologies") or ()), unknown))
    return tuple(out)


def _unified_test(path, name, index, test, node, collections, client_options, fixture, top,
                  error) -> ClaimSpec:
    at = ("tests", index)
    operations = test.get("operations")
    if not isinstance(operations, list):
        raise error("a test needs operations, a list", *at, "operations")
    not_checked = [key for key in sorted(test) if key not in _TEST_JUDGED]
    steps: list[Step] = []
    used: set[str] = set()
    wrote = ""
    for i, op in enumerate(operations):
        op_at = (*at, "operations", i)
        if not isinstance(op, dict) or not isinstance(op.get("name"), str):
            raise error("each operation needs a name", *op_at)
        name_, target = op["name"], op.get("object")
        if name_ not in READS or target not in collections:
            what = "write operation" if name_ in _WRITES else "operation"
            not_checked.append(f"{what} {name_} on {target} (not performed)")
            if name_ in _WRITES or target == "testRunner":
                wrote = wrote or f"{name_} on {target}"
            continue
        used.add(target)
        arguments = op.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise error("an operation's arguments must be an object", *op_at, "arguments")
        try:
            arguments = extended_json(arguments)
        except BadInput as exc:
            raise error(f"the arguments are {exc}", *op_at, "arguments") from exc
        if name_ == "aggregate" and not isinstance(arguments.get("pipeline"), list):
            raise error("aggregate needs a pipeline", *op_at, "arguments")
        if name_ == "distinct" and not isinstance(arguments.get("fieldName"), str):
            raise error("distinct needs fieldName", *op_at, "arguments")
        if "session" in arguments:
            not_checked.append(f"the session argument of {name_} (not used)")
            arguments.pop("session")
        neutral = sorted(k for k in arguments if k in NEUTRAL_ARGUMENTS)
        if neutral:
            not_checked.append(f"{name_} argument {', '.join(neutral)}: sent to MongoDB only "
                               "(it does not change a result)")
        expect = _unified_expect(op, name_, error, op_at)
        if expect is None and not op.get("ignoreResultAndError"):
            not_checked.append(f"{name_}: nothing to judge (no expectResult or expectError)")
        database, collection = collections[target][1:]
        steps.append(Step(name_, arguments, expect, node.line_of(*op_at), collection,
                          skip=f"it follows {wrote}, which a claim check does not perform"
                          if wrote else ""))
    for target in sorted(used):
        client = collections[target][0]
        for options_of in (client, f"collection {target}"):
            if client_options.get(options_of):
                not_checked.append(f"{options_of if options_of != client else 'client ' + client}"
                                   f" options {', '.join(client_options[options_of])}")
    databases = {collections[t][1] for t in used}
    docs = {coll: items for (db, coll), items in fixture.items() if db in databases or not used}
    groups = tuple(g for g in (top, _requirements(test.get("runOnRequirements"), error,
                                                   *at, "runOnRequirements")) if g)
    skip = test.get("skipReason", "")
    return ClaimSpec(
        id=f"{path.stem}: {test['description']}", title=test["description"],
        source=f"Unified Test Format file {path.name} ({name})", path=path,
        line=node.line_of(*at), steps=tuple(steps), fixture=docs, requirements=groups,
        not_checked=tuple(dict.fromkeys(not_checked)), skip_reason=str(skip), form="unified")


def _unified_expect(op: dict, name: str, error, at: tuple) -> Expectation | None:
    if "expectError" in op:
        checks = op["expectError"]
        if not isinstance(checks, dict) or not checks:
            raise error("expectError needs at least one assertion", *at, "expectError")
        try:
            checks = extended_json(checks)
        except BadInput as exc:
            raise error(f"expectError is {exc}", *at, "expectError") from exc
        return Expectation("error", checks)
    if "expectResult" not in op:
        return None
    try:
        result = extended_json(op["expectResult"])
    except BadInput as exc:
        raise error(f"expectResult is {exc}", *at, "expectResult") from exc
    if name in ("find", "aggregate"):
        if not isinstance(result, list):
            raise error(f"{name}'s expectResult must be a list of documents", *at,
                        "expectResult")
        return Expectation("documents", result, ordered=True)
    if name == "distinct":
        if not isinstance(result, list):
            raise error("distinct's expectResult must be a list", *at, "expectResult")
        return Expectation("values", result, ordered=True)
    return Expectation("value", result)


def unjudged_checks(expect: Expectation) -> list[str]:
    """The ``expectError`` assertions a claim check does not judge (labels, write errors…)."""
    if expect.kind != "error" or not isinstance(expect.value, dict):
        return []
    return sorted(set(expect.value) - _ERROR_CHECKS)


def version_tuple(text: str) -> tuple[int, ...]:
    """``"4.4.14"`` -> ``(4, 4, 14)``; missing parts are 0, as the format compares them."""
    parts = [int(p) for p in str(text).split("-")[0].split(".")[:3] if p.isdigit()]
    return tuple(parts + [0] * (3 - len(parts)))

