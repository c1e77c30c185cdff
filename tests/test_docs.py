"""Docs are tested: every command and lesson is listed, the command line's reference is its
``--help``, every path the docs name is in the repository, every public function documented.

Run as a script from the checkout's root, it regenerates the ``--help`` blocks of docs/cli.md:

    python tests/test_docs.py
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import labkit
from labkit.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CLI_DOC = Path("docs") / "cli.md"  # relative: the generator writes under the folder it runs in
REGENERATE = "python tests/test_docs.py"


def _commands(parser, prefix="labkit"):
    for action in parser._actions:
        if hasattr(action, "choices") and isinstance(action.choices, dict):
            for name, sub in action.choices.items():
                nested = list(_commands(sub, f"{prefix} {name}"))
                yield from nested or [f"{prefix} {name}"]


def test_readme_says_what_labkit_is_and_for_whom_then_the_two_commands():
    """The README's first paragraph says what labkit is and who it is for (learners on their
    own, instructors, engineers checking a claim on their version); ``make run`` and ``make
    test`` follow within its first 20 lines."""
    lines = README.splitlines()
    first = "\n".join(lines[:lines.index("```sh")])
    assert first.startswith("# labkit\n\nlabkit is a Jupyter lab kit")
    for reader in ("learners", "instructors", "engineers checking a MongoDB behaviour claim"):
        assert reader in first, reader
    commands = [i for i, line in enumerate(lines) if line.startswith(("make run", "make test"))]
    assert [lines[i].split()[1] for i in commands[:2]] == ["run", "test"]
    assert commands[1] < 20


def test_the_readme_is_read_in_a_minute():
    """README.md stays within 200 lines; details go to docs/."""
    assert len(README.splitlines()) <= 200


def test_the_readme_shows_what_make_run_prints():
    """The README carries a sample of ``make run``'s output, saying where and when it was
    taken, with the summary line in the words every run prints."""
    sample = README.split("**What `make run` prints", 1)[1].split("```text\n", 1)
    assert re.search(r"Taken on \d{1,2} \w+ \d{4} on ", sample[0])
    assert "no MongoDB" in sample[0]
    assert re.search(r"^\d+ claims: \d+ hold, \d+ do not hold, \d+ findings, \d+ not run, "
                     r"\d+ error$", sample[1].split("```", 1)[0], re.M)


@pytest.mark.parametrize("command", sorted(_commands(build_parser())))
def test_every_cli_command_is_in_the_readme(command):
    """Each subcommand of ``labkit`` is named in README.md (docs/cli.md has its ``--help``)."""
    assert f"`{command}" in README


# The command line's reference: docs/cli.md's help blocks are --help ---------------------------

HELP_BLOCK = re.compile(r"(<!-- help: (labkit[^>]*?) -->\n```text\n)(.*?)(```)", re.S)


def _parsers(parser: argparse.ArgumentParser, prog: str = "labkit"):
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{prog} {name}")


def help_texts() -> dict[str, str]:
    """Each command's ``--help`` (the top level, every group and subcommand), as printed on a
    terminal 80 columns wide, so the file does not depend on the writer's window."""
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        return {prog: parser.format_help() for prog, parser in _parsers(build_parser())}
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def cli_markdown(text: str) -> str:
    """docs/cli.md with each ``<!-- help: labkit … -->`` block set to that command's ``--help``
    and a section appended for a command that has none; the prose stays as written."""
    helps = help_texts()
    named = [m.group(2) for m in HELP_BLOCK.finditer(text)]
    unknown = sorted(set(named) - set(helps))
    if unknown:
        raise SystemExit(f"docs/cli.md has help blocks for commands labkit does not have: "
                         f"{', '.join(unknown)}; remove their sections")
    text = HELP_BLOCK.sub(lambda m: m.group(1) + helps[m.group(2)] + m.group(4), text)
    for prog in helps:
        if prog not in named:
            text = text.rstrip("\n") + f"\n\n## {prog}\n\n<!-- help: {prog} -->\n```text\n" \
                f"{helps[prog]}```\n"
    return text


