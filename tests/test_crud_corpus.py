"""MongoDB's CRUD specification tests (tests/data/crud-unified/, mongodb/specifications
source/crud/tests/unified/ at 92b3c0b9287bfba1b0ec4084300858d05c654f8c) as a corpus of claim
files: read whole, judged on the model with no disagreement with MongoDB's expectations, every
read-only test the model can answer judged (and the inserts it performs, with the outcome
after them), every other test not run with its own cause; the lists of reads and writes are
closed, a fake's own exception is its error, and a test whose events are not checked holds on
its results only, in the matrix and the JUnit file.

The figures pinned here are the corpus's, counted on this commit of the files; an update of the
files that moves them should say why in its commit."""

from __future__ import annotations

import collections
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from labkit.claims import files as claimfiles
from labkit.i18n import english
from labkit.outputs import junit, matrix
from labkit.run import check as claimcheck

CORPUS = Path(__file__).resolve().parent / "data" / "crud-unified"
# The reads a claim check performs, as the specification's operations name them.
READS = {"find", "findOne", "aggregate", "countDocuments", "estimatedDocumentCount", "count",
         "distinct"}
# Each cause a test is not run for, by the words its reason starts with.
CAUSES = [
    ("skip", r"the test is marked skip: "),
    ("a write the engine does not perform", r"nothing to judge: \w+ at line \d+: (it follows "
                                            r"\w+ at line \d+, which the model does not "
                                            r"perform|the model does not perform \w+$)"),
    ("follows an operation not performed", r"nothing to judge: \w+ at line \d+: it follows "),
    ("expects what an operation not performed gives", r"nothing to judge: what it expects is "
                                                      r"of "),
    ("checks only what a check does not judge", r"nothing to judge: it checks only "),
    ("expects nothing", r"nothing to judge: no operation has an expected result or error "),
    ("requirement", r"runOnRequirements: "),
    ("the engine does not support it", r"the model (does not support|supports) "),
    ("the model predicts no server errors", r"the model predicts results, not server errors"),
    ("an order MongoDB does not guarantee", r"the read has no sort, "),
]


def _cause(reason: object) -> str:
    text = str(reason)
    return next((name for name, start in CAUSES if re.match(start, text)), f"?? {text}")


@pytest.fixture(scope="module")
def corpus():
    """Every test of the corpus read as a claim."""
    return claimfiles.load([CORPUS])


@pytest.fixture(scope="module")
def on_the_model(corpus):
    """The corpus judged on the model."""
    return claimcheck.check(corpus, ["model"])


def _read_like() -> set[str]:
    """The tests with a read-like operation (the reads a check performs, whatever they are
    applied to, an aggregate that writes included) that expects a result or an error, as the
    files write them."""
    from labkit.claims._source import parse

    found = set()
    for path in sorted(CORPUS.glob("*.yml")):
        data, _node = parse(path)
        found |= {f"{path.stem}: {test['description']}" for test in data["tests"]
                  if any(op["name"] in READS and ("expectResult" in op or "expectError" in op)
                         for op in test["operations"])}
    return found


def test_the_corpus_is_read_whole(corpus):
    """The 175 files give 487 tests, each read as a claim (no file refused)."""
    assert len(list(CORPUS.glob("*.yml"))) == 175
    assert len({spec.path for spec in corpus}) == 175
    assert len(corpus) == 487


