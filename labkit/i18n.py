"""The learner's language for labkit's own words: English unless ``labkit.language("vi")`` in
a notebook, or ``LABKIT_LANG=vi`` for the command line and the report.

A ``Message`` is one of labkit's sentences kept as data (its English template and its values)
until it is shown, never a ``str``: ``english()`` (and ``str()``) is the text files keep
(results.json, JUnit, ``--json``), ``shown()`` the learner's. This module sits below every
other, ``errors`` too (whose words it keeps): it imports nothing of labkit but ``_paths``.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from typing import Any, Protocol, TypeAlias, runtime_checkable

from labkit._paths import PACKAGE

LANGUAGES = ("en", "vi")
CATALOGUES = PACKAGE / "locale"
_chosen: str | None = None


def language(code: str | None = None) -> str:
    """Set the language when given one of ``LANGUAGES`` (any case); return the language in
    use. An unknown code is a ``ValueError``: the learner's own call, ``labkit.language``,
    refuses one first, in the learner's words (``lessons.notebook.language``)."""
    global _chosen
    if code is not None:
        known = known_language(code)
        if known is None:
            raise ValueError(f"unknown language {code!r}; choose one of {', '.join(LANGUAGES)}")
        _chosen = known
    return _chosen or _from_environment()


def known_language(code: str) -> str | None:
    """``code`` as ``LANGUAGES`` spells it (``" EN"`` is ``"en"``), or None when labkit does
    not speak it."""
    code = code.strip().lower()
    return code if code in LANGUAGES else None


def _from_environment() -> str:
    code = os.environ.get("LABKIT_LANG", "").strip().lower()[:2]
    return code if code in LANGUAGES else "en"


@functools.cache
def _catalogue(code: str) -> dict[str, str]:
    path = CATALOGUES / code / "labkit.po"
    if not path.exists():
        return {}
    import polib

    return {e.msgid: e.msgstr for e in polib.pofile(str(path))
            if e.msgstr and not e.obsolete and "fuzzy" not in e.flags}


def N_(message: str) -> str:
    """``message`` unchanged: marks English kept in a constant, translated where it is shown."""
    return message


# Each of ``LANGUAGES`` by its name, as a sentence names it mid-way ("as Vietnamese writes
# numbers"; "theo cách tiếng Anh viết số").
LANGUAGE_NAMES = {"en": N_("English"), "vi": N_("Vietnamese")}


def _(message: str) -> str:
    """``message`` in the language in use (English when no translation exists)."""
    code = language()
    if code == "en":
        return message
    return _catalogue(code).get(message, message)



# Numbers and dates in the learner's language, with CLDR's rules through Babel: "1,700,000,000"
# and "69.6%" in English, "1.700.000.000" and "69,6%" in Vietnamese.
_BABEL_LOCALES = {"en": "en", "vi": "vi"}


def _locale() -> str:
    return _BABEL_LOCALES[language()]


def number(value: float, digits: int | None = None, *, at_most: int | None = None) -> str:
    """``value`` written in the language in use, grouped; with exactly ``digits`` decimals when
    given, else as many as it has, up to ``at_most`` (three when not given)."""
    from babel.numbers import format_decimal

    if digits is None and at_most is None:
        return str(format_decimal(value, locale=_locale()))
    if digits is None:
        pattern = "#,##0" + ("." + "#" * at_most if at_most else "")
    else:
        pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return str(format_decimal(value, format=pattern, locale=_locale(), decimal_quantization=True))


def percent(ratio: float, digits: int = 1) -> str:
    """``ratio`` (0.696) as a percentage in the language in use ("69.6%", "69,6%")."""
    from babel.numbers import format_percent

    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "") + "%"
    return str(format_percent(ratio, format=pattern, locale=_locale(), decimal_quantization=True))


# A message that stays English where files keep it (results.json) and is shown in the learner's
# language: its template and values are kept as data, so nothing parses the English text back.
_NUMBER_SPEC = re.compile(r",?(?:\.(?P<digits>\d+))?(?P<kind>[f%]?)")


@runtime_checkable
class Phrase(Protocol):
    """A value a message quotes that has two forms of its own: its English and the learner's
    (a ``Message`` is one; ``errors`` keeps a text cut to one line as another)."""

    def english(self) -> str:
        """The value as files keep it."""
        ...

    def shown(self) -> str:
        """The value as the learner reads it."""
        ...


