"""Every output escaped for its format (the terminal, HTML, Markdown, XML 1.0, JSON, a plot's
text), secrets hidden.

Whatever a claim file says (an id holding ESC, BEL, NUL, U+202E or ``<script>``), an output
stays well-formed and shows it as text: control, format (bidirectional) and unassigned
characters become visible escapes (``\\x1b``, ``\\u202e``), as Python's ``repr`` writes them;
Markdown's and HTML's own characters are escaped for each; every connection string is in its
display form (``labkit._redact``).
"""

from __future__ import annotations

import functools
import html as _html
import json
import re
import unicodedata
from collections.abc import Callable
from typing import Any, TypeVar

from labkit._redact import MASK, redact, redact_all
from labkit.i18n import in_english

# Unicode categories shown as escapes: controls, format characters (the bidirectional
# overrides and isolates, zero-width spaces), surrogates, unassigned code points (U+FFFE),
# line and paragraph separators. ZWNJ and ZWJ, which join letters and emoji, stay.
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Cn", "Zl", "Zp"})
_JOINERS = frozenset({"\u200c", "\u200d"})
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# CommonMark reads these anywhere in a line (emphasis, code, links, raw HTML, entities, tables,
# strikethrough), Jupyter reads "$" as mathematics, an ATX heading drops a closing run of "#",
# and GFM and linkify make links of bare URLs, www. names and e-mail addresses: a backslash
# makes each a literal. A "." before a letter is escaped so that no name reads as a domain
# ("runner.py", "www.x.org"), "@" so that no address does, and a "/" before a "/" so that no
# "scheme://" does; a backslash escape also splits the text a linkifier scans. Only ASCII
# punctuation has a backslash escape in CommonMark: a backslash before anything else shows.
_MARKDOWN_INLINE = re.compile(r"[\\`*_\[\]<>&|~$#@]|/(?=/)|\.(?=[^\W\d_])")
_ESCAPED_MASK = "".join(f"\\{char}" for char in MASK)
# At the start of a list item or paragraph, these open a block (a list, a thematic break or a
# setext underline; "#" and ">" are escaped everywhere). "1." and "2)" open an ordered list
# only before a space or the line's end: their "." or ")" is escaped, never a digit.
_MARKDOWN_BLOCK = re.compile(r"^[+=-]")
_MARKDOWN_LIST_NUMBER = re.compile(r"^(\d{1,9})([.)])(?= |$)")
# Code in labkit's own sentences, as the model writes a reason: a field's path in backticks
# (`price`, `v.w`).
_CODE = re.compile(r"`([^`]+)`")


def _invisible(char: str) -> bool:
    return char not in _JOINERS and unicodedata.category(char) in _INVISIBLE