def _words(text: str) -> list[str]:
    """The text as words: argparse wraps help at the terminal's width, and its layout varies
    a little between Python versions; the words are what must not drift."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text).split()


def test_the_cli_reference_is_the_help():
    """docs/cli.md holds every command's ``--help`` (top level, groups and subcommands), each
    exactly as ``--help`` prints it word for word; a new option or a changed help string fails
    here until the blocks are regenerated."""
    text = (ROOT / CLI_DOC).read_text(encoding="utf-8")
    blocks = {m.group(2): m.group(3) for m in HELP_BLOCK.finditer(text)}
    helps = help_texts()
    assert sorted(blocks) == sorted(helps), f"regenerate docs/cli.md: {REGENERATE}"
    drifted = [prog for prog in helps if _words(blocks[prog]) != _words(helps[prog])]
    assert drifted == [], f"docs/cli.md differs from --help for {drifted}: {REGENERATE}"


def test_the_cli_reference_generator_keeps_the_prose():
    """Regenerating rewrites only the help blocks: the prose around them is kept, and a block
    already in step comes out as it went in."""
    text = (ROOT / CLI_DOC).read_text(encoding="utf-8")
    stale = HELP_BLOCK.sub(lambda m: m.group(1) + "stale\n" + m.group(4), text)
    again = cli_markdown(stale)
    assert HELP_BLOCK.sub("", again) == HELP_BLOCK.sub("", text)
    assert cli_markdown(again) == again
    assert "stale" not in again


# Paths and links: what the docs name is in the repository ----------------------------------------

DOCS = [ROOT / "README.md", *sorted((ROOT / "notebooks").glob("*.md")),
        *sorted((ROOT / "notebooks" / "vi").glob("*.md")), *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
# A code span names a file when it is a relative path: no spaces, no shell or URL characters,
# and a folder in it or a file's extension at its end.
PATHLIKE = re.compile(r"[\w.<>*…-][\w./<>*…-]*")
EXTENSION = re.compile(r"\.(md|py|ipynb|ya?ml|json|po|toml|txt|cfg|html|png|svg|xml|sh|js)$")
# Names the docs give that are not files of this repository, each with what it is instead.
NOT_IN_REPOSITORY = {
    "report.html": "a file each run writes under --out",
    "report.md": "a file each run writes under --out",
    "results.json": "a file each run writes under --out",
    "reports/<time>/": "the folder a run writes by default",
    "reports/check-<time>/": "the folder labkit check writes by default",
    "compare.html": "a file labkit compare writes under --out",
    "compare.md": "a file labkit compare writes under --out",
    "wheels/": "the folder `make wheels` makes for an offline room",
    "lab/tree/notebooks": "the address JupyterLab gives the notebooks folder (Binder opens it)",
    "mongodb/specifications": "the drivers' specifications repository on GitHub",
    "Asia/Ho_Chi_Minh": "a time zone's name",
}
# Folders of the MongoDB server's repository (mongodb/mongo), which the docs cite by path.
SERVER_REPOSITORY = ("src/mongo/", "src/third_party/", "jstests/")
SKIPPED_DIRS = {".git", ".venv", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".hypothesis",
                "__pycache__", "reports", "build", "dist", "node_modules"}


def _repository_files() -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        found += [Path(folder) / name for name in files]
    return found


FILES = _repository_files()


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    text = re.sub(r"`|\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.lstrip("#").strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {_slug(line) for line in text.splitlines() if line.startswith("#")}


def _exists(name: str, doc: Path) -> bool:
    pattern = re.sub(r"<[^>]*>|…", "*", name.rstrip("/"))
    for base in (doc.parent, ROOT, ROOT / "labkit"):  # labkit/: architecture.md names rooms
        if list(base.glob(pattern)) if pattern else base.exists():
            return True
    return "/" not in pattern and any(p.match(pattern) for p in FILES)


def _named_paths(doc: Path):
    text = FENCE.sub("", doc.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        if not re.match(r"[a-z]+:", target):
            yield "link", target
    for span in CODE.findall(text):
        if PATHLIKE.fullmatch(span) and ("/" in span or EXTENSION.search(span)) \
                and not span.startswith("/"):
            yield "path", span


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_and_link_the_docs_name_exists(doc):
    """Every relative link in the README, notebooks/README.md and docs/*.md leads to a file of
    the repository (and to a heading there when it names one), and every path in a code span
    is a file or folder of the repository (a pattern such as ``tests/test_<module>.py``
    matches one), unless it is listed, with what it is, as not a file of the repository."""
    missing = []
    for kind, name in _named_paths(doc):
        if name in NOT_IN_REPOSITORY or name.startswith(SERVER_REPOSITORY):
            continue
        if kind == "path":
            if not _exists(name, doc):
                missing.append(name)
            continue
        target, _, anchor = name.partition("#")
        path = (doc.parent / target).resolve() if target else doc
        if not path.exists() or (anchor and path.suffix == ".md" and anchor not in _anchors(path)):
            missing.append(name)
    assert missing == []


# The folder JupyterLab serves under ``make lab`` (its --notebook-dir): a link in a lesson or a
# page beside them opens only if it leads to a file inside it (/files/… is 404 above it).
LAB_ROOT = ROOT / "notebooks"
# JupyterLab's own copies (.ipynb_checkpoints/, made when a lesson is first opened) are no pages.
LAB_PAGES = [page for page in [*sorted(LAB_ROOT.glob("**/*.ipynb")),
                               *sorted(LAB_ROOT.glob("**/*.md"))]
             if ".ipynb_checkpoints" not in page.relative_to(LAB_ROOT).parts]


