"""Hides passwords in any text labkit shows or writes: every form a connection string takes.

A connection string can carry its password as URI user information
(``scheme://user:pw@host``), as a URI query parameter (``?password=pw``), as a
libpq key-value pair (``password=pw`` or ``password = 'p w'``), or, once parsed,
as a mapping entry (``'password': 'pw'``). Every form is replaced by ``***``.
"""

from __future__ import annotations

import re

MASK = "***"

# A URI runs from its scheme to the next whitespace or quote.
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
# User information: everything up to the last "@" before the path, so that an unescaped "@"
# in a password is hidden too.
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^:/@?#]*:)[^/?#]*@")
_SECRET_KEY = r"[A-Za-z_]*(?:password|passwd|pwd)"
_QUERY_SECRET = re.compile(rf"(?i)([?&;]{_SECRET_KEY}=)[^&#;]*")
# libpq: a value is a quoted string with backslash escapes, or runs to whitespace.
_QUOTED = r"'(?:\\.|[^'\\])*'?|\"(?:\\.|[^\"\\])*\"?"
_BARE = r"[^\s'\"]+(?:['\"][^\s'\"]+)*"  # a quote inside a bare value is part of it
_KEY_VALUE = re.compile(rf"(?i)\b({_SECRET_KEY}\s*=\s*)(?:{_QUOTED}|{_BARE})")
_MAPPING = re.compile(rf"(?i)([\"']{_SECRET_KEY}[\"']\s*:\s*)([\"'])(?:\\.|(?!\2).)*\2")


def _uri(match: re.Match) -> str:
    uri = _USERINFO.sub(rf"\g<1>{MASK}@", match.group(0))
    return _QUERY_SECRET.sub(rf"\g<1>{MASK}", uri)


def redact(text: str) -> str:
    """``text`` with every password in it replaced by ``***`` (URIs, key-value pairs, mappings)."""
    if not text:
        return text
    pieces, last = [], 0
    for match in _URI.finditer(text):
        pieces.append(_outside_uri(text[last:match.start()]))
        pieces.append(_uri(match))
        last = match.end()
    pieces.append(_outside_uri(text[last:]))
    return "".join(pieces)


def _outside_uri(text: str) -> str:
    text = _MAPPING.sub(rf"\g<1>'{MASK}'", text)
    return _KEY_VALUE.sub(rf"\g<1>{MASK}", text)
