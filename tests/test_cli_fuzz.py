"""The command line never shows a traceback: generated arguments for every offline subcommand
end in exit status 0, 1 or 2 (bounded Hypothesis runs, in-process)."""

from __future__ import annotations

import shutil
import tempfile

import pytest
from helpers import in_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
WEIRD = st.one_of(
    TEXT,
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["", " ", "0x", "nan", "inf", "-1", "0", "1e400", "9" * 5000, "{}", "\n",
                     "507f1f77bcf86cd799439011\n", "{507f1f77bcf86cd799439011",
                     "0198f7c4-6c2a-7abc-8def-0123456789ab}", "ffffffffffff7fffbfffffffffffffff",
                     "urn:uuid:", "2106-02-07T06:28:16Z", "9999-12-31T23:59:59Z", "--json"]),
)
FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def _status(argv: list[str]) -> int:
    return in_process(argv)[0]


@FUZZ
@given(WEIRD)
def test_objectid_explain_never_crashes(value):
    """Any text given to ``objectid explain`` is explained or refused in one line."""
    assert _status(["objectid", "explain", value]) in (0, 2)


@FUZZ
@given(st.lists(st.sampled_from(["--count", "--at", "--random", "--counter"]), max_size=4),
       st.lists(WEIRD, min_size=4, max_size=4))
def test_objectid_generate_never_crashes(options, values):
    """Any mix of generator options and values gives IDs or one refusal."""
    argv = ["objectid", "generate"]
    for option, value in zip(options, values, strict=False):
        argv += [option, value]
    assert _status(argv) in (0, 2)


@FUZZ
@given(WEIRD)
def test_uuid_explain_never_crashes(value):
    """Any text given to ``uuid explain`` is explained or refused in one line."""
    assert _status(["uuid", "explain", value]) in (0, 2)


@FUZZ
@given(st.sampled_from(["model", "sqlite", "oracle", ""]), WEIRD, WEIRD, WEIRD)
def test_btree_arguments_are_checked_before_work(engine, keys, n, cache):
    """Bad engines, key lists, sizes and caches are refused before anything is loaded; only a
    valid request with a small N runs."""
    argv = ["btree", "--engine", engine, "--keys", keys, "--n", n, "--cache-mb", cache, "--quiet"]
    try:
        small = 0 < int(n, 0) <= 2_000
    except ValueError:
        small = False
    if not small:
        argv[argv.index("--n") + 1] = n if not n.strip().lstrip("-").isdigit() else "-1"
    assert _status(argv) in (0, 2)


@FUZZ
@given(WEIRD, WEIRD)
def test_run_options_never_crash(topics, btree_n):
    """Whatever ``run`` is given as topics and B-tree size, it runs (the one offline claim D2)
    or refuses in one line."""
    out = tempfile.mkdtemp(prefix="labkit-fuzz-")
    try:
        status, _, err = in_process(["run", "--claims", "D2", "--topics", topics, "--btree-n",
                                btree_n, "--quiet", "--out", out])
    finally:
        shutil.rmtree(out, ignore_errors=True)
    assert status in (0, 2), err
    if status == 2:
        assert err.startswith("Error:"), err
        assert err.count("\n") == 1, err


def test_an_unwritable_report_folder_is_refused_before_any_claim_runs(tmp_path, monkeypatch):
    """``--out`` under a file, or in a read-only folder, is one error line and no claim runs."""
    from labkit.run import runner

    ran = []
    monkeypatch.setattr(runner, "run_claim", lambda *a: ran.append(a))
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    status, _, err = in_process(["run", "--claims", "D2", "--quiet", "--out", str(blocker / "r")])
    assert status == 2
    assert "--out" in err
    assert ran == []
    status, _, err = in_process(["run", "--claims", "D2", "--quiet", "--out", str(blocker)])
    assert status == 2
    assert "is a file, not a folder" in err
    assert ran == []


@pytest.mark.parametrize("argv", [
    ["objectid", "generate", "--at", "9" * 5000],
    ["uuid", "explain", "{0198f7c4-6c2a-7abc-8def-0123456789ab"],
    ["run", "--topics", "", "--quiet"],
    ["run", "--claims", ",", "--quiet"],
    ["run", "--claims", "D2", "--btree-n", "0", "--quiet"],
])
def test_known_bad_inputs_are_one_line_refusals(argv):
    """Inputs that once crashed or ran everything are now refused with exit status 2."""
    status, _, err = in_process(argv)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("Error:"), err


def test_a_pasted_id_with_its_newline_is_explained_like_the_bare_id():
    """Surrounding whitespace (a pasted newline) does not change what an ObjectId is."""
    pasted = in_process(["objectid", "explain", "507f1f77bcf86cd799439011\n", "--json"])
    bare = in_process(["objectid", "explain", "507f1f77bcf86cd799439011", "--json"])
    assert pasted == bare
    assert bare[0] == 0


def test_a_uuidv7_beyond_year_9999_is_explained():
    """48 bits of milliseconds reach past 9999: the time is said in words, not a crash."""
    from labkit.model import uuids

    info = uuids.explain("ffffffffffff7fffbfffffffffffffff")
    assert info["unix_ts_ms"] == 2**48 - 1
    assert info["datetime"].startswith("after 9999-12-31T23:59:59.999Z (about year 10")


