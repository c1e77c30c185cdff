"""`labkit check`, `labkit.run.check`: claim files judged on the model, MongoDB and the
in-process fakes, as a matrix, the run's report and JUnit XML (issue #12)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import ONE_CLAIM

from labkit.claims import files as claimfiles
from labkit.claims.expect import judge_step, match
from labkit.claims.files import Answer, Expectation, Requirement
from labkit.cli import main
from labkit.engines import fakes
from labkit.engines import query as engines
from labkit.experiments import catalogue as claims
from labkit.i18n import english
from labkit.outputs import junit, report
from labkit.run import check as claimcheck

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
KIT_CLAIMS = ROOT / "claims"
# The registered query claims whose questions the repository's claim files restate.
AS_FILES = ("D3", "S2", "B1", "X1", "X2", "X3", "X4", "X5")


@pytest.fixture(scope="module")
def on_the_model():
    """The repository's claim files judged on the model alone."""
    return claimcheck.run_files([KIT_CLAIMS], "model")


def _expectation_as_recorded(spec) -> object:
    expect = spec.steps[0].expect
    if expect.kind == "documents":  # B1's census, as its expectation writes it
        return {doc["_id"]: doc["n"] for doc in expect.value}
    return expect.value if expect.ordered else sorted(expect.value)


@pytest.mark.parametrize("claim_id", AS_FILES)
def test_claim_files_restate_every_recorded_result(claim_id):
    """Each recorded result of D3, S2, B1 and X1-X5 (docs/claims.md, as the registry holds them)
    is a claim file entry `<ID>.<question>` with the same expectation."""
    specs = {s.id: s for s in claimfiles.load([KIT_CLAIMS])}
    expected = claims.get(claim_id).expected
    for question, value in expected.items():
        spec = specs[f"{claim_id}.{question}"]
        wanted = value if spec.steps[0].expect.ordered or not isinstance(value, list) \
            else sorted(value)
        assert _expectation_as_recorded(spec) == wanted, question


def test_claim_files_restate_b2():
    """B2's three statements are the two B2 entries: numbers (42.0 a double) and a Date field
    queried with a string (claim B2)."""
    specs = {s.id: s for s in claimfiles.load([KIT_CLAIMS])}
    assert set(claims.get("B2").expected) == {"every_numeric_type_matches",
                                              "string_hidden_from_number",
                                              "date_hidden_from_string"}
    numbers = specs["B2.numbers_from_python"]
    assert numbers.steps[0].expect.value == [1, 3, 4, 5]
    assert type(numbers.fixture["claim"][3]["userId"]) is float
    assert specs["B2.date_hidden_from_string"].steps[0].expect.value == []


def test_the_model_reproduces_every_recorded_result(on_the_model):
    """`labkit check claims/` on the model: every claim holds, and names the model and its
    version (the recorded results of D3, S2, B1, B2, X1-X5, and S1's question)."""
    rows = on_the_model.run.rows
    assert {row.verdict for row in rows} == {claims.HOLDS}, [str(r) for r in rows
                                                             if r.verdict != claims.HOLDS]
    assert {(english(row.engine), row.engine_version) for row in rows} == {
        ("model (labkit's rules for MongoDB 8.0)", claimcheck.ModelEngine().version)}
    assert {s.id.split(".")[0] for s in on_the_model.specs} == {*AS_FILES, "B2", "S1"}


def test_the_report_is_the_run_report(on_the_model, tmp_path):
    """The check writes the same report.html, report.md and results.json as `labkit run`, each
    claim placed at its file and line; on the model alone each claim is predicted, not seen:
    its verdict is not run, the model's is its prediction, and its row says it predicts."""
    paths = report.write(on_the_model.run, tmp_path)
    data = json.loads(paths["json"].read_text())
    first = data["claims"][0]
    assert first["id"] == "D3.string_range"
    assert (first["verdict"], first["prediction"]) == ("not-run", "holds")
    assert first["results"][0]["predicted"] is True
    assert data["counts"]["hold"] == 0
    assert data["predictions"]["hold"] == len(data["claims"])
    assert first["experiment"].endswith("lesson01_dates.yaml:3")
    assert "D3.string_range" in paths["html"].read_text()


