"""Nothing from outside labkit reaches the terminal raw: a database name another role made, a
server's ``buildInfo`` version, an ``_id``, a path in an ``Error:`` line. Every terminal line
has no control character but the line break, no bidirectional override or isolate, no lone
surrogate; every ``--json`` is UTF-8 JSON with those as ``\\u`` escapes, as results.json has
them. Terminal escapes are ECMA-48's (ESC ``]0;…BEL`` sets a window title, ESC ``[2J`` clears
the screen); the bidirectional controls are Unicode's (UAX #9: U+202A–U+202E, U+2066–U+2069)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from helpers import ONE_CLAIM
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labkit.servers
from labkit.cli import main
from labkit.run import check as claimcheck
from labkit.run import doctor

TITLE_AND_CLEAR = "labkit_\x1b]0;PWNED\x07\x1b[2J"
JOINERS = {"\u200c", "\u200d"}  # join letters and emoji: shown as they are


def raw_controls(text: str) -> list[str]:
    """The characters of ``text`` a terminal would act on or reorder by (controls but the line
    break, format characters such as the bidirectional ones, surrogates, separators)."""
    return [c for c in text if c != "\n" and c not in JOINERS
            and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Cn", "Zl", "Zp")]


def well_formed_terminal(text: str) -> None:
    assert raw_controls(text) == [], ascii(text)
    text.encode("utf-8")  # no lone surrogate: a UTF-8 terminal gets UTF-8


def well_formed_json(text: str) -> object:
    """``text`` parses as JSON and holds no raw invisible character (escaped as ``\\u``)."""
    assert raw_controls(text) == [], ascii(text)
    return json.loads(text.encode("utf-8"))


# Hostile text: C0 and C1 controls, ESC sequences, the bidirectional controls, lone
# surrogates, and bytes that are not UTF-8 as a file name decodes them (surrogateescape).
HOSTILE = st.one_of(
    st.text(st.characters(codec=None, categories=("Cc", "Cf", "Cs", "Zl", "Zp", "L", "P", "N")),
            max_size=12),
    st.sampled_from([TITLE_AND_CLEAR, "\x1b[31mred\x1b[0m", "a\nb", "\r\x1b[K", "\u202eevil",
                     "\u2066x\u2069", "\x9b2J", "\x85", "\udcff", "\u2028"]),
    st.binary(max_size=8).map(lambda raw: raw.decode("utf-8", "surrogateescape")),
).filter(lambda text: "\x00" not in text)
CHECK = settings(max_examples=60, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture,
                                        HealthCheck.too_slow])


def _stale(name: str) -> list[dict[str, object]]:
    """What ``servers.clean_user_servers`` gives for a server holding ``name``'s databases."""
    return [{"engine": "postgres", "server": f"PostgreSQL {name} at 127.0.0.1:5432",
             "removed": [name], "in_use": [name], "unproven": {name: f"why {name}"},
             "skipped": {name: f"must be owner of database {name}"}}]


@CHECK
@given(name=HOSTILE)
def test_labkit_clean_shows_every_database_name_escaped(monkeypatch, capsys, name):
    """``labkit clean`` and ``clean --json`` with another role's database named with ESC
    sequences, a bidi override or a non-UTF-8 byte: the text is well-formed, the JSON too."""
    monkeypatch.setattr(labkit.servers, "clean_user_servers", lambda: _stale(name))
    assert main(["clean"]) == 0
    well_formed_terminal(capsys.readouterr().out)
    assert main(["clean", "--json"]) == 0
    assert well_formed_json(capsys.readouterr().out)[0]["removed"] == [name]


def test_labkit_clean_shows_the_title_and_clear_sequence_as_text(monkeypatch, capsys):
    """The database ``labkit_ESC]0;PWNED BEL ESC[2J`` is listed as ``\\x1b]0;PWNED\\x07…``."""
    monkeypatch.setattr(labkit.servers, "clean_user_servers", lambda: _stale(TITLE_AND_CLEAR))
    assert main(["clean"]) == 0
    out = capsys.readouterr().out
    assert "labkit_\\x1b]0;PWNED\\x07\\x1b[2J" in out
    well_formed_terminal(out)


