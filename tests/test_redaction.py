"""No password reaches the terminal, ``labkit doctor``, a report, or a child's command line,
whatever form the connection string takes."""

from __future__ import annotations

import datetime as dt
import os
import string
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labkit import _redact, i18n, servers
from labkit.claims.claim import Claim, Observation, not_run, one_line
from labkit.engines import processes
from labkit.errors import BadInput, ServerStartError, ServerUnavailable
from labkit.i18n import Message
from labkit.outputs import report
from labkit.run import runner

SECRET = "Zq8sEcReTpw"
# Every form a password takes in a connection string, with the pieces that must not show.
FORMS = {
    "uri userinfo": (f"postgresql://alice:{SECRET}@db.example:5432/app", [SECRET]),
    "uri userinfo, query kept": (f"postgresql://alice:{SECRET}@h/app?sslmode=require",
                                 [SECRET]),
    "uri userinfo, raw @ in password": ("postgresql://alice:Qpre@Zq8post@h/app",
                                        ["Qpre", "Zq8post"]),
    "uri empty user": (f"postgresql://:{SECRET}@h/app", [SECRET]),
    "mongodb uri, several hosts": (f"mongodb://bob:{SECRET}@h1:1,h2:2/?replicaSet=r",
                                   [SECRET]),
    "mongodb+srv uri": (f"mongodb+srv://bob:{SECRET}@cluster0.example.net/?w=1", [SECRET]),
    "uri query, password last": (f"postgresql://h/app?user=alice&password={SECRET}", [SECRET]),
    "uri query, password first": (f"postgresql://h/app?password={SECRET}&sslmode=require",
                                  [SECRET]),
    "uri query, sslpassword": (f"postgresql://h/app?sslpassword={SECRET}", [SECRET]),
    "key-value": (f"host=h user=alice password={SECRET} dbname=app", [SECRET]),
    "key-value, password last": (f"host=h user=alice password={SECRET}", [SECRET]),
    "key-value, spaces around =": (f"host=h password = {SECRET} user=alice", [SECRET]),
    "key-value, quoted with spaces": ("host=h password='Zq8 wXsp\\'Yace' user=alice",
                                      ["Zq8", "wXsp", "Yace"]),
    "key-value, upper case": (f"HOST=h PASSWORD={SECRET}", [SECRET]),
    "key-value, quote inside": ("host=h password=Zq8a'Kbc user=alice", ["Zq8a", "Kbc"]),
    "parsed mapping": (f"{{'host': 'h', 'password': '{SECRET}'}}", [SECRET]),
}


def _assert_hidden(text: object, pieces: list[str]) -> None:
    """No piece shows in ``text``: in English, and as the learner reads it where it is a
    message."""
    text = f"{text}\n{i18n.shown(text)}" if isinstance(text, Message) else text
    for piece in pieces:
        assert piece not in text, f"{piece!r} shows in {text!r}"


@pytest.mark.parametrize("form", FORMS)
def test_every_form_of_password_is_hidden(form):
    """Each form keeps its shape (host, user, options) and loses its password."""
    text, pieces = FORMS[form]
    hidden = _redact.redact(f"could not reach {text} (timeout)")
    _assert_hidden(hidden, pieces)
    assert "***" in hidden
    assert hidden.startswith("could not reach ")
    assert "timeout" in hidden
    assert servers.redact(text) == _redact.redact(text)


def test_what_has_no_password_is_left_exactly_as_it_was():
    """Text without a password, a URI without one, and an empty password are unchanged."""
    for text in ("postgresql://alice@h/app?sslmode=require", "mongodb://127.0.0.1:27017/",
                 "host=h user=alice dbname=app", "the password must be set", "", "password="):
        assert _redact.redact(text) == text


@pytest.mark.parametrize("form", FORMS)
def test_errors_hide_passwords_in_every_field(form):
    """An error's message, tried ways, hint and log tail are redacted where they are built."""
    text, pieces = FORMS[form]
    start = ServerStartError(f"Could not reach {text}.", log_tail=f"FATAL at {text}",
                             hint=f"check {text}", tried=[f"DSN: {text} failed"])
    unavailable = ServerUnavailable(f"No server at {text}.", tried=[f"way: {text}"],
                                    hint=f"try {text}")
    for error in (start, unavailable, BadInput(f"{text} is not a valid connection string")):
        for shown in (str(error), one_line(error), repr(error.args)):
            _assert_hidden(shown, pieces)
    for shown in (start.message, start.log_tail, start.hint, *start.tried, start.summary()):
        _assert_hidden(shown, pieces)
    _assert_hidden(one_line(RuntimeError(f"connection to {text} failed")), pieces)


