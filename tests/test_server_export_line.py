"""``labkit server`` is safe on a projector: the export line it prints never holds a password
unless asked with ``--show-password``, and the line it prints is one a POSIX shell reads back
as the URI itself, whatever the URI holds (``shlex.quote``: a ``'`` no longer ends the
quoting)."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess

import pytest

from labkit import cli, servers

PASSWORD = "Pa55wOrd"


def _served(monkeypatch, uri: str, how: str = "uri") -> None:
    """``labkit server`` finds the server at ``uri`` (how labkit found a server is not what
    these tests are about: the line it then prints is)."""
    server = servers.MongoServer(uri=uri, how=how, version="7.0.14", cache="WiredTiger cache "
                                 "0.25 GB (the server's own setting)")
    monkeypatch.setattr(servers, "provide", lambda *args, **kwargs: server)


def _server(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["server", "--mongodb", "uri", *argv])
    return status, out.getvalue(), err.getvalue()


def _export_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("export ")]


@pytest.mark.parametrize("uri", [f"mongodb://alice:{PASSWORD}@127.0.0.1:27017/",
                                 f"mongodb://127.0.0.1:27017/?authMechanism=MONGODB-AWS"
                                 f"&authMechanismProperties=AWS_SESSION_TOKEN:{PASSWORD}"])
def test_the_export_line_is_not_printed_when_the_uri_holds_a_secret(monkeypatch, uri):
    """With a password (or another secret option) in the URI, nothing printed holds it: the
    URI is shown in its display form and, in place of the export line, a line says how to get
    it (before, ``export LABKIT_MONGODB_URI='mongodb://alice:Pa55wOrd@…'`` followed the masked
    line)."""
    _served(monkeypatch, uri)
    for argv in ([], ["--json"]):
        status, out, err = _server(argv)
        assert status == 0, err
        assert PASSWORD not in out + err
        assert _export_lines(out) == []
    status, out, _ = _server([])
    assert "--show-password" in out


def test_show_password_prints_the_whole_export_line(monkeypatch):
    """``--show-password`` prints the export line with the URI as it is, when asked."""
    uri = f"mongodb://alice:{PASSWORD}@127.0.0.1:27017/?authSource=admin"
    _served(monkeypatch, uri)
    status, out, _ = _server(["--show-password"])
    assert status == 0
    assert _export_lines(out) == [f"export LABKIT_MONGODB_URI='{uri}'"]


def test_a_uri_without_a_secret_gets_its_export_line(monkeypatch):
    """A URI with no secret in it (a mongod labkit started) is printed as the export line, as
    before, with no flag."""
    uri = "mongodb://127.0.0.1:27017/?directConnection=true"
    _served(monkeypatch, uri, how="local")
    monkeypatch.setattr("time.sleep", _stop_waiting)
    status, out, _ = _server([])
    assert _export_lines(out) == [f"export LABKIT_MONGODB_URI='{uri}'"]
    assert status == 130


def _stop_waiting(seconds):
    raise KeyboardInterrupt  # the server would be kept until Ctrl-C: that Ctrl-C, at once


@pytest.mark.skipif(shutil.which("sh") is None, reason="reads the line back with a POSIX sh")
@pytest.mark.parametrize("uri", ["mongodb://alice:Pa'ss wo\"rd$x`y@127.0.0.1:27017/",
                                 "mongodb://127.0.0.1:27017/?appName=it's"])
def test_the_export_line_reads_back_as_the_uri_in_a_shell(monkeypatch, uri):
    """The export line, run by sh, sets LABKIT_MONGODB_URI to the URI exactly, quotes, spaces
    and ``$`` included (before, a ``'`` in the URI ended the quoting and broke the line)."""
    _served(monkeypatch, uri)
    _, out, _ = _server(["--show-password"])
    [line] = _export_lines(out)
    read = subprocess.run(["sh", "-c", f'{line}\nprintf %s "$LABKIT_MONGODB_URI"'],
                          capture_output=True, text=True, check=True, timeout=30)
    assert read.stdout == uri