def _lab_links(page: Path) -> list[str]:
    """The relative links of a lesson's Markdown cells, or of a Markdown page."""
    import json

    if page.suffix == ".md":
        texts = [page.read_text(encoding="utf-8")]
    else:
        texts = ["".join(cell["source"])
                 for cell in json.loads(page.read_text(encoding="utf-8"))["cells"]
                 if cell["cell_type"] == "markdown"]
    return [target for text in texts for target in LINK.findall(FENCE.sub("", text))
            if not re.match(r"[a-z]+:", target) and not target.startswith("#")]


def _opens_under_lab(page: Path, target: str) -> bool:
    """Whether JupyterLab, rooted at ``LAB_ROOT``, opens ``target`` from ``page``: a file (a
    folder opens nothing) inside the root, and a heading there when it names one."""
    import posixpath

    path, _, anchor = target.partition("#")
    # JupyterLab resolves a link among its own paths, from the root down, never on the disk:
    # a path that climbs above the root is outside it, even one that comes back in.
    inside = posixpath.normpath(posixpath.join(page.parent.relative_to(LAB_ROOT).as_posix(),
                                               path))
    resolved = LAB_ROOT / inside
    return (not inside.startswith("..") and resolved.is_file()
            and not (anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved)))


def test_make_lab_roots_jupyterlab_at_the_lessons_folder():
    """``make lab`` serves notebooks/, the folder the link test below follows links from."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"jupyter lab --notebook-dir notebooks\b", makefile)


@pytest.mark.parametrize("page", LAB_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_of_a_lesson_opens_under_make_lab(page):
    """Every relative link in a lesson's Markdown cells (both editions: the Vietnamese build
    climbs one folder more) and in a page beside them (notebooks/README.md, the glossary, the
    hosted-server page) leads to a file inside notebooks/, where ``make lab`` roots JupyterLab:
    lesson 00 linked ``../docs/hosted.md``, which JupyterLab answered with a 404."""
    closed = [target for target in _lab_links(page) if not _opens_under_lab(page, target)]
    assert closed == []


@pytest.mark.parametrize(("target", "opens"), [
    ("hosted.md", True), ("vi/00_start_here.ipynb", True),
    ("hosted.md#the-user-labkit-needs", True), ("../docs/claims.md", False),
    ("../notebooks/hosted.md", False), ("vi/", False),
    ("no-such-page.md", False), ("hosted.md#no-such-heading", False)])
def test_the_link_check_sees_a_link_that_leaves_the_lab_root(target, opens):
    """A link above notebooks/ (even one that climbs back in), to a folder, to no file or to
    no heading does not open; a file inside it does."""
    assert _opens_under_lab(LAB_ROOT / "README.md", target) is opens


def test_the_exceptions_are_still_named_somewhere():
    """Each name kept out of the path check is still in the docs, so the list does not keep
    names nothing uses."""
    named = {name for doc in DOCS for _, name in _named_paths(doc)}
    assert set(NOT_IN_REPOSITORY) <= named, set(NOT_IN_REPOSITORY) - named


def test_the_path_check_sees_a_missing_file():
    """A link, a path and a bare file name that are not in the repository are each reported,
    and a pattern that matches a file is not."""
    doc = ROOT / "docs" / "cli.md"
    assert not _exists("docs/no-such-page.md", doc)
    assert not _exists("CLAIM" + "S.md", doc)
    assert _exists("tests/test_<module>.py", doc)
    assert _exists("claims/claim.py", doc)  # a room's module, as architecture.md names it
    assert _slug("## labkit's mark and its secret") == "labkits-mark-and-its-secret"


# Documents outside the repository: the project carries its facts in its own files.
OUTSIDE = re.compile(r"\b(?:CLAIMS|FACTS)\.md\b|\.\./shared\b")
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".json", ".toml", ".ipynb", ".po", ".txt",
                 ".cfg", ".ini", ".sh", ".html"}


def test_nothing_in_the_repository_names_a_document_outside_it():
    """No file of the repository points at the design notes kept outside it (the claim list,
    the fact sheet, the folder beside the checkout that holds them): a reader of the
    repository could not open them, so a fact is carried in the repository's own words, a
    claim by its ID and docs/claims.md."""
    here = Path(__file__).resolve()
    found = []
    for path in FILES:
        if path.resolve() == here or not (path.suffix in TEXT_SUFFIXES
                                          or path.name in {"Makefile", "start", "Dockerfile"}):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert found == []


# A repository's path written as a placeholder (OWNER/REPO, <owner>, {repo}): a link holding
# one cannot be opened.
PLACEHOLDER = re.compile(r"OWNER/REPO|[<{]\s*(?:owner|user|repo)\w*\s*[>}]", re.I)
URL = re.compile(r"https?://[^\s)\]\"'`]+")
BINDER_REPOSITORY = re.compile(r"mybinder\.org/v2/gh/([^/]+)/([^/?#]+)")


def placeholders(text: str) -> list[str]:
    """``OWNER/REPO`` wherever it stands, and the links that hold a placeholder: one above, or a
    Binder link whose owner and repository are capitals alone (``ME/KIT``)."""
    found = re.findall(r"\bOWNER/REPO\b", text)
    for url in URL.findall(text):
        binder = BINDER_REPOSITORY.search(url)
        if PLACEHOLDER.search(url.replace("OWNER/REPO", "")) or (
                binder and binder.group(1).isupper() and binder.group(2).isupper()):
            found.append(url)
    return found


@pytest.mark.parametrize("text", [
    "[![launch](x.svg)](https://mybinder.org/v2/gh/OWNER/REPO/HEAD?urlpath=lab/tree/notebooks)",
    "https://mybinder.org/v2/gh/<owner>/<repo>/HEAD",
    "https://mybinder.org/v2/gh/ME/KIT/HEAD",
])
def test_the_placeholder_rule_finds_a_placeholder_link(text):
    """The rule below finds the README's former badge and the placeholders like it."""
    assert placeholders(text)


