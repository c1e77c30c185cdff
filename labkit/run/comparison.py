"""Several runs' results joined into one table: claims as rows, each run's engines as columns,
the claims whose verdicts differ between columns first.

A column is one engine of one run (a ``labkit check`` matrix column, or an engine a ``labkit
run`` claim was judged on), so runs on several servers, MongoDB versions, model rule sets and
fakes line up side by side. The runs are read by ``results_file.read``; ``outputs/compare.py``
draws the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labkit.claims.claim import NOT_RUN, Verdict
from labkit.errors import BadInput
from labkit.i18n import N_, Message
from labkit.run import results_file

# The version of the comparison's JSON layout (``labkit compare --json``).
SCHEMA = "labkit-compare/2"
# The most columns one comparison shows: eight runs of eight engines and versions each, and
# more. The page is claims x columns, so a file naming an engine per claim would otherwise
# make its size (and compare's time) grow as the square of its own (300 claims x 8 runs:
# 7,200 columns, 186 s, 784 MB and 496 MiB written).
MAX_COLUMNS = 128


@dataclass(frozen=True)
class RunSource:
    """One run joined: the file it was read from and when and on what labkit it ran."""

    source: str
    started: str
    finished: str
    labkit_version: str
    summary: str
    counts: dict[str, int] = field(default_factory=dict)  # results.json's, by the summary's words
    predictions: dict[str, int] = field(default_factory=dict)  # what labkit's model predicts

    def to_dict(self) -> dict[str, Any]:
        """The run as the comparison's JSON lists it."""
        return {"source": self.source, "started": self.started, "finished": self.finished,
                "labkit_version": self.labkit_version, "summary": self.summary,
                "counts": self.counts, "predictions": self.predictions}


@dataclass(frozen=True)
class Column:
    """One engine of one run: its label as the run recorded it (``MongoDB``, ``model
    (labkit's rules for MongoDB 7.0)``) and its exact version; ``predicted`` where labkit's
    model gave its rows (predictions, never observations)."""

    run: int  # its run's index in ``Comparison.runs``
    engine: str
    version: str
    predicted: bool = False

    @property
    def label(self) -> str:
        """The engine and its version in one line (``-`` for rows no engine was reached on)."""
        return f"{self.engine} {self.version}".strip()

    def to_dict(self) -> dict[str, Any]:
        """The column as the comparison's JSON lists it."""
        return {"run": self.run, "engine": self.engine, "engine_version": self.version,
                "label": self.label, "predicted": self.predicted}


@dataclass(frozen=True)
class Cell:
    """A claim's row in one column: its verdict and why (the row's reason, English);
    ``predicted`` where labkit's model gave it, ``observed`` then being its prediction."""

    verdict: Verdict
    reason: str = ""
    observed: Any = None
    predicted: bool = False


@dataclass
class Row:
    """One claim across the columns; ``cells[i]`` is None where column ``i``'s run did not
    judge the claim on that engine."""

    id: str
    title: str
    expected: Any
    cells: list[Cell | None] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        """True when the columns where the claim ran do not all give the same verdict. A column
        where it did not run, or that lacks it, is not compared: nothing was seen there to
        differ from the others."""
        return len({cell.verdict for cell in self.cells
                    if cell is not None and cell.verdict != NOT_RUN}) > 1

    @property
    def not_compared(self) -> int:
        """How many columns the claim did not run in (or is absent from)."""
        return sum(cell is None or cell.verdict == NOT_RUN for cell in self.cells)

    def to_dict(self) -> dict[str, Any]:
        """The claim as the comparison's JSON lists it: a verdict per column (null: absent)."""
        return {"id": self.id, "title": self.title, "differs": self.differs,
                "not_compared": self.not_compared,
                "expected": self.expected,
                "verdicts": [cell.verdict if cell else None for cell in self.cells],
                "reasons": [cell.reason if cell else "" for cell in self.cells]}


@dataclass
class Comparison:
    """The joined table: the runs, their columns, and the claims, differences first."""

    runs: list[RunSource]
    columns: list[Column]
    rows: list[Row]

    @property
    def differing(self) -> list[Row]:
        """The claims whose verdicts differ between columns."""
        return [row for row in self.rows if row.differs]

    @property
    def partly_compared(self) -> list[Row]:
        """The claims that did not run in some column (or are absent from one)."""
        return [row for row in self.rows if row.not_compared]

    @property
    def same(self) -> list[Row]:
        """The claims with one verdict in every column."""
        return [row for row in self.rows if not row.differs]

    def to_dict(self) -> dict[str, Any]:
        """The comparison as ``labkit compare --json`` prints it (English, as results.json)."""
        return {"schema": SCHEMA, "runs": [run.to_dict() for run in self.runs],
                "columns": [column.to_dict() for column in self.columns],
                "differing": len(self.differing),
                "claims": [row.to_dict() for row in [*self.differing, *self.same]]}