@pytest.mark.parametrize("form", FORMS)
def test_server_descriptions_hide_passwords(form):
    """``describe()``, which reports list as the servers used, never shows a password."""
    text, pieces = FORMS[form]
    described = [servers.PostgresServer(dsn=text, how="dsn", version="15.4").describe(),
                 servers.MongoServer(uri=text, how="uri", version="7.0.14").describe()]
    for line in described:
        _assert_hidden(line, pieces)


def _report_claims() -> list[Claim]:
    """Claims whose reasons carry each form: a crash, a not-run, and an engine's error."""
    texts = [text for text, _ in FORMS.values()]

    def crashes(ctx):
        raise RuntimeError(f"connection failed: {texts[0]}")

    def not_run_rows(ctx):
        return [not_run(f"engine {i}", ServerUnavailable(f"nothing at {text}",
                                                         hint=f"fix {text}").summary())
                for i, text in enumerate(texts)]

    def errors(ctx):
        from labkit.claims.claim import errored

        return [errored(f"engine {i}", OSError(f"lost {text}")) for i, text in enumerate(texts)]

    def holds(ctx):
        return Observation(1, "engine", "1.0", note=ServerUnavailable(texts[-1]).summary())

    return [Claim(id=f"X9{i}", title="redaction", source="manual", topic="objectid",
                  expected=1, experiment=experiment, kind="survey" if i else "behaviour")
            for i, experiment in enumerate((crashes, not_run_rows, errors, holds))]


def test_a_report_written_from_a_run_full_of_passwords_shows_none(tmp_path):
    """report.html, report.md and results.json of a run whose server descriptions and reasons
    hold every form of connection string contain no password."""
    texts = [text for text, _ in FORMS.values()]
    described = [servers.PostgresServer(dsn=text, how="dsn", version="15") for text in texts]
    with runner.Context() as ctx:
        ctx._servers.update({f"server{i}": server for i, server in enumerate(described)})
        run = runner.run(_report_claims(), ctx)
    paths = report.write(run, tmp_path)
    for path in paths.values():
        written = path.read_text(encoding="utf-8")
        for _, pieces in FORMS.values():
            _assert_hidden(written, pieces)
        assert "***" in written  # the forms are there, their passwords are not
    assert len(run.engines) == len(texts)


def test_doctor_and_run_on_the_command_line_show_no_password(tmp_path):
    """``labkit doctor`` and ``labkit run`` against unreachable servers named with passwords:
    neither their output nor the report files contain the password."""
    port = servers.free_port()
    env = {**os.environ,
           "LABKIT_POSTGRES_DSN": f"host=127.0.0.1 port={port} user=alice password={SECRET} "
                                  "connect_timeout=2",
           "LABKIT_MONGODB_URI": f"mongodb://bob:{SECRET}@127.0.0.1:{port}/"
                                 "?serverSelectionTimeoutMS=300"}
    out = tmp_path / "report"
    for argv in (["doctor"], ["run", "--claims", "U7,D1", "--quiet", "--out", str(out)]):
        result = subprocess.run([sys.executable, "-m", "labkit", *argv], capture_output=True,
                                text=True, timeout=180, env=env)
        assert "Traceback" not in result.stderr
        assert SECRET not in result.stdout + result.stderr
        assert "***" in result.stdout + result.stderr or argv[0] == "run"
    written = [path.read_text(encoding="utf-8") for path in sorted(out.iterdir())]
    assert len(written) == 3
    assert all(SECRET not in text for text in written)
    assert any("password=***" in text for text in written)


