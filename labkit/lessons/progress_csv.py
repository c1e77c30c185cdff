"""A learner's progress as a CSV file an instructor collects (``labkit progress --export``),
and a room's files read back into one table (``labkit progress --merge``).

A file has one row per exercise met: the exercise's ID (``01.silent``; empty for a learner's
own exercise), its lesson, the question whole (in the learner's language), how far it got
(seen, tried, right, revealed), the tries up to and including the first right answer, whether
it was answered right, whether its answer was revealed, when, whether the first try was right
(``first_try``) and each wrong answer given, in order (``wrong_answers``, a JSON list of the
answers as Python writes them). A file written before the last two were kept is read with them
empty. The states stay English, as the progress file keeps them, and the ID is the same in
every language, so files from laptops in either language merge into one table.

A merged table adds each file's learner first: that column is how a merged table is known, so
that merging again, with the earlier table among the files, leaves it out rather than taking
it for a participant. A participant whose file has no rows is kept, as one row with only the
learner, so that "did nothing" and "sent nothing" do not look alike.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labkit.errors import BadInput
from labkit.i18n import N_, Message, _
from labkit.lessons import course
from labkit.model import fixtures

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("exercise_id", "lesson", "question", "state", "tries", "right", "revealed", "when",
           "first_try", "wrong_answers")
# The columns every export has; the others came later, and a file without them is still one.
REQUIRED = COLUMNS[:8]
LEARNER = "learner"
# How many of a question's wrong answers the room's table by question names, most given first.
COMMON = 5


def rows(entries: Iterable[dict[str, Any]] | None = None) -> list[dict[str, str]]:
    """The export's rows, by lesson then exercise ID, from the progress file's entries; each
    question in the learner's language."""
    found = course.entries() if entries is None else list(entries)
    out = []
    for entry in found:
        state = str(entry.get("state", ""))
        tries = int(entry.get("tries", 0) or 0)
        out.append({"exercise_id": str(entry.get("id", "")), "lesson": str(entry.get("lesson", "")),
                    "question": _(str(entry.get("exercise", ""))), "state": state,
                    "tries": str(tries),
                    "right": "yes" if state == "right" else "no",
                    "revealed": "yes" if state == "revealed" else "no",
                    "when": str(entry.get("when", "")),
                    "first_try": _first_try(entry, tries),
                    "wrong_answers": _wrong_answers(entry)})
    return sorted(out, key=lambda row: (row["lesson"], row["exercise_id"], row["question"]))


def _first_try(entry: dict[str, Any], tries: int) -> str:
    """``yes`` or ``no``; empty before any try, or where the entry is older than the record of
    its first right try (``course.record``'s ``right_at``)."""
    if "right_at" not in entry or tries == 0:
        return ""
    return "yes" if entry["right_at"] == 1 else "no"


def _wrong_answers(entry: dict[str, Any]) -> str:
    kept = entry.get("wrong")
    wrong = [text for text in kept if isinstance(text, str)] if isinstance(kept, list) else []
    return json.dumps(wrong, ensure_ascii=False) if wrong else ""


# A field a spreadsheet would run as a formula starts with one of these (OWASP, "CSV
# Injection"): it is written after a ' (which spreadsheets show as text and hide), and read
# back without it, so a merged table is the same however often it is merged.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def to_csv(table: list[dict[str, str]], columns: Iterable[str] = COLUMNS) -> str:
    """Rows as CSV text, as RFC 4180 writes it (lines end in CRLF, so a field holding a lone
    carriage return is quoted too; a question holding a comma, a quote or a line break stays
    one field, whole), each field a spreadsheet would run as a formula written as text
    (``'=1+2``)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows({name: _as_text(value) for name, value in row.items()} for row in table)
    return buffer.getvalue()


def _as_text(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def _as_written(value: str) -> str:
    """A field as the learner's file meant it: a ' that ``to_csv`` put before a formula's
    first character taken off again."""
    return value[1:] if value[:1] == "'" and value[1:].startswith(_FORMULA_STARTS) else value


def export(target: Path) -> int:
    """Write this learner's progress to ``target`` as CSV; return the number of rows."""
    from labkit.run.made import write_file  # with the servers' room: export alone writes

    table = rows()
    write_file(target, to_csv(table).encode("utf-8"), "--export")
    return len(table)


def _open(path: Path) -> csv.DictReader[str]:
    """A file's CSV reader, its header read; ``BadInput`` where it cannot be one."""
    try:
        text = fixtures.read_bytes(path, course.MAX_BYTES).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadInput(Message(N_("{path} is not a progress export: it is not UTF-8 text"),
                               path=str(path))) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        reader.fieldnames  # noqa: B018  # reads the header, where a CSV error shows first
    except csv.Error as exc:
        raise BadInput(Message(N_("{path} is not a progress export: {error}"), path=str(path),
                               error=str(exc))) from None
    return reader


