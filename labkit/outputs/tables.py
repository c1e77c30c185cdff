"""pandas tables for the lessons: fixtures before a prediction, B-tree measurements as an
engine by key-kind pivot, evidence rows, and a run's ``results.json`` as a frame to explore."""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from bson import Binary, Decimal128, Int64, ObjectId

from labkit.claims.claim import (
    VERDICT_TEXT,
    kind_text,
    short_json,
    source_title,
    topic_text,
    verdict_text,
)
from labkit.engines.btree_engine import Measurement, NotMeasured
from labkit.i18n import N_, _, number, percent, shown
from labkit.model import bson_order, fixtures
from labkit.model.objectid import iso_z
from labkit.names import engine_name, where
from labkit.outputs.escape import as_typed

if TYPE_CHECKING:
    import pandas as pd

    from labkit.model.bson_order import Document
    from labkit.run.results import Result

# B-tree loads as a table takes them: one engine's measurement (or why it has none), several,
# or ``Context.btree_comparison``'s ``{engine: measurement}``.
Measurements = (Measurement | NotMeasured | Sequence[Measurement | NotMeasured]
                | dict[str, Measurement | NotMeasured])

# The headings a learner reads, built in English and shown translated (``_headings``).
HEADINGS = (N_("engine"), N_("keys"), N_("index bytes"), N_("leaf pages"), N_("avg leaf fill"),
            N_("insert s"), N_("note"), N_("size vs uuid7"), N_("id"), N_("topic"), N_("kind"),
            N_("claim verdict"), N_("version"), N_("verdict"), N_("seconds"), N_("reason"),
            N_("lesson"), N_("needs"), N_("source"))


class _Rows(Protocol):
    """A check's results: a claim's (``ClaimResult``) or a whole run's (``Run``)."""

    @property
    def rows(self) -> Sequence[Result]: ...


@runtime_checkable
class _Checked(Protocol):
    """A notebook's ``Checked``: one claim's check, its results kept as ``result``."""

    @property
    def result(self) -> _Rows: ...


