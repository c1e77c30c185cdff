"""The documents' fixtures, kept as canonical Extended JSON in ``data/``, one file per collection.

One loader serves the server and the model alike, so both see the same BSON types
(an ``int`` where the shell stored an int32, ``Int64`` for ``NumberLong``, ...).
"""

from __future__ import annotations

import json
from pathlib import Path

from .errors import BadInput


def _data_folder() -> Path:
    """``labkit/data`` in an installed wheel, else the checkout's top-level ``data/``."""
    here = Path(__file__).resolve().parent
    installed = here / "data"
    return installed if installed.is_dir() else here.parent / "data"


DATA = _data_folder()


def _json_options():
    from bson import json_util
    from bson.binary import UuidRepresentation

    return json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL,
                                 uuid_representation=UuidRepresentation.STANDARD,
                                 tz_aware=True)


def parse(text: str) -> list[dict]:
    """Parse Extended JSON: an array of documents, or one document per line."""
    from bson import json_util

    stripped = text.strip()
    try:
        if stripped.startswith("["):
            docs = json_util.loads(stripped, json_options=_json_options())
        else:
            docs = [json_util.loads(line, json_options=_json_options())
                    for line in stripped.splitlines() if line.strip()]
    except (ValueError, TypeError) as exc:
        raise BadInput(f"not Extended JSON: {exc}") from exc
    if not all(isinstance(doc, dict) for doc in docs):
        raise BadInput("expected an array of documents, or one document per line")
    return docs


def parse_value(text: str):
    """Parse one Extended JSON value (a filter, an operand)."""
    from bson import json_util

    try:
        return json_util.loads(text, json_options=_json_options())
    except (ValueError, TypeError) as exc:
        raise BadInput(f"not Extended JSON: {exc}") from exc


def read(path: str | Path) -> list[dict]:
    """Read a fixture file (Extended JSON) into documents with their exact BSON types."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror}") from exc
    return parse(text)


def names() -> list[str]:
    """The collections in ``data/``."""
    return sorted(p.stem for p in DATA.glob("*.json"))


def load(name: str) -> list[dict]:
    """The documents of collection ``name`` from ``data/<name>.json``."""
    if name not in names():
        raise BadInput(f"no fixture {name!r}; known: {', '.join(names())}")
    return read(DATA / f"{name}.json")


def insert(database, name: str, docs: list[dict] | None = None):
    """Insert a fixture (or the given documents) as collection ``name``; return the collection."""
    collection = database[name]
    collection.insert_many(docs if docs is not None else load(name))
    return collection


def dumps(value) -> str:
    """Relaxed Extended JSON, for printing ``_id`` values and documents."""
    from bson import json_util

    return json_util.dumps(value, json_options=json_util.RELAXED_JSON_OPTIONS)


def relaxed(value):
    """A value as plain JSON data in relaxed Extended JSON."""
    return json.loads(dumps(value))
