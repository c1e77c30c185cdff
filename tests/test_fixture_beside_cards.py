"""A card whose rows are ``_id``s of a small fixture shows that fixture beside it, with each
row's query, in both editions: X2's nulls, X3's NaNs, X4's and X5's arrays (the kit's claim
files, claims/lesson02_sort_order.yaml and claims/lesson03_bracketing.yaml), which the lessons
never showed, so "eq → [1, 2]" named documents a learner could not see."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labkit.claims.files import kit_claim
from labkit.experiments.catalogue import get
from labkit.lessons import cards

ROOT = Path(__file__).resolve().parent.parent
# The claims whose card answers with the _ids of a fixture of their own, in the lesson named.
ON_THEIR_OWN_FIXTURE = {"X5": "02_bson_sort_order", "X2": "03_type_bracketing",
                        "X3": "03_type_bracketing", "X4": "03_type_bracketing"}
CHECK = re.compile(r'labkit\.claim\("([^"]+)"')


@pytest.mark.parametrize("edition", ["", "vi"])
@pytest.mark.parametrize("claim_id", sorted(ON_THEIR_OWN_FIXTURE))
def test_the_cell_of_each_such_card_shows_its_fixture(claim_id, edition):
    """The lesson's cell that checks the claim displays ``lesson.Fixture`` of the same claim
    before the card, in the English and the Vietnamese edition alike."""
    path = ROOT / "notebooks" / edition / f"{ON_THEIR_OWN_FIXTURE[claim_id]}.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"]
    (cell,) = [c for c in cells if claim_id in CHECK.findall(c)]
    assert f'display(lesson.Fixture("{claim_id}"))' in cell
    assert cell.index("lesson.Fixture") < cell.index("labkit.claim")


def test_the_fixture_is_the_claim_files_and_each_row_names_its_query():
    """X3's view holds the documents of X3.eq's fixture in mongosh's notation (NaN, Infinity,
    -Infinity, as the shell writes them) and one query per row of the card, the rows being the
    claim's expected keys."""
    view = cards.Fixture("X3")
    assert view.docs == kit_claim("X3.eq").fixture["claim"]
    assert list(view.queries) == list(get("X3").expected)
    text = str(view)
    assert "{_id: 1, a: NaN}" in text
    assert "{_id: 3, a: -Infinity}" in text
    assert "eq: find({a: {$eq: NaN}})" in text
    assert "gt: find({a: {$gt: NaN}})" in text


def test_a_sort_question_shows_its_sort():
    """X5's rows are sorts: each shows its ``.sort(…)``, and the fixture table is in the
    view's HTML beside the queries."""
    view = cards.Fixture("X5")
    assert view.queries == {"ascending": "find({}).sort({a: 1})",
                            "descending": "find({}).sort({a: -1})"}
    shown = view._repr_html_()
    assert "[-2, -1]" in shown
    assert "<code>find({}).sort({a: -1})</code>" in shown