def _merged(reader: csv.DictReader[str]) -> bool:
    """Whether a file is a merged table (its header has the learner column), not an export."""
    return LEARNER in (reader.fieldnames or [])


def read(path: Path) -> list[dict[str, str]]:
    """One exported file's rows, every column of ``COLUMNS`` (empty where an older file lacks
    it); ``BadInput`` naming the file and what is wrong with it, a merged table among them."""
    reader = _open(path)
    if _merged(reader):
        raise BadInput(Message(N_("{path} is a room's merged table, not one participant's "
                                  "export"), path=str(path)))
    return _rows(path, reader)


def _rows(path: Path, reader: csv.DictReader[str]) -> list[dict[str, str]]:
    header = reader.fieldnames or []
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise BadInput(Message(N_("{path} is not a progress export: its first line lacks the "
                                  "columns {columns} (`labkit progress --export FILE` writes "
                                  "them)"), path=str(path), columns=", ".join(missing)))
    table = []
    try:
        for number, row in enumerate(reader, start=2):
            _check_row(path, number, row, len(header))
            table.append({name: _as_written(row.get(name) or "") for name in COLUMNS})
    except csv.Error as exc:
        raise BadInput(Message(N_("{path} is not a progress export: {error}"), path=str(path),
                               error=str(exc))) from None
    return table


def _check_row(path: Path, number: int, row: dict[str, Any], fields: int) -> None:
    if None in row or any(value is None for value in row.values()):
        raise BadInput(Message(N_("{path}, line {line}: it does not have the header's {n} "
                                  "fields"), path=str(path), line=str(number), n=str(fields)))
    if not str(row["tries"]).isdigit():
        raise BadInput(Message(N_("{path}, line {line}: tries is {value}, not a whole number"),
                               path=str(path), line=str(number), value=repr(row["tries"])))
    if row["state"] not in course.STATES:
        raise BadInput(Message(N_("{path}, line {line}: state is {value}, not one of {states}"),
                               path=str(path), line=str(number), value=repr(row["state"]),
                               states=", ".join(course.STATES)))
    if row.get("first_try", "") not in ("yes", "no", ""):
        raise BadInput(Message(N_("{path}, line {line}: first_try is {value}, not yes, no or "
                                  "empty"), path=str(path), line=str(number),
                               value=repr(row["first_try"])))
    if _answers(row.get("wrong_answers", "")) is None:
        raise BadInput(Message(N_("{path}, line {line}: wrong_answers is not a JSON list of "
                                  "texts"), path=str(path), line=str(number)))


def _answers(field: str) -> list[str] | None:
    """A ``wrong_answers`` field's answers (none where it is empty); ``None`` where it is no
    JSON list of texts."""
    if not field:
        return []
    try:
        found = json.loads(field)
    except ValueError:
        return None
    if not isinstance(found, list) or not all(isinstance(text, str) for text in found):
        return None
    return found


def learner_of(path: Path) -> str:
    """The learner a file is from: its name without ``.csv`` (``an.csv`` is An's)."""
    return path.name.removesuffix(".csv")


