"""The exceptions labkit raises; each one's message tells the user what to do next.

Messages are shown and written into shareable reports: every password in them is hidden. A
message is a ``labkit.i18n.Message`` (English where files keep it, shown in the learner's
language) or a plain text; the exceptions keep their parts as such, never read back.

Internal to labkit: a notebook catches these as ``labkit``'s names (docs/api.md); what is
here may change without notice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from labkit.i18n import N_, Message, Text, _, english
from labkit.i18n import shown as shown_text


@dataclass(frozen=True)
class _Line:
    """A message on one line as ``what_failed`` writes it, in English and shown alike: its
    first line only (``first``), or every line joined with its closing full stop dropped (a
    value of a ``Message``)."""

    text: Message
    first: bool

    def english(self) -> str:
        """The line in English."""
        return _cut(self.text.english(), self.first)

    def shown(self) -> str:
        """The line in the learner's language."""
        return _cut(self.text.shown(), self.first)


def _cut(text: str, first: bool) -> str:
    if first:
        return text.strip().splitlines()[0] if text.strip() else text
    return " ".join(line.strip() for line in text.splitlines()).rstrip(".")


def _one_line(text: Text, first: bool) -> Text:
    """``text`` on one line (``_Line``), still a message where it was one."""
    if not isinstance(text, Message):
        return _cut(text, first)
    return Message("{line}", line=_Line(text, first))


@dataclass(frozen=True)
class _Indented:
    """A text of several lines as a list item holds it: every line after the first indented
    under the item (a value of a ``Message``)."""

    text: Text

    def english(self) -> str:
        """The text in English."""
        return "\n    ".join(english(self.text).splitlines())

    def shown(self) -> str:
        """The text in the learner's language."""
        return "\n    ".join(shown_text(self.text).splitlines())


def _hidden(text: str) -> str:
    """``text`` with every password hidden. The URI and DSN parsers behind it load on first
    use, so that a command which raises nothing (``labkit predict``) does not wait for them."""
    from labkit._redact import redact as hide  # the URI parsers: `labkit predict` loads none

    return hide(text)


def _shown(text: Text) -> str:
    """``text`` as the learner reads it, any password hidden."""
    return _hidden(shown_text(text))


def _redacted(text: Text) -> Text:
    """``text`` with every connection string hidden, still a message kept as data (its English
    and the learner's form) where it was one and its values could be hidden one by one."""
    if not isinstance(text, Message):
        return _hidden(text)
    if _hidden(text.template) != text.template:
        return _hidden(text.english())
    kept = Message(text.template, **{k: _redacted(v) if isinstance(v, str | Message) else v
                                     for k, v in text.values.items()})
    # A secret may span a value and the words around it: then only the plain English is safe.
    return kept if _hidden(kept.english()) == kept.english() else _hidden(text.english())


def said(exc: BaseException) -> Text:
    """What ``exc`` says: its message, kept a ``Message`` (to be shown in the learner's
    language, or quoted in another message) where it was raised with one; else its text."""
    if len(exc.args) == 1 and isinstance(exc.args[0], str | Message):
        return exc.args[0]
    return str(exc)


class LabkitError(Exception):
    """Base class: an expected failure that the command line reports in one line."""

    exit_status = 1

    def __init__(self, *args: object) -> None:
        # A message may quote what the user gave, a connection string among it: never its password.
        super().__init__(*(_redacted(arg) if isinstance(arg, str | Message) else arg
                           for arg in args))

    def __str__(self) -> str:
        # What a person reads (the command line's ``Error:`` line, a notebook's traceback) is
        # in the learner's language; the parts that files keep stay English.
        if len(self.args) == 1 and isinstance(self.args[0], str | Message):
            return _shown(self.args[0])
        return super().__str__()

    def _render_traceback_(self) -> list[str]:
        """How IPython shows it in a notebook's cell: one line, its kind and what it says, as
        the command line's ``Error:`` line does, not a traceback of labkit's frames (a
        learner's wrong filter is no crash)."""
        return [f"{type(self).__name__}: {self}"]


class BadInput(LabkitError, ValueError):
    """A value given by the user is malformed or out of range."""

    exit_status = 2