def test_the_model_never_disagrees_with_mongodbs_expectations(on_the_model):
    """On the model no test of the corpus does not hold and none errs: where the model judges,
    it agrees with what MongoDB's specification expects; 57 tests are judged (they hold), 32 of
    them on their results only (their events are not checked), 16 on the inserts the model
    performs and 14 on their outcome (was 40 judged, 20 on results only, before the model
    performed inserts, let and a distinct's collation and read a test's outcome; 59 and 34
    before it stopped judging the order of a find without a sort, which two tests expect:
    MongoDB guarantees none, db.collection.find)."""
    rows = on_the_model.columns[0].rows
    verdicts = collections.Counter(row.verdict for row in rows)
    assert verdicts == {claimcheck.HOLDS: 57, claimcheck.NOT_RUN: 430}
    assert sum(claimcheck.verdict_words(r) == claimcheck.RESULT_ONLY for r in rows) == 32
    held = [r.claim.spec for r in rows if r.verdict == claimcheck.HOLDS]
    assert sum(any(step.writes for step in spec.steps) for spec in held) == 16
    assert sum(any(step.expect is not None and step.expect.kind == "exactly"
                   for step in spec.steps) for spec in held) == 14


def test_every_read_only_test_the_model_can_answer_is_judged(corpus, on_the_model):
    """Of the 69 tests with a read that expects a result or error, 43 are judged on the model
    (40 before it performed inserts, let and a distinct's collation, 45 before it stopped
    judging the order of a find without a sort); each other one is not run for a cause of its
    own: a version or topology the model does not speak for, a write before the read (one the
    model does not perform, or one no engine does), an operation it does not model, an order
    MongoDB does not guarantee."""
    rows = dict(zip([s.id for s in corpus], on_the_model.columns[0].rows, strict=True))
    wanted = _read_like()
    read_like = [spec for spec in corpus if spec.id in wanted]
    assert len(read_like) == 69
    judged = [s for s in read_like if rows[s.id].verdict == claimcheck.HOLDS]
    assert len(judged) == 43
    causes = collections.Counter(_cause(rows[s.id].reason) for s in read_like
                                 if rows[s.id].verdict == claimcheck.NOT_RUN)
    assert causes == {"requirement": 11, "a write the engine does not perform": 4,
                      "follows an operation not performed": 4,
                      "the engine does not support it": 2,
                      "expects what an operation not performed gives": 3,
                      "an order MongoDB does not guarantee": 2}
    unsupported = sorted((s.id, str(rows[s.id].reason)) for s in read_like
                         if _cause(rows[s.id].reason) == "the engine does not support it")
    assert unsupported == [
        ("db-aggregate: Aggregate with $listLocalSessions",
         "the model supports an aggregate on a database that starts with $documents only"),
        ("db-aggregate: Aggregate with $listLocalSessions and allowDiskUse",
         "the model supports an aggregate on a database that starts with $documents only")]


@pytest.mark.parametrize("claim_id", [
    "count: Estimated document count", "count: Deprecated count with a filter",
    "count: Deprecated count with skip and limit", "count-collation: Deprecated count with "
    "collation", "count-empty: Estimated document count with empty collection",
    "estimatedDocumentCount: estimatedDocumentCount on non-existent collection",
    "estimatedDocumentCount-comment: estimatedDocumentCount with string comment",
    "findOne: FindOne with filter", "findOne: FindOne with filter, sort, and skip",
    "distinct-hint: distinct with hint document", "find-let: Find with let option",
    "aggregate-let: Aggregate with let option", "distinct-collation: Distinct with a collation",
    "create-null-ids: inserting _id with type null via insertOne",
    "create-null-ids: inserting _id with type null via insertMany"])
def test_the_new_reads_are_judged(corpus, on_the_model, claim_id):
    """estimatedDocumentCount, the count command, findOne, a distinct hinted with the _id
    index, a find and an aggregate with let (find-let.yml, aggregate-let.yml: $expr and
    $project reading $$id, $$x, a $literal and $rand), a distinct with a collation
    (distinct-collation.yml: PING and ping count once at strength 2) and a count after an
    insert of a null _id (create-null-ids.yml) are reads the model performs, judged against
    the specification's expectResult, where each was "nothing to judge" or "not supported"."""
    index = [s.id for s in corpus].index(claim_id)
    row = on_the_model.columns[0].rows[index]
    assert row.verdict == claimcheck.HOLDS, row.reason