def test_unified_reads_on_the_model():
    """The Unified Test Format file's reads on the model: results hold, an error expectation is
    not the model's to judge, a read after a write the model does not perform (an updateOne)
    and an events-only test are not run, a read and the outcome after an insert, which the
    model performs, hold, and a wrong expectation does not hold. A find without a sort whose
    test expects its documents in an order is not run: MongoDB guarantees no order without a
    sort (db.collection.find), which the model's fixture order would stand in for."""
    result = claimcheck.run_files([DATA / "unified" / "reads.yml"], "model")
    verdicts = {row.claim.title: (row.verdict, str(row.reason)) for row in result.run.rows}
    unsorted = verdicts["find without a sort, its result in an order"]
    assert unsorted[0] == claims.NOT_RUN
    assert unsorted[1].startswith("the read has no sort, and MongoDB guarantees no order")
    for title in ("find with a sort, its events not checked", "find with sort, skip and limit",
                  "aggregate with match and sort", "countDocuments with a filter",
                  "distinct with a filter"):
        assert verdicts[title][0] == claims.HOLDS, (title, verdicts[title])
    assert verdicts["a document comment before 4.4 is a server error"] == (
        claims.NOT_RUN, "runOnRequirements: it speaks for MongoDB 3.6.0 to 4.3.99; the model "
        "follows MongoDB 8.0")
    assert verdicts["a find after a write is not judged"] == (
        claims.NOT_RUN, "nothing to judge: find at line 105: it follows updateOne at line 102, "
        "which the model does not perform")
    assert verdicts["a find after an insert the model performs"][0] == claims.HOLDS
    assert verdicts["events only: nothing to judge"][0] == claims.NOT_RUN
    assert verdicts["a wrong expectation does not hold"][0] == claims.FAILS
    assert "not checked: expectEvents" in verdicts["find with a sort, its events not checked"][1]


def test_the_model_says_not_supported_for_a_stage_it_does_not_know():
    """An aggregate stage outside the model makes the model's row not run, naming the stage."""
    result = claimcheck.run_files([DATA / "claims" / "user.yaml"], "model")
    row = next(r for r in result.run.rows if r.claim.id == "lookup-needs-a-server")
    assert (row.verdict, str(row.reason)) == (claims.NOT_RUN,
                                              "the model does not support the stage $lookup")


def test_mongomock_is_named_as_a_fake_and_its_decimal_sort_crash_is_shown():
    """mongomock is an engine named as an in-process fake with its version; its own exception
    on a sort over Decimal128 values is mongomock's error there, naming the exception, not an
    answer MongoDB could give."""
    pytest.importorskip("mongomock")
    result = claimcheck.run_files([DATA / "claims" / "user.yaml"], "model,mongomock")
    assert [c.label for c in result.columns][1].startswith("mongomock ")
    rows = {(r.claim.id, english(r.engine)): r for r in result.run.rows}
    crash = rows[("decimal-sort", "mongomock (in-process fake)")]
    assert crash.verdict == claims.ERROR
    assert "Decimal128" in crash.reason
    assert rows[("decimal-sort", "model (labkit's rules for MongoDB 8.0)")].verdict == \
        claims.HOLDS
    assert "MongoDB" not in english(crash.engine)


def test_montydb_is_named_as_a_fake():
    """montydb, where installed, is an engine named as an in-process fake with its version and
    the server version it reports."""
    pytest.importorskip("montydb")
    engine = fakes.engine("montydb")
    assert english(engine.name) == "montydb (in-process fake)"
    assert engine.version
    assert engine.speaks_for


def test_versions_without_servers_are_not_run_each_with_why(nothing_available):
    """With no server, each requested MongoDB version is its own column, every cell not run,
    its row and its column's reason naming that version, the row's reason the missing server
    as `labkit run` says it (so one cause for several versions is said once)."""
    specs = claimfiles.read(DATA / "claims" / "user.yaml")[:1]
    result = claimcheck.check(specs, ["model", "mongodb"], ["6.0", "8.0"])
    assert [c.label for c in result.columns] == ["model 8.0", "MongoDB 6.0", "MongoDB 8.0"]
    for column, version in zip(result.columns[1:], ("6.0", "8.0"), strict=True):
        (row,) = column.rows
        assert row.verdict == claims.NOT_RUN
        assert row.engine_version == version
        assert str(column.missing).startswith(f"no server of version {version}: No MongoDB")
        assert str(row.reason).startswith("needs mongodb: No MongoDB server")
    assert result.exit_status() == 0
    assert result.exit_status(strict=True) == 1