def _as_hint(text: Text) -> Text:
    text = _redacted(text)
    plain = english(text)
    if not plain.strip():
        return ""
    if plain.lstrip().startswith(("Hint:", _("Hint:"))):
        return text
    return Message("{label} {hint}", label=Message(N_("Hint:")), hint=text)


class _Hinted(LabkitError):
    """A message and a ``Hint:`` line, both kept as attributes and shown on two lines."""

    def __init__(self, message: Text, *, hint: Text) -> None:
        super().__init__(message)
        self.message: Text = self.args[0]
        self.hint = _as_hint(hint)

    def __str__(self) -> str:
        return f"{_shown(self.message)}\n{_shown(self.hint)}"


class ServerUnavailable(LabkitError):
    """No server of the requested kind could be found or started.

    ``tried`` lists each way that was tried and why it gave nothing; ``hint`` says what
    to do. Both stay attributes: the message is built from them, never read back. Each is
    English where files keep it (``what_failed()`` and ``summary()`` too, as results.json keeps
    them) and shown in the learner's language through ``i18n.shown``; ``str()`` is the
    learner's, ``english()`` the whole of it in English.
    """

    def __init__(self, message: Text, *, tried: Iterable[Text] = (), hint: Text = "") -> None:
        super().__init__(message)
        self.message: Text = self.args[0]
        self.tried = [_redacted(way) for way in tried]
        self.hint = _as_hint(hint)

    def _body(self) -> list[Text]:
        if not self.tried:
            return [self.message]
        # A tried way may carry several lines (a start failure's log): indent them under it.
        return [Message("{message} {tried}", message=self.message, tried=Message(N_("Tried:"))),
                *(Message("  - {way}", way=_Indented(way)) for way in self.tried)]

    def _lines(self) -> list[Text]:
        return self._body() + ([self.hint] if self.hint else [])

    def __str__(self) -> str:
        return "\n".join(_shown(line) for line in self._lines())

    def english(self) -> str:
        """The whole message in English, as files keep it (``str()`` is the learner's)."""
        return "\n".join(english(line) for line in self._lines())

    def text(self) -> Message:
        """The whole message kept as data, English and the learner's alike (a start failure
        quoted among the ways another search tried)."""
        lines = {f"l{i}": line for i, line in enumerate(self._lines())}
        return Message("\n".join(f"{{{name}}}" for name in lines), **lines)

    def what_failed(self) -> Message:
        """What failed and what was tried, on one line, without the hint (English, shown in
        the learner's language through ``labkit.i18n.shown``)."""
        if not english(self.message).strip():
            return Message("{name}.", name=type(self).__name__)
        what = _one_line(self.message, first=False)
        if not self.tried:
            return Message("{what}.", what=what)
        ways = {f"w{i}": _one_line(way, first=True) for i, way in enumerate(self.tried)}
        listed = Message("; ".join(f"{{{name}}}" for name in ways), **ways)
        return Message("{what} ({tried} {ways}).", what=what, tried=Message(N_("tried")),
                       ways=listed)

    def summary(self) -> Message:
        """The message on one line: what failed, what was tried, and the hint."""
        failed = self.what_failed()
        return Message("{failed} {hint}", failed=failed, hint=self.hint) if self.hint else failed


class ServerStartError(ServerUnavailable):
    """A server was found but did not start; the error carries its log's last lines and a hint."""

    def __init__(self, message: Text, *, log_tail: str = "", hint: Text = "",
                 tried: Iterable[Text] = ()) -> None:
        self.log_tail = _hidden(log_tail)
        super().__init__(message, tried=tried, hint=hint)

    def _body(self) -> list[Text]:
        body = super()._body()
        if self.log_tail:
            body.append(Message("{label}\n{log}", label=Message(N_("Last lines of its log:")),
                                log=self.log_tail))
        return body


class CleanupIncomplete(LabkitError):
    """A database labkit made could not be removed wholly: ``database`` is it, ``left`` the
    collections that stay, ``why`` the server's refusal. Said after a run, never a verdict."""

    def __init__(self, database: str, left: Iterable[str], why: Text) -> None:
        self.database = database
        self.left = list(left)
        self.why = _hidden(english(why))
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


