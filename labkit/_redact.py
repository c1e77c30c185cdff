"""Hides secrets in free text labkit shows or writes: each connection string in it is replaced
by its display form (``labkit._conninfo``), parsed by its driver's own parser.

Free text (an exception's message, a log line) is scanned for candidates: URIs
(``scheme://…``), libpq ``key=value`` runs, and mappings with a secret-bearing key
(``{'password': …}``). Finding a candidate is a search; judging it is the driver's parser. A
candidate that does not parse is replaced whole by :data:`HIDDEN`, so an unescaped ``/``,
``#``, ``?``, ``@`` or space in a password cannot cut it short: a URI runs at least to the last
``@`` on its line.

Shapes are not enough: a driver's message quotes what it made of a string, and where a
password held an unescaped ``@`` libpq reads its second half as the host ("failed to resolve
host 'half@127.0.0.1'"), which no shape shows to be a secret. So the secrets in force, those of
every connection string labkit was given, are remembered where labkit first reads one
(:func:`remember`), and every piece of each is hidden wherever it appears: the whole secret,
and each of its parts between spaces or ``@`` at least :data:`MIN_FRAGMENT` characters long
(shorter ones are words and numbers of any text; a password that short is guessed anyway).
Redacting is stable: what :func:`redact` gives, it gives back unchanged.
"""

from __future__ import annotations

import ast
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, unquote, unquote_plus, urlsplit

from labkit import _conninfo
from labkit._conninfo import (
    HIDDEN,
    LIBPQ_SCHEMES,
    MASK,
    MONGODB_SCHEME,
    MONGODB_SRV_SCHEME,
    display_mapping,
    is_secret,
    secret_values,
)

__all__ = ["HIDDEN", "MASK", "display", "redact", "remember"]

_DRIVER_SCHEMES = (*LIBPQ_SCHEMES, MONGODB_SCHEME, MONGODB_SRV_SCHEME)
_SCHEME = re.compile(r"(?<![\w+.-])[A-Za-z][A-Za-z0-9+.-]*://")
_TOKEN_END = re.compile(r"[\s'\"<>`]")
# Starting only where a run of such characters starts: otherwise a long run not at the end is
# scanned again from each of its characters, a time that grows with the square of its length.
_TRAILING = re.compile(r"(?<![.,;:!)\]}'\"])[.,;:!)\]}'\"]+$")
# libpq's key=value syntax: a value is quoted (backslash escapes) or runs to whitespace.
# An unquoted value may hold a backslash-escaped space (``password=a\ b`` is "a b" to libpq).
_PAIR = re.compile(r"(?<![\w.-])([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"
                   r"('(?:\\.|[^'\\])*'|'[^\n]*|(?:\\.|[^\s'\\])(?:\\.|[^\s\\])*)")
_QUOTED_KEY = re.compile(r"""(['"])([A-Za-z_][\w]*)\1\s*:""")

Span = tuple[int, int, str]
_MAPPING_TRIES = 64  # closing braces tried for one mapping: a bound on the work per candidate


MIN_FRAGMENT = 4  # the shortest piece of a secret hidden wherever it appears
_ROUNDS = 8  # redacting what was redacted gives it back; a bound on the rounds that checks it


def redact(text: str) -> str:
    """``text`` with every connection string in it replaced by its display form (passwords and
    other secrets as ``***``), or by :data:`HIDDEN` where it does not parse, and every piece of
    a secret in force hidden; ``redact(redact(text)) == redact(text)``."""
    if not text:
        return text
    hidden = _once(text)
    for _ in range(_ROUNDS):
        if hidden == text:
            break
        # What one round showed may read as a connection string again (``password=***)`` of a
        # sentence's closing parenthesis): rounds run until one changes nothing.
        text, hidden = hidden, _once(hidden)
    return hidden


def _once(text: str) -> str:
    return SECRETS.hide(_replace(text, (_uris, _mappings, _key_values)))


def display(conninfo: str) -> str:
    """``conninfo``'s display form (``labkit._conninfo.display``), any piece of a secret in
    force that a part of it holds hidden too."""
    return SECRETS.hide(_conninfo.display(conninfo))


def remember(conninfo: str) -> None:
    """Hide from now on, in everything :func:`redact` is given, every piece of each secret in
    ``conninfo`` (a connection string labkit was given, or several separated by spaces)."""
    SECRETS.remember(conninfo)