class _Server:
    """A found server as ``labkit server`` prints it: only the fields it reads."""

    def __init__(self, version: str) -> None:
        self.uri, self.how, self.version = "mongodb://127.0.0.1:27017", "uri", version
        self.cache_gb, self.cache = None, f"cache {version}"

    def __enter__(self) -> _Server:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


@CHECK
@given(version=HOSTILE)
def test_labkit_server_shows_the_servers_version_escaped(monkeypatch, capsys, version):
    """A server whose ``buildInfo`` version holds terminal controls: ``labkit server``'s lines
    and ``--json`` are well-formed."""
    monkeypatch.setattr(labkit.servers, "provide", lambda *args: _Server(version))
    assert main(["server"]) == 0
    captured = capsys.readouterr()
    well_formed_terminal(captured.out)
    well_formed_terminal(captured.err)
    assert main(["server", "--json"]) == 0
    assert well_formed_json(capsys.readouterr().out)["version"] == version


@CHECK
@given(version=HOSTILE)
def test_labkit_doctor_shows_a_servers_version_escaped(monkeypatch, capsys, version):
    """``labkit doctor``'s line for a server whose version holds controls (a line break
    among them) is one well-formed line; ``doctor --json`` is well-formed JSON."""
    checks = [doctor.Check(doctor.URI_WAY, True, f"MongoDB {version} at 127.0.0.1:27017",
                           required=False)]
    monkeypatch.setattr(doctor, "run", lambda: doctor.Report(checks))
    main(["doctor"])
    out = capsys.readouterr().out
    well_formed_terminal(out)
    assert len(out.splitlines()) == 2  # the check's line and the summary
    main(["doctor", "--json"])
    assert well_formed_json(capsys.readouterr().out)["checks"][0]["detail"].startswith("MongoDB")


@CHECK
@given(label=HOSTILE)
def test_labkit_checks_first_line_shows_the_columns_version_escaped(tmp_path, monkeypatch,
                                                                     capsys, label):
    """``Checking N claims on <column>…``, ``labkit check``'s first line, shows a column whose
    server version holds controls as escapes."""
    claim = tmp_path / "claims.yaml"
    claim.write_text(ONE_CLAIM, encoding="utf-8")

    def check(specs, engines, versions, mode, progress, *rest, **options):
        progress(f"mongodb {label}", 0, len(specs), specs[0])
        raise KeyboardInterrupt

    monkeypatch.setattr(claimcheck, "check", check)
    main(["check", str(claim), "--out", str(tmp_path / "out")])
    well_formed_terminal(capsys.readouterr().err)


def _fixture(tmp_path: Path, ids: list[str]) -> Path:
    path = tmp_path / "docs.json"
    path.write_text(json.dumps([{"_id": i, "v": 1} for i in ids]), encoding="utf-8")
    return path


