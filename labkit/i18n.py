"""The learner's language for labkit's own words: English unless ``labkit.language("vi")`` in
a notebook, or ``LABKIT_LANG=vi`` for the command line and the report."""

from __future__ import annotations

import functools
import os

from labkit import errors
from labkit._paths import PACKAGE
from labkit.errors import BadInput

LANGUAGES = ("en", "vi")
CATALOGUES = PACKAGE / "locale"
_chosen: str | None = None


def language(code: str | None = None) -> str:
    """Set the language (``"en"`` or ``"vi"``) when given one; return the language in use."""
    global _chosen
    if code is not None:
        code = code.strip().lower()
        if code not in LANGUAGES:
            raise BadInput(_("unknown language {code}; choose one of {choices}").format(
                code=repr(code), choices=", ".join(LANGUAGES)))
        _chosen = code
    return _chosen or _from_environment()


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


def _(message: str) -> str:
    """``message`` in the language in use (English when no translation exists)."""
    code = language()
    if code == "en":
        return message
    return _catalogue(code).get(message, message)


errors.use_translator(_)


# Numbers and dates in the learner's language, with CLDR's rules through Babel: "1,700,000,000"
# and "69.6%" in English, "1.700.000.000" and "69,6%" in Vietnamese.
_BABEL_LOCALES = {"en": "en", "vi": "vi"}


def _locale() -> str:
    return _BABEL_LOCALES[language()]


def number(value: float, digits: int | None = None) -> str:
    """``value`` written in the language in use, grouped; with exactly ``digits`` decimals when
    given, else as many as it has (up to three)."""
    from babel.numbers import format_decimal

    if digits is None:
        return str(format_decimal(value, locale=_locale()))
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return str(format_decimal(value, format=pattern, locale=_locale(), decimal_quantization=True))


def percent(ratio: float, digits: int = 1) -> str:
    """``ratio`` (0.696) as a percentage in the language in use ("69.6%", "69,6%")."""
    from babel.numbers import format_percent

    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "") + "%"
    return str(format_percent(ratio, format=pattern, locale=_locale(), decimal_quantization=True))
