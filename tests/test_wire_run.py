"""A run that loses its MongoDB midway, over the wire: a connection reset or a timeout costs
the claim it hit one clear line (``error``, or *not run* where no server could be had), never
a traceback, and every database the run made is dropped or named.

The scripted server (``tests/mongo_wire.py``) answers as in ``test_wire_experiments.py``
(``wire_replies``' claims' table and server); a
rule with ``hangup=True`` closes the connection where a reply was due (a reset), one with
``delay=`` answers after pymongo's ``socketTimeoutMS`` has fired (a timeout). pymongo retries
a read once after a network error (retryReads, on by default: the Retryable Reads
specification, mongodb/specifications source/retryable-reads), so a read that keeps failing
is sent twice.
"""

from __future__ import annotations

import json

import pytest
from mongo_wire import unauthorized
from wire_replies import (
    CASE_IDS,
    CASES,
    connected,
    in_database,
    script_case,
    script_claims_server,
)

from labkit import cli
from labkit.claims.claim import ERROR, HOLDS, NOT_RUN
from labkit.experiments import catalogue
from labkit.run import runner

pytestmark = pytest.mark.wire

D1, D3 = (CASES[CASE_IDS.index(claim)] for claim in ("D1", "D3"))


@pytest.fixture
def lab(wire_server):
    """labkit connected to the scripted server, as the lessons' context has it."""
    with connected(wire_server) as connection:
        yield connection


@pytest.fixture
def run_dates(wire_server, tmp_path, monkeypatch, capsys):
    """``labkit run --topics dates`` through ``cli.main`` at the scripted server (its URI in
    LABKIT_MONGODB_URI, with ``options`` appended); returns the exit status, stdout, stderr
    and results.json."""
    script_claims_server(wire_server)

    def run(options: str = "") -> tuple[int, str, str, dict]:
        monkeypatch.setenv("LABKIT_MONGODB_URI", wire_server.uri + options)
        out = tmp_path / "report"
        status = cli.main(["run", "--topics", "dates", "--out", str(out), "--quiet"])
        printed = capsys.readouterr()
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        return status, printed.out, printed.err, results

    return run


def verdicts(results: dict) -> dict[str, str]:
    """Each claim's verdict in results.json."""
    return {item["id"]: item["verdict"] for item in results["claims"]}


def reason_of(results: dict, claim_id: str) -> str:
    """The one row's reason of a claim in results.json."""
    (item,) = [c for c in results["claims"] if c["id"] == claim_id]
    (row,) = item["results"]
    return row["reason"]


def names_on(wire_server, label: str) -> list[str]:
    """The commands sent to the run's fresh database for ``label``."""
    return [s.name for s in wire_server.sent if in_database(s, label)]


def assert_one_line_each(printed: str, errors: dict[str, str]) -> None:
    """The verdict table has one line per claim of the topic, and each claim in ``errors``
    one line saying why, starting with the text given; nothing else names it."""
    lines = printed.splitlines()
    for claim_id in ("D1", "D2", "D3"):
        assert sum(line.startswith(f"{claim_id} ") for line in lines) == \
            1 + (claim_id in errors), printed
    for claim_id, start in errors.items():
        assert any(line.startswith(f"{claim_id} error: {start}") for line in lines), printed


def test_a_reset_mid_run_costs_one_claim_one_line_and_its_database_is_dropped(
        wire_server, run_dates):
    """The connection reset where D1's aggregate answer was due: D1 is ``error`` with the
    driver's one line, D2 and D3 still run and hold, no traceback reaches the user, and the
    database D1 made is dropped after the failure (dropDatabase sent after the last read)."""
    script_case(wire_server, D3)
    wire_server.on("aggregate", hangup=True, match=lambda s: s["aggregate"] == "dates")
    status, out, err, results = run_dates()
    assert verdicts(results) == {"D1": ERROR, "D2": HOLDS, "D3": HOLDS}
    assert reason_of(results, "D1").startswith("AutoReconnect: ")
    assert "connection closed" in reason_of(results, "D1")
    assert_one_line_each(out, {"D1": "AutoReconnect: "})
    assert "Traceback" not in out + err
    assert status == 1
    assert names_on(wire_server, "d1") == ["update", "insert", "aggregate", "aggregate",
                                           "dropDatabase"]
    assert names_on(wire_server, "events")[-1] == "dropDatabase"
    assert "not removed wholly" not in err