class _English:
    """One value of a message as files keep it: a phrase's English, anything else as
    ``format`` writes it."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        if _is_phrase(self.value):
            return format(self.value.english(), spec)
        return format(self.value, spec)


def _is_phrase(value: Any) -> bool:
    """``isinstance(value, Phrase)``, answered at once for the plain values most messages hold
    (a protocol's check costs about as much as formatting the message)."""
    return type(value) not in _PLAIN and isinstance(value, Phrase)


_PLAIN = frozenset({str, int, float, bool, type(None)})


class _Shown:
    """One value of a message as the learner reads it: a number by its format spec through
    Babel ("{n:,}" as ``number``, "{x:.2f}" as ``number(x, 2)``, "{r:.1%}" as ``percent``), a
    phrase in the learner's words, anything else as ``format`` writes it."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        value = self.value
        if _is_phrase(value):
            return format(value.shown(), spec)
        found = _NUMBER_SPEC.fullmatch(spec)
        if not isinstance(value, int | float) or isinstance(value, bool) or found is None:
            return format(value, spec)
        digits = int(found["digits"]) if found["digits"] else None
        if found["kind"] == "%":
            return percent(value, digits or 0)
        return number(value, digits)


class Message:
    """One of labkit's sentences kept as data: its English ``template`` and its ``values``,
    never a ``str``, so that nothing reads or cuts it as text before it is shown. ``shown()``
    gives it in the learner's language (the template through the catalogue, each number in
    the language's own format: ``{n:,}`` is "2,000" here and "2.000" in Vietnamese);
    ``english()`` and ``str()`` give its English, which files (results.json, JUnit,
    ``--json``) and exception text keep. Two messages are equal when their template and values
    are; a message is immutable, hashable and pickles as its template and values."""

    __slots__ = ("template", "values")
    template: str
    values: dict[str, Any]

    def __init__(self, template: str, /, **values: Any) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "values", values)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Message is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Message is immutable: cannot delete {name!r}")

    def english(self) -> str:
        """The message in English, as files keep it."""
        if not self.values:
            return self.template
        return self.template.format(**{k: _English(v) for k, v in self.values.items()})

    def shown(self) -> str:
        """The message in the language in use."""
        if not self.values:
            return _(self.template)
        return _(self.template).format(**{k: _Shown(v) for k, v in self.values.items()})

    def __str__(self) -> str:
        return self.english()

    def __repr__(self) -> str:
        values = "".join(f", {k}={v!r}" for k, v in self.values.items())
        return f"Message({self.template!r}{values})"

    def __bool__(self) -> bool:
        # A message with no words (an empty hint) is as empty as the empty text.
        return bool(self.english())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return (self.template, self.values) == (other.template, other.values)

    def __hash__(self) -> int:
        # Values may be lists or dictionaries: their names alone keep the hash equal for equals.
        return hash((self.template, frozenset(self.values)))

    def __reduce__(self) -> tuple[Any, ...]:
        return _message, (self.template, self.values)


def _message(template: str, values: dict[str, Any]) -> Message:
    return Message(template, **values)


# Where a message or a plain text is accepted alike (a plain one is shown as it is, and is the
# same in English). Any other phrase (``Phrase``) goes in as a value of a ``Message``.
Text: TypeAlias = str | Message


def english(text: Text) -> str:
    """``text`` as files keep it: a ``Message`` in English, any other text as it is."""
    return text.english() if isinstance(text, Message) else text


def shown(text: Text) -> str:
    """``text`` in the language in use: a ``Message`` shown, any other text as it is."""
    return text.shown() if isinstance(text, Message) else text


def plural(n: int, one: str, many: str, **values: object) -> str:
    """``one`` or ``many`` (messages with ``{n}``) as the number says, translated, filled."""
    return _(one if n == 1 else many).format(n=n, **values)


def joined(separator: str, parts: Iterable[Text]) -> Text:
    """The non-empty ``parts`` joined as ``str.join`` joins them; a ``Message`` when one of
    them is, so that the whole can still be shown in the learner's language."""
    kept = [part for part in parts if part]
    if not any(isinstance(part, Message) for part in kept):
        return separator.join(str(part) for part in kept)
    names = [f"p{i}" for i in range(len(kept))]
    template = separator.replace("{", "{{").replace("}", "}}").join(f"{{{n}}}" for n in names)
    return Message(template, **dict(zip(names, kept, strict=True)))


def in_english(value: Any) -> Any:
    """A JSON-like value (``labkit btree --json``, results.json) with every ``Message`` in it
    in English, as files keep them; every other value as it is."""
    if isinstance(value, Message):
        return value.english()
    if isinstance(value, dict):
        return {key: in_english(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [in_english(item) for item in value]
    return value