def test_no_placeholder_link_ships():
    """No file of the repository carries a link to a placeholder repository (the Binder badge's
    ``OWNER/REPO`` was one): the README sends the Binder route to docs/classroom.md, which says
    how to make the link from the repository's own address."""
    here = Path(__file__).resolve()
    found = []
    for path in FILES:
        if path.resolve() == here or not (path.suffix in TEXT_SUFFIXES
                                          or path.name in {"Makefile", "start", "Dockerfile"}):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {p}" for p in placeholders(text)]
    assert found == []


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
    """One experiments module per lesson: its notebook exists, and its claims are tested, by
    tests/test_<module>.py or, for a lesson with no test file of its own, by
    tests/test_lesson_claims.py, which runs every claim of the lessons it names (never both)."""
    from helpers import LESSONS_RUN_WHOLE

    from labkit import syllabus

    lessons = {lesson.module: lesson.file for lesson in syllabus.LESSONS if lesson.module}
    modules = {info.name for info in pkgutil.iter_modules(labkit.experiments.__path__)
               if not info.name.startswith("_") and info.name != "catalogue"}
    assert modules == set(lessons)
    for module, notebook in lessons.items():
        assert (ROOT / "notebooks" / notebook).exists(), notebook
        own = (ROOT / "tests" / f"test_{module}.py").exists()
        assert own != (module in LESSONS_RUN_WHOLE), module


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
    """The lesson's last markdown cell before its closing quiz (labkit.lessons.recall, which
    follows everything else) holds its key points."""
    prose = [text for text in _markdown(notebook) if not text.startswith("## Quiz\n")]
    assert "## Key points" in prose[-1]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_no_lesson_calls_the_server_directly_before_it_can_say_not_run(notebook):
    """Lessons reach MongoDB through labkit.claim, on_server and start_lesson, which say
    "not run" without a server, never through a bare labkit.mongodb() that would raise."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and "labkit.mongodb()" in source:
            assert "except labkit.ServerUnavailable" in source, source


_VIEW_IMPORT = re.compile(r"from labkit\.lessons\.views import (\w+) as (\w+)")
_DOTTED_SPAN = re.compile(r"`(\w+)\.(\w+)(?:\([^`]*\))?`")


_BOTH_EDITIONS = [*NOTEBOOKS, *sorted((ROOT / "notebooks" / "vi").glob("0*.ipynb"))]


@pytest.mark.parametrize("notebook", _BOTH_EDITIONS,
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_prose_names_a_lessons_function_as_its_code_cells_do(notebook):
    """A code span in the prose that names one of the lesson's functions (`x.parse_user_id`)
    writes it under the name the notebook imported the lesson as (`lesson.parse_user_id`),
    never under a module the notebook never imports."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    (view, alias), = _VIEW_IMPORT.findall(code)
    names = set(importlib.import_module(f"labkit.lessons.views.{view}").__all__)
    stray = [f"{head}.{name}" for text in _markdown(notebook)
             for head, name in _DOTTED_SPAN.findall(text)
             if name in names and head not in {alias, "labkit"}]
    assert stray == []


