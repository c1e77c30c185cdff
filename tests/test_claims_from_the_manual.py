"""Claim files written the way the manual writes its examples (issue 45): what an engineer
pastes from a page is either read as mongosh means it or refused in one ``Error:`` with the
Extended JSON to write, never silently a string that makes a false "does not hold".

The examples are the manual's (www.mongodb.com/docs/manual/reference/operator/query/regex/,
…/query/in/, …/method/cursor.sort/ and the collation page, the 8.0 compatibility page), read
2026-12-05, with their fixtures cut to what the claim needs.
"""

from __future__ import annotations

import json

import pytest

from labkit.claims import files as claimfiles
from labkit.errors import BadInput
from labkit.run import check as claimcheck

PRODUCTS = "[{_id: 100, sku: abc123}, {_id: 101, sku: abc789}, {_id: 102, sku: xyz456}]"


def _claim(tmp_path, body: str, fixture: str = PRODUCTS) -> str:
    path = tmp_path / "manual.yaml"
    path.write_text(f'- id: M1\n  title: "from the manual"\n  fixture: {fixture}\n{body}',
                    encoding="utf-8")
    return str(path)


def _refused(tmp_path, body: str, fixture: str = PRODUCTS) -> str:
    with pytest.raises(BadInput) as refused:
        claimfiles.load([_claim(tmp_path, body, fixture)])
    return str(refused.value)


@pytest.mark.parametrize(("query", "ejson"), [
    # The $regex page: { sku: { $regex: /789$/ } }
    ("{sku: {$regex: /789$/}}", '{"$regularExpression": {"pattern": "789$", "options": ""}}'),
    # The $in page writes patterns as literals inside the list: { tags: { $in: [ /^be/ ] } }
    ("{sku: {$in: [/^ab/]}}", '{"$regularExpression": {"pattern": "^ab", "options": ""}}'),
    # The $regex page's case-insensitive form: { sku: { $regex: /^ABC/i } }
    ("{sku: /^ABC/i}", '{"$regularExpression": {"pattern": "^ABC", "options": "i"}}')])
def test_a_regex_literal_is_refused_with_its_extended_json(tmp_path, query, ejson):
    """Before, YAML read ``/789$/`` as the text "/789$/", which matches no sku: a silent "does
    not hold". In flow style and block style alike it is refused, naming the regular
    expression to write."""
    flow = _refused(tmp_path, f"  find: {query}\n  expect: {{ids: [101]}}\n")
    assert "is a regular expression as mongosh writes one" in flow
    assert ejson in flow


def test_the_regex_written_as_extended_json_holds_on_the_model(tmp_path):
    """What the refusal says to write gives the manual's answer."""
    path = _claim(tmp_path, '  find: {sku: {$regex: {"$regularExpression": {"pattern": "789$", '
                            '"options": ""}}}}\n  expect: {ids: [101]}\n')
    (row,) = claimcheck.run_files([path], "model").run.rows
    assert row.verdict == "holds", row.reason


def test_a_bare_undefined_is_refused_not_read_as_the_string(tmp_path):
    """The 8.0 compatibility page queries ``{ field: undefined }``; YAML read the word as the
    string "undefined", so a claim about undefined held or failed for the wrong reason."""
    said = _refused(tmp_path, "  find: {sku: undefined}\n  expect: {ids: []}\n")
    assert '{"$undefined": true}' in said


@pytest.mark.parametrize(("written", "ejson"), [
    ("Long(5)", '{"$numberLong": "5"}'), ("Int32(5)", '{"$numberInt": "5"}'),
    ("Double(24.0)", '{"$numberDouble": "24.0"}'),
    ('Decimal128("26")', '{"$numberDecimal": "26"}')])
def test_mongosh_2_constructors_give_their_value(tmp_path, written, ejson):
    """The current manual writes mongosh 2.x's classes; each was refused with a placeholder
    (``{"$numberLong": "<digits>"}``). Their value is given, as the older helpers' is."""
    said = _refused(tmp_path, f"  find: {{n: {written}}}\n  expect: {{ids: []}}\n",
                    fixture="[{_id: 1, n: 5}]")
    assert f"Write {ejson}, the value mongosh makes" in said


def test_a_collation_in_the_short_form_is_the_finds_collation(tmp_path):
    """The collation page's numericOrdering example, in the short form: before, ``collation``
    beside ``filter`` and ``sort`` turned the whole mapping into a filter on fields named
    filter, sort and collation (observed [])."""
    path = _claim(tmp_path, "  find: {filter: {}, sort: {v: 1}, collation: {locale: en_US, "
                            "numericOrdering: true}}\n  expect: {ids: [a, b, c], ordered: true}\n",
                  fixture='[{_id: c, v: "100"}, {_id: a, v: "2"}, {_id: b, v: "10"}]')
    (row,) = claimcheck.run_files([path], "model").run.rows
    assert row.verdict == "holds", row.reason


