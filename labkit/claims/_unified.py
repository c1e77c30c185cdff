"""The drivers' Unified Test Format (``schemaVersion``, ``initialData``, ``tests``), read for the
part that fits a claim: ``runOnRequirements``, the fixture, the reads a claim check performs
(``find``, ``findOne``, ``aggregate``, ``countDocuments``, ``estimatedDocumentCount``, ``count``
and ``distinct`` on a collection; ``aggregate`` on a database), the CRUD writes on a collection
(``spec.WRITES``, performed where an engine writes), ``expectResult``/``expectError`` and the
test's ``outcome`` (read back as a ``find`` sorted by ``_id``). The lists of reads and writes
are closed: any other operation may change what a later read sees, so the steps after it are
not judged, naming it. What a claim check cannot judge there (events, client options, other
operations) is named per test, never dropped; a test none of whose steps can be judged says
why."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labkit.claims._source import Node, extended_json, shell_notation
from labkit.claims.bounds import Requirement, is_version, version_text
from labkit.claims.spec import (
    NEUTRAL_ARGUMENTS,
    READS,
    WRITES,
    ClaimSpec,
    Document,
    Expectation,
    Step,
)
from labkit.errors import BadInput, said
from labkit.i18n import N_, Message, Text, joined

# Builds the one-line error for a problem at a place in the file (keys and indexes).
ErrorAt = Callable[..., BadInput]

# Operations a claim check does not perform that change no data a later read sees: the test
# runner's assertions and waits (unified-test-format.md, "Special Test Operations", at
# mongodb/specifications 92b3c0b9) and the listings of databases, collections and indexes.
# Every other operation not performed, known or not, counts as one that may change the data.
_LEAVES_DATA = {
    "assertSessionTransactionState", "assertSessionPinned", "assertSessionUnpinned",
    "assertDifferentLsidOnLastTwoCommands", "assertSameLsidOnLastTwoCommands",
    "assertSessionDirty", "assertSessionNotDirty", "assertCollectionExists",
    "assertCollectionNotExists", "assertIndexExists", "assertIndexNotExists",
    "assertNumberConnectionsCheckedOut", "waitForEvent", "assertEventCount",
    "recordTopologyDescription", "assertTopologyType", "wait",
    "listDatabases", "listDatabaseNames", "listCollections", "listCollectionNames",
    "listIndexes", "listIndexNames", "listSearchIndexes"}
# What each CRUD write cannot do without (crud.md's signatures): the argument and its type.
_WRITE_NEEDS: dict[str, tuple[str, Any]] = {
    "insertOne": ("document", dict), "insertMany": ("documents", list),
    "bulkWrite": ("requests", list), "updateOne": ("update", dict | list),
    "updateMany": ("update", dict | list), "replaceOne": ("replacement", dict),
    "deleteOne": ("filter", dict), "deleteMany": ("filter", dict),
    "findOneAndUpdate": ("update", dict | list), "findOneAndReplace": ("replacement", dict),
    "findOneAndDelete": ("filter", dict)}
_WRITING_STAGES = ("$out", "$merge")  # an aggregate with one of these writes a collection
_CLIENT_PLAIN = {"id"}  # client options that change nothing a claim check judges
_TEST_JUDGED = {"description", "operations", "runOnRequirements", "skipReason", "outcome"}
# What a test may expect besides its operations' results and outcome, which a check does not
# judge.
_ALSO_EXPECTED = ("expectEvents", "expectLogMessages")


@dataclass(frozen=True)
class _Unperformed:
    """An operation the check does not perform: its words, whether it may change the data,
    whether the test expects a result or error of it."""

    what: Text
    changes: bool
    expected: bool


@dataclass(frozen=True)
class _File:
    """What a file gives every test: its collections, clients' options, data and requirements."""

    path: Path
    node: Node
    name: str
    collections: dict[str, tuple[str, str, str]]
    databases: dict[str, tuple[str, str]]
    client_options: dict[str, list[str]]
    fixture: dict[tuple[str, str], list[Document]]
    requirements: tuple[Requirement, ...]

    def error(self, problem: Message, *at: str | int) -> BadInput:
        """The error for a problem at ``at`` (keys and indexes from the file's top)."""
        return _at(self.path, self.node, problem, *at)


