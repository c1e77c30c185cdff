"""The Vietnamese lessons run as a learner runs them (here: without a MongoDB server): every
code cell runs without an error, and their outputs show no sentence of labkit's English
catalogue, no run of English function words ("not set", "wrote at") and no number grouped the
English way ("1,700,000,000") (issue 21, "The Vietnamese edition leaks English and English
numbers").

Nor do they show an identifier or an English word where a learner reads a label (issue 32,
"English and unformatted numbers left in the Vietnamese edition"): a card's question rows
(``string_range``, ``uuid7_fill``), a table's column headings (``process``, ``clock_ns``), and
the numbers of a card written the Vietnamese way (``0,875``, ``5.541.888``, not ``0.875`` or
``5541888``). The scan reads each lesson twice: as it is (nothing answered), and with every
exercise's answer revealed (``.reveal()`` where the lesson has ``.check(None)``), which shows the
cards and tables that wait for an exercise. Nor does any HTML output leave text for JupyterLab's
MathJax to read as mathematics (a query's ``$`` pairs are shown as typed).

This file is the Vietnamese edition's notebook test: each lesson runs in one fresh kernel, top
to bottom as it is and then again with its answers revealed, and both the test of each cell and
the scan of its outputs read that one run (nbval, which runs the English edition, does not
collect notebooks/vi: see the root conftest.py); the revealed pass is read by the scan alone.
The same run, as it is, counts each lesson's figures: every lesson shows one before any answer
is given.
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import polib
import pytest
from helpers import typeset_text

from labkit.lessons import translate

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks" / "vi").glob("[0-9][0-9]_*.ipynb"))
# Grouped the English way: a first group of one to three digits, never a lone 0 ("0,501" is a
# Vietnamese decimal), then groups of three after commas.
ENGLISH_GROUPING = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:,\d{3})+(?!\d)")
PLACEHOLDER = re.compile(r"\{\w*(?:[:!][^{}]*)?\}")  # a name, with its format spec if any

# English function words: two or more in a row of plain words is an English phrase, whatever
# labkit module or lesson cell printed it ("not set", "wrote at", "below 'made at'").
FUNCTION_WORDS = frozenset(["the", "of", "at", "below", "made", "wrote", "not", "set", "is",
                            "are", "with", "and", "from", "via", "no"])
# What is no word of a sentence: code in backticks, and a token holding a digit, an underscore,
# a dot, a slash, a dollar or an equals sign (a value, an identifier, a path, an operator).
CODE_SPAN = re.compile(r"`[^`]*`")
NOT_A_WORD = re.compile(r"[\d_./$=\\]")
TRIM = "\"'\u201c\u201d\u2018\u2019()[]{}<>,;:!?\u2026*"  # quotes, brackets, punctuation
# Values that are English in every edition, each with why: a Python exception's message quoted
# as an engine's answer (lesson 07 shows what the fakes raise).
ALLOWED = [re.compile(r"\b[A-Z]\w*(?:Error|Exception|Failure): [^\n]*")]


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


def english_phrases_in(text: str) -> list[str]:
    """Runs of two or more English function words among plain words (outside code spans,
    identifiers, paths and values, and the allowed English values), each with a little
    context."""
    for allowed in ALLOWED:
        text = allowed.sub(" ", text)
    text = CODE_SPAN.sub(" ", text)
    found, run = [], []
    for match in re.finditer(r"\S+", text):
        word = match.group().strip(TRIM + ".")
        if word.lower() in FUNCTION_WORDS and not NOT_A_WORD.search(word):
            run.append(match)
            continue
        if len(run) >= 2:
            found.append(text[max(0, run[0].start() - 40):run[-1].end() + 40])
        run = []
    if len(run) >= 2:
        found.append(text[max(0, run[0].start() - 40):run[-1].end() + 40])
    return found


def english_numbers_in(text: str) -> list[str]:
    """Numbers grouped with commas, each with a little context."""
    return [text[max(0, m.start() - 40):m.end() + 40] for m in ENGLISH_GROUPING.finditer(text)]


# A label that is an identifier: lowercase words joined by underscores (string_range, clock_ns).
IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
# A label of plain lowercase ASCII words (process, leaf pages): English unless it is one of the
# terms the Vietnamese edition keeps as they are, each with why.
ASCII_WORDS = re.compile(r"[a-z][a-z0-9]{2,}(?: [a-z0-9]+)*")
KEPT = frozenset([
    # BSON type names, as the server's $type and the census print them (lesson 03's tables).
    "int", "long", "double", "decimal", "string", "date", "bool", "null", "array", "object",
    # Key kinds, named as labkit's B-tree loads name them (lesson 06's tables).
    "uuid4", "uuid7", "objectid",
    # Terms the glossary keeps in Vietnamese (notebooks/glossary.md): ObjectId's timestamp, hex,
    # engine.
    "timestamp", "hex", "engine",
])
# What a learner reads as a label: a card's question rows, a table's headings, and the rows of
# a table indexed by question or field (the headings "câu hỏi", "trường").
CARD_ROW = re.compile(r"<th style='text-align:left'[^>]*>(.*?)</th>", re.S)
TABLE = re.compile(r"<table.*?</table>", re.S)
HEAD = re.compile(r"<thead>(.*?)</thead>", re.S)
CELL = re.compile(r"<t[hd][^>]*>(.*?)</t[hd]>", re.S)
ROW_HEAD = re.compile(r"<tr>\s*<th>(.*?)</th>", re.S)
CARD_VALUE = re.compile(r"<td><code>(.*?)</code></td>", re.S)
# A number written the English way in a card's value: a decimal point (after a 0, or before
# other than three digits: "430.080" is a Vietnamese 430 080, "0.875" and "1.0" English), or
# five digits or more ungrouped (outside quoted strings, and not part of a word, a version, a
# time or a hex; a number never starts with a 0, a hex such as "003039" may).
ENGLISH_DECIMAL = re.compile(r"(?<![\w.:])-?(?:0\.\d+|\d+\.(?:\d{1,2}|\d{4,}))(?![\w.:])")
UNGROUPED = re.compile(r"(?<![\w.:,-])[1-9]\d{4,}(?![\w.:])")
QUOTED = re.compile(r'"[^"]*"')


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment)).strip()


def labels_in(page: str) -> list[str]:
    """Every label a learner reads in an output's HTML: its cards' question rows, its tables'
    headings, and the row headings of its tables indexed by question or field."""
    found = [_text(m) for m in CARD_ROW.findall(page)]
    for table in TABLE.findall(page):
        head = HEAD.search(table)
        if head is None:
            continue
        headings = [_text(cell) for cell in CELL.findall(head.group(1))]
        found += headings
        if {"câu hỏi", "trường"} & set(headings):
            found += [_text(cell) for cell in ROW_HEAD.findall(table[head.end():])]
    return [label for label in found if label]


def english_labels_in(page: str) -> list[str]:
    """The labels of an output that are identifiers or plain English words."""
    return [label for label in labels_in(page) if IDENTIFIER.fullmatch(label)
            or (ASCII_WORDS.fullmatch(label) and label not in KEPT)]


def card_values_in(page: str) -> list[str]:
    """The values of an output's cards and of its tables indexed by question."""
    found = [_text(m) for m in CARD_VALUE.findall(page)]
    for table in TABLE.findall(page):
        head = HEAD.search(table)
        if head is not None and "câu hỏi" in _text(head.group(1)):
            found += [_text(cell) for cell in re.findall(r"<td>(.*?)</td>", table, re.S)]
    return found