class _Engine(engines.Engine):
    def __init__(self, key, speaks_for, topology="single"):
        self.key, self.name, self.speaks_for, self.topology = key, key, speaks_for, topology


@pytest.mark.parametrize(("requirements", "engine", "unmet"), [
    (((Requirement("4.4.0"),),), _Engine("mongodb", "7.0.14"), ""),
    (((Requirement(None, "4.3.99"),),), _Engine("mongodb", "7.0.14"),
     "it speaks for MongoDB 4.3.99 or older; this server is 7.0.14"),
    (((Requirement("9.0"), Requirement("7.0", "7.0.99")),), _Engine("mongodb", "7.0.14"), ""),
    (((Requirement("4.0"),), (Requirement("8.0"),)), _Engine("mongodb", "7.0.14"),
     "it speaks for MongoDB 8.0 or newer; this server is 7.0.14"),
    (((Requirement(topologies=("sharded",)),),), _Engine("mongodb", "7.0.14"),
     "it runs on sharded, not single"),
    (((Requirement(unknown=("auth: true",)),),), _Engine("model", "8.0"),
     "it requires auth: true, which a claim check cannot establish"),
    (((Requirement(None, "7.0"),),), _Engine("mongodb", "7.0.14"),
     "it speaks for MongoDB 7.0 or older; this server is 7.0.14"),
    (((Requirement(None, "7.0.99"),),), _Engine("mongodb", "7.0.14"), ""),
    (((Requirement(None, "7.0", given_parts_only=True),),), _Engine("mongodb", "7.0.14"), ""),
    (((Requirement(None, "7.0", given_parts_only=True),),), _Engine("mongodb", "7.1.0"),
     "it speaks for MongoDB 7.0 or older; this server is 7.1.0"),
    (((Requirement("7.0", given_parts_only=True),),), _Engine("mongodb", "6.0.16"),
     "it speaks for MongoDB 7.0 or newer; this server is 6.0.16"),
], ids=["met", "above max", "one of two met", "second group unmet", "topology", "auth",
        "unified 7.0 is 7.0.0", "unified 7.0.99", "short 7.0 is any 7.0.x", "short above 7.0",
        "short below min"])
def test_run_on_requirements(requirements, engine, unmet):
    """runOnRequirements: one requirement of every group must be met (source:
    unified-test-format.md, runOnRequirement); versions compare component by component, a
    Unified Test Format version padded with zeros ("Version String": "<patch> is assumed to be
    zero"), a short-form version only in the parts written (issue 19)."""
    spec = claimfiles.ClaimSpec("c", "t", "s", Path("f.yaml"), 1, (), requirements=requirements)
    assert str(claimcheck._unmet(spec, engine)) == unmet


@pytest.mark.parametrize(("expected", "actual", "root", "problem"), [
    ({"x": 1}, {"x": 1, "y": 1}, True, None),
    ({"x": {"y": 1}}, {"x": {"y": 1, "z": 1}}, True, "x: unexpected field z"),
    ({"x": 1}, {"x": 1.0}, False, None),
    ({"x": 1}, {"x": 1.5}, False, "x: 1.5, not 1"),
    ([1, 2, 3], [1, 2, 3, 4], False, "4 elements, not 3"),
    ({"a": {"$$exists": False}}, {"b": 1}, True, None),
    ({"a": {"$$type": ["int", "long"]}}, {"a": 5}, False, None),
    ({"a": {"$$unsetOrMatches": 2}}, {}, False, None),
    ({"y": 1, "x": 1}, {"x": 1, "y": 1}, False, None),
    ({"$$unsetOrMatches": {"x": 1}}, {"x": 1, "y": 1}, True, None),
    ({"$$unsetOrMatches": {"x": 1}}, {"x": 1, "y": 1}, False, "unexpected field y"),
    ({"d": {"$$unsetOrMatches": {"x": 1}}}, {"d": {"x": 1, "y": 1}}, True,
     "d: unexpected field y"),
    ({"d": {"$$unsetOrMatches": {"x": 1}}}, {"d": {"x": 2}}, True, "d: x: 2, not 1"),
], ids=["root extra field", "nested extra field", "int matches double", "1 is not 1.5",
        "arrays same length", "$$exists false", "$$type", "$$unsetOrMatches", "key order",
        "$$unsetOrMatches keeps a root document root", "nor makes a nested one root",
        "nested under $$unsetOrMatches stays nested", "$$unsetOrMatches still matches"])
