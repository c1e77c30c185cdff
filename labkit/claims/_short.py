"""The short form of a claim file: a list of claims, each a fixture, one query (``find``,
``aggregate``, ``count`` or ``distinct``) and what it should give. Every mistake is one
``BadInput`` naming the file, the claim and the line."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from labkit.claims._source import Node, extended_json, shell_notation
from labkit.claims.bounds import Requirement, is_version, version_text
from labkit.claims.spec import ClaimSpec, Document, Expectation, Step
from labkit.errors import BadInput, said
from labkit.i18n import N_, Message, Text, english, joined
from labkit.model import collation, fixtures

_FIND_OPTIONS = {"filter", "sort", "projection", "skip", "limit", "collation"}
_SHORT_KEYS = {"id", "title", "source", "fixture", "fixture_file", "find", "aggregate", "count",
               "distinct", "expect", "min_server_version", "max_server_version", "note",
               "default_collation"}
_EXPECT_KEYS = {"ids", "not_ids", "count", "error", "documents", "values"}
# The keys whose values are BSON, read as Extended JSON: mongosh's notation is refused there.
_VALUE_KEYS = {"fixture", "find", "aggregate", "count", "distinct", "expect", "default_collation"}


class _Where:
    """Builds the one-line error for a claim: ``file:line: claim 'id': problem``."""

    def __init__(self, path: Path, node: Node, claim_id: str | None) -> None:
        self.path, self.node, self.claim_id = path, node, claim_id

    def error(self, problem: Message, *at: str | int) -> BadInput:
        """The error for a problem at ``at`` (keys and indexes inside the claim)."""
        return self.error_on(self.node.line_of(*at), problem)

    def error_on(self, line: int, problem: Message) -> BadInput:
        """The error for a problem on ``line`` of the file, inside this claim."""
        path = str(self.path)
        if self.claim_id:
            return BadInput(Message(N_("{path}:{line:d}: claim {id}: {problem}"), path=path,
                                    line=line, id=repr(self.claim_id), problem=problem))
        return BadInput(Message(N_("{path}:{line:d}: a claim: {problem}"), path=path, line=line,
                                problem=problem))

    def bson(self, value: Any, what: Text, *at: str | int) -> Any:
        """``value`` read as Extended JSON; a mistake is the claim's error at ``at``. (Values
        in mongosh's notation were refused before any is read: ``_refuse_notation``.)"""
        try:
            return extended_json(value, what)
        except BadInput as exc:
            raise self.error(Message(N_("not Extended JSON: {problem}"), problem=said(exc)),
                             *at) from exc


def read_short(path: Path, data: list[Any], node: Node) -> list[ClaimSpec]:
    """The claims of a short-form file: a list of claims."""
    if not data:
        raise BadInput(Message(N_("{path}:{line:d}: the file has no claims"), path=str(path),
                               line=node.line))
    specs: list[ClaimSpec] = []
    refused: list[BadInput] = []
    for i, entry in enumerate(data):  # every claim read: one bad claim hides no other
        try:
            specs.append(_short_claim(path, entry, node.item(i)))
        except BadInput as exc:
            refused.append(exc)
    if len(refused) == 1:
        raise refused[0]
    if refused:
        raise BadInput(Message(N_("{path}: {n:d} of its {total:d} claims cannot be read: "
                                  "{each}"), path=str(path), n=len(refused), total=len(data),
                               each=_each(refused)))
    return specs


def _each(refused: list[BadInput]) -> Text:
    """Several refusals in one line (an error is one line), each in the learner's words; the
    claims that share one problem are named together, each with its line, before it."""
    alone: list[Text] = []  # a file's own problem, or one that names no claim
    groups: dict[str, list[Message]] = {}
    for exc in refused:
        message = said(exc)
        if isinstance(message, Message) and {"problem", "id"} <= set(message.values):
            groups.setdefault(english(message.values["problem"]), []).append(message)
        else:
            alone.append(message)
    parts: list[Text] = [*alone]
    for together in groups.values():
        first = together[0]
        if len(together) == 1:
            parts.append(first)
            continue
        where = joined(", ", [Message(N_("{id} at line {line:d}"), id=m.values["id"],
                                      line=m.values["line"]) for m in together])
        parts.append(Message(N_("{path}: claims {claims}: {problem}"),
                             path=first.values["path"], claims=where,
                             problem=first.values["problem"]))
    return joined(" · ", parts)