def test_labkit_predict_prints_one_line_per_id(tmp_path, capsys):
    """An ``_id`` of ``"a\\nb"`` is one line of ``predict`` (it printed as two ids), an ESC
    sequence and U+202E are escapes, and ``--json`` has U+202E as ``\\u202e``."""
    ids = ["a\nb", "\x1b[2Jc", "\u202ed"]
    path = _fixture(tmp_path, ids)
    assert main(["predict", "find", str(path), "--filter", "{}"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["a\\nb", "\\x1b[2Jc", "\\u202ed"]
    assert main(["predict", "find", str(path), "--filter", "{}", "--json"]) == 0
    out = capsys.readouterr().out
    assert "\\u202e" in out
    assert well_formed_json(out) == ids


@CHECK
@given(ids=st.lists(HOSTILE.filter(lambda t: not any(0xD800 <= ord(c) < 0xE000 for c in t)),
                    min_size=1, max_size=3, unique=True))
def test_labkit_predict_output_is_well_formed_for_any_id(tmp_path, capsys, ids):
    """``predict find``'s text has one well-formed line per ``_id`` whatever it holds; its
    ``--json`` is well-formed JSON of the same ids."""
    path = _fixture(tmp_path, ids)
    assert main(["predict", "find", str(path), "--filter", "{}"]) == 0
    out = capsys.readouterr().out
    well_formed_terminal(out)
    assert len(out.splitlines()) == len(ids)
    assert main(["predict", "find", str(path), "--filter", "{}", "--json"]) == 0
    assert well_formed_json(capsys.readouterr().out) == ids


def _a_file_name(text: str) -> bool:
    """Whether ``text`` can be a file name here (a lone surrogate only as a byte's escape)."""
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        return False
    return "/" not in text and text not in ("", ".", "..")


@CHECK
@given(name=HOSTILE.filter(_a_file_name))
def test_an_error_line_shows_a_path_escaped(tmp_path, capsys, name):
    """An ``Error:`` line naming a claim file or folder that does not exist shows its name
    with controls escaped: the line is well-formed whatever the name holds."""
    missing = os.path.join(os.fsencode(tmp_path), os.fsencode(name + ".yaml"))
    assert main(["check", os.fsdecode(missing), "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err
    assert err.startswith("Error: ")
    well_formed_terminal(err)


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="needs file names of bytes")
@pytest.mark.parametrize("encoding", ["", "utf-8"])
def test_json_on_stdout_is_utf8_for_a_folder_name_that_is_not(tmp_path, encoding):
    """``labkit check --json`` for claims in a folder whose name holds the byte 0xff prints
    UTF-8 JSON, the byte as ``\\udcff`` as results.json has it (stdout was invalid UTF-8, or
    a UnicodeEncodeError traceback under PYTHONIOENCODING=utf-8)."""
    folder = os.path.join(os.fsencode(tmp_path), b"claims\xff")
    os.mkdir(folder)
    claim = os.path.join(folder, b"a.yaml")
    with open(claim, "w", encoding="utf-8") as handle:
        handle.write(ONE_CLAIM)
    env = {**os.environ, "PYTHONIOENCODING": encoding} if encoding else \
        {k: v for k, v in os.environ.items() if k != "PYTHONIOENCODING"}
    done = subprocess.run([sys.executable, "-m", "labkit", "check", os.fsdecode(claim),
                           "--quiet", "--json", "--out", str(tmp_path / "out")],
                          capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    text = done.stdout.decode("utf-8")
    assert "\\udcff" in text
    well_formed_json(text)
    saved = (tmp_path / "out" / "results.json").read_text(encoding="utf-8")
    assert json.loads(text) == json.loads(saved)


def test_a_glyph_warning_never_carries_a_raw_escape(tmp_path):
    """A claim file named with ESC gets its report without matplotlib's "Glyph 27 missing"
    warning, which printed the ESC raw on stderr."""
    name = os.path.join(tmp_path, "e\x1b[2Jx.yaml")
    Path(name).write_text(ONE_CLAIM, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "labkit", "check", name, "--quiet", "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    well_formed_terminal(done.stderr)
    well_formed_terminal(done.stdout)


def test_a_terminal_without_utf8_gets_escapes_not_a_traceback(tmp_path):
    """Under an ASCII terminal encoding, ``predict`` prints an ``_id`` "é" as ``\\xe9`` and
    ``--json`` stays JSON (a UnicodeEncodeError traceback ended the command)."""
    path = _fixture(tmp_path, ["\u00e9t\u00e9"])
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    for extra in ([], ["--json"]):
        done = subprocess.run([sys.executable, "-m", "labkit", "predict", "find", str(path),
                               "--filter", "{}", *extra], capture_output=True, env=env,
                              timeout=60)
        assert done.returncode == 0, done.stderr.decode("ascii", "replace")
        out = done.stdout.decode("ascii")
        if extra:
            assert json.loads(out) == ["\u00e9t\u00e9"]
        else:
            assert out.strip() == "\\xe9t\\xe9"