def compare(sources: Sequence[str | Path]) -> Comparison:
    """Read each results file (``BadInput`` on one that is not labkit results, or on fewer
    than two) and join them."""
    if len(sources) < 2:
        raise BadInput(Message(N_("a comparison needs at least two results files; {n:d} "
                                  "given"), n=len(sources)))
    return join([(str(source), results_file.read(source)) for source in sources])


def join(runs: Sequence[tuple[str, dict[str, Any]]]) -> Comparison:
    """Join results already read (``(source, results dict)`` each): columns in run order,
    claims in the order they first appear, those that differ first."""
    columns: dict[Column, int] = {}  # each column's place, in run order
    table: dict[str, Row] = {}
    for index, (source, data) in enumerate(runs):
        placed = _columns(index, data)
        for column in dict.fromkeys(column for row in placed for column, _result in row):
            columns[column] = len(columns)
        if len(columns) > MAX_COLUMNS:
            raise BadInput(Message(N_(
                "{source}: the runs give {n:,} columns so far (an engine and its version each, "
                "per run); a comparison shows at most {most:,}: compare fewer runs"),
                source=source, n=len(columns), most=MAX_COLUMNS))
        for claim, row in zip(data["claims"], placed, strict=True):
            entry = table.setdefault(claim["id"], Row(claim["id"], str(claim.get("title", "")),
                                                      claim.get("expected")))
            entry.cells.extend([None] * (len(columns) - len(entry.cells)))
            for column, result in row:
                entry.cells[columns[column]] = Cell(
                    Verdict(result["verdict"]), str(result.get("reason") or ""),
                    result.get("observed"), column.predicted)
    for entry in table.values():
        entry.cells.extend([None] * (len(columns) - len(entry.cells)))
    sources = [RunSource(source, str(data.get("started", "")), str(data.get("finished", "")),
                         str(data.get("labkit_version", "")), str(data.get("summary", "")),
                         _counts(data, "counts"), _counts(data, "predictions"))
               for source, data in runs]
    rows = list(table.values())
    return Comparison(sources, list(columns), [r for r in rows if r.differs]
                      + [r for r in rows if not r.differs])


def _columns(run: int, data: dict[str, Any]) -> list[list[tuple[Column, dict[str, Any]]]]:
    """Each claim's rows with the column each falls in. In a ``labkit check`` run every claim
    has one row per engine of ``engine_details``, in its order: the row's place is its column
    (two MongoDB versions without a server are two columns), its version the row's or the
    one asked for. Elsewhere a row's column is its engine and version (the n-th row of the
    same engine and version in a claim, the n-th such column)."""
    claims = data["claims"]
    details = data.get("engine_details")
    if not isinstance(details, list) or not all(isinstance(d, dict) for d in details):
        details = []  # a file's own layout: each row's engine and version decide, below
    if details and all(len(claim["results"]) == len(details) for claim in claims):
        first = claims[0]["results"] if claims else []
        fixed = [Column(run, _engine(row) or str(detail.get("name", "-")),
                        _version(row) or str(detail.get("version", "")), _predicted(row))
                 for row, detail in zip(first, details, strict=True)]
        return [list(zip(fixed, claim["results"], strict=True)) for claim in claims]
    placed = []
    for claim in claims:
        seen: dict[tuple[str, str], int] = {}
        row_columns = []
        for row in claim["results"]:
            key = (_engine(row) or "-", _version(row))
            seen[key] = seen.get(key, 0) + 1
            # The n-th row of one engine in a claim: a column of its own past the first.
            engine = key[0] if seen[key] == 1 else f"{key[0]} ({seen[key]})"
            row_columns.append((Column(run, engine, key[1], _predicted(row)), row))
        placed.append(row_columns)
    return placed


def _counts(data: dict[str, Any], key: str) -> dict[str, int]:
    """The run's counts of claims per verdict (``counts``: seen; ``predictions``: labkit's
    model's), keyed by the summary's words (``hold``)."""
    counts = data.get(key)
    if not isinstance(counts, dict):
        return {}
    return {str(k): v for k, v in counts.items() if isinstance(v, int)}


def _engine(row: dict[str, Any]) -> str:
    return str(row.get("engine") or "")


def _version(row: dict[str, Any]) -> str:
    return str(row.get("engine_version") or "")


def _predicted(row: dict[str, Any]) -> bool:
    """True for a row labkit's model gave (results.json's ``predicted``)."""
    return row.get("predicted") is True
