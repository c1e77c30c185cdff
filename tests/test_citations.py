"""Every citation of a MongoDB jstests file in a model test names its line and its commit.

A format check only: offline it cannot tell whether the cited line says what the test claims.
Each line was read from the stored copy of mongodb/mongo at the commit cited; to check one again,
open that file at that commit and count its lines from 1.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

# "jstests/<path>.js:<line>[-<line>][,<line>[-<line>]...] at <8 hex digits>"
CITATION = re.compile(r"jstests/[\w./-]+\.js:(?P<lines>\d+(?:-\d+)?(?:, ?\d+(?:-\d+)?)*)"
                      r" at (?P<commit>[0-9a-f]{8})\b")
ANY_JS = re.compile(r"[\w./-]*\.js\b")
# Test modules that pin the model's rules without importing labkit.model themselves: lessons
# 01-05's claims, run live.
ALSO_MODEL_TESTS = ("test_lesson_claims.py",)


def imports_the_model(tree: ast.Module) -> bool:
    """Whether a module imports ``labkit.model`` or something under it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        if any(n == "labkit.model" or n.startswith("labkit.model.") for n in names):
            return True
    return False


def model_test_files() -> list[Path]:
    """The test modules whose citations are checked: every one importing the model, and more."""
    found = [p for p in sorted(TESTS.glob("test_*.py"))
             if imports_the_model(ast.parse(p.read_text(encoding="utf-8")))]
    return found + [TESTS / name for name in ALSO_MODEL_TESTS if TESTS / name not in found]


def prose(path: Path) -> Iterator[tuple[int, str]]:
    """Each docstring and comment of a module, with the line it starts on."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield body[0].lineno, body[0].value.value
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def problems(text: str) -> list[str]:
    """What is wrong with the jstests citations in one docstring or comment."""
    text = re.sub(r"\s+", " ", text)  # a citation may wrap across lines
    found = []
    for match in CITATION.finditer(text):
        for part in match["lines"].replace(" ", "").split(","):
            first, _, last = part.partition("-")
            if int(first) < 1 or (last and int(last) <= int(first)):
                found.append(f"line range {part!r} in {match[0]!r}")
    rest = CITATION.sub("", text)
    found += [f"{mention!r} without jstests/<path>:<line> at <commit>"
              for mention in ANY_JS.findall(rest)]
    return found


@pytest.mark.parametrize("path", model_test_files(), ids=lambda p: p.name)
def test_every_jstests_citation_names_a_line_and_a_commit(path):
    """Each mention of a jstests file in a model test's docstrings and comments is
    ``jstests/<path>.js:<line> at <commit8>`` (a line range or list allowed), never a file alone."""
    wrong = [f"{path.name}:{line}: {problem}"
             for line, text in prose(path) for problem in problems(text)]
    assert not wrong, "\n".join(wrong)


def test_the_model_tests_are_found():
    """The check reaches the model's test modules the issue names (it cannot pass by finding
    none)."""
    names = {p.name for p in model_test_files()}
    assert {"test_bson_order.py", "test_match.py", "test_expr.py", "test_regex.py",
            "test_versions.py", "test_collation.py", "test_filter_collation.py",
            "test_lesson_claims.py", "test_predict_fuzz.py"} <= names


@pytest.mark.parametrize(("text", "expected"), [
    ("jstests/core/query/a.js:12 at 0123abcd", 0),
    ("jstests/core/query/a.js:12-14, 20 at 0123abcd", 0),
    ("a.js:12 at 0123abcd", 1),
    ("jstests/core/query/a.js at 0123abcd", 1),
    ("jstests/core/query/a.js:12", 1),
    ("jstests/core/query/a.js (testBasicNullQuery)", 1),
    ("jstests/core/query/a.js:14-12 at 0123abcd", 1),
    ("results.json and app.jsx are not jstests", 0),
])
def test_the_format_check_itself(text, expected):
    """The checker accepts a full citation and flags a file without a line, a commit or a
    jstests/ path, and a backwards range."""
    assert len(problems(text)) == expected
