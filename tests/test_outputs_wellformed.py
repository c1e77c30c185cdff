"""Outputs stay well-formed whatever a claim says: `labkit check` on claim files with hostile
ids and titles writes a terminal matrix, report.html, report.md, results.json and JUnit XML
that parse and hold no raw control or markup characters (issue 18, "Outputs that stay
well-formed")."""

from __future__ import annotations

import json
import tempfile
import unicodedata
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import mistune
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labkit.cli import main
from labkit.outputs import escape

# The issue's probe: ids holding NUL, ESC, BEL and U+FFFE broke JUnit; <img onerror> and
# <script> reached report.md; ESC, BEL and U+202E reached the terminal and report.html.
HOSTILE = ["\x00", "\x1b", "\x07", "\ufffe", "\uffff", "\u202e", "\u2066", "\u200f", "\x7f",
           "\x85", "\u2028", "\r", "\n", "\t", "\x1b[31m", "\x1b]0;title\x07",
           "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[a](javascript:x)",
           "![i](http://x/i.png)", "&amp;", "&#60;b&#62;", "|", "*", "_", "`", "``", "$x$",
           "# ", "> ", "1. ", "- ", "\\", "<!--", "]]>", "'\"", "\U0001f600"]
# Lone surrogates are left out: whether a claim file may hold one is the claim files' part of
# the issue (an "Error:" line when read), not the outputs'.
TEXT = st.lists(st.one_of(st.sampled_from(HOSTILE),
                          st.text(st.characters(blacklist_categories=["Cs"]), max_size=6)),
                min_size=1, max_size=6).map("".join)
HTML_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "br", "b", "i",
             "div", "ul", "li", "span", "img", "table", "tr", "th", "td", "a", "section",
             "code", "figure", "figcaption"}
MARKDOWN_TAGS = {"h1", "h2", "p", "ul", "li", "strong", "code", "table", "thead", "tbody",
                 "tr", "th", "td"}
BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F,
                         0x061C)}


class _Tags(HTMLParser):
    """Every start tag and attribute of a page, as html.parser reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def _tags(page: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Tags()
    parser.feed(page)
    parser.close()
    return parser.tags


def _raw_controls(text: str) -> list[str]:
    """Characters a reader cannot see or that act on a terminal: controls but newline, format
    characters (bidirectional ones among them), separators, non-characters."""
    return [char for char in text if char != "\n" and (
        char in BIDI or unicodedata.category(char) in {"Cc", "Cf", "Cs", "Cn", "Zl", "Zp"})
        and char not in "\u200c\u200d"]


def _check(claims: list[dict], folder: Path, capsys) -> dict[str, str]:
    path = folder / "claims.json"
    path.write_text(json.dumps(claims), encoding="utf-8")
    junit = folder / "junit.xml"
    status = main(["check", str(path), "--out", str(folder / "out"), "--junit", str(junit),
                   "--quiet"])
    printed = capsys.readouterr()
    assert status == 0, printed.err
    outputs = {name: (folder / "out" / name).read_text(encoding="utf-8")
               for name in ("report.html", "report.md", "results.json")}
    return {**outputs, "junit.xml": junit.read_text(encoding="utf-8"),
            "terminal": printed.out}


def _claim(index: int, claim_id: str, title: str) -> dict:
    return {"id": f"c{index}{claim_id}x", "title": f"t{title}x", "source": "hostile",
            "fixture": [{"_id": 1}], "find": {}, "expect": {"ids": [1]}}


def _assert_well_formed(outputs: dict[str, str], claims: list[dict]) -> None:
    data = json.loads(outputs["results.json"])
    assert [claim["id"] for claim in data["claims"]] == [c["id"].strip() for c in claims]
    ET.fromstring(outputs["junit.xml"].encode("utf-8"))
    for name, text in outputs.items():
        assert _raw_controls(text) == [], name
    page_tags = _tags(outputs["report.html"])
    assert {tag for tag, _ in page_tags} <= HTML_TAGS
    assert not [name for _, attrs in page_tags for name, _ in attrs if name.startswith("on")]
    rendered = _tags(mistune.html(outputs["report.md"]))
    assert {tag for tag, _ in rendered} <= MARKDOWN_TAGS
    assert "\x1b" not in outputs["terminal"]


@settings(derandomize=True, max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(pairs=st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=3))
def test_every_output_of_a_hostile_check_parses_and_shows_no_raw_control(pairs, capsys):
    """Whatever ids and titles hold (the issue's characters, markup, any other text), every
    output parses (JSON, XML, HTML, Markdown rendered to HTML), adds no tag or event handler,
    and holds no raw control, bidirectional or separator character."""
    claims = [_claim(i, claim_id, title) for i, (claim_id, title) in enumerate(pairs)]
    with tempfile.TemporaryDirectory() as folder:
        _assert_well_formed(_check(claims, Path(folder), capsys), claims)


def test_the_issues_ids_reach_every_output_as_visible_escapes(tmp_path, capsys):
    """The issue's ids (NUL, ESC, BEL, U+FFFE, U+202E, <script>, <img onerror>) are shown as
    escapes and escaped markup in the terminal, report.html, report.md and JUnit XML."""
    claims = [_claim(0, "\x00\x1b\x07\ufffe\u202e", "<script>alert(1)</script>"),
              _claim(1, "<img src=x onerror=alert(1)>", "a|b*c")]
    outputs = _check(claims, tmp_path, capsys)
    _assert_well_formed(outputs, claims)
    for name in ("terminal", "report.html", "junit.xml"):
        assert "c0\\x00\\x1b\\x07\\ufffe\\u202ex" in outputs[name], name
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in outputs["report.html"]
    assert "\\<script\\>alert(1)\\</script\\>" in outputs["report.md"]
    assert "a\\|b\\*c" in outputs["report.md"]
    junit = ET.fromstring(outputs["junit.xml"].encode("utf-8"))
    names = [case.get("name") for case in junit.iter("testcase")]
    assert names[1] == "c1<img src=x onerror=alert(1)>x [model 8.0]"


@pytest.mark.parametrize(("text", "shown"), [
    ("\x1b[2J", "\\x1b[2J"), ("\x07", "\\x07"), ("\u202eabc", "\\u202eabc"), ("a\nb", "a\\nb"),
    ("\U000e0041", "\\U000e0041"), ("\ud800", "\\ud800"), ("plain é 字 😀", "plain é 字 😀"),
])
def test_visible_escapes_match_pythons_repr(text, shown):
    """Control, format and surrogate characters are written as Python's repr writes them;
    letters of every script and emoji are left as they are."""
    assert escape.visible(text) == shown


@pytest.mark.parametrize(("text", "shown"), [
    ("<b>", "\\<b\\>"), ("# title", "\\# title"), ("1. x", "1\\. x"), ("a_b*c", "a\\_b\\*c"),
    ("$x$", "\\$x\\$"), ("password=***", "password=`***`"),
])
def test_markdown_escapes_what_markdown_would_read(text, shown):
    """HTML, emphasis, mathematics and a block marker at the start are backslash-escaped
    (CommonMark's backslash escapes, which exist for ASCII punctuation only: a list number's
    "." or ")" is escaped, never its digit); a secret's mask reads as code."""
    assert escape.markdown(text) == shown