def test_an_id_worker_gets_the_server_uri_in_its_environment_not_its_command_line(monkeypatch):
    """The ordering experiments' worker processes never carry the URI (and its password) in
    their arguments, which every local user can read."""
    started = []

    class Recorder:
        def __init__(self, cmd, **options):
            started.append((cmd, options.get("env") or {}))
            self.returncode = 1

        def communicate(self, timeout=None):
            return "", "stopped here on purpose"

    monkeypatch.setattr(subprocess, "Popen", Recorder)
    uri = f"mongodb://bob:{SECRET}@127.0.0.1:1/"
    with pytest.raises(Exception, match="on purpose"):
        processes.in_processes(["a", "b"], uri=uri, database="labkit_x")
    assert len(started) == 2
    for cmd, env in started:
        assert not any(SECRET in arg for arg in cmd)
        assert env.get("LABKIT_WORKER_MONGODB_URI") == uri


def test_report_dates_are_not_mistaken_for_secrets():
    """Redaction leaves an ordinary report line alone (nothing over-eager)."""
    line = f"{dt.date(2024, 1, 2)}: 31 claims: 14 hold; server at 127.0.0.1:5432"
    assert _redact.redact(line) == line


@pytest.mark.parametrize(("connect", "given", "secret"), [
    # psycopg's parser quotes the part it refuses: here, a password with a bare space.
    ("from_dsn", "postgresql://u:se cret@127.0.0.1:1/db", "cret"),
    # pymongo's parser: a password with an unescaped colon, then one read as a port.
    ("from_uri", "mongodb://u:p:wd@127.0.0.1:1/?serverSelectionTimeoutMS=1", "p:wd"),
    ("from_uri", "mongodb://u:pw@127.0.0.1:se-cret/", "se-cret"),
])
def test_a_connection_string_the_parser_refuses_is_not_quoted_back(connect, given, secret):
    """A string the driver's parser refuses gives one BadInput that quotes none of it: the
    parsers' own messages quote the part they refused, which can be a piece of the password
    (issue "Trust": "where a string cannot be parsed show none of it")."""
    with pytest.raises(BadInput) as caught:
        getattr(servers, connect)(given)
    assert secret not in str(caught.value)
    assert "not shown" in str(caught.value)


@pytest.mark.parametrize(("text", "secret"), [
    ("failed: mongodb://alice:a://@host/db here", "a:/"),
    ("could not reach postgresql://alice:x://y@h/db (timeout)", "x:/"),
])
def test_a_scheme_inside_a_raw_password_not_in_force_starts_no_second_uri(text, secret):
    """A raw password holding "://", in a message from elsewhere (not a password in force), is
    read as part of its URI, not as a second URI after the user's name: before, the text
    showed ``mongodb://alice:a://:***@host/db``. Unescaped, no driver reads such a URI, so
    none of it shows."""
    shown = _redact.redact(text)
    assert secret not in shown, shown
    assert "://alice:" not in shown, shown
    assert _redact.redact(shown) == shown


@pytest.mark.parametrize(("text", "shown"), [
    ("x mongodb://alice:pw@host/db,https://u:p@e.com/y z",
     "x mongodb://alice:***@host:27017/db,https://u:***@e.com/y z"),
    ("a mongodb://h/db b https://x.org c", "a mongodb://h/db b https://x.org c"),
    ("tried postgresql://a:pw@h/db:https://u:p@e", None),
])
def test_a_uri_after_another_still_starts_where_its_scheme_does(text, shown):
    """Two URIs touching (a comma, a colon after a path) are still read as two: the scheme is
    a password's only right after the user's ":" of the URI being read."""
    got = _redact.redact(text)
    if shown is not None:
        assert got == shown
    assert "pw" not in got, got
    assert ":p@" not in got, got


@pytest.mark.parametrize("text", [
    "mongodb://u:pw@h/" + "." * 200_000 + "x",
    "postgresql://u:pw@h/db" + ")" * 200_000 + "y",
    "host=h password=pw" + ")" * 200_000 + "y",
])
def test_a_long_run_of_punctuation_in_a_uri_is_read_once(text):
    """A connection string with a long run of closing punctuation inside it is hidden, and
    the run is read once: before, the search for its trailing punctuation started again at each
    character of the run: 40,000 dots took 5.6 s, and these texts would take minutes each, which
    is how a return of that pattern would show here."""
    shown = _redact.redact(text)
    assert "pw" not in shown


# The secrets in force, and redaction's stability -----------------------------------------

