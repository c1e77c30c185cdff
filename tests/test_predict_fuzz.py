"""``labkit predict`` never shows a traceback: every input gets an answer or one Error line."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labkit import cli
from labkit.errors import BadInput
from labkit.model import bson_order as m
from labkit.model import fixtures, reads


def predict(capsys, *args: str) -> tuple[int, str, str]:
    """Run ``labkit predict`` in-process; any exception but an expected one fails the test."""
    status = cli.main(["predict", *args])
    out, err = capsys.readouterr()
    return status, out, err


def one_error_line(status: int, err: str) -> bool:
    """Exit status 2 and a single ``Error:`` line."""
    lines = err.strip().splitlines()
    return status == 2 and len(lines) == 1 and lines[0].startswith("Error: ")


def nested(depth: int, inner: str = "1") -> str:
    """``{"a": {"a": … inner …}}`` nested ``depth`` levels."""
    return '{"a": ' * depth + inner + "}" * depth


DOCS = '[{"_id": 1, "a": 1}, {"_id": 2, "a": "x"}]'


@pytest.mark.parametrize(("content", "filter_text"), [
    (b"\xff\xfe[{}]", "{}"),  # not UTF-8
    (b"", "{}"),  # an empty file
    (b'[{"_id": {"$oid": "12345"}}]', "{}"),
    (b'[{"_id": 1, "d": {"$date": {"$numberLong": "99999999999999999999"}}}]', "{}"),
    (b'[{"_id": 1, "d": {"$numberDecimal": "1.2.3"}}]', "{}"),
    (b'[{"_id": 1, "d": {"$numberInt": "2147483648"}}]', "{}"),
    (("[" * 10_000 + "]" * 10_000).encode(), "{}"),
    # https://www.mongodb.com/docs/manual/reference/limits/: no more than 100 levels of nesting
    (f"[{nested(500)}]".encode(), "{}"),
    (b'[{"_id": "\\ud800"}]', "{}"),  # a lone surrogate
    (DOCS.encode(), '{"$and": 5}'),
    (DOCS.encode(), '{"$nor": null}'),
    (DOCS.encode(), '{"$and": {}}'),
    (DOCS.encode(), '{"$expr": {"$eq": [1]}}'),
    (DOCS.encode(), '{"a": {"$regex": "("}}'),
    (DOCS.encode(), '{"a": {"$type": []}}'),
    (DOCS.encode(), '{"a": {"$numberInt": "99999999999"}}'),
    (DOCS.encode(), '{"a": ' + '{"$not": ' * 300 + '{"$gt": 1}' + "}" * 301),
    (DOCS.encode(), "[" * 10_000 + "]" * 10_000),
    (DOCS.encode(), '{"a": "\\udc80"}'),
    (DOCS.encode(), '{"a": {"$where": "1"}}'),
    (DOCS.encode(), '{"$expr": {"$toDouble": "$a"}}'),  # MongoDB fails on "x" too
])
def test_malformed_input_is_one_error_line(tmp_path, capsys, content, filter_text):
    """Malformed files and filters MongoDB rejects give exit 2 and one Error line, no
    traceback (issue: never a traceback)."""
    path = tmp_path / "docs.json"
    path.write_bytes(content)
    status, out, err = predict(capsys, "find", str(path), "--filter", filter_text)
    assert one_error_line(status, err), err
    assert out == ""


def test_uuid_ids_are_answered(tmp_path, capsys):
    """Documents whose _ids are $uuid values are read and their _ids printed back."""
    path = tmp_path / "uuids.json"
    path.write_text('[{"_id": {"$uuid": "00000000-0000-4000-8000-000000000002"}, "v": 2},'
                    ' {"_id": {"$uuid": "00000000-0000-4000-8000-000000000001"}, "v": 1}]')
    status, out, err = predict(capsys, "sort", str(path), "--sort", "v:1", "--json")
    assert status == 0, err
    assert [d["$binary"]["subType"] for d in json.loads(out)] == ["04", "04"]
    assert json.loads(out)[0]["$binary"]["base64"] == "AAAAAAAAQACAAAAAAAAAAQ=="


def test_version_option_switches_the_null_rule(tmp_path, capsys):
    """``--mongodb-version 9.0`` finds {"a.b": null} in an array of scalars; 8.0 does not
    (https://www.mongodb.com/docs/manual/release-notes/9.0-compatibility/;
    jstests/core/query/null_query_semantics.js:595-630 at 1704949c for 8.0)."""
    path = tmp_path / "docs.json"
    path.write_text('[{"_id": 1, "a": [1, 2]}, {"_id": 2, "a": [{"c": 1}]}]')
    for version, expected in (("8.0", [2]), ("9.0", [1, 2])):
        status, out, err = predict(capsys, "find", str(path), "--filter", '{"a.b": null}',
                                   "--mongodb-version", version, "--json")
        assert status == 0, err
        assert json.loads(out) == expected


def test_parallel_arrays_are_an_error_line(tmp_path, capsys):
    """A sort on two arrays of one document is one Error line, as the server refuses it
    (jstests/core/query/sort/sort_dotted_paths_parallel_arrays.js:18-24 at b6fcc56b)."""
    path = tmp_path / "docs.json"
    path.write_text('[{"_id": 1, "a": [1], "b": [2]}]')
    status, _, err = predict(capsys, "sort", str(path), "--sort", "a:1,b:1")
    assert one_error_line(status, err)
    assert "parallel arrays" in err


# Generated filters and documents ------------------------------------------------------------

leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True),
    st.text(alphabet="ab(*[$.", max_size=3),
    st.sampled_from([{"$numberDecimal": "NaN"}, {"$undefined": True}, {"$minKey": 1},
                     {"$regularExpression": {"pattern": "a", "options": "i"}},
                     {"$date": "2020-01-01T00:00:00Z"}, {"$oid": "0" * 24}]))
json_values = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "0"]), inner,
                                                 max_size=2)), max_leaves=8)
OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$type",
             "$not", "$elemMatch", "$all", "$size", "$mod", "$regex", "$options", "$and", "$or",
             "$nor", "$expr", "$toString", "$convert", "$ifNull", "$isNumber", "$literal"]
filters = st.recursive(
    json_values,
    lambda inner: st.dictionaries(
        st.one_of(st.sampled_from(OPERATORS), st.sampled_from(["a", "a.b", "a.0", "$a"])),
        st.one_of(inner, st.lists(inner, max_size=3)), max_size=3),
    max_leaves=10)
documents = st.lists(st.dictionaries(st.sampled_from(["a", "b"]), json_values, max_size=2),
                     max_size=5)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, filters, st.sampled_from(["8.0", "9.0"]))
def test_generated_filters_never_crash(docs, query, version):
    """Any generated filter on any generated documents is an answer or BadInput."""
    try:
        parsed_docs = fixtures.parse(json.dumps([{"_id": i, **d} for i, d in enumerate(docs)]))
        parsed = fixtures.parse_value(json.dumps(query))
        if isinstance(parsed, dict):
            reads.find(parsed_docs, parsed, mongodb_version=version)
        m.sort(parsed_docs, "a:1,b:-1,_id:1", mongodb_version=version)
    except BadInput:
        pass