@dataclass(frozen=True)
class Room:
    """A room's exports read together (``merge``): every row, its learner first; every
    participant, in the order given (those whose file has no rows too); the merged tables
    given among the files, left out; and the exports read, one per participant."""

    rows: list[dict[str, str]]
    learners: list[str]
    left_out: list[Path]
    exports: list[Path]

    @property
    def empty(self) -> list[str]:
        """The participants whose file has no rows."""
        met = {row[LEARNER] for row in self.rows}
        return [learner for learner in self.learners if learner not in met]

    def table(self) -> list[dict[str, str]]:
        """The merged table: each participant's rows, in the order given, and for one whose
        file has no rows one row holding only the learner."""
        by_learner: dict[str, list[dict[str, str]]] = {name: [] for name in self.learners}
        for row in self.rows:
            by_learner[row[LEARNER]].append(row)
        blank = dict.fromkeys(COLUMNS, "")
        return [row for name, found in by_learner.items()
                for row in (found or [{LEARNER: name, **blank}])]

    def csv(self) -> str:
        """The merged table as CSV, its learner column first."""
        return to_csv(self.table(), (LEARNER, *COLUMNS))

    def said(self) -> list[Message]:
        """What the merge did, for the terminal: the participants, those who sent no rows,
        and the merged tables left out."""
        lines = [Message(N_("Merged {n} participant(s): {names}."), n=len(self.learners),
                         names=", ".join(self.learners))]
        if self.empty:
            lines.append(Message(N_("No exercise rows from: {names} (kept in the table, each "
                                    "as one row with only the learner)."),
                                 names=", ".join(self.empty)))
        lines += [Message(N_("Left out {path}: it is a merged table, not a participant's "
                             "export."), path=str(path)) for path in self.left_out]
        return lines

    def frame(self) -> pd.DataFrame:
        """The merged table as a pandas DataFrame: one row per learner and exercise (one row
        with only the learner for a participant whose file has none), ``tries`` a number,
        ``right`` and ``revealed`` booleans, ``first_try`` a boolean where known, and
        ``wrong_answers`` a list."""
        import pandas as pd

        table = pd.DataFrame(self.table(), columns=[LEARNER, *COLUMNS])
        table["tries"] = [int(tries or 0) for tries in table["tries"]]
        for name in ("right", "revealed"):
            table[name] = table[name] == "yes"
        table["first_try"] = pd.array([{"yes": True, "no": False}.get(value) for value in
                                       table["first_try"]], dtype="boolean")
        table["wrong_answers"] = [_answers(field) or [] for field in table["wrong_answers"]]
        return table

    def view(self) -> pd.DataFrame:
        """The room at a glance: one row per learner (those with no rows too, their cells
        empty), one column per exercise ID, each cell the exercise's state (empty where the
        learner has not met it)."""
        import pandas as pd

        table = self.frame()
        met = table[table["exercise_id"] != ""]
        if met.empty:
            return pd.DataFrame(index=pd.Index(self.learners, name=LEARNER))
        view = met.pivot_table(index=LEARNER, columns="exercise_id", values="state",
                               aggfunc="first", fill_value="")
        return view.reindex(self.learners, fill_value="")

    def by_question(self, *, questions: bool = True) -> pd.DataFrame:
        """The room by question, as an instructor reads it: one row per exercise ID with how
        many participants met it, tried it, got it right first try, got it right and
        revealed it, and the wrong answers given, most given first (each counted once per
        participant, at most ``COMMON``); the question too unless ``questions`` is false.
        Headings in the language in use."""
        import pandas as pd

        # outputs.tables loads the servers' room: this table alone needs it
        from labkit.outputs.tables import whole_text

        table = self.frame()
        table = table[table["exercise_id"] != ""]
        out = []
        for exercise_id, found in table.groupby("exercise_id", sort=True):
            wrong = Counter(answer for answers in found["wrong_answers"]
                            for answer in dict.fromkeys(answers))
            common = "; ".join(f"{answer} (\u00d7{n})" for answer, n in wrong.most_common(COMMON))
            if len(wrong) > COMMON:
                common += "; \u2026"
            question = Counter(found["question"]).most_common(1)[0][0]

            def count(which: pd.Series[bool], found: pd.DataFrame = found) -> int:
                return int(found.loc[which, LEARNER].nunique())

            out.append({"id": exercise_id, "question": _(question),
                        "met": int(found[LEARNER].nunique()), "tried": count(found["tries"] > 0),
                        "first": count(found["first_try"].fillna(False).astype(bool)),
                        "right": count(found["right"]), "revealed": count(found["revealed"]),
                        "wrong": common})
        headings = {"id": _("ID"), "question": _("question"), "met": _("met"),
                    "tried": _("tried"), "first": _("right first try"), "right": _("right"),
                    "revealed": _("revealed"), "wrong": _("wrong answers given")}
        result = pd.DataFrame(out, columns=list(headings))
        if not questions:
            result = result.drop(columns="question")
        return whole_text(result.rename(columns=headings))


def merge(paths: Iterable[Path | str]) -> Room:
    """A room's files read together (``Room``); a merged table among them is left out, so that
    merging again gives the same table. ``BadInput`` for a bad file, for two files of one
    learner, or where no participant's export is given."""
    table: list[dict[str, str]] = []
    seen: dict[str, Path] = {}
    left_out: list[Path] = []
    for given in paths:
        path = Path(given)
        reader = _open(path)
        if _merged(reader):
            left_out.append(path)
            continue
        learner = learner_of(path)
        if learner in seen:
            raise BadInput(Message(N_("{path} and {other} are both {learner}'s: give each "
                                      "learner's file its own name"), path=str(path),
                                   other=str(seen[learner]), learner=learner))
        seen[learner] = path
        table += [{LEARNER: learner, **row} for row in _rows(path, reader)]
    if not seen and left_out:
        raise BadInput(Message(N_("--merge needs at least one participant's export: {paths} "
                                  "is a merged table"), paths=", ".join(map(str, left_out))))
    if not seen:
        raise BadInput(Message(N_("--merge needs at least one exported file")))
    return Room(table, list(seen), left_out, list(seen.values()))


def merged_csv(paths: Iterable[Path | str]) -> str:
    """The merged table as CSV, its learner column first (``Room.csv``)."""
    return merge(paths).csv()


def frame(paths: Iterable[Path | str]) -> pd.DataFrame:
    """The merged table as a pandas DataFrame (``Room.frame``)."""
    return merge(paths).frame()


def room_view(paths: Iterable[Path | str]) -> pd.DataFrame:
    """The room at a glance, one row per learner (``Room.view``)."""
    return merge(paths).view()


def by_question(paths: Iterable[Path | str]) -> pd.DataFrame:
    """The room by question, as an instructor reads it (``Room.by_question``)."""
    return merge(paths).by_question()
