"""The Vietnamese lessons, built from the English ones and one gettext catalogue per lesson.

The English notebooks are the source. Each markdown cell's text is a message of
``locale/vi/notebooks/<lesson>.po``; code cells are copied unchanged but for their comments,
each of which is a message too (a comment not yet translated stays English), so the two
editions cannot drift apart in what they run. One extra code cell, tagged
``labkit-language``, switches labkit's own messages (feedback, hints, cards) to Vietnamese.

    python -m labkit.lessons.translate update   # add new English text to the catalogues
    python -m labkit.lessons.translate build    # write notebooks/vi/ from the catalogues
    python -m labkit.lessons.translate check    # what is missing, stale or out of step
                                                # (exit status 1 if any)
    python -m labkit.lessons.translate messages # labkit's own words into labkit/locale/vi/labkit.po
"""

from __future__ import annotations

import ast
import copy
import io
import json
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from labkit._paths import CHECKOUT, PACKAGE
from labkit.errors import BadInput
from labkit.i18n import N_, Message

if TYPE_CHECKING:
    import polib

ROOT = CHECKOUT
LANGUAGE = "vi"
LANGUAGE_TAG = "labkit-language"
LANGUAGE_CELL = ('import labkit\n\n'
                 'labkit.language("vi");  # phản hồi, gợi ý và thẻ kết quả bằng tiếng Việt')


# A notebook (nbformat 4) as JSON reads it: cells, metadata and outputs of every kind.
Notebook = dict[str, Any]
Cell = dict[str, Any]


class _Polib(Protocol):
    """The parts of the polib module used here (the module itself is one)."""

    POEntry: type[polib.POEntry]
    POFile: type[polib.POFile]

    def pofile(self, pofile: str, **kwargs: Any) -> polib.POFile: ...


def _polib() -> _Polib:
    try:
        import polib
    except ImportError as exc:  # pragma: no cover - polib is a dependency
        raise BadInput(Message(N_("the translation tools need polib: pip install polib"))) \
            from exc
    return polib


@dataclass(frozen=True)
class Layout:
    """Where the English lessons, the catalogues and the built lessons are."""

    root: Path = ROOT

    @property
    def english(self) -> Path:
        """The English lessons: the source."""
        return self.root / "notebooks"

    @property
    def catalogues(self) -> Path:
        """One ``.po`` file per lesson."""
        return self.root / "locale" / LANGUAGE / "notebooks"

    @property
    def built(self) -> Path:
        """The Vietnamese lessons, built."""
        return self.root / "notebooks" / LANGUAGE

    def lessons(self) -> list[Path]:
        """The English lessons, in order."""
        return sorted(self.english.glob("[0-9][0-9]_*.ipynb"))

    def catalogue(self, lesson: Path) -> Path:
        """The catalogue of one lesson."""
        return self.catalogues / f"{lesson.stem}.po"


def _read(path: Path) -> Notebook:
    notebook: Notebook = json.loads(path.read_text(encoding="utf-8"))
    return notebook


