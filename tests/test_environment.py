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
    assert all(line.startswith(("[OK]   ", "[FAIL] ", "[--]   ")) for line in lines[:-1])


def test_installed_requirements_pass_here():
    """Python and the required packages are found in the environment the tests run in."""
    report = environment.run()
    required = [c for c in report.checks if c.required]
    assert required
    assert all(c.ok for c in required), [c.line() for c in required if not c.ok]


def test_ready_needs_no_server():
    """Ready means every required check passes: a way to MongoDB is optional (issue 32, "make
    doctor exits 0 when only optional engines are missing"), and the summary says the lessons
    run without one."""
    base = [Check("Python", True, "3.11")]
    ways = [Check("MongoDB via Docker", False, "no", required=False),
            Check("MongoDB via a local mongod", False, "no", required=False)]
    assert Report(base + ways).ok
    assert Report(base + ways).summary().startswith("Ready without a MongoDB server")
    ways[1].ok = True
    assert Report(base + ways).ok
    assert Report(base + ways).summary() == "Ready."
    assert not Report([Check("Python", False, "2.7"), *ways]).ok


def test_a_server_the_environment_names_must_work():
    """A URI or DSN the environment names is asked for: when it cannot be used, the doctor is
    not ready and says to fix or unset it (not to install anything)."""
    named = Check("MongoDB via LABKIT_MONGODB_URI", False, "did not answer", named=True)
    report = Report([Check("Python", True, "3.11"), named])
    assert not report.ok
    assert report.summary().startswith("Not ready: MongoDB via LABKIT_MONGODB_URI cannot be used")
    assert "make" not in report.summary()