def _headings(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its column and index headings in the learner's words."""
    frame = frame.rename(columns=lambda c: _(c) if isinstance(c, str) else c)
    frame.index.names = [_(n) if isinstance(n, str) else n for n in frame.index.names]
    if hasattr(frame.columns, "names"):
        frame.columns.names = [_(n) if isinstance(n, str) else n for n in frame.columns.names]
    return frame


def shell(value: Any) -> str:
    """A value as mongosh would write it, so a fixture reads like the chapter's listing."""
    for kinds, write in _shell_writers():
        if isinstance(value, kinds):
            return write(value)
    return str(value)


@functools.cache
def _shell_writers() -> tuple[tuple[type | tuple[type, ...], Callable[[Any], str]], ...]:
    """How mongosh writes each type; the first that fits wins, so bool and Int64 (both ints)
    come before int. Built on first use."""
    return (
        ((type(None), bool), lambda v: {None: "null", True: "true", False: "false"}[v]),
        (str, lambda v: json.dumps(v, ensure_ascii=False)),
        (Int64, lambda v: f'NumberLong("{int(v)}")'),
        (int, repr),
        (float, _shell_double),
        (Decimal128, lambda v: f'NumberDecimal("{v}")'),
        (dt.datetime, lambda v: f'ISODate("{iso_z(v)}")'),
        (ObjectId, lambda v: f'ObjectId("{v}")'),
        (uuid.UUID, lambda v: f'UUID("{v}")'),
        (Binary, _shell_binary),
        ((list, tuple), lambda v: "[" + ", ".join(shell(item) for item in v) + "]"),
        (dict, lambda v: "{" + ", ".join(f"{k}: {shell(item)}" for k, item in v.items()) + "}"),
    )


def _shell_double(value: float) -> str:
    # mongosh writes the IEEE specials as JavaScript does: NaN, Infinity, -Infinity.
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def _shell_binary(value: Any) -> str:
    # Subtype 4 is a standard UUID, which mongosh shows as UUID(…), not as bytes.
    return f'BinData({value.subtype}, "{value.hex()}")' if value.subtype != 4 else \
        f'UUID("{value.as_uuid()}")'


def fixture(docs: str | list[Document], fields: list[str] | None = None) -> pd.DataFrame:
    """A fixture (its name, or its documents) as a table: ``_id``, then each field's value and
    BSON type. A missing field shows as "(missing)"; nothing is sorted or answered."""
    import pandas as pd

    docs = fixtures.load(docs) if isinstance(docs, str) else docs
    fields = fields or list(dict.fromkeys(k for d in docs for k in d if k != "_id"))
    rows = []
    for doc in docs:
        row = {"_id": _index(doc.get("_id"))}
        for name in fields:
            if name in doc:
                row[name] = shell(doc[name])
                row[_("{name} type").format(name=name)] = bson_order.bson_type(doc[name])
            else:
                row[name], row[_("{name} type").format(name=name)] = _("(missing)"), "-"
        rows.append(row)
    return pd.DataFrame(rows).set_index("_id")


def _index(value: Any) -> Any:
    """An ``_id`` as a table's row heading: as it is, or binary data (a UUID) as the shell
    writes it, ``UUID("…")``, where pandas would print its raw bytes."""
    return shell(value) if isinstance(value, Binary | uuid.UUID) else value


# pandas shows at most this many characters of a cell (``display.max_colwidth``), cutting the
# rest wherever it falls, mid-word too: a longer note is cut here, at a word, first.
CELL_WIDTH = 50


def whole_text(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as a DataFrame whose cells are shown whole, in a notebook and as text, where
    pandas cuts each at ``display.max_colwidth`` characters, mid-word: the progress table's
    questions, ``labkit.explain``'s reasons."""
    return _whole_text()(frame)


@functools.cache
def _whole_text() -> type[pd.DataFrame]:
    import pandas as pd

    class WholeText(pd.DataFrame):
        """A table of sentences: none cut."""

        @as_typed
        def _repr_html_(self) -> str | None:
            with pd.option_context("display.max_colwidth", None):
                return super()._repr_html_()  # type: ignore[misc, no-any-return]

        def __repr__(self) -> str:  # every column, each cell whole, however wide
            return self.to_string(max_colwidth=None)

    return WholeText


def keep_from_maths() -> None:
    """Every pandas table this kernel shows kept from MathJax, as labkit's own outputs are
    (``escape.as_typed``): a lesson's tables hold queries and field paths (``$gt``,
    ``"$userId"``), never mathematics. pandas' own switch, ``display.html.use_mathjax``, marks
    each table with the classes MathJax skips, the learner's own tables too."""
    import pandas as pd

    pd.set_option("display.html.use_mathjax", False)


def fitted(text: str, width: int = CELL_WIDTH) -> str:
    """``text`` as a table cell shows it whole: cut at the last word boundary that fits, with an
    ellipsis, where it is longer than ``width`` characters."""
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    at = max(cut.rfind(" "), cut.rfind("("))
    return (cut[:at] if at > 0 else cut).rstrip(" ,;:(") + "\u2026"


def _percent(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else percent(value, digits)


def _each(measurements: Measurements) -> list[Measurement | NotMeasured]:
    """The measurements given, as a list."""
    if isinstance(measurements, Measurement | NotMeasured):
        return [measurements]
    return list(measurements.values() if isinstance(measurements, dict) else measurements)


def btree_frame(measurements: Measurements) -> pd.DataFrame:
    """B-tree loads as one row per (engine, key kind): index size, leaf pages, fill, seconds.

    Accepts one measurement, a list, or ``Context.btree_comparison``'s ``{engine:
    measurement}``; an engine that did not run is one row saying why.
    """
    import pandas as pd

    rows = []
    for m in _each(measurements):
        if isinstance(m, NotMeasured):
            # Every figure an engine did not give is a dash, never pandas' NaN.
            rows.append({"engine": engine_name(m.engine), "keys": "-", "index bytes": "-",
                         "leaf pages": "-", "avg leaf fill": "-", "insert s": "-",
                         "note": fitted(_("not run: {why}").format(
                             why=shown(m.not_run or m.error)))})
            continue
        for r in m.results:
            rows.append({"engine": _engine(m),
                         "keys": r.keys, "index bytes": _count(r.index_bytes),
                         "leaf pages": _count(r.leaf_pages),
                         "avg leaf fill": _percent(r.avg_leaf_fill),
                         "insert s": number(r.insert_seconds, 2), "note": ""})
    return _headings(pd.DataFrame(rows))


def _engine(measurement: Measurement) -> str:
    """The engine's display name and version heading its rows (``PostgreSQL 15.18``), the same
    in the pivot and the frame under it."""
    return where(measurement.name, measurement.engine_version)


def _count(value: int | None) -> str:
    """A count in the learner's digits (5.537.792 in Vietnamese), "-" where none was measured
    (the model has no bytes)."""
    return "-" if value is None else number(value)


def btree_pivot(measurements: Measurements) -> pd.DataFrame:
    """Engine by key kind: average leaf fill and index size relative to UUIDv7 (the same
    width, so only the key order differs), as rounded percentages. Engines that did not
    run are left out (``btree_frame`` says why)."""
    import pandas as pd

    fills, sizes = {}, {}
    for m in _each(measurements):
        if isinstance(m, NotMeasured):
            continue
        engine = _engine(m)
        by_kind = m.by_kind()
        base = by_kind.get("uuid7")
        for kind, r in by_kind.items():
            fills[(engine, kind)] = _percent(r.avg_leaf_fill)
            try:
                relative = r.size() / base.size() if base else None
            except Exception:  # an engine without a size shows a dash
                relative = None
            sizes[(engine, kind)] = _percent(relative, 0)
    frame = pd.DataFrame({"avg leaf fill": pd.Series(fills, dtype=object),
                          "size vs uuid7": pd.Series(sizes, dtype=object)})
    if frame.empty:
        return _headings(frame)
    frame.index.names = ["engine", "keys"]
    # A frame (not a series) unstacked is a frame again.
    return _headings(cast("pd.DataFrame", frame.unstack("keys")).fillna("-"))


def evidence(checked: _Rows | _Checked) -> pd.DataFrame:
    """A check's evidence rows (every engine's) as one DataFrame, values kept as text."""
    import pandas as pd

    results = checked.result if isinstance(checked, _Checked) else checked
    rows = []
    for row in results.rows:
        if row.observation is None:
            continue
        for item in row.observation.evidence:
            rows.append({"engine": shown(row.engine or ""),
                         **{k: v if isinstance(v, str | int | float) and not isinstance(v, bool)
                            else short_json(v) for k, v in item.items()}})
    return _headings(pd.DataFrame(rows))


def results(source: str | Path) -> pd.DataFrame:
    """A run's ``results.json`` (the file, or the report folder holding it) as one row per
    claim and engine: ID, topic, kind, claim verdict, engine, version, row verdict, reason."""
    import pandas as pd

    path = Path(source)
    data = json.loads((path / "results.json" if path.is_dir() else path).read_text("utf-8"))
    rows = []
    for claim in data["claims"]:
        for row in claim["results"]:
            rows.append({"id": claim["id"], "topic": claim["topic"], "kind": claim["kind"],
                         "claim verdict": verdict_text(claim["verdict"])
                         if claim["verdict"] in VERDICT_TEXT else claim["verdict"],
                         "engine": row["engine"] or "-",
                         "version": row["engine_version"] or "",
                         "verdict": verdict_text(row["verdict"])
                         if row["verdict"] in VERDICT_TEXT else row["verdict"],
                         "seconds": row["seconds"], "reason": row["reason"]})
    return _headings(pd.DataFrame(rows))


def claims() -> pd.DataFrame:
    """Every registered claim: ID, topic, kind, the lesson that teaches it, what it needs and
    its source. No titles or expectations: a lesson asks for a prediction before it shows
    them."""
    import pandas as pd

    # the claims' catalogue (the experiments and the engines, about 30 modules): `labkit
    # progress` loads this module for its table without it
    from labkit.experiments.catalogue import lesson_of, registered

    rows = [{"id": c.id, "topic": topic_text(c.topic), "kind": kind_text(c.kind),
             "lesson": lesson_of(c).removeprefix("notebooks/"),
             "needs": ", ".join(engine_name(n) for n in c.needs) or _("no server"),
             "source": source_title(c.source)}
            for c in registered()]
    return whole_text(_headings(pd.DataFrame(rows).set_index("id")))


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows (dicts) as a DataFrame, indexed by ``_id`` where the rows have one."""
    import pandas as pd

    table = pd.DataFrame(rows)
    return table.set_index("_id") if "_id" in table else table
