"""Suite-wide rules: every lesson runs (with or without a server), and the run ends by saying
what was skipped and why."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections import Counter

# The lessons' B-tree loads at a size the suite can afford (the kit's default is 200,000 keys
# per kind); a value set by whoever runs the tests wins. Kernels started by nbval inherit it.
os.environ.setdefault("LABKIT_BTREE_N", "20000")

# Exercises checked by the tests and the lessons record progress: in a folder of this run's,
# never in the learner's own ~/.labkit/progress.json.
_PROGRESS = tempfile.mkdtemp(prefix="labkit-test-progress-")
atexit.register(shutil.rmtree, _PROGRESS, True)
os.environ["LABKIT_PROGRESS"] = os.path.join(_PROGRESS, "progress.json")


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
