"""Claim files, `labkit.claims.files`: the short form and the Unified Test Format read into one
claim model with line numbers, and one clear error per kind of mistake (issue #12)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bson import Decimal128
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labkit.claims import files as claimfiles
from labkit.errors import BadInput

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, text: str, name: str = "claims.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_short_form_reads_fixture_query_and_expectation():
    """The issue's example claim reads into one find with Extended JSON values and a line."""
    (spec, *_) = claimfiles.read(DATA / "claims" / "user.yaml")
    assert spec.id == "null-matches-missing"
    assert spec.line == 2
    assert spec.fixture["claim"][2]["a"] == Decimal128("0")
    (step,) = spec.steps
    assert (step.operation, step.arguments) == ("find", {"filter": {"a": None}})
    assert (step.expect.kind, step.expect.value, step.expect.ordered) == ("ids", [1, 2], False)


def test_long_find_form_and_ordered_ids():
    """`find: {filter, sort}` is the long form; `ordered: true` keeps the order of ids."""
    spec = claimfiles.read(DATA / "claims" / "user.yaml")[1]
    assert spec.steps[0].arguments == {"filter": {}, "sort": {"v": 1}}
    assert spec.steps[0].expect.ordered is True


def test_dates_stay_strings_and_fixture_files_are_relative_to_the_claim_file():
    """An unquoted 2026-10-01 is not turned into a YAML date; fixture_file is read beside the
    claim file (claims/lesson01_dates.yaml reads ../data/events.json)."""
    spec = claimfiles.read(ROOT / "claims" / "lesson01_dates.yaml")[0]
    assert spec.steps[0].arguments["filter"] == {"at": {"$gte": "2026-10-01"}}
    assert [d["_id"] for d in spec.fixture["claim"]] == ["a", "b", "c"]


def test_the_orders_claim_file_keeps_the_shells_int32():
    """B1's claim file reads data/orders.json, where 42.0 is an int32 as mongosh stored it."""
    spec = next(s for s in claimfiles.read(ROOT / "claims" / "lesson03_bracketing.yaml")
                if s.id == "B1.census")
    assert type(spec.fixture["claim"][3]["userId"]) is int


def test_unified_format_reads_each_test_as_a_claim():
    """Each test of a Unified Test Format file is a claim: its reads, its fixture (initialData),
    its runOnRequirements, and what it asks that the check cannot judge."""
    specs = {s.title: s for s in claimfiles.read(DATA / "unified" / "reads.yml")}
    first = specs["find with a sort, its events not checked"]
    assert first.form == "unified"
    assert first.line == 33
    assert first.fixture == {"coll0": [{"_id": i, "x": 11 * i} for i in range(1, 5)]}
    assert first.steps[0].expect.kind == "documents"
    assert first.steps[0].expect.ordered
    assert "expectEvents" in first.not_checked
    assert any("useMultipleMongoses" in str(item) for item in first.not_checked)
    count = specs["countDocuments with a filter"]
    assert count.requirements[0][0].min_version == "4.4.0"
    assert count.steps[0].expect.value == 3


def test_an_anchor_name_given_again_names_the_most_recent_node():
    """A reused anchor replaces the earlier one, as YAML 1.2.2 (3.2.2.2 "Anchors and Aliases":
    "anchors need not be unique within a serialization"; 7.1 "Alias Nodes") and YAML 1.1
    allow and 21 of the CRUD specification's unified files do (issue 19), where PyYAML's own
    loader refuses the file (yaml/pyyaml#100)."""
    import yaml

    path = DATA / "unified" / "anchors.yml"
    with pytest.raises(yaml.composer.ComposerError, match="found duplicate anchor"):
        yaml.safe_load(path.read_text(encoding="utf-8"))
    first, second = claimfiles.read(path)
    assert first.steps[0].arguments["filter"] == {"x": {"$lt": 20}}
    assert first.steps[1].arguments["filter"] == {"x": {"$lt": 20}}
    assert first.steps[2].expect.value == [{"_id": 1, "x": 11}]
    assert second.steps[0].arguments["filter"] == {"x": {"$gt": 20}}
    assert second.steps[1].arguments["filter"] == {"x": {"$gt": 20}}
    assert second.steps[2].arguments["pipeline"][0] == {"$match": {"x": {"$gt": 20}}}
    assert second.steps[2].expect.value == [{"_id": 2, "x": 22}, {"_id": 3, "x": 33}]