@pytest.fixture
def in_force(monkeypatch):
    """A registry of secrets in force of this test's own, empty at first (the process's one
    is left as it was)."""
    fresh = _redact.Secrets()
    monkeypatch.setattr(_redact, "SECRETS", fresh)
    return fresh


def test_a_backslash_escaped_space_in_a_key_value_password_is_hidden_whole():
    """libpq reads ``password=SEKpart1\\ SEKpart2`` (unquoted, a backslash before the space)
    as one password "SEKpart1 SEKpart2" (libpq's conninfo_parse: a backslash escapes the next
    character of an unquoted value); both halves are hidden (before, ``password=*** SEKpart2``)."""
    from psycopg.conninfo import conninfo_to_dict

    dsn = "host=127.0.0.1 user=alice password=SEKpart1\\ SEKpart2 dbname=app"
    assert conninfo_to_dict(dsn)["password"] == "SEKpart1 SEKpart2"
    for text in (dsn, f"could not reach {dsn} (timeout)", f"(dsn: {dsn})"):
        shown = _redact.redact(text)
        _assert_hidden(shown, ["SEKpart1", "SEKpart2"])
        assert "password=***" in shown
        assert "dbname=app" in shown


def test_a_driver_message_is_hidden_against_the_secrets_in_force(in_force):
    """A password with an unescaped ``@`` is read by libpq as password "SEKpart1" and host
    "SEKpart2@127.0.0.1", and libpq's message quotes that host: no shape shows it to be a
    secret, so it is hidden because the DSN labkit was given holds it."""
    from psycopg.conninfo import conninfo_to_dict

    dsn = "postgresql://u:SEKpart1@SEKpart2@127.0.0.1/db"
    assert conninfo_to_dict(dsn)["host"] == "SEKpart2@127.0.0.1"
    message = "failed to resolve host 'SEKpart2@127.0.0.1': [Errno -2] Name or service not known"
    assert _redact.redact(message) == message  # nothing in its shape says it holds a secret
    _redact.remember(dsn)
    shown = _redact.redact(message)
    _assert_hidden(shown, ["SEKpart1", "SEKpart2"])
    assert shown == "failed to resolve host '***@127.0.0.1': [Errno -2] Name or service not known"
    error = ServerUnavailable(f"The PostgreSQL server did not answer: {message}")
    _assert_hidden(str(error), ["SEKpart2"])
    _assert_hidden(one_line(error), ["SEKpart2"])


@pytest.mark.parametrize(("given", "secrets", "pieces"), [
    ("mongodb://alice:Pa55wOrd@127.0.0.1:1/", {"Pa55wOrd"}, {"Pa55wOrd"}),
    # As libpq reads it, and as written (the text that shows it holds the backslash).
    ("host=h password=SEKpart1\\ SEKpart2", {"SEKpart1 SEKpart2", "SEKpart1\\ SEKpart2"},
     {"SEKpart1 SEKpart2", "SEKpart1", "SEKpart2", "SEKpart1\\ SEKpart2", "SEKpart1\\"}),
    ("postgresql://h/app?sslpassword=Zq8%20Yx4w&password=Qw3rty",
     {"Qw3rty", "Zq8 Yx4w", "Zq8%20Yx4w"}, {"Qw3rty", "Zq8 Yx4w", "Zq8%20Yx4w", "Yx4w"}),
    ("mongodb://bob:Qpre%40Zq8post@h/?authMechanism=MONGODB-AWS"
     "&authMechanismProperties=AWS_SESSION_TOKEN:t0k3nValue",
     {"Qpre@Zq8post", "Qpre%40Zq8post", "AWS_SESSION_TOKEN:t0k3nValue", "t0k3nValue"},
     {"Qpre@Zq8post", "Qpre%40Zq8post", "Qpre", "Zq8post", "AWS_SESSION_TOKEN:t0k3nValue",
      "t0k3nValue"}),
    # Two URIs, as LABKIT_MONGODB_URI lists one server per version: each one's password.
    ("mongodb://a:Fir5tPw@h1/ mongodb://b:Sec0ndPw@h2/", {"Fir5tPw", "Sec0ndPw"},
     {"Fir5tPw", "Sec0ndPw"}),
    # Short parts are not pieces: "pw" and "x" would hide words and numbers everywhere.
    ("postgresql://u:pw@h/db", {"pw"}, set()),
    ("postgresql://u:p x@h/db", {"p x"}, set()),
])
def test_the_secrets_of_a_connection_string_and_their_pieces(given, secrets, pieces):
    """The secrets found in a connection string (as its driver's parser reads them and as
    written) and the pieces of them hidden wherever they appear: the whole, and each part
    between spaces or ``@`` of at least MIN_FRAGMENT characters."""
    assert _redact.secrets_in(given) == secrets
    assert {piece for secret in secrets for piece in _redact.pieces(secret)} == pieces


