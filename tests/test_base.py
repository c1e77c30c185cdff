"""What every kind of server shares, `labkit.servers.base`: versions pinned and modes known
before anything starts, passwords hidden, and one fallback chain whose failure keeps what was
tried and the hint as data."""

from __future__ import annotations

import pytest

from labkit import servers
from labkit.errors import BadInput, ServerStartError, ServerUnavailable
from labkit.servers import base


@pytest.mark.parametrize("version", ["latest", "eight", "8.0-rc", ""])
def test_versions_must_be_pinned(version):
    """Tags such as ``latest`` are refused: results must name an exact server."""
    with pytest.raises(BadInput):
        servers.get_mongodb("docker", version)


def test_unknown_mode_is_bad_input():
    """Only auto, uri, local and docker are modes."""
    with pytest.raises(BadInput, match="auto, uri, local, docker"):
        servers.get_mongodb("cloud")


def test_redact_hides_passwords():
    """Passwords never reach the terminal or the report."""
    assert servers.redact("mongodb://test:s3cret@localhost:1/") == "mongodb://test:***@localhost:1/"
    assert servers.redact("postgresql://u@h/db") == "postgresql://u@h/db"


def test_one_fallback_chain_builds_the_tried_list():
    """Ways are tried in order; reasons become the tried list; the first server wins."""
    calls = []

    def way(name, outcome):
        def attempt():
            calls.append(name)
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        return name, attempt

    failed = ServerStartError("Started x, but it did not answer.", log_tail="boom",
                              hint="look")
    with pytest.raises(ServerUnavailable) as caught:
        base.first_server("Thing", [way("A", "not set"), way("B", failed)], False, "go")
    assert [str(way) for way in caught.value.tried] == ["A: not set",
                                                        "B: failed to start: " + str(failed)]
    assert str(caught.value.hint) == "Hint: go"
    with pytest.raises(ServerStartError):
        base.first_server("Thing", [way("B", failed)], True, "go")
    calls.clear()
    found = object()
    assert base.first_server("Thing", [way("A", "no"), way("B", found), way("C", "x")],
                                 False, "go") is found
    assert calls == ["A", "B"]


def test_errors_keep_what_was_tried_and_the_hint_as_data():
    """The message and the one-line summary are built from ``tried`` and ``hint``."""
    error = ServerUnavailable("No Thing server is available.",
                              tried=["A: not set", "B: failed to start: It broke.\nlog"],
                              hint="do this")
    assert str(error) == ("No Thing server is available. Tried:\n  - A: not set\n"
                          "  - B: failed to start: It broke.\n    log\nHint: do this")
    assert str(error.summary()) == ("No Thing server is available (tried A: not set; B: "
                                    "failed to start: It broke.). Hint: do this")
    start = ServerStartError("It did not answer.", log_tail="a\nb", hint="Hint: try")
    assert str(start) == "It did not answer.\nLast lines of its log:\na\nb\nHint: try"
    assert (start.log_tail, start.hint) == ("a\nb", "Hint: try")
