"""The course around the lessons (each lesson's place, time and servers are its record in
``labkit.syllabus``): a lesson by number, and a learner's progress through the exercises (kept
in a small JSON file between sessions)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labkit import syllabus
from labkit._paths import CHECKOUT
from labkit.claims.claim import jsonable
from labkit.errors import BadInput
from labkit.i18n import N_, Message, _
from labkit.lessons.lab import lab
from labkit.model import fixtures

try:
    import fcntl
except ImportError:  # Windows: no flock; each write is still whole
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    import pandas as pd

# The lessons, one record each, are labkit.syllabus's; here for the notebooks and the sheet.
LESSONS = syllabus.LESSONS


def lesson(key: str | int) -> syllabus.Lesson:
    """A lesson by number (``"01"``, ``1``) or file name; ``BadInput`` names the known ones."""
    text = str(key).strip()
    for item in LESSONS:
        if text in (item.number, item.file, item.file.removesuffix(".ipynb")) or (
                text.isdigit() and int(text) == int(item.number)):
            return item
    raise BadInput(Message(N_("no lesson {key}; known: {known}"), key=repr(key),
                           known=", ".join(i.number for i in LESSONS)))


def current() -> str:
    """The lesson this kernel is in (``labkit.start_lesson``), or ``"?"``."""
    return lab().lesson


def progress_file() -> Path:
    """Where progress is kept: ``LABKIT_PROGRESS``, else ``~/.labkit/progress.json``."""
    named = os.environ.get("LABKIT_PROGRESS", "").strip()
    return Path(named) if named else Path.home() / ".labkit" / "progress.json"


def entries() -> list[dict[str, Any]]:
    """The progress file's entries, one per exercise met (``lesson``, ``exercise`` (its
    question, whole), ``state``, ``tries``, ``when``, ``id`` where known, and, where a check
    was recorded since the file kept them, ``right_at`` and ``wrong``: see ``record``), for
    the export (``labkit.lessons.progress_csv``). An entry without a lesson, a question or a
    known state is left out; ``tries`` is a whole number (0 where the file says otherwise)."""
    return [{**entry, "tries": _whole(entry.get("tries"))} for entry in _load().values()
            if isinstance(entry, dict) and isinstance(entry.get("lesson"), str)
            and isinstance(entry.get("exercise"), str) and entry.get("state") in STATES]


# A progress file larger than this is no learner's (hundreds of exercises take a few KiB), nor
# is an export of one (labkit.lessons.progress_csv reads those within it too).
MAX_BYTES = 8 * 1024 * 1024


def _load(set_aside: bool = False) -> dict[str, Any]:
    """The progress file as an object; ``{}`` where there is none. A file that is no JSON
    object (or too large, or no regular file) is said once a kernel (``lab().told``), in one
    line, never raised; with ``set_aside`` (a write is coming) it is renamed beside itself
    first, so that nothing the learner had is overwritten."""
    path = progress_file()
    if not os.path.lexists(path):
        return {}
    try:
        data = json.loads(fixtures.read_bytes(path, MAX_BYTES).decode("utf-8"))
        problem = None if isinstance(data, dict) else _("it is not a JSON object")
    except BadInput as exc:
        problem = str(exc)
    except (UnicodeDecodeError, ValueError, RecursionError):
        problem = _("it is not JSON")
    if problem is None:
        return data  # type: ignore[no-any-return]
    kept = _set_aside(path) if set_aside else None
    told = lab().told
    if kept is not None or f"unreadable {path}" not in told:
        told.add(f"unreadable {path}")
        print(_("labkit: the progress file {path} cannot be read ({problem}); {then}").format(
            path=path, problem=problem,
            then=_("it was kept as {kept} and a new one started").format(kept=kept)
            if kept is not None else _("progress is not shown from it")), file=sys.stderr)
    return {}


def _set_aside(path: Path) -> Path | None:
    """Rename the unreadable ``path`` to a free name beside it; None where that fails."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        kept = path.with_name(f"{path.name}.unreadable-{stamp}" + (f"-{n}" if n else ""))
        if os.path.lexists(kept):
            continue
        try:
            os.rename(path, kept)
        except OSError:
            return None
        return kept
    return None


