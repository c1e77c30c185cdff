"""The notebooks' API written out: ``docs/api.md``, made from ``labkit``'s names
(``lessons.public``) and each lesson's view module (``labkit.lessons.views``), every name with
its signature and the first line of its docstring.

    python -m labkit.lessons.reference          # write docs/api.md
    python -m labkit.lessons.reference check    # exit status 1 when it is out of step
"""

from __future__ import annotations

import importlib
import inspect
import sys
from types import ModuleType

from labkit._paths import CHECKOUT
from labkit.lessons.public import EAGER, LAZY
from labkit.syllabus import LESSONS

PAGE = CHECKOUT / "docs" / "api.md"
COMMAND = "python -m labkit.lessons.reference"


def view(slug: str) -> ModuleType:
    """The view module of the lesson whose notebook is ``NN_<slug>.ipynb``."""
    return importlib.import_module(f"labkit.lessons.views.{slug}")


def _summary(value: object) -> str:
    doc = inspect.getdoc(value) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def _signature(name: str, value: object) -> str:
    if inspect.isclass(value) and issubclass(value, BaseException):
        return name
    if callable(value):
        try:
            return f"{name}{inspect.signature(value)}"
        except (TypeError, ValueError):
            return name
    return name


def _entries(names: dict[str, object]) -> list[str]:
    rows = []
    for name in sorted(names, key=str.lower):
        value = names[name]
        if callable(value) or inspect.isclass(value):
            said = _summary(value)
        else:  # a constant: its type, not its (long) value
            said = f"a {type(value).__name__}"
        rows.append(f"- `{_signature(name, value)}`: {said}".rstrip(": "))
    return rows


def _facade() -> dict[str, object]:
    """``labkit``'s names, each from the module it lives in (``lessons.public``)."""
    return {name: getattr(importlib.import_module(module), attribute)
            for name, (module, attribute) in {**EAGER, **LAZY}.items()}


def _exported(module: ModuleType) -> dict[str, object]:
    return {name: getattr(module, name) for name in module.__all__}


def page() -> str:
    """docs/api.md as the code makes it now."""
    lines = ["# The notebooks' API", "",
             f"Made from the code by `{COMMAND}`; a test fails when this page and the code "
             "differ. A notebook uses `labkit` and its own lesson's view module, nothing else of "
             "labkit: every other module is internal and may change without notice.", "",
             "## `labkit`", "", *_entries(_facade()), ""]
    for lesson in LESSONS:
        module = view(lesson.slug)
        lines += [f"## Lesson {lesson.number}: `labkit.lessons.views.{lesson.slug}`", "",
                  _summary(module), "", *_entries(_exported(module)), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write docs/api.md, or with ``check`` say whether it is in step (exit status 1 if not)."""
    args = sys.argv[1:] if argv is None else argv
    made = page()
    if args[:1] == ["check"]:
        if PAGE.read_text(encoding="utf-8") == made:
            return 0
        print(f"{PAGE.name} is out of step with the code: run {COMMAND}", file=sys.stderr)
        return 1
    PAGE.write_text(made, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(CHECKOUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