def _at(path: Path, node: Node, problem: Message, *at: str | int) -> BadInput:
    """The error for ``problem`` at ``at`` in the file, its line first."""
    return BadInput(Message("{path}:{line:d}: {problem}", path=str(path),
                            line=node.line_of(*at), problem=problem))


def _bson(path: Path, node: Node, value: Any, problem: str, *at: str | int) -> Any:
    """The value at ``at`` read as Extended JSON; a mistake is ``problem`` (a template of
    ``{problem}``) at ``at``, and an unquoted value in mongosh's notation is refused on its
    own line."""
    found = shell_notation(node.at(*at))
    if found is not None:
        raise BadInput(Message("{path}:{line:d}: {problem}", path=str(path), line=found.line,
                               problem=found.problem))
    try:
        return extended_json(value)
    except BadInput as exc:
        raise _at(path, node, Message(problem, problem=said(exc)), *at) from exc


def read_unified(path: Path, data: dict[str, Any], node: Node) -> list[ClaimSpec]:
    """The claims of a Unified Test Format file: one per test."""
    def error(problem: Message, *at: str | int) -> BadInput:
        return _at(path, node, problem, *at)

    version = str(data.get("schemaVersion", ""))
    if not is_version(version):
        raise error(Message(N_("a Unified Test Format file needs schemaVersion, such as "
                               "\"1.0\"")), "schemaVersion")
    if version.split(".")[0] != "1":
        raise error(Message(N_("schemaVersion {version} is not supported: labkit reads "
                               "version 1.x"), version=version), "schemaVersion")
    if not isinstance(data["tests"], list) or not data["tests"]:
        raise error(Message(N_("tests must be a list of one or more tests")), "tests")
    collections, databases, client_options = _unified_entities(data, error)
    file = _File(path, node, str(data.get("description") or path.stem), collections,
                 databases, client_options, _unified_data(data, path, node),
                 _requirements(data.get("runOnRequirements"), error, "runOnRequirements"))
    specs = []
    for index, test in enumerate(data["tests"]):
        if not isinstance(test, dict) or not isinstance(test.get("description"), str):
            raise error(Message(N_("each test needs a description")), "tests", index)
        specs.append(_unified_test(file, index, test))
    return specs


def _unified_entities(data: dict[str, Any], error: ErrorAt
                      ) -> tuple[dict[str, tuple[str, str, str]], dict[str, tuple[str, str]],
                                 dict[str, list[str]]]:
    """Collection entities (id -> client, database, collection), database entities (id ->
    client, database) and each client's options."""
    databases: dict[str, tuple[str, str]] = {}
    collections: dict[str, tuple[str, str, str]] = {}
    clients: dict[str, list[str]] = {}
    entities = data.get("createEntities") or []
    if not isinstance(entities, list):
        raise error(Message(N_("createEntities must be a list")), "createEntities")
    for i, entity in enumerate(entities):
        if not isinstance(entity, dict) or len(entity) != 1:
            raise error(Message(N_("each entity has exactly one key (client, database, "
                                   "collection, …)")), "createEntities", i)
        (kind, spec), = entity.items()
        if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
            raise error(Message(N_("the {kind} entity needs an id"), kind=kind),
                        "createEntities", i)
        if kind == "client":
            clients[spec["id"]] = sorted(set(spec) - _CLIENT_PLAIN)
        elif kind == "database":
            databases[spec["id"]] = (spec.get("client", ""), str(spec.get("databaseName", "")))
        elif kind == "collection":
            client, database = databases.get(spec.get("database", ""), ("", ""))
            if not database:
                raise error(Message(N_("collection {id} names no known database entity"),
                                    id=repr(spec["id"])), "createEntities", i)
            options = sorted(set(spec) - {"id", "database", "collectionName"})
            if options:
                clients.setdefault(f"collection {spec['id']}", options)
            collections[spec["id"]] = (client, database, str(spec.get("collectionName", "")))
    return collections, databases, clients


def _unified_data(data: dict[str, Any], path: Path, node: Node
                  ) -> dict[tuple[str, str], list[Document]]:
    out: dict[tuple[str, str], list[Document]] = {}
    initial = data.get("initialData") or []
    if not isinstance(initial, list):
        raise _at(path, node, Message(N_("initialData must be a list")), "initialData")
    for i, block in enumerate(initial):
        if not isinstance(block, dict) or not isinstance(block.get("documents"), list):
            raise _at(path, node, Message(N_("each initialData entry needs collectionName, "
                                             "databaseName and documents")), "initialData", i)
        docs = _bson(path, node, block["documents"], N_("initialData documents are {problem}"),
                     "initialData", i, "documents")
        out[(str(block.get("databaseName", "")), str(block.get("collectionName", "")))] = docs
    return out