def test_a_long_form_key_find_does_not_know_is_refused_with_the_known_ones(tmp_path):
    """``hint`` beside ``filter``: refused, naming the key, the keys the short form knows, and
    where the others go."""
    said = _refused(tmp_path, "  find: {filter: {}, sort: {sku: 1}, hint: {_id: 1}}\n"
                              "  expect: {count: 3}\n")
    assert "find has an unknown key 'hint'" in said
    assert "collation, filter, limit, projection, skip, sort" in said
    assert "Unified Test Format" in said


def test_an_unknown_expect_key_says_what_was_meant(tmp_path):
    """``order: true`` for ``ordered: true``: the known keys, and the nearest."""
    said = _refused(tmp_path, "  find: {}\n  expect: {ids: [100, 101, 102], order: true}\n")
    assert "expect has an unknown key 'order'" in said
    assert "did you mean ordered?" in said


def test_bindata_in_a_flow_mapping_gets_the_refusal_not_yamls_words(tmp_path):
    """``{b: BinData(0, "MC==")}`` in one line (the manual's $type page writes BinData so):
    the comma and the quotes end YAML's parse, which said only "while parsing a flow mapping";
    the same text in block style got the refusal with the Extended JSON. Both do now, with
    the base64 made canonical ("MC==" is "MA==": the same byte)."""
    said = _refused(tmp_path, "  find: {}\n  expect: {count: 1}\n",
                    fixture='[{_id: 1, b: BinData(0, "MC==")}]')
    assert ':3: BinData(0, "MC==") is mongosh\'s notation' in said
    assert '{"$binary": {"base64": "MA==", "subType": "00"}}' in said
    assert "while parsing" not in said


def test_predict_and_explain_given_a_claim_file_say_what_it_is(tmp_path, capsys):
    """The claim file just written, given to ``labkit predict`` or ``explain``, said "line 1 is
    not Extended JSON: Expecting value"; it says it is a claim file and what to run."""
    from labkit.cli import main

    path = _claim(tmp_path, "  find: {}\n  expect: {count: 3}\n")
    for argv in (["predict", "find", path, "--filter", "{}"],
                 ["explain", "sort", path, "--sort", "sku:1"]):
        assert main(argv) != 0
        err = capsys.readouterr().err
        assert f"is a claim file, not a file of documents: run it with labkit check {path}" in err
        assert "Expecting value" not in err


def test_a_sort_document_as_the_manual_writes_it_and_an_empty_answer(tmp_path, capsys):
    """``--sort '{"v": 1}'`` (the manual's form) was refused; it is the same sort as ``v:1``.
    A find that matches nothing said nothing; it says so, on stderr (stdout stays the ids)."""
    from labkit.cli import main

    path = tmp_path / "docs.json"
    path.write_text('{"_id": 1, "v": 2}\n{"_id": 2, "v": 1}\n', encoding="utf-8")
    assert main(["predict", "sort", str(path), "--sort", '{"v": 1, "_id": -1}']) == 0
    assert capsys.readouterr().out.split() == ["2", "1"]
    assert main(["predict", "find", str(path), "--filter", '{"v": 5}']) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "no document matches" in err


@pytest.mark.parametrize(("never", "verdict"), [("[102]", "holds"), ("[101, 102]", "fails")])
def test_never_returns_these_is_a_claim(tmp_path, never, verdict):
    """"``{sku: /^abc/}`` never returns xyz456": ``expect: {not_ids: […]}`` (before: "unknown
    key"). It holds when none of them comes back, whatever else does, and names the ones that
    did otherwise."""
    path = _claim(tmp_path, '  find: {sku: {$regex: {"$regularExpression": {"pattern": "^abc", '
                            '"options": ""}}}}\n'
                            f"  expect: {{not_ids: {never}}}\n")
    (row,) = claimcheck.run_files([path], "model").run.rows
    assert row.verdict == verdict, row.reason
    if verdict == "fails":
        assert "returned [101], which it should never return" in str(row.reason)


def test_non_canonical_base64_is_refused_with_the_canonical_form(tmp_path):
    """Issue 45, item 5: the manual's BinData(0, "MC==") written as Extended JSON keeps "MC==",
    whose last bits are not zero; libbson's base64 decoder refuses it, and the refusal gives
    the canonical spelling of the same bytes, "MA==" (it said only "not base64")."""
    text = _refused(tmp_path, "  find: {}\n  expect: {count: 1}\n",
                    '[{_id: 1, b: {$binary: {base64: "MC==", subType: "00"}}}]')
    assert "not canonical base64" in text
    assert "'MA=='" in text


