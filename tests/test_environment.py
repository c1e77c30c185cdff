"""The environment self-check: its lines, its verdict, and its JSON."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from labkit import servers
from labkit.run import doctor as environment
from labkit.run.doctor import Check, Report


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
    assert required
    assert all(c.ok for c in required), [c.line() for c in required if not c.ok]


def test_ready_needs_one_way_to_mongodb():
    """Ready means every required check passes and at least one MongoDB way works."""
    base = [Check("Python", True, "3.11")]
    ways = [Check("MongoDB via Docker", False, "no", required=False),
            Check("MongoDB via a local mongod", False, "no", required=False)]
    assert not Report(base + ways).ok
    assert "No way to a MongoDB server" in Report(base + ways).summary()
    ways[1].ok = True
    assert Report(base + ways).ok
    assert Report(base + ways).summary() == "Ready."
    assert not Report([Check("Python", False, "2.7"), *ways]).ok


def test_json_shape():
    """``--json`` carries ok, summary and every check's name, ok, detail and required."""
    data = environment.run().to_dict()
    assert set(data) == {"ok", "summary", "checks"}
    assert set(data["checks"][0]) == {"name", "ok", "detail", "required"}


ROOT = Path(__file__).resolve().parent.parent


def _conda_dependencies() -> list[str]:
    """The conda packages environment.yml lists (its top-level ``dependencies`` strings)."""
    packages, inside = [], False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            inside = line.startswith("dependencies:")
        elif inside and re.match(r"^  - [^\s:]+$", line):
            packages.append(line[4:])
    return packages


def test_environment_pins_a_mongodb_conda_forge_has():
    """environment.yml asks for mongodb 6.0, the series conda-forge's feedstock builds (6.0.16
    on its main branch, conda-forge/mongodb-feedstock's recipe/meta.yaml; 7.0 and 8.x are unmerged
    pull requests)."""
    pins = [p for p in _conda_dependencies() if re.split(r"[=<>!]", p)[0] == "mongodb"]
    assert pins == ["mongodb=6.0"]


def test_environment_lists_what_make_wiredtiger_builds_with():
    """cmake, ninja, swig, C and C++ compilers and make are in environment.yml."""
    names = {re.split(r"[=<>!]", p)[0] for p in _conda_dependencies()}
    assert {"cmake", "ninja", "swig", "c-compiler", "cxx-compiler", "make"} <= names


def test_nothing_promises_mongodb_8_from_conda():
    """Where the README and the hint speak of conda, 6.0 is named and no 7.0 or 8.x promised."""
    readme = (ROOT / "README.md").read_text()
    conda_item = re.search(r"\*\*conda\*\*.*?(?=\n\d+\. |\n\n)", readme, re.S)
    assert conda_item is not None
    assert "`mongodb` 6.0" in conda_item.group(0)
    assert not re.search(r"`mongodb` [78]\.\d", conda_item.group(0))
    assert "environment.yml" in servers.MONGO_HINT
    assert "MongoDB 6.0" in servers.MONGO_HINT
    assert not re.search(r"\b[78]\.\d", servers.MONGO_HINT)


def _make_lab(*args: str) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(["make", "-n", "lab", *args], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if "jupyter lab" in line]
    return line


def test_make_lab_passes_args_to_jupyterlab():
    """``make lab ARGS=…`` hands the arguments to JupyterLab, after labkit server's ``--``."""
    line = _make_lab("ARGS=--no-browser --ip 0.0.0.0")
    assert "labkit server --optional -- " in line
    assert line.endswith("--no-browser --ip 0.0.0.0")


def test_make_lab_allows_root_exactly_when_root():
    """``make lab`` adds ``--allow-root`` when run as root, and only then."""
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    assert ("--allow-root" in _make_lab().split()) is as_root


@pytest.mark.parametrize(("setting", "expected"), [
    (None, "LABKIT_MONGOD is not set and there is no mongod on PATH"),
    ("missing", "which does not exist"),
    ("plain-file", "which is not an executable file"),
])
def test_doctor_tells_an_unset_labkit_mongod_from_a_bad_one(monkeypatch, tmp_path, setting,
                                                            expected):
    """The local-mongod line says whether LABKIT_MONGOD is unset, missing or not executable."""
    monkeypatch.setenv("PATH", str(tmp_path))
    if setting is None:
        monkeypatch.delenv("LABKIT_MONGOD", raising=False)
    else:
        target = tmp_path / setting
        if setting == "plain-file":
            target.write_text("not a program")
        monkeypatch.setenv("LABKIT_MONGOD", str(target))
    check = environment._mongodb_local()
    assert not check.ok
    assert expected in check.detail