def _tables(readme: Path) -> list[list[list[str]]]:
    """Each table of a Markdown page, as rows (header and rule left out) of stripped cells."""
    blocks, inside = [], False
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("|") and not inside:
            blocks.append([])
        inside = line.startswith("|")
        if inside:
            blocks[-1].append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return [block[2:] for block in blocks]


def test_the_lessons_readme_is_one_table_with_every_lesson():
    """notebooks/README.md has a single table, one row per notebook, each with its time."""
    tables = _tables(ROOT / "notebooks" / "README.md")
    assert len(tables) == 1
    rows = tables[0]
    assert sorted(r[0].strip("`") for r in rows) == [n.name for n in NOTEBOOKS]
    assert all(re.fullmatch(r"\d+ min", r[3]) for r in rows)


# A claim's ID (O3) or a range of them (D1–D3), as the lesson tables write them.
CLAIM_IDS = re.compile(r"\b[A-Z]\d+(?:–[A-Z]\d+)?\b")


def test_the_vietnamese_lesson_index_has_the_english_table():
    """notebooks/vi/README.md, the Vietnamese edition's index, has one table with the English
    index's rows in its order: the same notebook, claim IDs and minutes ("15 min", "15 phút")
    in each, and the lessons' B-tree default N written the Vietnamese way (200.000)."""
    from babel.numbers import format_decimal

    from labkit.engines.btree_engine import DEFAULT_N

    (english,) = _tables(ROOT / "notebooks" / "README.md")
    vietnamese_readme = ROOT / "notebooks" / "vi" / "README.md"
    (vietnamese,) = _tables(vietnamese_readme)
    assert [r[0] for r in vietnamese] == [r[0] for r in english]
    assert [CLAIM_IDS.findall(r[2]) for r in vietnamese] == \
        [CLAIM_IDS.findall(r[2]) for r in english]
    assert [r[3].replace(" phút", " min") for r in vietnamese] == [r[3] for r in english]
    assert all((ROOT / "notebooks" / "vi" / r[0].strip("`")).is_file() for r in vietnamese)
    n = format_decimal(DEFAULT_N, locale="vi")
    assert f"N = {n} khoá mỗi loại" in vietnamese_readme.read_text(encoding="utf-8")


def test_the_lessons_readme_states_the_kits_default_n():
    """The README quotes the B-tree default the lessons use, not an old number."""
    from labkit.engines.btree_engine import DEFAULT_N

    assert f"N = {DEFAULT_N:,} keys per kind" in (ROOT / "notebooks" / "README.md").read_text()


if __name__ == "__main__":  # python tests/test_docs.py: regenerate docs/cli.md's help blocks
    if not CLI_DOC.exists():
        sys.exit(f"{CLI_DOC} not found: run this from the checkout's root")
    CLI_DOC.write_text(cli_markdown(CLI_DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {CLI_DOC}")


@pytest.mark.parametrize("edition", ["", "vi"])
def test_each_lessons_time_is_the_syllabus_minutes(edition):
    """Each lesson's opening says its time ("**Time.** About 40 minutes", "Khoảng 40 phút")
    as labkit.syllabus gives it, and the index's row says the same: one number per lesson."""
    from labkit.syllabus import LESSONS

    (index,) = _tables(ROOT / "notebooks" / edition / "README.md")
    for lesson, row in zip(LESSONS, index, strict=True):
        cells = json.loads((ROOT / "notebooks" / edition / lesson.file).read_text("utf-8"))
        text = "".join("".join(c["source"]) for c in cells["cells"]
                       if c["cell_type"] == "markdown")
        said = re.search(r"(?:About|Khoảng) (\d+) (?:minutes|phút)", text)
        assert said, lesson.file
        assert int(said[1]) == lesson.minutes, lesson.file
        assert row[3] in (f"{lesson.minutes} min", f"{lesson.minutes} phút"), lesson.file