def _requirements(value: Any, error: ErrorAt, *at: str | int) -> tuple[Requirement, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(r, dict) for r in value):
        raise error(Message(N_("runOnRequirements must be a list of one or more objects")),
                    *at)
    out = []
    for i, req in enumerate(value):
        for key in ("minServerVersion", "maxServerVersion"):
            if key in req and not is_version(req[key]):
                raise error(Message(N_("{key} must be a version such as \"4.4.0\""), key=key),
                            *at, i)
        unknown = tuple(f"{k}: {json.dumps(v)}" for k, v in req.items()
                        if k not in ("minServerVersion", "maxServerVersion", "topologies")
                        and not (k == "serverless" and v in ("allow", "forbid")))
        out.append(Requirement(version_text(req.get("minServerVersion")),
                               version_text(req.get("maxServerVersion")),
                               tuple(req.get("topologies") or ()), unknown))
    return tuple(out)


def _unified_test(file: _File, index: int, test: dict[str, Any]) -> ClaimSpec:
    at: tuple[str | int, ...] = ("tests", index)
    operations = test.get("operations")
    if not isinstance(operations, list):
        raise file.error(Message(N_("a test needs operations, a list")), *at, "operations")
    not_checked: list[Text] = [key for key in sorted(test) if key not in _TEST_JUDGED]
    steps, used, unperformed = _unified_steps(file, operations, at, not_checked)
    wrote = next((u.what for u in unperformed if u.changes), "")
    steps += _outcome(file, test, at, Message(N_("it follows {write}, which a claim check "
                                                 "does not perform"), write=wrote)
                      if wrote else "")
    described: list[Message] = [Message(N_("{name} on {target}"), name=str(op.get("name")),
                                    target=str(op.get("object"))) for op in operations]
    not_checked += _client_notes(file, used)
    databases = {_database_of(file, t) for t in used}
    outcome = {(str(c.get("databaseName", "")), str(c.get("collectionName", "")))
               for c in test.get("outcome") or () if isinstance(c, dict)}
    docs = {coll: items for (db, coll), items in file.fixture.items()
            if db in databases or not used or (db, coll) in outcome}
    own = _requirements(test.get("runOnRequirements"), file.error, *at, "runOnRequirements")
    groups = tuple(g for g in (file.requirements, own) if g)
    skip = test.get("skipReason", "")
    also = tuple(key for key in _ALSO_EXPECTED if key in test)
    return ClaimSpec(
        id=f"{file.path.stem}: {test['description']}", title=test["description"],
        source=f"Unified Test Format file {file.path.name} ({file.name})", path=file.path,
        line=file.node.line_of(*at), steps=tuple(steps), fixture=docs, requirements=groups,
        not_checked=tuple(dict.fromkeys(not_checked)), skip_reason=str(skip), form="unified",
        also_expected=also, unjudged=_unjudged(steps, unperformed, also, described))


def _database_of(file: _File, target: str) -> str:
    """The database name of a collection or database entity."""
    if target in file.collections:
        return file.collections[target][1]
    return file.databases[target][1]


def _unjudged(steps: list[Step], unperformed: list[_Unperformed], also: tuple[str, ...],
              described: list[Message]) -> Text:
    """Why none of a test's reads can be judged, its own cause; ``""`` when one can."""
    if any(s.expect is not None and not s.skip for s in steps):
        return ""
    following = next((s for s in steps if s.expect is not None), None)
    if following is not None:
        return Message(N_("{operation} at line {line:d}: {why}"),
                       operation=following.operation, line=following.line, why=following.skip)
    expected = next((u for u in unperformed if u.expected), None)
    if expected is not None:
        return Message(N_("what it expects is of {operation}, which may change the data and "
                          "which a claim check does not perform") if expected.changes else
                       N_("what it expects is of {operation}, which a claim check does not "
                          "perform"), operation=expected.what)
    operations = joined(", ", dict.fromkeys(described))
    if also:
        return Message(N_("it checks only {checks}, which a claim check does not judge (its "
                          "operations: {operations})"), checks=", ".join(also),
                       operations=operations)
    return Message(N_("no operation has an expected result or error (its operations: "
                      "{operations})"), operations=operations)