def test_every_test_not_run_says_its_own_cause(corpus, on_the_model, tmp_path):
    """No test is not run for the old catch-all "no read has an expected result or error":
    each names its cause (the operation not performed and its name, the requirement, the
    option the engine does not support), in the matrix and in the JUnit file alike."""
    rows = on_the_model.columns[0].rows
    causes = collections.Counter(_cause(row.reason) for row in rows
                                 if row.verdict == claimcheck.NOT_RUN)
    assert causes == {"a write the engine does not perform": 203,
                      "checks only what a check does not judge": 75, "requirement": 73,
                      "follows an operation not performed": 47,
                      "expects what an operation not performed gives": 23,
                      "the model predicts no server errors": 5,
                      "the engine does not support it": 2,
                      "an order MongoDB does not guarantee": 2}
    for row in rows:
        if row.verdict == claimcheck.NOT_RUN and "it follows" in str(row.reason):
            assert re.search(r"it follows (.+ on \w+, which a claim check does not perform|"
                             r"\w+ at line \d+, which the model does not perform)",
                             str(row.reason)), row.reason
    tree = ET.fromstring(junit.junit_xml(on_the_model).split("\n", 1)[1])
    skipped = [case.find("skipped").get("message") for case in tree.iter("testcase")
               if case.find("skipped") is not None]
    assert len(skipped) == 487  # the 430 not run, and the 57 the model predicts: none ran
    assert sum(m.endswith("a prediction; no engine ran it") for m in skipped) == 57
    assert all(not m.startswith("nothing to judge: no read") for m in skipped)
    assert "no read has an expected result" not in matrix.matrix_table(on_the_model)


# The read list is closed --------------------------------------------------------------

CLOSED = """\
description: "after-other-operations"
schemaVersion: "1.9"
createEntities:
  - client: {id: client0}
  - database: {id: database0, client: client0, databaseName: db}
  - collection: {id: collection0, database: database0, collectionName: coll}
  - bucket: {id: bucket0, database: database0}
  - session: {id: session0, client: client0}
initialData:
  - {collectionName: coll, databaseName: db, documents: [{_id: 1}]}
tests:
  - description: "after OPERATION"
    operations:
      - OPERATION_TEXT
      - name: find
        object: collection0
        arguments: {filter: {}}
        expectResult: EXPECTED
"""


@pytest.mark.parametrize(("operation", "text", "expected"), [
    # a GridFS upload (gridfs/tests/upload.yml), a runCommand insert (run-command/tests/
    # unified/runCommand.yml), withTransaction (transactions-convenient-api), dropDatabase
    ("upload on bucket0", "{name: upload, object: bucket0, arguments: {source: {$$hexBytes: "
     "'11'}, filename: f}}", "[{_id: 1}]"),
    ("runCommand on database0", "{name: runCommand, object: database0, arguments: "
     "{commandName: insert, command: {insert: coll, documents: [{_id: 2}]}}}",
     "[{_id: 1}, {_id: 2}]"),
    ("withTransaction on session0", "{name: withTransaction, object: session0, arguments: "
     "{callback: [{name: insertOne, object: collection0, arguments: {session: session0, "
     "document: {_id: 2}}}]}}", "[{_id: 1}, {_id: 2}]"),
    ("dropDatabase on client0", "{name: dropDatabase, object: client0, arguments: "
     "{databaseName: db}}", "[]"),
])
def test_a_read_after_an_operation_not_known_to_read_is_not_run(tmp_path, operation, text,
                                                                 expected):
    """Any operation not known to be read-only counts as one that may change the data: the
    read after it is not run, naming it, where before it was judged against initialData (a
    false "does not hold" after the insert or the drop)."""
    path = tmp_path / "closed.yml"
    path.write_text(CLOSED.replace("OPERATION_TEXT", text).replace("OPERATION", operation)
                    .replace("EXPECTED", expected), encoding="utf-8")
    result = claimcheck.run_files([path], "model")
    (row,) = result.run.rows
    assert row.verdict == claimcheck.NOT_RUN
    assert str(row.reason) == (f"nothing to judge: find at line 15: it follows {operation}, which "
                               "a claim check does not perform")