def _refuse_notation(where: _Where, entry: dict[str, Any], node: Node) -> None:
    """Refuse the claim's first value in mongosh's notation, in the file's order (the keys are
    read in another order, so a later one was said first and the earlier one on the next
    run)."""
    for key in (k for k in entry if k in _VALUE_KEYS):
        found = shell_notation(node.at(key))
        if found is not None:
            raise where.error_on(found.line, found.problem)


def _short_claim(path: Path, entry: Any, node: Node) -> ClaimSpec:
    claim_id = entry.get("id") if isinstance(entry, dict) else None
    where = _Where(path, node, claim_id if isinstance(claim_id, str) else None)
    if not isinstance(entry, dict):
        raise where.error(Message(N_("each claim is a mapping with id, title, fixture, a query "
                                     "and expect")))
    unknown = sorted(set(entry) - _SHORT_KEYS)
    if unknown:
        raise where.error(Message(N_("unknown key {key}; a claim has {known}"),
                                  key=repr(unknown[0]), known=", ".join(sorted(_SHORT_KEYS))),
                          unknown[0])
    for key in ("id", "title"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise where.error(Message(N_("{key} is missing or not a text"), key=repr(key)), key)
    _refuse_notation(where, entry, node)
    queries = [k for k in ("find", "aggregate", "count", "distinct") if k in entry]
    if len(queries) != 1:
        raise where.error(Message(N_("needs exactly one of find, aggregate, count, distinct "
                                     "(has {queries})"), queries=", ".join(queries))
                          if queries else
                          Message(N_("needs exactly one of find, aggregate, count, distinct")))
    operation, arguments = _short_query(where, queries[0], entry[queries[0]])
    if "expect" not in entry:
        raise where.error(Message(N_("'expect' is missing: ids, count, error, documents or "
                                     "values")))
    expect = _short_expect(where, entry["expect"])
    versions = {k: entry.get(k) for k in ("min_server_version", "max_server_version")}
    for key, value in versions.items():
        if value is not None and not is_version(value):
            raise where.error(Message(N_("{key} must be a version such as \"7.0\", not {value}"),
                                      key=key, value=repr(value)), key)
    requirement = Requirement(version_text(versions["min_server_version"]),
                              version_text(versions["max_server_version"]),
                              given_parts_only=True)
    return ClaimSpec(
        id=entry["id"].strip(), title=entry["title"].strip(),
        source=str(entry.get("source") or "not given"), path=path, line=node.line,
        steps=(Step(operation, arguments, expect, node.line_of(queries[0]),
                    on=_aggregated_on(operation, arguments)),),
        fixture={"claim": _short_fixture(where, path, entry)},
        requirements=((requirement,),) if requirement.min_version or requirement.max_version
        else (), collations=_default_collation(where, entry),
        fixture_files=(path.parent / entry["fixture_file"],) if "fixture_file" in entry else ())


def _aggregated_on(operation: str, arguments: dict[str, Any]) -> str:
    """Where a read runs: a pipeline that opens with ``$documents`` on the database, as the
    manual writes it (``db.aggregate([{$documents: […]}, …])``; on a collection the server
    refuses it); every other read on the claim's collection."""
    pipeline = arguments.get("pipeline") if operation == "aggregate" else None
    first = pipeline[0] if isinstance(pipeline, list) and pipeline else None
    return "database" if isinstance(first, dict) and "$documents" in first else "collection"


def _default_collation(where: _Where, entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``default_collation``: the collation the claim's collection is created with (the
    manual's db.createCollection option), checked as the model checks a read's collation."""
    if "default_collation" not in entry:
        return {}
    value = entry["default_collation"]
    try:
        collation.validate(value)
    except BadInput as exc:
        raise where.error(Message(N_("default_collation: {problem}"), problem=said(exc)),
                          "default_collation") from exc
    return {"claim": dict(value)}


def _short_fixture(where: _Where, path: Path, entry: dict[str, Any]) -> list[Document]:
    if ("fixture" in entry) == ("fixture_file" in entry):
        raise where.error(Message(N_("needs exactly one of fixture (a list of documents) or "
                                     "fixture_file")))
    if "fixture_file" in entry:
        name = entry["fixture_file"]
        if not isinstance(name, str):
            raise where.error(Message(N_("fixture_file must be a path")), "fixture_file")
        target = (path.parent / name).resolve()  # links followed once: what is read is this
        if not _inside((path.parent, fixtures.DATA), target):
            raise where.error(Message(N_(
                "fixture_file {name} is outside the claim file's folder (or leads there, a "
                "link); a claim file reads fixtures from its own folder (or below it) and "
                "labkit's data folder only"), name=repr(name)), "fixture_file")
        if not target.is_file():
            raise where.error(Message(N_("fixture_file {name} is not a file (paths are "
                                         "relative to the claim file)"), name=repr(name)),
                              "fixture_file")
        try:
            return fixtures.read(target)
        except BadInput as exc:
            raise where.error(Message(N_("fixture_file {name}: {problem}"), name=repr(name),
                                      problem=said(exc)), "fixture_file") from exc
    docs = entry["fixture"]
    if not isinstance(docs, list) or not all(isinstance(d, dict) for d in docs):
        raise where.error(Message(N_("fixture must be a list of documents")), "fixture")
    return [where.bson(doc, Message(N_("fixture document {n:d}"), n=i + 1), "fixture", i)
            for i, doc in enumerate(docs)]


def _inside(folders: tuple[Path, ...], target: Path) -> bool:
    """Whether ``target`` (resolved) is in one of ``folders`` (or below): a claim file from
    elsewhere cannot copy a file it names (a token, a key) into results.json."""
    return any(target.is_relative_to(folder.resolve()) for folder in folders)


def _find(where: _Where, value: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise where.error(Message(N_("find is a filter document, or {filter, sort, "
                                     "projection, skip, limit}")), "find")
    long_form = bool(value) and set(value) <= _FIND_OPTIONS
    unknown = sorted(set(value) - _FIND_OPTIONS) if "filter" in value else []
    if unknown:  # the long form meant (its filter is there), with a key it does not know
        raise where.error(_unknown_key("find", unknown[0], _FIND_OPTIONS, N_(
            "a find option beyond these (hint, comment) needs the Unified Test Format; a "
            "collection's default collation is the claim's default_collation (docs/claims.md)")),
            "find", unknown[0])
    arguments = dict(value) if long_form else {"filter": value}
    arguments.setdefault("filter", {})
    for key in ("skip", "limit"):
        if key in arguments and (not isinstance(arguments[key], int)
                                 or isinstance(arguments[key], bool)):
            raise where.error(Message(N_("find's {key} must be a whole number"), key=key),
                              "find", key)
    for key in ("filter", "sort", "projection"):
        if key in arguments and not isinstance(arguments[key], dict):
            raise where.error(Message(N_("find's {key} must be a document"), key=key), "find")
    return "find", where.bson(arguments, "find", "find")


def _aggregate(where: _Where, value: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(s, dict) and len(s) == 1
                                              for s in value):
        raise where.error(Message(N_("aggregate is a pipeline: a list of stages, each one "
                                     "{$stage: …}")), "aggregate")
    return "aggregate", {"pipeline": where.bson(value, "aggregate", "aggregate")}


def _count(where: _Where, value: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(value, dict):
        raise where.error(Message(N_("count is a filter document")), "count")
    return "countDocuments", {"filter": where.bson(value, "count", "count")}


def _distinct(where: _Where, value: Any) -> tuple[str, dict[str, Any]]:
    if not isinstance(value, dict) or not isinstance(value.get("field"), str) or (
            set(value) - {"field", "filter"}):
        raise where.error(Message(N_("distinct is {field: name, filter: {…}}")), "distinct")
    return "distinct", {"fieldName": value["field"],
                        "filter": where.bson(value.get("filter", {}), "distinct", "distinct")}


# Each query a short claim may hold, read into the command's name and arguments.
_QUERIES = {"find": _find, "aggregate": _aggregate, "count": _count, "distinct": _distinct}


def _unknown_key(part: str, key: str, known: set[str], more: str = "") -> Message:
    """A key ``part`` does not know, the ones it does, and the nearest of them where one is
    near (``order`` for ``ordered``)."""
    near = difflib.get_close_matches(str(key), sorted(known), n=1)
    said = Message(N_("{part} has an unknown key {key}; its keys are {known}"), part=part,
                   key=repr(key), known=", ".join(sorted(known)))
    if near:
        said = Message(N_("{said} (did you mean {near}?)"), said=said, near=near[0])
    return Message("{said}; {more}", said=said, more=Message(more)) if more else said


def _short_query(where: _Where, kind: str, value: Any) -> tuple[str, dict[str, Any]]:
    return _QUERIES[kind](where, value)


def _short_expect(where: _Where, value: Any) -> Expectation:
    kind, ordered = _expect_kind(where, value)
    given = value[kind]
    if kind == "error":
        return _expect_error(where, given)
    if kind == "count":
        return _expect_count(where, given)
    return _expect_list(where, kind, given, ordered)


def _expect_kind(where: _Where, value: Any) -> tuple[str, bool]:
    """Which one expectation ``expect`` states, and whether its list is ordered."""
    if not isinstance(value, dict):
        raise where.error(Message(N_("expect is a mapping: {ids: […]}, {not_ids: […]}, "
                                     "{count: N}, {error: true}, {documents: […]} or "
                                     "{values: […]}")),
                          "expect")
    kinds = sorted(set(value) & _EXPECT_KEYS)
    extra = sorted(set(value) - _EXPECT_KEYS - {"ordered"})
    if extra:
        raise where.error(_unknown_key("expect", extra[0], {*_EXPECT_KEYS, "ordered"}),
                          "expect", extra[0])
    if len(kinds) != 1:
        raise where.error(Message(N_("expect needs exactly one of ids, not_ids, count, error, "
                                     "documents, values")), "expect")
    ordered = value.get("ordered", False)
    if not isinstance(ordered, bool):
        raise where.error(Message(N_("expect's ordered must be true or false")), "expect",
                          "ordered")
    return kinds[0], ordered


def _expect_error(where: _Where, given: Any) -> Expectation:
    if given is not True:
        raise where.error(Message(N_("expect's error must be true")), "expect", "error")
    return Expectation("error")


def _expect_count(where: _Where, given: Any) -> Expectation:
    if not isinstance(given, int) or isinstance(given, bool) or given < 0:
        raise where.error(Message(N_("expect's count must be a whole number")), "expect",
                          "count")
    return Expectation("count", given)


def _expect_list(where: _Where, kind: str, given: Any, ordered: bool) -> Expectation:
    if not isinstance(given, list):
        raise where.error(Message(N_("expect's {kind} must be a list"), kind=kind), "expect",
                          kind)
    if kind == "documents" and not all(isinstance(d, dict) for d in given):
        raise where.error(Message(N_("expect's documents must be a list of documents")),
                          "expect", kind)
    if kind == "not_ids" and (ordered or any(isinstance(item, list) for item in given)):
        raise where.error(Message(N_("expect's not_ids is a list of _ids the read never "
                                     "returns: no order, no groups (an _id is never an "
                                     "array)")), "expect", kind)
    groups = [item for item in given if isinstance(item, list)] if kind == "ids" else []
    if groups and not ordered:
        raise where.error(Message(N_("a list inside ids is a group of documents that tie on "
                                     "the sort, in any order among themselves: it needs "
                                     "ordered: true")), "expect", kind)
    if any(not group or any(isinstance(i, list) for i in group) for group in groups):
        raise where.error(Message(N_("a group of ties inside ids is a list of one or more "
                                     "ids, none of them a list (an _id is never an array)")),
                          "expect", kind)
    return Expectation(kind, where.bson(given, Message(N_("expect's {kind}"), kind=kind),
                                        "expect", kind), ordered)
