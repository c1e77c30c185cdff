"""The house: labkit's rooms import one way and no module imports itself back.

The rooms and their order are docs/architecture.md's; this test reads every import of the
package (function-level ones too) with ``ast``, so a new arrow back up fails here first.
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "labkit"

# Top to bottom, as docs/architecture.md lists them; a room may import only itself and below.
ROOMS = ["__init__", "__main__", "cli", "lessons", "outputs", "run", "experiments", "engines",
         "claims", "servers", "model", "syllabus", "names", "_defaults", "_signals", "errors",
         "i18n", "_redact", "_conninfo", "_version", "_paths"]
# What the model may import of labkit: a library of MongoDB's rules needs its errors and their
# words (i18n), and the fixtures' folder (_paths), nothing else.
MODEL_MAY_IMPORT = {"model", "errors", "i18n", "_redact", "_paths"}  # _paths: where data/ is


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _room(module: str) -> str:
    parts = module.split(".")
    return "__init__" if parts == ["labkit", "__init__"] or parts == ["labkit"] else parts[1]


def _imports(module: str, path: Path) -> set[str]:
    """Every labkit module that ``module`` imports, at any depth of its code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import sub` imports the module sub; `from mod import name`, the module mod.
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                     for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in MODULES and name != module}
    return found


@functools.cache
def _graph() -> dict[str, set[str]]:
    """Each labkit module and the labkit modules it imports (read when a test asks, not while
    every worker collects the suite)."""
    return {module: _imports(module, path) for module, path in MODULES.items()}


def test_every_module_sits_in_a_known_room():
    """Each file of the package belongs to a room that docs/architecture.md names."""
    assert {_room(m) for m in MODULES} <= set(ROOMS)


def test_no_import_runs_back_up():
    """A room imports only itself and the rooms below it (docs/architecture.md's order)."""
    upward = [f"{source} -> {target}" for source, targets in _graph().items() for target in targets
              if ROOMS.index(_room(target)) < ROOMS.index(_room(source))]
    assert not upward, "\n".join(upward)


def test_the_model_imports_nothing_of_labkit_but_errors():
    """model/ is a library of MongoDB's rules: it needs no server, claim, engine or output."""
    foreign = [f"{source} -> {target}" for source, targets in _graph().items()
               if _room(source) == "model" for target in targets
               if _room(target) not in MODEL_MAY_IMPORT]
    assert not foreign, "\n".join(foreign)


def test_the_words_sit_below_the_errors():
    """i18n, whose messages every error keeps, imports nothing of labkit but _paths (where its
    catalogues are), and errors imports it: neither depends on what was imported first."""
    assert _graph()["labkit.i18n"] <= {"labkit._paths"}
    assert "labkit.i18n" in _graph()["labkit.errors"]


def test_no_import_circle():
    """No module reaches itself by following imports (package faces included)."""
    seen: dict[str, int] = {}  # 1: on the current path, 2: done
    circles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        seen[module] = 1
        for target in sorted(_graph()[module]):
            if seen.get(target) == 1:
                circles.append([*path[path.index(target):], target])
            elif target not in seen:
                visit(target, [*path, target])
        seen[module] = 2

    for module in sorted(_graph()):
        if module not in seen:
            visit(module, [module])
    # A package's face importing its own submodules is the one loop Python allows on purpose.
    real = [c for c in circles if not all(m.startswith(c[0] + ".") or m == c[0] for m in c)]
    assert not real, "\n".join(" -> ".join(c) for c in real)


def _third_party_imports(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports, labkit's own left out."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - {"labkit"}


def test_no_scripted_server_and_no_fake_stands_in_for_mongodb():
    """The wire tests' scripted server (mockupdb, tests/mongo_wire.py) is a test tool: nothing
    in the package imports it, so no verdict a user sees can come from a scripted reply; the
    in-process fakes (mongomock, montydb) are imported only where they are named as fakes."""
    for module, path in MODULES.items():
        imported = _third_party_imports(path)
        assert not imported & {"mockupdb", "mongo_wire"}, module
        if imported & {"mongomock", "montydb"}:
            assert module == "labkit.engines.fakes", module


def _comments(source: str) -> tuple[set[int], set[int]]:
    """The numbers of the lines that carry a ``#`` comment (read as tokens, not as text), and
    of those that hold nothing else."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    found = [token for token in tokens if token.type == tokenize.COMMENT]
    return ({token.start[0] for token in found},
            {token.start[0] for token in found if not token.line[:token.start[1]].strip()})


def _is_labkit_import(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == "labkit" for alias in node.names)
    return isinstance(node, ast.ImportFrom) and (
        bool(node.level) or (node.module or "").split(".")[0] == "labkit")


def _imports_without_reason(path: Path) -> list[str]:
    """``path:line`` of each import of labkit inside a function with no comment on its lines,
    no comment line just above, and no such import with its reason just above it."""
    source = path.read_text(encoding="utf-8")
    comments, whole = _comments(source)
    inside = {node.lineno: node for function in ast.walk(ast.parse(source))
              if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
              for node in ast.walk(function) if _is_labkit_import(node)}
    reasoned: set[int] = set()  # the last line of each import whose reason is written
    bare = []
    for line, node in sorted(inside.items()):
        last = node.end_lineno or line
        if comments & set(range(line, last + 1)) or line - 1 in whole | reasoned:
            reasoned.add(last)
        else:
            bare.append(f"{path.relative_to(PACKAGE.parent).as_posix()}:{line}")
    return bare


def test_every_import_inside_a_function_says_why():
    """An import of labkit sits at the top of its module unless a ``#`` comment on its line, or
    on the line just above (one comment may head a block of such imports), says why it waits
    for the function: what it would load that the light paths (``import labkit``,
    ``labkit --help``, ``labkit predict``, another command) do not need."""
    bare = [line for path in MODULES.values() for line in _imports_without_reason(path)]
    assert not bare, "\n".join(sorted(bare))