def test_a_piece_made_by_the_mask_itself_is_hidden_too(in_force):
    """Hiding is repeated until nothing is left: a password of stars, or one a mask between
    two characters completes, never stays shown."""
    _redact.remember("host=h password=**ab*")
    # The first round leaves "x****ab* y": its mask and the next stars make the piece again.
    assert _redact.SECRETS.hide("x**ab**ab* y") == "x***** y"
    assert _redact.redact(_redact.redact("**ab**ab*")) == _redact.redact("**ab**ab*")


def test_a_server_described_twice_keeps_its_parenthesis():
    """A server's description redacted again (``labkit clean --json`` prints its
    ``server`` through the JSON redaction) is unchanged: before, ``(dsn: host=h … password=***)``
    lost its closing parenthesis, and a password-less DSN became ``(dsn: [connection string
    not shown: ***]``."""
    for dsn in ("host=h user=u password=Zq8sEcReTpw", "host=h user=u dbname=app",
                "postgresql://u:Zq8sEcReTpw@h/db"):
        described = servers.PostgresServer(dsn=dsn, how="dsn", version="15.4").describe()
        assert described.endswith(")")
        assert _redact.redact(described) == described
        assert _redact.redact_all({"server": described}) == {"server": described}


# Characters a password may hold, the troublesome ones among them; and the texts that carry a
# connection string: a sentence, a description, a shell line, a repr, a mapping.
PASSWORD = st.text(alphabet=string.ascii_letters + string.digits + " @:/?#'\"\\=&%*().,;!{}",
                   min_size=1, max_size=16)
CONTEXTS = ["{}", "could not reach {} (timeout)", "PostgreSQL 15 (dsn: {})", "at {}.",
            "export LABKIT_MONGODB_URI='{}'", "MongoServer(uri='{}', how='uri')", "{}\n{}",
            "tried: {}; then {}", "[{}]", '"{}"']


def _forms(password: str) -> list[str]:
    """The password in each form of connection string, written as a user would: raw in a
    URI's user information, escaped as libpq's key=value syntax needs, in a parsed mapping."""
    escaped = password.replace("\\", "\\\\").replace("'", "\\'")
    return [f"postgresql://alice:{password}@127.0.0.1:5432/db",
            f"mongodb://alice:{password}@h1:27017,h2:27018/?authSource=admin",
            "host=h user=alice password=" + escaped.replace(" ", "\\ ") + " dbname=app",
            f"host=h password='{escaped}'",
            repr({"host": "h", "password": password})]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(password=PASSWORD, form=st.integers(0, 4), context=st.sampled_from(CONTEXTS))
def test_redacting_twice_changes_nothing(password, form, context):
    """``redact(redact(x)) == redact(x)`` for every form of connection string in every context
    labkit puts one: a description, a sentence, a shell line, a repr (before, a description
    redacted again lost its closing parenthesis)."""
    conninfo = _forms(password)[form]
    text = context.replace("{}", conninfo)
    once = _redact.redact(text)
    assert _redact.redact(once) == once


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(password=PASSWORD, form=st.integers(0, 4), context=st.sampled_from(CONTEXTS))
# Found by this test: a raw password holding "://" was read as a second URI, so its written
# form was never remembered and "a://" showed.
@example(password="a://", form=0, context="{}")
@example(password="a://", form=1, context="{}")
def test_no_piece_of_a_password_in_force_shows_and_redacting_twice_changes_nothing(
        password, form, context):
    """With the connection string in force, no piece of its password (MIN_FRAGMENT characters
    or more, between spaces and ``@``) shows in any context, and redacting again changes
    nothing."""
    conninfo = _forms(password)[form]
    registry = _redact.Secrets()
    registry.remember(conninfo)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_redact, "SECRETS", registry)
        once = _redact.redact(context.replace("{}", conninfo))
        assert _redact.redact(once) == once
    _assert_hidden(once, sorted(_redact.pieces(password)))