def english_card_numbers_in(page: str) -> list[str]:
    """Card values holding a number written the English way ("0.875", "5541888")."""
    return [value for value in card_values_in(page)
            if ENGLISH_DECIMAL.search(QUOTED.sub('""', value))
            or UNGROUPED.search(QUOTED.sub('""', value))]


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


ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class Ran:
    """One code cell of a lesson's run: its source, what it showed as text, and its error (the
    exception with its traceback, or why it did not run), empty when it ran cleanly."""

    source: str
    shown: str
    error: str
    html: str = ""
    pages: tuple[str, ...] = ()  # each HTML output, as a notebook gets it
    figures: int = 0  # the images (image/png) it displayed


def _code_cells(lesson: Path) -> list[dict]:
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    return [cell for cell in cells if cell["cell_type"] == "code"]


def _error(cell, stopped: str) -> str:
    """What went wrong in an executed cell: its exceptions with their tracebacks; or, for a
    cell with code that never ran (a cell before it timed out or killed the kernel), why."""
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if errors:
        return "\n".join(ANSI.sub("", "\n".join(o.get("traceback", []))) or
                         f"{o['ename']}: {o['evalue']}" for o in errors)
    if cell.get("execution_count") is None and cell.source.strip():
        return f"it did not run: {stopped or 'the run skipped it'}"
    return ""


