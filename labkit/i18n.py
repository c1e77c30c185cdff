"""The learner's language for labkit's own words: English unless ``labkit.language("vi")`` in
a notebook, or ``LABKIT_LANG=vi`` for the command line and the report."""

from __future__ import annotations

import functools
import os

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
            raise BadInput(f"unknown language {code!r}; choose {' or '.join(LANGUAGES)}")
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