# Pieces of text that build connection strings and what surrounds them, glued at random.
SOUP = st.lists(st.sampled_from([
    "postgresql://", "mongodb://", "https://", "u", ":", "pw", "SEKpart1", "@", "127.0.0.1",
    "/db", "?", "&", "password=", "host=", "user=", "=", "***", "'", '"', ")", "(", " ", "\\ ",
    "\\", "{'password': ", "}", "\n", ".", ",", _redact.HIDDEN]), max_size=14)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=SOUP)
def test_redacting_any_text_twice_changes_nothing(pieces):
    """Whatever the text, redacting what was redacted gives it back unchanged."""
    once = _redact.redact("".join(pieces))
    assert _redact.redact(once) == once


# The secrets labkit was given, from the command line -----------------------------------------

HALVES = ["SEKpart1", "SEKpart2"]


@pytest.mark.parametrize("dsn", [
    # libpq reads password "SEKpart1" and host "SEKpart2@127.0.0.1", and says it cannot
    # resolve that host.
    "postgresql://u:SEKpart1@SEKpart2@127.0.0.1:{port}/db?connect_timeout=2",
    # libpq reads password "SEKpart1 SEKpart2" (the connection works with it).
    "host=127.0.0.1 port={port} user=alice password=SEKpart1\\ SEKpart2 connect_timeout=2",
])
def test_no_piece_of_the_dsn_password_reaches_any_output(tmp_path, dsn):
    """``labkit doctor`` (text and --json) and ``labkit run`` (terminal, report.md,
    report.html, results.json) with LABKIT_POSTGRES_DSN holding each form: no half of the
    password shows (before, libpq's "failed to resolve host 'SEKpart2@127.0.0.1'" was copied
    into every one of them)."""
    port = servers.free_port()
    env = {**os.environ, "LABKIT_POSTGRES_DSN": dsn.format(port=port),
           "LABKIT_MONGODB_URI": f"mongodb://bob:SEKpart1@SEKpart2@127.0.0.1:{port}/"
                                 "?serverSelectionTimeoutMS=300"}
    out = tmp_path / "report"
    shown = []
    for argv in (["doctor"], ["doctor", "--json"],
                 ["run", "--claims", "U7", "--out", str(out)]):
        result = subprocess.run([sys.executable, "-m", "labkit", *argv], capture_output=True,
                                text=True, timeout=180, env=env)
        assert "Traceback" not in result.stderr
        shown.append(result.stdout + result.stderr)
    shown += [path.read_text(encoding="utf-8") for path in sorted(out.iterdir())]
    assert len(shown) == 6
    for text in shown:
        _assert_hidden(text, HALVES)
    assert any("PostgreSQL" in text and "***" in text for text in shown[:2])


@pytest.mark.parametrize(("make", "field", "address"), [
    (servers.MongoServer, "uri", "mongodb://alice:Pa55wOrd@127.0.0.1:27017/?authSource=admin"),
    (servers.PostgresServer, "dsn", "host=127.0.0.1 user=alice password=Pa55wOrd dbname=app"),
    (servers.PostgresServer, "dsn", "postgresql://alice:Pa55wOrd@127.0.0.1:5432/postgres"),
])
def test_a_servers_repr_hides_its_password(make, field, address):
    """What a notebook shows for ``labkit.mongodb()`` or ``session().postgres()`` (the cell's
    last value: its repr, through IPython's pretty printer) hides the password and keeps the
    rest (before, the dataclass's own repr showed ``uri='mongodb://alice:Pa55wOrd@…'``)."""
    from IPython.lib.pretty import pretty

    server = make(**{field: address}, how="uri", version="7.0.14")
    for shown in (repr(server), pretty(server)):
        assert "Pa55wOrd" not in shown
        assert shown.startswith(f"{make.__name__}(")
        assert f"{field}='{_redact.redact(address)}'" in shown
        assert "how='uri'" in shown
        assert "version='7.0.14'" in shown
