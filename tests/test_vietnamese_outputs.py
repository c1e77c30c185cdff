"""The Vietnamese lessons run as a learner runs them (here: without a MongoDB server) and
show no sentence of labkit's English catalogue and no number grouped the English way
("1,700,000,000") in their outputs (issue 21, "The Vietnamese edition leaks English and
English numbers")."""

from __future__ import annotations

import functools
import html
import os
import re
from pathlib import Path

import polib
import pytest

from labkit.lessons import translate

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks" / "vi").glob("[0-9][0-9]_*.ipynb"))
ENGLISH_GROUPING = re.compile(r"\d(?:,\d{3})+(?!\d)")
PLACEHOLDER = re.compile(r"\{\w*\}")


def english_fragments() -> list[str]:
    """The English text of every translated catalogue message, split at its placeholders,
    keeping the pieces of three words or more: what a Vietnamese output must not contain."""
    fragments: set[str] = set()
    for entry in polib.pofile(str(translate.LABKIT_CATALOGUE)):
        if entry.obsolete or not entry.msgstr or entry.msgstr == entry.msgid:
            continue
        for piece in PLACEHOLDER.split(entry.msgid):
            piece = piece.strip(" .,:;()\u2014-")
            if len(re.findall(r"[A-Za-z]{2,}", piece)) >= 3 and piece not in entry.msgstr:
                fragments.add(piece)
    return sorted(fragments, key=len, reverse=True)


def english_in(text: str, fragments: list[str]) -> list[str]:
    """The fragments found in ``text``, each with a little context."""
    return [f"{piece!r} in …{text[max(0, i - 40):i + len(piece) + 40]}…"
            for piece in fragments if (i := text.find(piece)) >= 0]


def english_numbers_in(text: str) -> list[str]:
    """Numbers grouped with commas, each with a little context."""
    return [text[max(0, m.start() - 40):m.end() + 40] for m in ENGLISH_GROUPING.finditer(text)]


def _shown(output: dict) -> str:
    """What a learner reads in one output: a stream, a result's text or its HTML as text
    (images and the HTML tables' styles left out)."""
    if "text" in output:
        return "".join(output["text"])
    data = output.get("data", {})
    if "text/html" in data:
        page = "".join(data["text/html"])
        page = re.sub(r"<style.*?</style>", " ", page, flags=re.S)
        return html.unescape(re.sub(r"<[^>]+>", " ", page))
    if output.get("output_type") == "error":
        return f"{output['ename']}: {output['evalue']}"
    return "".join(data.get("text/plain", ""))


@functools.cache
def _executed(lesson: Path) -> list[str]:
    """Run a Vietnamese lesson top to bottom in a fresh kernel, with no MongoDB server (no
    URI, no mongod, no Docker here) and small B-tree loads; each code cell's outputs as text."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(lesson, as_version=4)
    environment = {"LABKIT_BTREE_N": "2000", "LABKIT_LANG": "",
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    saved = {key: os.environ.get(key) for key in environment}
    os.environ.update(environment)
    try:
        NotebookClient(notebook, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(lesson.parent)}}).execute()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return ["\n".join(_shown(o) for o in cell.get("outputs", []))
            for cell in notebook.cells if cell.cell_type == "code"]


def test_the_fragments_are_labkits_english():
    """The scan looks for real English sentences of the catalogue, and finds one in a line
    where it was left untranslated."""
    fragments = english_fragments()
    assert "the string is int32 length + 24 characters + NUL" in fragments
    assert english_in("quan sát: the string is int32 length + 24 characters + NUL", fragments)
    assert not english_in("chuỗi gồm độ dài int32 + 24 ký tự + NUL", fragments)


@pytest.mark.parametrize(("text", "found"), [
    ("1,700,000,000 giây", 1), ("Bộ đếm sau 16,777,215", 1), ("1.700.000.000 giây", 0),
    ("[1, 2, 3]", 0), ("69,6%", 0), ("đang nạp 200.000 khoá", 0),
])
def test_the_number_scan_finds_english_grouping_only(text, found):
    """Commas grouping thousands are found; a Vietnamese decimal comma and lists are not."""
    assert len(english_numbers_in(text)) == found


# Lesson 06's B-tree notes ("N = 2,000 keys per kind; the UUIDv4 index is …", written in
# labkit/experiments/btree_keys.py) and its own cell printing f"{N:,} keys per kind" are still
# English: they belong to the B-tree lesson's work. When they are translated this passes, and
# the strict xfail fails until the mark is removed.
PENDING = {"06_btree_keys": "lesson 06's B-tree notes and its N cell are not translated yet"}


@pytest.mark.slow
@pytest.mark.parametrize("lesson", [
    pytest.param(p, marks=pytest.mark.xfail(reason=PENDING[p.stem], strict=True))
    if p.stem in PENDING else p for p in LESSONS], ids=lambda p: p.stem)
def test_a_vietnamese_lesson_shows_no_english_sentence_or_english_number(lesson):
    """Every output of the lesson, run without a server, is free of labkit's English
    sentences and of English-grouped numbers; identifiers, commands and values may stay."""
    fragments = english_fragments()
    problems = []
    for index, text in enumerate(_executed(lesson)):
        problems += [f"code cell {index}: {hit}" for hit in english_in(text, fragments)]
        problems += [f"code cell {index}: number …{hit}…" for hit in english_numbers_in(text)]
    assert not problems, "\n".join(problems)
