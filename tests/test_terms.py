"""One term, one spelling: the preferred Vietnamese terms of notebooks/glossary.md ("Preferred
terms") hold in labkit's catalogue, the lessons' catalogues (outside code) and the docs'
Vietnamese parts (issue 21, "One term, one spelling"; seed 003 for the B-tree words)."""

from __future__ import annotations

import re
from pathlib import Path

import polib
import pytest

from labkit.lessons import translate

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "notebooks" / "glossary.md"
# A letter only Vietnamese writes: a line (or table cell) holding one is Vietnamese text.
VIETNAMESE = re.compile("[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.I)
# Code and format placeholders ("{index}" is a name the program fills in, not a word).
CODE = re.compile(r"```.*?```|`[^`\n]*`|\{\w+(?:[.:!][^}]*)?\}", re.S)


def preferred_terms() -> list[tuple[str, str]]:
    """The glossary's "Preferred terms" table: ``(preferred, variant)`` pairs."""
    text = GLOSSARY.read_text(encoding="utf-8")
    section = text.split("## Preferred terms", 1)[1]
    pairs = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2 and not set(cells[0]) <= set("-") \
                and not cells[0].startswith("preferred"):
            pairs += [(cells[0], variant.strip()) for variant in cells[1].split(",")]
    return pairs


def variants_in(text: str, terms: list[tuple[str, str]]) -> list[str]:
    """Each non-preferred variant in ``text`` (code left out, a gloss "chỉ mục (index)"
    allowed), with a little context."""
    prose = CODE.sub(" ", text)
    found = []
    for preferred, variant in terms:
        shown = prose.replace(f"{preferred} ({variant})", preferred)
        # Not inside an identifier: no letter, digit, _, ., $, / or - on either side.
        pattern = rf"(?<![\w.$/-]){re.escape(variant)}(?![\w(/-])"
        for match in re.finditer(pattern, shown, re.I):
            found.append(f"{variant!r} in …{shown[max(0, match.start() - 30):match.end() + 30]}…")
    return found


def _msgstrs(path: Path) -> list[str]:
    return [e.msgstr for e in polib.pofile(str(path)) if e.msgstr and not e.obsolete]


def _docs_vietnamese() -> list[tuple[str, str]]:
    """The docs' Vietnamese parts: table cells and sentences holding a Vietnamese letter,
    outside the glossary's own table of variants."""
    parts = []
    for path in [ROOT / "README.md", ROOT / "notebooks" / "README.md",
                 ROOT / "notebooks" / "vi" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        if path == GLOSSARY:
            text = text.split("## Preferred terms", 1)[0]
        for line in text.splitlines():
            pieces = line.strip("|").split("|") if line.startswith("|") else \
                re.split(r"(?<=[.:;])\s+", line)
            parts += [(path.name, piece) for piece in pieces if VIETNAMESE.search(piece)]
    return parts


def test_the_glossary_names_the_preferred_terms_of_issue_21():
    """The table is read, and holds the four decisions: khoá, chỉ mục, tỷ lệ lấp đầy and the
    manual's statements said in Vietnamese."""
    terms = dict((variant, preferred) for preferred, variant in preferred_terms())
    assert terms["khóa"] == "khoá"
    assert terms["index"] == "chỉ mục"
    assert terms["độ đầy"] == "tỷ lệ lấp đầy"
    assert terms["manual khẳng định"].startswith("tài liệu (manual)")


@pytest.mark.parametrize(("text", "found"), [
    ("một khóa mới", 1), ("Khóa ngẫu nhiên", 1), ("làm index lớn hơn", 1),
    ("chỉ mục (index) của MongoDB", 0), ("đọc `index_bytes` và `.index`", 0),
    ("kích thước chỉ mục", 0), ("cột index_bytes", 0), ("giữ được độ đầy bao nhiêu", 1),
    ("chỉ mục ({index} byte)", 0), ("{index:,} index", 1),
])
def test_the_scan_finds_variants_in_prose_and_leaves_code_alone(text, found):
    """A variant in prose is found; one in code, an identifier or a gloss is not."""
    assert len(variants_in(text, preferred_terms())) == found


def test_labkits_own_words_use_the_preferred_terms():
    """labkit/locale/vi/labkit.po's translations write no variant."""
    terms = preferred_terms()
    found = [hit for text in _msgstrs(translate.LABKIT_CATALOGUE)
             for hit in variants_in(text, terms)]
    assert not found, found


@pytest.mark.parametrize("catalogue", sorted(
    (ROOT / "locale" / "vi" / "notebooks").glob("*.po")), ids=lambda p: p.stem)
def test_each_lessons_vietnamese_prose_uses_the_preferred_terms(catalogue):
    """A lesson's translations write no variant outside code."""
    terms = preferred_terms()
    found = [hit for text in _msgstrs(catalogue) for hit in variants_in(text, terms)]
    assert not found, found


def test_the_docs_vietnamese_parts_use_the_preferred_terms():
    """README, notebooks/README, the Vietnamese index (notebooks/vi/README.md) and docs/*.md:
    no variant in a Vietnamese sentence or cell."""
    terms = preferred_terms()
    found = [f"{name}: {hit}" for name, text in _docs_vietnamese()
             for hit in variants_in(text, terms)]
    assert not found, found


# "tài liệu" is a source text only: the source document the claims come from (tài liệu gốc),
# MongoDB's manual (tài liệu (manual), tài liệu hướng dẫn) or what is written in its
# documentation (trong tài liệu). A MongoDB document is "document", as the lessons write it.
_SOURCE_TEXT = re.compile(r"tài liệu(?= gốc| \(manual\)| hướng dẫn)|(?<=trong )tài liệu", re.I)


def documents_called_tai_lieu(text: str) -> list[str]:
    """Each "tài liệu" in ``text``'s prose that does not name a source text, with context."""
    prose = CODE.sub(" ", text)
    return [f"…{prose[max(0, m.start() - 30):m.end() + 30]}…"
            for m in re.finditer("tài liệu", prose, re.I)
            if not _SOURCE_TEXT.match(prose, m.start())
            and not _SOURCE_TEXT.search(prose[max(0, m.start() - 6):m.end()])]


@pytest.mark.parametrize(("text", "found"), [
    ("Số tài liệu trả về: 3", 1), ("giấu mất tài liệu", 1), ("kết quả tài liệu gốc ghi lại", 0),
    ("tài liệu (manual) của MongoDB khẳng định", 0),
    ("các quy tắc có trong tài liệu của MongoDB", 0),
    ("tài liệu hướng dẫn (manual)", 0), ("Số document trả về", 0),
])
def test_the_scan_tells_a_mongodb_document_from_a_source_text(text, found):
    """"tài liệu" for a MongoDB document is found; for the source, the manual or the
    documentation it is not."""
    assert len(documents_called_tai_lieu(text)) == found


@pytest.mark.parametrize("catalogue", [translate.LABKIT_CATALOGUE, *sorted(
    (ROOT / "locale" / "vi" / "notebooks").glob("*.po"))], ids=lambda p: p.stem)
def test_a_mongodb_document_is_document_in_vietnamese(catalogue):
    """labkit said "Số tài liệu trả về", "tài liệu này" and "giấu mất tài liệu" where the
    lessons say "document": a MongoDB document is "document" in every catalogue, "tài liệu"
    only the source text a claim comes from or MongoDB's manual."""
    found = [hit for text in _msgstrs(catalogue) for hit in documents_called_tai_lieu(text)]
    assert not found, found
