"""``labkit explain`` agrees with ``predict`` on every case of the model's own test corpora.

The model's tests hold its answers against MongoDB's jstests and the kit's claims (each case
cites its file, lines and commit where it is written: test_bson_order.py, test_match.py,
test_collation.py, test_filter_collation.py, test_regex.py, test_versions.py, test_expr.py,
test_mongodb_versions.py). Run once more here with ``explain_recorder``, every find, match and
sort they ask the model is kept, and asked again of ``labkit.model.explain``: the documents it
says match are those ``find`` returns, its order is ``sort``'s, each row's explanation adds up
to its decision (``explained``), and each names a rule with its source. A case the explainer
cannot explain fails here, naming the query.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from labkit.model import bson_order, explain, reads

TESTS = Path(__file__).resolve().parent
CORPORA = ["test_bson_order.py", "test_match.py", "test_collation.py",
           "test_filter_collation.py", "test_regex.py", "test_versions.py", "test_expr.py",
           "test_mongodb_versions.py"]
# Property tests of other functions (compare's laws, regex against Python's re, the command
# line's own run of predict): their generated values are no corpus case, and they take most
# of these files' time. test_explain.py holds explain to predict on generated inputs.
NOT_CORPUS = ("not antisymmetric and not transitive and not different_brackets_never_match "
              "and not filter_comparisons_agree_with_the_collations_compare and not "
              "ascii_agrees_with_python and not predict_find_takes and not "
              "sort_agrees_with_icu_compare")


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> list[tuple[str, tuple]]:
    """Every find, match and sort the model's tests asked, as they asked it."""
    record = tmp_path_factory.mktemp("explain") / "calls.pickle"
    env = {**os.environ, "LABKIT_EXPLAIN_RECORD": str(record),
           "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p",
                          "explain_recorder", "-p", "no:cacheprovider", "-k", NOT_CORPUS,
                          *(str(TESTS / name) for name in CORPORA)],
                         cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return [pickle.loads(item) for item in pickle.loads(record.read_bytes())]


def _unanswerable(call, *arguments) -> bool:
    """Whether the model refuses the case (a test of a refusal): nothing to explain."""
    try:
        call(*arguments)
    except Exception:
        return True
    return False


def test_the_corpora_ask_enough_to_judge(cases):
    kinds = [kind for kind, _ in cases]
    assert kinds.count("find") + kinds.count("match") >= 300, len(kinds)
    assert kinds.count("sort") >= 100, len(kinds)


def test_explain_find_matches_what_predict_returns_on_every_corpus_case(cases):
    disagreements = []
    for kind, (docs, query, collation, version) in cases:
        if kind == "sort" or _unanswerable(reads.find, docs, query, collation, version):
            continue
        predicted = [doc.get("_id") for doc in reads.find(docs, query, collation, version)]
        try:
            rows = explain.find(docs, query, collation, version)
        except Exception as exc:
            disagreements.append((query, collation, version, f"explain raised {exc!r}"))
            continue
        said = [row.id for row in rows if row.matched]
        unexplained = [row.id for row in rows if row.explained != row.matched]
        unnamed = [row.id for row in rows if row.rule not in explain.RULES or not row.source]
        if said != predicted or unexplained or unnamed:
            disagreements.append((query, collation, version, said, predicted, unexplained,
                                  unnamed))
    assert disagreements == []


def test_explain_sort_orders_as_predict_does_on_every_corpus_case(cases):
    disagreements = []
    for kind, (docs, spec, collation, version) in cases:
        if kind != "sort" or _unanswerable(bson_order.sort, docs, spec, collation, version):
            continue
        predicted = [doc.get("_id") for doc in bson_order.sort(docs, spec, collation, version)]
        try:
            rows = explain.sorted_rows(docs, spec, collation, version)
        except Exception as exc:
            disagreements.append((spec, collation, version, f"explain raised {exc!r}"))
            continue
        unnamed = [row.id for row in rows if row.rule not in explain.RULES or not row.source]
        if [row.id for row in rows] != predicted or unnamed:
            disagreements.append((spec, collation, version, [row.id for row in rows],
                                  predicted, unnamed))
    assert disagreements == []
