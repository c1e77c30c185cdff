"""Docs are tested: every command and lesson is listed, every public function documented."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from pathlib import Path

import pytest

import labkit
from labkit.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _commands(parser, prefix="labkit"):
    for action in parser._actions:
        if hasattr(action, "choices") and isinstance(action.choices, dict):
            for name, sub in action.choices.items():
                nested = list(_commands(sub, f"{prefix} {name}"))
                yield from nested or [f"{prefix} {name}"]


def test_readme_opens_with_the_two_commands():
    """The first lines a new user sees are ``make run`` and ``make test``."""
    opening = README.split("\n## ")[0]
    assert opening.index("make run") < opening.index("make test") < 300


@pytest.mark.parametrize("command", sorted(_commands(build_parser())))
def test_every_cli_command_is_in_the_readme(command):
    """Each subcommand of ``labkit`` is documented in README.md."""
    assert f"`{command}" in README


def test_every_notebook_is_listed_in_both_readmes():
    """Each lesson appears in README.md and in notebooks/README.md."""
    assert NOTEBOOKS, "no notebooks found"
    lessons = (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8")
    for notebook in NOTEBOOKS:
        assert notebook.name in README
        assert notebook.name in lessons


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_committed_without_outputs(notebook):
    """No code cell carries outputs or an execution count."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    dirty = [i for i, c in enumerate(cells)
             if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert dirty == []


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_declare_the_servers_they_need(notebook):
    """Each notebook says in its metadata which servers its live parts use."""
    needs = json.loads(notebook.read_text(encoding="utf-8"))["metadata"]["labkit"]["needs"]
    assert set(needs) <= {"mongodb", "postgres", "wiredtiger"}


def _public_functions():
    for info in pkgutil.walk_packages(labkit.__path__, "labkit."):
        if info.name.rsplit(".", 1)[-1].startswith("_") or info.name == "labkit.__main__":
            continue
        module = importlib.import_module(info.name)
        yield info.name, module
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(value) or inspect.isclass(value):
                yield f"{info.name}.{name}", value
                if inspect.isclass(value):
                    for attr, member in vars(value).items():
                        if not attr.startswith("_") and inspect.isfunction(member):
                            yield f"{info.name}.{name}.{attr}", member


@pytest.mark.parametrize(("name", "obj"), list(_public_functions()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_public_api_is_documented(name, obj):
    """Every public module, class, function and method has a docstring."""
    assert inspect.getdoc(obj), f"{name} has no docstring"


def test_each_experiments_module_has_its_lesson_and_its_tests():
    """One experiments module per lesson: its notebook exists, and tests/test_<module>.py too."""
    from labkit.experiments.catalogue import LESSONS

    modules = {info.name for info in pkgutil.iter_modules(labkit.experiments.__path__)
               if not info.name.startswith("_") and info.name != "catalogue"}
    assert modules == set(LESSONS)
    for module, notebook in LESSONS.items():
        assert (ROOT / "notebooks" / notebook).exists(), notebook
        assert (ROOT / "tests" / f"test_{module}.py").exists(), module


def test_every_claim_names_its_lesson():
    """Every registered claim's experiment lives in a lesson's module."""
    from labkit.experiments import catalogue as claims
    from labkit.experiments.catalogue import lesson_of

    assert all(lesson_of(c) for c in claims.registered())


def test_the_claim_catalogue_is_in_step_with_the_registry():
    """docs/claims.md is exactly what the registry generates (regenerate it when a claim
    changes)."""
    from labkit.lessons import course

    assert (ROOT / "docs" / "claims.md").read_text(encoding="utf-8") == course.claims_markdown()


def test_the_catalogue_cites_the_source_documents_by_name():
    """Every claim in docs/claims.md names its source document in words, not only a file."""
    text = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    assert "BSON & ObjectId, part 2/3" in text
    assert "UUIDv7 vs UUIDv4" in text
    assert text.count("- Source: ") == len(labkit.registered())


def _markdown(notebook) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_each_lesson_opens_with_objectives_prerequisites_and_time(notebook):
    """A lesson's first cell states its objectives, prerequisites and time estimate."""
    opening = _markdown(notebook)[0]
    for heading in ("**Objectives.**", "**Prerequisites.**", "**Time.**"):
        assert heading in opening, heading


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_each_lesson_closes_with_key_points(notebook):
    """The lesson's last markdown cell holds its key points."""
    assert "## Key points" in _markdown(notebook)[-1]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_no_lesson_calls_the_server_directly_before_it_can_say_not_run(notebook):
    """Lessons reach MongoDB through labkit.check, on_server and start_lesson, which say
    "not run" without a server, never through a bare labkit.mongodb() that would raise."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and "labkit.mongodb()" in source:
            assert "except labkit.ServerUnavailable" in source, source


def test_the_lessons_readme_is_one_table_with_every_lesson():
    """notebooks/README.md has a single table, one row per notebook, each with its time."""
    lines = (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8").splitlines()
    blocks, inside = [], False
    for line in lines:
        if line.startswith("|") and not inside:
            blocks.append([])
        inside = line.startswith("|")
        if inside:
            blocks[-1].append(line)
    assert len(blocks) == 1
    rows = blocks[0][2:]
    assert sorted(r.split("|")[1].strip(" `") for r in rows) == [n.name for n in NOTEBOOKS]
    assert all(" min " in r for r in rows)


def test_the_lessons_readme_states_the_kits_default_n():
    """The README quotes the B-tree default the lessons use, not an old number."""
    from labkit.engines.btree import DEFAULT_N

    assert f"N = {DEFAULT_N:,} keys per kind" in (ROOT / "notebooks" / "README.md").read_text()
