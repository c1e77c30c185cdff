"""The exceptions labkit raises; each one's message tells the user what to do next.

Messages are shown and written into shareable reports: every password in them is hidden.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from labkit._redact import redact

# The learner's language reaches this module through a translator ``labkit.i18n`` installs when
# it loads: this module is below every other and imports none of them.
_translate: Callable[[str], str] = str


def use_translator(translate: Callable[[str], str]) -> None:
    """Have this module's own words (``Hint:``, ``Tried:``) shown through ``translate``."""
    global _translate
    _translate = translate


def _(message: str) -> str:
    """``message`` in the learner's language (English until ``labkit.i18n`` is loaded)."""
    return _translate(message)


class LabkitError(Exception):
    """Base class: an expected failure that the command line reports in one line."""

    exit_status = 1

    def __init__(self, *args) -> None:
        # A message may quote what the user gave, a connection string among it: never its password.
        super().__init__(*(redact(arg) if isinstance(arg, str) else arg for arg in args))


class BadInput(LabkitError, ValueError):
    """A value given by the user is malformed or out of range."""

    exit_status = 2


def _as_hint(text: str) -> str:
    text = text.strip()
    prefix = _("Hint:")
    return text if not text or text.startswith(("Hint:", prefix)) else f"{prefix} {text}"


class _Hinted(LabkitError):
    """A message and a ``Hint:`` line, both kept as attributes and shown on two lines."""

    def __init__(self, message: str, *, hint: str) -> None:
        self.message = message
        self.hint = _as_hint(hint)
        super().__init__(message)

    def __str__(self) -> str:
        return f"{self.message}\n{self.hint}"


class ServerUnavailable(LabkitError):
    """No server of the requested kind could be found or started.

    ``tried`` lists each way that was tried and why it gave nothing; ``hint`` says what
    to do. Both stay attributes: the message is built from them, never read back.
    """

    def __init__(self, message: str, *, tried: Iterable[str] = (), hint: str = "") -> None:
        self.message = redact(message)
        self.tried = [redact(way) for way in tried]
        self.hint = _as_hint(redact(hint))
        super().__init__(self.message)

    def _body(self) -> list[str]:
        if not self.tried:
            return [self.message]
        # A tried way may carry several lines (a start failure's log): indent them under it.
        items = ["  - " + "\n    ".join(way.splitlines()) for way in self.tried]
        return [f"{self.message} {_('Tried:')}", *items]

    def __str__(self) -> str:
        return "\n".join(self._body() + ([self.hint] if self.hint else []))

    def what_failed(self) -> str:
        """What failed and what was tried, on one line, without the hint."""
        text = " ".join(line.strip() for line in self.message.splitlines()).rstrip(".")
        if self.tried:
            ways = "; ".join(way.splitlines()[0] for way in self.tried)
            text += f" ({_('tried')} {ways})"
        return f"{text or type(self).__name__}."

    def summary(self) -> str:
        """The message on one line: what failed, what was tried, and the hint."""
        return f"{self.what_failed()} {self.hint}".strip()


class ServerStartError(ServerUnavailable):
    """A server was found but did not start; the error carries its log's last lines and a hint."""

    def __init__(self, message: str, *, log_tail: str = "", hint: str = "",
                 tried: Iterable[str] = ()) -> None:
        self.log_tail = redact(log_tail)
        super().__init__(message, tried=tried, hint=hint)

    def _body(self) -> list[str]:
        body = super()._body()
        if self.log_tail:
            body.append(f"{_('Last lines of its log:')}\n{self.log_tail}")
        return body


class CleanupIncomplete(LabkitError):
    """A database labkit made could not be removed wholly: ``database`` is it, ``left`` the
    collections that stay, ``why`` the server's refusal. Said after a run, never a verdict."""

    def __init__(self, database: str, left: Iterable[str], why: str) -> None:
        self.database = database
        self.left = list(left)
        self.why = redact(why)
        super().__init__(f"{database}: left {', '.join(self.left) or 'nothing'} ({self.why})")


class ClaimFailed(LabkitError, AssertionError):
    """A claim's live observation disagreed with its expectation."""


class UnknownClaim(BadInput):
    """The claim ID is not registered."""


# --- model: the comparison rules ---------------------------------------------------------------


class ParallelArrays(BadInput):
    """A sort on two paths that reach two different arrays in one document (MongoDB refuses)."""


class ConversionFailure(BadInput):
    """A conversion MongoDB fails (the whole query fails unless ``onError`` is given)."""


class UnsupportedConversion(BadInput):
    """A conversion whose exact result the model cannot say (it would guess, so it refuses)."""


class CannotJudge(_Hinted, BadInput):
    """The model cannot judge this: a library it needs to answer exactly (PCRE2 for regular
    expressions, ICU for collations) did not load here, or the library refuses a construct
    MongoDB's build accepts. It says so rather than answer by other rules.

    ``library`` names what is missing; ``hint`` says how to get it.
    """

    def __init__(self, message: str, *, library: str, hint: str) -> None:
        self.library = library
        super().__init__(message, hint=hint)


# --- servers -----------------------------------------------------------------------------------


class SecretUnusable(_Hinted):
    """This installation's secret (the key of labkit's mark on its databases) cannot be
    trusted: others may read it, or it is not a secret labkit wrote.

    ``path`` is where it lives; ``hint`` says what to do. Nothing is marked or dropped
    until it is fixed: a mark anyone can make proves nothing.
    """

    def __init__(self, message: str, *, path: str, hint: str) -> None:
        self.path = path
        super().__init__(message, hint=hint)


# --- engines -----------------------------------------------------------------------------------


class NotSupported(Exception):
    """The engine cannot answer this read (an operator, stage or option it does not know)."""


# --- claims and runs ---------------------------------------------------------------------------


class Unobservable(Exception):
    """The engine cannot give what the judge needs (a fill statistic, say): not run there."""


# --- lessons -----------------------------------------------------------------------------------


class Unreadable(ValueError):
    """The learner's input cannot be read as the kind of answer asked for; says how to write it."""


class NoAnswer(Exception):
    """An exercise's answer could not be had (its experiment failed)."""


# --- the command line --------------------------------------------------------------------------


class Stopped(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it unwinds as from Ctrl-C: every server
    stopped, every folder removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def one_line(exc: BaseException) -> str:
    """An exception as one line: its type unless it is one of labkit's own, then its message,
    with any password hidden (foreign exceptions can carry a connection string)."""
    if isinstance(exc, ServerUnavailable):
        return exc.summary()
    text = redact((str(exc).strip() or type(exc).__name__).splitlines()[0])
    return text if isinstance(exc, LabkitError) else f"{type(exc).__name__}: {text}"
