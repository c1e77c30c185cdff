"""What a claim file says, read into one model: a claim's fixture, its reads, what each read
should give, and what an engine answered (the short form and the Unified Test Format alike)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labkit.claims.bounds import Requirement
from labkit.i18n import Text
from labkit.model.bson_order import bson_type

Document = dict[str, Any]
# The reads a claim check performs (the Unified Test Format's names; the short form's count is
# countDocuments). Every other operation is not performed.
READS = ("find", "findOne", "aggregate", "countDocuments", "estimatedDocumentCount", "count",
         "distinct")
# The Unified Test Format's CRUD writes on a collection (crud.md's write operations and
# findOneAnd…, mongodb/specifications source/crud/crud.md at 92b3c0b9): steps an engine that
# writes performs in order with the reads; on any other engine, what follows one is not judged.
WRITES = ("insertOne", "insertMany", "updateOne", "updateMany", "replaceOne", "deleteOne",
          "deleteMany", "bulkWrite", "findOneAndUpdate", "findOneAndReplace", "findOneAndDelete")
# Arguments that do not change what a read returns: sent to MongoDB, ignored elsewhere.
NEUTRAL_ARGUMENTS = ("batchSize", "comment", "maxTimeMS", "allowDiskUse")


@dataclass(frozen=True)
class Expectation:
    """What one read should give.

    ``kind``: ``ids`` (the ``_id`` of each document returned; with ``ordered``, a list
    inside it is a group of documents that tie, in any order among themselves), ``not_ids``
    (none of these ``_id``s is returned, whatever else is), ``documents``
    (each returned document matches, extra fields allowed, as the Unified Test Format matches
    root documents),
    ``values`` (distinct values), ``count`` (the short form's ``{count: N}``: how many documents
    or values the read gives, whichever read it is), ``value`` (the Unified Test Format's
    ``expectResult`` of a count, matched as written), ``document`` (``findOne``'s document,
    matched as a root document: extra fields allowed), ``error`` (the read raises; ``value``
    holds the Unified Test Format's ``expectError`` checks, if any), ``exactly`` (a test's
    ``outcome``: the collection's documents, sorted by ``_id``, equal to these in number, fields
    and BSON types, key order free).
    """

    kind: str
    value: Any = None
    ordered: bool = False

    def shown(self) -> Any:
        """The expectation as the report shows it."""
        if self.kind == "error":
            return {"error": self.value or True}
        shown = {self.kind if self.kind not in ("value", "document") else "result": self.value}
        if self.kind in ("ids", "documents", "values"):
            shown["ordered"] = self.ordered
        return shown


@dataclass(frozen=True)
class Step:
    """One read or CRUD write of a claim: the operation, its arguments (BSON values) and what it
    should give. A test's ``outcome`` is a read too: a ``find`` sorted by ``_id`` that should
    give exactly its documents."""

    operation: str
    arguments: dict[str, Any]
    expect: Expectation | None
    line: int
    collection: str = "claim"
    skip: Text = ""  # why this read cannot be judged (it follows an operation not performed)
    on: str = "collection"  # or "database": an aggregate on the database (``$documents``)

    @property
    def writes(self) -> bool:
        """True for a CRUD write (``WRITES``): a step that changes the collection."""
        return self.operation in WRITES


@dataclass(frozen=True)
class ClaimSpec:
    """A claim read from a file: where it is, its fixture, its reads, the versions it speaks for.

    ``requirements`` holds groups (top level, then per test): every group must have one
    requirement met. ``not_checked`` names what the file asks that a claim check cannot judge;
    ``also_expected`` the test's own expectations beyond its reads' results (``expectEvents``,
    ``outcome``), which are not judged; ``unjudged`` why none of its reads can be judged, where
    none can (its own cause, the same on every engine); ``collations`` each collection's default
    collation, where the claim gives one (the collection is created with it).
    """

    id: str
    title: str
    source: str
    path: Path
    line: int
    steps: tuple[Step, ...]
    fixture: dict[str, list[Document]] = field(default_factory=dict)
    requirements: tuple[tuple[Requirement, ...], ...] = ()
    not_checked: tuple[Text, ...] = ()
    skip_reason: str = ""
    form: str = "short"
    also_expected: tuple[str, ...] = ()
    unjudged: Text = ""
    collations: dict[str, dict[str, Any]] = field(default_factory=dict)  # collections' defaults
    fixture_files: tuple[Path, ...] = ()  # the files its fixture was read from

    @property
    def result_only(self) -> bool:
        """True when the test expects more than its reads' results (events, the collections'
        outcome): a verdict then judges the results only."""
        return bool(self.also_expected)

    @property
    def where(self) -> str:
        """``claims/lesson01_dates.yaml:12``."""
        return f"{self.path}:{self.line}"

    def field_types(self) -> list[dict[str, Any]]:
        """Each top-level field of the fixture, with how many documents hold it as each BSON
        type, named and counted as a ``$group`` by ``{$type: "$field"}`` names them (lesson
        03's census; ``missing`` where a document lacks the field): what a check inserts."""
        rows: list[dict[str, Any]] = []
        for collection, docs in self.fixture.items():
            for name in dict.fromkeys(key for doc in docs for key in doc):
                counts: dict[str, int] = {}
                for doc in docs:
                    kind = bson_type(doc[name]) if name in doc else "missing"
                    counts[kind] = counts.get(kind, 0) + 1
                rows.append({"fixture": collection, "field": name,
                             "types": dict(sorted(counts.items()))})
        return rows

    @property
    def expected(self) -> Any:
        """The expectation as the report shows it (a list when the claim has several reads)."""
        shown = [s.expect.shown() for s in self.steps if s.expect is not None]
        return shown[0] if len(shown) == 1 else shown


@dataclass(frozen=True)
class Ties:
    """Where the order of a read's documents is not decided: ``runs`` of documents that tie on
    every sort path, as ``(start, end)`` positions in the result, and ``cut`` when a run goes
    past the read's skip or limit (which of its documents come back is then not decided
    either). MongoDB returns tied documents in any order (cursor.sort); labkit's model gives
    them in the fixture's order and says so here. ``unsorted``: the read has no sort, so
    every document it returns ties with every other (db.collection.find: no order is
    guaranteed without one)."""

    runs: tuple[tuple[int, int], ...] = ()
    cut: bool = False
    unsorted: bool = False


@dataclass
class Answer:
    """What one read gave: a result, or the error it raised (one line, and whether the server
    sent it, with its code); ``ties``, from labkit's model, where its order is not decided."""

    result: Any = None
    raised: Text = ""
    server_error: bool = False
    code: int | None = None
    code_name: str = ""
    ties: Ties | None = None
