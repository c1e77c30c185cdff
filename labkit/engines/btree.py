"""The B-tree engines, by key: each loads keys of one kind into a fresh index and reports what
the index became. One module each, behind one ``BTreeEngine`` (``engines.btree_engine``): the
textbook model, SQLite, PostgreSQL, an embedded WiredTiger and MongoDB. ``ENGINES`` is the one
table of them; ``measurement`` loads several key kinds into one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from labkit.engines.btree_engine import BTreeEngine, Measurement, Settings
from labkit.engines.btree_model import ModelTree
from labkit.engines.btree_mongodb import MongoTree
from labkit.engines.btree_postgres import PostgresTree
from labkit.engines.btree_sqlite import SQLiteTree
from labkit.engines.btree_wiredtiger import WiredTigerTree
from labkit.errors import BadInput
from labkit.i18n import N_, Message

# Every B-tree engine, by key, in the order the help and the errors list them.
ENGINES: dict[str, BTreeEngine[Any]] = {
    engine.key: engine for engine in (ModelTree(), SQLiteTree(), PostgresTree(),
                                      WiredTigerTree(), MongoTree())}


def engine(key: str) -> BTreeEngine[Any]:
    """The B-tree engine of ``key``; an unknown one is refused with the list of engines."""
    if key not in ENGINES:
        raise BadInput(Message(N_("unknown engine {engine}; choose from {known}"),
                               engine=repr(key), known=", ".join(ENGINES)))
    return ENGINES[key]


def validate_request(engine_key: str, n: int, settings: Settings) -> None:
    """Refuse an unknown engine, a key count, a cache size or a checkpoint interval out of
    range, before any server is started (``BTreeEngine.validate``)."""
    engine(engine_key).validate(n, settings)


def measurement(engine_key: str, kinds: Sequence[str], n: int,
                settings: Settings | None = None, *, server: Any = None,
                progress: Callable[[str, int], None] | None = None) -> Measurement:
    """Every key kind loaded into one engine, checked first (``validate_request``), each load
    rated beside the others. ``server`` is a running PostgreSQL or MongoDB server for those
    engines; ``settings`` says how the loads are made (``Settings()`` if None)."""
    settings = settings or Settings()
    validate_request(engine_key, n, settings)
    return engine(engine_key).measurement(kinds, n, settings, server, progress)
