"""A built wheel works on its own: it builds without a warning, carries every room and every file
the package reads at run time, and, installed into a fresh virtual environment, runs from a
folder outside the checkout (the command, the notebook API, the fixtures, the Vietnamese
messages, the kit's claim files)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from labkit._version import __version__

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, labkit
from labkit.claims import files
from labkit.experiments import catalogue
from labkit.model import fixtures
from labkit.outputs import tables
print(json.dumps({"file": labkit.__file__, "version": labkit.__version__,
                  "fixtures": fixtures.names(), "orders": len(fixtures.load("orders")),
                  "mixed": len(tables.fixture("mixed")), "check": str(labkit.claim("D2")),
                  "claim_files": str(files.KIT_CLAIMS),
                  "b1": catalogue.get("B1").predict()["eq_42"]}))
"""


class Installed:
    """The wheel, what building it printed, and a fresh environment it is installed in."""

    def __init__(self, wheel: Path, build_output: str, venv: Path, outside: Path) -> None:
        self.wheel, self.build_output, self.venv, self.outside = wheel, build_output, venv, outside
        self.bin = venv / ("Scripts" if sys.platform == "win32" else "bin")
        self.python = self.bin / ("python.exe" if sys.platform == "win32" else "python")

    def run(self, *argv: str | Path, lang: str = "en") -> subprocess.CompletedProcess:
        """Run a program of the environment in a folder outside the checkout, the checkout
        off the import path, in language ``lang``."""
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["LABKIT_LANG"] = lang
        return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                              cwd=self.outside, env=env, timeout=300)


def _checkouts_files(folder: Path) -> Path:
    """A copy of the checkout's files as git sees them (tracked, or new and not ignored), to
    build from: setuptools builds in a ``build/`` folder beside the sources and keeps what an
    earlier build left there, so a wheel built in the checkout itself could carry a module
    since removed, and the build would leave that folder behind in the checkout."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=True, timeout=60)
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    """The checkout built into a wheel, once per module, and installed into a fresh virtual
    environment that borrows this one's dependencies (pymongo, ...), not labkit."""
    base = tmp_path_factory.mktemp("packaging")
    wheels = base / "wheels"
    source = _checkouts_files(base / "source")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels),
                            str(source)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("labkit-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    outside = base / "elsewhere"
    outside.mkdir()
    ready = Installed(wheel, built.stdout + built.stderr, venv, outside)
    # --ignore-installed: this environment may hold an editable labkit, which pip, run for the
    # fresh environment, would otherwise take for the one already installed.
    subprocess.run([sys.executable, "-m", "pip", "--python", str(ready.python), "install", "-q",
                    "--no-deps", "--ignore-installed", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    site = ready.run(ready.python, "-c",
                     "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    Path(site.stdout.strip(), "borrowed-dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n")
    return ready


@pytest.mark.slow
def test_the_wheel_builds_without_a_warning(installed):
    """Building the wheel prints no warning, such as setuptools' "Package would be ignored" for a
    folder of data files (setuptools' user guide, "Data Files Support")."""
    warned = [line for line in installed.build_output.splitlines()
              if re.search(r"warn|would be ignored", line, re.IGNORECASE)]
    assert warned == []


@pytest.mark.slow
def test_the_wheel_carries_every_module_and_every_data_file(installed):
    """Every module under labkit/ is in the wheel (a new room is found, not listed), with the
    fixtures as labkit.data, the message catalogues and the py.typed marker (issue "One house")."""
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "labkit").rglob("*.py")}
    assert modules - names == set()
    fixtures = {f"labkit/data/{p.name}" for p in (ROOT / "data").glob("*.json")}
    catalogues = {p.relative_to(ROOT).as_posix() for p in (ROOT / "labkit").rglob("*.po")}
    assert fixtures
    assert catalogues
    assert fixtures | catalogues | {"labkit/py.typed"} <= names
    assert not [n for n in names if "__pycache__" in n]


@pytest.mark.slow
def test_wheel_installs_and_loads_a_fixture(installed):
    """The wheel carries data/ as labkit.data; an installed copy loads the orders fixture, shows
    one as a table, and checks a claim in Vietnamese with LABKIT_LANG=vi."""
    out = installed.run(installed.python, "-c", PROBE, lang="vi")
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert Path(seen["file"]).is_relative_to(installed.venv)
    assert seen["fixtures"] == ["arrays", "events", "jobs", "mixed", "nans", "nulls", "orders",
                                "sessions", "tickets"]
    assert seen["orders"] == 5
    assert seen["mixed"] > 0
    assert seen["check"].splitlines()[0] == "D2: đúng (nhận định về hành vi)"
    # The kit's claim files come with it: an experiment reads its questions from them.
    claim_files = Path(seen["claim_files"])
    assert claim_files.is_relative_to(installed.venv)
    assert claim_files.parts[-2:] == ("labkit", "kit_claims")
    assert seen["b1"] == [1, 3, 4, 5]
    assert seen["version"] == __version__
    assert installed.wheel.name.startswith(f"labkit-{__version__}-")


@pytest.mark.slow
def test_the_installed_command_says_its_version_and_runs_a_claim(installed):
    """``python -m labkit --version`` and ``labkit run --claims D2`` work from the installed
    wheel: the report is written, and the closing line is in Vietnamese with LABKIT_LANG=vi
    (issue "One house")."""
    version = installed.run(installed.python, "-m", "labkit", "--version")
    assert (version.returncode, version.stdout.strip()) == (0, f"labkit {__version__}")
    report = installed.outside / "report"
    ran = installed.run(installed.bin / "labkit", "run", "--claims", "D2", "--out", report,
                        lang="vi")
    assert ran.returncode == 0, ran.stderr
    assert "Đã chạy 1 nhận định." in ran.stderr
    (row,) = json.loads((report / "results.json").read_text(encoding="utf-8"))["claims"]
    assert row["id"] == "D2"


@pytest.mark.slow
def test_the_installed_package_checks_the_kits_claim_files(installed):
    """The kit's claim files (claims/*.yaml) ship inside the package, wherever it keeps them,
    and ``labkit check`` runs them on the model from the installed copy (issue "One house")."""
    where = installed.run(installed.python, "-c",
                          "import labkit, os; print(os.path.dirname(labkit.__file__))")
    package = Path(where.stdout.strip())
    assert package.is_relative_to(installed.venv), where.stderr
    shipped = sorted(package.rglob("*.yaml"))
    assert sorted(p.name for p in shipped) == sorted(p.name for p in (ROOT / "claims").glob(
        "*.yaml"))
    checked = installed.run(installed.bin / "labkit", "check", *shipped, "--engines", "model",
                            "--quiet", "--out", installed.outside / "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_version_lives_in_one_place():
    """pyproject.toml reads the version from the package instead of repeating it."""
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text
    assert 'version = {attr = "labkit._version.__version__"}' in text
    assert "\nversion =" not in text.split("[tool.setuptools.dynamic]")[0]
