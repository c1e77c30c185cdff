"""``labkit server``: its cache option, its command's environment, and stopping with a command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from helpers import assert_one_line_error, labkit, plain_signals, start

from labkit.i18n import english
from labkit.servers.command import Command

POSIX_ONLY = pytest.mark.skipif(os.name == "nt", reason="sends POSIX signals")

# A command that stops cleanly on SIGINT or SIGTERM: it leaves a marker and exits with 3.
TRAPPING_CHILD = """\
import pathlib, signal, sys, time
marker = pathlib.Path(sys.argv[1])
def stop(signum, frame):
    marker.write_text(f"stopped by {signum}")
    sys.exit(3)
signal.signal(signal.SIGINT, stop)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGHUP, stop)
marker.with_suffix(".ready").write_text("ready")
time.sleep(60)
"""


def _serving_a_trapping_child(tmp_path, marker, before=(), child=TRAPPING_CHILD):
    """``labkit server --optional -- python -c CHILD MARKER`` started (after ``before``, a
    prelude that execs it), returned once the child said it is ready."""
    process = start(
        [*before, sys.executable, "-m", "labkit", "server", "--mongodb", "local", "--optional",
         "--", sys.executable, "-c", child, str(marker)],
        env={**os.environ, **_no_server_env(tmp_path)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = marker.with_suffix(".ready")
    deadline = time.monotonic() + 30
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not ready.exists():
        said = process.stderr.read() if process.poll() is not None else ""
        process.kill()
        raise AssertionError(f"the command never said it was ready: {said}")
    return process


def _no_server_env(tmp_path) -> dict:
    return {"LABKIT_MONGOD": str(tmp_path / "none"), "LABKIT_MONGODB_URI": ""}


@pytest.mark.parametrize("size", ["0.1", "0", "-1", "nan", "inf", "10001"])
def test_server_refuses_a_cache_mongod_would_refuse(size):
    """``--cache-gb`` below 0.25, above 10000, NaN or infinite: one line, exit status 2."""
    result = labkit("server", "--cache-gb", size)
    assert_one_line_error(result)
    assert "0.25" in result.stderr


def test_optional_server_says_it_unset_the_uri(tmp_path):
    """Continuing without a server after a URI was set, the warning says the command lacks it."""
    env = {**_no_server_env(tmp_path), "LABKIT_MONGODB_URI": "mongodb://other.example:1/"}
    result = labkit("server", "--mongodb", "local", "--optional", "--", sys.executable, "-c",
                    "pass", env=env)
    assert result.returncode == 0, result.stderr
    assert "LABKIT_MONGODB_URI is unset for the command" in result.stderr


def test_optional_server_passes_on_the_commands_exit_status(tmp_path):
    """``labkit server -- CMD`` exits with CMD's own status."""
    result = labkit("server", "--mongodb", "local", "--optional", "--", sys.executable, "-c",
                    "raise SystemExit(7)", env=_no_server_env(tmp_path))
    assert result.returncode == 7, result.stderr


def test_a_command_that_cannot_run_is_one_line(tmp_path):
    """A command that does not exist is an ``Error:`` line, not a traceback."""
    result = labkit("server", "--mongodb", "local", "--optional", "--",
                    str(tmp_path / "no-such-program"), env=_no_server_env(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("Error: cannot run")
    assert "Traceback" not in result.stderr


@POSIX_ONLY
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", 1)])
def test_stopping_labkit_server_stops_its_command_first(tmp_path, signum):
    """Ctrl-C, SIGTERM or SIGHUP (a closed terminal: before, CMD was left orphaned) to ``labkit
    server -- CMD`` reaches CMD, which ends cleanly; then labkit.

    No server is involved (``--optional`` on a machine without one): this pins the passing on
    of the signal and the exit status, the same code path as with a server.
    """
    marker = tmp_path / "stopped"
    process = _serving_a_trapping_child(tmp_path, marker)
    try:
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert marker.read_text() == f"stopped by {int(signum)}"
    assert process.returncode == 3, stderr
    assert "Traceback" not in stderr


@POSIX_ONLY
def test_a_command_that_ignores_the_signal_is_killed_after_the_grace_period(tmp_path):
    """A command that does not stop within the grace period is killed; status 128 + 9."""
    ready = tmp_path / "ready"
    ignoring = ("import pathlib, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
                " pathlib.Path(sys.argv[1]).touch(); time.sleep(60)")
    running = Command(plain_signals([sys.executable, "-c", ignoring, str(ready)]),
                      dict(os.environ), grace=1.0)
    started = time.monotonic()
    try:
        deadline = started + 30
        while not ready.exists() and time.monotonic() < deadline:  # its handler is in place
            time.sleep(0.01)
        running.forward(signal.SIGTERM)
        status = running.wait()
    finally:
        running.child.kill()
    assert status == 128 + signal.SIGKILL
    assert time.monotonic() - started < 15


@pytest.mark.mongodb
@POSIX_ONLY
def test_server_with_a_command_stops_the_server_after_the_command(tmp_path):
    """With a real server, the command sees its URI and the server is gone once labkit exits."""
    from labkit import servers

    why = servers.mongodb_missing()
    if why is not None:
        pytest.skip(english(why))
    if os.environ.get("LABKIT_MONGODB_URI"):
        pytest.skip("LABKIT_MONGODB_URI is set: labkit would reuse that server, not start one")
    probe = ("import os, json; print(json.dumps(os.environ['LABKIT_MONGODB_URI']))")
    result = labkit("server", "--json", "--", sys.executable, "-c", probe)
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout.split("\n}\n")[0] + "}")
    assert info["cache"] == "WiredTiger cache 0.25 GB (set by labkit)"
    client = servers.mongo_client(info["uri"], serverSelectionTimeoutMS=1000)
    with pytest.raises(Exception, match=r"(?i)refused|timed out|timeout"):
        client.admin.command("ping")
    client.close()


@POSIX_ONLY
def test_a_hang_up_labkit_was_told_to_ignore_stays_ignored(tmp_path):
    """Under ``nohup`` (SIGHUP ignored), a hang-up neither stops ``labkit server -- CMD`` nor
    reaches CMD: SIGHUP stops labkit only where nothing asked it to be ignored (a second read
    of issue 46's item 8 found labkit's own handler put over the ignored one)."""
    marker = tmp_path / "stopped"
    # as nohup starts it: SIGHUP ignored, then labkit's own program in its place (exec)
    nohup = ("import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
             "os.execv(sys.argv[1], sys.argv[1:])")
    process = _serving_a_trapping_child(
        tmp_path, marker, before=[sys.executable, "-c", nohup],
        child=TRAPPING_CHILD.replace("signal.signal(signal.SIGHUP, stop)\n", ""))
    try:
        process.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert process.poll() is None  # still serving
        assert not marker.exists()  # and CMD never saw it
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    finally:
        process.kill()
    assert marker.read_text() == f"stopped by {int(signal.SIGTERM)}"