def test_matching_follows_the_unified_test_format(expected, actual, root, problem):
    """Expected values match as unified-test-format.md, Evaluating Matches, says: extra fields
    only at the root, flexible numerics, same-length arrays, the $$ operators, any key order.
    $$unsetOrMatches matches "using the standard rules" ("$$unsetOrMatches"), and "does not
    influence whether or not an actual document value is considered a root-level document"
    (the format's text as issue 19 quotes it): a root document under it keeps its extra fields,
    a nested one does not gain them."""
    found = match(expected, actual, root=root)
    assert (None if found is None else str(found)) == problem


def test_decimal_is_not_a_flexible_numeric():
    """Decimal128 is excluded from flexible numeric comparisons (unified-test-format.md)."""
    from bson import Decimal128

    assert match(1, Decimal128("1")) is not None


def test_error_expectations_judge_where_the_error_came_from():
    """expectError's isClientError and errorCodeName are judged against the raised error."""
    raised = Answer(raised="OperationFailure: bad", server_error=True, code=2,
                    code_name="BadValue")
    assert judge_step(Expectation("error", {"isClientError": False}), raised)[0]
    assert not judge_step(Expectation("error", {"isClientError": True}), raised)[0]
    assert judge_step(Expectation("error", {"errorCodeName": "badvalue"}), raised)[0]
    assert not judge_step(Expectation("ids", [1]), raised)[0]


def test_junit_xml_has_a_suite_per_column_and_a_case_per_claim():
    """JUnit XML: a test suite per engine column, failures for claims that do not hold,
    skipped (with the reason) for cells that did not run. The model's cells are predictions:
    a predicted "holds" is skipped, never a pass (issue 44: CI counted them as passes and a
    failure's body said "observed")."""
    result = claimcheck.run_files([DATA / "claims" / "user.yaml"], "model")
    tree = ET.fromstring(junit.junit_xml(result))
    (suite,) = tree.findall("testsuite")
    assert suite.get("name") == "model 8.0"
    assert suite.get("tests") == "4"
    skipped = tree.findall(".//testcase/skipped")
    assert [s.get("message") for s in skipped] == [
        *["predicts: holds: labkit's model, a prediction; no engine ran it"] * 3,
        "the model does not support the stage $lookup"]
    assert tree.get("failures") == "0"
    assert tree.get("skipped") == "4"
    verdicts = [p.get("value") for p in tree.findall(".//property[@name='verdict']")]
    assert verdicts == ["predicts: holds"] * 3 + ["predicts: not run"]


def test_junit_xml_fails_a_predicted_does_not_hold_as_a_prediction(tmp_path):
    """A claim the model predicts not to hold fails its case, as it fails the exit status,
    worded as a prediction; the same claim on a fake that answered is an observation."""
    pytest.importorskip("mongomock")
    claims = tmp_path / "c.yaml"
    claims.write_text("- id: gt-skips-strings\n  title: $gt 4 skips the string\n"
                      "  fixture: [{_id: 1, a: 5}, {_id: 2, a: '9'}]\n"
                      "  find: {a: {$gt: 4}}\n  expect: {ids: [1, 2]}\n", encoding="utf-8")
    result = claimcheck.run_files([claims], "model,mongomock")
    tree = ET.fromstring(junit.junit_xml(result))
    model, fake = tree.findall("testsuite")
    (predicted,) = model.findall(".//failure")
    assert predicted.get("message") == "predicted not to hold"
    assert "\npredicted: [1]" in predicted.text
    assert "observed" not in predicted.text
    (observed,) = fake.findall(".//failure")
    assert observed.get("message") == "does not hold"
    assert "\nobserved: [1]" in observed.text


