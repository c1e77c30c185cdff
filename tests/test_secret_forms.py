"""No secret in any output: each connection string is shown in a display form rebuilt from what
its driver's own parser read (issue 18, "No secret in any output"), or not at all."""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET

import pytest

from labkit import servers
from labkit._conninfo import HIDDEN, display
from labkit._redact import redact
from labkit.claims.claim import Claim, errored, not_run
from labkit.cli import main
from labkit.errors import ServerUnavailable
from labkit.outputs import report
from labkit.run import runner

PORT = 9  # discard: nothing answers there
# The issue's six forms (its probe: 32 forms, six leaked), then more of our own. Each maps to
# the pieces of its secret that must never show.
ISSUE_FORMS = {
    "libpq percent-encoded query key": (
        f"postgresql://alice@127.0.0.1:{PORT}/app?pass%77ord=Zq8pct&connect_timeout=2",
        ["Zq8pct"]),
    "user-info password with /": (f"postgresql://alice:Zq8a/Zq8b@127.0.0.1:{PORT}/app",
                                  ["Zq8a", "Zq8b"]),
    "user-info password with #": (f"postgresql://alice:Zq8c#Zq8d@127.0.0.1:{PORT}/app",
                                  ["Zq8c", "Zq8d"]),
    "user-info password with ?": (f"mongodb://bob:Zq8e?Zq8f@127.0.0.1:{PORT}/",
                                  ["Zq8e", "Zq8f"]),
    "authMechanismProperties session token": (
        f"mongodb://127.0.0.1:{PORT}/?authMechanism=MONGODB-AWS"
        "&authMechanismProperties=AWS_SESSION_TOKEN:Zq8tok", ["Zq8tok"]),
    "mongodb user-info password with a space": (f"mongodb://bob:Zq8g Zq8h@127.0.0.1:{PORT}/",
                                                ["Zq8g", "Zq8h"]),
}
OWN_FORMS = {
    "mongodb+srv with a key file password": (
        "mongodb+srv://bob:Zq8i@cluster0.example.net/app?tlsCertificateKeyFilePassword=Zq8j",
        ["Zq8i", "Zq8j"]),
    "libpq sslpassword, key=value": (f"host=127.0.0.1 port={PORT} sslpassword=Zq8k user=al",
                                     ["Zq8k"]),
    "libpq quoted password with spaces": ("host=h password='Zq8l Zq8m\\' Zq8n' dbname=app",
                                          ["Zq8l", "Zq8m", "Zq8n"]),
    "libpq scram client key": (f"postgres://al@h:{PORT}/app?scram_client_key=Zq8o",
                               ["Zq8o"]),
    "mongodb password with a raw @ and /": ("mongodb://bob:Zq8p@/Zq8q@h/", ["Zq8p", "Zq8q"]),
    "libpq password percent-encoded in user-info": ("postgresql://al:Zq8r%2FZq8s@h/app",
                                                     ["Zq8r", "Zq8s"]),
    "mongodb several hosts, password last": ("mongodb://h1:1,h2:2/?password=Zq8t&w=1",
                                             ["Zq8t"]),
    "https with user-info and a token": ("https://u:Zq8u@example.org/x?token=Zq8v",
                                         ["Zq8u", "Zq8v"]),
}
FORMS = {**ISSUE_FORMS, **OWN_FORMS}


def _assert_hidden(text: str, pieces: list[str]) -> None:
    for piece in pieces:
        assert piece not in text, f"{piece!r} shows in {text!r}"


@pytest.mark.parametrize("form", FORMS)
def test_free_text_shows_each_form_without_its_secret(form):
    """A connection string inside a message is replaced by its display form, the words around
    it stay, and redacting twice changes nothing (the issue's forms and more)."""
    text, pieces = FORMS[form]
    hidden = redact(f"could not reach {text} (timeout)")
    _assert_hidden(hidden, pieces)
    assert hidden.startswith("could not reach ")
    assert hidden.endswith(" (timeout)")
    assert "***" in hidden
    assert redact(hidden) == hidden


