"""mongosh's notation in claim files (`NumberDecimal("42.00")`, `ISODate("…")`): refused on its
own line with the Extended JSON to write instead, never read as a silent string; a quoted
scalar stays the text it spells; and the check shows each fixture field's BSON types.

What each constructor makes is mongosh's: mongodb-js/mongosh,
packages/shell-bson/src/shell-bson.ts at 1d526cc8ddf30b55c8ed928f3909c753eb3aaf21 (the
ISODate forms and their UTC reading, NumberLong's number-or-string, NumberInt's parseInt,
NumberDecimal's `${s}`, UUID's dashes, Timestamp's (t, i) order, MONGOSH-930); `new Date(…)`
is JavaScript's (ECMA-262, 21.4.1.32 Date Time String Format: a date alone is UTC).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from bson import Binary, Decimal128, Int64, MaxKey, MinKey, ObjectId, Timestamp

from labkit.claims import files as claimfiles
from labkit.claims._shell import mongosh_ejson
from labkit.claims._source import extended_json
from labkit.cli import main
from labkit.errors import BadInput
from labkit.run import check as claimcheck

UTC = dt.UTC


def write(tmp_path: Path, text: str, name: str = "claims.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# Lesson 03's orders, copied from its fixture table as mongosh writes them (line 7: the decimal).
ORDERS = """\
- id: orders.eq_42
  title: "{userId: 42} matches every number 42"
  fixture:
    - {_id: 1, userId: 42}
    - {_id: 2, userId: "42"}
    - _id: 3
      userId: NumberDecimal("42.00")
  find: {userId: 42}
  expect: {ids: [1, 3]}