@contextlib.contextmanager
def _changing() -> Iterator[dict[str, Any]]:
    """The progress file's data to change, written back when the block ends: under a lock
    (``flock`` on ``progress.json.lock``), so that two kernels recording at once both keep
    what they wrote, and whole (a new file renamed into place), so that a read meanwhile sees
    the old file or the new, never a part. Never raises for the file: progress is a
    convenience (without the lock, as on Windows, the write is still whole)."""
    path = progress_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = os.open(path.with_name(path.name + ".lock"),
                       os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        lock = None
    try:
        if lock is not None and fcntl is not None:
            with contextlib.suppress(OSError):  # a file system without locks: written whole
                fcntl.flock(lock, fcntl.LOCK_EX)
        data = _load(set_aside=True)
        yield data
        _save(path, data)
    finally:
        if lock is not None:
            os.close(lock)  # closing releases the lock


def _save(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=1, ensure_ascii=False).encode("utf-8")
    try:
        fd, scratch = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())  # on disk before it takes the name: a crash keeps one whole
        os.replace(scratch, path)  # replaces a link there, never writes through it
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(scratch)


# How far an exercise got; a later state never goes back to an earlier one. "seen": its cell
# ran, and it has not been answered yet.
STATES = ("seen", "tried", "right", "revealed")
# The progress table's words (the file keeps the English states and questions): "seen" is
# said as what it means, never as "viewed", which reads like the answer's being shown.
STATE_TEXT = {"seen": N_("not answered yet"), "tried": N_("tried"), "right": N_("right"),
              "revealed": N_("revealed"), "not started": N_("not started")}
# A wrong answer is kept as Python writes it, cut at this many characters.
GIVEN_CHARS = 200


def made(name: str, question: str) -> None:
    """Give the progress file's entries of exercise ``name`` (asking ``question``), made in
    this kernel (``lab().exercises``), that name: its first "seen" is noted before it is
    known."""
    if not any(isinstance(entry, dict) and entry.get("exercise") == question
               and entry.get("id") != name for entry in _load().values()):
        return
    with _changing() as data:
        for entry in data.values():
            if isinstance(entry, dict) and entry.get("exercise") == question:
                entry["id"] = name


def tried(name: str) -> bool:
    """Whether exercise ``name`` was tried in this kernel: answered (right or wrong) or its
    answer revealed. A cell that shows the answer waits until then."""
    kept = lab().exercises.get(name)
    state = lab().states.get(kept.question, "seen") if kept is not None else "seen"
    return state in ("tried", "right", "revealed")


def record(question: str, state: str, lesson_number: str | None = None, *,
           answer: str | None = None) -> None:
    """Note an exercise's state for this learner. Never raises: progress is a convenience.

    A check is recorded with the ``answer`` it was given (as Python writes it) and its state,
    ``"tried"`` or ``"right"``; it is one try, counted up to and including the first right
    answer, across sessions. The entry keeps ``tries``, ``right_at`` (the try that was first
    right: ``1`` is right first time) and ``wrong``, each wrong answer in order; a check after
    the first right answer changes neither."""
    here = lab().states
    here[question] = max(here.get(question, "seen"), state, key=STATES.index)
    number = lesson_number or current()
    with _changing() as data:
        _record(data, f"{number} {question}", number, question, state, answer)


