"""What files keep stays English when the learner reads Vietnamese: results.json, ``--json`` and
JUnit XML carry the servers' English reasons, hints and what was tried, while the terminal, the
report and a notebook's cards show them in Vietnamese (docs/instructors.md, "The Vietnamese
edition"; docs/report.md, "results.json")."""

from __future__ import annotations

import json
import pickle
import re

import pytest
from helpers import fresh_lab, in_process
from helpers import labkit as run_labkit

import labkit
from labkit import i18n, servers
from labkit.errors import ServerStartError, ServerUnavailable, one_line
from labkit.i18n import N_, Message
from labkit.lessons import cards
from labkit.run import runner

# Vietnamese letters English never has: the vowels with marks, and đ.
VIETNAMESE = re.compile(r"[À-ỹđĐ]")


def _vietnamese_strings(value, path="$"):
    """Every string in a JSON value holding a Vietnamese letter, with where it is."""
    if isinstance(value, str):
        return [(path, value)] if VIETNAMESE.search(value) else []
    if isinstance(value, dict):
        return [hit for k, v in value.items() for hit in _vietnamese_strings(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [hit for i, v in enumerate(value) for hit in _vietnamese_strings(v, f"{path}[{i}]")]
    return []


@pytest.fixture
def no_servers():
    """Environment for a command run with no way to MongoDB (no URI, no mongod, no Docker)."""
    return {"LABKIT_LANG": "vi", "LABKIT_MONGODB_URI": "", "LABKIT_MONGOD": "/nonexistent/mongod",
            "DOCKER_HOST": "unix:///nonexistent/docker.sock"}


def test_run_keeps_results_json_english_and_shows_vietnamese(tmp_path, no_servers, monkeypatch,
                                                            nothing_available):
    """``LABKIT_LANG=vi labkit run --topics dates,btree``: results.json has no Vietnamese letter,
    its not-run rows give MongoDB's English reason, missing_detail and hint; report.md,
    report.html and the terminal give the same cause in Vietnamese; and ``--json`` prints that
    same English document (claims D1, D3). One run shows all three, the terminal's table
    included; ``--json``, which prints the document instead of the table, is run in this
    process on D1 alone."""
    result = run_labkit("run", "--topics", "dates,btree", "--btree-n", "2000", "--quiet",
                        "--out", str(tmp_path), env=no_servers)
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert _vietnamese_strings(data) == []
    d1 = next(c for c in data["claims"] if c["id"] == "D1")["results"][0]
    assert d1["verdict"] == "not-run"
    assert d1["missing"] == "mongodb"
    assert d1["reason"].startswith("needs mongodb: No MongoDB server is available (tried ")
    assert d1["missing_detail"].startswith("No MongoDB server is available (tried ")
    assert d1["hint"].startswith("Hint: ")
    for report in ("report.md", "report.html"):
        text = (tmp_path / report).read_text(encoding="utf-8")
        assert "Không có server MongoDB nào dùng được (đã thử" in text, report
        assert "No MongoDB server is available" not in text, report
    assert "Không có server MongoDB nào dùng được" in result.stdout
    assert "No MongoDB server is available" not in result.stdout

    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.setenv("LABKIT_LANG", "vi")
    out = tmp_path / "json"
    status, printed, _ = in_process(["run", "--claims", "D1", "--json", "--quiet", "--out",
                                     str(out)])
    assert status == 0
    shown = json.loads(printed)
    assert shown == json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert _vietnamese_strings(shown) == []
    (row,) = shown["claims"][0]["results"]
    assert row["reason"].startswith("needs mongodb: No MongoDB server is available (tried ")


def test_check_keeps_results_json_and_junit_english(tmp_path, no_servers):
    """``LABKIT_LANG=vi labkit check claims/`` with MongoDB asked for: results.json and the JUnit
    XML have no Vietnamese letter and keep MongoDB's English reason; the terminal says it in
    Vietnamese (the kit's claim files under claims/)."""
    junit = tmp_path / "junit.xml"
    result = run_labkit("check", "claims/", "--engines", "model,mongodb", "--out",
                        str(tmp_path / "out"), "--junit", str(junit), env=no_servers)
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert _vietnamese_strings(data) == []
    xml = junit.read_text(encoding="utf-8")
    assert not VIETNAMESE.search(xml)
    assert "No MongoDB server is available" in xml
    reasons = [row["reason"] for claim in data["claims"] for row in claim["results"]
               if row["verdict"] == "not-run"]
    assert reasons
    assert all("No MongoDB server is available" in r for r in reasons)
    assert "Không có server MongoDB nào dùng được" in result.stdout + result.stderr


@pytest.fixture
def vietnamese_kernel(monkeypatch, tmp_path, nothing_available):
    """A notebook kernel in Vietnamese whose MongoDB cannot be had, the real way it is sought."""
    monkeypatch.setattr(i18n, "_chosen", None)
    labkit.language("vi")
    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    ctx = runner.Context(btree_n=1_000)
    fresh_lab(monkeypatch, ctx)
    yield ctx
    ctx.close()


def test_a_card_shows_vietnamese_while_the_session_keeps_english(vietnamese_kernel):
    """After ``labkit.language("vi")`` a MongoDB claim's not-run card and its verdict card give
    the missing server in Vietnamese, while the session's result (what results.json is built
    from) keeps it English with no Vietnamese letter (claim D1)."""
    from labkit.experiments.catalogue import get

    not_run = labkit.claim("D1")
    assert "Không có server MongoDB nào dùng được" in not_run._repr_html_()
    result = vietnamese_kernel.claim_result(get("D1"))
    card = cards.claim_card(result)
    assert "cần mongodb: Không có server MongoDB nào dùng được (đã thử" in card
    assert "No MongoDB server" not in card
    row = result.rows[0].to_dict()
    assert row["reason"].startswith("needs mongodb: No MongoDB server is available (tried ")
    assert _vietnamese_strings(row) == []


def test_server_unavailable_is_english_data_shown_in_vietnamese(monkeypatch, nothing_available):
    """A missing server's ``what_failed()``, ``summary()`` and ``hint`` are English (what files
    keep); ``i18n.shown`` and ``str()`` give them in Vietnamese, pickled or not (servers/base.py's
    ``first_server``)."""
    monkeypatch.setattr(i18n, "_chosen", "vi")
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_mongodb()
    error = caught.value
    assert str(error.summary()).startswith("No MongoDB server is available (tried "
                                           "LABKIT_MONGODB_URI")
    assert str(error.what_failed()).endswith(").")
    assert str(error.hint).startswith("Hint: ")
    assert error.english().startswith("No MongoDB server is available. Tried:")
    assert not VIETNAMESE.search(str(error.summary()) + error.english())
    assert i18n.shown(error.summary()).startswith("Không có server MongoDB nào dùng được (đã thử")
    assert i18n.shown(error.hint).startswith("Gợi ý: ")
    assert str(error).startswith("Không có server MongoDB nào dùng được. Đã thử:")
    assert one_line(error) == error.summary()
    again = pickle.loads(pickle.dumps(error.summary()))
    assert (again, i18n.shown(again)) == (error.summary(), i18n.shown(error.summary()))


def test_a_start_failure_is_kept_whole_and_its_first_line_summed_up(monkeypatch):
    """A way that failed to start is one line of ``what_failed()`` (its first) in English and in
    Vietnamese, while ``str()`` keeps its whole text with the log (servers/base.py)."""
    monkeypatch.setattr(i18n, "_chosen", "vi")

    def broken():
        raise ServerStartError("mongod exited at once.", log_tail="line one\nline two",
                               hint="look at the log")

    with pytest.raises(ServerUnavailable) as caught:
        servers.base.first_server("MongoDB", [(N_("local mongod"), broken)], False,
                                  N_("Hint: start Docker."))
    error = caught.value
    assert str(error.what_failed()) == ("No MongoDB server is available (tried local mongod: "
                                        "failed to start: mongod exited at once.).")
    assert i18n.shown(error.what_failed()).startswith("Không có server MongoDB nào dùng được "
                                                      "(đã thử mongod cục bộ: không khởi động "
                                                      "được: mongod exited at once.)")
    assert "line two" in str(error)
    assert "line two" in error.english()
    assert "Last lines of its log:" in error.english()


def test_a_password_never_reaches_either_form(monkeypatch):
    """A connection string in a message's values is shown without its password, in English
    and in Vietnamese alike (tests/test_redaction.py's rule, for messages kept as data)."""
    monkeypatch.setattr(i18n, "_chosen", "vi")
    secret = "s3cr3t-Pw"
    error = ServerUnavailable(
        Message(N_("The MongoDB server at {uri} did not answer: {error}"),
                uri=f"mongodb://alice:{secret}@db.example:27017/x", error="timed out"),
        tried=[Message("{way}", way=f"postgresql://bob:{secret}@h/db")],
        hint=Message(N_("check that it is running and reachable, or unset LABKIT_MONGODB_URI "
                        "to let labkit start one.")))
    forms = [str(error), error.english(), error.summary(), i18n.shown(error.summary()),
             error.what_failed(), i18n.shown(error.what_failed()), repr(error.args)]
    assert all(secret not in str(form) for form in forms), forms
    assert "alice" in error.english()
    assert str(error).startswith("Server MongoDB tại mongodb://alice:***@db.example:27017/x "
                                 "không trả lời: timed out Đã thử:")
