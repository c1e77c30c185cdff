"""Suite-wide rules: skip notebooks whose servers are missing, and say what was skipped and why."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from labkit import servers

# The lessons' B-tree loads at a size the suite can afford (the kit's default is 200,000 keys
# per kind); a value set by whoever runs the tests wins. Kernels started by nbval inherit it.
os.environ.setdefault("LABKIT_BTREE_N", "20000")


def _notebook_needs(path) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle).get("metadata", {}).get("labkit", {}).get("needs", [])


def pytest_collection_modifyitems(config, items):
    """Skip, with the reason, every cell of a notebook whose ``labkit.needs`` cannot be met."""
    reasons: dict[str, str | None] = {}
    for item in items:
        path = getattr(item, "path", None)
        if path is None or path.suffix != ".ipynb":
            continue
        if str(path) not in reasons:
            needs = _notebook_needs(path)
            reasons[str(path)] = servers.mongodb_missing() if "mongodb" in needs else None
        if reasons[str(path)]:
            item.add_marker(pytest.mark.skip(reason=f"{path.name} {reasons[str(path)]}"))


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