UNANSWERED = re.compile(r"\.check\(None\)\s*$")


def _revealed(source: str) -> str:
    """A code cell as a learner who clicks through the answers runs it: ``.reveal()`` where the
    lesson leaves an exercise unanswered (``.check(None)``)."""
    return UNANSWERED.sub(".reveal()", source)


@functools.cache
def _executed(lesson: Path, kernel_manager: type) -> dict[bool, tuple[Ran, ...]]:
    """Run a Vietnamese lesson in a fresh kernel, as nbval runs a lesson (every cell in order,
    an error in one not stopping the next), with no MongoDB server (no URI, no mongod, no
    Docker here) and the suite's B-tree size (``LABKIT_BTREE_N``, which the root conftest.py
    sets for the English edition's kernels too): top to bottom as it is, then top to bottom
    again in the same kernel with each exercise's answer revealed (``_revealed``), as a
    learner who runs the lesson through and then again clicking through the answers. Each
    code cell as it ran, by pass: ``{False: as it is, True: revealed}``. (The second pass
    reads the session's B-tree loads the first one made, instead of a second kernel making
    them again; a revealed pass in a kernel of its own showed the same outputs.) The kernel is
    ``kernel_manager``'s, the suite's (root conftest.py), as nbval's are."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(lesson, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    again = [nbformat.v4.new_code_cell(_revealed(cell.source)) for cell in code]
    notebook.cells = code + again
    scratch = Path(tempfile.mkdtemp(prefix="labkit-vi-"))
    progress = scratch / "progress.json"
    environment = {"LABKIT_LANG": "", "LABKIT_PROGRESS": str(progress),
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    saved = {key: os.environ.get(key) for key in environment}
    os.environ.update(environment)
    stopped = ""
    try:
        NotebookClient(notebook, km=kernel_manager(kernel_name="python3"), timeout=600,
                       allow_errors=True,
                       resources={"metadata": {"path": str(lesson.parent)}}).execute()
    except Exception as exc:  # a cell timed out or the kernel died: the later cells did not run
        stopped = f"{type(exc).__name__}: {exc}"
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(scratch, ignore_errors=True)
    ran = tuple(Ran(cell.source, "\n".join(_shown(o) for o in cell.get("outputs", [])),
                    _error(cell, stopped),
                    "\n".join("".join(o.get("data", {}).get("text/html", ""))
                              for o in cell.get("outputs", [])),
                    tuple("".join(o["data"]["text/html"]) for o in cell.get("outputs", [])
                          if "text/html" in o.get("data", {})),
                    sum("image/png" in o.get("data", {}) for o in cell.get("outputs", [])))
                for cell in notebook.cells)
    return {False: ran[:len(code)], True: ran[len(code):]}


# Each test of a lesson has an id starting with the lesson's stem: the root conftest.py keeps a
# lesson's tests on one worker by it, which runs the lesson once for all of them.
CELLS = [pytest.param(lesson, index, id=f"{lesson.stem}-code cell {index}")
         for lesson in LESSONS for index in range(len(_code_cells(lesson)))]


def test_the_fragments_are_labkits_english():
    """The scan looks for real English sentences of the catalogue, and finds one in a line
    where it was left untranslated."""
    fragments = english_fragments()
    assert "the string is int32 length + 24 characters + NUL" in fragments
    assert english_in("quan sát: the string is int32 length + 24 characters + NUL", fragments)
    assert not english_in("chuỗi gồm độ dài int32 + 24 ký tự + NUL", fragments)


@pytest.mark.parametrize(("text", "found"), [
    ("1,700,000,000 giây", 1), ("Bộ đếm sau 16,777,215", 1), ("1.700.000.000 giây", 0),
    ("[1, 2, 3]", 0), ("69,6%", 0), ("đang nạp 200.000 khoá", 0), ("0,501", 0),
    ("-0,277", 0),
])
def test_the_number_scan_finds_english_grouping_only(text, found):
    """Commas grouping thousands are found; a Vietnamese decimal comma and lists are not."""
    assert len(english_numbers_in(text)) == found


@pytest.mark.parametrize("text", [
    # Lines today's main showed in the Vietnamese lessons 00, 04 and 05 (run without a server).
    "[FAIL] MongoDB via LABKIT_MONGODB_URI: not set",
    "  - local mongod: LABKIT_MONGOD is not set and there is no mongod on PATH",
    "labkit đã thử:  No MongoDB server is available (tried LABKIT_MONGODB_URI: not set; …",
    "made at    : 6ac6dd0026efa55337f0a8c7",
    "IDs of that second below 'made at': 0 of 8",
    "B wrote at 1700000001 -> ID 6553f0ffeeeeeeeeee000000 2023-11-14T22:13:19Z",
    "Docker: no Docker daemon answered. It is not set.",
])
def test_the_phrase_scan_finds_english_left_in_a_vietnamese_output(text):
    """A run of English function words is found, whichever module or cell printed it."""
    assert english_phrases_in(text)


@pytest.mark.parametrize("text", [
    "[CHƯA ĐẠT] MongoDB qua LABKIT_MONGODB_URI: chưa đặt",
    "TypeError: 'NoneType' object is not callable",
    "chạy `is not set` trong shell", "đường dẫn /srv/set/the/data", "is_not_set", "$not $and",
    "1. MinKey  14. JavaScript with scope", "B ghi lúc 2023-11-14T22:13:21Z",
    "made_at.is set_at",
])
def test_the_phrase_scan_leaves_vietnamese_code_and_values(text):
    """Vietnamese, code spans, identifiers, paths, operators, a lone English word in a name,
    and a quoted exception's message are not flagged."""
    assert not english_phrases_in(text)