def test_doctor_exits_0_on_a_machine_without_any_server(nothing_available, capsys):
    """``labkit doctor`` (what ``make doctor`` runs) on a machine with no way to MongoDB or
    PostgreSQL and no WiredTiger binding: [FAIL] lines for those, exit status 0, and a closing
    line saying the lessons run without a server."""
    from labkit import cli

    assert cli.main(["doctor"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("[--]   MongoDB via a local mongod") for line in lines)
    assert lines[-1].startswith("Ready without a MongoDB server")


def test_json_shape():
    """``--json`` carries ok, summary and every check's name, ok, detail, required and named."""
    data = environment.run().to_dict()
    assert set(data) == {"ok", "summary", "checks"}
    assert set(data["checks"][0]) == {"name", "ok", "detail", "required", "named"}


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


def test_the_no_server_hint_names_the_free_hosted_route():
    """The hint after "No MongoDB server is available" names a free hosted cluster, the route
    for a learner without Docker or conda (issue 32), and where lesson 00 explains it."""
    assert "Atlas's free tier" in servers.MONGO_HINT
    assert "lesson 00" in servers.MONGO_HINT


def _make_lab(*args: str, language: str | None = None) -> str:
    """The command ``make lab`` runs JupyterLab with, under ``LABKIT_LANG=language`` (unset:
    None)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if k != "LABKIT_LANG"}
    if language is not None:
        env["LABKIT_LANG"] = language
    result = subprocess.run(["make", "-n", "lab", *args], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env=env)
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


SETTINGS = "@jupyterlab/apputils-extension:notification"


def test_make_lab_starts_jupyterlab_with_the_projects_settings():
    """``make lab`` points JupyterLab's application settings at lab-settings/, whose
    overrides.json turns the news prompt off (fetchNews "false", the schema's "Never") and is
    valid against the installed JupyterLab's own schema of that setting."""
    import json
    import sys

    jsonschema = pytest.importorskip("jsonschema")
    assert f"--LabApp.app_settings_dir={ROOT}/lab-settings" in _make_lab().split()
    overrides = json.loads((ROOT / "lab-settings" / "overrides.json").read_text())
    assert overrides[SETTINGS]["fetchNews"] == "false"
    schema = Path(sys.prefix, "share", "jupyter", "lab", "schemas",
                  *SETTINGS.replace(":", "/").split("/")).with_suffix(".json")
    if not schema.is_file():
        pytest.skip(f"JupyterLab's schemas are not installed here ({schema})")
    jsonschema.validate(overrides[SETTINGS], json.loads(schema.read_text()))


def _served(settings_dir: Path, notebooks: Path, paths: list[str]) -> list[dict]:
    """What a JupyterLab started with ``settings_dir`` as its application settings folder
    answers at each of ``paths`` (its own API, as JSON)."""
    import json
    import sys
    import time
    import urllib.request

    from labkit.servers.process import free_port

    jupyter = Path(sys.executable).parent / "jupyter"
    if not (Path(sys.executable).parent / "jupyter-lab").exists():
        pytest.skip("JupyterLab is not installed")
    port = free_port()
    server = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--allow-root", f"--port={port}",
         "--ServerApp.token=t", f"--LabApp.app_settings_dir={settings_dir}",
         f"--notebook-dir={notebooks}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    answers = []
    try:
        for path in paths:
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                             headers={"Authorization": "token t"})
            deadline, found = time.monotonic() + 60, None
            while found is None and time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(request, timeout=5) as reply:
                        found = json.load(reply)
                except OSError:
                    time.sleep(0.5)
            assert found is not None, "JupyterLab did not answer within 60 s"
            answers.append(found)
    finally:
        server.terminate()
        server.wait(30)
    return answers


@pytest.mark.slow
def test_jupyterlab_reads_the_news_setting_from_lab_settings(tmp_path):
    """A JupyterLab started with make lab's settings folder serves fetchNews's default as
    "false" (its own default is "none": ask), read from its settings API."""
    (found,) = _served(ROOT / "lab-settings", tmp_path, [f"/lab/api/settings/{SETTINGS}"])
    assert found["schema"]["properties"]["fetchNews"]["default"] == "false"


# The Vietnamese edition of ``make lab`` (``LABKIT_LANG=vi``): JupyterLab's language is this
# plugin's setting, "locale", with the language pack's name for it.
LANGUAGE_SETTINGS = "@jupyterlab/translation-extension:plugin"
VI_SETTINGS = ROOT / "lab-settings" / "vi"
VI_START = "--LabApp.default_url=/lab/tree/vi/00_start_here.ipynb"


@pytest.mark.parametrize("language", ["vi", "VI", "vi_VN", "vi-VN.UTF-8"])
def test_make_lab_opens_the_vietnamese_edition_under_labkit_lang_vi(language):
    """``LABKIT_LANG=vi make lab`` (any spelling labkit reads as Vietnamese: the first two
    letters, in either case) starts JupyterLab with lab-settings/vi/ and on lesson 00 of
    notebooks/vi/, still rooted at notebooks/ (the lessons' links are written from there)."""
    words = _make_lab(language=language).split()
    assert f"--LabApp.app_settings_dir={VI_SETTINGS}" in words
    assert VI_START in words
    assert words[words.index("--notebook-dir") + 1] == "notebooks"


@pytest.mark.parametrize("language", [None, "", "en", "en_US.UTF-8", "fr"])
def test_make_lab_stays_english_without_labkit_lang_vi(language):
    """Without ``LABKIT_LANG`` naming Vietnamese, ``make lab`` starts JupyterLab with the
    English settings folder, lab-settings/, and on JupyterLab's own first page."""
    line = _make_lab(language=language)
    assert f"--LabApp.app_settings_dir={ROOT}/lab-settings" in line.split()
    assert "default_url" not in line
    assert "/vi" not in line


def test_the_vietnamese_settings_choose_vietnamese_and_keep_the_english_defaults():
    """lab-settings/vi/overrides.json sets JupyterLab's locale to vi_VN and holds the English
    folder's settings unchanged (the news prompt stays off), valid against the installed
    JupyterLab's schema of the language setting."""
    import json
    import sys

    english = json.loads((ROOT / "lab-settings" / "overrides.json").read_text())
    vietnamese = json.loads((VI_SETTINGS / "overrides.json").read_text(encoding="utf-8"))
    assert vietnamese[LANGUAGE_SETTINGS] == {"locale": "vi_VN"}
    assert {k: v for k, v in vietnamese.items() if k != LANGUAGE_SETTINGS} == english
    jsonschema = pytest.importorskip("jsonschema")
    schema = Path(sys.prefix, "share", "jupyter", "lab", "schemas",
                  *LANGUAGE_SETTINGS.replace(":", "/").split("/")).with_suffix(".json")
    if not schema.is_file():
        pytest.skip(f"JupyterLab's schemas are not installed here ({schema})")
    jsonschema.validate(vietnamese[LANGUAGE_SETTINGS], json.loads(schema.read_text()))


def test_the_lab_extra_installs_the_language_pack_the_settings_name():
    """The lab extra installs JupyterLab's Vietnamese language pack, the one whose locale
    (its name's tail, vi-VN: vi_VN) lab-settings/vi/ chooses."""
    import json
    import tomllib

    lab = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["lab"]
    names = [re.split(r"[<>=\[;\s]", spec)[0] for spec in lab]
    packs = [name for name in names if name.startswith("jupyterlab-language-pack-")]
    assert packs == ["jupyterlab-language-pack-vi-VN"]
    locale = packs[0].removeprefix("jupyterlab-language-pack-").replace("-", "_")
    vietnamese = json.loads((VI_SETTINGS / "overrides.json").read_text(encoding="utf-8"))
    assert vietnamese[LANGUAGE_SETTINGS]["locale"] == locale


@pytest.mark.slow
def test_jupyterlab_serves_vietnamese_from_the_vietnamese_settings(tmp_path):
    """A JupyterLab started with lab-settings/vi/ serves the language setting's default as
    vi_VN, lists vi_VN among its languages, and its Vietnamese names the Settings menu
    "Cài đặt" (the language pack installed)."""
    from importlib.util import find_spec

    if find_spec("jupyterlab_language_pack_vi_VN") is None:
        pytest.skip("the Vietnamese language pack is not installed (pip install -e '.[lab]')")
    settings, languages, vietnamese = _served(VI_SETTINGS, tmp_path, [
        f"/lab/api/settings/{LANGUAGE_SETTINGS}", "/lab/api/translations",
        "/lab/api/translations/vi_VN"])
    assert settings["schema"]["properties"]["locale"]["default"] == "vi_VN"
    assert "vi_VN" in languages["data"]
    assert vietnamese["data"]["jupyterlab"]["Settings"] == ["Cài đặt"]


def _make_installs(target: str) -> list[str]:
    """The extras each ``pip install -e '.[…]'`` installs, in order, that ``make TARGET`` runs
    on a checkout whose pyproject.toml changed (``-W``: make takes it as newer than every stamp,
    so each install step shows; ``-n``: nothing runs)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(["make", "-n", "-W", "pyproject.toml", target], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return re.findall(r"pip install -q -e '\.\[([\w,]+)\]'", result.stdout)


@pytest.mark.parametrize("target", ["doctor", "lab", "run", ".venv/.labkit-installed"])
def test_a_learners_targets_install_the_lab_extra_only(target):
    """``make doctor``, ``make lab`` and ``make run`` (and the stamp the dev container's image
    builds) install labkit with the lab extra, never the test extra (issue 32: students do not
    need pytest, mypy or the wire tests' server)."""
    assert _make_installs(target) == ["lab"]


def test_make_test_adds_the_test_extra():
    """``make test`` (and so .ci/run, which calls it) installs the test extra its tools need,
    after the learner's install."""
    assert _make_installs("test") == ["lab", "test,lab"]


def test_the_test_extra_holds_what_make_test_runs():
    """What ``make test`` runs (ruff, mypy, pytest and xdist for pyproject's addopts, nbval for
    --nbval-lax) is in the test extra and none of it in the lab extra."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {extra: {re.split(r"[<>=\[;\s]", spec)[0] for spec in specs}
             for extra, specs in extras.items()}
    tools = {"ruff", "mypy", "pytest", "pytest-xdist", "nbval"}
    assert tools <= names["test"]
    assert not tools & names["lab"]


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
    assert expected in str(check.detail)


# The offline route: make's install step from a folder of wheels, never the index ------------


def _make_dry(*args: str) -> list[str]:
    """The commands ``make -n`` prints for ``args`` on a checkout whose pyproject.toml changed
    (``-W``: every install step shows)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    result = subprocess.run(["make", "-n", "-W", "pyproject.toml", *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.parametrize("target", ["lab", "doctor", "run"])
def test_with_wheels_make_installs_from_the_folder_alone_and_marks_it_done(target):
    """``make lab WHEELS=wheels`` (the offline recipe in docs/instructors.md): every pip command
    installs with ``--no-index --find-links wheels`` (pip itself is not upgraded, which would
    need the index), and the stamp is made, so a later ``make lab`` installs nothing."""
    lines = _make_dry(target, "WHEELS=wheels")
    pips = [line for line in lines if " -m pip " in line]
    assert pips == [".venv/bin/python -m pip install -q -e '.[lab]' --no-index --find-links "
                    "wheels"]
    assert "touch .venv/.labkit-installed" in lines


def test_without_wheels_make_upgrades_pip_from_the_index():
    """Without WHEELS, the install step is the connected one: pip upgraded, then labkit with
    the lab extra, neither with --no-index (the test above can tell the two apart)."""
    pips = [line for line in _make_dry("lab") if " -m pip " in line]
    assert pips[0] == ".venv/bin/python -m pip install -q --upgrade pip"
    assert not any("--no-index" in line for line in pips)


def test_make_wheels_gathers_the_lab_extra_and_what_building_labkit_needs():
    """``make wheels`` puts into wheels/ every wheel of ``.[lab]`` and each of pyproject.toml's
    build-system requirements (an editable install builds labkit in an isolated environment,
    which pip fills from the same folder when offline)."""
    import shlex
    import tomllib

    (line,) = [line for line in _make_dry("wheels") if " pip wheel " in line]
    words = shlex.split(line)
    assert words[words.index("-w") + 1] == "wheels"
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert {".[lab]", *build} <= set(words)


def _wheel(folder: Path, name: str, version: str, files: dict[str, str],
           requires: tuple[str, ...] = ()) -> Path:
    """A pure-Python wheel of ``files`` (paths and texts), with metadata and its RECORD."""
    import base64
    import hashlib
    import zipfile

    info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = "".join([f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                        *(f"Requires-Dist: {r}\n" for r in requires)])
    contents = {**files, f"{info}/METADATA": metadata,
                f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                 "Tag: py3-none-any\n"}
    path = folder / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(path, "w") as wheel:
        for member, text in contents.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{member},sha256={digest.decode()},{len(data)}")
            wheel.writestr(member, data)
        wheel.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return path


# An in-tree PEP 517/660 build backend for the stand-in checkout below: it needs nothing from
# an index, so the one thing pip can fetch is what the wheels folder holds.
STAND_IN_BACKEND = '''
import base64, hashlib, os, zipfile

NAME, VERSION = "standin", "1"
INFO = f"{NAME}-{VERSION}.dist-info"
METADATA = (f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n"
            "Provides-Extra: lab\\nRequires-Dist: standin-dep; extra == 'lab'\\n")


def _build(folder, files):
    path = os.path.join(folder, f"{NAME}-{VERSION}-py3-none-any.whl")
    files = {**files, f"{INFO}/METADATA": METADATA,
             f"{INFO}/WHEEL": "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
    record = []
    with zipfile.ZipFile(path, "w") as wheel:
        for member, text in files.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{member},sha256={digest.decode()},{len(data)}")
            wheel.writestr(member, data)
        wheel.writestr(f"{INFO}/RECORD", "\\n".join(record + [f"{INFO}/RECORD,,"]) + "\\n")
    return os.path.basename(path)


def build_wheel(folder, config_settings=None, metadata_directory=None):
    return _build(folder, {})


def build_editable(folder, config_settings=None, metadata_directory=None):
    return _build(folder, {"standin.pth": os.getcwd() + "\\n"})
'''


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_installs_offline_from_a_wheels_folder(tmp_path):
    """The Makefile's own install step, run for real in a stand-in checkout (its pyproject.toml
    names a lab extra; an in-tree build backend needs no index) with ``WHEELS=wheels``, against
    an index that cannot be reached: the fresh .venv gets the lab extra's package from the
    folder and the stamp is made. Without WHEELS the same step fails there, so the index is
    truly out of reach (the lab extra's package uninstalled first)."""
    import sys

    checkout = tmp_path / "checkout"
    (checkout / "wheels").mkdir(parents=True)
    (checkout / "Makefile").write_text((ROOT / "Makefile").read_text())
    (checkout / "standin_backend.py").write_text(STAND_IN_BACKEND)
    (checkout / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "standin_backend"\n'
        'backend-path = ["."]\n')
    _wheel(checkout / "wheels", "standin-dep", "1", {"standin_dep.py": "OK = True\n"})
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": "http://127.0.0.1:9/",
           "PIP_RETRIES": "0", "PIP_TIMEOUT": "2", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PIP_FIND_LINKS", None)
    env.pop("PIP_NO_INDEX", None)
    stamp = checkout / ".venv" / ".labkit-installed"

    def make(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["make", f"PYTHON={sys.executable}", *args,
                               ".venv/.labkit-installed"], cwd=checkout, env=env,
                              capture_output=True, text=True, timeout=300)

    offline = make("WHEELS=wheels")
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert stamp.exists()
    found = subprocess.run([str(checkout / ".venv" / "bin" / "python"), "-c",
                            "import standin_dep, importlib.metadata as m; "
                            "print(m.version('standin-dep'), standin_dep.OK)"],
                           capture_output=True, text=True, timeout=60)
    assert found.stdout.split() == ["1", "True"], found.stderr
    subprocess.run([str(checkout / ".venv" / "bin" / "python"), "-m", "pip", "uninstall", "-q",
                    "-y", "standin-dep"], env=env, check=True, capture_output=True, timeout=60)
    stamp.unlink()
    connected = make()
    assert connected.returncode != 0
    assert not stamp.exists()