def _record(data: dict[str, Any], key: str, number: str, question: str, state: str,
            answer: str | None) -> None:
    checked_right = state == "right"
    old = data.get(key, {})
    if not isinstance(old, dict) or old.get("state", "seen") not in STATES:
        old = {}  # an entry the file spoiled starts again
    if old.get("state") == "right" and state == "revealed":
        state = "right"  # revealing after a right answer does not undo it
    elif STATES.index(old.get("state", "seen")) > STATES.index(state):
        state = old["state"]
    entry: dict[str, Any] = {"lesson": number, "exercise": question, "state": state,
                             "tries": _whole(old.get("tries")),
                             "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    # An entry written before right_at was kept, and right, was right on a try no one knows:
    # it stays without right_at and wrong, and its tries stay what they were.
    if "right_at" in old or old.get("state") != "right":
        right_at = old.get("right_at")
        kept = old.get("wrong")
        wrong = [text for text in kept if isinstance(text, str)] if isinstance(kept, list) else []
        if answer is not None and right_at is None:
            entry["tries"] += 1
            if checked_right:
                right_at = entry["tries"]
            else:
                wrong.append(_cut(answer))
        entry.update(right_at=right_at, wrong=wrong)
    data[key] = entry
    # The exercise's name ("01.silent"), where this kernel made it by name (the export's ID).
    name = next((n for n, kept in lab().exercises.items() if kept.question == question),
                None) or old.get("id")
    if name:
        data[key]["id"] = name


def _whole(value: Any) -> int:
    """A count from the progress file: a whole number, else 0 (the file is the learner's)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _cut(text: str) -> str:
    return text if len(text) <= GIVEN_CHARS else text[:GIVEN_CHARS - 1] + "\u2026"


def progress() -> pd.DataFrame:
    """Which exercises this learner has met, per lesson: not answered yet, tried, right or
    revealed.

    A DataFrame with one row per exercise, with its ID where it has one (the name
    ``labkit.reveal`` takes; lessons with none met yet are listed as "not started"), its
    headings and words in the learner's language.
    """
    import pandas as pd

    rows = [{"lesson": _(v["lesson"]), "id": str(v.get("id", "")), "exercise": _(v["exercise"]),
             "state": _(STATE_TEXT.get(v["state"], v["state"])), "tries": v["tries"]}
            for v in entries()]
    met = {row["lesson"] for row in rows}
    rows += [{"lesson": item.number, "id": "", "exercise": f"({_(item.title)})",
              "state": _(STATE_TEXT["not started"]), "tries": 0}
             for item in LESSONS if item.number not in met]
    frame = pd.DataFrame(rows, columns=["lesson", "id", "exercise", "state", "tries"])
    frame = frame.sort_values(["lesson", "exercise"], kind="stable").reset_index(drop=True)
    frame = frame.rename(columns={"lesson": _("lesson"), "id": _("ID"),
                                  "exercise": _("exercise"), "state": _("state"),
                                  "tries": _("tries")})
    # outputs.tables loads the servers' room: the table needs it, recording a try does not
    from labkit.outputs.tables import whole_text

    return whole_text(frame)




SOURCE_NAMES = {
    "000": "the ObjectId generator page (source document 000)",
    "002": "the course chapter \u201cBSON & ObjectId, part 2/3\u201d (source document 002)",
    "003": "the article \u201cUUIDv7 vs UUIDv4 as a B-tree key\u201d (source document 003)",
    "manual": "MongoDB's manual and server test suite",
}


# docs/claims.md opens with how to write and check a claim file of one's own, written by hand;
# this line ends that part, and what follows it is the list of the kit's claims, generated.
CLAIMS_GENERATED = "<!-- The rest of this file is generated from the claim registry. -->"


def claims_opening(path: Path | None = None) -> str:
    """docs/claims.md's hand-written opening, as the file has it, up to and including the
    line ``CLAIMS_GENERATED``; ``""`` where the file, or that line, is missing."""
    target = path or CHECKOUT / "docs" / "claims.md"
    try:
        text = target.read_text(encoding="utf-8")
    except OSError:
        return ""
    end = text.find(CLAIMS_GENERATED)
    return text[:end + len(CLAIMS_GENERATED)] + "\n\n" if end >= 0 else ""


def write_claims_markdown(path: Path | None = None) -> Path:
    """Regenerate docs/claims.md's list of the kit's claims, keeping its opening (by default
    the file under the folder it runs in, as the command the file gives is run from the
    checkout's root)."""
    target = path or Path("docs") / "claims.md"
    target.write_text(claims_markdown(target), encoding="utf-8")
    return target


def claims_markdown(path: Path | None = None) -> str:
    """``docs/claims.md``: its hand-written opening (``claims_opening``), then every registered
    claim, by ID, with its source by name, kind, lesson, needs and expectation (labelled
    recorded or stated). A test keeps the file equal to this text; regenerate it with
    ``write_claims_markdown``, the command the file gives."""
    # the whole registry (experiments, engines, servers): docs/claims.md alone needs it
    from labkit.experiments.catalogue import lesson_of, registered

    out = [claims_opening(path) + "# The claims labkit checks", "",
           "This list is generated from the claim registry; `tests/test_docs.py` fails when it "
           "and the registry differ. Regenerate it with:", "",
           "```sh", "python -c 'from labkit.lessons import course; "
           "course.write_claims_markdown()'", "```", "",
           "The sources, by name:", ""]
    out += [f"- **{key}**: {name}" for key, name in SOURCE_NAMES.items()]
    out += ["", "A **behaviour** claim says what a server does; a **survey** claim is judged "
            "per engine, where not holding is a finding. *Recorded* means the source document "
            "observed it on a real server (through mongosh; no version is given); *stated* "
            "means the source says so without a recorded output.", ""]
    for item in registered():
        expected = json.dumps(jsonable(item.expected), ensure_ascii=False)
        out += [f"## {item.id}: {item.title}", "",
                f"- Source: {SOURCE_NAMES[item.source]}",
                f"- Topic: {item.topic}; kind: {item.kind}",
                f"- Lesson: `{lesson_of(item)}`",
                f"- Needs: {', '.join(item.needs) or 'no server'}",
                f"- Expected ({'recorded' if item.recorded else 'stated'}): `{expected}`",
                f"- Model prediction without a server: "
                f"{'yes' if item.predict else 'no'}",
                f"- Experiment: `{item.experiment_name}`", ""]
    return "\n".join(out)