CARD = ("<table><tr><th>câu hỏi</th><th>mong đợi</th><th>quan sát được</th></tr>"
        "<tr><th style='text-align:left' title='{key}'>{label}</th><td><code>{value}</code>"
        "</td><td><code></code></td></tr></table>")
FRAME = ("<table border='0' class='dataframe'><thead><tr style='text-align: right;'><th></th>"
         "{heads}</tr></thead><tbody><tr><th>0</th><td>P3</td></tr></tbody></table>")


@pytest.mark.parametrize(("page", "found"), [
    # What issue 32 found in the Vietnamese lessons 01, 03, 05 and 06.
    (CARD.format(key="string_range", label="string_range", value="[1]"), ["string_range"]),
    (CARD.format(key="part", label="part", value="size"), ["part"]),
    (FRAME.format(heads="<th>process</th><th>hex</th><th>clock_ns</th>"),
     ["process", "clock_ns"]),
    (CARD.format(key="string_range", label="khoảng trên trường chuỗi", value="[1]"), []),
    (CARD.format(key="eq", label="$eq", value="[1]"), []),
    (FRAME.format(heads="<th>tiến trình</th><th>hex</th><th>kiểu của v</th><th>userId</th>"),
     []),
])
def test_the_label_scan_finds_identifiers_and_english_words(page, found):
    """A card row or a heading that is an identifier or an English word is found; Vietnamese
    labels, operators, field names and the kept terms are not."""
    assert english_labels_in(page) == found


@pytest.mark.parametrize(("value", "found"), [
    ("0.875", 1), ("-0.281", 1), ("[0.9, 1.0]", 1), ("5541888", 1),
    ("0,875", 0), ("[0,9; 1]", 0), ("5.541.888", 0), ("430.080", 0), ("65.3", 1),
    ('"00000000"', 0), ("003039", 0),
    ("2026-10-01T00:00:00.000Z", 0),
    ('["dbl9.5", "int10"]', 0), ("pymongo 4.20.1", 0), ("[1, 2, 3]", 0),
])
def test_the_card_number_scan_finds_english_numbers(value, found):
    """A card value with an English decimal or an ungrouped long number is found; Vietnamese
    numbers, quoted strings, times and versions are not."""
    assert len(english_card_numbers_in(CARD.format(key="k", label="k", value=value))) == found


