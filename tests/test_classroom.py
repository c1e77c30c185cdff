"""The classroom routes (Binder, the dev container, compose.yaml), checked without a container.

No Docker engine runs here, so nothing below starts a container: these tests read the files,
validate them against the Compose specification's and GitHub's schemas offline, and check
that what each file names exists and that every MongoDB tag agrees with the kit's default.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import click.testing
import pytest
import yaml

from labkit import servers

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "compose.yaml"
DEVCONTAINER = ROOT / ".devcontainer" / "devcontainer.json"
DOCKERFILE = ROOT / ".devcontainer" / "Dockerfile"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
CLASSROOM = ROOT / "docs" / "classroom.md"
BIN = Path(sys.executable).parent

# conda-forge's mongodb feedstock builds 6.0.16 on its main branch (conda-forge/mongodb-feedstock,
# recipe/meta.yaml, whose test runs `mongod --version`); 7.0 and 8.x are unmerged pull requests, so
# environment.yml, and with it Binder, gets 6.0 while every other route runs the default, 8.0.
# When conda-forge publishes a newer series, raise this and the conda pin must follow.
CONDA_FORGE_NEWEST_MONGODB = "6.0"


def _yaml(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def jsonc(text: str):
    """Parse JSON with comments (devcontainer.json): drop ``//`` and ``/* */`` outside strings."""
    token = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
    return json.loads(token.sub(lambda m: m.group(1) or "", text))


def _devcontainer() -> dict:
    return jsonc(DEVCONTAINER.read_text(encoding="utf-8"))


def _compose_files() -> list[Path]:
    """The compose files the dev container merges, in order (compose.yaml comes first)."""
    files = _devcontainer()["dockerComposeFile"]
    files = [files] if isinstance(files, str) else files
    return [(DEVCONTAINER.parent / name).resolve() for name in files]


def _merged_services() -> dict:
    """Services of the dev container's compose files, merged the way compose merges maps."""
    merged: dict = {}
    for path in _compose_files():
        for name, service in (_yaml(path).get("services") or {}).items():
            target = merged.setdefault(name, {})
            for key, value in service.items():
                if isinstance(value, list) and isinstance(target.get(key), list):
                    target[key] = target[key] + value
                else:
                    target[key] = value
    return merged


def interpolate(text: str, env: dict | None = None) -> str:
    """Expand compose's ``${VAR:-default}`` and ``${VAR}`` the way compose does, from ``env``."""
    env = env or {}

    def one(match: re.Match) -> str:
        name, default = match.group(1), match.group(3)
        value = env.get(name)
        return value if value else (default or "")

    return re.sub(r"\$\{(\w+)(:-([^}]*))?\}", one, text)