def test_every_bad_claim_of_a_file_is_named_at_once(tmp_path):
    """Issue 45, item 5: one bad claim stopped the file at the first; now every claim is read
    and every bad one named, each with its line, in one error."""
    path = tmp_path / "manual.yaml"
    path.write_text(
        "- {id: good, title: t, fixture: [{_id: 1}], find: {}, expect: {count: 1}}\n"
        "- {id: bin, title: t, fixture: [{_id: 1, b: {$binary: {base64: 'MC==', subType: '00'}}}],"
        " find: {}, expect: {count: 1}}\n"
        "- {id: date, title: t, fixture: [{_id: 1, d: {$date: 'not a date'}}], find: {},"
        " expect: {count: 1}}\n", encoding="utf-8")
    with pytest.raises(BadInput) as refused:
        claimfiles.load([path])
    text = str(refused.value)
    assert "2 of its 3 claims cannot be read" in text
    assert "\n" not in text  # an error is one line
    assert f"{path}:2: claim 'bin'" in text
    assert f"{path}:3: claim 'date'" in text


# The $mod page, "Not Enough Elements Error" and "Too Many Elements Error": $mod with fewer or
# more than two elements errors (www.mongodb.com/docs/manual/reference/operator/query/mod/).
MOD = "[{_id: 1, qty: 0}, {_id: 2, qty: 5}, {_id: 3, qty: 12}]"


@pytest.mark.parametrize(("query", "expect", "verdict"), [
    ("{qty: {$mod: [4]}}", "{error: true}", "holds"),  # the page's example: an error
    ("{qty: {$mod: [4, 0, 1]}}", "{error: true}", "holds"),  # too many elements: an error
    ("{qty: {$mod: [4, 0]}}", "{error: true}", "fails"),  # a good $mod answers: no error
    ("{qty: {$size: -1}}", "{error: true}", "holds"),
    ("{qty: {$geoWithin: {}}}", "{error: true}", "not-run"),  # an operator it does not know
])
def test_an_expected_error_is_judged_where_the_model_refuses_as_the_server(
        tmp_path, query, expect, verdict):
    """Issue 45, item 8: ``expect: {error: true}`` was never judged on the model, though
    ``labkit predict`` refuses the same ``$mod: [4]``. Where the model refuses by the server's
    own rule it predicts the server's error; where it answers, it predicts no error; the code
    and the message it does not predict, nor an operator it does not know."""
    result = claimcheck.check(claimfiles.load([_claim(
        tmp_path, f"  find: {query}\n  expect: {expect}\n", MOD)]), ["model"])
    (column,) = result.columns
    (row,) = column.rows
    assert row.verdict == verdict, row


UNIFIED_MOD = """\
schemaVersion: "1.0"
createEntities:
  - client: {id: &client client}
  - database: {id: &database database, client: *client, databaseName: &db manual}
  - collection: {id: &coll coll, database: *database, collectionName: &name inventory}
initialData:
  - {collectionName: *name, databaseName: *db, documents: [{_id: 1, qty: 0}]}
tests:
  - description: "$mod with one element"
    operations:
      - name: find
        object: *coll
        arguments: {filter: {qty: {$mod: [4]}}}
        expectError: %s
"""


@pytest.mark.parametrize(("checks", "verdict"), [
    ("{isError: true}", "holds"), ("{isClientError: false}", "holds"),
    ("{errorCode: 2}", "not-run"), ("{errorContains: malformed}", "not-run")])
def test_the_model_judges_that_an_error_comes_not_its_code(tmp_path, checks, verdict):
    """The Unified Test Format's expectError: the model predicts that the server refuses (a
    server error, not the client's), never the code or the message it would give."""
    path = tmp_path / "mod.yml"
    path.write_text(UNIFIED_MOD % checks, encoding="utf-8")
    result = claimcheck.check(claimfiles.load([path]), ["model"])
    (column,) = result.columns
    (row,) = column.rows
    assert row.verdict == verdict, row


def _why(rows, doc_id):
    from labkit.i18n import english

    row = next(r for r in rows if r.id == doc_id)
    return row.rule, english(row.because)