class Secrets:
    """The secrets in force: the pieces of every secret of the connection strings labkit was
    given, as their drivers' parsers read them and as they are written."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pieces: frozenset[str] = frozenset()
        self._pattern: re.Pattern[str] | None = None

    def remember(self, conninfo: str) -> None:
        """Add the pieces of every secret in ``conninfo``."""
        found = {piece for secret in secrets_in(conninfo) for piece in pieces(secret)}
        with self._lock:
            if found <= self._pieces:
                return
            self._pieces |= found
            # Longest first: a piece inside a longer one never leaves the rest of it shown.
            ordered = sorted(self._pieces, key=lambda piece: (-len(piece), piece))
            self._pattern = re.compile("|".join(map(re.escape, ordered)))

    def hide(self, text: str) -> str:
        """``text`` with each remembered piece replaced by :data:`MASK`, until none is left
        (a mask between two characters can make a piece appear that was not there)."""
        pattern = self._pattern
        if pattern is None or not text:
            return text
        while True:  # each round is shorter: a piece is longer than the mask
            hidden = pattern.sub(MASK, text)
            if hidden == text:
                return text
            text = hidden


SECRETS = Secrets()


def pieces(secret: str) -> set[str]:
    """What of ``secret`` is hidden wherever it appears: the whole, and each of its parts
    between spaces or ``@``, those at least :data:`MIN_FRAGMENT` characters long."""
    found = {secret, *re.split(r"[\s@]+", secret)}
    return {piece for piece in found if len(piece) >= MIN_FRAGMENT}


def secrets_in(conninfo: str) -> set[str]:
    """Every secret in ``conninfo``: read by its driver's parser (each whitespace-separated
    URI on its own, as a list of them is read), and as written, which a parser that reads a
    piece of the password as a host does not give whole."""
    found: set[str] = set()
    for candidate in {conninfo.strip(), *_SCHEME_SPLIT.split(conninfo.strip())}:
        try:
            found.update(secret_values(candidate))
        except Exception:  # any parser's refusal: the written forms below still count
            continue
    found.update(_written_secrets(conninfo))
    return {secret for secret in found if secret and secret != MASK}


# Where a list of URIs separated by whitespace splits: before each scheme after a space.
_SCHEME_SPLIT = re.compile(r"\s+(?=[A-Za-z][A-Za-z0-9+.-]*://)")


def _written_secrets(conninfo: str) -> Iterator[str]:
    """The secrets of ``conninfo`` as written, both raw and percent-decoded: a URI's password
    (its user information after the first ``:``, to the last ``@`` of its URI) and
    its secret-bearing query values, and libpq ``key=value`` secrets."""
    # The URIs of a list as its parsers read them (``_SCHEME_SPLIT``): a scheme written inside
    # one, as in a raw password "a://", is part of it.
    uris = [(part, scheme) for part in _SCHEME_SPLIT.split(conninfo.strip())
            if (scheme := _SCHEME.search(part))]
    if not uris:  # a libpq key=value string
        for pair in _PAIR.finditer(conninfo):
            if is_secret(pair.group(1)):
                yield pair.group(2).strip("'")
        return
    for part, scheme in uris:
        body = part[scheme.end():].rstrip()
        userinfo, at, rest = body.rpartition("@")
        if at and ":" in userinfo:
            written = userinfo.partition(":")[2]
            yield from (written, unquote(written))
        for item in re.split("[&;]", (rest if at else body).partition("?")[2]):
            key, _, value = item.partition("=")
            if is_secret(unquote_plus(key)):
                yield from (value, unquote_plus(value))


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
        following = _following(text, match.end(), line_end)
        region_end = following.start() if following else line_end
        # A password may hold anything, even a space: the URI runs at least to its last "@".
        at = text.rfind("@", match.end(), region_end)
        stop = _TOKEN_END.search(text, max(at, match.end()), region_end)
        end = stop.start() if stop else region_end
        if end > match.end():
            yield start, end, _uri(text[start:end])
        position = max(end, match.end())


def _following(text: str, after: int, line_end: int) -> re.Match[str] | None:
    """The next scheme on the line that starts another URI: not one written in this URI's
    user information, where a raw password may hold "://" (``alice:a://@host``): right after
    a ":" with neither "@" nor "/" since this URI's scheme, it is the password's."""
    position = after
    while following := _SCHEME.search(text, position, line_end):
        between = text[after:following.start()]
        if not (between.endswith(":") and "@" not in between and "/" not in between):
            return following
        position = following.end()
    return None


def _uri(token: str) -> str:
    if not token.lower().startswith(_DRIVER_SCHEMES):
        return _other_uri(token)
    shown = _conninfo.display(token)
    trailing = _TRAILING.search(token)
    if shown != HIDDEN or not trailing:
        return shown
    # Punctuation after a URI in a sentence ("at postgresql://h/db.") is the sentence's, unless
    # it may end an option's value: then it is dropped with the value.
    head = token[: trailing.start()]
    shown = _conninfo.display(head)
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
        if run and any(_is_libpq_key(m.group(1)) or _secret_option(m.group(1)) for m in run):
            end = _pairs_end(run[-1])
            yield run[0].start(), end, _conninfo.display(text[run[0].start():end])
        run = [pair] if pair is not None else []


_SENTENCE_END = re.compile(r"(?<![.,;:!)\]}])[.,;:!)\]}]+$")  # from a run's start: see _TRAILING


def _pairs_end(last: re.Match[str]) -> int:
    """Where a run of pairs ending in ``last`` ends: punctuation after its unquoted value
    ("(dsn: host=h user=u)") is the sentence's, unless it may end a secret (then it goes with
    the secret, hidden); after a secret already hidden (``password=***)``) it is the
    sentence's again, so that redacting twice changes nothing."""
    key, value = last.group(1), last.group(2)
    trailing = _SENTENCE_END.search(value)
    if value.startswith("'") or not trailing:
        return last.end()
    if is_secret(key) and value[:trailing.start()] != MASK:
        return last.end()
    return last.end() - len(trailing.group(0))


# How a person writes an option's name: api_key, apiKey, API_KEY. A run of base64 before its
# padding ("AaEavaqJccKeyBrv9tiULA==", a UUID's bytes) reads as a key=value pair too, and its
# letters may spell "key": it is no option's name.
_OPTION_NAME = re.compile(r"[a-z]+(?:_?[a-z]+)*|[a-z]+(?:[A-Z][a-z]+)+|[A-Z]+(?:_[A-Z]+)*")


def _secret_option(key: str) -> bool:
    """Whether ``key`` names a secret-bearing option as a person writes one."""
    return is_secret(key) and _OPTION_NAME.fullmatch(key) is not None


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
