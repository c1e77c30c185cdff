"""The notebooks' API: ``labkit`` and each lesson's view module, written out in docs/api.md,
and the only parts of labkit a notebook reaches."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path

import pytest

import labkit
from labkit.lessons import reference
from labkit.syllabus import LESSONS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.ipynb")) + sorted(
    (ROOT / "notebooks" / "vi").glob("0*.ipynb"))


def test_docs_api_is_in_step_with_the_code():
    """docs/api.md is what the code makes now (regenerate: python -m labkit.lessons.reference)."""
    assert reference.PAGE.read_text(encoding="utf-8") == reference.page(), (
        f"docs/api.md is out of step: run {reference.COMMAND}")


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.number)
def test_every_lesson_has_a_view_whose_names_are_documented(lesson):
    """Each lesson has its view module; every name it exports exists and, where it is a
    function or a class, has a docstring."""
    module = reference.view(lesson.slug)
    assert module.__all__
    for name in module.__all__:
        value = getattr(module, name)
        if callable(value):
            assert inspect.getdoc(value), f"{module.__name__}.{name} has no docstring"


def _code(path: Path) -> list[ast.AST]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    trees = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in "".join(cell["source"]).splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        trees.append(ast.parse(source))
    return trees


def _reached(path: Path) -> tuple[set[str], set[str]]:
    """The labkit modules a notebook imports, and the names it reads from ``labkit``."""
    modules, names = set(), set()
    for tree in _code(path):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules |= {a.name for a in node.names if a.name.split(".")[0] == "labkit"}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("labkit"):
                modules |= {f"{node.module}.{a.name}" if node.module == "labkit.lessons.views"
                            else node.module or "" for a in node.names}
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "labkit":
                names.add(node.attr)
    return modules, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_notebook_reaches_only_the_public_api(path):
    """A lesson imports ``labkit`` and its own lesson's view module, nothing else of labkit, and
    reads from ``labkit`` only the names of its ``__all__``."""
    slug = path.stem[3:]
    modules, names = _reached(path)
    assert modules <= {"labkit", f"labkit.lessons.views.{slug}"}, sorted(modules)
    assert names <= set(labkit.__all__), sorted(names - set(labkit.__all__))


def test_the_facade_offers_the_names_public_lists():
    """labkit.__all__ is lessons.public's names, and each lazy name is a documented object of
    the module lessons.public names for it."""
    import importlib

    from labkit.lessons import public

    assert sorted(labkit.__all__) == sorted(public.NAMES)
    for module, attribute in public.LAZY.values():
        assert inspect.getdoc(getattr(importlib.import_module(module), attribute)), attribute


# The modules whose names are the API (docs/api.md), and labkit.model, a library of MongoDB's
# rules with its own ``__all__`` (docs/model.md).
PUBLIC = ("labkit/__init__.py", "labkit/lessons/views/", "labkit/model/", "labkit/__main__.py")


def _says_internal(path: Path) -> bool:
    """A module says it is internal by its name (a leading underscore, its own or a folder's)
    or by its docstring, or its package's, saying so."""
    parts = path.relative_to(ROOT).parts
    if any(part.startswith("_") and part != "__init__.py" for part in parts):
        return True
    for doc_of in (path, path.parent / "__init__.py"):
        doc = ast.get_docstring(ast.parse(doc_of.read_text(encoding="utf-8"))) or ""
        if "Internal to labkit" in doc:
            return True
    return False


def test_every_module_outside_the_api_says_it_is_internal():
    """A module is either the API's (the facade, the lesson views, the model) or says it is
    internal, as structlog's modules do by their underscore: none is public by accident."""
    modules = sorted((ROOT / "labkit").rglob("*.py"))
    unsaid = [str(p.relative_to(ROOT)) for p in modules
              if not str(p.relative_to(ROOT)).startswith(PUBLIC) and not _says_internal(p)]
    assert unsaid == []
