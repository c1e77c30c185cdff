"""Regular expressions as MongoDB compiles and applies them: PCRE2 (MongoDB's engine since 6.1),
in UTF mode, with the options ``i m s x`` (and ``u``, accepted and ignored), without UCP unless
the pattern asks for it with ``(*UCP)``.

The server's recipe is ``pcre_util::flagsToOptions`` (UTF, plus CASELESS, MULTILINE, DOTALL,
EXTENDED for ``i m s x``) and ``pcre::Regex`` (a compile context with a maximum pattern length
of 32,764 bytes), both in ``src/mongo/util/``. The PyPI binding ``pcre2`` adds three options
of its own to every pattern (UCP, ALT_BSUX, NEVER_BACKSLASH_C); they are taken off again here,
so that a pattern compiles exactly as the server compiles it. PCRE2 is imported the first time
a regex is compiled: a filter without one never loads it. Where it cannot load, compiling
raises CannotJudge: the model does not answer a regex by Python's ``re``, whose rules differ.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from bson import Regex

from labkit.errors import BadInput, CannotJudge
from labkit.i18n import N_, Message
from labkit.model.bson_order import regex_flags

MAX_PATTERN_BYTES = 32764  # pcre.cpp's kMaxPatternLength, set in the compile context
FLAGS = "imsux"  # pcre_util.cpp's flagsToOptions: any other letter is error 51108

# PCRE2's option bits (pcre2.h); the binding's CompileOption enum names only some of them.
_CASELESS, _DOTALL, _EXTENDED, _MULTILINE = 0x8, 0x20, 0x80, 0x400
_UTF, _UCP = 0x00080000, 0x00020000
_ALT_BSUX, _NEVER_BACKSLASH_C = 0x2, 0x00100000
_OPTIONS = {"i": _CASELESS, "m": _MULTILINE, "s": _DOTALL, "x": _EXTENDED, "u": 0}
# The binding's own additions, which MongoDB does not make: Unicode properties for \w, \d and
# POSIX classes (UCP), ECMAScript's \u and \x (ALT_BSUX), and a ban on \C.
_NOT_MONGODB = _UCP | _ALT_BSUX | _NEVER_BACKSLASH_C
_BACKSLASH_C_LIBRARY_DISABLED = 185  # pcre2.h: PCRE2_ERROR_BACKSLASH_C_LIBRARY_DISABLED

_HINT = N_("pip install pcre2 (wheels for Linux, macOS and Windows), or ask a server")

Search = Callable[[str], bool]  # whether a pattern matches somewhere in a string


@functools.cache
def _library() -> Any:
    """The PCRE2 binding, imported on first use; CannotJudge where it cannot load."""
    try:
        # Imported by name: the binding ships no type information, and a filter without a
        # regex never pays for the import.
        pcre2 = importlib.import_module("pcre2")
        # The binding's compile step, below its public compile(), which forces UCP, ALT_BSUX
        # and NEVER_BACKSLASH_C on and lets only UCP be taken off.
        cy = importlib.import_module("pcre2._cy")
    except ImportError as exc:
        raise CannotJudge(Message(N_("the model cannot judge a regular expression: "
                                             "PCRE2 did not load ({error})"), error=str(exc)),
                          library="pcre2", hint=Message(_HINT)) from None
    return pcre2, cy


def regex_source(pattern: Any, options: Any, op: str = "$regex") -> tuple[str, str]:
    """The pattern's text and its flags, from a regex (flags inside or in the options, not
    both) or from a string (flags in the options)."""
    if isinstance(pattern, Regex | re.Pattern):
        if options is not None and regex_flags(pattern):
            raise BadInput(Message(N_("{op}: options given both in the regex and beside "
                                              "it"), op=op))
        source = pattern.pattern
        if not isinstance(source, str):
            raise BadInput(Message(N_("{op} needs a text pattern"), op=op))
        flags = options if options is not None else regex_flags(pattern)
    elif isinstance(pattern, str):
        source, flags = pattern, options or ""
    else:
        raise BadInput(Message(N_("{op} needs a string or a regular expression"), op=op))
    if not isinstance(flags, str):
        raise BadInput(Message(N_("{op}: the options are a string"), op=op))
    return source, flags


def compile_regex(source: str, flags: str, op: str = "$regex") -> Search:
    """A test whether ``source`` (compiled as MongoDB compiles it, with ``flags``) matches
    somewhere in a string; BadInput where MongoDB refuses the pattern or a flag, CannotJudge
    where PCRE2 is not here."""
    bad = sorted(set(flags) - set(FLAGS))
    if bad:
        raise BadInput(Message(N_("{op}: invalid flag {flag} in the regex options"),
                                       op=op, flag=repr(bad[0])))
    if "\x00" in source or "\x00" in flags:
        raise BadInput(Message(N_("{op}: a regular expression cannot contain a NUL "
                                          "character"), op=op))
    bits = _UTF
    for flag in flags:
        bits |= _OPTIONS[flag]
    return _compiled(source, bits, op)


def _pattern(encoded: bytes, bits: int) -> Any:
    """PCRE2's pattern for ``encoded`` with the option ``bits``, and none of the binding's own
    (``_NOT_MONGODB``); PatternError where PCRE2 refuses it."""
    pcre2, cy = _library()
    return pcre2.Pattern(cy.compile(encoded, bits, _NOT_MONGODB), encoded, 0, False, None)


@functools.lru_cache(maxsize=256)
def _compiled(source: str, bits: int, op: str) -> Search:
    pcre2, _cy = _library()  # its errors; _pattern compiles
    try:
        encoded = source.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(Message(N_("{op}: the pattern {pattern} is not valid UTF-8"),
                                       op=op, pattern=repr(source))) from None
    if len(encoded) > MAX_PATTERN_BYTES:
        raise BadInput(Message(N_("{op}: the regular expression is longer than "
                                          "MongoDB's limit of {most:,} bytes"), op=op,
                                       most=MAX_PATTERN_BYTES))
    try:
        pattern = _pattern(encoded, bits)
    except pcre2.PatternError as exc:
        if exc.code == _BACKSLASH_C_LIBRARY_DISABLED:
            raise CannotJudge(Message(N_("the model cannot judge {pattern}: this PCRE2 "
                                                 "build refuses \\C, which MongoDB's accepts"),
                                              pattern=repr(source)),
                              library="pcre2", hint=Message(N_("ask a server"))) from None
        raise BadInput(Message(N_("{op}: invalid regular expression {pattern}: {error}"),
                                       op=op, pattern=repr(source), error=exc.msg)) from None
    pattern.jit_compile()
    library_error = pcre2.LibraryError

    def search(text: str) -> bool:
        # A subject PCRE2 cannot take (invalid UTF-8) or a match that hits a limit is no
        # match, as on the server, where matchView's error makes the match false.
        try:
            return pattern.search(text.encode("utf-8", "surrogatepass")) is not None
        except library_error as exc:
            if exc.code in _LIMITS:
                _count_limit_hit(source)
            return False
    return search


# PCRE2's errors for a match that hit a bound (pcre2.h): MATCHLIMIT, DEPTHLIMIT, HEAPLIMIT.
_LIMITS = (-47, -53, -63)
# How many strings one read may take to PCRE2's match limit before the model stops: each such
# string costs tens of milliseconds (as on the server), so a read over many documents with a
# pattern that backtracks would otherwise run for hours (300,000 documents: about 100 min).
MAX_LIMIT_HITS = 250
_limit_hits: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "limit_hits", default=None)


@contextlib.contextmanager
def one_read() -> Iterator[None]:
    """A read of the model (a find, a pipeline, an explanation): the strings its patterns take
    to PCRE2's match limit are counted, and past ``MAX_LIMIT_HITS`` the read stops with
    CannotJudge. Reads inside another count toward it."""
    if _limit_hits.get() is not None:
        yield
        return
    token = _limit_hits.set([0])
    try:
        yield
    finally:
        _limit_hits.reset(token)


def _count_limit_hit(source: str) -> None:
    count = _limit_hits.get()
    if count is None:
        return
    count[0] += 1
    if count[0] > MAX_LIMIT_HITS:
        raise CannotJudge(Message(N_(
            "the pattern {pattern} backtracks past PCRE2's match limit more than {most:,} "
            "times in this read; each costs MongoDB too about as long, and the model stops "
            "here rather than run for minutes"), pattern=repr(source), most=MAX_LIMIT_HITS),
            library="pcre2", hint=Message(N_("write the pattern without nested repetition "
                                             "(such as (a+)+), or ask a server")))


# PCRE2's compile options that switch off its shortcuts (pcre2.h): the start-of-match
# optimizations (a literal the pattern needs and the subject lacks fails at once), automatic
# possessification and the leading .* anchor. Python's re has none of them, so a pattern is
# tried here as re would try it.
_NO_SHORTCUTS = 0x00010000 | 0x00004000 | 0x00008000  # NO_START_OPTIMIZE, NO_AUTO_POSSESS,
# NO_DOTSTAR_ANCHOR


def backtracks(source: str, flags: str, text: str) -> bool:
    """Whether ``source`` with ``flags``, tried without PCRE2's shortcuts, takes ``text`` to
    PCRE2's match limit: a backtracking engine without one (Python's ``re``, which the fakes
    use) may then not finish (``(a+)+c`` on thirty ``a``s and a ``b``, which PCRE2 itself
    refuses at once because the subject has no ``c``)."""
    pcre2, _cy = _library()  # its errors; _pattern compiles
    bits = _UTF | _NO_SHORTCUTS
    for flag in flags:
        bits |= _OPTIONS.get(flag, 0)
    try:
        _pattern(source.encode("utf-8", "surrogatepass"), bits).search(
            text.encode("utf-8", "surrogatepass"))
    except pcre2.LibraryError as exc:
        return exc.code in _LIMITS
    except (pcre2.PatternError, ValueError):
        return False
    return False