@pytest.mark.parametrize(("lesson", "index"), CELLS)
def test_every_cell_of_a_vietnamese_lesson_runs(lesson, index, kernel_manager):
    """Code cell ``index`` of the Vietnamese lesson, run in order in the lesson's one kernel,
    raises no error; and, as nbval checks, a cell the notebook records as never run carries
    no outputs (one test per code cell, as nbval had for this edition)."""
    stored = _code_cells(lesson)[index]
    ran = _executed(lesson, kernel_manager)[False][index]
    where = f"{lesson.relative_to(ROOT)}, code cell {index}"
    assert not (stored.get("execution_count") is None and stored.get("outputs")), (
        f"{where}: a cell never run carries outputs (commit the lesson without outputs)")
    assert not ran.error, f"{where} failed:\n{ran.source}\n---\n{ran.error}"


@pytest.mark.slow
@pytest.mark.parametrize("revealed", [False, True], ids=["as it is", "answers revealed"])
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_vietnamese_lesson_shows_no_english_sentence_or_english_number(lesson, revealed,
                                                                         kernel_manager):
    """Every output of the lesson, run without a server from top to bottom with no error (as
    it is, and with its answers revealed), is free of labkit's English sentences, of runs of
    English function words and of English-grouped numbers; its labels (card rows, table
    headings) are neither identifiers nor English words, and its cards' numbers are written
    the Vietnamese way. Identifiers, commands and values may stay where they are values."""
    ran = _executed(lesson, kernel_manager)[revealed]
    failed = [f"code cell {index}" for index, cell in enumerate(ran) if cell.error]
    assert not failed, f"the lesson did not run through: {', '.join(failed)} failed"
    fragments = english_fragments()
    problems = []
    for index, cell in enumerate(ran):
        text = cell.shown
        problems += [f"code cell {index}: {hit}" for hit in english_in(text, fragments)]
        problems += [f"code cell {index}: English …{hit}…" for hit in english_phrases_in(text)]
        problems += [f"code cell {index}: number …{hit}…" for hit in english_numbers_in(text)]
        problems += [f"code cell {index}: label {hit!r}" for hit in english_labels_in(cell.html)]
        problems += [f"code cell {index}: card number {hit!r}"
                     for hit in english_card_numbers_in(cell.html)]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("revealed", [False, True], ids=["as it is", "answers revealed"])
@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_no_output_of_a_lesson_is_read_as_mathematics(lesson, revealed, kernel_manager):
    """Every HTML output of the lesson (cards, feedback, notes, tables, labkit's and pandas'),
    as it is and with its answers revealed, leaves no text outside the elements JupyterLab's
    MathJax skips: a question's ``$expr {$gt: ['$userId', 0]}`` is shown as typed. (The English
    edition's outputs are drawn by the same code in other words.)"""
    ran = _executed(lesson, kernel_manager)[revealed]
    assert any(cell.pages for cell in ran), "the lesson showed no HTML output"
    read = [f"code cell {index}: {text!r}" for index, cell in enumerate(ran)
            for page in cell.pages for text in typeset_text(page)]
    assert not read, "read by MathJax:\n" + "\n".join(read)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_run_with_no_answer_shows_a_figure(lesson, kernel_manager):
    """Every lesson, run top to bottom without a server and with no exercise answered, shows at
    least one figure (an image/png output): a picture that teaches before any answer is given,
    where lessons 00, 01, 03 and 07 showed none and 02's and 05's waited for an answer. The
    Vietnamese edition is built from the English one, cell for cell, so the count is both's."""
    ran = _executed(lesson, kernel_manager)[False]
    assert sum(cell.figures for cell in ran) >= 1, [cell.source for cell in ran]


