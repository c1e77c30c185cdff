"""A learner's progress as a CSV file an instructor collects (``labkit progress --export``),
and a room's files read back into one table (``labkit progress --merge``).

A file has one row per exercise met: the exercise's ID (``01.silent``; empty for a learner's
own exercise), its lesson, the question whole, how far it got (seen, tried, right, revealed),
the tries, whether it was answered right, whether its answer was revealed, and when. The
states and questions stay English, as the progress file keeps them, so files from laptops in
either language merge into one table; a merged table adds each file's learner first.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labkit.errors import BadInput
from labkit.i18n import N_, Message
from labkit.lessons import course

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("exercise_id", "lesson", "question", "state", "tries", "right", "revealed", "when")
LEARNER = "learner"
MAX_BYTES = 8 * 1024 * 1024  # a file larger than this is no progress export


def rows(entries: Iterable[dict[str, Any]] | None = None) -> list[dict[str, str]]:
    """The export's rows, by lesson then exercise ID, from the progress file's entries."""
    found = course.entries() if entries is None else list(entries)
    out = []
    for entry in found:
        state = str(entry.get("state", ""))
        out.append({"exercise_id": str(entry.get("id", "")), "lesson": str(entry.get("lesson", "")),
                    "question": str(entry.get("exercise", "")), "state": state,
                    "tries": str(int(entry.get("tries", 0) or 0)),
                    "right": "yes" if state == "right" else "no",
                    "revealed": "yes" if state == "revealed" else "no",
                    "when": str(entry.get("when", ""))})
    return sorted(out, key=lambda row: (row["lesson"], row["exercise_id"], row["question"]))


def to_csv(table: list[dict[str, str]], columns: Iterable[str] = COLUMNS) -> str:
    """Rows as CSV text (RFC 4180 quoting: a question holding a comma, a quote or a line break
    stays one field, whole)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    return buffer.getvalue()


def export(target: Path) -> int:
    """Write this learner's progress to ``target`` as CSV; return the number of rows."""
    from labkit.run.made import write_file

    table = rows()
    write_file(target, to_csv(table).encode("utf-8"), "--export")
    return len(table)


def read(path: Path) -> list[dict[str, str]]:
    """One exported file's rows; ``BadInput`` naming the file and what is wrong with it."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise BadInput(Message(N_("{path} is not a progress export: it is larger than "
                                      "{size} MiB"), path=str(path), size=str(MAX_BYTES >> 20)))
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BadInput(Message(N_("{path}: no such file"), path=str(path))) from None
    except UnicodeDecodeError:
        raise BadInput(Message(N_("{path} is not a progress export: it is not UTF-8 text"),
                               path=str(path))) from None
    except OSError as exc:
        raise BadInput(Message(N_("{path} cannot be read: {error}"), path=str(path),
                               error=exc.strerror or str(exc))) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [name for name in COLUMNS if name not in (reader.fieldnames or [])]
    if missing:
        raise BadInput(Message(N_("{path} is not a progress export: its first line lacks the "
                                  "columns {columns} (`labkit progress --export FILE` writes "
                                  "them)"), path=str(path), columns=", ".join(missing)))
    table = []
    try:
        for number, row in enumerate(reader, start=2):
            _check_row(path, number, row)
            table.append({name: row[name] for name in COLUMNS})
    except csv.Error as exc:
        raise BadInput(Message(N_("{path} is not a progress export: {error}"), path=str(path),
                               error=str(exc))) from None
    return table


def _check_row(path: Path, number: int, row: dict[str, Any]) -> None:
    if None in row or any(row.get(name) is None for name in COLUMNS):
        raise BadInput(Message(N_("{path}, line {line}: it does not have the header's {n} "
                                  "fields"), path=str(path), line=str(number),
                               n=str(len(COLUMNS))))
    if not str(row["tries"]).isdigit():
        raise BadInput(Message(N_("{path}, line {line}: tries is {value}, not a whole number"),
                               path=str(path), line=str(number), value=repr(row["tries"])))
    if row["state"] not in course.STATES:
        raise BadInput(Message(N_("{path}, line {line}: state is {value}, not one of {states}"),
                               path=str(path), line=str(number), value=repr(row["state"]),
                               states=", ".join(course.STATES)))


def learner_of(path: Path) -> str:
    """The learner a file is from: its name without ``.csv`` (``an.csv`` is An's)."""
    return path.name.removesuffix(".csv")


def merge(paths: Iterable[Path]) -> list[dict[str, str]]:
    """A room's files as one table: every row of each, its learner first; ``BadInput`` for a
    bad file, or for two files of one learner."""
    table: list[dict[str, str]] = []
    seen: dict[str, Path] = {}
    for path in paths:
        learner = learner_of(path)
        if learner in seen:
            raise BadInput(Message(N_("{path} and {other} are both {learner}'s: give each "
                                      "learner's file its own name"), path=str(path),
                                   other=str(seen[learner]), learner=learner))
        seen[learner] = path
        table += [{LEARNER: learner, **row} for row in read(path)]
    if not seen:
        raise BadInput(Message(N_("--merge needs at least one exported file")))
    return table


def merged_csv(paths: Iterable[Path]) -> str:
    """The merged table as CSV, its learner column first."""
    return to_csv(merge(paths), (LEARNER, *COLUMNS))


def frame(paths: Iterable[Path]) -> pd.DataFrame:
    """The merged table as a pandas DataFrame: one row per learner and exercise, ``tries`` a
    number and ``right`` and ``revealed`` booleans."""
    import pandas as pd

    table = pd.DataFrame(merge(paths), columns=[LEARNER, *COLUMNS])
    table["tries"] = table["tries"].astype(int)
    for name in ("right", "revealed"):
        table[name] = table[name] == "yes"
    return table


def room_view(paths: Iterable[Path]) -> pd.DataFrame:
    """The room at a glance: one row per learner, one column per exercise ID, each cell the
    exercise's state (empty where the learner has not met it)."""
    table = frame(paths)
    table = table[table["exercise_id"] != ""]
    return table.pivot_table(index=LEARNER, columns="exercise_id", values="state",
                             aggfunc="first", fill_value="")