def _unified_steps(file: _File, operations: list[Any], at: tuple[str | int, ...],
                   not_checked: list[Text]) -> tuple[list[Step], set[str], list[_Unperformed]]:
    """The test's reads and CRUD writes as steps, the entities they use and the operations not
    performed;
    every operation not performed, and what a step cannot judge, is added to ``not_checked``
    in the order met. A read after an operation that may change the data is kept, marked with
    it (its ``skip``)."""
    steps: list[Step] = []
    used: set[str] = set()
    unperformed: list[_Unperformed] = []
    wrote: Text = ""
    for i, op in enumerate(operations):
        op_at = (*at, "operations", i)
        if not isinstance(op, dict) or not isinstance(op.get("name"), str):
            raise file.error(Message(N_("each operation needs a name")), *op_at)
        name, target = op["name"], str(op.get("object"))
        on = _read_target(file, name, target, op)
        if on or (name in WRITES and target in file.collections):
            used.add(target)
            steps.append(_unified_step(file, op, op_at, on or "collection", wrote,
                                       not_checked))
            continue
        changes = name not in _LEAVES_DATA
        stage = _writes(op) if name == "aggregate" else ""
        what = Message(N_("aggregate with {stage} on {target}"), stage=stage, target=target) \
            if stage else Message(N_("{name} on {target}"), name=name, target=target)
        unperformed.append(_Unperformed(what, changes, "expectResult" in op
                                        or "expectError" in op))
        not_checked.append(Message(N_("{operation} (not performed: it may change the data)")
                                   if changes else N_("{operation} (not performed)"),
                                   operation=what))
        if changes:
            wrote = wrote or what
    return steps, used, unperformed


def _outcome(file: _File, test: dict[str, Any], at: tuple[str | int, ...],
             wrote: Text) -> list[Step]:
    """The test's ``outcome`` as reads: each collection's documents, read with an empty filter
    sorted by ``_id`` and compared exactly (unified-test-format.md, "Executing a Test": "the
    documents MUST match exactly", key order free; mongodb/specifications at 92b3c0b9).
    ``wrote``: why they cannot be judged, where an operation no engine performs came first."""
    outcome = test.get("outcome")
    if outcome is None:
        return []
    if not isinstance(outcome, list):
        raise file.error(Message(N_("outcome must be a list")), *at, "outcome")
    out = []
    for i, block in enumerate(outcome):
        if not isinstance(block, dict) or not isinstance(block.get("documents"), list) or \
                not isinstance(block.get("collectionName"), str):
            raise file.error(Message(N_("each outcome entry needs collectionName, databaseName "
                                        "and documents")), *at, "outcome", i)
        docs = _bson(file.path, file.node, block["documents"],
                     N_("outcome documents are {problem}"), *at, "outcome", i, "documents")
        out.append(Step("find", {"filter": {}, "sort": {"_id": 1}},
                        Expectation("exactly", docs, ordered=True),
                        file.node.line_of(*at, "outcome", i), block["collectionName"],
                        skip=wrote))
    return out


def _writes(op: dict[str, Any]) -> str:
    """The stage (``$out``, ``$merge``) by which an aggregate writes, or ``""``."""
    arguments = op.get("arguments")
    pipeline = arguments.get("pipeline") if isinstance(arguments, dict) else None
    for stage in pipeline if isinstance(pipeline, list) else []:
        for name in stage if isinstance(stage, dict) else ():
            if name in _WRITING_STAGES:
                return str(name)
    return ""


def _read_target(file: _File, name: str, target: str, op: dict[str, Any]) -> str:
    """``collection`` or ``database`` where the operation is a read the check performs on that
    entity, else ``""``."""
    if name == "aggregate" and _writes(op):
        return ""
    if name in READS and target in file.collections:
        return "collection"
    if name == "aggregate" and target in file.databases:
        return "database"
    return ""


