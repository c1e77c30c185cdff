"""Reads with a pattern that backtracks (issue 46, "Trust, round five", item 9): the fakes,
which match with Python's ``re`` (no match limit), are not run on one, and the model's read is
bounded as a whole.

Before: ``labkit check --engines mongomock`` (and montydb) never finished on ``(a+)+$`` against
thirty ``a``s and a ``b``; the model spent about 20 ms per such document at PCRE2's match
limit, with no bound on the read (300,000 documents: about 100 minutes).

What the model does at the limit is the server's rule: a match that hits PCRE2's limit is no
match (``src/mongo/db/matcher/expression_leaf.cpp``, RegexMatchExpression::matchesSingleElement
returns the match's truth, and ``pcre::MatchData`` turns the limit error into no match)."""

from __future__ import annotations

import json

import pytest

from labkit.claims import files as claimfiles
from labkit.claims.claim import NOT_RUN
from labkit.cli import main
from labkit.engines.query import model_read
from labkit.errors import CannotJudge
from labkit.model import explain, reads, regex
from labkit.run import check as claimcheck

EVIL = "^(a+)+$"
SUBJECT = "a" * 30 + "b"  # PCRE2 reaches its match limit here; Python's re takes hours
CLAIM = f"""\
- id: evil
  title: a pattern that backtracks matches nothing here
  fixture: [{{_id: 1, s: {SUBJECT}}}, {{_id: 2, s: aaa}}]
  find: {{s: {{$regex: {json.dumps(EVIL)}}}}}
  expect: {{ids: [2]}}
"""


@pytest.mark.parametrize("pattern", [EVIL, "(a+)+c"], ids=["anchored", "a literal missing"])
@pytest.mark.parametrize("engine", ["mongomock", "montydb"])
def test_a_fake_is_not_run_on_a_pattern_that_backtracks(tmp_path, engine, pattern):
    # "(a+)+c": PCRE2 itself fails at once (the subject has no c), Python's re does not
    path = tmp_path / "claims.yaml"
    path.write_text(CLAIM.replace(json.dumps(EVIL), json.dumps(pattern)), encoding="utf-8")
    result = claimcheck.check(claimfiles.load([path]), [engine])
    (column,) = result.columns
    (row,) = column.rows
    assert row.verdict == NOT_RUN
    assert "no bound on backtracking" in str(row.reason)


def test_a_fake_still_runs_a_pattern_that_does_not(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text(CLAIM.replace(json.dumps(EVIL), json.dumps("^a+$")), encoding="utf-8")
    result = claimcheck.check(claimfiles.load([path]), ["mongomock"])
    assert result.observed("evil", "mongomock") == [2]


@pytest.mark.parametrize("engine", ["mongomock", "montydb"])
def test_a_fake_is_asked_of_a_fixture_holding_javascript_code(tmp_path, engine):
    """bson's Code is a str that cannot be hashed: the check of the fixture's strings raised
    "TypeError: unhashable type: 'Code'" before the fake was asked, and lesson 07 showed it as
    both fakes' crash on S1 (a learner's walk). The fake now answers."""
    path = tmp_path / "claims.yaml"
    path.write_text("- id: code\n  title: code is a value\n"
                    "  fixture: [{_id: 1, c: {$code: 'function(){}'}}, {_id: 2, c: x}]\n"
                    "  find: {c: {$regex: '^x'}}\n  expect: {ids: [2]}\n", encoding="utf-8")
    result = claimcheck.check(claimfiles.load([path]), [engine])
    (row,) = result.columns[0].rows
    assert "unhashable" not in str(row.reason)
    assert result.observed("code", engine) == [2]


def test_the_model_answers_the_pattern_within_its_bound():
    docs = [{"_id": 1, "s": SUBJECT}, {"_id": 2, "s": "aaa"}]
    assert reads.ids(reads.find(docs, {"s": {"$regex": EVIL}})) == [2]


@pytest.fixture
def small_bound(monkeypatch):
    monkeypatch.setattr(regex, "MAX_LIMIT_HITS", 3)
    return [{"_id": i, "s": SUBJECT} for i in range(5)]


def test_the_models_read_stops_past_its_bound(small_bound):
    with pytest.raises(CannotJudge, match="backtracks past PCRE2's match limit"):
        reads.find(small_bound, {"s": {"$regex": EVIL}})
    with pytest.raises(CannotJudge, match="backtracks past PCRE2's match limit"):
        explain.find(small_bound, {"s": {"$regex": EVIL}})
    # a pipeline's computed $regexMatch is bounded too, the whole read one bound
    with pytest.raises(CannotJudge, match="backtracks past PCRE2's match limit"):
        model_read(small_bound, "aggregate", {"pipeline": [{"$project": {
            "hit": {"$regexMatch": {"input": "$s", "regex": EVIL}}}}]})
    # each read has its own count: a read within the bound is answered after one that was not
    assert reads.find(small_bound[:3], {"s": {"$regex": EVIL}}) == []


def test_predict_past_the_bound_is_one_error_line(small_bound, tmp_path, capsys):
    data = tmp_path / "docs.json"
    data.write_text(json.dumps(small_bound), encoding="utf-8")
    assert main(["predict", "find", str(data), "--filter",
                 json.dumps({"s": {"$regex": EVIL}})]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error:")
    assert "backtracks past PCRE2's match limit" in err