def test_frames_for_notebooks():
    """pandas frames: the verdict matrix (claims × columns) and the scorecard with marks."""
    result = claimcheck.run_files([DATA / "claims" / "user.yaml"], "model")
    frame = result.frame()
    assert list(frame.columns) == ["model 8.0"]
    assert frame.loc["null-matches-missing", "model 8.0"] == "holds"
    card = result.scorecard()
    assert card.loc["null-matches-missing", "model 8.0"] == "✓ [1, 2]"
    assert card.loc["lookup-needs-a-server", "model 8.0"].startswith("– the model does not")


def test_cli_check_prints_the_matrix_and_writes_report_and_junit(tmp_path, capsys):
    """`labkit check claims/` exits 0 when every claim holds on the model, prints the matrix
    and writes the report and the JUnit XML."""
    junit = tmp_path / "junit.xml"
    status = main(["check", str(KIT_CLAIMS), "--out", str(tmp_path / "r"), "--junit",
                   str(junit), "--quiet"])
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith("claim")
    assert "model 8.0" in out.splitlines()[0]
    # the model's cells are predictions: no engine ran, and the model predicts every one holds
    assert ("33 claims: 0 hold, 0 do not hold, 0 findings, 33 not run, 0 error; labkit's model "
            "predicts: 33 hold, 0 do not hold, 0 findings, 0 error") in out
    assert (tmp_path / "r" / "report.html").exists()
    assert junit.exists()


