"""report.md renders what it means: rendered by a CommonMark renderer (markdown-it-py, plain
CommonMark and with GFM's tables, strikethrough and linkify), every value reads as the text it
is, in every place the report puts one. CommonMark has backslash escapes for ASCII punctuation
only (spec 0.31.2, section 2.4), so ``\\15.18`` shows its backslash; an ATX heading drops a
closing run of ``#`` after a space (section 4.2); GFM links bare URLs, ``www.`` names and
e-mail addresses (the GFM spec's autolinks extension, section 6.9), and linkify-it, which
markdown-it uses, links names ending in a known top-level domain too."""

from __future__ import annotations

import datetime as dt
import html
import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from labkit._redact import MASK
from labkit.cli import main
from labkit.names import EngineInfo
from labkit.outputs import escape, report
from labkit.run.results import Run

RENDERERS = {"commonmark": MarkdownIt("commonmark"), "gfm": MarkdownIt("gfm-like")}


def _rendered(text: str, renderer: str = "gfm") -> str:
    return RENDERERS[renderer].render(text)


def _html_text(value: str) -> str:
    """``value`` as markdown-it writes text in HTML (``&``, ``<``, ``>`` and ``"`` escaped)."""
    return html.escape(value, quote=False).replace('"', "&quot;")


def _report_md(tmp_path: Path, title: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The report.md ``labkit check`` writes for one claim titled ``title``."""
    claim = tmp_path / "claims.yaml"
    claim.write_text(textwrap.dedent(f"""\
        - id: A1
          title: {title!r}
          fixture: [{{_id: a, v: 1}}]
          find: {{v: 1}}
          expect: {{ids: [a]}}
    """), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["check", str(claim), "--quiet", "--out", str(out)]) == 0, \
        capsys.readouterr().err
    return (out / "report.md").read_text(encoding="utf-8")


def test_a_version_that_starts_a_value_shows_no_backslash():
    """The header's ``- PostgreSQL: 15.18`` renders as written (it rendered ``\\15.18``: a
    backslash before a digit is no escape)."""
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    text = report.markdown(Run([], now, now, [EngineInfo("postgres", version="15.18")]))
    assert "<li>PostgreSQL: 15.18</li>" in _rendered(text, "commonmark")
    assert "\\" not in re.sub(r"<[^>]+>", "", _rendered(text))


@pytest.mark.parametrize("title", ["1) first", "2.", "15.18 is a version", "- dash", "# hash",
                                   "> quote", "+ plus"])
def test_a_title_that_looks_like_a_block_marker_stays_text(tmp_path, capsys, title):
    """A title that begins like a list, a heading or a quote reads as that text in the
    claim's heading and in the verdict table, with no backslash showing."""
    rendered = _rendered(_report_md(tmp_path, title, capsys))
    assert f"<h2>A1: {_html_text(title)}</h2>" in rendered
    assert f"<td>{_html_text(title)}</td>" in rendered
    assert "<ol" not in rendered
    assert "<blockquote" not in rendered


def test_a_title_ending_in_a_hash_keeps_it_in_the_heading(tmp_path, capsys):
    """``Sorting is stable #`` keeps its ``#`` in the claim's heading (CommonMark dropped it
    as the heading's closing sequence)."""
    rendered = _rendered(_report_md(tmp_path, "Sorting is stable #", capsys), "commonmark")
    assert "<h2>A1: Sorting is stable #</h2>" in rendered


@pytest.mark.parametrize("title", ["see https://example.com/x for more", "www.example.com",
                                   "write to someone@example.com", "runner.py and lab.io",
                                   "mailto:a@b.co", "//example.com/path",
                                   "postgresql://labkit@127.0.0.1:5432/postgres"])
def test_bare_urls_and_addresses_in_a_title_are_not_links(tmp_path, capsys, title):
    """A URL, a ``www.`` name, an e-mail address or a file name with a domain's ending in a
    title is text, not a link, under GFM's linkify (the module promises no links)."""
    rendered = _rendered(_report_md(tmp_path, title, capsys))
    assert "<a " not in rendered
    assert f"<h2>A1: {_html_text(title)}</h2>" in rendered


# Pieces Markdown gives a meaning to, and plain text between them.
PIECES = st.sampled_from([
    "#", " #", "##", "1.", "2)", "15.18", "-", "+", "*", "_", "**", "`", "```", "~", "~~", ">",
    "<", "<b>", "&", "&amp;", "&#35;", "\\", "[", "]", "](x)", "![", "|", "$", "$x$", "=", "---",
    "    ", " ", "  ", "http://", "https://a.io", "www.", "www.x.org", "@", "a@b.co", "x.com",
    ".py", "//", ":", "mailto:", "a", "b", "é", "\u00a0", "\u202e", "\x1b",
])
# A hidden secret's mask (***) is shown as a code span on purpose: values holding it are left
# to the redaction tests.
VALUES = st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=8).map("".join).filter(
    lambda value: MASK not in escape.shown(value))
CONTEXTS = {
    "list item": ("- {}\n", "<ul>\n<li>{}</li>\n</ul>\n"),
    "after a label": ("- PostgreSQL: {}\n", "<ul>\n<li>PostgreSQL: {}</li>\n</ul>\n"),
    "heading": ("## A1: {}\n", "<h2>A1: {}</h2>\n"),
    "bold": ("**{}**\n", None),
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES)
def test_every_value_renders_as_its_text_wherever_the_report_puts_it(value):
    """In a list item, after a label, in a heading and in a table cell, ``escape.markdown``
    of any text renders to exactly that text (its visible form, its ends trimmed as a renderer
    trims them) and no element: no link, list, heading, code, emphasis or HTML."""
    shown = escape.shown(value).strip()
    text = _html_text(shown)
    md = escape.markdown(value)
    for renderer in RENDERERS:
        for source, expected in CONTEXTS.values():
            rendered = _rendered(source.format(md), renderer)
            if expected is None:  # bold: one <strong> around the text (a summary, never empty)
                assert not shown or rendered == f"<p><strong>{text}</strong></p>\n", \
                    (md, rendered)
                continue
            assert rendered == expected.format(text).replace(": </", ":</"), (md, rendered)
    table = _rendered(f"| ID | claim |\n|---|---|\n| A1 | {md} |\n")
    cell = re.search(r"<tbody>\n<tr>\n<td>A1</td>\n<td>(.*?)</td>", table, re.S)
    assert cell is not None, (md, table)
    assert cell.group(1) == text, (md, table)
