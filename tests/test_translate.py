"""The Vietnamese edition's tooling: catalogues follow the English text, stale or missing
translations are caught, and a built lesson runs exactly the English lesson's code."""

from __future__ import annotations

import json

import polib
import pytest

import labkit
from labkit import i18n
from labkit.errors import BadInput
from labkit.lessons import translate


def _notebook(*cells: tuple[str, str]) -> dict:
    return {"cells": [{"cell_type": kind, "metadata": {}, "source": text,
                       **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                      for kind, text in cells],
            "metadata": {"labkit": {"needs": []}}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def layout(tmp_path):
    """A project with one English lesson: a title, a code cell, a paragraph."""
    (tmp_path / "notebooks").mkdir()
    lesson = _notebook(("markdown", "# 01 · Dates"), ("code", "import labkit\nx = 1"),
                       ("markdown", "A Date is 8 bytes."))
    (tmp_path / "notebooks" / "01_dates.ipynb").write_text(json.dumps(lesson))
    return translate.Layout(tmp_path)


def _translate_all(layout, lesson="01_dates"):
    path = layout.catalogues / f"{lesson}.po"
    catalogue = polib.pofile(str(path))
    for entry in catalogue:
        entry.msgstr = {"# 01 · Dates": "# 01 · Ngày tháng",
                        "A Date is 8 bytes.": "Một Date chiếm 8 byte."}.get(entry.msgid, "…")
    catalogue.save(str(path))


def test_update_adds_every_markdown_cell_untranslated(layout):
    """A new catalogue holds each markdown cell once, untranslated, and no code."""
    assert translate.update(layout) == {"01_dates": {"added": 2, "obsolete": 0}}
    catalogue = polib.pofile(str(layout.catalogues / "01_dates.po"))
    assert [e.msgid for e in catalogue] == ["# 01 · Dates", "A Date is 8 bytes."]
    assert all(e.msgstr == "" for e in catalogue)
    assert any("not translated" in p for p in translate.check(layout))


def test_build_refuses_an_untranslated_lesson(layout):
    """Building with a cell untranslated is one clear error naming the catalogue."""
    translate.update(layout)
    with pytest.raises(BadInput, match=r"2 cell\(s\) not translated in locale/vi/notebooks"):
        translate.build(layout)


def test_a_built_lesson_has_the_same_code_and_the_translated_text(layout):
    """The built lesson translates the prose, keeps every code cell, adds the language switch."""
    translate.update(layout)
    _translate_all(layout)
    (built_path,) = translate.build(layout)
    built = json.loads(built_path.read_text())
    assert translate.code_cells(built) == ["import labkit\nx = 1"]
    assert [c["source"] for c in built["cells"] if c["cell_type"] == "markdown"] == [
        ["# 01 · Ngày tháng"], ["Một Date chiếm 8 byte."]]
    switch = [c for c in built["cells"] if translate.LANGUAGE_TAG in c["metadata"].get("tags", [])]
    assert len(switch) == 1
    assert 'labkit.language("vi")' in "".join(switch[0]["source"])
    assert built["metadata"]["language"] == "vi"
    assert translate.check(layout) == []


def test_the_build_leaves_the_editions_own_index_alone(layout):
    """A build writes the lessons of notebooks/vi/ only: the edition's lesson index,
    notebooks/vi/README.md (written by hand, not built), keeps its text, and an English README
    beside the lessons is not taken for a lesson."""
    (layout.english / "README.md").write_text("# Lessons\n")
    layout.built.mkdir(parents=True)
    index = layout.built / "README.md"
    index.write_text("# Các bài học\n", encoding="utf-8")
    translate.update(layout)
    _translate_all(layout)
    assert translate.build(layout) == [layout.built / "01_dates.ipynb"]
    assert index.read_text(encoding="utf-8") == "# Các bài học\n"
    assert sorted(p.name for p in layout.built.iterdir()) == ["01_dates.ipynb", "README.md"]
    assert translate.check(layout) == []


def test_a_changed_english_cell_makes_its_translation_stale(layout):
    """When the English text changes, check says so until the catalogue and build catch up;
    the old translation is kept as obsolete for the translator."""
    translate.update(layout)
    _translate_all(layout)
    translate.build(layout)
    lesson = layout.english / "01_dates.ipynb"
    notebook = json.loads(lesson.read_text())
    notebook["cells"][2]["source"] = "A Date takes 8 bytes, always."
    lesson.write_text(json.dumps(notebook))
    problems = translate.check(layout)
    assert any("new or changed in English" in p for p in problems)
    assert translate.update(layout) == {"01_dates": {"added": 1, "obsolete": 1}}
    obsolete = [e for e in polib.pofile(str(layout.catalogues / "01_dates.po")) if e.obsolete]
    assert [e.msgstr for e in obsolete] == ["Một Date chiếm 8 byte."]


def test_a_built_lesson_that_runs_other_code_is_caught(layout):
    """Editing code in the Vietnamese lesson by hand is reported."""
    translate.update(layout)
    _translate_all(layout)
    (built_path,) = translate.build(layout)
    built = json.loads(built_path.read_text())
    next(c for c in built["cells"] if c["cell_type"] == "code"
         and translate.LANGUAGE_TAG not in c["metadata"].get("tags", []))["source"] = "x = 2"
    built_path.write_text(json.dumps(built))
    assert any("code differs" in p for p in translate.check(layout))


def test_fuzzy_translations_do_not_count(layout):
    """A translation flagged fuzzy (stale) is reported and not used."""
    translate.update(layout)
    _translate_all(layout)
    path = layout.catalogues / "01_dates.po"
    catalogue = polib.pofile(str(path))
    catalogue[0].flags.append("fuzzy")
    catalogue.save(str(path))
    assert any("fuzzy" in p for p in translate.check(layout))
    with pytest.raises(BadInput):
        translate.build_notebook(layout.english / "01_dates.ipynb", layout)


def test_language_switch_and_fallback(monkeypatch):
    """English by default; LABKIT_LANG or labkit.language picks Vietnamese; unknown codes are
    refused (the learner's ``labkit.language`` with ``BadInput``, ``i18n.language`` below it
    with ``ValueError``); a message with no translation stays English."""
    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.delenv("LABKIT_LANG", raising=False)
    assert i18n.language() == "en"
    monkeypatch.setenv("LABKIT_LANG", "vi_VN.UTF-8")
    assert i18n.language() == "vi"
    assert i18n._("a message nobody translated") == "a message nobody translated"
    with pytest.raises(BadInput, match="en, vi"):
        labkit.language("fr")
    with pytest.raises(ValueError, match="en, vi"):
        i18n.language("fr")
    assert labkit.language("EN") == "en"
    assert i18n.language(" vi ") == "vi"


def test_every_lesson_is_translated_and_the_vietnamese_edition_is_in_step():
    """Each English lesson has a complete, current catalogue, and notebooks/vi/ holds exactly
    what the build makes of it: same code, translated prose (python -m labkit.lessons.translate)."""
    assert translate.Layout().lessons(), "no lessons found"
    assert translate.check() == []


def test_the_glossary_links_each_term_to_lessons_that_exist():
    """notebooks/glossary.md points only at lessons that exist, in both editions."""
    import re

    text = (translate.ROOT / "notebooks" / "glossary.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+\.ipynb)\)", text)
    assert len(links) >= 40
    for link in links:
        assert (translate.ROOT / "notebooks" / link).resolve().exists(), link
    assert any(link.startswith("vi/") for link in links)


@pytest.fixture
def commented(tmp_path):
    """A lesson whose code cells hold comments (and a ``#`` inside a string, no comment)."""
    (tmp_path / "notebooks").mkdir()
    lesson = _notebook(("markdown", "# 06 · Keys"),
                       ("code", 'ctx = labkit.session()  # the kernel\'s loads\nx = "#1"'),
                       ("code", "labkit.claim('U5')  # it quotes both answers\n# untouched"))
    (tmp_path / "notebooks" / "06_keys.ipynb").write_text(json.dumps(lesson))
    return translate.Layout(tmp_path)


def test_code_comments_are_translated_and_the_code_is_not(commented):
    """A code cell's comments are messages of the lesson's catalogue (issue 32: the
    Vietnamese lessons' comments were English); the built cell runs the English code with the
    Vietnamese comment in its place, a comment left untranslated stays English and is no
    problem, and a change of code is still caught."""
    translate.update(commented)
    path = commented.catalogues / "06_keys.po"
    catalogue = polib.pofile(str(path))
    assert [e.msgid for e in catalogue] == ["# 06 · Keys", "the kernel's loads",
                                            "it quotes both answers", "untouched"]
    words = {"# 06 · Keys": "# 06 · Khoá", "the kernel's loads": "các lần nạp của kernel",
             "it quotes both answers": "thẻ này trích cả hai đáp án"}
    for entry in catalogue:
        entry.msgstr = words.get(entry.msgid, "")
    catalogue.save(str(path))
    (built_path,) = translate.build(commented)
    built = json.loads(built_path.read_text())
    assert translate.code_cells(built) == [
        'ctx = labkit.session()  # các lần nạp của kernel\nx = "#1"',
        "labkit.claim('U5')  # thẻ này trích cả hai đáp án\n# untouched"]
    assert translate.check(commented) == []
    cell = next(c for c in built["cells"] if c["cell_type"] == "code"
                and translate.LANGUAGE_TAG not in c["metadata"].get("tags", []))
    cell["source"] = 'ctx = labkit.session(1)  # các lần nạp của kernel\nx = "#1"'
    built_path.write_text(json.dumps(built))
    assert any("code differs" in p for p in translate.check(commented))