def test_an_assertion_of_the_test_runner_changes_nothing_a_read_sees(tmp_path):
    """The test runner's assertions (unified-test-format.md, "Special Test Operations") change
    no data: the read after one is still judged, the assertion named as not performed."""
    path = tmp_path / "assert.yml"
    path.write_text(CLOSED.replace("OPERATION_TEXT", "{name: assertCollectionExists, object: "
                                   "testRunner, arguments: {databaseName: db, collectionName: "
                                   "coll}}").replace("EXPECTED", "[{_id: 1}]"),
                    encoding="utf-8")
    result = claimcheck.run_files([path], "model")
    (row,) = result.run.rows
    assert row.verdict == claimcheck.HOLDS
    assert "not checked: assertCollectionExists on testRunner (not performed)" in str(row.reason)


def test_an_aggregate_that_writes_is_not_a_read(tmp_path):
    """An aggregate with $out or $merge writes a collection: it is not performed, and the read
    after it is not run, naming it."""
    path = tmp_path / "out.yml"
    path.write_text(CLOSED.replace("OPERATION_TEXT", "{name: aggregate, object: collection0, "
                                   "arguments: {pipeline: [{$out: other}]}}")
                    .replace("EXPECTED", "[{_id: 1}]"), encoding="utf-8")
    (row,) = claimcheck.run_files([path], "model").run.rows
    assert str(row.reason) == ("nothing to judge: find at line 15: it follows aggregate with $out "
                               "on collection0, which a claim check does not perform")


def test_an_aggregate_on_a_database_reads_its_documents(tmp_path):
    """`aggregate` on a database entity, its pipeline starting with `$documents`, is a read
    the model performs (the documents written out), judged by its expectResult."""
    path = tmp_path / "documents.yml"
    path.write_text(CLOSED.replace("      - OPERATION_TEXT\n", "").replace(
        "name: find\n        object: collection0\n        arguments: {filter: {}}",
        "name: aggregate\n        object: database0\n        arguments: {pipeline: "
        "[{$documents: [{x: 2}, {x: 1}]}, {$sort: {x: 1}}]}").replace(
        "EXPECTED", "[{x: 1}, {x: 2}]"), encoding="utf-8")
    (row,) = claimcheck.run_files([path], "model").run.rows
    assert row.verdict == claimcheck.HOLDS
    assert row.observed == [{"x": 1}, {"x": 2}]


# A fake's own exception is its error ------------------------------------------------------

# unified-test-format/tests/valid-pass/poc-command-monitoring.yml:85-91 (mongodb/specifications
# at 92b3c0b9): {$or: true} is refused by the server; mongomock's own code raises TypeError.
FAILED_FIND = """\
description: "poc-command-monitoring"
schemaVersion: "1.0"
createEntities:
  - client: {id: client0, observeEvents: [commandStartedEvent, commandFailedEvent]}
  - database: {id: database0, client: client0, databaseName: command-monitoring-tests}
  - collection: {id: collection0, database: database0, collectionName: test}
initialData:
  - {collectionName: test, databaseName: command-monitoring-tests, documents: [{_id: 1, x: 11}]}
tests:
  - description: "A failed find event"
    operations:
      - name: find
        object: collection0
        arguments: {filter: {$or: true}}
        expectError: {isError: true}
    expectEvents:
      - client: client0
        events:
          - commandStartedEvent: {commandName: find}
          - commandFailedEvent: {commandName: find}
"""