@pytest.mark.parametrize(("text", "expected"), [
    ("- &a [1]\n- &b [2]\n- &a [3]\n- [*a, *b]\n", [[1], [2], [3], [[3], [2]]]),
    ("- &a {k: [1, &a 2, *a]}\n- *a\n", [{"k": [1, 2, 2]}, 2]),
], ids=["top level", "inside the first"])
def test_reused_anchors_read_as_yaml_says(tmp_path, text, expected):
    """Each alias takes the node most recently given its anchor, also when the new anchor sits
    inside the node the old one named (YAML 1.2.2, 7.1: "the most recent preceding node")."""
    from labkit.claims import _source

    data, _node = _source.parse(write(tmp_path, text))
    assert data == expected


@st.composite
def anchored_lists(draw) -> tuple[str, list[object]]:
    """A YAML list whose items define anchors from a few names (``- &a 3``, again and again)
    or alias one already defined (``- *a``), and the list YAML 1.2.2 (7.1) says it reads as:
    each alias is the value most recently anchored with its name."""
    lines: list[str] = []
    expected: list[object] = []
    latest: dict[str, object] = {}
    for _ in range(draw(st.integers(1, 12))):
        name = draw(st.sampled_from("abc"))
        if name in latest and draw(st.booleans()):
            lines.append(f"- *{name}")
            expected.append(latest[name])
            continue
        value = draw(st.one_of(st.integers(-5, 5), st.lists(st.integers(0, 3), max_size=3)))
        lines.append(f"- &{name} {value}")
        latest[name] = value
        expected.append(value)
    return "\n".join(lines) + "\n", expected


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=anchored_lists())
def test_reused_anchors_fuzz(tmp_path, case):
    """Fixed-seed property: any mix of reused anchors and aliases reads as the most recent
    anchor of each name says (YAML 1.2.2, 3.2.2.2 and 7.1; issue 19)."""
    from labkit.claims import _source

    text, expected = case
    data, _node = _source.parse(write(tmp_path, text))
    assert data == expected


def test_unified_format_reads_a_crud_write_as_a_step_and_the_outcome_as_a_read():
    """A CRUD write (crud.md's updateOne, insertOne) is a step of its own, in the file's
    order, whose expectResult is its result matched as a root document; whether the read
    after it is judged is the engine's to say (the one that performs the write), so the read
    is not marked; a test's outcome is a find sorted by _id, to match exactly."""
    specs = {s.title: s for s in claimfiles.read(DATA / "unified" / "reads.yml")}
    update, find = specs["a find after a write is not judged"].steps
    assert (update.operation, update.writes, update.expect) == ("updateOne", True, None)
    assert (find.operation, find.writes, find.skip) == ("find", False, "")
    insert, _find, outcome = specs["a find after an insert the model performs"].steps
    assert (insert.expect.kind, insert.expect.value) == ("document", {"insertedId": 5})
    assert (outcome.operation, outcome.arguments) == ("find", {"filter": {}, "sort": {"_id": 1}})
    assert outcome.expect.kind == "exactly"
    assert len(outcome.expect.value) == 5


def test_folders_are_read_recursively_and_ids_must_be_unique(tmp_path):
    """A folder gives every claim file under it; the same ID twice names both places."""
    text = "- {id: same, title: t, fixture: [], find: {}, expect: {ids: []}}\n"
    write(tmp_path, text, "a.yaml")
    write(tmp_path, text, "b.yml")
    with pytest.raises(BadInput, match=r"b\.yml:1: claim 'same': the ID is already used at "
                                       r".*a\.yaml:1"):
        claimfiles.load([tmp_path])