def test_explain_names_9_0s_rule_where_it_decides():
    """Issue 45, item 7: under 9.0 the documents that match {"a.b": null} only because of the
    9.0 change (the 9.0 compatibility page: a scalar in an array on the path gives null) were
    explained as "no `a.b`: a missing field equals null"."""
    from labkit.model import explain

    docs = [{"_id": 1, "a": [{"b": 3}, 1]}, {"_id": 4}, {"_id": 5, "a": [1, 2]}]
    rows = explain.find(docs, {"a.b": None}, mongodb_version="9.0")
    for doc_id in (1, 5):
        rule, because = _why(rows, doc_id)
        assert rule == "null-through-arrays"
        assert "since MongoDB 9.0" in because
    assert _why(rows, 4)[0] == "null-matches-missing"  # missing on every version
    before = explain.find(docs, {"a.b": None}, mongodb_version="8.0")
    assert [r.matched for r in before] == [False, True, False]
    assert all("9.0 that gives null" not in _why(before, i)[1] for i in (1, 4, 5))


def test_explain_names_the_bson_type_in_a_type_decision():
    """The $type page's point: 43339374 as an int32 matches {$type: "int"}, as a long not; the
    explanation said only "holds 43339374" for both."""
    from bson import Int64

    from labkit.model import explain

    rows = explain.find([{"_id": 1, "n": 43339374}, {"_id": 2, "n": Int64(43339374)}],
                        {"n": {"$type": "int"}})
    assert "holds the int 43339374" in _why(rows, 1)[1]
    assert "holds the long 43339374" in _why(rows, 2)[1]


def test_explain_names_the_step_that_orders_two_objects():
    """The BSON comparison order page, "Objects": pairs in order, each by its type, then its
    field name, then its value; an object with no further pairs is less. The explanation said
    only "on the objects' rung"."""
    from labkit.model import explain

    docs = [{"_id": "type", "o": {"a": "x"}}, {"_id": "value", "o": {"a": 2}},
            {"_id": "name", "o": {"a": 1, "c": 0}}, {"_id": "first", "o": {"a": 1, "b": 2}},
            {"_id": "longer", "o": {"a": 1, "b": 2, "z": 0}}]
    rows = explain.sorted_rows(docs, "o:1")
    assert [r.id for r in rows] == ["first", "longer", "name", "value", "type"]
    assert _why(rows, "longer") == ("object-order", _why(rows, "longer")[1])
    assert "has the same first 2 field(s) and no more" in _why(rows, "longer")[1]
    assert "the field name `b` is lower than `c`" in _why(rows, "name")[1]
    assert "`a`: 1 is lower than 2" in _why(rows, "value")[1]
    assert "(the numbers' rung) is lower than" in _why(rows, "type")[1]


# The collation page: a collection created with a collation uses it for every read that gives
# none of its own (www.mongodb.com/docs/manual/reference/collation/, "Collation and Index
# Use"; db.createCollection's collation option).
CASES = "[{_id: 1, s: A}, {_id: 2, s: a}, {_id: 3, s: b}]"


@pytest.mark.parametrize(("read", "expect"), [
    ("find: {s: a}", "{ids: [1, 2]}"),
    ("count: {s: a}", "{count: 2}"),
    ("distinct: {field: s, filter: {}}", "{count: 2}"),  # A and a are one value at strength 2
    ("find: {filter: {s: a}, collation: {locale: simple}}", "{ids: [2]}"),  # its own wins
])
def test_a_collections_default_collation_is_written_in_the_short_form(tmp_path, read, expect):
    """Issue 45: a collection's default collation could not be written (it was pointed to the
    Unified Test Format, which has none either)."""
    result = claimcheck.check(claimfiles.load([_claim(
        tmp_path, f"  default_collation: {{locale: en, strength: 2}}\n  {read}\n"
                  f"  expect: {expect}\n", CASES)]), ["model"])
    (column,) = result.columns
    (row,) = column.rows
    assert row.verdict == "holds", row


def test_a_bad_default_collation_is_refused_with_its_line(tmp_path):
    text = _refused(tmp_path, "  default_collation: {locale: en, strength: 9}\n  find: {}\n"
                              "  expect: {count: 3}\n", CASES)
    assert "default_collation" in text
    assert "manual.yaml:" in text


def test_a_documents_pipeline_runs_on_the_database_as_the_manual_writes_it(tmp_path):
    """The $documents page: ``db.aggregate([{$documents: [...]}, ...])``, a pipeline on the
    database (www.mongodb.com/docs/manual/reference/operator/aggregation/documents/). In the
    short form it ran on the claim's collection, where the model says it does not support the
    stage (and a server refuses it)."""
    path = _claim(tmp_path, "  aggregate: [{$documents: [{x: 10}, {x: 2}, {x: 5}]},"
                            " {$match: {x: {$gt: 3}}}]\n  expect: {count: 2}\n", "[]")
    (spec,) = claimfiles.load([path])
    assert spec.steps[0].on == "database"
    result = claimcheck.check([spec], ["model"])
    assert result.columns[0].rows[0].verdict == "holds"


