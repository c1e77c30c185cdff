"""``labkit explain find`` and ``labkit explain sort``: predict's inputs, one row per document
with the model's own verdict, as a table or as --json, and bad input as one Error line.

Sources: the rows are ``labkit.model.explain``'s (tests/test_explain.py cites each rule); the
fixture files are the kit's (claims B1 and S1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labkit import cli

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def run(capsys, *args: str) -> tuple[int, str, str]:
    """labkit in-process: its exit status (a usage error's too) and what it printed."""
    try:
        status = cli.main(list(args))
    except SystemExit as stop:  # argparse's usage error: exit 2 after its one Error line
        status = int(stop.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("query", ['{"userId": 42}', '{"userId": "42"}',
                                   '{"userId": {"$gt": 0}}', '{"userId": {"$ne": 42}}'])
def test_explain_find_matches_what_predict_returns(capsys, query):
    """explain find --json marks matched exactly the _ids predict find prints, in file order,
    each row with a rule and a source."""
    path = str(DATA / "orders.json")
    status, out, err = run(capsys, "explain", "find", path, "--filter", query, "--json")
    assert status == 0, err
    rows = json.loads(out)
    assert [set(row) for row in rows] == [{"_id", "matched", "because", "rule", "source"}] * 5
    assert [row["_id"] for row in rows] == [1, 2, 3, 4, 5]
    status, out, err = run(capsys, "predict", "find", path, "--filter", query, "--json")
    assert [row["_id"] for row in rows if row["matched"]] == json.loads(out)
    assert all(row["rule"] and row["source"] for row in rows)


@pytest.mark.parametrize("spec", ["v:1,_id:1", "v:-1,_id:1"])
def test_explain_sort_is_predicts_order(capsys, spec):
    """explain sort --json lists the documents in predict sort's order, each with its key."""
    path = str(DATA / "mixed.json")
    status, out, err = run(capsys, "explain", "sort", path, "--sort", spec, "--json")
    assert status == 0, err
    rows = json.loads(out)
    assert [set(row) for row in rows] == [{"_id", "key", "because", "rule", "source"}] * len(rows)
    status, out, err = run(capsys, "predict", "sort", path, "--sort", spec, "--json")
    assert [row["_id"] for row in rows] == json.loads(out)
    array = next(row for row in rows if row["_id"] == "array")
    assert array["key"]["v"] == (5 if spec.startswith("v:1") else "x")
    assert array["rule"] == "array-sort-key"


def test_the_table_names_each_decision_and_its_sources(capsys):
    """Without --json: a line per document (_id, yes or no, the rule, why), then the sources."""
    status, out, err = run(capsys, "explain", "find", str(DATA / "orders.json"), "--filter",
                           '{"userId": 42}')
    assert status == 0, err
    lines = out.splitlines()
    assert lines[2].split()[:3] == ["2", "no", "type-bracketing"]
    assert "Sources:" in lines
    assert any("bson-type-comparison-order" in line for line in lines)


def test_a_collation_and_a_version_are_taken_as_predict_takes_them(capsys, tmp_path):
    """--collation and --mongodb-version reach the model: "KYLE" equals "kyle" at strength 2."""
    path = tmp_path / "docs.json"
    path.write_text('[{"_id": 1, "t": "kyle"}, {"_id": 2, "t": "KYLE"}]')
    status, out, err = run(capsys, "explain", "find", str(path), "--filter", '{"t": "kyle"}',
                           "--collation", '{"locale": "en", "strength": 2}',
                           "--mongodb-version", "7.0", "--json")
    assert status == 0, err
    assert [row["matched"] for row in json.loads(out)] == [True, True]
    assert json.loads(out)[1]["rule"] == "collation"


@pytest.mark.parametrize("args", [
    ["find", "{file}", "--filter", "[1]"],
    ["find", "{file}", "--filter", '{"a": {"$where": "1"}}'],
    ["find", "{file}", "--filter", "{}", "--collation", '{"locale": 5}'],
    ["sort", "{file}", "--sort", "v:2"],
    ["sort", "{missing}", "--sort", "v:1"],
    ["find", "{file}", "--filter", "{}", "--mongodb-version", "5.0"],
])
def test_bad_input_is_one_error_line(capsys, tmp_path, args):
    """What predict refuses, explain refuses the same way: one Error line, no traceback."""
    path = tmp_path / "docs.json"
    path.write_text('[{"_id": 1, "v": 1}]')
    filled = [str(path) if a == "{file}" else str(tmp_path / "none.json") if a == "{missing}"
              else a for a in args]
    status, out, err = run(capsys, "explain", *filled)
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("Error: ")


@pytest.mark.parametrize("items", [[], [{"a": 1}], [{"_id": 1, "why": "é\u202e"}, {"b": [1, 2]}]],
                         ids=["none", "one", "two"])
def test_json_written_a_row_at_a_time_is_the_whole_lists_text(items, capsys):
    """``labkit explain --json`` writes each row as it is made (issue 46, item 9: before, the
    whole output was built several times over, 3.5 times predict's memory;
    benchmarks/explain_bench.py measures it): the text is the one the whole list gives."""
    cli._emit_json(items)
    whole = capsys.readouterr().out
    cli._emit_json_items(iter(items))
    assert capsys.readouterr().out == whole
