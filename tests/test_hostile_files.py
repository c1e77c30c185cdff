"""Every bad file is one ``Error:`` line and exit status 2, read within stated bounds (issue 18,
"Every bad file"): the issue's eight causes, more of the same kinds, devices and FIFOs, and a
fixed-seed fuzz of ``labkit check`` with hostile claim files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import in_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labkit.claims import _source
from labkit.claims import files as claimfiles
from labkit.errors import BadInput
from labkit.model import fixtures

ROOT = Path(__file__).resolve().parent.parent
GOOD = "- {id: X.a, title: t, fixture: [{_id: 1}], find: {}, expect: {ids: [1]}}\n"
# The shortest waits that cannot be mistaken for a hang; no test asserts a duration.
SUBPROCESS_BOUND = 120


def one_error_line(status: int, err: str) -> str:
    """The one ``Error:`` line of a refusal with exit status 2 (asserted), returned."""
    lines = err.strip().splitlines()
    assert status == 2, err
    assert len(lines) == 1, err
    assert lines[0].startswith("Error: "), err
    return lines[0]


def check(tmp_path: Path, path: Path | str) -> tuple[int, str, str]:
    """``labkit check PATH`` on the model, its report under ``tmp_path``."""
    return in_process(["check", str(path), "--quiet", "--out", str(tmp_path / "report")])


def laughs(levels: int = 9, width: int = 9) -> str:
    """"Billion laughs" inside a fixture document: ``levels`` anchors of ``width`` aliases."""
    lines = ["- id: X.laughs", "  title: t", "  find: {}", "  expect: {ids: [1]}", "  fixture:",
             "  - _id: 1", "    l0: &l0 [" + ", ".join(['"lol"'] * width) + "]"]
    lines += [f"    l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]"
              for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def laughs_reusing(levels: int = 9, width: int = 9) -> str:
    """The same "billion laughs" with two anchor names given again and again (``&a``, ``&b``,
    ``&a``, …), which YAML allows (issue 19): each alias names the most recent node."""
    names = ["a", "b"]
    lines = ["- id: X.laughs", "  title: t", "  find: {}", "  expect: {ids: [1]}", "  fixture:",
             "  - _id: 1", "    l0: &a [" + ", ".join(['"lol"'] * width) + "]"]
    lines += [f"    l{i}: &{names[i % 2]} [" + ", ".join([f"*{names[(i - 1) % 2]}"] * width)
              + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


# The issue's causes and more of each kind: (file name, content, words the line must hold).
CAUSES = [
    ("mixed.yaml", b"- {1: a, b: c}\n", "unknown key '1'"),  # the issue: claimfiles.py:290
    ("mixed-fixture.yaml", GOOD.replace("{_id: 1}", "{_id: 1, 2: x, [1]: y}").encode(),
     "a key is a list or a mapping"),
    ("esc.yaml", b"- {id: X.a\x1b, title: t}\n", "control character #x1b"),  # the issue: :178
    ("nul.yaml", b"- {id: X.a\x00, title: t}\n", "control character #x00"),
    ("bel.json", b'[{"id": "X.a\x07"}]', "control character #x07"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested more than 110 levels"),
    ("deep.yaml", b"[" * 100_000 + b"]" * 100_000, "nested more than 110 levels"),
    ("deep-block.yaml", "".join("  " * i + "-\n" for i in range(2_000)).encode(),
     "nested more than 110 levels"),
    ("deep-doc.yaml", GOOD.replace("{_id: 1}", "{_id: 1, a: " + "[" * 105 + "]" * 105 + "}")
     .encode(), "nested more than 100 levels"),  # inside the file's bound, beyond BSON's
    ("bigint.yaml", GOOD.replace("{_id: 1}", "{_id: " + "9" * 5_000 + "}").encode(),
     "5,000 digits"),
    ("bigint.json", ('[{"id": "X.a", "title": "t", "fixture": [{"_id": ' + "9" * 5_000
                     + '}], "find": {}, "expect": {"ids": [1]}}]').encode(), "5,000 digits"),
    ("long.yaml", GOOD.replace("{_id: 1}", '{_id: {$numberLong: "' + "9" * 5_000 + '"}}')
     .encode(), "5,000 digits"),
    ("hexint.yaml", GOOD.replace("{_id: 1}", "{_id: 0x" + "f" * 5_000 + "}").encode(),
     "digits"),
    ("surrogate.json", b'[{"id": "a\\ud800", "title": "t", "fixture": [{"_id": 1}], '
                       b'"find": {}, "expect": {"ids": [1]}}]', "lone surrogate"),
    ("surrogate.yaml", GOOD.replace("X.a", '"a\\udc80"').encode(), "lone surrogate"),
    ("surrogate-key.yaml", GOOD.replace("{_id: 1}", '{_id: 1, "\\ud800": 1}').encode(),
     "lone surrogate"),
    ("laughs.yaml", laughs().encode(), "aliases repeat more than 100,000 values"),
    ("laughs-wide.yaml", laughs(levels=3, width=400).encode(),
     "aliases repeat more than 100,000 values"),
    ("alias-deep.yaml", ("- &a " + "[" * 60 + "]" * 60 + "\n- &b " + "[" * 60 + "*a"
                         + "]" * 60 + "\n").encode(), "nests values more than 110 levels"),
    ("self.yaml", b"- &a [1, *a]\n", "inside the value it names"),
    ("laughs-reused.yaml", laughs_reusing().encode(), "aliases repeat more than 100,000 values"),
    ("self-reused.yaml", b"- &a [1]\n- &a [2, *a]\n", "inside the value it names"),
    ("self-reused-deep.yaml", b"- &a [1]\n- &a {k: [&b 2, *a]}\n",
     "inside the value it names"),
    ("undefined-alias.yaml", b"- *nowhere\n", "not valid YAML or JSON"),
    ("unclosed.yaml", b"- {id: a, title: t\n", "while parsing a flow mapping; "),
    ("tagged.yaml", b"- !!python/object:os.system {}\n", "not valid YAML or JSON"),
    ("binary.yaml", GOOD.replace("{_id: 1}", "{_id: !!binary aGk=}").encode(),
     "not a JSON value"),
    ("latin1.yaml", "- {id: caf\u00e9}\n".encode("latin-1"), "not UTF-8 text"),
    ("empty.yaml", b"", "the file is empty"),
]


@pytest.mark.parametrize(("name", "content", "words"), CAUSES, ids=[c[0] for c in CAUSES])
def test_a_hostile_claim_file_is_one_error_line(tmp_path, name, content, words):
    """Each hostile claim file is refused by ``labkit check`` in one ``Error:`` line with exit
    status 2, naming the file and saying what is wrong (the issue's causes, and more)."""
    path = tmp_path / name
    path.write_bytes(content)
    status, out, err = check(tmp_path, path)
    line = one_error_line(status, err)
    assert str(path) in line
    assert words in line
    assert out == ""
    assert not (tmp_path / "report").exists()


def test_laughs_with_reused_anchor_names_within_the_bound_are_read(tmp_path):
    """Below the alias bound, the laughs written with two reused anchor names read to the same
    claim as with a name per level: reuse neither hides values from the count nor adds any."""
    reused = claimfiles.read(write_bytes(tmp_path / "r.yaml", laughs_reusing(levels=4)))
    distinct = claimfiles.read(write_bytes(tmp_path / "d.yaml", laughs(levels=4)))
    assert reused[0].fixture == distinct[0].fixture
    assert len(reused[0].fixture["claim"][0]["l3"][0][0]) == 9


def write_bytes(path: Path, text: str) -> Path:
    """``text`` written to ``path`` as UTF-8; the path."""
    path.write_bytes(text.encode("utf-8"))
    return path


def test_the_issues_eight_causes_are_among_the_cases():
    """The issue's list, cause by cause, is covered by a case above (or by the tests named)."""
    names = {case[0] for case in CAUSES}
    assert {"mixed.yaml", "esc.yaml", "nul.yaml", "deep.json", "deep.yaml", "bigint.yaml",
            "surrogate.json", "laughs.yaml"} <= names
    # /dev/zero, /dev/urandom, /dev/stdin, FIFOs: test_devices_and_fifos_are_refused_at_once;
    # Ctrl-C during import: tests/test_interruptions.py.


def test_an_escaped_surrogate_pair_is_one_character(tmp_path):
    """JSON writes 😀 as the escapes ``\\ud83d\\ude00``: the pair is joined into one
    character, and the run's results.json is written (RFC 8259, section 7)."""
    claim = tmp_path / "pair.json"
    claim.write_text('[{"id": "X.\\ud83d\\ude00", "title": "t", "fixture": [{"_id": 1}], '
                     '"find": {}, "expect": {"ids": [1]}}]', encoding="utf-8")
    (spec,) = claimfiles.read(claim)
    assert spec.id == "X.\U0001f600"
    status, _, err = check(tmp_path, claim)
    assert status == 0, err
    results = (tmp_path / "report" / "results.json").read_text("utf-8")
    assert "X.\U0001f600" in json.dumps(json.loads(results), ensure_ascii=False)


def test_a_50_mb_claim_file_is_refused_by_its_size_before_it_is_parsed(tmp_path, monkeypatch):
    """A 50 MB file is refused by the size bound, from its size alone: the YAML parser is
    never called and the file is never read (issue: a 50 MB claim file ran 88 s in 1 GB)."""
    path = tmp_path / "big.yaml"
    with path.open("wb") as big:
        big.truncate(50 * 1024 * 1024)  # sparse: the test writes nothing either
    parsed = []
    monkeypatch.setattr(_source, "_compose_and_construct", lambda *a: parsed.append(a))
    status, _, err = check(tmp_path, path)
    line = one_error_line(status, err)
    assert "larger than 16 MiB" in line
    assert parsed == []


def test_a_file_at_the_size_bound_is_read(tmp_path):
    """Exactly ``MAX_FILE_BYTES`` is within the bound; one byte more is not."""
    path = tmp_path / "docs.json"
    body = b'[{"_id": 1}]'
    path.write_bytes(body + b" " * (fixtures.MAX_FILE_BYTES - len(body)))
    assert fixtures.read(path) == [{"_id": 1}]
    with path.open("ab") as more:
        more.write(b" ")
    with pytest.raises(BadInput, match="larger than 16 MiB"):
        fixtures.read(path)


def test_the_bounds_are_in_help():
    """``labkit --help``, ``check --help`` and ``predict sort --help`` state every bound: file
    size, nesting depth (BSON's 100), integer digits and alias expansions."""
    for argv in (["--help"], ["check", "--help"], ["predict", "sort", "--help"],
                 ["predict", "find", "--help"]):
        status, out, _ = in_process(argv)
        assert status == 0
        text = " ".join(out.split())
        for bound in ("16 MiB", "a regular file or a pipe that ends", "100 levels (BSON's limit)",
                      "at most 20 digits", "100,000 values"):
            assert bound in text, (argv, bound)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
@pytest.mark.parametrize("command", ["check", "predict"])
def test_devices_and_fifos_are_refused_at_once(tmp_path, device, command):
    """A character device is not read at all: ``predict sort /dev/zero`` once read without
    end (the issue); only regular files and pipes are read."""
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    argv = (["predict", "sort", device, "--sort", "_id:1"] if command == "predict"
            else ["check", device, "--quiet", "--out", str(tmp_path / "r")])
    if command == "check":  # a claim file is named by its suffix: link one to the device
        link = tmp_path / "device.yaml"
        link.symlink_to(device)
        argv[1] = str(link)
    status, _, err = in_process(argv)
    line = one_error_line(status, err)
    assert "is not a regular file or a pipe" in line


def _labkit(*args: str, stdin=None, input_bytes: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "labkit", *args], input=input_bytes,
                          stdin=stdin, capture_output=True, timeout=SUBPROCESS_BOUND,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_a_fifo_nobody_writes_to_does_not_block(tmp_path, suffix):
    """A FIFO with no writer is read as what it holds, nothing: one Error line, no wait for
    ever (the issue: ``labkit predict sort FIFO`` blocked)."""
    fifo = tmp_path / f"fifo{suffix}"
    os.mkfifo(fifo)
    argv = (["predict", "sort", str(fifo), "--sort", "_id:1"] if suffix == ".json"
            else ["check", str(fifo), "--quiet", "--out", str(tmp_path / "r")])
    done = _labkit(*argv, stdin=subprocess.DEVNULL)
    line = one_error_line(done.returncode, done.stderr.decode())
    assert "empty" in line


def test_a_pipe_that_ends_is_read_and_one_beyond_the_bound_is_refused():
    """``/dev/stdin`` as a pipe is read to its end; a pipe of 17 MiB is refused in one line
    once 16 MiB came, whatever it would have held."""
    done = _labkit("predict", "sort", "/dev/stdin", "--sort", "_id:1",
                   input_bytes=b'[{"_id": 2}, {"_id": 1}]')
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split() == ["1", "2"]
    done = _labkit("predict", "sort", "/dev/stdin", "--sort", "_id:1",
                   input_bytes=b" " * (17 * 1024 * 1024))
    line = one_error_line(done.returncode, done.stderr.decode())
    assert "larger than 16 MiB" in line


# Fixed-seed fuzz: hostile fragments spliced into a good claim file --------------------------

HOSTILE = st.sampled_from([
    "\x00", "\x1b", "\x07", "\ufffe", "\u202e", "\\ud800", "\\udfff", '"\\ud800"', "\\U0000d800",
    "9" * 5_000, "-" + "1" * 25, "0x" + "f" * 100, "&a", "*a", "*b", "&a [*a]", "<<: *a",
    "[" * 300, "]" * 300, "{" * 300, "- " * 300, "{1: a, b: c}", "? [1]\n: x", "!!binary x",
    "!!set {a, b}", "!!python/name:os.system", "%YAML 1.1\n---", "---\n", "...", "\t", "\r",
    "\ufeff", '{"$numberLong": "' + "9" * 100 + '"}', '{"$date": {"$numberLong": "x"}}',
    "{$oid: 12}", "&x [lol, lol]", "[*x, *x, *x, *x]", ": :", "'", '"', "#", "|", ">", "@",
    "`", "%", "\\", "\u2028", "\udcff",
])


@st.composite
def hostile_files(draw) -> bytes:
    """A good claim file with up to four hostile fragments spliced in at drawn places."""
    text = GOOD + laughs(levels=2, width=2).replace("X.laughs", "X.b")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(HOSTILE) + text[at:]
    return text.encode("utf-8", "surrogateescape")


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(content=hostile_files(), suffix=st.sampled_from([".yaml", ".json"]))
def test_check_with_hostile_files_is_a_verdict_or_one_error_line(tmp_path, content, suffix):
    """``labkit check`` on any spliced file judges it (exit 0 or 1, a results.json that parses)
    or refuses it in one ``Error:`` line with exit 2; never a traceback."""
    path = tmp_path / f"claims{suffix}"
    path.write_bytes(content)
    report = tmp_path / "report"
    status, out, err = in_process(["check", str(path), "--quiet", "--out", str(report), "--json"])
    assert "Traceback" not in err
    if status == 2:
        one_error_line(status, err)
    else:
        assert status in (0, 1), err
        assert json.loads(out)["schema"] == "labkit-results/2"
        json.loads((report / "results.json").read_text("utf-8"))


# Hostile values in the places a claim file holds values: they parse, so the claim is read,
# checked and written into every output.
VALUES = st.sampled_from([
    "9" * 5_000, "-" + "9" * 19, "9223372036854775808", "0x" + "f" * 30, "1e400", "-0.0",
    ".nan", "~", '"\\ud800"', '"\\ud83d\\ude00"', '"\\u001b[31mred"', '"\\u0000"', '"\\u202e"',
    '"<script>alert(1)</script>"', '"<img src=x onerror=alert(1)>"', '"\\ufffe"', "{1: a}",
    "[" * 99 + "]" * 99, "[" * 150 + "]" * 150, "&a [lol, lol, lol]", "*a", "&b {x: *a}",
    "*b", "!!binary aGk=", "!!float 1", '{$numberDecimal: "1e6145"}', '{$numberLong: "x"}',
    '{$oid: "12"}', "{$date: -1e20}", '{$date: {$numberLong: "' + "9" * 30 + '"}}',
    "{$minKey: 1}", "{$undefined: true}", "{$regex: '(', $options: z}", "{$where: '1'}",
    "{$gt: " + "[" * 120 + "]" * 120 + "}", "{$expr: {$toDouble: x}}", "{$in: 5}",
    '"' + "x" * 10_000 + '"', "[]", "{}", "null", "true",
])


TEXTS = st.sampled_from([
    '"X.a"', '"\\ud800"', '"\\ud83d\\ude00"', '"\\u001b[31mred\\u0007"', '"\\u0000"',
    '"a\\u202eb"', '"<script>alert(1)</script>"', '"<img src=x onerror=alert(1)>"',
    '"\\ufffe"', '"]]>&amp;"', '"| a | b |"', '"[x](javascript:alert(1))"', '"' + "x" * 5_000 + '"',
])


@st.composite
def hostile_values(draw) -> str:
    """A claim whose id and title are drawn from ``TEXTS``, its fixture values and filter
    from ``VALUES``."""
    name, title = draw(TEXTS), draw(TEXTS)
    one, two, operand = draw(VALUES), draw(VALUES), draw(VALUES)
    return (f"- id: {name}\n  title: {title}\n  fixture: [{{_id: 1, v: {one}}}, "
            f"{{_id: 2, v: {two}}}]\n  find: {{v: {operand}}}\n  expect: {{ids: [1]}}\n")


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=hostile_values())
def test_check_with_hostile_values_is_a_verdict_or_one_error_line(tmp_path, text):
    """Hostile values where a claim holds values are judged (exit 0 or 1, results.json and
    JUnit XML that parse) or refused in one ``Error:`` line; never a traceback. (That every
    output holds no raw control or markup character is the outputs' own property test.)"""
    path = tmp_path / "claims.yaml"
    path.write_text(text, encoding="utf-8")
    report, junit = tmp_path / "report", tmp_path / "junit.xml"
    junit.unlink(missing_ok=True)
    status, _, err = in_process(["check", str(path), "--quiet", "--out", str(report),
                           "--junit", str(junit)])
    assert "Traceback" not in err
    if status == 2:
        one_error_line(status, err)
    else:
        assert status in (0, 1), err
        json.loads((report / "results.json").read_text("utf-8"))
        ET.fromstring(junit.read_bytes())  # XML 1.0: the ids' forbidden characters escaped


@pytest.mark.parametrize(("name", "content", "words"), CAUSES, ids=[c[0] for c in CAUSES])
def test_the_python_events_hold_the_same_bounds(tmp_path, monkeypatch, name, content, words):
    """Where PyYAML has no libyaml, the events read in Python meet the same bounds with the
    same words (the loader labkit falls back to)."""
    from labkit.claims import _bounded_yaml

    monkeypatch.setattr(_bounded_yaml, "Loader", _bounded_yaml.PythonLoader)
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(BadInput) as refused:
        claimfiles.read(path)
    assert words in str(refused.value)