def test_a_long_claim_id_is_shown_whole_in_the_matrix(tmp_path):
    """Issue 45, item 8: the matrix cut IDs past 48 characters ("…"), so two long test names
    that share their start could not be told apart. A long one is now whole on a line of its
    own, its verdicts on the next, in the columns."""
    from labkit.outputs import matrix

    long_id = "crud.find-comment.find with a document comment on a server that supports it"
    path = tmp_path / "long.yaml"
    path.write_text(f"- {{id: {json.dumps(long_id)}, title: t, fixture: [{{_id: 1}}], find: {{}},"
                    " expect: {count: 1}}\n- {id: short, title: t, fixture: [], find: {},"
                    " expect: {count: 0}}\n", encoding="utf-8")
    table = matrix.matrix_table(claimcheck.check(claimfiles.load([path]), ["model"]))
    lines = table.splitlines()
    assert long_id in lines
    cells = lines[lines.index(long_id) + 1]
    assert cells.strip() == "predicts: holds"
    assert cells.index("predicts") == lines[0].index("model")


def test_predict_and_explain_take_a_filter_as_the_manual_writes_it(tmp_path, capsys):
    """Issue 45, item 8: a --filter in mongosh's style (keys unquoted, as every manual page
    writes one) got Python's JSON message; it is read as a claim file reads a filter, and
    mongosh's notation in it is refused with the Extended JSON to write."""
    from labkit.cli import main

    data = tmp_path / "docs.json"
    data.write_text('[{"_id": 1, "qty": 5}, {"_id": 2, "qty": 20}, {"_id": 3, "qty": "7"}]',
                    encoding="utf-8")
    assert main(["predict", "find", str(data), "--filter", "{qty: {$gt: 4}}"]) == 0
    assert capsys.readouterr().out.split() == ["1", "2"]
    assert main(["explain", "find", str(data), "--filter", "{qty: {$lt: 10}}", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["matched"] for row in rows] == [True, False, False]
    assert main(["predict", "find", str(data), "--filter", "{qty: NumberLong(5)}"]) == 2
    assert '{"$numberLong": "5"}' in capsys.readouterr().err
    assert main(["predict", "find", str(data), "--filter", '{"qty": 5']) == 2
    err = capsys.readouterr().err
    assert "neither JSON" in err
    assert "Expecting ',' delimiter" in err


def test_what_the_model_does_not_carry_is_never_a_predicted_refusal(tmp_path):
    """From a second read: the model told its own limits from the server's refusals by their
    wording, and "$convert: the model converts to …; not 'date'" did not start with "the
    model", so a claim expecting an error there held, though the server converts that string
    to a date. A limit is now a ModelLimit, told by its type: not run."""
    path = _claim(tmp_path, "  aggregate: [{$project: {d: {$convert: {input: $s, to: date}}}}]\n"
                            "  expect: {error: true}\n", '[{_id: 1, s: "2024-01-01"}]')
    result = claimcheck.check(claimfiles.load([path]), ["model"])
    assert result.columns[0].rows[0].verdict == "not-run"


def test_the_objects_step_compares_strings_by_the_collation_in_force():
    """From a second read: at strength 2 "A" and "a" are equal, so `t` decides; the step said
    `s`: "A" is lower than "a" (bytes)."""
    from labkit.model import explain

    rows = explain.sorted_rows([{"_id": 1, "o": {"s": "A", "t": 2}},
                                {"_id": 2, "o": {"s": "a", "t": 1}}], "o:1",
                               collation={"locale": "en", "strength": 2})
    assert [r.id for r in rows] == [2, 1]
    assert "`t`: 1 is lower than 2" in _why(rows, 1)[1]


def test_claims_that_share_a_problem_are_named_together(tmp_path):
    """From a second read: a file whose claims share one mistake repeated it per claim in the
    one line; they are named together, each with its line, before the problem once."""
    path = tmp_path / "manual.yaml"
    path.write_text("".join(f"- {{id: m{i}, title: t, fixture: [], find: {{}}, "
                            "expect: {count: x}}\n" for i in range(4)), encoding="utf-8")
    with pytest.raises(BadInput) as refused:
        claimfiles.load([path])
    text = str(refused.value)
    assert "claims 'm0' at line 1, 'm1' at line 2, 'm2' at line 3, 'm3' at line 4:" in text
    assert text.count("must be a whole number") == 1