# Every subcommand, every option: generated argument lists ------------------------------------

# Per subcommand: fixed leading arguments that keep the run offline and small, and the options
# whose values are generated. Servers cannot be had (``no_servers``), so nothing starts.
SUBCOMMANDS = {
    "run": (["--claims", "D2", "--quiet"],
            ["--mongodb", "--mongodb-version", "--topics", "--btree-n", "--out", "--strict",
             "--json"]),
    "check": ([], ["--engines", "--mongodb", "--mongodb-version", "--out", "--junit",
                   "--strict", "--json", "--quiet"]),
    "server": ([], ["--mongodb", "--mongodb-version", "--cache-gb", "--json", "--optional"]),
    "doctor": ([], ["--json"]),
    "clean": ([], ["--json"]),
    "btree": (["--quiet"], ["--engine", "--keys", "--n", "--cache-mb", "--capacity", "--policy",
                            "--mongodb", "--mongodb-version", "--json"]),
    "objectid explain": ([], ["--json"]),
    "uuid explain": ([], ["--json"]),
    "predict sort": ([], ["--sort", "--collation", "--mongodb-version", "--json"]),
    "predict find": ([], ["--filter", "--collation", "--mongodb-version", "--json"]),
}
FLAGS = {"--strict", "--json", "--quiet", "--optional"}
MODES = st.sampled_from(["auto", "uri", "local", "docker", "dsn", ""])
TRIED: list[list[str]] = []


@pytest.fixture
def no_servers(monkeypatch, tmp_path):
    """No way to any server and no PostgreSQL DSN: generated runs can never start one."""
    from labkit.servers import base, postgres

    for name in ("LABKIT_MONGODB_URI", "LABKIT_POSTGRES_DSN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LABKIT_MONGOD", str(tmp_path / "no-mongod"))
    monkeypatch.setattr(base, "docker_status", lambda: (False, "Docker switched off"))
    monkeypatch.setattr(postgres, "find_postgres_bin", lambda: None)
    monkeypatch.chdir(tmp_path)


@st.composite
def command_lines(draw):
    """A subcommand, a positional argument where it takes one, and options with odd values."""
    name = draw(st.sampled_from(sorted(SUBCOMMANDS)))
    fixed, options = SUBCOMMANDS[name]
    argv = name.split() + list(fixed)
    if name in ("objectid explain", "uuid explain", "check"):
        argv.append(draw(WEIRD))
    if name.startswith("predict"):
        argv.append(draw(st.sampled_from(["data/no-such.json", "", "-", "README.md"])))
    for option in draw(st.lists(st.sampled_from(options), max_size=4, unique=True)):
        if option in FLAGS:
            argv.append(option)
        elif option in ("--mongodb", "--engine"):
            argv += [option, draw(st.one_of(MODES, st.sampled_from(
                ["model", "sqlite", "postgres", "mongodb", "wiredtiger"]), WEIRD))]
        elif option in ("--n", "--btree-n"):
            argv += [option, draw(st.sampled_from(["1", "50", "0", "-5", "abc", "1e3", "",
                                                   str(10**9), "0x10"]))]
        else:
            argv += [option, draw(WEIRD)]
    if name == "btree" and "--engine" not in argv:
        argv += ["--engine", "model"]
    if name == "btree" and "--n" not in argv:
        argv += ["--n", "50"]
    return argv


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(command_lines())
def test_every_subcommand_ends_in_a_status_never_a_traceback(no_servers, argv):
    """Every subcommand with generated options exits 0, 1 or 2; a refusal is an ``Error:``
    message of at most a few lines, never a traceback."""
    TRIED.append(argv)
    status, out, err = in_process(argv)
    assert status in (0, 1, 2), (argv, err)
    assert "Traceback" not in err + out, (argv, err)
    if status == 2:
        assert err.lstrip().startswith("Error:"), (argv, err)


@pytest.mark.parametrize("argv", [
    ["run", "--claims", "D2", "--quiet", "--out", "9" * 5000],
    ["check", "9" * 5000],
    ["check", "claims", "--out", "9" * 5000, "--quiet"],
])
def test_a_path_the_system_refuses_is_one_error_line(argv, tmp_path, monkeypatch):
    """A path longer than the system allows (found by the fuzz) is an ``Error:`` line, exit 1
    or 2, not a traceback."""
    monkeypatch.chdir(tmp_path)
    status, _, err = in_process(argv)
    assert status in (1, 2)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("Error:"), err
    assert len(lines[0]) < 300, err


def test_an_unwritable_junit_file_is_refused_before_any_claim_is_checked(tmp_path, monkeypatch):
    """``check --junit`` into a missing folder, or onto a folder, is one error line, and no
    engine is asked anything."""
    from pathlib import Path

    from labkit.run import check as claimcheck

    asked = []
    monkeypatch.setattr(claimcheck, "check", lambda *a, **k: asked.append(a))
    claims_dir = str(Path(__file__).resolve().parent.parent / "claims")
    for junit in (str(tmp_path / "missing" / "j.xml"), str(tmp_path)):
        status, _, err = in_process(["check", claims_dir, "--quiet", "--out", str(tmp_path / "r"),
                                "--junit", junit])
        assert status == 2, err
        assert err.startswith("Error: --junit:"), err
    assert asked == []