def test_every_question_of_every_claim_has_a_label():
    """Each key of a claim's expectation, and of the model's prediction where a claim has one,
    is labelled in words (``labkit.claims.labels``), so that no card row shows an identifier
    for a claim added later; each label is in labkit's catalogue."""
    from labkit.claims.labels import LABELS
    from labkit.experiments.catalogue import registered

    missing = []
    for item in registered():
        keys = list(item.expected) if isinstance(item.expected, dict) else []
        predicted = item.predict() if item.predict is not None else None
        keys += list(predicted) if isinstance(predicted, dict) else []
        missing += [f"{item.id}.{key}" for key in keys if key not in LABELS]
    assert missing == []
    catalogue = {entry.msgid for entry in polib.pofile(str(translate.LABKIT_CATALOGUE))}
    assert sorted(set(LABELS.values()) - catalogue) == []


REPORT_HEADING = re.compile(r"<th[^>]*>(.*?)</th>", re.S)
REPORT_ROW = re.compile(r"<td class='e'[^>]*>(.*?)</td>", re.S)


def report_labels_in(page: str) -> list[str]:
    """The headings of a report's tables and the rows of its expected-beside-observed tables
    that are identifiers or plain English words (an engine's own statistics, such as "cache:
    in-memory page splits", keep the engine's names and are not plain words)."""
    found = [_text(m) for m in REPORT_HEADING.findall(page) + REPORT_ROW.findall(page)]
    return [label for label in found if IDENTIFIER.fullmatch(label)
            or (ASCII_WORDS.fullmatch(label) and label not in KEPT)]


@pytest.mark.slow
def test_the_vietnamese_report_labels_its_tables_in_vietnamese(tmp_path, monkeypatch,
                                                                 nothing_available):
    """``LABKIT_LANG=vi labkit run``'s report.html: the evidence tables' headings and the rows
    beside the expectation are Vietnamese labels (they were ``keys``, ``leaf pages``,
    ``sequential fill``), and an evidence table wraps its headings and long values instead of
    running off the page (issue 32: "the report's evidence tables have English headers and
    overflow the page")."""
    from labkit import i18n
    from labkit.cli import main

    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.setenv("LABKIT_LANG", "vi")
    out = tmp_path / "report"
    assert main(["run", "--claims", "O1,O6,U4", "--btree-n", "2000", "--out", str(out),
                 "--quiet"]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<table" in page
    assert report_labels_in(page) == []
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    assert "nowrap" not in "".join(re.findall(r"\.ev [^{]*\{[^}]*\}", style))
    assert "<wbr>" in page  # a long clock or date may break on a projector


@pytest.mark.parametrize(("page", "found"), [
    ("<tr><th title='keys'>keys</th><th>leaf pages</th></tr>", ["keys", "leaf pages"]),
    ("<tr><td class='e' title='uuid7_fill'>uuid7 fill</td></tr>", ["uuid7 fill"]),
    ("<tr><td class='e' title='uuid7_fill'>tỷ lệ lấp đầy với khoá UUIDv7</td></tr>", []),
    ("<tr><th>cache: in-memory page splits</th><th>N</th><th>hex</th></tr>", []),
])
def test_the_report_scan_finds_english_headings(page, found):
    """The report scan finds English headings and rows, and leaves Vietnamese ones, an
    engine's statistics and the kept terms."""
    assert report_labels_in(page) == found


def test_the_vietnamese_lesson_00_names_doctors_lines_as_doctor_prints_them():
    """Vietnamese lesson 00 names the ways to a server by the words ``labkit.doctor()`` prints
    in Vietnamese ("MongoDB qua …"), not by the English ones ("MongoDB via …")."""
    from labkit import i18n
    from labkit.run import doctor

    cells = json.loads((ROOT / "notebooks" / "vi" / "00_start_here.ipynb")
                       .read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    before = i18n.language()
    i18n.language("vi")
    try:
        ways = [i18n._(way) for way in (doctor.URI_WAY, doctor.LOCAL_WAY, doctor.DOCKER_WAY)]
    finally:
        i18n.language(before)
    prefix = ways[0].split(" LABKIT_MONGODB_URI")[0]  # "MongoDB qua"
    assert all(way.startswith(f"{prefix} ") for way in ways)
    assert f"`{prefix} \u2026`" in text
    assert f"`[OK]   {ways[0]}`" in text
