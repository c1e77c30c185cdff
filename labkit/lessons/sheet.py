"""The instructors' answer sheet, in each language, generated from the exercises themselves.

    python -m labkit.lessons.sheet          # write docs/answers.md and docs/answers.vi.md
    python -m labkit.lessons.sheet check    # exit status 1 if either is out of step

Each exercise's answer is had as a learner without a server has it (computed by a library,
labkit's model's prediction, or the source's recorded result) and labelled so; an answer that
each run measures anew is not printed as a figure.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from labkit import i18n, syllabus
from labkit._paths import CHECKOUT
from labkit.errors import NoAnswer, ServerUnavailable
from labkit.i18n import N_, Message, _
from labkit.lessons import questions
from labkit.lessons.exercises import LIVE, MODEL, Exercise, Said
from labkit.lessons.lab import lab
from labkit.outputs.escape import markdown, markdown_code
from labkit.run import runner

if TYPE_CHECKING:
    from labkit.run.runner import Context

SHEETS = {"en": CHECKOUT / "docs" / "answers.md", "vi": CHECKOUT / "docs" / "answers.vi.md"}
COMMAND = "python -m labkit.lessons.sheet"

def offline_session() -> Context:
    """A kernel session with no server at all, as on a laptop without MongoDB or PostgreSQL,
    so that the sheet is the same wherever it is made (2,000-key B-tree loads). One session
    serves both languages: a claim's results are kept in English and shown in the sheet's."""
    def unavailable() -> NoReturn:
        raise ServerUnavailable(Message(N_("the answer sheet is made without a server")))

    return runner.Context(btree_n=2_000, mongodb_provider=unavailable,
                          postgres_provider=unavailable)


@contextmanager
def _offline(ctx: Context | None = None) -> Iterator[None]:
    """``ctx`` (or a new ``offline_session``, closed after) as the kernel's context, and a
    throw-away progress file, so that making the sheet is not recorded as anyone's
    progress."""
    own = ctx is None
    ctx = offline_session() if ctx is None else ctx
    progress = os.environ.get("LABKIT_PROGRESS")
    with tempfile.TemporaryDirectory() as folder, lab().using(ctx):
        os.environ["LABKIT_PROGRESS"] = str(Path(folder) / "progress.json")
        try:
            yield
        finally:
            if progress is None:
                os.environ.pop("LABKIT_PROGRESS", None)
            else:
                os.environ["LABKIT_PROGRESS"] = progress
            if own:
                ctx.close()


def _where(exercise: Exercise) -> str:
    if exercise.source == LIVE:
        return _("computed by {engine} in the learner's run, with no server; the same "
                 "everywhere").format(engine=exercise.engine_name or "labkit")
    if exercise.source == MODEL:
        return _("labkit's model's prediction, as this sheet is made without a server; with "
                 "MongoDB, the server's own result judges the learner's answer")
    return _("the result {label}").format(label=exercise.engine)


class _UnansweredError(Exception):
    """An exercise whose answer cannot be had here (a fake it asks is not installed), so no
    sheet can be made or checked: its name and why, kept as they are."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(name, why)
        self.name, self.why = name, why


def _entry(name: str, exercise: Exercise) -> list[str]:
    out = [f"### {markdown_code(name)}: {markdown(_(exercise.question))}", ""]
    if exercise.measured:  # each run measures it anew: said in words, no figure printed
        out.append("- **" + _("Answer") + "**: " + markdown(_(exercise.measured)) + ".")
    else:
        try:
            answer = exercise.accept.show(exercise.answer())
        except NoAnswer as exc:
            raise _UnansweredError(name, str(exc)) from exc
        out.append("- **" + _("Answer") + f"**: {markdown_code(answer)}")
        out.append("- **" + _("Where it comes from") + "**: " + markdown(_where(exercise)) + ".")
    out.append("- **" + _("Accepted") + "**: " + markdown(exercise.accept.describe()) + ".")
    for wrong, text in exercise.mistakes:
        said = (f"*{markdown(_(wrong.meaning))}*" if isinstance(wrong, Said)
                else markdown_code(exercise.accept.show(wrong)))
        out.append("- **" + _("Common mistake") + f"** {said}: " + markdown(_(text)))
    for number, text in enumerate(exercise.hints, 1):
        out.append("- **" + _("Hint {number}").format(number=number) + "**: " + markdown(_(text)))
    why = " ".join(_(text) for text in (exercise.explanation, exercise.more) if text)
    out += ["- **" + _("Why") + "**: " + markdown(why), ""]
    return out


def sheet(code: str, session: Context | None = None) -> str:
    """The answer sheet in language ``code``, as Markdown, made in ``session`` (an
    ``offline_session``; a new one where none is given)."""
    previous = i18n._chosen
    i18n.language(code)
    try:
        with _offline(session):
            return _text()
    finally:
        i18n._chosen = previous


def _text() -> str:
    out = ["# " + _("Answer sheet"), "",
           _("Every exercise of the lessons with its answer, what is accepted, its common "
             "mistakes, hints and explanation. Generated from the exercises; "
             "`tests/test_sheet.py` fails when this file and the exercises differ. Regenerate "
             "both languages with:"), "",
           "```sh", COMMAND, "```", "",
           _("Where an answer comes from is said after it. Without a server the lessons judge "
             "by the same answers; with MongoDB reachable, a server-backed exercise is judged "
             "by what the server returns."), ""]
    for lesson in syllabus.LESSONS:
        names = [n for n in questions.EXERCISES if n.startswith(lesson.number + ".")]
        if not names:
            continue
        out += ["## " + f"{lesson.number} " + markdown(_(lesson.title)), ""]
        for name in names:
            out += _entry(name, questions.exercise(name))
    return "\n".join(out).rstrip() + "\n"


def stale() -> list[Path]:
    """The sheets whose text differs from what the exercises give now (their claims run once,
    for both languages)."""
    with contextlib.closing(offline_session()) as session:
        return [path for code, path in SHEETS.items() if not path.exists()
                or path.read_text(encoding="utf-8") != sheet(code, session)]


def main(argv: list[str] | None = None) -> int:
    """Write both sheets, or with ``check`` say which are out of step."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _main(argv)
    except _UnansweredError as exc:  # one line, never a traceback
        print(f"Error: the answer to {exc.name} cannot be had here, so the sheets cannot be "
              f"made or checked: {exc.why}", file=sys.stderr)
        return 1


def _main(argv: list[str]) -> int:
    if argv[:1] == ["check"]:
        late = stale()
        for path in late:
            print(f"{path.relative_to(CHECKOUT)} is out of step: run {COMMAND}")
        return 1 if late else 0
    if argv:
        print(f"Error: {COMMAND} takes nothing, or check", file=sys.stderr)
        return 2
    with contextlib.closing(offline_session()) as session:
        for code, path in SHEETS.items():
            path.write_text(sheet(code, session), encoding="utf-8")
            print(f"wrote {path.relative_to(CHECKOUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
