"""The environment self-check: its lines, its verdict, and its JSON."""

from __future__ import annotations

from labkit import environment
from labkit.environment import Check, Report


def test_every_check_is_one_ok_or_fail_line():
    """Each requirement prints as one ``[OK]`` or ``[FAIL]`` line, then a closing line."""
    report = environment.run()
    lines = str(report).splitlines()
    assert len(lines) == len(report.checks) + 1
    assert all(line.startswith(("[OK]   ", "[FAIL] ")) for line in lines[:-1])


def test_installed_requirements_pass_here():
    """Python and the required packages are found in the environment the tests run in."""
    report = environment.run()
    required = [c for c in report.checks if c.required]
    assert required and all(c.ok for c in required), [c.line() for c in required if not c.ok]


def test_ready_needs_one_way_to_mongodb():
    """Ready means every required check passes and at least one MongoDB way works."""
    base = [Check("Python", True, "3.11")]
    ways = [Check("MongoDB via Docker", False, "no", required=False),
            Check("MongoDB via a local mongod", False, "no", required=False)]
    assert not Report(base + ways).ok
    assert "No way to a MongoDB server" in Report(base + ways).summary()
    ways[1].ok = True
    assert Report(base + ways).ok and Report(base + ways).summary() == "Ready."
    assert not Report([Check("Python", False, "2.7")] + ways).ok


def test_json_shape():
    """``--json`` carries ok, summary and every check's name, ok, detail and required."""
    data = environment.run().to_dict()
    assert set(data) == {"ok", "summary", "checks"}
    assert set(data["checks"][0]) == {"name", "ok", "detail", "required"}
