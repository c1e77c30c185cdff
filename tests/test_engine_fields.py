"""Engines as fields: each engine a run used is recorded where it is first known (a server, a
check's engine) with its key, name, version and where it runs apart, and results.json, the
report's header and ``labkit check``'s outputs read those fields, never a line cut apart
(docs/report.md, "results.json"; docs/results.schema.json, ``engine_details``)."""

from __future__ import annotations

import datetime as dt
import importlib.metadata

import pytest

from labkit import names, servers
from labkit._version import __version__ as labkit_version
from labkit.names import EngineInfo
from labkit.outputs import report
from labkit.run import check as claimcheck
from labkit.run import runner
from labkit.run.results import ClaimResult, Result, Run

NOW = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.UTC)


def _run(rows: list[Result], engines: list[EngineInfo]) -> Run:
    return Run([ClaimResult(rows[0].claim, rows)] if rows else [], NOW, NOW, engines)


def test_a_servers_record_keeps_each_part_and_its_line_is_the_old_description():
    """``Server.info`` keeps key, name, version, how, address (password hidden) and MongoDB's
    cache apart, and ``describe()`` is still the one line the reports have always printed."""
    pg = servers.PostgresServer(dsn="postgresql://u:secret@db.example:5433/x", how="dsn",
                                version="16.4")
    mongo = servers.MongoServer(uri="mongodb://h.example:27018", how="docker", version="8.0.4",
                                cache="WiredTiger cache 0.25 GB")
    assert pg.info() == EngineInfo("postgres", "16.4", how="dsn",
                                   address="postgresql://u:***@db.example:5433/x",
                                   name="PostgreSQL")
    assert pg.describe() == "PostgreSQL 16.4 (dsn: postgresql://u:***@db.example:5433/x)"
    assert mongo.info().to_dict() == {
        "key": "mongodb", "name": "MongoDB", "version": "8.0.4", "detail": "",
        "how": "docker", "address": "mongodb://h.example:27018",
        "settings": "WiredTiger cache 0.25 GB", "not_run": False}
    assert mongo.describe() == ("MongoDB 8.0.4 (docker: mongodb://h.example:27018; "
                                "WiredTiger cache 0.25 GB)")


def test_results_json_carries_each_server_as_fields_beside_its_line():
    """results.json keeps ``engines`` (one line each, as before) and adds ``engine_details``,
    the same engines in the same order with every part a field."""
    server = servers.PostgresServer(dsn="postgresql://labkit@127.0.0.1:5432/postgres",
                                    how="local", version="15.18")
    data = _run([], [server.info()]).to_dict()
    assert data["engines"] == ["PostgreSQL 15.18 (local: postgresql://labkit@127.0.0.1:5432/"
                               "postgres)"]
    assert data["engine_details"] == [{
        "key": "postgres", "name": "PostgreSQL", "version": "15.18", "detail": "",
        "how": "local", "address": "postgresql://labkit@127.0.0.1:5432/postgres",
        "settings": "", "not_run": False}]


def test_a_server_whose_name_has_a_space_keeps_it_whole_in_the_header(monkeypatch):
    """A server named "Some Engine" is listed under that whole name, its version and place
    after it; a header that cut its line at the first space listed "Some" with "Engine 2.1 (…)"."""
    monkeypatch.setitem(names.ENGINE_NAMES, "some", "Some Engine")
    info = EngineInfo("some", "2.1", how="local", address="postgresql://127.0.0.1:4000/db")
    run = _run([], [info])
    assert report.engine_states(run) == [("Some Engine", "2.1 (local: postgresql://127.0.0.1:4000/db)")]
    assert "- Some Engine: " in report.markdown(run)
    assert "<li><b>Some Engine</b>: 2.1 (local: postgresql://127.0.0.1:4000/db)</li>" in \
        report.html_report(run)
    assert run.to_dict()["engine_details"][0]["name"] == "Some Engine"


def test_a_check_records_its_columns_engines_as_fields():
    """``labkit check`` records each column's engine: the model with its rules, an in-process
    fake named as one, and a MongoDB column that had no server marked not run with the
    version asked for; the header lists each under its own name."""
    pytest.importorskip("mongomock")
    spec = claimcheck.claimfiles.load(["claims/lesson01_dates.yaml"])[:1]
    with pytest.MonkeyPatch.context() as patch:
        def no_server(version, mode):
            raise servers.ServerUnavailable("no server here. Hint: none")

        patch.setattr(claimcheck, "_one_server", no_server)
        result = claimcheck.check(spec, ["model", "mongomock", "mongodb"], ["7.0"])
    details = result.run.to_dict()["engine_details"]
    assert [(d["key"], d["name"], d["detail"], d["not_run"]) for d in details] == [
        ("model", "model", f"labkit's rules for MongoDB {claimcheck.ModelEngine.speaks_for}",
         False),
        ("mongomock", "mongomock", "in-process fake", False),
        ("mongodb", "MongoDB", "", True)]
    mongomock = importlib.metadata.version("mongomock")
    assert [d["version"] for d in details] == [labkit_version, mongomock, "7.0"]
    states = dict(report.engine_states(result.run))
    assert states["mongomock"] == f"(in-process fake) {mongomock}"
    assert states["MongoDB"] == "7.0: not run"
    assert [c.description for c in result.columns][1:] == [
        f"mongomock (in-process fake) {mongomock}", "MongoDB 7.0: not run"]


def test_a_runs_context_records_the_servers_it_used():
    """The run's context gives each server it used as its record (``Server.info``)."""
    server = servers.PostgresServer(dsn="postgresql://labkit@127.0.0.1:1/postgres", how="dsn",
                                    version="17.2")
    ctx = runner.Context()
    ctx._servers["postgres"] = server
    assert ctx.engines() == [server.info()]