def _unified_step(file: _File, op: dict[str, Any], op_at: tuple[str | int, ...], on: str,
                  wrote: Text, not_checked: list[Text]) -> Step:
    """One read on a collection or database entity, or one CRUD write on a collection;
    ``wrote`` names an earlier operation that may change the data, which it would follow."""
    name = op["name"]
    arguments = _unified_arguments(op, file, op_at, not_checked)
    expect = _unified_expect(op, name, file, op_at)
    if expect is None and name not in WRITES and not op.get("ignoreResultAndError"):
        not_checked.append(Message(N_("{name}: nothing to judge (no expectResult or "
                                      "expectError)"), name=name))
    collection = file.collections[op["object"]][2] if on == "collection" else ""
    return Step(name, arguments, expect, file.node.line_of(*op_at), collection,
                skip=Message(N_("it follows {write}, which a claim check does not perform"),
                             write=wrote) if wrote else "", on=on)


def _unified_arguments(op: dict[str, Any], file: _File, op_at: tuple[str | int, ...],
                       not_checked: list[Text]) -> dict[str, Any]:
    """A read's or write's arguments as Extended JSON, without the session (noted as not
    used)."""
    error = file.error
    name = op["name"]
    given = op.get("arguments") or {}
    if not isinstance(given, dict):
        raise error(Message(N_("an operation's arguments must be an object")), *op_at,
                    "arguments")
    arguments: dict[str, Any] = _bson(file.path, file.node, given,
                                      N_("the arguments are {problem}"), *op_at, "arguments")
    if name == "aggregate" and not isinstance(arguments.get("pipeline"), list):
        raise error(Message(N_("aggregate needs a pipeline")), *op_at, "arguments")
    if name == "distinct" and not isinstance(arguments.get("fieldName"), str):
        raise error(Message(N_("distinct needs fieldName")), *op_at, "arguments")
    needs = _WRITE_NEEDS.get(name)
    if needs is not None and not isinstance(arguments.get(needs[0]), needs[1]):
        raise error(Message(N_("{name} needs {argument}"), name=name, argument=needs[0]),
                    *op_at, "arguments")
    if "session" in arguments:
        not_checked.append(Message(N_("the session argument of {name} (not used)"), name=name))
        arguments.pop("session")
    neutral = sorted(k for k in arguments if k in NEUTRAL_ARGUMENTS)
    if neutral:
        not_checked.append(Message(N_("{name} argument {arguments}: sent to MongoDB only (it "
                                      "does not change a result)"), name=name,
                                   arguments=", ".join(neutral)))
    return arguments


def _client_notes(file: _File, used: set[str]) -> list[Message]:
    """The options of the clients and collection entities the reads used, which a claim check
    does not apply."""
    notes: list[Message] = []
    for target in sorted(used):
        client = file.collections[target][0] if target in file.collections else \
            file.databases[target][0]
        if file.client_options.get(client):
            notes.append(Message(N_("client {client} options {options}"), client=client,
                                 options=", ".join(file.client_options[client])))
        if file.client_options.get(f"collection {target}"):
            notes.append(Message(N_("collection {collection} options {options}"),
                                 collection=target,
                                 options=", ".join(file.client_options[f"collection {target}"])))
    return notes


def _unified_expect(op: dict[str, Any], name: str, file: _File, at: tuple[str | int, ...]
                    ) -> Expectation | None:
    error = file.error
    if "expectError" in op:
        checks = op["expectError"]
        if not isinstance(checks, dict) or not checks:
            raise error(Message(N_("expectError needs at least one assertion")), *at,
                        "expectError")
        checks = _bson(file.path, file.node, checks, N_("expectError is {problem}"), *at,
                       "expectError")
        return Expectation("error", checks)
    if "expectResult" not in op:
        return None
    result = _bson(file.path, file.node, op["expectResult"], N_("expectResult is {problem}"),
                   *at, "expectResult")
    if name in ("find", "aggregate"):
        if not isinstance(result, list):
            raise error(Message(N_("{name}'s expectResult must be a list of documents"),
                                name=name), *at, "expectResult")
        return Expectation("documents", result, ordered=True)
    if name == "distinct":
        if not isinstance(result, list):
            raise error(Message(N_("distinct's expectResult must be a list")), *at,
                        "expectResult")
        return Expectation("values", result, ordered=True)
    if (name == "findOne" and isinstance(result, dict)) or name in WRITES:
        # a root-level document (a found one, a write's result): extra fields allowed
        return Expectation("document", result)
    return Expectation("value", result)
