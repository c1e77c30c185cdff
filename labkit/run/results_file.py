"""A run's ``results.json`` read back: a file (or a report folder holding one) checked to be
labkit's results of the layout this labkit writes (``results.SCHEMA``), else ``BadInput``.

``docs/results.schema.json`` describes the layout; this reader checks what a reader of it
relies on (the schema's name, each claim's ID and verdict, each row's verdict), so a file that
is something else is refused in one line instead of failing later. It is read within labkit's
bounds (``fixtures.read_bytes``): a link to ``/dev/zero`` or a pipe nobody writes to is
refused at once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from labkit.claims.claim import VERDICTS
from labkit.errors import BadInput
from labkit.i18n import N_, Message
from labkit.model import fixtures
from labkit.run.results import SCHEMA

_PREFIX = SCHEMA.rsplit("/", 1)[0] + "/"


def read(source: str | Path) -> dict[str, Any]:
    """The results a run wrote at ``source`` (``results.json``, or the report folder that
    holds it), as the loaded dict; ``BadInput`` naming the file and what is wrong with it."""
    path = results_path(Path(source))
    try:
        text = fixtures.read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _refused(path, Message(N_("it is not UTF-8 text"))) from exc
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _refused(path, Message(N_("it is not JSON"))) from exc
    validate(data, path)
    return data  # type: ignore[no-any-return]


def results_path(given: Path) -> Path:
    """The results file ``given`` names: itself, or ``results.json`` in a report folder."""
    return given / "results.json" if given.is_dir() else given


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
