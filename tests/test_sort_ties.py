"""Documents that tie on every sort path come back in any order: the manual's cursor.sort page
("Sort Consistency", https://www.mongodb.com/docs/manual/reference/method/cursor.sort/
#sort-consistency) runs one sort twice and prints its ties in two orders. Issue 44: labkit's
model never judges an order among ties (it lists them in the fixture's order, which is no
rule), and a claim file can say "in sort order, ties in any order" with a list inside ``ids``.
"""

from __future__ import annotations

import pytest

from labkit.claims.expect import judge_step
from labkit.claims.files import Answer, Expectation
from labkit.errors import BadInput
from labkit.run import check as claimcheck

# b and c tie on v: 0; a and d do not tie with anything.
FIXTURE = "[{_id: a, v: 1}, {_id: b, v: 0}, {_id: c, v: 0}, {_id: d, v: 2}]"


def _rows(tmp_path, expect: str, find: str = "{filter: {}, sort: {v: 1}}",
          engines: str = "model,mongomock") -> dict[str, object]:
    """The claim judged on each engine: {engine key: row}."""
    path = tmp_path / "ties.yaml"
    path.write_text(f'- id: T1\n  title: "ties"\n  fixture: {FIXTURE}\n  find: {find}\n'
                    f"  expect: {expect}\n", encoding="utf-8")
    return {row.engine_key: row for row in claimcheck.run_files([path], engines).run.rows}


def test_the_model_does_not_judge_an_order_among_ties(tmp_path):
    """[b, c, a, d] in this order: it holds only if the server returns b before c, which no
    rule says. The model's row is not run, naming the tie and cursor.sort; mongomock, a fake
    whose sort keeps insertion order, is judged on what it answered."""
    rows = _rows(tmp_path, "{ids: [b, c, a, d], ordered: true}")
    model = rows["model"]
    assert model.verdict == "not-run"
    assert '["b", "c"] tie on every sort path' in str(model.reason)
    assert "cursor.sort" in str(model.reason)
    assert rows["mongomock"].verdict == "holds"


@pytest.mark.parametrize("expect", ["{ids: [[b, c], a, d], ordered: true}",
                                    "{ids: [[c, b], a, d], ordered: true}"])
def test_ties_in_any_order_hold_on_the_model_and_on_mongomock(tmp_path, expect):
    """A list inside ``ids`` is a group of ties, in any order among itself: written either
    way, the claim holds on the model and on mongomock."""
    rows = _rows(tmp_path, expect)
    assert {key: row.verdict for key, row in rows.items()} == {"model": "holds",
                                                                "mongomock": "holds"}


def test_an_order_no_tie_can_give_does_not_hold_on_the_model(tmp_path):
    """[a, b, c, d]: a (v 1) before b and c (v 0) in an ascending sort; no order among the
    ties makes it hold, so the model judges it: it does not hold."""
    assert _rows(tmp_path, "{ids: [a, b, c, d], ordered: true}")["model"].verdict == "fails"


def test_a_group_that_splits_a_tie_is_not_judged_by_the_model(tmp_path):
    """[b, [c, a], d]: holds when the server gives b before c, fails when it gives c first;
    the model cannot tell."""
    row = _rows(tmp_path, "{ids: [b, [c, a], d], ordered: true}", engines="model")["model"]
    assert row.verdict == "not-run"


def test_a_limit_that_cuts_a_tie_leaves_which_documents_undecided(tmp_path):
    """sort {v: 1} limit 1: b or c, whichever the server gives first; the model cannot tell
    which, even unordered. How many documents come back is decided: a count is judged."""
    find = "{filter: {}, sort: {v: 1}, limit: 1}"
    row = _rows(tmp_path, "{ids: [b]}", find, engines="model")["model"]
    assert row.verdict == "not-run"
    assert "skip or limit" in str(row.reason)
    assert _rows(tmp_path, "{count: 1}", find, engines="model")["model"].verdict == "holds"


@pytest.mark.parametrize(("observed", "holds"), [
    (["c", "b", "a", "d"], True), (["b", "c", "a", "d"], True), (["b", "a", "c", "d"], False),
    (["b", "c", "a"], False)])
def test_a_group_of_ties_is_judged_as_any_order_on_every_engine(observed, holds):
    """What any engine answered (a server's answer carries no ties): each group is matched as
    a set at its place in the order."""
    expect = Expectation("ids", [["b", "c"], "a", "d"], ordered=True)
    answer = Answer([{"_id": i} for i in observed])
    assert judge_step(expect, answer).holds is holds


@pytest.mark.parametrize(("expect", "said"), [
    ("{ids: [[b, c], a, d]}", "it needs ordered: true"),
    ("{ids: [[b, [c]], a, d], ordered: true}", "none of them a list"),
    ("{ids: [[], a, d], ordered: true}", "one or more ids")])
def test_a_group_of_ties_is_read_only_where_it_means_something(tmp_path, expect, said):
    """A group needs ``ordered: true`` (unordered, every id is in any order already), holds
    one or more ids, and no list inside it: refused with the fix, never read otherwise."""
    with pytest.raises(BadInput, match=said):
        _rows(tmp_path, expect, engines="model")


@pytest.mark.parametrize(("find", "expect", "verdict", "said"), [
    # Found by an engineer's walk: [d, a] in this order was predicted "does not hold", as if
    # the fixture's order were the server's.
    ("{v: {$gt: 0}}", "{ids: [d, a], ordered: true}", "not-run", "the read has no sort"),
    ("{v: {$gt: 0}}", "{ids: [a, d], ordered: true}", "not-run", "the read has no sort"),
    ("{filter: {v: 0}, limit: 1}", "{ids: [b]}", "not-run", "a skip or limit"),
    # No order in question: any order, one document, or a limit that keeps every match.
    ("{v: {$gt: 0}}", "{ids: [d, a]}", "holds", ""),
    ("{v: 1}", "{ids: [a], ordered: true}", "holds", ""),
    ("{filter: {v: 0}, limit: 5}", "{ids: [c, b]}", "holds", ""),
    ("{v: {$gt: 0}}", "{ids: [a, b], ordered: true}", "fails", ""),  # no order gives it
])
def test_the_model_does_not_judge_the_order_of_a_find_without_a_sort(tmp_path, find, expect,
                                                                      verdict, said):
    """A find without a sort: every document it returns ties with every other, since MongoDB
    guarantees no order without a sort (the db.collection.find and cursor.sort pages: natural
    order is an internal implementation feature). The model judges only what no order decides;
    a fake's row is judged on the order it answered in."""
    rows = _rows(tmp_path, expect, find)
    model = rows["model"]
    assert model.verdict == verdict, model.reason
    assert said in str(model.reason)
    assert "db.collection.find" in str(model.reason) or not said
    assert rows["mongomock"].verdict in ("holds", "fails")