def test_cli_check_fails_when_a_fake_does_not_hold(tmp_path, capsys):
    """A claim that does not hold on an engine the user asked for fails the check (exit 1)."""
    pytest.importorskip("mongomock")
    status = main(["check", str(DATA / "claims" / "user.yaml"), "--engines", "model,mongomock",
                   "--out", str(tmp_path), "--quiet"])
    assert status == 1
    assert "decimal-sort on mongomock" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--engines", "model,sqlite"], "Error: unknown engine 'sqlite'; choose from model, "
     "mongodb, mongomock, montydb"),
    (["--mongodb-version", "latest", "--engines", "mongodb"], "Error: server version 'latest'"),
    (["--mongodb-version", "7.0"], "Error: --mongodb-version needs mongodb among --engines"),
])
def test_cli_check_bad_options_are_one_error_line(argv, message, capsys, tmp_path):
    """Bad engines or versions are one `Error:` line and exit status 2."""
    status = main(["check", str(KIT_CLAIMS), "--out", str(tmp_path), *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_cli_check_bad_claim_file_is_one_error_line(tmp_path, capsys):
    """A bad claim file is one `Error:` line naming the file, the claim and the line; exit 2."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("- id: x\n  title: t\n  fixture: []\n  find: {}\n  expect: {ids: 1}\n")
    assert main(["check", str(bad), "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"Error: {bad}:5: claim 'x': expect's ids must be a list\n"


@pytest.mark.mongodb
def test_the_kits_claim_files_hold_on_a_real_server(mongodb_server):
    """Every claim file entry holds on the session's real MongoDB, named with its version."""
    specs = claimfiles.load([KIT_CLAIMS])
    engine = engines.MongoDBEngine(mongodb_server)
    for spec in specs:
        observation, verdict = claimcheck.observe(spec, engine)
        assert verdict == claims.HOLDS, (spec.id, observation.observed, observation.note)
        assert (observation.engine, observation.engine_version) == ("MongoDB",
                                                                    mongodb_server.version)


def test_raised_lists_where_a_fake_crashed_from_the_observations():
    """``raised`` reads the exceptions from each row's observation (not from the scorecard's
    text): mongomock 4.3 raises on a range query that meets Decimal128 (claim B1's $gt: 0),
    its own exception and so its error."""
    from labkit.claims import files as claimfiles

    specs = [s for s in claimfiles.load([claimfiles.KIT_CLAIMS]) if s.id.startswith("B1.")]
    result = claimcheck.check(specs, ["model", "mongomock"])
    crashed = result.raised(["mongomock"])
    assert "B1.gt_0" in crashed.index
    assert crashed.loc["B1.gt_0"].iloc[0].startswith("NotImplementedError")
    assert "B1.eq_string_42" not in crashed.index  # answered (and right) on mongomock
    assert result.raised(["model"]).empty


def test_only_what_pymongo_raises_is_mongodbs_answer():
    """On MongoDB a read's exception is its answer when pymongo or bson raised it (a server's
    OperationFailure, a driver's refusal of an argument inside pymongo's code); an exception
    from the code that asked is no answer of MongoDB's, so the row is an error, not a verdict
    (engines.query.driver_raised)."""
    from pymongo import common
    from pymongo.errors import OperationFailure

    assert engines.driver_raised(OperationFailure("unknown operator: $bogus", code=2))
    with pytest.raises(ValueError, match="positive") as refused:
        common.validate_positive_integer("limit", -1)
    assert engines.driver_raised(refused.value)
    with pytest.raises(TypeError) as ours:
        sorted([1, "a"])
    assert not engines.driver_raised(ours.value)


INSERT_THEN_NULL = """\
description: insert-then-null
schemaVersion: "1.0"
createEntities:
  - client: {id: client0}
  - database: {id: database0, client: client0, databaseName: db}
  - collection: {id: coll0, database: database0, collectionName: coll}
initialData:
  - {collectionName: coll, databaseName: db, documents: [{_id: 1, a: null},
                                                        {_id: 3, a: {$undefined: true}}]}
tests:
  - description: "an insert, then {a: null}"
    operations:
      - name: insertOne
        object: coll0
        arguments: {document: {_id: 2}}
      - name: find
        object: coll0
        arguments: {filter: {a: null}, sort: {_id: 1}}
        expectResult: [{_id: 1}, {_id: 2}]
"""


@pytest.mark.parametrize(("rules", "verdict"), [("6.0", claims.FAILS), ("8.0", claims.HOLDS)])
def test_the_models_insert_leaves_the_fixtures_values_as_they_are(tmp_path, rules, verdict):
    """After an insert the model performs, the fixture's undefined is still undefined: on 6.0's
    rules {a: null} matches it (jstests/core/null_query_semantics.js:39-43 at 1a18c8f8), on
    8.0's it does not (jstests/core/query/null_query_semantics.js:10-11 at 1704949c); a copy
    of the fixture's documents would have lost the value the model knows by identity."""
    path = tmp_path / "insert.yml"
    path.write_text(INSERT_THEN_NULL, encoding="utf-8")
    (row,) = claimcheck.run_files([path], "model", model_versions=rules).run.rows
    assert row.verdict == verdict, row.reason


WRONG_ON_THE_MODEL = """\
- id: A2
  title: "a string operand never meets the number 1"
  fixture: [{_id: a, v: 1}, {_id: b, v: "1"}]
  find: {v: {$gte: "0"}}
  expect: {ids: [a, b]}
"""


def test_the_models_predictions_never_count_as_holds(nothing_available, tmp_path, capsys):
    """Issue 44's case: `labkit check FILE --engines model,mongodb` with no MongoDB. Nothing
    was observed, so no claim holds, in the terminal, report.md, report.html and results.json;
    each says what the model predicts, as a prediction. The exit status still fails on a
    prediction that does not hold (the claim author's check), and --strict on the claims no
    engine ran."""
    claims_file = tmp_path / "claims.yaml"
    claims_file.write_text(ONE_CLAIM, encoding="utf-8")
    out = tmp_path / "out"
    status = main(["check", str(claims_file), "--engines", "model,mongodb", "--out", str(out)])
    text = capsys.readouterr().out
    summary = ("1 claim: 0 hold, 0 do not hold, 0 findings, 1 not run, 0 error; labkit's model "
               "predicts: 1 hold, 0 do not hold, 0 findings, 0 error")
    assert status == 0
    assert summary in text
    assert "predicts: holds" in text.splitlines()[1]
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert summary in markdown
    assert "- A1 | not run" not in markdown
    assert "| A1 | not run |" in markdown
    assert '**predicts: holds**, predicted answer `["a"]`' in markdown
    assert "observed `" not in markdown  # MongoDB observed nothing; the model observes nothing
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "predicts: holds" in page
    assert "Predicted: a" in page
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["counts"]["hold"] == 0
    assert data["predictions"]["hold"] == 1
    (claim,) = data["claims"]
    assert (claim["verdict"], claim["prediction"]) == ("not-run", "holds")
    assert [row["predicted"] for row in claim["results"]] == [True, False]
    # The server's absence in fields of their own, as `labkit run` gives them (docs/report.md),
    # and said once in the terminal, its column named once.
    mongodb = claim["results"][1]
    assert mongodb["missing"] == "mongodb"
    assert mongodb["missing_detail"].startswith("No MongoDB server is available")
    assert mongodb["hint"].startswith("Hint: ")
    assert "  MongoDB: not run" in text.splitlines()
    assert "MongoDB: MongoDB" not in text
    strict = ["check", str(claims_file), "--engines", "model,mongodb", "--strict", "--out",
              str(tmp_path / "strict")]
    assert main(strict) == 1

    claims_file.write_text(WRONG_ON_THE_MODEL, encoding="utf-8")
    status = main(["check", str(claims_file), "--out", str(tmp_path / "wrong")])
    text = capsys.readouterr().out
    assert status == 1
    assert "labkit's model predicts: 0 hold, 1 do not hold" in text
    assert "predicts: does not hold" in text


def test_every_version_asked_for_keeps_its_line_and_its_rows(nothing_available, tmp_path,
                                                             capsys):
    """Issue 44, 5: with two rule sets of the model and two MongoDB versions asked for, the
    report's header named the last of each only (its lines were keyed by the engine's name),
    and the MongoDB rows that did not run had no version (``"engine_version": ""``). Each
    engine keeps its header line now, and a row that did not run keeps the version asked
    for, in report.md's table and results.json."""
    claims_file = tmp_path / "claims.yaml"
    claims_file.write_text(ONE_CLAIM, encoding="utf-8")
    out = tmp_path / "out"
    main(["check", str(claims_file), "--engines", "model,mongodb", "--model-version", "6.0,9.0",
          "--mongodb-version", "6.0,7.0", "--out", str(out), "--quiet"])
    capsys.readouterr()
    markdown = (out / "report.md").read_text(encoding="utf-8")
    header = markdown.split("**", 1)[0]
    for line in ("- model: (labkit's rules for MongoDB 6.0)", "- model: (labkit's rules for "
                 "MongoDB 9.0)", "- MongoDB: 6.0: not run", "- MongoDB: 7.0: not run"):
        assert line in header, header
    assert "| | not run | MongoDB 6.0 | |" in markdown
    assert "| | not run | MongoDB 7.0 | |" in markdown
    assert ("- MongoDB 7.0: **not run**, no observation; needs mongodb: No MongoDB server"
            in markdown.replace("\\", ""))
    assert "MongoDB was not available: 1 claim did not run (A1)." in markdown
    (claim,) = json.loads((out / "results.json").read_text(encoding="utf-8"))["claims"]
    mongodb = [row for row in claim["results"] if row["engine_key"] == "mongodb"]
    assert [row["engine_version"] for row in mongodb] == ["6.0", "7.0"]


def test_a_summary_says_how_many_claims_only_fakes_judged(nothing_available, tmp_path, capsys):
    """With MongoDB not run, every verdict counted came from mongomock: the summary says so
    (an engineer's walk read "1 hold" as MongoDB's), in the terminal and results.json."""
    pytest.importorskip("mongomock")
    claims_file = tmp_path / "claims.yaml"
    claims_file.write_text(ONE_CLAIM, encoding="utf-8")
    out = tmp_path / "out"
    main(["check", str(claims_file), "--engines", "model,mongomock,mongodb", "--out", str(out)])
    text = capsys.readouterr().out
    assert ("1 claim: 1 hold, 0 do not hold, 0 findings, 0 not run, 0 error, 1 of them on "
            "in-process fakes alone (mongomock); labkit's model predicts: 1 hold") in text
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert ", 1 of them on in-process fakes alone (mongomock);" in data["summary"]