class ModelLimit(BadInput):
    """What the model does not carry (an operator, a variable, a conversion it would have to
    guess): it says so rather than answer. Never its prediction that the server refuses: the
    server may well answer (``labkit.engines.query.predicts_refusal``)."""


class UnsupportedConversion(ModelLimit):
    """A conversion whose exact result the model cannot say (it would guess, so it refuses)."""


class CannotJudge(_Hinted, BadInput):
    """The model cannot judge this: a library it needs to answer exactly (PCRE2 for regular
    expressions, ICU for collations) did not load here, or the library refuses a construct
    MongoDB's build accepts. It says so rather than answer by other rules.

    ``library`` names what is missing; ``hint`` says how to get it.
    """

    def __init__(self, message: Text, *, library: str, hint: Text) -> None:
        self.library = library
        super().__init__(message, hint=hint)


# --- servers -----------------------------------------------------------------------------------


class SecretUnusable(_Hinted):
    """This installation's secret (the key of labkit's mark on its databases) cannot be
    trusted: others may read it, or it is not a secret labkit wrote.

    ``path`` is where it lives; ``hint`` says what to do. Nothing is marked or dropped
    until it is fixed: a mark anyone can make proves nothing.
    """

    def __init__(self, message: Text, *, path: str, hint: Text) -> None:
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
    """SIGTERM or SIGHUP, raised where the program is, so that it unwinds as from Ctrl-C:
    every server stopped, every folder removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def write_errors(exc: BaseException) -> list[Mapping[str, Any]]:
    """The server's write errors, then its write concern errors, that a bulk write's refusal
    carries (pymongo's BulkWriteError: its ``details`` the bulk result, whose ``writeErrors``
    and ``writeConcernErrors`` list what the server said of each write); none for any other
    error."""
    details = getattr(exc, "details", None)
    if not isinstance(details, Mapping):
        return []
    return [error for errors in ("writeErrors", "writeConcernErrors")
            if isinstance(details.get(errors), list) for error in details[errors]
            if isinstance(error, Mapping)]


def server_said(exc: BaseException) -> str:
    """What a server's refusal said, on one line: its own ``errmsg`` and code, where the
    exception carries the reply (pymongo's ``OperationFailure.details``; its text appends the
    whole reply to the message); otherwise the exception's first line."""
    details = getattr(exc, "details", None)
    if isinstance(details, Mapping) and isinstance(details.get("errmsg"), str):
        return f"{details['errmsg']} (code {details.get('code')})"
    # A bulk write's refusal (pymongo's BulkWriteError, "batch op errors occurred" with the
    # whole result appended): what the server said of each write that failed.
    said = [f"{error['errmsg']} (code {error.get('code')})" for error in write_errors(exc)
            if isinstance(error.get("errmsg"), str)]
    if said:  # an unordered insertMany may refuse thousands: the first few, and how many more
        more = f"; and {len(said) - 3:,} more" if len(said) > 3 else ""
        return "; ".join(said[:3]) + more
    line = (str(exc).strip().splitlines() or [""])[0] or type(exc).__name__
    # pymongo's server selection gives up with "<why>, Timeout: <s>s, Topology Description:
    # <the driver's whole view of the topology>" (pymongo/synchronous/topology.py,
    # _select_servers_loop): the why, and how long it waited, are the part a person reads.
    why, timed, _view = line.partition(", Topology Description: ")
    return why if timed else line


def one_line(exc: BaseException) -> Text:
    """An exception as one line: its type unless it is one of labkit's own, then its message
    (a server's refusal as ``server_said`` has it), with any password hidden (foreign
    exceptions can carry a connection string). labkit's own stay messages: English where files
    keep them, shown in the learner's language through ``labkit.i18n.shown``."""
    if isinstance(exc, ServerUnavailable):
        return exc.summary()
    if isinstance(exc, LabkitError) and len(exc.args) == 1 \
            and isinstance(exc.args[0], str | Message) and english(exc.args[0]).strip():
        return _one_line(exc.args[0], first=True)
    text = _hidden(server_said(exc))
    return text if isinstance(exc, LabkitError) else f"{type(exc).__name__}: {text}"
