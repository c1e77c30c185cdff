"""Each engine's name as a person reads it, spelled once for every output and every room, and
an engine as a run records it: its key, name, version and where it runs, each a field of its own.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from labkit.i18n import Message, Text, _, english, joined, shown

# Keyed by the name the code uses (``--engines``, ``needs``, an engine's ``key``); the value is
# what tables, reports, verdict rows and server descriptions print (an engine's ``name``).
ENGINE_NAMES: dict[str, str] = {
    "model": "model",
    "mongodb": "MongoDB",
    "postgres": "PostgreSQL",
    "sqlite": "SQLite",
    "wiredtiger": "WiredTiger",
    "mongomock": "mongomock",
    "montydb": "montydb",
}


# The in-process fakes of MongoDB (engines/fakes.py): engines that answer, never MongoDB.
FAKES = ("mongomock", "montydb")


def engine_name(key: str) -> str:
    """The display name of an engine (``postgres`` -> ``PostgreSQL``); an unknown key as is."""
    return ENGINE_NAMES.get(key, key)


def aspect(engine: Text, part: Text) -> Text:
    """The label of a row about one ``part`` of what ``engine`` measured, ``SQLite · size``;
    the engine alone where there is no part."""
    return Message("{engine} · {part}", engine=engine, part=part) if part else engine


def where(engine: Text, version: str | None, part: Text = "") -> str:
    """A row's engine, its version and the part it measured, as tables and cards show them in
    the learner's language: the version beside the engine's name, before the part (``SQLite
    3.40.1 · size``, never ``SQLite · size 3.40.1``, which reads as a size)."""
    return shown(aspect(joined(" ", [engine, version or ""]), part))


@dataclass(frozen=True)
class EngineInfo:
    """One engine a run used, as the run records it where the engine is first known (a server,
    an engine of ``labkit check``): every part a field, so no output reads them back out of a
    line. ``line`` and ``state`` are the only places the parts are joined into words.

    ``version`` is the exact version (for a column of ``labkit check`` that had no engine, the
    version asked for, if any); ``detail`` what the name alone does not say (``in-process
    fake``); ``how`` the way labkit got a server (``uri``, ``dsn``, ``local``, ``docker``; empty
    for an engine inside labkit's process), ``address`` where it listens, its password hidden,
    and ``settings`` what it was given that shapes results (its cache); ``not_run`` marks a
    column that had no engine. ``name`` is ``engine_name(key)`` unless given.
    """

    key: str
    version: str = ""
    detail: Text = ""
    how: str = ""
    address: str = ""
    settings: str = ""
    not_run: bool = False
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", engine_name(self.key))

    def state(self) -> str:
        """The engine after its name, as the report's header lists it in the learner's
        language: ``15.18 (local: postgresql://labkit:***@127.0.0.1:5432/postgres)``,
        ``(in-process fake) 4.3.0``."""
        return self._state(shown(self.detail), _("not run"))

    def _state(self, detail: str, not_run: str = "not run") -> str:
        if self.not_run:
            return f"{self.version}: {not_run}" if self.version else not_run
        runs = "; ".join(part for part in (f"{self.how}: {self.address}" if self.how else "",
                                           self.settings) if part)
        return " ".join(part for part in (f"({detail})" if detail else "",
                                          self.version, f"({runs})" if runs else "") if part)

    def line(self) -> str:
        """The engine in one line, its name first (``describe()``, results.json's ``engines``)."""
        if self.not_run:
            return f"{self.name} {self.version}".strip() + ": not run"
        return f"{self.name} {self._state(english(self.detail))}".strip()

    def to_dict(self) -> dict[str, Any]:
        """The engine as results.json's ``engine_details`` stores it."""
        return {"key": self.key, "name": self.name, "version": self.version,
                "detail": english(self.detail), "how": self.how, "address": self.address,
                "settings": self.settings, "not_run": self.not_run}
