"""A run's ``results.json`` read back: a file (or a report folder holding one) checked to be
labkit's results of the layout this labkit writes (``results.SCHEMA``), else ``BadInput``.

``docs/results.schema.json`` describes the layout; this reader checks what a reader of it
relies on (the schema's name, each claim's ID and verdict, each row's verdict), so a file that
is something else is refused in one line instead of failing later.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from labkit.claims.claim import VERDICTS
from labkit.errors import BadInput
from labkit.i18n import N_, Message
from labkit.run.results import SCHEMA

# Far beyond a run of every claim with its evidence (a few MiB); a larger file is not one.
MAX_BYTES = 256 * 1024 * 1024
_PREFIX = SCHEMA.rsplit("/", 1)[0] + "/"


def read(source: str | Path) -> dict[str, Any]:
    """The results a run wrote at ``source`` (``results.json``, or the report folder that
    holds it), as the loaded dict; ``BadInput`` naming the file and what is wrong with it."""
    path = Path(source)
    if path.is_dir():
        path = path / "results.json"
    try:
        if path.stat().st_size > MAX_BYTES:
            raise _refused(path, Message(N_("it is larger than {n} MiB"),
                                         n=MAX_BYTES // (1024 * 1024)))
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError as exc:
        raise BadInput(Message(N_("{path}: no such file"), path=str(path))) from exc
    except OSError as exc:
        raise BadInput(Message(N_("{path} cannot be read: {error}"), path=str(path),
                               error=exc.strerror or str(exc))) from exc
    except UnicodeDecodeError as exc:
        raise _refused(path, Message(N_("it is not UTF-8 text"))) from exc
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _refused(path, Message(N_("it is not JSON"))) from exc
    validate(data, path)
    return data  # type: ignore[no-any-return]


def validate(data: object, path: str | Path) -> None:
    """``BadInput`` unless ``data`` is labkit's results in this labkit's layout."""
    schema = data.get("schema") if isinstance(data, dict) else None
    if not isinstance(schema, str) or not schema.startswith(_PREFIX):
        raise _refused(path, Message(N_("it has no \"schema\": \"{schema}\""), schema=SCHEMA))
    if schema != SCHEMA:
        raise BadInput(Message(N_("{path} holds {found}; this labkit reads {schema}: compare "
                                  "results written by labkit versions of the same layout"),
                               path=str(path), found=schema, schema=SCHEMA))
    assert isinstance(data, dict)
    claims = data.get("claims")
    if not isinstance(claims, list):
        raise _refused(path, Message(N_("its \"claims\" is not a list")))
    for index, item in enumerate(claims):
        if not (isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]
                and item.get("verdict") in VERDICTS and isinstance(item.get("results"), list)
                and all(isinstance(row, dict) and row.get("verdict") in VERDICTS
                        for row in item["results"])):
            raise _refused(path, Message(N_("claim {n:d} lacks an id, a verdict or rows with "
                                            "verdicts"), n=index + 1))


def _refused(path: str | Path, why: Message) -> BadInput:
    return BadInput(Message(N_("{path} is not labkit results: {why}"), path=str(path),
                            why=why))
