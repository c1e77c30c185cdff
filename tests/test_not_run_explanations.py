"""Where a lesson's server cell is not run, its card offers labkit's model's explanation of the
claim's questions beside the model's prediction, labelled as the model's (issue 31, item 4),
and holds it back, as cards are held, where it would give an exercise's answer away.

The rules and sources named are labkit.model.explain's RULES: null-matches-missing
(jstests/core/query/null_query_semantics.js:46-77 at 1704949c), for claim X2's nulls fixture;
array-sort-key (jstests/core/query/sort/sort_array.js:59-66, 72-79 at 6fdbf4c4) and
empty-array-below-null (jstests/core/query/sort/sort_dotted_paths.js:29-34 at b6fcc56b), the
answers of lesson 02's exercises; type-bracketing (the manual's BSON comparison order page),
03.gt_zero's (claim B1); array-element-matching (the manual's Query an Array page),
the answer of lesson 03's 03.array_fate (claim X4).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_lesson_pacing import _code_cells, _run_lesson

import labkit
from labkit.lessons import notebook

ROOT = Path(__file__).resolve().parent.parent


def test_a_not_run_card_offers_the_models_explanation_labelled_as_its(kernel):
    """X2 without a server: beside the model's prediction, each of its questions explained on
    the nulls fixture, the missing field's row naming null-matches-missing and its source, in
    the card's text and HTML; the heading says it is the model's, not an observation."""
    card = labkit.claim("X2", kernel)
    assert isinstance(card, notebook.NotRun)
    for shown in (str(card), card._repr_html_()):
        assert "labkit" in shown
        assert "model&#x27;s account of MongoDB" in shown or "model's account of MongoDB" in shown
        assert "not an observation of a server" in shown
        assert "null-matches-missing" in shown
        assert "null_query_semantics.js:46-77 at 1704949c" in shown
    assert "no `a`: a missing field equals null, so {\"$eq\": null} matches" in str(card)


def test_a_not_run_cards_page_says_matched_in_the_learners_words(kernel):
    """The card's HTML writes whether each document matches as its text does, "có" or "không"
    in Vietnamese (with a tick or a cross), where it showed Python's True and False (claim
    X2's nulls fixture: the null and the missing field match {$eq: null}, 1 and "x" do not)."""
    labkit.language("vi")
    page = labkit.claim("X2", kernel)._repr_html_()
    assert "<td>\u2713 có</td>" in page
    assert "<td>\u2717 không</td>" in page
    assert "<td>True</td>" not in page
    assert "<td>False</td>" not in page


def test_a_claim_without_finds_of_the_kits_files_offers_none(kernel):
    """D1's questions are no finds of a fixture: its card explains nothing."""
    card = labkit.claim("D1", kernel)
    assert isinstance(card, notebook.NotRun)
    assert card.why is None


def test_an_explanation_that_would_give_an_answer_away_waits(kernel):
    """S1's card shows without an exercise tried, but its explanation (an array sorts by its
    smallest element: 02.after_array's answer) waits, naming labkit.reveal, until both of
    lesson 02's exercises are tried; a wrong answer is a try."""
    held = labkit.claim("S1", kernel, explain_after=["02.first", "02.after_array"])
    assert isinstance(held, notebook.NotRun)
    shown = str(held) + held._repr_html_()
    assert "array-sort-key" not in shown
    assert 'labkit.reveal("02.first")' in shown
    for name, wrong in (("02.first", "null"), ("02.after_array", "object")):
        assert not labkit.exercise(name).check(wrong)  # a common mistake: wrong, but tried
    card = labkit.claim("S1", kernel, explain_after=["02.first", "02.after_array"])
    assert "array-sort-key" in str(card) + card._repr_html_()


# What would give each exercise's answer away in lessons 02 and 03: the rule that decides it.
TELLS = {"02.first": "empty-array-below-null", "02.after_array": "array-sort-key",
         "03.gt_zero": "type-bracketing",
         "03.array_fate": "array-element-matching"}
LESSONS = [ROOT / "notebooks" / name for name in ("02_bson_sort_order.ipynb",
                                                  "03_type_bracketing.ipynb")]
LESSONS += [ROOT / "notebooks" / "vi" / path.name for path in LESSONS]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lessons_explain_no_answer_before_its_exercise_is_tried(path, kernel):
    """Run top to bottom offline with no exercise answered, lessons 02 and 03 (both editions)
    name no exercise's deciding rule in any cell, not-run cards' explanations included; once
    the exercises are revealed, the same cells name each."""
    tells = {name: tell for name, tell in TELLS.items() if name[:2] == path.name[:2]}
    before = _run_lesson(path)
    for name, tell in tells.items():
        for cell, text in zip(_code_cells(path), before, strict=True):
            assert tell not in text, f"{name}'s rule {tell} shows before it is tried:\n{cell}"
    for name in tells:
        labkit.reveal(name)
    after = "\n".join(_run_lesson(path))
    for name, tell in tells.items():
        assert tell in after, name


def test_a_not_run_server_cell_offers_the_explanation_it_is_given(kernel):
    """on_server(explain=...) without a server: beside the model's answer, labkit.explain's
    rows of the cell's own documents, labelled as the model's. Lesson 02's collation cell
    sorts strings under numericOrdering (collation.js:406-753 at 6fdbf4c4, the collation
    rule): "9" sorts before "10"."""
    docs = [{"_id": 0, "s": "10"}, {"_id": 1, "s": "9"}]
    numeric = {"locale": "en", "numericOrdering": True}
    card = labkit.on_server("collation", lambda db: None, model=lambda: {"n": 2},
                            explain=lambda: labkit.explain("s:1", docs, collation=numeric),
                            ctx=kernel)
    assert isinstance(card, notebook.NotRun)
    text, page = str(card), card._repr_html_()
    for shown in (text, page):
        assert "as labkit" in shown
        assert "collation" in shown
    assert text.index('s: "9"') < text.index('s: "10"')
    failing = labkit.on_server("collation", lambda db: None, explain=lambda: 1 / 0, ctx=kernel)
    assert failing.why is None  # a stand-in's failure costs the explanation only