def _text(cell: Cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def messages(notebook: Notebook) -> list[str]:
    """The text to translate: every markdown cell's source, in order, without repeats."""
    seen: dict[str, None] = {}
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown" and _text(cell).strip():
            seen.setdefault(_text(cell), None)
    return list(seen)


def _comment_tokens(source: str) -> list[tokenize.TokenInfo]:
    """The comments of one code cell, as Python's tokenizer finds them (a ``#`` inside a
    string is none); none where the cell is not Python (an IPython magic)."""
    try:
        return [token for token in tokenize.generate_tokens(io.StringIO(source).readline)
                if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return []


def _comment_text(token: tokenize.TokenInfo) -> str:
    return token.string[1:].strip()


def comments(notebook: Notebook) -> list[str]:
    """The code comments to translate, each comment's words without its ``#``, in order,
    without repeats. A comment left untranslated stays English in the built lesson."""
    seen: dict[str, None] = {}
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            for token in _comment_tokens(_text(cell)):
                if _comment_text(token):
                    seen.setdefault(_comment_text(token), None)
    return list(seen)


def _with_comments(source: str, comment: Any) -> str:
    """``source`` with each comment's words replaced by ``comment(words)`` (its code and the
    column each comment starts at unchanged)."""
    lines = source.split("\n")
    for token in reversed(_comment_tokens(source)):
        row, column = token.start
        line = lines[row - 1]
        end = column + len(token.string)
        words = _comment_text(token)
        lines[row - 1] = line[:column] + ("# " + comment(words) if words else "#") + line[end:]
    return "\n".join(lines)


def code_without_comments(source: str) -> str:
    """A code cell's source with its comments' words left out: what both editions run."""
    return _with_comments(source, lambda _words: "")


def update(layout: Layout = Layout()) -> dict[str, dict[str, int]]:
    """Bring every lesson's catalogue in step with its English text.

    New text is added untranslated; text no longer in the lesson is kept as obsolete (so a
    translator can reuse it); translations of text that did not change are kept.
    Returns, per lesson, how many messages were added and made obsolete.
    """
    polib = _polib()
    layout.catalogues.mkdir(parents=True, exist_ok=True)
    changes = {}
    for lesson in layout.lessons():
        path = layout.catalogue(lesson)
        catalogue = (polib.pofile(str(path), wrapwidth=100) if path.exists()
                     else _new_catalogue(lesson))
        english = _read(lesson)
        wanted = messages(english) + [c for c in comments(english)
                                      if c not in messages(english)]
        added, dropped = _merge(catalogue, {text: [] for text in wanted})
        catalogue.save(str(path))
        changes[lesson.stem] = {"added": added, "obsolete": dropped}
    return changes


def _merge(catalogue: polib.POFile, wanted: dict[str, list[str]]) -> tuple[int, int]:
    """Bring a catalogue in step with ``wanted`` (text -> where it occurs), in its order: new
    text untranslated, text that came back revived, vanished text obsolete (kept for the
    translator), translations of unchanged text kept. Returns (added, made obsolete)."""
    polib = _polib()
    known = {entry.msgid: entry for entry in catalogue if not entry.obsolete}
    added = dropped = 0
    for text, places in wanted.items():
        entry = known.get(text) or next(
            (e for e in catalogue if e.obsolete and e.msgid == text), None)
        if entry is None:
            entry = polib.POEntry(msgid=text, msgstr="")
            catalogue.append(entry)
            added += 1
        entry.obsolete = False
        if places:
            entry.occurrences = [(name, "") for name in places]
        if places and "{" in text and "python-brace-format" not in entry.flags:
            entry.flags.append("python-brace-format")
    for entry in catalogue:
        if not entry.obsolete and entry.msgid not in wanted:
            entry.obsolete = True
            dropped += 1
    order = {text: i for i, text in enumerate(wanted)}
    catalogue.sort(key=lambda e: (e.obsolete, order.get(e.msgid, len(order))))
    return added, dropped


def _new_catalogue(lesson: Path) -> polib.POFile:
    polib = _polib()
    catalogue = polib.POFile(wrapwidth=100)
    catalogue.metadata = {
        "Project-Id-Version": f"labkit lessons: {lesson.stem}",
        "Language": LANGUAGE,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "Plural-Forms": "nplurals=1; plural=0;",
    }
    return catalogue


def translations(lesson: Path, layout: Layout = Layout()) -> dict[str, str]:
    """The finished translations of one lesson: English text -> Vietnamese text."""
    path = layout.catalogue(lesson)
    if not path.exists():
        return {}
    catalogue = _polib().pofile(str(path))
    return {e.msgid: e.msgstr for e in catalogue
            if e.msgstr and not e.obsolete and "fuzzy" not in e.flags}


# A Markdown link to a file of the repository (``](hosted.md)``, a page beside the lessons): not
# a URL (``https:``, ``mailto:``), an anchor in the page (``#…``) or a path from the root (``/``).
_RELATIVE_LINK = re.compile(r"\]\((?![a-zA-Z][a-zA-Z0-9+.-]*:|[#/])")


def _one_folder_down(markdown: str) -> str:
    """``markdown`` with each relative link climbing one folder more (``](hosted.md)`` becomes
    ``](../hosted.md)``), as the edition's notebooks sit in ``notebooks/vi/``; the catalogue
    keeps the links as the English lesson writes them."""
    return _RELATIVE_LINK.sub("](../", markdown)


def build_notebook(lesson: Path, layout: Layout = Layout()) -> Notebook:
    """The Vietnamese edition of one lesson, or BadInput naming what is not translated."""
    english = _read(lesson)
    done = translations(lesson, layout)
    missing = [text for text in messages(english) if text not in done]
    if missing:
        raise BadInput(Message(N_("{lesson}: {count:,} cell(s) not translated in {catalogue}, "
                                  "the first: {first}"), lesson=lesson.name, count=len(missing),
                               catalogue=str(layout.catalogue(lesson).relative_to(layout.root)),
                               first=repr(missing[0][:60])))
    built = copy.deepcopy(english)
    for cell in built["cells"]:
        if cell["cell_type"] == "markdown" and _text(cell).strip():
            cell["source"] = _lines(_one_folder_down(done[_text(cell)]))
        elif cell["cell_type"] == "code" and _comment_tokens(_text(cell)):
            cell["source"] = _lines(_with_comments(_text(cell),
                                                   lambda words: done.get(words, words)))
    first_code = next((i for i, c in enumerate(built["cells"]) if c["cell_type"] == "code"),
                      len(built["cells"]))
    built["cells"].insert(first_code, {
        "cell_type": "code", "execution_count": None, "id": "labkit-language",
        "metadata": {"tags": [LANGUAGE_TAG]}, "outputs": [], "source": _lines(LANGUAGE_CELL)})
    built["metadata"] = dict(built["metadata"], language=LANGUAGE)
    return built


def _dump(notebook: Notebook) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def build(layout: Layout = Layout()) -> list[Path]:
    """Write ``notebooks/vi/`` from the English lessons and their catalogues."""
    layout.built.mkdir(parents=True, exist_ok=True)
    written = []
    for lesson in layout.lessons():
        target = layout.built / lesson.name
        target.write_text(_dump(build_notebook(lesson, layout)), encoding="utf-8")
        written.append(target)
    return written


def code_cells(notebook: Notebook) -> list[str]:
    """A notebook's code, cell by cell, without the language switch."""
    return [_text(c) for c in notebook["cells"] if c["cell_type"] == "code"
            and LANGUAGE_TAG not in c.get("metadata", {}).get("tags", [])]


def check(layout: Layout = Layout()) -> list[str]:
    """Every problem, one line each: a lesson without a catalogue, untranslated or stale text
    (its English changed), a Vietnamese lesson missing, out of date, or running other code."""
    return [problem for lesson in layout.lessons()
            for problem in _lesson_problems(lesson, layout)]


def _lesson_problems(lesson: Path, layout: Layout) -> list[str]:
    path = layout.catalogue(lesson)
    if not path.exists():
        return [f"{lesson.name}: no catalogue ({path.relative_to(layout.root)})"]
    return _translation_problems(lesson, path) + _edition_problems(lesson, layout)


def _translation_problems(lesson: Path, path: Path) -> list[str]:
    """The lesson's English text that its catalogue lacks, leaves empty or marks stale."""
    problems = []
    catalogue = _polib().pofile(str(path))
    current = {e.msgid: e for e in catalogue if not e.obsolete}
    for text in messages(_read(lesson)):
        entry = current.get(text)
        if entry is None:
            problems.append(f"{lesson.name}: a cell is new or changed in English and has "
                            f"no translation: {text[:60]!r}")
        elif not entry.msgstr:
            problems.append(f"{lesson.name}: not translated: {text[:60]!r}")
        elif "fuzzy" in entry.flags:
            problems.append(f"{lesson.name}: translation marked stale (fuzzy): "
                            f"{text[:60]!r}")
    return problems


def _edition_problems(lesson: Path, layout: Layout) -> list[str]:
    """How the built Vietnamese lesson differs from what the English one and the catalogue
    give: missing, running other code, or out of date."""
    target = layout.built / lesson.name
    if not target.exists():
        return [f"{lesson.name}: notebooks/{LANGUAGE}/{lesson.name} is missing"]
    problems = []
    built = _read(target)
    if [code_without_comments(c) for c in code_cells(built)] != \
            [code_without_comments(c) for c in code_cells(_read(lesson))]:
        problems.append(f"{lesson.name}: the Vietnamese lesson's code differs from the "
                        "English one's")
    try:
        expected = _dump(build_notebook(lesson, layout))
    except BadInput:
        return problems  # the untranslated text is among the translation problems
    if target.read_text(encoding="utf-8") != expected:
        problems.append(f"{lesson.name}: notebooks/{LANGUAGE}/{lesson.name} is out of date "
                        "(python -m labkit.lessons.translate build)")
    return problems


LABKIT_CATALOGUE = PACKAGE / "locale" / LANGUAGE / "labkit.po"
MARKERS = ("_", "N_")  # i18n._ translates where a message is shown; i18n.N_ only marks it


def _marked(tree: ast.AST, where: str) -> list[str]:
    """The literal messages of ``_()`` and ``N_()`` calls, in source order; an f-string there
    is a BadInput (its text changes with its values, so it cannot be looked up)."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in MARKERS and len(node.args) == 1):
            continue
        arg = node.args[0]
        if isinstance(arg, ast.JoinedStr):
            raise BadInput(Message(N_("{where}:{line:d}: an f-string cannot be a message; write "
                                      "Message(N_(\"… {{name}} …\"), name=…)"), where=where,
                                   line=node.lineno))
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.append((node.lineno, node.col_offset, arg.value))
    return [text for *_, text in sorted(found)]


def _notebook_labels(lesson: Path) -> list[str]:
    """The words a lesson's code hands labkit to show: what ``labkit.on_server`` runs (its
    first argument, a not-run card's head) and its ``model_label="…"`` (the card's label), and
    the ``title`` of a ``plots`` figure. labkit translates them where it shows them, so they
    are labkit's messages too."""
    import inspect

    # plots loads the engines and the servers' room: only collecting the messages needs it
    from labkit.outputs import plots

    labels = []
    for source in code_cells(_read(lesson)):
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a cell with IPython magics has no labels to give
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            given = {kw.arg: kw.value for kw in node.keywords if kw.arg}
            func = node.func
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                    and func.value.id == "plots" and callable(getattr(plots, func.attr, None))):
                names = list(inspect.signature(getattr(plots, func.attr)).parameters)
                given.update(zip(names, node.args, strict=False))
            if isinstance(func, ast.Attribute) and func.attr == "on_server" and node.args:
                given["what"] = node.args[0]
            labels += [value.value for key, value in given.items()
                       if key in ("what", "model_label", "title")
                       and isinstance(value, ast.Constant)
                       and isinstance(value.value, str)]
    return labels


