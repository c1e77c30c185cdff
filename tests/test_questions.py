"""The lessons' exercises: each notebook asks for them by name, none is written into a
notebook (no hint or explanation shows before an answer), and each accepts its own answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labkit.lessons import notebook, questions

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# The exercises' claims run once in the shared offline session (tests/conftest.py), which this
# file and test_answers.py read: the root conftest.py keeps both on one worker.


@pytest.fixture(autouse=True)
def _progress_elsewhere(monkeypatch, tmp_path):
    """Exercises made here record progress in a temporary file, not the user's own."""
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))


def _code(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_ask_for_exercises_by_name_and_never_spell_them_out(path):
    """A lesson calls labkit.exercise("NN.name") for a known exercise and never builds one,
    so no hint, common mistake or explanation is on screen before the learner answers."""
    code = _code(path)
    assert "Exercise(" not in code
    assert "explanation=" not in code
    for name in re.findall(r'labkit\.exercise\("([^"]+)"\)', code):
        assert name in questions.EXERCISES
        assert name.startswith(path.name[:2])


def test_every_exercise_is_used_by_its_lesson():
    """Each exercise in the catalogue is asked by the notebook its name points to."""
    code = {p.name[:2]: _code(p) for p in NOTEBOOKS}
    unused = [n for n in questions.EXERCISES if f'labkit.exercise("{n}")' not in code[n[:2]]]
    assert unused == []


@pytest.mark.parametrize("name", sorted(questions.EXERCISES))
def test_each_exercise_accepts_its_own_answer_without_a_server(name, monkeypatch,
                                                              offline_session):
    """With no server, every exercise still has an answer (live, model or recorded), its own
    rule accepts it, and the feedback explains it (the claims run once, in the shared offline
    session)."""
    monkeypatch.setattr(notebook, "session", lambda: offline_session)
    exercise = questions.exercise(name)
    feedback = exercise.check(exercise.answer())
    assert feedback.correct is True, feedback.message
    assert exercise.explanation in feedback.message


def test_an_unknown_exercise_names_the_known_ones():
    """Asking for a name that does not exist is BadInput listing the catalogue."""
    from labkit.errors import BadInput

    with pytest.raises(BadInput, match=r"01\.string_range"):
        questions.exercise("99.nothing")


def _markdown(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks" / "vi").glob("*.ipynb")),
                         ids=lambda p: p.name)
def test_no_vietnamese_lesson_asks_for_a_decimal_dot(path):
    """A number is read as the learner's language writes it (answers.read_number: "0,7" in
    Vietnamese), so no Vietnamese lesson tells the learner to write a dot "as in Python"."""
    for text in _markdown(path):
        assert "dấu chấm như trong python" not in " ".join(text.split()).lower()


def test_lesson_06_shows_a_decimal_comma_in_quotes_in_the_vietnamese_edition():
    """Lesson 06's fill question shows the Vietnamese learner the comma written their way, in
    quotes (random_fill.check(0,75) would pass Python two numbers)."""
    vietnamese = ROOT / "notebooks" / "vi" / "06_btree_keys.ipynb"
    asking = [text for text in _markdown(vietnamese) if "`0.5`" in text]
    assert len(asking) == 1
    assert '`"0,5"`' in asking[0]



LESSON_08 = ROOT / "notebooks" / "08_claim_from_the_wild.ipynb"


def _lesson_08_claim_text() -> str:
    """The claim file lesson 08 writes, as its cell writes it (the YAML in ``write_text``)."""
    found = re.search(r'claim_file\.write_text\("""(.*?)"""\)', _code(LESSON_08), re.S)
    assert found is not None
    return found.group(1)


def test_lesson_08s_claim_file_states_the_claim_its_exercise_asks_about():
    """The claim file lesson 08 writes holds its exercise's products and sort, and expects the
    blog's order, the product without a price last: the prediction and the check ask one
    question."""
    import yaml

    [claim] = yaml.safe_load(_lesson_08_claim_text())
    assert claim["fixture"] == list(questions._BLOG_PRODUCTS)
    assert claim["find"] == {"filter": {}, "sort": questions._BLOG_SORT}
    assert claim["expect"] == {"ids": ["pen", "mug", questions._BLOG_LAST], "ordered": True}


def test_lesson_08s_claim_does_not_hold_on_the_model(tmp_path):
    """Checked on labkit's model, lesson 08's claim does not hold: an ascending sort puts the
    product without a price first, a missing field sorting as null, below every number
    (jstests/core/query/sort/sort_dotted_paths.js:29-34; the manual's "Comparison/Sort Order"
    page, bson-type-comparison-order: a non-existent field compares as null)."""
    from labkit.run import check as claimcheck

    path = tmp_path / "blog_claim.yaml"
    path.write_text(_lesson_08_claim_text(), encoding="utf-8")
    result = claimcheck.run_files([path], ["model"])
    assert result.frame().iloc[0].tolist() == ["does not hold"]
    assert result.observed("blog.missing_price_last", "model") == ["gift-card", "pen", "mug"]


def test_lesson_08s_exercise_without_a_server_is_judged_by_the_models_prediction(
        monkeypatch, offline_session):
    """Without a server, 08.missing_last is judged against labkit's model's prediction (the
    gift card first, so "no"), and the feedback says it was no observation of a server."""
    from labkit.lessons.exercises import MODEL

    monkeypatch.setattr(notebook, "session", lambda: offline_session)
    exercise = questions.exercise("08.missing_last")
    feedback = exercise.check(False)
    assert feedback.correct is True, feedback.message
    assert exercise.source == MODEL
    assert "labkit's model's prediction, not an observation of a server" in feedback.message


class _SortsMissingLast:
    """A stand-in for a server's collection, not MongoDB: it answers every find with the
    documents without a price last, the opposite of the model, so a test can tell whose
    answer judged an exercise."""

    def __init__(self) -> None:
        self.docs: list[dict] = []

    def insert_many(self, docs: list[dict]) -> None:
        self.docs += docs

    def find(self, filter, projection=None, **kwargs) -> list[dict]:
        return sorted(self.docs, key=lambda doc: "price" not in doc)


class _SessionWithAServer:
    """A kernel session whose MongoDB is there: a fresh database holds ``_SortsMissingLast``."""

    def __init__(self) -> None:
        from types import SimpleNamespace

        self.products = _SortsMissingLast()
        self._database = SimpleNamespace(products=self.products)
        self._server = SimpleNamespace(name="MongoDB", version="8.0.4")

    def unavailable(self, kind: str) -> None:
        return None

    def mongodb_database(self, label: str):
        return self._database

    def mongodb(self):
        return self._server


def test_lesson_08s_exercise_with_a_server_is_judged_by_the_servers_order(monkeypatch):
    """Where the kernel has a MongoDB, 08.missing_last inserts the products there and the
    server's order judges the answer, named with its version; the model is not asked."""
    from labkit.lessons.exercises import LIVE

    session = _SessionWithAServer()
    monkeypatch.setattr(notebook, "session", lambda: session)
    exercise = questions.exercise("08.missing_last")
    assert exercise.check(True).correct is True
    assert exercise.source == LIVE
    assert exercise.engine == "MongoDB 8.0.4"
    assert [doc["_id"] for doc in session.products.docs] == ["pen", "gift-card", "mug"]
