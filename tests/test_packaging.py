"""A built wheel works on its own: installed into a fresh virtual environment, it finds its
fixtures, its claim files and its version, with no checkout beside it."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, labkit
from labkit.claims import files
from labkit.experiments import catalogue
from labkit.model import fixtures
print(json.dumps({"file": labkit.__file__, "version": labkit.__version__,
                  "fixtures": fixtures.names(), "orders": len(fixtures.load("orders")),
                  "claim_files": str(files.KIT_CLAIMS),
                  "b1": catalogue.get("B1").predict()["eq_42"]}))
"""


@pytest.mark.slow
def test_wheel_installs_and_loads_a_fixture(tmp_path):
    """The wheel carries data/ as labkit.data; an installed copy loads the orders fixture."""
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("labkit-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", str(wheel)], check=True, capture_output=True, timeout=300)
    # The fresh environment borrows the dependencies (pymongo, ...) of this one, not labkit.
    deps = sysconfig.get_paths()["purelib"]
    out = subprocess.run([str(python), "-c", PROBE], capture_output=True, text=True,
                         cwd=tmp_path, env={"PYTHONPATH": deps}, timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert Path(seen["file"]).is_relative_to(venv)
    assert seen["fixtures"] == ["arrays", "events", "mixed", "nans", "nulls", "orders"]
    assert seen["orders"] == 5
    # The kit's claim files come with it: an experiment reads its questions from them.
    claim_files = Path(seen["claim_files"])
    assert claim_files.is_relative_to(venv) and claim_files.parts[-2:] == ("labkit", "kit_claims")
    assert seen["b1"] == [1, 3, 4, 5]
    from labkit._version import __version__

    assert seen["version"] == __version__
    assert wheel.name.startswith(f"labkit-{__version__}-")


def test_the_version_lives_in_one_place():
    """pyproject.toml reads the version from the package instead of repeating it."""
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text
    assert 'version = {attr = "labkit._version.__version__"}' in text
    assert "\nversion =" not in text.split("[tool.setuptools.dynamic]")[0]
