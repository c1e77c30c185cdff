"""Every expectation form docs/claims.md documents for the short form (``ids``, ordered
``ids``, ``count``, ``error``, ``documents``, ``values``) with every read (``find``, ``aggregate``,
``count``, ``distinct``): where it should hold it holds, where it should not it does not, on
each in-process engine (the model, mongomock, montydb) and, marked ``mongodb``, on a real
server (issue 19, "Claim files that mean what they say")."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from labkit.claims import files as claimfiles
from labkit.claims.claim import ERROR, FAILS, HOLDS, NOT_RUN
from labkit.engines import fakes
from labkit.engines import query as engines
from labkit.run import check as claimcheck

ENGINES = ("model", "mongomock", "montydb")
FIXTURE = "[{_id: 1, a: 1, tag: x}, {_id: 2, a: 1, tag: y}, {_id: 3, a: 2, tag: y}]"
# Each read of the table, on the fixture above: documents 2 and 1 (in that order where sorted),
# their tags x and y, or their count 2. The error reads use an operator no engine knows.
READS = {
    "find": "find: {a: 1}",
    "find sorted": "find: {filter: {a: 1}, sort: {_id: -1}}",
    "aggregate": "aggregate: [{$match: {a: 1}}, {$sort: {_id: -1}}]",
    "count": "count: {a: 1}",
    "distinct": "distinct: {field: tag, filter: {a: 1}}",
}
BAD_READS = {
    "find": "find: {a: {$bogus: 1}}",
    "aggregate": "aggregate: [{$bogus: {}}]",
    "count": "count: {a: {$bogus: 1}}",
    "distinct": "distinct: {field: tag, filter: {a: {$bogus: 1}}}",
}


@dataclass(frozen=True)
class Case:
    """One form with one read: what holds (None where the form cannot fit the read's answer)
    and what must not."""

    form: str
    read: str
    holds: str | None
    fails: str

    @property
    def name(self) -> str:
        """``count with find``."""
        return f"{self.form} with {self.read}"


CASES = [
    Case("ids", "find", "{ids: [2, 1]}", "{ids: [1, 3]}"),
    Case("ids", "aggregate", "{ids: [1, 2]}", "{ids: [1]}"),
    Case("ids", "count", None, "{ids: [1, 2]}"),  # a count has no documents
    Case("ids", "distinct", None, "{ids: [x, y]}"),  # values, not documents
    Case("ordered ids", "find sorted", "{ids: [2, 1], ordered: true}",
         "{ids: [1, 2], ordered: true}"),
    Case("ordered ids", "aggregate", "{ids: [2, 1], ordered: true}",
         "{ids: [1, 2], ordered: true}"),
    Case("ordered ids", "count", None, "{ids: [2, 1], ordered: true}"),
    Case("ordered ids", "distinct", None, "{ids: [x, y], ordered: true}"),
    Case("count", "find", "{count: 2}", "{count: 3}"),  # the issue's probe
    Case("count", "find sorted", "{count: 2}", "{count: 1}"),
    Case("count", "aggregate", "{count: 2}", "{count: 0}"),
    Case("count", "count", "{count: 2}", "{count: 3}"),
    Case("count", "distinct", "{count: 2}", "{count: 1}"),
    Case("error", "find", "{error: true}", "{error: true}"),
    Case("error", "aggregate", "{error: true}", "{error: true}"),
    Case("error", "count", "{error: true}", "{error: true}"),
    Case("error", "distinct", "{error: true}", "{error: true}"),
    Case("documents", "find", "{documents: [{_id: 2, tag: y}, {_id: 1}]}",
         "{documents: [{_id: 1, tag: y}, {_id: 2}]}"),
    Case("documents", "find sorted", "{documents: [{_id: 2}, {_id: 1, a: 1}], ordered: true}",
         "{documents: [{_id: 1}, {_id: 2}], ordered: true}"),
    Case("documents", "aggregate", "{documents: [{_id: 2, a: 1}, {_id: 1, tag: x}]}",
         "{documents: [{_id: 2, a: 2}, {_id: 1}]}"),
    Case("documents", "count", None, "{documents: [{_id: 1}, {_id: 2}]}"),
    Case("documents", "distinct", None, "{documents: [{tag: x}, {tag: y}]}"),
    Case("values", "distinct", "{values: [y, x]}", "{values: [x]}"),
    Case("values", "find", "{values: [{_id: 1, a: 1, tag: x}, {_id: 2, a: 1, tag: y}]}",
         "{values: [{_id: 1}, {_id: 2}]}"),  # values match whole: no extra fields
    Case("values", "aggregate", "{values: [{_id: 2, a: 1, tag: y}, {_id: 1, a: 1, tag: x}]}",
         "{values: [{_id: 2, a: 1}, {_id: 1, a: 1}]}"),
    Case("values", "count", None, "{values: [2]}"),
]


def claim(tmp_path: Path, read: str, expect: str) -> claimfiles.ClaimSpec:
    """The one short-form claim of a file holding the fixture, ``read`` and ``expect``."""
    path = tmp_path / "claim.yaml"
    path.write_text(f"- id: c\n  title: t\n  fixture: {FIXTURE}\n  {read}\n  expect: {expect}\n",
                    encoding="utf-8")
    (spec,) = claimfiles.read(path)
    return spec


def asked(case: Case, holds: bool) -> str:
    """The read a case asks: the error form asks a bad read where it should hold and the good
    read where it should not; every other form asks the good read."""
    if case.form == "error":
        return BAD_READS[case.read] if holds else READS[case.read]
    return READS[case.read]


def expected_verdict(case: Case, engine: str, holds: bool) -> str:
    """The verdict each engine gives. Two engines answer less than MongoDB, and say so: the
    model predicts a server's refusal only where it knows the rule (issue 45), and it knows
    no ``$bogus`` (not run), while a good read it answers, so an expected error does not
    hold; montydb 2.5 implements no
    aggregate (``MontyCollection.aggregate`` raises NotImplementedError), the fake's own
    exception, so every aggregate claim is montydb's error there, ``error: true`` included
    (no exception of a fake's own code stands for a server's error); mongomock 4.3 meets an
    unknown stage with NotImplementedError where MongoDB refuses it ("Unrecognized pipeline
    stage name"), its error too."""
    if engine == "model" and case.form == "error" and holds:
        return NOT_RUN
    if engine == "montydb" and case.read == "aggregate":
        return ERROR
    if engine == "mongomock" and case.read == "aggregate" and case.form == "error" and holds:
        return ERROR
    return HOLDS if holds else FAILS


@pytest.fixture(scope="module")
def engine_named():
    """The in-process engines, one each for the module (montydb allows one setup a process)."""
    made = {"model": engines.ModelEngine()}
    made.update({name: fakes.engine(name) for name in ("mongomock", "montydb")})
    return made


HOLDING = [c for c in CASES if c.holds is not None]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", HOLDING, ids=[c.name for c in HOLDING])
def test_each_form_holds_where_it_should(tmp_path, engine_named, case, engine):
    """A documented expectation that states what the read gives holds on each engine
    (docs/claims.md, "The short form"), save what the engine says it cannot answer."""
    assert case.holds is not None
    spec = claim(tmp_path, asked(case, holds=True), case.holds)
    observation, verdict = claimcheck.judged(spec, engine_named[engine])
    assert verdict == expected_verdict(case, engine, holds=True), observation


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_form_fails_where_it_should(tmp_path, engine_named, case, engine):
    """A documented expectation that does not state what the read gives does not hold on any
    engine: a wrong count, wrong ids or order, a document or value that does not match, no
    error where one is expected, a form that the read's answer cannot have (issue 19)."""
    spec = claim(tmp_path, asked(case, holds=False), case.fails)
    observation, verdict = claimcheck.judged(spec, engine_named[engine])
    assert verdict == expected_verdict(case, engine, holds=False), observation


def test_every_documented_form_meets_every_read():
    """The table covers docs/claims.md's six forms with each of its four reads, and each form
    holds somewhere for every read whose answer can have it."""
    pairs = {(c.form, c.read.split()[0]) for c in CASES}
    forms = ("ids", "ordered ids", "count", "error", "documents", "values")
    assert pairs == {(f, r) for f in forms for r in ("find", "aggregate", "count", "distinct")}
    assert {c.form for c in HOLDING} == set(forms)
    assert {c.read.split()[0] for c in HOLDING if c.form == "count"} == {
        "find", "aggregate", "count", "distinct"}


@pytest.mark.parametrize("engine", ["model", "mongomock"])
def test_the_issues_probe_two_documents_count_two(tmp_path, engine_named, engine):
    """The issue's probe: two matching documents and ``{count: 2}`` with ``find:`` hold on the
    model and on mongomock, the number compared, not the list of documents."""
    spec = claim(tmp_path, "find: {a: 1}", "{count: 2}")
    observation, verdict = claimcheck.judged(spec, engine_named[engine])
    assert verdict == HOLDS
    assert observation.observed == {"count": 2}
    spec = claim(tmp_path, "find: {a: 1}", "{count: 3}")
    observation, verdict = claimcheck.judged(spec, engine_named[engine])
    assert verdict == FAILS
    assert str(observation.note) == "2, not 3"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_unified_file_that_reuses_anchors_is_judged(engine_named, engine):
    """The Unified Test Format file whose tests give their anchors again (issue 19) is read and
    judged: both tests hold on the model and mongomock; on montydb, which implements no
    aggregate, each is montydb's error."""
    path = Path(__file__).resolve().parent / "data" / "unified" / "anchors.yml"
    verdicts = [claimcheck.judged(spec, engine_named[engine])[1]
                for spec in claimfiles.read(path)]
    assert verdicts == [ERROR if engine == "montydb" else HOLDS] * 2


@pytest.mark.mongodb
def test_each_form_on_a_real_server(tmp_path, mongodb_server):
    """On MongoDB every holding case holds and every other case does not: the server answers
    every read, and refuses an unknown query operator ("unknown operator: $bogus", BadValue)
    and an unknown stage ("Unrecognized pipeline stage name")."""
    server = engines.MongoDBEngine(mongodb_server)
    for case in CASES:
        for holds, expect in ((True, case.holds), (False, case.fails)):
            if expect is None:
                continue
            _observation, verdict = claimcheck.observe(claim(tmp_path, asked(case, holds),
                                                             expect), server)
            assert verdict == (HOLDS if holds else FAILS), (case.name, holds)