"""


def test_a_decimal_copied_from_the_lessons_table_is_refused_on_its_line(tmp_path):
    """`userId: NumberDecimal("42.00")` is refused at file:7 with the Extended JSON that makes
    the decimal, where it was the string 'NumberDecimal("42.00")' and the claim "did not
    hold"."""
    path = write(tmp_path, ORDERS)
    with pytest.raises(BadInput) as caught:
        claimfiles.read(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:7: claim 'orders.eq_42': NumberDecimal(\"42.00\") is "
                              "mongosh's notation, not Extended JSON")
    assert '{"$numberDecimal": "42.00"}' in message
    assert "'NumberDecimal(\"42.00\")', to mean the text" in message


def test_the_command_prints_one_error_line_naming_the_place(tmp_path, capsys):
    """`labkit check` answers the copied decimal with one `Error:` line at file:line and exit
    status 2 (a value given by the user), not a verdict."""
    path = write(tmp_path, ORDERS)
    status = main(["check", str(path), "--quiet", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"Error: {path}:7: claim 'orders.eq_42': NumberDecimal(\"42.00\")")
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_a_shell_date_no_longer_lets_a_soft_delete_claim_hold_by_accident(tmp_path):
    """`{deletedAt: {$lt: ISODate("2024-06-01")}}` compared a Date with a string, which matches
    nothing (type bracketing, claim B2), so "nothing was deleted before June" held for the
    wrong reason; the filter is refused, and with the Extended JSON it names the claim fails
    as it should."""
    claim = """\
- id: soft-delete
  title: "no order was deleted before June"
  fixture:
    - {_id: 1, deletedAt: {$date: "2024-03-01T00:00:00Z"}}
    - {_id: 2}
  find: {deletedAt: {$lt: ISODate("2024-06-01")}}
  expect: {ids: []}
"""
    with pytest.raises(BadInput, match=r":6: claim 'soft-delete': ISODate\(\"2024-06-01\"\)"
                                        r".*\{\"\$date\": \"2024-06-01T00:00:00Z\"\}"):
        claimfiles.read(write(tmp_path, claim))
    fixed = claim.replace('ISODate("2024-06-01")', '{$date: "2024-06-01T00:00:00Z"}')
    result = claimcheck.run_files([write(tmp_path, fixed)], "model")
    assert [row.verdict for row in result.run.rows] == [claimcheck.FAILS]
    assert result.observed("soft-delete", "model") == [1]


@pytest.mark.parametrize(("notation", "value"), [
    # NumberDecimal: a string keeps its digits; a number is a double first ("42.1")
    ('NumberDecimal("42.00")', Decimal128("42.00")),
    ("NumberDecimal(42.10)", Decimal128("42.1")),
    # NumberLong: a string is read whole; a number is a double first (2**53 + 1 is lost)
    ('NumberLong("9007199254740993")', Int64(9007199254740993)),
    ("NumberLong(9007199254740993)", Int64(9007199254740992)),
    ("NumberLong(7)", Int64(7)),
    # NumberInt: parseInt keeps the whole number at the start
    ('NumberInt("42")', 42),
    ("NumberInt(42.7)", 42),
    # ISODate: its forms, a missing offset read as UTC, the basic format normalized
    ('ISODate("2024-01-01")', dt.datetime(2024, 1, 1, tzinfo=UTC)),
    ('ISODate("2024-01-01T10:00:00+05:30")', dt.datetime(2024, 1, 1, 4, 30, tzinfo=UTC)),
    ('ISODate("20240101T100000Z")', dt.datetime(2024, 1, 1, 10, tzinfo=UTC)),
    ('ISODate("2024-01-01 10:00")', dt.datetime(2024, 1, 1, 10, tzinfo=UTC)),
    ('new ISODate("1960-01-01T00:00:00.250Z")',
     dt.datetime(1960, 1, 1, 0, 0, 0, 250_000, tzinfo=UTC)),
    # new Date: a date alone is UTC midnight; a number is milliseconds
    ('new Date("2024-01-01")', dt.datetime(2024, 1, 1, tzinfo=UTC)),
    ('new Date("2024-01-01T10:00:00Z")', dt.datetime(2024, 1, 1, 10, tzinfo=UTC)),
    ("new Date(1700000000000)", dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
    ('ObjectId("5EBAF064121756574A9767CF")', ObjectId("5ebaf064121756574a9767cf")),
    ('UUID("01234567-89ab-cdef-0123-456789abcdef")',
     Binary(bytes.fromhex("0123456789abcdef0123456789abcdef"), 4)),
    # Timestamp(t, i): mongosh keeps the legacy shell's order; i defaults to 0
    ("Timestamp(1700000000, 2)", Timestamp(1700000000, 2)),
    ("Timestamp(1700000000)", Timestamp(1700000000, 0)),
    ("MinKey", MinKey()),
    ("MaxKey()", MaxKey()),
    ('BinData(0, "MTIzNA==")', Binary(b"1234", 0)),
    ('HexData(0, "31323334")', Binary(b"1234", 0)),
])
def test_each_refusal_names_the_value_mongosh_makes(notation, value):
    """The Extended JSON a refusal names reads back as the very value mongosh makes of the
    notation (type included: an int32 stays an int, a long an Int64)."""
    suggested = mongosh_ejson(notation)
    assert suggested is not None
    read = extended_json(json.loads(suggested))
    assert read == value
    assert type(read) is type(value)


@pytest.mark.parametrize("notation", [
    "ObjectId()", "UUID()", "ISODate()", "new Date()", 'Date("2024-01-01")',
    'new Date("2024-01-01T10:00:00")', "new Date(2024, 0, 1)", 'ISODate("yesterday")',
    'ISODate("2024-01-01T10:00:00+0530")', 'NumberInt("12345678901")', "Code(x)",
    'DBRef("orders", 1)'])
def test_notation_whose_text_does_not_settle_a_value_is_refused_with_the_form(tmp_path,
                                                                               notation):
    """A call whose value the text does not settle (a new ObjectId, the current time, a local
    time zone, a form JavaScript reads its own way) is refused all the same, with the Extended
    JSON form to fill in rather than a guess."""
    assert mongosh_ejson(notation) is None
    path = write(tmp_path, "- id: c\n  title: t\n  fixture: [{_id: 1}]\n"
                           f"  find:\n    v: {notation}\n  expect: {{ids: []}}\n")
    with pytest.raises(BadInput, match=r":5: claim 'c': .* is mongosh's notation.*Write the "
                                       r"value in Extended JSON, \{"):
        claimfiles.read(path)


@pytest.mark.parametrize(("where", "line"), [("fixture", 3), ("find", 4), ("expect", 5)])
def test_every_part_of_a_short_claim_is_looked_at(tmp_path, where, line):
    """The fixture, the query and the expectation are each read for mongosh's notation, and
    the error names the line the notation is on."""
    parts = {"fixture": "[{_id: 1}]", "find": "{_id: 1}", "expect": "{ids: [1]}"}
    parts[where] = {"fixture": "[{_id: 1, n: NumberLong(5)}]", "find": "{n: NumberLong(5)}",
                    "expect": "{ids: [NumberLong(5)]}"}[where]
    path = write(tmp_path, f"- id: c\n  title: t\n  fixture: {parts['fixture']}\n"
                           f"  find: {parts['find']}\n  expect: {parts['expect']}\n")
    with pytest.raises(BadInput, match=rf"^{path}:{line}: claim 'c': NumberLong\(5\).*"
                                       r"\{\"\$numberLong\": \"5\"\}"):
        claimfiles.read(path)


def test_a_call_cut_by_a_comma_in_a_flow_mapping_is_refused(tmp_path):
    """`{ts: Timestamp(1, 2)}` is to YAML `{ts: "Timestamp(1", "2)": null}`: the first half is
    refused as a cut call, not stored as a string beside a stray field."""
    path = write(tmp_path, "- id: c\n  title: t\n  fixture: [{_id: 1, ts: Timestamp(1, 2)}]\n"
                           "  find: {}\n  expect: {ids: [1]}\n")
    with pytest.raises(BadInput, match=r":3: claim 'c': Timestamp\(1 starts mongosh's notation "
                                       r"Timestamp\(…\), which YAML cut at a comma"):
        claimfiles.read(path)


def test_a_quoted_scalar_stays_the_text_it_spells_and_the_check_shows_its_type(tmp_path,
                                                                                capsys):
    """`'NumberDecimal("42.00")'`, quoted, is the string its author asked for; `check --json`
    and report.html show each fixture field's BSON types (as lesson 03's $type census counts
    them), so the string is seen for what it is."""
    path = write(tmp_path, ORDERS.replace('NumberDecimal("42.00")', "'NumberDecimal(\"42.00\")'"))
    (spec,) = claimfiles.read(path)
    assert spec.fixture["claim"][2]["userId"] == 'NumberDecimal("42.00")'
    status = main(["check", str(path), "--json", "--quiet", "--out", str(tmp_path / "out")])
    (row,) = json.loads(capsys.readouterr().out)["claims"][0]["results"]
    assert status == 1
    assert row["verdict"] == "fails"
    assert {"fixture": "claim", "field": "userId", "types": {"int": 1, "string": 2}} in \
        row["evidence"]
    assert {"fixture": "claim", "field": "_id", "types": {"int": 3}} in row["evidence"]
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert ">the types stored</th>" in html  # the types column, headed in words (claims.labels)
    assert "<td>userId</td>" in html


def test_the_field_types_count_a_missing_field(tmp_path):
    """A field some documents lack is counted as `missing` for those, as `{$type: "$f"}`
    names it."""
    path = write(tmp_path, "- id: c\n  title: t\n  fixture:\n    - {_id: 1, d: {$date: "
                           "\"2024-01-01T00:00:00Z\"}}\n    - {_id: 2}\n  find: {}\n"
                           "  expect: {ids: [1, 2]}\n")
    (spec,) = claimfiles.read(path)
    assert spec.field_types() == [
        {"fixture": "claim", "field": "_id", "types": {"int": 2}},
        {"fixture": "claim", "field": "d", "types": {"date": 1, "missing": 1}}]


def test_titles_and_json_strings_are_not_notation(tmp_path):
    """Only data is looked at: a title or a Unified Test Format description may say
    `MaxKey`, and a JSON claim file's strings are quoted, so they stay text."""
    path = write(tmp_path, "- id: c\n  title: MaxKey\n  fixture: [{_id: 1}]\n  find: {}\n"
                           "  expect: {ids: [1]}\n")
    assert claimfiles.read(path)[0].title == "MaxKey"
    doc = [{"id": "j", "title": "t", "fixture": [{"_id": 1, "v": 'ISODate("2024-01-01")'}],
            "find": {}, "expect": {"ids": [1]}}]
    (spec,) = claimfiles.read(write(tmp_path, json.dumps(doc), "claims.json"))
    assert spec.fixture["claim"][0]["v"] == 'ISODate("2024-01-01")'


UNIFIED = """\
description: "shell notation"
schemaVersion: "1.0"
createEntities:
  - client: {id: client0}
  - database: {id: database0, client: client0, databaseName: db}
  - collection: {id: collection0, database: database0, collectionName: coll}
initialData:
  - collectionName: coll
    databaseName: db
    documents:
      - {_id: 1, at: AT}
tests:
  - description: "find all"
    operations:
      - name: find
        object: collection0
        arguments: {filter: {}}
        expectResult: [{_id: 1, at: RESULT}]
"""


@pytest.mark.parametrize(("at", "result", "line"), [
    ('ISODate("2024-01-01")', '{$date: "2024-01-01T00:00:00Z"}', 11),
    ('{$date: "2024-01-01T00:00:00Z"}', 'ISODate("2024-01-01")', 18)])
def test_unified_format_data_and_results_are_looked_at(tmp_path, at, result, line):
    """A Unified Test Format file's initialData and expectResult are read for mongosh's
    notation too, refused on the line it is on."""
    path = write(tmp_path, UNIFIED.replace("AT", at).replace("RESULT", result), "u.yml")
    with pytest.raises(BadInput, match=rf"^{path}:{line}: ISODate\(\"2024-01-01\"\) is "
                                       r"mongosh's notation.*2024-01-01T00:00:00Z"):
        claimfiles.read(path)


def test_the_first_notation_in_the_file_is_the_one_refused(tmp_path):
    """An engineer's walk: ObjectId(...) on line 4 (the fixture) and line 6 (the expectation)
    was refused at line 6, the keys being read in another order than the file's; fixing it
    and running again gave line 4. The first in the file is said first."""
    path = tmp_path / "oid.yaml"
    path.write_text('- id: oid\n  title: oid order\n  fixture:\n'
                    '    - {_id: ObjectId("507f1f77bcf86cd799439011"), a: 1}\n'
                    '  find: {a: 1}\n'
                    '  expect: {ids: [ObjectId("507f1f77bcf86cd799439011")]}\n', encoding="utf-8")
    with pytest.raises(BadInput) as refused:
        claimfiles.read(path)
    assert str(refused.value).startswith(f"{path}:4: claim 'oid': ObjectId(")


@pytest.mark.parametrize("command", ["predict", "explain"])
def test_a_file_of_documents_in_mongosh_notation_gets_the_value_to_write(tmp_path, capsys,
                                                                       command):
    """An engineer's walk: a claim file's ObjectId("…") gets the Extended JSON to write, but
    the same in a file of documents for predict or explain got JSON's "Expecting value: line 1
    column 10". It now names the line and the value mongosh makes."""
    path = tmp_path / "m.json"
    path.write_text('[{"_id": 1},\n {"_id": ObjectId("507f1f77bcf86cd799439011")}]\n',
                    encoding="utf-8")
    assert main([command, "find", str(path), "--filter", "{}"]) == 2
    said = capsys.readouterr().err
    assert said == (f'Error: {path}:2: ObjectId("507f1f77bcf86cd799439011") is mongosh\'s '
                    'notation, not Extended JSON: write {"$oid": "507f1f77bcf86cd799439011"}, '
                    "the value mongosh makes\n")
