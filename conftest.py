"""Suite-wide rules: every lesson runs (with or without a server), and the run ends by saying
what was skipped and why."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest


def _iri_syntax_when_first_asked() -> None:
    """Put a stand-in for ``rfc3987_syntax`` in place that imports the package when a schema
    first checks an IRI.

    nbval reads notebooks with nbformat, which imports jsonschema, whose format checkers import
    ``rfc3987_syntax`` (for the "iri" formats) where it is installed, as nbformat's
    ``format-nongpl`` extra has it; that package builds some thirty Earley parsers as it loads,
    two seconds of a core in each of the suite's pytest processes (python-jsonschema/jsonschema
    issue 1428; opendatahub-io/notebooks issue 3532 measured the same chain). jsonschema takes
    ``is_valid_syntax`` from it at import: the stand-in's imports the package on its first call
    and answers as it does, so every check gives the package's own answer.
    """
    import importlib
    import importlib.util
    import sys
    import types

    name = "rfc3987_syntax"
    if name in sys.modules or importlib.util.find_spec(name) is None:
        return
    stand_in = types.ModuleType(name, "rfc3987_syntax, imported on the first check")
    loaded: list[types.ModuleType] = []

    def is_valid_syntax(term: str, value: str) -> bool:
        if not loaded:
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
            loaded.append(importlib.import_module(name))
        return loaded[0].is_valid_syntax(term, value)

    stand_in.is_valid_syntax = is_valid_syntax  # type: ignore[attr-defined]
    sys.modules[name] = stand_in


# Before nbval, which pyproject.toml's addopts keep from loading as an installed plugin
# (``-p no:nbval``) so that it loads here, after the stand-in.
_iri_syntax_when_first_asked()
pytest_plugins = ["nbval.plugin"]

# The lessons' B-tree loads at a size the suite can afford (the kit's default is 200,000 keys
# per kind); a value set by whoever runs the tests wins. Kernels started by nbval inherit it.
# 5,000 keys still give the model's B-tree three levels (79 to 156 leaves of 64 keys, by key
# kind and split policy); at 20,000 the whole suite passed the same and took 7 s longer here
# (2026-12-05).
# A test that needs a size of its own sets it (tests/test_measured_answers.py).
os.environ.setdefault("LABKIT_BTREE_N", "5000")

# Exercises checked by the tests and the lessons record progress: in a folder of this run's,
# never in the learner's own ~/.labkit/progress.json.
_PROGRESS = tempfile.mkdtemp(prefix="labkit-test-progress-")
atexit.register(shutil.rmtree, _PROGRESS, True)
os.environ["LABKIT_PROGRESS"] = os.path.join(_PROGRESS, "progress.json")


def _ipc_kernel_manager() -> type:
    """The kernel manager of the suite's lesson kernels: each kernel talks over ZeroMQ ipc files
    in a folder of its own under this run's, not over TCP ports.

    jupyter_client picks a kernel's five ports free, and the kernel binds them a moment later;
    meanwhile another test's process (a server started on a free port) can take one, and the
    kernel dies before its first reply ("Address already in use"), failing every cell of its
    lesson. nbval makes its managers with it (below), tests/test_vietnamese_outputs.py through
    the ``kernel_manager`` fixture.
    """
    from jupyter_client.manager import KernelManager

    class IpcKernelManager(KernelManager):
        def __init__(self, **kwargs: object) -> None:
            folder = tempfile.mkdtemp(prefix="kernel-", dir=_PROGRESS)
            super().__init__(transport="ipc", ip=os.path.join(folder, "kernel"), **kwargs)

    return IpcKernelManager


IPC_KERNEL_MANAGER = _ipc_kernel_manager()


def _nbval_kernels_over_ipc() -> None:
    import nbval.kernel

    nbval.kernel.KernelManager = IPC_KERNEL_MANAGER


_nbval_kernels_over_ipc()


@pytest.fixture(scope="session")
def kernel_manager() -> type:
    """The class of the lesson kernels' manager (``IPC_KERNEL_MANAGER``), for a test that runs a
    lesson in a kernel of its own."""
    return IPC_KERNEL_MANAGER

# The Vietnamese edition's lessons run once each, in tests/test_vietnamese_outputs.py: its test
# of every code cell is this edition's notebook test, and its scan of their outputs reads the
# same run, so nbval does not run them a second time. (A lesson named on the command line, as
# in `pytest notebooks/vi/06_btree_keys.ipynb`, still runs under nbval.)
collect_ignore_glob = ["notebooks/vi/*.ipynb"]

# How `--dist loadscope` (pyproject.toml's addopts) shares the tests among the workers. A unit
# of work runs on one worker, in collection order; the longest units go out first (SLOW, below),
# then the others by their number of tests, so that the short units come last and even out the
# workers' ends. By default a unit is a file: a notebook's cells run in order in one kernel,
# and a file's module-scoped fixtures are made once. The exceptions, each with why:
SPREAD = {  # each test is its own unit: long, independent tests that start their own processes
    "tests/test_interruptions.py",  # 20 cases of 1 to 10 s, each with its own run to kill
    "tests/test_fastread.py",  # three generated-input tests of several seconds each
}
SHARED = {  # files that read one session-scoped result: one unit, so it is made once
    "tests/test_answers.py": "offline exercises", "tests/test_questions.py": "offline exercises",
    "tests/test_sheet.py": "offline exercises",
    "tests/test_measured_answers.py": "offline exercises",
    # Each card of every lesson's claims built on the same session, whose claims the exercises
    # above have mostly run already (made apart, on another worker, they ran again: lesson
    # 05's ID-making processes, lesson 06's loads); and a run of three of its claims.
    "tests/test_notebook.py": "offline exercises",
    "tests/test_engine_fields.py": "offline exercises",
    "tests/test_report.py": "offline run", "tests/test_lesson_claims.py": "offline run",
    "tests/test_btree_keys.py": "offline run",
}
# Tests parametrized by a lesson (their id starts with its stem, "06_btree_keys"): one unit per
# lesson, as each lesson runs once for all of its tests.
BY_LESSON = {"tests/test_vietnamese_outputs.py"}
_LESSON_ID = re.compile(r"\[(\d\d_[a-z_]+)(?:-[^\]]*)?\]$")
# The units that take longest, in seconds of a whole `make test` on two cores with four
# workers (measured on 2026-12-03; a SPREAD test named by its function: the median of its cases).
# "offline exercises" holds tests/test_engine_fields.py's 10 s since 2026-12-05.
# A unit of few tests but long, sent out by its count of tests, started late and was the last
# to finish while the other workers stood idle: longest first, the workers end together. A
# later run goes by what the last one measured (pytest's cache, ``unit_seconds``); these are
# for a fresh clone.
SLOW = {
    "tests/test_postgres.py": 32, "offline run": 31, "offline exercises": 36,
    "tests/test_vietnamese_outputs.py::06_btree_keys": 26, "tests/test_forgeries.py": 26,
    "tests/test_btree_io.py": 25, "notebooks/06_btree_keys.ipynb": 21,
    "tests/test_results_english.py": 19, "tests/test_leases.py": 19, "tests/test_btree.py": 17,
    "tests/test_lesson_pacing.py": 15, "tests/test_plot_labels.py": 15,
    "tests/test_fastread.py::test_pcre2_and_re_make_the_same_check": 14,
    "tests/test_fastread.py::test_an_edited_text_is_read_as_the_python_reader_reads_it_or_declined":
        14,
    "tests/test_wire_btree.py": 14, "tests/test_canary.py": 13, "tests/test_docs_commands.py": 13,
    "tests/test_redaction.py": 12, "tests/test_vietnamese_outputs.py::05_objectid_ordering": 12,
    "tests/test_cli.py": 12, "tests/test_explain_corpus.py": 11, "tests/test_packaging.py": 10,
    "tests/test_runner.py": 10,
    "tests/test_fastread.py::test_the_c_path_reads_as_the_python_reader_or_declines": 10,
    "tests/test_mongo.py": 8, "tests/test_wire_objectid.py": 8, "tests/test_environment.py": 7,
    "tests/test_terminal_escaping.py": 7, "tests/test_wire_server_start.py": 7,
    "tests/test_fast_paths.py": 7, "tests/test_hostile_files.py": 6, "tests/test_i18n.py": 6,
    "tests/test_explain.py": 6, "tests/test_vietnamese_outputs.py": 6,
    "tests/test_interruptions.py::test_a_killed_run_leaves_no_process_and_no_folder": 4,
}
_MEASURED = "labkit/unit-seconds"  # pytest's cache key for the seconds each unit took


def scope_of(nodeid: str) -> str:
    """The unit of work ``nodeid`` belongs to under ``--dist loadscope``."""
    path = nodeid.split("::", 1)[0]
    if path in SPREAD:
        return nodeid
    if path in BY_LESSON and (lesson := _LESSON_ID.search(nodeid)):
        return f"{path}::{lesson.group(1)}"
    return SHARED.get(path, path)


def unit_seconds(scope: str, measured: dict[str, float]) -> float:
    """How long the unit ``scope`` takes: as the last run measured it, else as SLOW says (a
    SPREAD case by its function), else 0 (short)."""
    if scope in measured:
        return measured[scope]
    return SLOW.get(scope, SLOW.get(scope.split("[", 1)[0], 0.0))


_took: Counter[str] = Counter()  # this run's seconds per unit, summed on the controller


def pytest_configure(config):
    """Say so when a file the scheduling rules name is gone (renamed): its tests then go by
    file, or their unit is no longer sent out early, which is correct but may be slower."""
    root = Path(__file__).resolve().parent
    named = SPREAD | set(SHARED) | BY_LESSON | {unit.split("::")[0] for unit in SLOW}
    for path in sorted(named - set(SHARED.values())):
        if not (root / path).exists():
            config.issue_config_time_warning(pytest.PytestConfigWarning(
                f"conftest.py's scheduling names {path}, which does not exist: update it"), 2)


def pytest_runtest_logreport(report):
    """Add up each unit's seconds, where the reports arrive (the controller, or a run without
    workers)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        _took[scope_of(report.nodeid)] += report.duration