MISTAKES = [
    ("not yaml", "- id: x\n  title: [unclosed\n", r"claims\.yaml:\d+: not valid YAML or JSON"),
    ("empty", "", r"claims\.yaml:1: the file is empty"),
    ("not a list", "id: x\n", r"claims\.yaml:1: a claim file is a list of claims"),
    ("no title", "- {id: x, fixture: [], find: {}, expect: {ids: []}}\n",
     r"claims\.yaml:1: claim 'x': 'title' is missing"),
    ("no id", "- {title: t, fixture: [], find: {}, expect: {ids: []}}\n",
     r"claims\.yaml:1: a claim: 'id' is missing"),
    ("unknown key", "- id: x\n  title: t\n  fixture: []\n  find: {}\n  expcet: {ids: []}\n",
     r"claims\.yaml:5: claim 'x': unknown key 'expcet'"),
    ("two queries", "- {id: x, title: t, fixture: [], find: {}, count: {}, expect: {count: 0}}\n",
     r"claim 'x': needs exactly one of find, aggregate, count, distinct \(has find, count\)"),
    ("no query", "- {id: x, title: t, fixture: [], expect: {ids: []}}\n",
     r"claim 'x': needs exactly one of find"),
    ("no expect", "- {id: x, title: t, fixture: [], find: {}}\n", r"claim 'x': 'expect' is"),
    ("bad expect", "- id: x\n  title: t\n  fixture: []\n  find: {}\n  expect: {idz: []}\n",
     r"claims\.yaml:5: claim 'x': expect has an unknown key 'idz'"),
    ("ids not a list", "- {id: x, title: t, fixture: [], find: {}, expect: {ids: 1}}\n",
     r"claim 'x': expect's ids must be a list"),
    ("no fixture", "- {id: x, title: t, find: {}, expect: {ids: []}}\n",
     r"claim 'x': needs exactly one of fixture"),
    ("fixture not documents", "- {id: x, title: t, fixture: [1], find: {}, expect: {ids: []}}\n",
     r"claim 'x': fixture must be a list of documents"),
    ("missing fixture file",
     "- id: x\n  title: t\n  fixture_file: nowhere.json\n  find: {}\n  expect: {ids: []}\n",
     r"claims\.yaml:3: claim 'x': fixture_file 'nowhere.json' is not a file"),
    ("bad extended json",
     "- id: x\n  title: t\n  fixture:\n    - {_id: 1}\n    - {_id: 2, d: {$date: nonsense}}\n"
     "  find: {}\n  expect: {ids: []}\n",
     r"claims\.yaml:5: claim 'x': not Extended JSON: fixture document 2: \$date"),
    ("bad pipeline", "- {id: x, title: t, fixture: [], aggregate: {}, expect: {ids: []}}\n",
     r"claim 'x': aggregate is a pipeline"),
    ("bad version", "- {id: x, title: t, fixture: [], find: {}, expect: {ids: []}, "
     "min_server_version: latest}\n", r"claim 'x': min_server_version must be a version"),
    ("utf schema 2", "schemaVersion: '2.0'\ntests: []\n",
     r"claims\.yaml:1: schemaVersion 2.0 is not supported"),
    ("utf no operations", "schemaVersion: '1.0'\ntests:\n  - description: d\n",
     r"claims\.yaml:3: a test needs operations"),
]


@pytest.mark.parametrize(("text", "message"), [m[1:] for m in MISTAKES],
                         ids=[m[0] for m in MISTAKES])
def test_each_kind_of_mistake_is_one_error_naming_file_claim_and_line(tmp_path, text, message):
    """A bad claim file raises one BadInput whose one line names the file, the claim and the
    line of the mistake."""
    with pytest.raises(BadInput, match=message) as caught:
        claimfiles.load([write(tmp_path, text)])
    assert "\n" not in str(caught.value)