@pytest.mark.parametrize(("given", "shown"), [
    ("postgresql://alice@h/app?pass%77ord=x", "postgresql://alice:***@h/app"),
    ("mongodb://bob:a b@h:1/db?w=1", "mongodb://bob:***@h:1/db"),
    ("mongodb://h:1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:x",
     "mongodb://h:1/?authMechanismProperties=***"),
    ("host=h port=5 user=al password=x connect_timeout=2", "host=h port=5 user=al password=***"),
    ("postgresql://h1:1,h2:2/app?sslpassword=x", "postgresql://h1:1,h2:2/app?sslpassword=***"),
    ("mongodb+srv://bob:x@c.example.net/db", "mongodb+srv://bob:***@c.example.net/db"),
])
def test_display_form_is_rebuilt_from_scheme_hosts_ports_database_and_user(given, shown):
    """The display form holds the parts the driver read (scheme, hosts, ports, database, user)
    and names each secret with ***; other options are left out (psycopg's conninfo_to_dict,
    pymongo's uri_parser)."""
    assert display(given) == shown


@pytest.mark.parametrize("given", [
    "postgresql://alice:Zq8a/Zq8b@h/app",  # libpq reads host "alice", port "Zq8a"
    "postgresql://alice:a/b#c?d@h/app",  # libpq refuses it
    "mongodb://bob:p/w@h/",  # pymongo: an unescaped "/" in user information
    "mongodb+srv://bob:x@h1,h2/",  # one host only
    "HOST=h PASSWORD=x",  # libpq's keywords are lower case
    "host=h password='never closed",
    "postgresql://alice:Qpre@Zq8post@h/app",  # libpq reads the host "Zq8post@h"
])
def test_a_string_that_does_not_parse_cleanly_is_not_shown_at_all(given):
    """Where the driver's parser refuses a string, or reads a piece of the secret as a host,
    port, database or user, none of it is shown: a fixed placeholder (issue 18)."""
    assert display(given) == HIDDEN


def test_mongodb_srv_is_parsed_without_dns(monkeypatch):
    """A mongodb+srv:// URI's display form needs no DNS look-up (pymongo's helpers that do not
    resolve); with every look-up failing it is still shown."""
    import dns.resolver

    def refuse(*args, **kwargs):
        raise AssertionError("a DNS look-up was made")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(dns.resolver, "resolve", refuse)
    assert display("mongodb+srv://u:p@cluster0.example.net/db?w=1") == \
        "mongodb+srv://u:***@cluster0.example.net/db"


def _claims_carrying(texts: list[str]) -> list[Claim]:
    """Claims whose reasons carry each text: an engine's error and a not-run row."""

    def rows(ctx):
        return [errored(f"engine {i}", OSError(f"lost {text}")) for i, text in
                enumerate(texts)] + [not_run("x", ServerUnavailable(f"no {texts[0]}").summary())]

    return [Claim(id="X90", title="every form", source="manual", topic="objectid", expected=1,
                  experiment=rows, kind="survey")]


def test_report_html_md_and_results_json_show_no_form(tmp_path):
    """report.html, report.md and results.json of a run whose servers and reasons hold every
    form hold none of their secrets (the issue's outputs)."""
    texts = [text for text, _ in FORMS.values()]
    with runner.Context() as ctx:
        ctx._servers.update({f"s{i}": servers.PostgresServer(dsn=text, how="dsn", version="15")
                             for i, text in enumerate(texts)})
        run = runner.run(_claims_carrying(texts), ctx)
    paths = report.write(run, tmp_path)
    json.loads(paths["json"].read_text(encoding="utf-8"))
    for path in paths.values():
        written = path.read_text(encoding="utf-8")
        for _, pieces in FORMS.values():
            _assert_hidden(written, pieces)
    assert len(run.engines) == len(texts)