def labkit_messages(layout: Layout = Layout(), package: Path = PACKAGE) -> dict[str, list[str]]:
    """Every message labkit shows a learner: ``{English text: [files it is in]}``, from the
    package's ``_()``/``N_()`` calls and the lessons' ``model_label=`` arguments."""
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        where = f"{package.name}/{path.relative_to(package).as_posix()}"
        for text in _marked(ast.parse(path.read_text(encoding="utf-8")), where):
            found.setdefault(text, [])
            if where not in found[text]:
                found[text].append(where)
    for lesson in layout.lessons():
        for text in _notebook_labels(lesson):
            found.setdefault(text, []).append(f"notebooks/{lesson.name}")
    # The claims' titles are the package's own words, shown translated (``Claim.shown_title``).
    for text, where in (_claim_titles() if package == PACKAGE else {}).items():
        found.setdefault(text, []).append(where)
    return found


def _claim_titles() -> dict[str, str]:
    """Every claim's title, registered or in the kit's claim files, with where it is written."""
    # the registry (experiments, engines, servers) and the claim files: as for plots above
    from labkit.claims.files import kit_titles
    from labkit.experiments.catalogue import registered

    titles = {c.title: c.experiment.__module__.replace(".", "/") + ".py" for c in registered()}
    return {**titles, **{t: w for t, w in kit_titles().items() if t not in titles}}