def _escaped(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else (f"\\u{code:04x}" if code < 0x10000
                                                  else f"\\U{code:08x}")


def visible(text: str, keep: str = "") -> str:
    """``text`` with every control, format, surrogate and unassigned character written as a
    visible escape, except those in ``keep`` (a multi-line field keeps ``"\\n"``)."""
    if text.isprintable() and not any(char in _JOINERS for char in text):
        return text  # the usual case, at the cost of one scan
    return "".join(_escaped(char) if char not in keep and _invisible(char) else char
                   for char in text)


def json_visible(text: str) -> str:
    """JSON text with every invisible character (a bidirectional override, U+2028, a lone
    surrogate) written as a ``\\u`` escape: the same data, safe to print and to encode."""
    # Every invisible character is one isprintable refuses: text whose only unprintable
    # characters are its line breaks needs no scan (the usual case, at the cost of a copy).
    if text.isprintable() or text.replace("\n", "").isprintable() or not any(
            _invisible(char) and char not in "\n" for char in text):
        return text
    return "".join(_json_escaped(char) if char != "\n" and _invisible(char) else char
                   for char in text)


def json_text(value: Any, ascii_only: bool = False) -> str:
    """``value`` as JSON text, as results.json and every ``--json`` write it: every message in
    English, secrets hidden, and every invisible character (a control, a bidirectional
    override, a lone surrogate from a file name that is not UTF-8) a ``\\u`` escape, so the
    text is UTF-8 that prints as it is. ``ascii_only`` escapes every other non-ASCII character
    too (a terminal that cannot show them)."""
    return json_visible(json.dumps(redact_all(in_english(value)), indent=2,
                                   ensure_ascii=ascii_only))


def _json_escaped(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def shown(value: Any, keep: str = "") -> str:
    """A value as it may be shown anywhere: secrets hidden, invisible characters escaped."""
    return visible(redact(str(value)), keep)


def terminal(value: Any) -> str:
    """A value for the terminal: nothing that moves the cursor, colours, rings or reorders,
    on one line (a line break in it is shown as ``\\n``)."""
    return shown(value)


def terminal_text(value: Any) -> str:
    """Text of several lines for the terminal (a message, a table, a line of labkit's): its
    line breaks kept, every other control, format character and surrogate shown as an
    escape. Secrets are hidden where such a text is made (an error's message, a server's
    description); it is not redacted again here, so that an export line asked for with its
    password is printed as asked."""
    return visible(str(value), keep="\n")


def html(value: Any) -> str:
    """A value as HTML text or a quoted attribute's value."""
    return _html.escape(shown(value))


# JupyterLab 4 and Notebook 7 typeset "$…$" and "\\(…\\)" in an HTML output with MathJax 3,
# whose HTML handler skips an element of class "mathjax_ignore" and all inside it: MathJax 3's
# default ``ignoreHtmlClass`` (mathjax-full, ts/handlers/html/HTMLDomStrings.ts, OPTIONS), which
# JupyterLab's mathjax-extension (packages/mathjax-extension/src/index.ts) leaves as it is.
# MathJax 2 (Notebook 6, nbconvert's HTML) skips "tex2jax_ignore". pandas writes the same two
# classes on a table where ``display.html.use_mathjax`` is off.
NO_MATHS = "tex2jax_ignore mathjax_ignore"


def notebook_html(page: str) -> str:
    """HTML a notebook shows (an output's ``_repr_html_``) kept from MathJax: a query's
    ``$expr {$gt: ['$userId', 0]}`` is shown as typed, never read as mathematics."""
    return f'<div class="{NO_MATHS}">{page}</div>'


Shown = TypeVar("Shown")
Page = TypeVar("Page", str, str | None)  # pandas' _repr_html_ may give None


def as_typed(method: Callable[[Shown], Page]) -> Callable[[Shown], Page]:
    """A ``_repr_html_`` whose HTML is kept from MathJax (``notebook_html``): every output
    labkit shows in a notebook is drawn through it."""

    @functools.wraps(method)
    def kept(self: Shown) -> Page:
        page = method(self)
        return page if page is None else notebook_html(page)

    return kept


def markdown(value: Any) -> str:
    """A value as Markdown text (a table cell, a heading, a list item): read as plain text by
    GitHub, GitLab and Jupyter alike, links included (none is made). Whitespace at its ends
    is trimmed, as a renderer trims it (four spaces at the start would open a code block, and
    a space inside ``**`` ends the bold)."""
    return _markdown_block(_markdown_inline(shown(value).strip()))


def _markdown_inline(text: str) -> str:
    text = _MARKDOWN_INLINE.sub(r"\\\g<0>", text)
    # A hidden secret's mask reads as a code span, not as emphasis markers.
    return text.replace(_ESCAPED_MASK, f"`{MASK}`")


def _markdown_block(text: str) -> str:
    text = _MARKDOWN_LIST_NUMBER.sub(r"\1\\\2", text)
    return _MARKDOWN_BLOCK.sub(r"\\\g<0>", text)


def markdown_with_code(value: Any) -> str:
    """One of labkit's sentences whose code is in backticks (the model's reason ``no `price`:
    a missing field sorts as null``) as Markdown: each backticked part a code span, the rest
    plain text as ``markdown`` writes it, so no backtick shows."""
    parts = _CODE.split(shown(value).strip())
    return _markdown_block("".join(markdown_code(part) if i % 2 else _markdown_inline(part)
                                   for i, part in enumerate(parts)))


def html_with_code(value: Any) -> str:
    """One of labkit's sentences whose code is in backticks as HTML: each backticked part in
    ``<code>``, the rest as ``html`` escapes it."""
    return _CODE.sub(r"<code>\1</code>", html(value))


def markdown_code(value: Any) -> str:
    """A value as a Markdown code span: fenced by more backticks than it holds in a row."""
    text = shown(value)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def plot(value: Any) -> str:
    """A value as matplotlib text (a title, a label, a tick, a legend entry, an annotation):
    plain text, never mathtext. Matplotlib reads a text with an even number of unescaped
    ``$`` as mathematics, and a backslash-escaped ``\\$`` as a dollar; invisible characters
    and bytes that are not UTF-8 become escapes, which FreeType can draw."""
    return shown(value).replace("$", "\\$")


def xml(value: Any) -> str:
    """A value for an XML 1.0 text or attribute: every character XML forbids (NUL, ESC, BEL,
    U+FFFE, a lone surrogate, …) and every invisible one as an escape; the serializer then
    escapes markup."""
    return shown(value, keep="\n\t")