def pytest_sessionfinish(session):
    """Keep this run's seconds per unit for the next run's order (only the units that ran)."""
    cache = getattr(session.config, "cache", None)
    if cache is None or os.environ.get("PYTEST_XDIST_WORKER") or not _took:
        return
    measured = cache.get(_MEASURED, {})
    measured.update({unit: round(seconds, 1) for unit, seconds in _took.items()})
    cache.set(_MEASURED, measured)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``--numprocesses auto``: xdist's count (one worker per core) and two more, because
    many tests spend most of their time waiting on processes they start (a run killed
    mid-load, a PostgreSQL starting, a kernel, ID-making processes waiting for a shared
    second): the extra workers' tests use a core while others wait. On two cores ``make test``
    took 3 min 8 s with three workers, 2 min 58 s and 2 min 59 s with four, and 3 min 5 s with
    five, which spent 25 s more CPU time than four (measured on 2026-12-03, one machine, one
    core's reference 2.4 s: benchmarks/suite_bench.py). ``PYTEST_XDIST_AUTO_NUM_WORKERS`` and
    ``--numprocesses logical`` keep xdist's own meaning."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or config.option.numprocesses != "auto":
        return None
    from xdist.plugin import pytest_xdist_auto_num_workers as per_core

    return per_core(config) + 2


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``--dist loadscope``, xdist's scheduling with the suite's own units (``scope_of``),
    the longest first (``unit_seconds``); every other ``--dist`` is xdist's own."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    cache = getattr(config, "cache", None)
    measured = cache.get(_MEASURED, {}) if cache is not None else {}

    class SuiteScheduling(LoadScopeScheduling):
        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:  # the whole queue is there by the first assignment
                self._ordered = True
                units = sorted(self.workqueue.items(), key=lambda unit: (
                    -unit_seconds(unit[0], measured), -len(unit[1])))
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return SuiteScheduling(config, log)


def pytest_terminal_summary(terminalreporter):
    """End the run with a plain account of what was skipped and why."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        terminalreporter.write_line("Nothing was skipped.")
        return
    why = Counter()
    for report in skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        why[reason.removeprefix("Skipped: ")] += 1
    terminalreporter.section("what was skipped and why")
    for reason, count in why.most_common():
        terminalreporter.write_line(f"{count:4d} skipped: {reason}")