def update_messages(path: Path = LABKIT_CATALOGUE, layout: Layout = Layout(),
                    package: Path = PACKAGE) -> dict[str, int]:
    """Bring ``labkit/locale/vi/labkit.po`` in step with labkit's messages, as ``update`` does
    for the lessons: new text untranslated, vanished text obsolete, translations kept."""
    polib = _polib()
    wanted = labkit_messages(layout, package)
    if path.exists():
        catalogue = polib.pofile(str(path), wrapwidth=100)
    else:
        catalogue = _new_catalogue(Path("labkit"))
        catalogue.metadata["Project-Id-Version"] = "labkit"
    added, dropped = _merge(catalogue, wanted)
    path.parent.mkdir(parents=True, exist_ok=True)
    catalogue.save(str(path))
    return {"added": added, "obsolete": dropped}


def main(argv: list[str] | None = None) -> int:
    """``update``, ``build``, ``check`` or ``messages``; problems print one per line."""
    argv = sys.argv[1:] if argv is None else argv
    action = argv[0] if argv else ""
    try:
        if action == "update":
            for stem, change in update().items():
                print(f"{stem}: {change['added']} new, {change['obsolete']} obsolete")
            return 0
        if action == "build":
            for path in build():
                print(f"wrote {path.relative_to(ROOT)}")
            return 0
        if action == "check":
            problems = check()
            print("\n".join(problems) or "Every lesson is translated and in step.")
            return 1 if problems else 0
        if action == "messages":
            change = update_messages()
            print(f"labkit/locale/{LANGUAGE}/labkit.po: {change['added']} new, "
                  f"{change['obsolete']} obsolete")
            return 0
    except BadInput as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    print("Error: choose update, build, check or messages", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