def test_a_fakes_own_exception_is_its_error_never_a_server_error(tmp_path):
    """mongomock's `TypeError: 'bool' object is not iterable` for `{$or: true}` is mongomock's
    error (the row's verdict, naming the exception), no longer an error that satisfies
    `expectError: {isError: true}`: the fake "held" as if MongoDB had refused the filter."""
    pytest.importorskip("mongomock")
    path = tmp_path / "failed_find.yml"
    path.write_text(FAILED_FIND, encoding="utf-8")
    result = claimcheck.run_files([path], "mongomock")
    (row,) = result.run.rows
    assert row.verdict == claimcheck.ERROR
    assert str(row.reason).startswith("TypeError: ")
    assert english(row.engine) == "mongomock (in-process fake)"


def test_a_fakes_server_error_is_still_its_answer(tmp_path):
    """An OperationFailure the fake raises as MongoDB would is its answer, judged as such."""
    pytest.importorskip("mongomock")
    path = tmp_path / "bad_operator.yml"
    path.write_text(FAILED_FIND.replace("{$or: true}", "{x: {$nope: 1}}"), encoding="utf-8")
    (row,) = claimcheck.run_files([path], "mongomock").run.rows
    assert row.verdict == claimcheck.HOLDS
    assert row.observed == {"error": row.observation.observed["error"]}
    assert "OperationFailure" in row.observed["error"]


def test_no_fake_exception_stands_for_mongodb_in_the_corpus(corpus):
    """Across the corpus, no fake's row holds or fails on an exception that is neither a
    server error nor pymongo's: such a row is that fake's error."""
    pytest.importorskip("mongomock")
    pytest.importorskip("montydb")
    result = claimcheck.check(corpus, ["mongomock", "montydb"])
    for column in result.columns:
        for row in column.rows:
            observed = row.observed if isinstance(row.observed, dict) else {}
            said = str(observed.get("error") or observed.get("raised") or "")
            assert not re.match(r"(TypeError|KeyError|AttributeError|NotImplementedError)",
                                said), (row.claim.id, column.label, said)
    verdicts = {c.engine: collections.Counter(r.verdict for r in c.rows)
                for c in result.columns}
    assert verdicts["mongomock"][claimcheck.ERROR] == 10
    assert verdicts["montydb"][claimcheck.ERROR] == 19


# Holds on its results only -------------------------------------------------------------


def test_a_test_with_unchecked_events_holds_on_its_results_only(corpus, on_the_model):
    """A test that also expects command events, which a check does not judge, shows
    "holds (result only)" in the matrix, never a bare "holds"."""
    index = [s.id for s in corpus].index("find: Find with batchSize equal to limit")
    assert corpus[index].also_expected == ("expectEvents",)
    row = on_the_model.columns[0].rows[index]
    assert claimcheck.verdict_words(row) == "holds (result only)"
    line = next(line for line in matrix.matrix_table(on_the_model, width=200).splitlines()
                if line.startswith("find: Find with batchSize equal to limit"))
    assert "holds (result only)" in line
    plain = [s.id for s in corpus].index("find: Find with filter")
    assert claimcheck.verdict_words(on_the_model.columns[0].rows[plain]) == "holds"


def test_junit_names_a_result_only_verdict(corpus, on_the_model):
    """The JUnit file names each case's verdict in a `verdict` property, "holds (result only)"
    for a test whose events are not checked, and a case's output opens with it; on the model
    each is a prediction ("predicts: …", skipped: nothing ran it)."""
    tree = ET.fromstring(junit.junit_xml(on_the_model).split("\n", 1)[1])
    cases = {case.get("name"): case for case in tree.iter("testcase")}
    only = cases["find: Find with batchSize equal to limit [model 8.0]"]
    assert only.find("properties/property[@name='verdict']").get("value") == \
        "predicts: holds (result only)"
    assert only.find("system-out").text.startswith("predicts: holds (result only)\n")
    assert only.find("skipped") is not None
    plain = cases["find: Find with filter [model 8.0]"]
    assert plain.find("properties/property[@name='verdict']").get("value") == "predicts: holds"
    skipped = cases["db-aggregate: Aggregate with $listLocalSessions [model 8.0]"]
    assert skipped.find("properties/property[@name='verdict']").get("value") == \
        "predicts: not run"
