"""What several test modules share: running the command line as a user would, starting a child
that a test will signal and waiting for what it does, a database name no test made, the
lessons' claims, a claim run on a given server, a fresh kernel's lab, and one B-tree load."""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from labkit.engines import btree
from labkit.engines.btree_engine import LoadResult, Settings
from labkit.experiments import catalogue as claims
from labkit.run import runner
from labkit.servers import base


def labkit(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m labkit`` in a subprocess, as a user would."""
    return subprocess.run([sys.executable, "-m", "labkit", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


# A parent started in the background by a shell ignores SIGINT, an xdist worker may block
# signals, and a child inherits both: then a child sent SIGINT lives on until something kills
# it. This prelude gives the child what a shell's foreground job has (default dispositions, an
# empty signal mask), then becomes the real program, with the same pid.
_PLAIN_SIGNALS = """\
import os, signal, sys
for name in ("SIGINT", "SIGTERM", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2"):
    signal.signal(getattr(signal, name), signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_SETMASK, [])
os.execvp(sys.argv[1], sys.argv[1:])
"""


def plain_signals(argv: list[str]) -> list[str]:
    """``argv`` started with default signal dispositions and no blocked signal (POSIX)."""
    if not hasattr(signal, "pthread_sigmask"):
        return list(argv)
    return [sys.executable, "-c", _PLAIN_SIGNALS, *argv]


def start(argv: list[str], **popen) -> subprocess.Popen:
    """Start a child that a test will signal: it gets the signals sent, whatever this process
    ignores or blocks. Signal it only once it said it is ready (a line, a file)."""
    return subprocess.Popen(plain_signals(argv), **popen)


def sleeper(seconds: int = 60) -> subprocess.Popen:
    """A child that sleeps, started as :func:`start` does; returned once it is running Python
    (it printed ``ready``), so a signal sent now reaches the sleeper, not its prelude."""
    child = start([sys.executable, "-c", "import time; print('ready', flush=True); "
                   f"time.sleep({seconds})"], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    child.stdout.close()
    return child


POSIX_ONLY = pytest.mark.skipif(os.name == "nt", reason="uses POSIX signals and a shell script")


def kill(process: subprocess.Popen) -> None:
    """Kill ``process`` and reap it."""
    process.kill()
    process.wait()


def wait_until(condition, seconds: float = 30) -> bool:
    """Whether ``condition()`` holds within ``seconds``, asked every tenth of a second."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


def others_database_name() -> str:
    """A name for a database the server object did not create: labkit_-prefixed and random, so
    that a test never drops a user's database of a fixed name."""
    return f"labkit_not_created_by_this_object_{uuid.uuid4().hex[:8]}"


@functools.cache
def _parser():
    """``labkit``'s argument parser, built once for this process's ``in_process`` runs. Building
    it takes about 10 ms (argparse looks its own messages up in the file system's locale
    folders sixty times), a third of a quick ``labkit check`` and, over the generated-input
    tests' 1,800 runs, about 18 s of one core. The parser holds nothing a parse changes: each
    ``parse_args`` makes its own namespace, and help is laid out when it is printed."""
    from labkit import cli

    return cli.build_parser()


def in_process(argv: list[str]) -> tuple[int, str, str]:
    """``labkit`` run in this process: ``(status, stdout, stderr)``; any other exception goes
    through (a traceback is a bug the caller sees). Its parser is built once (``_parser``)."""
    from labkit import cli

    parser = _parser()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            pytest.MonkeyPatch.context() as patch:
        patch.setattr(cli, "build_parser", lambda: parser)
        try:
            status = cli.main(argv)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def assert_one_line_error(result, status: int = 2) -> None:
    """Expected errors: the given status, one ``Error:`` line, no traceback."""
    assert result.returncode == status, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error:"), result.stderr
    assert "Traceback" not in result.stderr


# The lessons whose every claim tests/test_lesson_claims.py runs live: each has no test file of
# its own. Lesson 06's claims are judged per engine, and its generator's claims name their
# engine, in tests/test_btree_keys.py.
LESSONS_RUN_WHOLE = ("dates", "sort_order", "bracketing", "objectid_anatomy", "objectid_ordering")


def lesson_claims(module: str, offline: bool) -> list[str]:
    """The IDs of the claims an experiments module registers: offline ones, or server ones."""
    return [c.id for c in claims.registered()
            if c.experiment.__module__ == f"labkit.experiments.{module}"
            and (not c.needs) == offline]


def run_on(server, claim_id: str) -> runner.ClaimResult:
    """Run one claim against a given real MongoDB server."""
    with runner.Context(mongodb_provider=lambda: server) as ctx:
        return runner.run_claim(claims.get(claim_id), ctx)


# A claim file of one query claim that holds on the model: for tests of what labkit check
# writes and prints around a claim, not of the claim.
ONE_CLAIM = """\
- id: A1
  title: plain
  fixture: [{_id: a, v: 1}]
  find: {v: 1}
  expect: {ids: [a]}
"""


class BareServer(base.Server[str]):
    """A server of no vendor, so that ``Server``'s own bookkeeping alone is under test: it
    makes and drops nothing; a subclass says how a drop or a renewal answers."""

    engine, modes, hint, user_mode, user_variable = "X", ("auto",), "", "x", "X"

    @property
    def address(self) -> str:
        return "x://"

    @classmethod
    def ways(cls, request):
        return {}

    def clean_stale(self):
        return base.Stale()

    def _create(self, name: str) -> str:
        self._created.append(name)
        return name

    def _drop(self, name: str) -> None:
        pass


def database_comment(server, name: str) -> str:
    """The comment of the PostgreSQL database ``name`` (labkit's mark and lease live there)."""
    with server.connect() as conn:
        row = conn.execute("SELECT shobj_description(oid, 'pg_database') FROM pg_database "
                           "WHERE datname = %s", (name,)).fetchone()
    assert row is not None
    return str(row[0])



def offline():
    """A server provider with no server: what a kernel without MongoDB or PostgreSQL gets."""
    from labkit.errors import ServerUnavailable

    raise ServerUnavailable("no MongoDB server is available", tried=["Docker: no daemon"],
                            hint="Hint: set LABKIT_MONGODB_URI")


def fresh_lab(monkeypatch, context=None, lesson: str | None = None):
    """A new kernel's lab (``labkit.lessons.lab``) in this kernel's place for one test: on
    ``context`` where one is given (else its own, made on first need), with ``lesson`` begun
    where one is given, nothing said yet, no exercise made or tried."""
    from labkit.lessons import lab

    made = lab.Lab(context)
    if lesson is not None:
        made.begin(lesson)
    monkeypatch.setattr(lab, "_lab", made)
    return made


def load(engine: str, kind: str, n: int, server: object = None, **settings: object) -> LoadResult:
    """One load of ``n`` keys of ``kind`` into ``engine`` (``BTreeEngine.load``), made with
    ``Settings(**settings)``."""
    return btree.ENGINES[engine].load(kind, n, Settings(**settings), server)


SERVERLESS = ("model", "sqlite", "wiredtiger")  # the B-tree engines that need no server


def serverless_loads_once(patch: pytest.MonkeyPatch,
                          made: dict[tuple[str, str, int, Settings], LoadResult]) -> None:
    """While ``patch`` holds, each load of a serverless engine (engine, key kind, N, settings)
    is made once into ``made``, a test module's own, and every caller gets a copy of it,
    untouched by what an earlier run rated beside it (``add_ratios``): as one run's cache
    (``Context.btree_load``) hands a load to every claim that asks for it, for the runs of a
    module whose tests read those engines' rows only beside a server's."""
    for key in SERVERLESS:
        engine = btree.ENGINES[key]

        def once(kind, n, settings, server, *more, _key=key, _load=engine.load):
            if (_key, kind, n, settings) not in made:
                made[_key, kind, n, settings] = copy.deepcopy(
                    _load(kind, n, settings, server, *more))
            return copy.deepcopy(made[_key, kind, n, settings])

        patch.setattr(engine, "load", once)


# MathJax 3's HTML handler, as JupyterLab 4 runs it on an output (mathjax-full,
# ts/handlers/html/HTMLDomStrings.ts): it reads no text inside these tags, nor inside an element
# of class "mathjax_ignore" (its default ignoreHtmlClass, which JupyterLab keeps).
MATHJAX_SKIPS = frozenset({"script", "noscript", "style", "textarea", "pre", "code",
                           "annotation", "annotation-xml"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})


def typeset_text(page: str) -> list[str]:
    """The text of an HTML output that JupyterLab's MathJax would read for ``$…$``: each text
    outside every element it skips, by tag or by class (``MATHJAX_SKIPS``, "mathjax_ignore")."""
    from html.parser import HTMLParser

    read: list[str] = []

    class Reader(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.open: list[tuple[str, bool]] = []  # each open tag, and whether it is skipped

        def skipped(self) -> bool:
            return bool(self.open) and self.open[-1][1]

        def handle_starttag(self, tag, attrs) -> None:
            if tag in _VOID:
                return
            classes = (dict(attrs).get("class") or "").split()
            self.open.append((tag, self.skipped() or tag in MATHJAX_SKIPS
                              or "mathjax_ignore" in classes))

        def handle_endtag(self, tag) -> None:
            while self.open and self.open.pop()[0] != tag:
                pass

        def handle_data(self, data) -> None:
            if data.strip() and not self.skipped():
                read.append(data.strip())

    parser = Reader()
    parser.feed(page)
    parser.close()
    return read
