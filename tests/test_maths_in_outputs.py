"""Every HTML output labkit shows in a notebook is kept from MathJax: a query's ``$`` pair
(``$expr {$gt: ['$userId', 0]}``, ``$gt and $lt null``) is shown as typed, never typeset as
mathematics by JupyterLab (which reads ``$…$`` in an output's HTML as inline maths)."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest
from helpers import fresh_lab, typeset_text

import labkit
from labkit.errors import ServerUnavailable
from labkit.experiments.catalogue import registered
from labkit.lessons import cards, notebook
from labkit.lessons.exercises import Feedback
from labkit.outputs import escape, tables
from labkit.run import runner

PACKAGE = Path(__file__).resolve().parent.parent / "labkit"
QUESTION = "Which orders does $expr {$gt: ['$userId', 0]} return?"


def _offline():
    raise ServerUnavailable("no MongoDB server is available. Hint: set LABKIT_MONGODB_URI")


@pytest.fixture
def offline(monkeypatch):
    """A kernel without MongoDB or PostgreSQL, the how-to not yet shown."""
    ctx = runner.Context(btree_n=1_000, mongodb_provider=_offline, postgres_provider=_offline)
    fresh_lab(monkeypatch, ctx)  # a fresh lesson
    yield ctx
    ctx.close()


@pytest.mark.parametrize(("page", "read"), [
    ("<div>$a$ <b>$b$</b></div>", ["$a$", "$b$"]),
    ('<div class="x mathjax_ignore"><b>$a$</b></div><p>$b$</p>', ["$b$"]),
    ("<div><code>$a$</code><style>p {}</style>after<br>$c$</div>", ["after", "$c$"]),
    ('<div class="tex2jax_ignore">$a$</div>', ["$a$"]),  # MathJax 2's class alone: read
])
def test_the_reader_finds_the_text_mathjax_would_read(page, read):
    """The test's model of MathJax 3 reads text outside ``code``, ``style`` and elements of
    class ``mathjax_ignore``, and only there (JupyterLab 4 ignores ``tex2jax_ignore`` alone)."""
    assert typeset_text(page) == read


def test_notebook_html_leaves_nothing_for_mathjax():
    """The one wrapper marks a page with the classes MathJax 3 and MathJax 2 skip."""
    page = escape.notebook_html(f"<b>{QUESTION}</b><table><tr><td>$a$</td></tr></table>")
    assert typeset_text(page) == []
    assert 'class="tex2jax_ignore mathjax_ignore"' in page


def _repr_html_methods() -> list[tuple[str, ast.FunctionDef]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", node)
                  for node in ast.walk(tree)
                  if isinstance(node, ast.FunctionDef) and node.name == "_repr_html_"]
    return found


def test_every_repr_html_in_labkit_is_drawn_through_as_typed():
    """Each ``_repr_html_`` labkit defines (cards, not-run cards, feedback, waiting notes, the
    server status, the fixture, the model's explanation, labkit's whole-text tables) is
    decorated with ``escape.as_typed``, so a new output cannot forget it."""
    methods = _repr_html_methods()
    assert len(methods) >= 9
    bare = [where for where, node in methods
            if not any(ast.unparse(d) in ("as_typed", "escape.as_typed")
                       for d in node.decorator_list)]
    assert not bare, f"not drawn through escape.as_typed: {bare}"


def test_a_question_in_feedback_is_shown_as_typed():
    """An exercise's feedback quoting its question shows ``$expr`` and ``'$userId'`` as text."""
    page = Feedback(None, QUESTION)._repr_html_()
    assert typeset_text(page) == []
    assert "$expr {$gt: [&#x27;$userId&#x27;, 0]}" in page


@pytest.mark.parametrize("claim_id", ["X1", "X2", "X3"])
def test_a_not_run_card_of_a_dollar_claim_is_shown_as_typed(claim_id, offline):
    """A not-run card of a claim whose title holds ``$`` pairs, with its stand-ins, its
    tables and the model's explanation, leaves no text for MathJax."""
    card = labkit.claim(claim_id, offline)
    assert isinstance(card, notebook.NotRun)
    page = card._repr_html_()
    assert "$" in page
    assert typeset_text(page) == []


def test_a_verdict_card_is_shown_as_typed(offline):
    """A claim's verdict card (a claim run here, on the model or SQLite) leaves no text for
    MathJax."""
    item = next(c for c in registered() if not c.needs)
    card = labkit.claim(item.id, offline)
    assert isinstance(card, notebook.Checked)
    assert typeset_text(card._repr_html_()) == []


def test_the_fixture_and_the_explanation_beside_a_card_are_shown_as_typed():
    """The fixture beside a card and the model's explanation of its questions (``$gt``,
    ``$lt`` in each query) leave no text for MathJax."""
    why = cards.Why.of("X2")
    assert why is not None
    for shown in (cards.Fixture("X2"), why):
        page = shown._repr_html_()
        assert "$" in page
        assert typeset_text(page) == []


def test_the_waiting_note_and_the_server_status_are_shown_as_typed():
    """The note of a cell waiting for an exercise and the lesson's server status leave no
    text for MathJax."""
    missing = ServerUnavailable("no MongoDB server is available", tried=["Docker: no daemon"])
    for shown in (notebook.Waiting("03.expr"), notebook.ServerStatus("03", True, None, missing)):
        assert typeset_text(shown._repr_html_()) == []


def test_labkits_whole_text_tables_are_shown_as_typed():
    """A table of sentences (the progress table's questions) leaves no text for MathJax,
    with pandas' own switch left as it was."""
    frame = tables.whole_text(pd.DataFrame({"exercise": [QUESTION]}))
    with pd.option_context("display.html.use_mathjax", True):
        page = frame._repr_html_()
    assert "$expr" in page
    assert typeset_text(page) == []


def test_a_lesson_keeps_every_pandas_table_from_maths():
    """Once a lesson starts (``keep_from_maths``), any pandas table the kernel shows (a
    fixture's, labkit's explanation's, the learner's own) leaves no text for MathJax."""
    frame = pd.DataFrame({"query": ["{a: {$gt: 0}}", "{a: {$lt: 0}}"]})
    with pd.option_context("display.html.use_mathjax", True):
        assert typeset_text(frame._repr_html_())  # before: the "$…$" pair is read
        tables.keep_from_maths()
        assert typeset_text(frame._repr_html_()) == []
