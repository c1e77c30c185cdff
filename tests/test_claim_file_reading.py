"""How a claim file's plain values are read (issue 46, "Trust, round five", items 1, 7 and
11): numbers, booleans and times as JSON and YAML 1.2's core schema read them, the same as
``labkit predict`` and ``fixture_file`` read them; a key written twice is refused; a
``fixture_file`` stays in the claim file's folder or labkit's data folder.

The rules are YAML 1.2.2's, chapter 10.3.2 "Tag Resolution" (https://yaml.org/spec/1.2.2/):
``1e3`` is a float, ``017`` the integer 17, ``0o17`` 15, ``no`` and ``12:30`` strings; and
section 3.2.1.1: "The content of a mapping node is an unordered set of key/value node pairs,
with the restriction that each of the keys is unique"."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from labkit.claims import files as claimfiles
from labkit.claims._source import parse
from labkit.cli import main
from labkit.errors import BadInput
from labkit.model import fixtures
from labkit.run import check as claimcheck

# (as written, as read): YAML 1.2's core schema, where PyYAML's YAML 1.1 rules differ or agree.
PLAIN = [
    ("1e3", 1000.0),  # YAML 1.1: the string "1e3"
    ("1E3", 1000.0),
    ("6.02e+23", 6.02e23),
    ("-2.5e-3", -0.0025),
    ("017", 17),  # YAML 1.1: octal, 15
    ("0o17", 15),
    ("0x1F", 31),
    ("-3", -3),
    ("+4", 4),
    (".5", 0.5),
    ("12:30", "12:30"),  # YAML 1.1: sexagesimal, 750
    ("no", "no"),  # YAML 1.1: false
    ("yes", "yes"),
    ("on", "on"),
    ("1_000", "1_000"),  # YAML 1.1: 1000
    ("0b11", "0b11"),  # YAML 1.1: 3
    ("2026-10-01", "2026-10-01"),  # no timestamps (as before)
    ("true", True),
    ("False", False),
    ("~", None),
    ("null", None),
    ("'1e3'", "1e3"),
]


def _read(tmp_path: Path, text: str):
    path = tmp_path / "values.yaml"
    path.write_text(text, encoding="utf-8")
    return parse(path)[0]


@pytest.mark.parametrize(("written", "read"), PLAIN, ids=[w for w, _ in PLAIN])
def test_a_plain_value_is_read_as_yaml_1_2_reads_it(tmp_path, written, read):
    value = _read(tmp_path, f"v: {written}\n")["v"]
    assert value == read
    assert type(value) is type(read)


def test_infinities_and_nan_are_floats(tmp_path):
    values = _read(tmp_path, "[.inf, -.Inf, .nan]")
    assert values[:2] == [math.inf, -math.inf]
    assert math.isnan(values[2])


def test_a_claim_file_and_predict_read_1e3_alike(tmp_path, capsys):
    # The case: a fixture with 1e3 judged by a claim file and by `labkit predict`.
    claims = tmp_path / "claims.yaml"
    claims.write_text("- id: thousand\n  title: 1e3 is the number 1000\n"
                      "  fixture: [{_id: 1, n: 1e3}, {_id: 2, n: 999}]\n"
                      "  find: {n: 1000}\n  expect: {ids: [1]}\n", encoding="utf-8")
    run = claimcheck.run_files([claims], "model")
    assert run.observed("thousand", "model") == [1]
    assert run.exit_status() == 0
    data = tmp_path / "docs.json"
    data.write_text('[{"_id": 1, "n": 1e3}, {"_id": 2, "n": 999}]', encoding="utf-8")
    assert main(["predict", "find", str(data), "--filter", '{"n": 1000}', "--json"]) == 0
    predicted = json.loads(capsys.readouterr().out)
    assert predicted == [1]  # the _id values it predicts


def test_a_json_claim_file_reads_an_exponent_as_a_number(tmp_path):
    path = tmp_path / "claims.json"
    path.write_text('[{"id": "e", "title": "t", "fixture": [{"_id": 1, "n": 1e3}], '
                    '"find": {}, "expect": {"count": 1}}]', encoding="utf-8")
    [spec] = claimfiles.load([path])
    assert spec.fixture["claim"] == [{"_id": 1, "n": 1000.0}]
    assert isinstance(spec.fixture["claim"][0]["n"], float)


@pytest.mark.parametrize("text", [
    "- id: a\n  title: t\n  fixture: []\n  find: {}\n  expect: {count: 0}\n  expect: {count: 1}\n",
    '[{"id": "a", "id": "b", "title": "t", "fixture": [], "find": {}, "expect": {"count": 0}}]',
    "- id: a\n  title: t\n  fixture: [{_id: 1, _id: 2}]\n  find: {}\n  expect: {count: 1}\n",
    "- {id: a, title: t, fixture: [], find: {1: x, '1': y}, expect: {count: 0}}\n",
], ids=["two expect", "json two ids", "a document with two _id", "1 and '1'"])
def test_a_key_written_twice_is_refused_with_its_line(tmp_path, text):
    path = tmp_path / "claims.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BadInput, match="written twice in one mapping"):
        claimfiles.load([path])


def test_a_merge_key_may_still_be_overridden(tmp_path):
    # `<<` brings keys in; the mapping's own key of the same name wins (not "written twice").
    assert _read(tmp_path, "b: &b {x: 1, y: 2}\nc: {<<: *b, x: 3}\n")["c"] == {"x": 3, "y": 2}


def _claim_with_fixture_file(folder: Path, name: str) -> Path:
    path = folder / "claims.yaml"
    path.write_text(f"- id: f\n  title: t\n  fixture_file: {json.dumps(name)}\n"
                    "  find: {}\n  expect: {count: 1}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("where", ["absolute", "parent", "link"])
def test_a_fixture_file_outside_the_claim_files_folder_is_refused(tmp_path, where):
    secret = tmp_path / "token.json"
    secret.write_text('[{"_id": 1, "token": "s3cret"}]', encoding="utf-8")
    folder = tmp_path / "claims"
    folder.mkdir()
    name = {"absolute": str(secret), "parent": "../token.json", "link": "here.json"}[where]
    if where == "link":
        (folder / "here.json").symlink_to(secret)
    with pytest.raises(BadInput, match="outside the claim file's folder"):
        claimfiles.load([_claim_with_fixture_file(folder, name)])


def test_a_fixture_file_below_the_folder_and_labkits_data_are_read(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "docs.json").write_text('[{"_id": 1}]', encoding="utf-8")
    [spec] = claimfiles.load([_claim_with_fixture_file(tmp_path, "sub/docs.json")])
    assert spec.fixture["claim"] == [{"_id": 1}]
    kit = claimfiles.load([Path(__file__).resolve().parent.parent / "claims"])
    assert any(spec.fixture for spec in kit)
    assert (fixtures.DATA / "orders.json").is_file()


@pytest.mark.parametrize("text", ["!!int 0b11", "!!int 0o", '!!int ""', '!!int "٣"',
                                  "!!float abc", "!!bool maybe"])
def test_a_value_its_explicit_tag_cannot_make_is_refused_with_its_line(tmp_path, text):
    # before: ValueError or KeyError from PyYAML's constructors, a traceback ("0b11", which
    # YAML 1.1 read as 3, among them; "٣", an Arabic-Indic digit, was read as 3)
    with pytest.raises(BadInput, match=r"values\.yaml:2:"):
        _read(tmp_path, f"ok: 1\nv: {text}\n")
