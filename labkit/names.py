"""Each engine's name as a person reads it, spelled once for every output and every room."""

from __future__ import annotations

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


def engine_name(key: str) -> str:
    """The display name of an engine (``postgres`` -> ``PostgreSQL``); an unknown key as is."""
    return ENGINE_NAMES.get(key, key)