def test_paths_that_are_not_claim_files(tmp_path):
    """A missing path, a wrong suffix and a folder with no claim files are each one error."""
    with pytest.raises(BadInput, match="no such file or folder"):
        claimfiles.claim_files([tmp_path / "absent.yaml"])
    with pytest.raises(BadInput, match=r"ends in \.yaml, \.yml or \.json"):
        claimfiles.claim_files([write(tmp_path, "[]", "claims.txt")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(BadInput, match="no claim files"):
        claimfiles.claim_files([tmp_path / "empty"])


def test_plain_json_claim_files(tmp_path):
    """A claim file may be plain JSON, values in Extended JSON."""
    path = write(tmp_path, '[{"id": "j", "title": "t", "fixture": [{"_id": 1, "v": '
                           '{"$numberLong": "7"}}], "find": {"v": 7}, "expect": {"count": 1}}]',
                 "claims.json")
    (spec,) = claimfiles.read(path)
    # {count: N} with find: is the count of documents (issue 19), no longer a value to match
    assert (spec.steps[0].expect.kind, spec.steps[0].expect.value) == ("count", 1)


def test_version_strings_compare_component_by_component():
    """'4.4.14' > '4.4.9' and '3.6' == '3.6.0', as the Unified Test Format compares versions."""
    assert claimfiles.version_tuple("4.4.14") > claimfiles.version_tuple("4.4.9")
    assert claimfiles.version_tuple("3.6") == claimfiles.version_tuple("3.6.0")


@pytest.mark.parametrize(("bounds", "server", "admitted"), [
    ('max_server_version: "7.0"', "7.0.14", True),
    ('max_server_version: "7.0"', "7.0.0", True),
    ('max_server_version: "7.0"', "7.1.0", False),
    ("max_server_version: 7", "7.9.3", True),
    ('max_server_version: "7.0.3"', "7.0.14", False),
    ('min_server_version: "7.0"', "7.0.0", True),
    ('min_server_version: "7.0"', "6.0.16", False),
    ('min_server_version: "6.0", max_server_version: "7.0"', "7.0.14-rc1", True),
], ids=["the issue's 7.0.14", "7.0.0", "7.1.0", "major only", "three parts given",
        "min 7.0", "below min", "both, a pre-release"])
def test_short_form_versions_compare_the_parts_given(tmp_path, bounds, server, admitted):
    """A person writing max_server_version "7.0" means any 7.0.x: the short form compares only
    the parts given (issue 19); a pre-release suffix is dropped, as the Unified Test Format
    drops it ("Version String")."""
    path = write(tmp_path, "- {id: v, title: t, fixture: [], find: {}, expect: {ids: []}, "
                           f"{bounds}}}\n")
    (spec,) = claimfiles.read(path)
    ((requirement,),) = spec.requirements
    assert requirement.given_parts_only
    assert requirement.admits(server) is admitted


def test_unified_format_versions_are_padded_with_zeros(tmp_path):
    """The Unified Test Format keeps its own rule: "<major>.<minor> (<patch> is assumed to be
    zero)" (unified-test-format.md, "Version String"), so its maxServerVersion "7.0" is 7.0.0
    and excludes 7.0.14; its files write "4.4.99" to mean every 4.4."""
    path = write(tmp_path, 'schemaVersion: "1.0"\nrunOnRequirements: [{maxServerVersion: "7.0"}]\n'
                           "tests: [{description: d, operations: []}]\n", "u.yml")
    (spec,) = claimfiles.read(path)
    ((requirement,),) = spec.requirements
    assert not requirement.given_parts_only
    assert requirement.admits("7.0.0")
    assert not requirement.admits("7.0.14")
    assert claimfiles.Requirement(None, "7.0.99").admits("7.0.14")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(server=st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 40)),
       bound=st.lists(st.integers(0, 12), min_size=1, max_size=3))
def test_short_form_bounds_admit_exactly_the_versions_that_begin_within_them(server, bound):
    """Fixed-seed property: a short-form maximum admits a server exactly when the server's
    first parts, as many as the bound writes, are at most the bound; a minimum, at least."""
    text, version = ".".join(map(str, bound)), ".".join(map(str, server))
    head = server[:len(bound)]
    assert claimfiles.Requirement(None, text, given_parts_only=True).admits(version) is (
        head <= tuple(bound))
    assert claimfiles.Requirement(text, None, given_parts_only=True).admits(version) is (
        head >= tuple(bound))


def test_the_query_experiments_ask_the_kits_claim_files_and_nothing_else():
    """The kit's query claims have one source (issue "One house", item 1): every question the
    lessons' experiments ask names an entry of claims/*.yaml, and every entry is asked."""
    from labkit.experiments import bracketing, dates, sort_order

    asked = {claim_id for module in (bracketing, dates, sort_order)
             for name, questions in vars(module).items()
             if name.endswith(("_QUESTIONS", "_NUMBERS", "_DATES", "_FROM_PYTHON"))
             and isinstance(questions, dict)
             for claim_id in questions.values()}
    assert asked == {spec.id for spec in claimfiles.load([claimfiles.KIT_CLAIMS])}


def test_the_kits_claim_files_are_found_in_a_checkout():
    """In a checkout the kit's claim files are its top-level claims/ folder, the one README's
    `labkit check claims/` names (an installed wheel carries them as labkit/kit_claims)."""
    assert claimfiles.KIT_CLAIMS == ROOT / "claims"
    assert claimfiles.kit_claim("B1.eq_42").path == ROOT / "claims" / "lesson03_bracketing.yaml"