def _check_jsonschema(schema: str, *files: Path) -> click.testing.Result:
    """Run check-jsonschema's command on a built-in schema, in this process, with every proxy
    pointing at a closed port.

    ``--no-cache`` makes it download any remote schema it needs; with the dead proxy such a
    download fails, so a pass shows that the check needs no network. (Its command runs here
    rather than in a child Python: a child would import jsonschema and its format checkers
    again, two seconds of a core for each of these five checks.)
    """
    from check_jsonschema import main

    env: dict[str, str | None] = {k: None for k in os.environ if "proxy" in k.lower()}
    env.update({name: "http://127.0.0.1:9" for name in
                ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")})
    result = click.testing.CliRunner().invoke(main, ["--no-cache", "--builtin-schema", schema,
                                                    *map(str, files)], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


# Schemas ---------------------------------------------------------------------------------


def test_compose_files_follow_the_compose_specification():
    """compose.yaml and the dev container's override validate against the Compose schema."""
    result = _check_jsonschema("vendor.compose-spec", *_compose_files())
    assert result.exit_code == 0, result.output


def test_workflows_follow_githubs_workflow_schema():
    """Every GitHub workflow validates against GitHub's workflow schema, offline."""
    assert WORKFLOWS
    result = _check_jsonschema("vendor.github-workflows", *WORKFLOWS)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("schema", "text", "culprit"), [
    ("vendor.compose-spec",
     "services:\n  lab:\n    image: python:3.11-slim\n    depends_on:\n"
     "      db: {condition: service_ready}\n", "service_ready"),
    ("vendor.compose-spec",
     "services:\n  db:\n    image: mongo:8.0\n    healtcheck: {test: [CMD, mongosh]}\n",
     "healtcheck"),
    ("vendor.github-workflows",
     "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    step:\n      - run: make test\n",
     "step"),
], ids=["compose-bad-condition", "compose-misspelt-key", "workflow-misspelt-steps"])
def test_the_schema_checks_reject_broken_files(tmp_path, schema, text, culprit):
    """A depends_on condition compose does not know, or a misspelt key, fails the check."""
    broken = tmp_path / ("compose.yaml" if "compose" in schema else "workflow.yml")
    broken.write_text(text)
    result = _check_jsonschema(schema, broken)
    assert result.exit_code == 1
    assert culprit in result.output


# The dev container -------------------------------------------------------------------------


def test_jsonc_keeps_slashes_inside_strings():
    """The comment stripper removes comments and leaves ``//`` inside a string alone."""
    text = '{"url": "http://x/*y*/", /* block */ "n": 1} // line'
    assert jsonc(text) == {"url": "http://x/*y*/", "n": 1}


def test_devcontainer_names_files_that_exist():
    """Its compose files exist, and the Dockerfile the lab service builds from exists."""
    files = _compose_files()
    assert files[0] == COMPOSE
    assert all(path.is_file() for path in files)
    build = _merged_services()[_devcontainer()["service"]]["build"]
    # compose resolves paths from the first file's folder, the repository root
    assert (ROOT / build["context"] / build["dockerfile"]).resolve() == DOCKERFILE
    assert DOCKERFILE.is_file()


def test_devcontainer_services_exist_in_its_compose_files():
    """``service`` and every ``runServices`` entry are services of the merged compose files."""
    config, services = _devcontainer(), _merged_services()
    assert config["service"] in services
    assert set(config["runServices"]) <= set(services)
    assert config["service"] in config["runServices"]


def test_devcontainer_workspace_is_the_mounted_checkout():
    """workspaceFolder is where the repository is mounted and where the image puts the lessons."""
    config = _devcontainer()
    folder = config["workspaceFolder"]
    volumes = _merged_services()[config["service"]]["volumes"]
    assert f".:{folder}:cached" in volumes or f".:{folder}" in volumes
    assert re.search(rf"^WORKDIR {re.escape(folder)}$", DOCKERFILE.read_text(), re.M)
    interpreter = config["customizations"]["vscode"]["settings"]["python.defaultInterpreterPath"]
    assert interpreter == f"{folder}/.venv/bin/python"


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([\w.$()/-]+):(?!=)", text, re.M)) | {".venv/.labkit-installed"}


def _command_exists(command: str) -> bool:
    words = shlex.split(command)
    if words[0] == "make":
        targets = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return bool(targets) and set(targets) <= _make_targets()
    program = shutil.which(words[0], path=str(BIN))
    if program and words[0] == "jupyter" and len(words) > 1:
        return shutil.which(f"jupyter-{words[1]}", path=str(BIN)) is not None
    return program is not None


@pytest.mark.parametrize("hook", ["postCreateCommand", "postAttachCommand"])
def test_devcontainer_commands_exist(hook):
    """Each lifecycle command names a Makefile target or a program the kit installs."""
    assert _command_exists(_devcontainer()[hook])


def test_command_check_can_fail():
    """An unknown make target or program is reported as missing."""
    assert not _command_exists("make no-such-target")
    assert not _command_exists("no-such-program --help")
    assert not _command_exists("jupyter no-such-subcommand")


def test_devcontainer_runs_the_readmes_bootstrap_on_creation():
    """On creation it runs a make target that bootstraps .venv the way the README's do."""
    words = shlex.split(_devcontainer()["postCreateCommand"])
    assert words[0] == "make"
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(rf"^{words[1]}: \$\(STAMP\)$", makefile, re.M)


def test_devcontainer_forwards_jupyterlabs_port_as_its_user():
    """It forwards the lab service's JupyterLab port and connects as the image's own user."""
    config = _devcontainer()
    container_ports = {int(p.rsplit(":", 1)[1]) for p in
                       _merged_services()[config["service"]]["ports"]}
    assert config["forwardPorts"] == [8888]
    assert 8888 in container_ports
    users = re.findall(r"^USER (\S+)$", DOCKERFILE.read_text(), re.M)
    assert users
    assert config["remoteUser"] == users[-1] != "root"


# compose.yaml ------------------------------------------------------------------------------


def _compose() -> dict:
    return _yaml(COMPOSE)


def test_lab_points_labkit_at_the_compose_mongodb():
    """LABKIT_MONGODB_URI in the lab service names the mongodb service and its port."""
    services = _compose()["services"]
    uri = services["lab"]["environment"]["LABKIT_MONGODB_URI"]
    host, port = re.match(r"mongodb://([\w-]+):(\d+)/", uri).groups()
    assert host in services
    assert host != "lab"
    published = [p.rsplit(":", 1)[1] for p in services[host]["ports"]]
    assert port in published


def test_lab_waits_for_a_mongodb_that_listens_without_opening_sessions():
    """The lab starts once mongodb is healthy: its port accepts a bare TCP connection. Not a
    mongosh ping (issue 44): each opens a logical session that mongod writes at its next
    refresh, writes that mark a B-tree load on the room's server as disturbed by others."""
    services = _compose()["services"]
    assert services["lab"]["depends_on"]["mongodb"]["condition"] == "service_healthy"
    check = services["mongodb"]["healthcheck"]["test"]
    assert check[:3] == ["CMD", "bash", "-c"]
    assert check[3] == ": < /dev/tcp/127.0.0.1/27017"
    assert "mongosh" not in " ".join(check)


def test_compose_mongod_gets_labkits_small_cache():
    """The compose mongod gets the WiredTiger cache every mongod labkit starts gets."""
    command = _compose()["services"]["mongodb"]["command"]
    size = command[command.index("--wiredTigerCacheSizeGB") + 1]
    assert float(size) == servers.DEFAULT_CACHE_GB


def test_workflow_mongod_gets_labkits_small_cache():
    """CI's MongoDB service gets the same 0.25 GB cache (issue 19, "CI's MongoDB as the lessons'
    MongoDB"): a service container takes ``command`` (GitHub's workflow schema, which
    check-jsonschema's vendored copy holds and the schema test above applies), and the image's
    entrypoint prepends ``mongod`` to an argument list that starts with an option."""
    services = [job["services"]["mongodb"] for path in WORKFLOWS
                for job in _yaml(path)["jobs"].values() if "mongodb" in job.get("services", {})]
    assert services
    for service in services:
        command = service["command"].split()
        assert command[0].startswith("-")
        size = command[command.index("--wiredTigerCacheSizeGB") + 1]
        assert float(size) == servers.DEFAULT_CACHE_GB


@pytest.mark.parametrize(("service", "variable"), [
    ("lab", "LABKIT_LAB_BIND"), ("mongodb", "LABKIT_MONGODB_BIND")])
def test_ports_are_published_on_localhost_by_default(service, variable):
    """Each service listens on 127.0.0.1 only, unless its own bind variable says otherwise."""
    (port,) = _compose()["services"][service]["ports"]
    assert interpolate(port).startswith("127.0.0.1:")
    assert interpolate(port, {variable: "192.0.2.7"}).startswith("192.0.2.7:")
    other = {"LABKIT_LAB_BIND": "LABKIT_MONGODB_BIND"}.get(variable, "LABKIT_LAB_BIND")
    assert interpolate(port, {other: "192.0.2.7"}).startswith("127.0.0.1:")


def test_interpolate_follows_composes_rules():
    """``${V:-d}`` gives d when V is unset or empty, V's value otherwise."""
    assert interpolate("${A:-x}:1") == "x:1"
    assert interpolate("${A:-x}:1", {"A": ""}) == "x:1"
    assert interpolate("${A:-x}:${B}", {"A": "y", "B": "2"}) == "y:2"


def test_jupyterlab_always_asks_for_a_token():
    """JUPYTER_TOKEN is passed through or left to JupyterLab to generate, never set empty."""
    environment = _compose()["services"]["lab"]["environment"]
    assert "JUPYTER_TOKEN" in environment
    assert environment["JUPYTER_TOKEN"] is None
    for path in (COMPOSE, DOCKERFILE, DEVCONTAINER, *_compose_files()):
        text = path.read_text()
        assert not re.search(r"token\s*=\s*(''|\"\"|$)", text, re.M | re.I), path
        assert "--allow-root" not in text, path


def test_lab_image_is_an_ordinary_user_on_the_kits_python():
    """The lab image runs as a non-root user on the Python environment.yml and CI use."""
    dockerfile = DOCKERFILE.read_text()
    (base,) = re.findall(r"^FROM (\S+)", dockerfile, re.M)
    match = re.fullmatch(r"python:(\d+\.\d+)-slim(-\w+)?", base)
    assert match
    conda_python = [d for d in _yaml(ROOT / "environment.yml")["dependencies"]
                    if isinstance(d, str) and d.startswith("python=")]
    assert conda_python == [f"python={match.group(1)}"]
    assert re.findall(r"^USER (\S+)$", dockerfile, re.M)[-1] not in ("root", "0")


def test_lab_image_installs_with_the_makefile_bootstrap():
    """The image builds .venv with the Makefile's own bootstrap target and runs from it."""
    dockerfile = DOCKERFILE.read_text()
    run = re.search(r"^RUN make (\S+)", dockerfile, re.M)
    assert run
    assert run.group(1) == ".venv/.labkit-installed"
    assert re.search(r"^STAMP := \$\(VENV\)/\.labkit-installed$",
                     (ROOT / "Makefile").read_text(), re.M)
    assert "PATH=/workspaces/labkit/.venv/bin:$PATH" in dockerfile


# Pins ------------------------------------------------------------------------------------


def _pinned_files() -> list[Path]:
    docs = sorted((ROOT / "docs").glob("*.md")) if (ROOT / "docs").is_dir() else []
    return [COMPOSE, *_compose_files()[1:], DOCKERFILE, DEVCONTAINER, *WORKFLOWS,
            ROOT / "README.md", *docs]


def _image_references(text: str) -> list[str]:
    images = re.findall(r"^\s*(?:-\s*)?image:\s*['\"]?([^\s'\"#]+)", text, re.M)
    return images + re.findall(r"^FROM\s+(\S+)", text, re.M)


def test_every_image_is_pinned():
    """Every image a compose file, the Dockerfile or a workflow names has a tag, never latest."""
    images = [image for path in _pinned_files() for image in _image_references(path.read_text())]
    assert {"mongo:8.0", "postgres:18"} <= set(images)
    assert all(":" in image and not image.endswith(":latest") for image in images), images


MONGO_TAG = re.compile(r"\bmongo:(\$\{\{[^}]*\}\}|[^\s`'\"),]+?)(?=[`'\")\s,]|$)", re.M)
PLACEHOLDERS = {"${{ matrix.mongodb }}", "V", "<version>"}


@pytest.mark.parametrize("path", _pinned_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_mongo_tags_agree_with_the_default_version(path):
    """Each ``mongo:`` tag is the kit's default version, or a placeholder for a chosen one."""
    tags = set(MONGO_TAG.findall(path.read_text()))
    assert tags <= {servers.DEFAULT_MONGO_VERSION} | PLACEHOLDERS, tags


def test_default_mongo_tag_appears_where_a_server_is_pinned():
    """compose.yaml, the README and the classroom guide name mongo at the default version."""
    for path in (COMPOSE, ROOT / "README.md", CLASSROOM):
        assert f"mongo:{servers.DEFAULT_MONGO_VERSION}" in path.read_text(), path


def test_mongo_tag_pattern_sees_a_stray_tag():
    """A second version in prose or YAML is found, so a stale pin cannot hide."""
    text = "image: mongo:7.0\nrun `mongo:latest`, or (mongo:6.0), mongo:${{ matrix.v }}, `mongo:`"
    assert set(MONGO_TAG.findall(text)) == {"7.0", "latest", "6.0", "${{ matrix.v }}"}


def test_workflow_versions_include_and_pin_the_default():
    """The workflow's matrix includes the default version; its single-version runs use it."""
    text = "\n".join(path.read_text() for path in WORKFLOWS)
    matrices = [job["strategy"]["matrix"]["mongodb"] for path in WORKFLOWS
                for job in _yaml(path)["jobs"].values() if "strategy" in job]
    assert matrices
    assert all(servers.DEFAULT_MONGO_VERSION in m for m in matrices)
    pinned = re.findall(r"--mongodb-version (\S+)", text)
    assert pinned
    assert set(pinned) <= {servers.DEFAULT_MONGO_VERSION, "${{"}
    assert f"postgres:{servers.DEFAULT_POSTGRES_VERSION}" in text


def _series(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_conda_route_is_the_default_unless_conda_forge_lacks_it():
    """environment.yml pins the default series, or conda-forge's newest when that is older."""
    expected = min(servers.DEFAULT_MONGO_VERSION, CONDA_FORGE_NEWEST_MONGODB, key=_series)
    pins = [d for d in _yaml(ROOT / "environment.yml")["dependencies"]
            if isinstance(d, str) and re.split(r"[=<>!]", d)[0] == "mongodb"]
    assert pins == [f"mongodb={expected}"]


# Binder ----------------------------------------------------------------------------------


def test_binder_builds_from_environment_yml():
    """Nothing makes repo2docker skip environment.yml: no root Dockerfile, no binder folder."""
    assert not (ROOT / "Dockerfile").exists()
    assert not (ROOT / "binder").exists()
    assert not (ROOT / ".binder").exists()


def test_environment_yml_installs_this_checkout():
    """Its pip section installs labkit from the checkout (a local requirement, which makes
    repo2docker copy the repository in before it builds the environment)."""
    dependencies = _yaml(ROOT / "environment.yml")["dependencies"]
    (pip,) = [d["pip"] for d in dependencies if isinstance(d, dict) and "pip" in d]
    local = [line for line in pip if re.match(r"-e \.\[([\w,]+)\]$", line)]
    assert local
    assert "lab" in re.search(r"\[(.*)\]", local[0]).group(1).split(",")


def test_binder_start_ends_by_running_the_session():
    """``start`` is an executable bash script whose last step runs the session it is given."""
    start = ROOT / "start"
    text = start.read_text()
    assert text.startswith("#!/bin/bash\n")
    assert start.stat().st_mode & stat.S_IXUSR
    assert text.rstrip().splitlines()[-1] == 'exec labkit server --optional -- "$@"'


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_binder_start_runs_the_session_without_a_server(tmp_path):
    """With no MongoDB to be had, ``start`` still runs the session and returns its status."""
    env = {k: v for k, v in os.environ.items() if k != "LABKIT_MONGODB_URI"}
    env.update(PATH=f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin",
               LABKIT_MONGOD=str(tmp_path / "no-mongod"),
               DOCKER_HOST=f"unix://{tmp_path / 'no-docker.sock'}")
    session = [sys.executable, "-c",
               "import os, sys; print(os.environ.get('LABKIT_MONGODB_URI')); sys.exit(3)"]
    result = subprocess.run(["bash", str(ROOT / "start"), *session], capture_output=True,
                            text=True, timeout=120, env=env)
    assert result.returncode == 3, result.stderr
    assert result.stdout.strip() == "None"
    assert "Continuing without a MongoDB server" in result.stderr


# The README and the classroom guide -----------------------------------------------------------


OPENING = README.split("\n## ")[0]


def test_readme_opens_with_the_three_routes_after_the_two_commands():
    """Binder, the dev container and compose come right after ``make run`` and ``make test``."""
    after = OPENING[OPENING.index("make test"):]
    positions = [after.find(word) for word in ("Binder", "dev container", "compose.yaml")]
    assert all(p > 0 for p in positions), positions
    assert "docs/classroom.md" in OPENING


def test_the_binder_route_says_how_to_make_its_link_for_the_lessons():
    """The repository's GitHub address is nowhere in it (no remote to derive it from), so the
    README sends the Binder route to docs/classroom.md's Binder section, which says to make the
    link at mybinder.org with JupyterLab on the notebooks folder as the path to open."""
    assert "(docs/classroom.md#binder)" in OPENING
    section = CLASSROOM.read_text(encoding="utf-8").split("\n## Binder\n", 1)[1]
    assert "https://mybinder.org" in section.split("\n## ", 1)[0]
    assert "`lab/tree/notebooks`" in section.split("\n## ", 1)[0]
    assert (ROOT / "notebooks").is_dir()


@pytest.mark.parametrize("topic", [
    "docker compose up", "127.0.0.1", "LABKIT_LAB_BIND", "LABKIT_MONGODB_BIND", "JUPYTER_TOKEN",
    "firewall",
    "labkit_", "labkit server", "LABKIT_MONGODB_URI", "Binder", "Codespaces",
])
def test_classroom_guide_covers(topic):
    """docs/classroom.md speaks to each thing an instructor must know to run a room."""
    assert topic in CLASSROOM.read_text(encoding="utf-8")


def test_workflow_runs_the_suite_inside_the_compose_lab():
    """A workflow job starts compose, waits for health, and runs make test in the lab service."""
    runs = [step.get("run", "") for path in WORKFLOWS
            for job in _yaml(path)["jobs"].values() for step in job["steps"]]
    assert any(re.match(r"docker compose up\b.*--wait", run) for run in runs)
    suites = [run for run in runs if run.startswith("docker compose run --rm lab make test")]
    assert len(suites) == 1
    assert "lab" in _compose()["services"]