def test_a_timeout_mid_run_costs_one_claim_one_line_and_its_database_is_dropped(
        wire_server, run_dates):
    """D3's first find answered after the client's socketTimeoutMS (300 ms, set in the URI):
    D3 is ``error`` with pymongo's NetworkTimeout line, D1 before it holds, and D3's database
    is dropped once the read has failed."""
    script_case(wire_server, D1)
    script_case(wire_server, D3)
    wire_server.on("find", {"ok": 1.0}, delay=1.0,
                   match=lambda s: s["find"] == "events" and "at" in s["filter"])
    status, out, err, results = run_dates("&socketTimeoutMS=300")
    assert verdicts(results) == {"D1": HOLDS, "D2": HOLDS, "D3": ERROR}
    assert reason_of(results, "D3").startswith("NetworkTimeout: ")
    assert "timed out" in reason_of(results, "D3")
    assert_one_line_each(out, {"D3": "NetworkTimeout: "})
    assert "Traceback" not in out + err
    assert status == 1
    assert names_on(wire_server, "events") == ["update", "insert", "find", "find",
                                               "dropDatabase"]


def test_a_drop_the_connection_loses_is_named_not_left_silently(wire_server, run_dates):
    """Where the reset hits D3's dropDatabase, the verdicts stand (both hold) and stderr names
    the database the run could not remove, with why, for the user to drop."""
    script_case(wire_server, D1)
    script_case(wire_server, D3)
    wire_server.on("dropDatabase", hangup=True, match=lambda s: in_database(s, "events"))
    status, _out, err, results = run_dates()
    assert verdicts(results) == {"D1": HOLDS, "D2": HOLDS, "D3": HOLDS}
    (name,) = {s.db for s in wire_server.sent if in_database(s, "events")}
    assert "This run's database(s) not removed wholly" in err
    (line,) = [line for line in err.splitlines() if name in line]
    assert line.strip().startswith(f"{name}: AutoReconnect: ")
    assert "Traceback" not in err
    assert status == 0


def test_a_server_that_resets_before_the_run_leaves_its_claims_not_run(
        wire_server, run_dates, nothing_available):
    """A server that closes the connection on the first ping: D1 and D3 are *not run*, each
    with one line saying MongoDB could not be had and why; D2, which needs no server, holds;
    nothing is created, so nothing is dropped."""
    wire_server.on("ping", hangup=True)
    status, out, err, results = run_dates()
    assert verdicts(results) == {"D1": NOT_RUN, "D2": HOLDS, "D3": NOT_RUN}
    for claim_id in ("D1", "D3"):
        assert reason_of(results, claim_id).startswith("needs mongodb: ")
    assert "did not answer" in reason_of(results, "D1")
    assert "Traceback" not in out + err
    assert status == 0
    assert not [s for s in wire_server.sent if s.db.startswith("labkit_")]


def test_a_reset_on_the_lease_write_still_drops_that_database_with_the_claim(lab):
    """A reset where the fresh database's lease was being written (the database may exist:
    the write may have landed) costs the claim an ``error``, and the context drops that
    database right after the claim, as it does its others, not when the server object stops
    (a lesson's kernel may live for hours)."""
    lab.wire.on("update", hangup=True, match=lambda s: in_database(s, "events"))
    with runner.Context(mongodb_provider=lambda: lab.server) as ctx:
        (row,) = runner.run_claim(catalogue.get("D3"), ctx).rows
        assert row.verdict == ERROR
        assert "\n" not in str(row.reason)
        assert names_on(lab.wire, "events") == ["update", "dropDatabase"]


def test_a_reset_in_the_second_of_two_databases_drops_both(lab):
    """B1 fills two databases (the shell's orders, then Python's); a reset on the second's
    insert costs B1 an ``error`` and both databases are dropped after it."""
    script_case(lab.wire, CASES[CASE_IDS.index("B1")])
    lab.wire.on("insert", hangup=True, match=lambda s: in_database(s, "orders_python"))
    (row,) = lab.run("B1").rows
    assert row.verdict == ERROR
    assert names_on(lab.wire, "orders")[-1] == "dropDatabase"
    assert names_on(lab.wire, "orders_python") == ["update", "insert", "dropDatabase"]


def test_a_read_the_server_refuses_mid_run_costs_that_claim_one_line(wire_server, run_dates):
    """A server that refuses D3's reads with code 13 (a role without ``find`` on the run's
    database: src/mongo/db/service_entry_point_common.cpp refuses before the command runs)
    gives D3 ``error`` with the server's words on one line, D1 still holds, and D3's database
    is dropped."""
    script_case(wire_server, D1)
    wire_server.on("find", lambda s: unauthorized("find", s.db),
                   match=lambda s: in_database(s, "events"))
    status, out, err, results = run_dates()
    assert verdicts(results) == {"D1": HOLDS, "D2": HOLDS, "D3": ERROR}
    assert reason_of(results, "D3").startswith("OperationFailure: not authorized on labkit_")
    assert_one_line_each(out, {"D3": "OperationFailure: not authorized"})
    assert "Traceback" not in out + err
    assert status == 1
    assert names_on(wire_server, "events") == ["update", "insert", "find", "dropDatabase"]