CLAIM_FILE = """- id: needs-mongodb
  title: "A claim judged on MongoDB too"
  source: "tests"
  fixture: [{_id: 1}]
  find: {}
  expect: {ids: [1]}
"""

# LABKIT_MONGODB_URI holds several URIs apart by spaces, so the space form is tested above and
# not through it; the others are given to the real commands.
ENV_FORMS = [form for form in FORMS if form != "mongodb user-info password with a space"
             and not FORMS[form][0].startswith(("mongodb+srv", "https"))]


@pytest.mark.parametrize("form", ENV_FORMS)
def test_doctor_json_check_stderr_and_junit_show_no_form(form, tmp_path, monkeypatch, capsys):
    """``labkit doctor --json`` and ``labkit check --junit`` against a server named by each form
    (unreachable): stdout, stderr, the report files and the JUnit XML hold no secret."""
    text, pieces = FORMS[form]
    variable = "LABKIT_MONGODB_URI" if text.startswith("mongodb") else "LABKIT_POSTGRES_DSN"
    if variable == "LABKIT_MONGODB_URI":
        text += ("&" if "?" in text else "?") + "serverSelectionTimeoutMS=200"
    monkeypatch.setenv(variable, text)
    main(["doctor", "--json"])
    doctor = capsys.readouterr()
    assert json.loads(doctor.out)["checks"]
    claims = tmp_path / "claims.yaml"
    claims.write_text(CLAIM_FILE, encoding="utf-8")
    junit = tmp_path / "junit.xml"
    status = main(["check", str(claims), "--engines", "model,mongodb", "--mongodb", "uri",
                   "--out", str(tmp_path / "out"), "--junit", str(junit), "--quiet"])
    check = capsys.readouterr()
    written = [path.read_text(encoding="utf-8") for path in (tmp_path / "out").glob("*")]
    if junit.exists():
        ET.fromstring(junit.read_bytes())
        written.append(junit.read_text(encoding="utf-8"))
    for shown in (doctor.out, doctor.err, check.out, check.err, *written):
        assert "Traceback" not in shown
        _assert_hidden(shown, pieces)
    assert status in (0, 2)
    assert (status == 2) == check.err.startswith("Error:")


def test_doctor_reports_a_uri_with_a_space_in_its_password_in_one_line(monkeypatch, capsys):
    """A MongoDB password with a raw space (the issue's form) in LABKIT_MONGODB_URI: ``labkit
    doctor --json`` says the way failed, with no traceback and no piece of the password."""
    text, pieces = ISSUE_FORMS["mongodb user-info password with a space"]
    monkeypatch.setenv("LABKIT_MONGODB_URI", text)
    main(["doctor", "--json"])
    printed = capsys.readouterr()
    checks = {c["name"]: c for c in json.loads(printed.out)["checks"]}
    assert checks["MongoDB via LABKIT_MONGODB_URI"]["ok"] is False
    _assert_hidden(printed.out + printed.err, pieces)


@pytest.mark.parametrize("text", [
    # A learner's walk, lesson 06: a UUID's bytes in Extended JSON, whose base64 spells "Key"
    # before its padding, was shown as "[connection string not shown: ***]".
    '{"$binary": {"base64": "AaEavaqJccKeyBrv9tiULA==", "subType": "04"}}',
    "the bytes AaEavaqJccKeyBrv9tiULA= end in one pad",
])
def test_base64_that_spells_key_is_data_not_a_secret(text):
    assert redact(text) == text


@pytest.mark.parametrize(("text", "secret"), [
    ("apiKey=abc123", "abc123"), ("api_key=abc123", "abc123"), ("API_KEY=abc123", "abc123"),
    ("host=h password=abc123", "abc123"),
])
def test_an_option_named_as_a_secret_is_still_hidden(text, secret):
    assert secret not in redact(text)
