"""Hides secrets in free text labkit shows or writes: each connection string in it is replaced
by its display form (``labkit._conninfo``), parsed by its driver's own parser.

Free text (an exception's message, a log line) is scanned for candidates: URIs
(``scheme://…``), libpq ``key=value`` runs, and mappings with a secret-bearing key
(``{'password': …}``). Finding a candidate is a search; judging it is the driver's parser. A
candidate that does not parse is replaced whole by :data:`HIDDEN`, so an unescaped ``/``,
``#``, ``?``, ``@`` or space in a password cannot cut it short: a URI runs at least to the last
``@`` on its line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from labkit._conninfo import (
    HIDDEN,
    LIBPQ_SCHEMES,
    MASK,
    MONGODB_SCHEME,
    MONGODB_SRV_SCHEME,
    display,
    display_mapping,
    is_secret,
)

__all__ = ["HIDDEN", "MASK", "display", "redact"]

_DRIVER_SCHEMES = (*LIBPQ_SCHEMES, MONGODB_SCHEME, MONGODB_SRV_SCHEME)
_SCHEME = re.compile(r"(?<![\w+.-])[A-Za-z][A-Za-z0-9+.-]*://")
_TOKEN_END = re.compile(r"[\s'\"<>`]")
# Starting only where a run of such characters starts: otherwise a long run not at the end is
# scanned again from each of its characters, a time that grows with the square of its length.
_TRAILING = re.compile(r"(?<![.,;:!)\]}'\"])[.,;:!)\]}'\"]+$")
# libpq's key=value syntax: a value is quoted (backslash escapes) or runs to whitespace.
_PAIR = re.compile(r"(?<![\w.-])([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"
                   r"('(?:\\.|[^'\\])*'|'[^\n]*|[^\s'][^\s]*)")
_QUOTED_KEY = re.compile(r"""(['"])([A-Za-z_][\w]*)\1\s*:""")

Span = tuple[int, int, str]
_MAPPING_TRIES = 64  # closing braces tried for one mapping: a bound on the work per candidate


def redact(text: str) -> str:
    """``text`` with every connection string in it replaced by its display form (passwords and
    other secrets as ``***``), or by :data:`HIDDEN` where it does not parse."""
    if not text:
        return text
    return _replace(text, (_uris, _mappings, _key_values))


def redact_all(value: Any) -> Any:
    """A JSON-like value (``results.json``, a command's ``--json``) with every string's
    connection strings in their display form."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_all(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_all(item) for item in value]
    return value


def _replace(text: str, finders: tuple[Callable[[str], Iterator[Span]], ...]) -> str:
    """Each finder's spans replaced, the next finders run on the text between them."""
    if not finders or not text:
        return text
    pieces, last = [], 0
    for start, end, shown in finders[0](text):
        pieces += [_replace(text[last:start], finders[1:]), shown]
        last = end
    pieces.append(_replace(text[last:], finders[1:]))
    return "".join(pieces)


def _uris(text: str) -> Iterator[Span]:
    position = 0
    while match := _SCHEME.search(text, position):
        start = match.start()
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        following = _SCHEME.search(text, match.end(), line_end)
        region_end = following.start() if following else line_end
        # A password may hold anything, even a space: the URI runs at least to its last "@".
        at = text.rfind("@", match.end(), region_end)
        stop = _TOKEN_END.search(text, max(at, match.end()), region_end)
        end = stop.start() if stop else region_end
        if end > match.end():
            yield start, end, _uri(text[start:end])
        position = max(end, match.end())


def _uri(token: str) -> str:
    if not token.lower().startswith(_DRIVER_SCHEMES):
        return _other_uri(token)
    shown = display(token)
    trailing = _TRAILING.search(token)
    if shown != HIDDEN or not trailing:
        return shown
    # Punctuation after a URI in a sentence ("at postgresql://h/db.") is the sentence's, unless
    # it may end an option's value: then it is dropped with the value.
    head = token[: trailing.start()]
    shown = display(head)
    return shown if shown == HIDDEN or "?" in head else shown + trailing.group(0)


def _other_uri(token: str) -> str:
    """A URI no driver reads (``https://…``): shown as it is unless it carries user
    information or a secret-bearing query parameter, which are then left out."""
    try:
        parts = urlsplit(token)
        port = parts.port
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return HIDDEN
    secret_query = any(is_secret(key) for key, _ in query)
    if "@" not in parts.netloc and not secret_query:
        return token
    host = (parts.hostname or "") + (f":{port}" if port else "")
    user = f"{parts.username or ''}:{MASK}@" if "@" in parts.netloc else ""
    shown = "&".join(f"{key}={MASK}" for key, _ in query if is_secret(key))
    return f"{parts.scheme}://{user}{host}{parts.path}" + (f"?{shown}" if shown else "")


def _key_values(text: str) -> Iterator[Span]:
    """Runs of libpq ``key=value`` pairs with at least one libpq keyword or secret in them."""
    pairs = list(_PAIR.finditer(text))
    run: list[re.Match[str]] = []
    for pair in [*pairs, None]:
        if pair is not None and (not run or not text[run[-1].end():pair.start()].strip()):
            run.append(pair)
            continue
        if run and any(_is_libpq_key(m.group(1)) or is_secret(m.group(1)) for m in run):
            yield run[0].start(), run[-1].end(), display(text[run[0].start():run[-1].end()])
        run = [pair] if pair is not None else []


def _is_libpq_key(key: str) -> bool:
    return key in _libpq_keywords()


_KEYWORDS: set[str] = set()


def _libpq_keywords() -> set[str]:
    """Every keyword libpq knows, asked of libpq once (psycopg's binding of PQconndefaults)."""
    if not _KEYWORDS:
        from psycopg import pq

        _KEYWORDS.update(option.keyword.decode() for option in pq.Conninfo.get_defaults())
    return _KEYWORDS


def _mappings(text: str) -> Iterator[Span]:
    """Mapping literals (a parsed DSN's repr, JSON) holding a secret-bearing key."""
    position = 0
    for key in _QUOTED_KEY.finditer(text):
        if key.start() < position or not is_secret(key.group(2)):
            continue
        start = text.rfind("{", position, key.start())
        if start < 0:
            start = key.start()
        end, shown = _mapping_at(text, start, key.end())
        yield start, end, shown
        position = end


def _mapping_at(text: str, start: int, after: int) -> tuple[int, str]:
    """The mapping literal opening at ``start``, shown safely, or HIDDEN to the line's end."""
    close, tries = text.find("}", after), 0
    while text[start] == "{" and close >= 0 and tries < _MAPPING_TRIES:
        tries += 1
        try:
            value = ast.literal_eval(text[start:close + 1])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            close = text.find("}", close + 1)
            continue
        if isinstance(value, dict):
            return close + 1, repr(display_mapping(value))
        break
    line_end = text.find("\n", after)
    return (len(text) if line_end < 0 else line_end), HIDDEN
