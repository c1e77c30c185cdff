"""Every command the docs show runs.

The rule: each line of a ``sh`` block in README.md, notebooks/README.md and docs/*.md is a shell
command (a line ending in ``\\`` goes on to the next; a line starting with ``#`` is a comment).
Each runs here, in a scratch folder that holds the checkout's files, with no server named in
the environment, and must exit with status 0, or with the status its trailing comment gives
(``# exit status 0 when …; 1 when …`` allows each status it names), and print no traceback. A
command that changes a file of docs/ there (a regenerate command) must reproduce the committed
file. The commands that cannot run here are matched by ``NOT_RUN_HERE``, each with why; they are
reported as skipped, so the run's summary lists them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "notebooks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SH_BLOCK = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```", re.S | re.M)

# What cannot run in the test suite, and why. Each pattern is searched in the command's text.
NOT_RUN_HERE = [
    (r"^make\b", "make first installs .venv with pip; what it runs is shown, and run here, as "
                 "`labkit …` commands"),
    (r"^docker\b", "needs Docker"),
    (r"^conda\b", "needs conda"),
    (r"^export LABKIT_MONGODB_(URI|BIND)=", "names a server of the reader's own"),
    (r"\blabkit server\b", "starts or finds a MongoDB server and keeps it until it is stopped"),
    (r"--engines \S*\bmongodb\b|--mongodb uri\b", "needs a MongoDB server"),
    (r"^python -m labkit\.lessons\.sheet$", "writes docs/answers.md and docs/answers.vi.md in "
                                           "the checkout; tests/test_sheet.py makes its check"),
    (r"^python -m pytest\b", "the test suite, of which this test is a part"),
]
# Commands the docs show that fail today, each with the fix it waits for. The mark is strict:
# once the fix is in, the test passes, the mark fails the run, and it comes out.
BROKEN: dict[str, str] = {}
# No server may be reached: a command that needs one is in NOT_RUN_HERE.
UNSET = ("LABKIT_MONGODB_URI", "LABKIT_POSTGRES_DSN", "LABKIT_MONGOD", "LABKIT_LANG",
         "LABKIT_REQUIRE")


def _strip_comment(line: str) -> tuple[str, str]:
    """The command and its trailing comment: a ``#`` after white space, outside quotes."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def doc_commands() -> list[tuple[str, int, str, str]]:
    """Every command of the docs' sh blocks: (file, line, command, its trailing comment)."""
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in SH_BLOCK.finditer(text):
            first = text[:block.start(1)].count("\n") + 1
            pending, start = "", 0
            for offset, line in enumerate(block.group(1).splitlines()):
                if not pending and (not line.strip() or line.lstrip().startswith("#")):
                    continue
                start = start if pending else first + offset
                if line.endswith("\\"):
                    pending += line[:-1] + " "
                    continue
                command, comment = _strip_comment(pending + line)
                pending = ""
                found.append((str(doc.relative_to(ROOT)), start, command.strip(), comment))
    return found


COMMANDS = doc_commands()


def _why_not_run(command: str) -> str | None:
    return next((why for pattern, why in NOT_RUN_HERE if re.search(pattern, command)), None)


def _statuses(comment: str) -> set[int]:
    """The statuses a trailing comment allows: every number after its words "exit status"."""
    _, said, after = comment.partition("exit status")
    return {int(n) for n in re.findall(r"\b\d+\b", after)} if said else {0}


def _params() -> list:
    """One test per distinct command (the docs repeat some), named by where it is first shown."""
    first: dict[str, tuple[str, int, str]] = {}
    for doc, line, command, comment in COMMANDS:
        first.setdefault(command, (doc, line, comment))
    return [pytest.param(command, comment, id=f"{doc}:{line}: {command[:60]}",
                         marks=[pytest.mark.xfail(strict=True, reason=why)
                                for text, why in BROKEN.items() if text in command])
            for command, (doc, line, comment) in first.items()]


def _scratch(folder: Path) -> Path:
    """A folder holding the checkout's files: links to them, and a copy of docs/ so that a
    command writing there changes only the copy."""
    skip = {"docs", "labkit", "reports", "build", "dist"}
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name in skip or entry.name.endswith(".egg-info"):
            continue
        (folder / entry.name).symlink_to(entry)
    shutil.copytree(ROOT / "docs", folder / "docs")
    return folder


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.skipif(shutil.which("bash") is None, reason="the docs' commands are bash")
@pytest.mark.parametrize(("command", "comment"), _params())
def test_each_command_the_docs_show_runs(command, comment, tmp_path):
    """A command of the docs' sh blocks that needs no server exits as the docs say, with no
    traceback, and leaves every file of docs/ as committed (a regenerate command reproduces
    it)."""
    why = _why_not_run(command)
    if why:
        pytest.skip(f"not run here: {why}")
    folder = _scratch(tmp_path)
    result = subprocess.run(["bash", "-c", command], cwd=folder, env=_environment(),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode in _statuses(comment), result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    # Compared as words: argparse's wrapping of docs/cli.md's help varies a little by Python.
    changed = [path.name for path in sorted((folder / "docs").iterdir())
               if path.read_bytes().split() != (ROOT / "docs" / path.name).read_bytes().split()]
    assert changed == []


def test_the_docs_show_commands_and_the_rules_are_all_used():
    """The docs' sh blocks hold commands to run (labkit's own among them), and every rule for
    not running one matches some command, so the list keeps no rule nothing needs."""
    commands = [command for _, _, command, _ in COMMANDS]
    assert any(c.startswith("labkit ") and _why_not_run(c) is None for c in commands)
    unused = [pattern for pattern, _ in NOT_RUN_HERE
              if not any(re.search(pattern, c) for c in commands)]
    assert unused == []


def test_the_rules_read_a_block_as_the_docs_write_it():
    """A continued line is one command, a comment line is none, a trailing comment is cut off
    outside quotes and gives the exit statuses it names, and a ``#`` inside quotes stays."""
    assert _strip_comment("labkit doctor   # exit status 0 when ready; 1 otherwise") == \
        ("labkit doctor", "exit status 0 when ready; 1 otherwise")
    assert _strip_comment("labkit predict find f --filter '{\"a\": \"#x\"}'")[1] == ""
    assert _statuses("exit status 0 when ready; 1 when a requirement fails") == {0, 1}
    assert _statuses("two claims, in seconds") == {0}
    assert _statuses("exit status 2: bad input") == {2}
    assert _why_not_run("docker compose up -d --wait") == "needs Docker"
    assert _why_not_run("labkit objectid explain 507f1f77bcf86cd799439011") is None
