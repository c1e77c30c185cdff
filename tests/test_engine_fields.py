"""Engines as fields: each engine a run used is recorded where it is first known (a server, a
check's engine) with its key, name, version and where it runs apart, and results.json, the
report's header and ``labkit check``'s outputs read those fields, never a line cut apart
(docs/report.md, "results.json"; docs/results.schema.json, ``engine_details``)."""

from __future__ import annotations

import ast
import datetime as dt
import importlib.metadata
import re
from pathlib import Path

import pytest

import labkit
from labkit import names, servers
from labkit._version import __version__ as labkit_version
from labkit.claims.claim import Observation
from labkit.experiments import catalogue as claims
from labkit.i18n import english
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
    after it; a header that cut its line at the first space listed "Some" with "Engine 2.1
    (…)"."""
    monkeypatch.setitem(names.ENGINE_NAMES, "some", "Some Engine")
    info = EngineInfo("some", "2.1", how="local", address="postgresql://127.0.0.1:4000/db")
    run = _run([], [info])
    assert report.engine_states(run) == [
        ("Some Engine", "2.1 (local: postgresql://127.0.0.1:4000/db)")]
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


# Each row's engine ------------------------------------------------------------------------


def _rows(data: dict, claim_id: str) -> list[tuple]:
    """``(engine, engine_key, engine_name, engine_version)`` of a claim's rows in results.json."""
    (claim,) = [c for c in data["claims"] if c["id"] == claim_id]
    return [(r["engine"], r["engine_key"], r["engine_name"], r["engine_version"])
            for r in claim["results"]]


def test_an_offline_runs_rows_name_each_engine_apart_from_the_rows_label(offline_session):
    """In a run with no server, each row of results.json names its engine by key and name
    beside its label: U6's model rows are the model whatever their split policy, SQLite and
    WiredTiger keep their versions, PostgreSQL's row is not run yet still PostgreSQL's; U1's
    generator, a library, has no key and its label for a name; a MongoDB claim that never
    reached an engine has none (claims U1, U6, D1; docs/report.md, "results.json")."""
    import sqlite3

    import uuid_utils

    run = runner.run([claims.get(i) for i in ("U1", "U6", "D1")], offline_session)
    data = run.to_dict()
    assert data["engines"] == []
    assert data["engine_details"] == []
    assert _rows(data, "U1") == [("uuid_utils", None, "uuid_utils", str(uuid_utils.__version__))]
    model = f"labkit {labkit_version}"
    rows = _rows(data, "U6")
    assert rows[:3] == [("model (50/50 splits)", "model", "model", model),
                        ("model (rightmost splits)", "model", "model", model),
                        ("SQLite", "sqlite", "SQLite", sqlite3.sqlite_version)]
    assert rows[3] == ("PostgreSQL", "postgres", "PostgreSQL", "")
    assert rows[4][:3] == ("WiredTiger", "wiredtiger", "WiredTiger")
    assert _rows(data, "D1") == [(None, None, None, "")]
    states = dict(report.engine_states(run))
    assert states["model"] == model
    assert states["SQLite"] == sqlite3.sqlite_version
    assert states["MongoDB"].startswith("not available")


@pytest.mark.postgres
def test_a_run_on_postgresql_records_the_server_and_its_rows_as_fields(postgres_server):
    """A run with PostgreSQL records the server in engine_details (key, name, exact version,
    how labkit got it, its address with the password hidden) and every PostgreSQL row, U5's
    "PostgreSQL · size" among them, under key postgres and name PostgreSQL with that version;
    SQLite's rows beside them keep theirs (claims U5, U6)."""
    import sqlite3

    with runner.Context(btree_n=2_000, postgres_provider=lambda: postgres_server) as ctx:
        run = runner.run([claims.get("U6"), claims.get("U5")], ctx)
    data = run.to_dict()
    (detail,) = data["engine_details"]
    assert detail == {"key": "postgres", "name": "PostgreSQL",
                      "version": postgres_server.version, "detail": "",
                      "how": postgres_server.how,
                      "address": servers.redact(postgres_server.address), "settings": "",
                      "not_run": False}
    assert ":***@" in detail["address"] or "@" not in detail["address"]
    assert data["engines"] == [postgres_server.describe()]
    rows = _rows(data, "U6") + _rows(data, "U5")
    postgres = [row for row in rows if row[1] == "postgres"]
    assert [row[0] for row in postgres] == ["PostgreSQL", "PostgreSQL · size",
                                            "PostgreSQL · write amplification",
                                            "PostgreSQL · cache churn"]
    assert {row[2:] for row in postgres[:3]} == {("PostgreSQL", postgres_server.version)}
    sqlite = [row for row in rows if row[1] == "sqlite"]
    assert len(sqlite) == 4
    assert {row[2] for row in sqlite} == {"SQLite"}
    assert {row[3] for row in sqlite if row[3]} == {sqlite3.sqlite_version}
    states = dict(report.engine_states(run))
    assert states["PostgreSQL"] == postgres_server.info().state()
    assert states["SQLite"] == sqlite3.sqlite_version


def test_a_row_whose_engine_name_has_a_space_keeps_it_whole(monkeypatch):
    """A row labelled "Some Engine (half) · size" of an engine named "Some Engine" is listed
    in the header and in results.json under that whole name, from its key, not from its label."""
    monkeypatch.setitem(names.ENGINE_NAMES, "some", "Some Engine")
    u5 = claims.get("U5")
    row = Result(u5, "holds", Observation({}, "Some Engine (half) · size", "2.1",
                                          engine_key="some"))
    run = _run([row], [])
    assert report.engine_states(run) == [("Some Engine", "2.1")]
    (result,) = run.to_dict()["claims"][0]["results"]
    assert (result["engine"], result["engine_key"], result["engine_name"]) == (
        "Some Engine (half) · size", "some", "Some Engine")
    assert "- Some Engine: " + report.escape.markdown("2.1") in report.markdown(run)


@pytest.mark.parametrize(("language", "shown"), [
    ("en", "SQLite 3.40.1 · size"), ("vi", "SQLite 3.40.1 · kích thước")])
def test_a_rows_version_stands_beside_its_engine_not_after_the_aspect(language, shown,
                                                                      monkeypatch):
    """Lesson 06's U5 card read "engine: SQLite · size 3.40.1" (a size of 3.40.1?): the card,
    the report and its tables put the version beside the engine's name, before the aspect,
    while results.json keeps the label and the version as the fields they were."""
    from labkit import i18n
    from labkit.experiments.btree_keys import PART_TEXT
    from labkit.i18n import Message
    from labkit.lessons import cards

    u5 = claims.get("U5")
    size = Message(PART_TEXT["size"])
    model = Message("{model} (50/50 splits)", model="model")
    rows = [Result(u5, "finding", Observation({}, "SQLite", "3.40.1", engine_key="sqlite",
                                              aspect=size)),
            Result(u5, "finding", Observation({}, model, "labkit 0.1.0", engine_key="model",
                                              aspect=size))]
    monkeypatch.setattr(i18n, "_chosen", language)
    run = _run(rows, [])
    assert rows[0].where == shown
    assert rows[1].where.startswith("model (")
    assert rows[1].where.endswith(") labkit 0.1.0 · " + shown.rsplit("· ", 1)[1])
    assert f"{i18n._('engine:')} {shown}" in cards.row_card(rows[0])
    assert f"- {report.escape.markdown(shown)}: " in report.markdown(run)
    results = run.to_dict()["claims"][0]["results"]
    assert [(r["engine"], r["engine_version"]) for r in results] == [
        ("SQLite · size", "3.40.1"), ("model (50/50 splits) · size", "labkit 0.1.0")]


def test_a_checks_rows_carry_their_engines_key():
    """Each cell of a claim check carries its engine's key and name beside its label ("model
    (labkit's rules for MongoDB 8.0)"), and a column without its engine keeps its key too; the
    header lists that column as "MongoDB: not run" (its line once cut at the first space gave
    "MongoDB:: not run")."""
    specs = claimcheck.claimfiles.load(["claims/lesson01_dates.yaml"])[:1]
    with pytest.MonkeyPatch.context() as patch:
        def no_server(version, mode):
            raise servers.ServerUnavailable("no server here. Hint: none")

        patch.setattr(claimcheck, "_one_server", no_server)
        result = claimcheck.check(specs, ["model", "mongodb"])
    data = result.run.to_dict()
    assert [(r["engine"], r["engine_key"], r["engine_name"]) for r in
            data["claims"][0]["results"]] == [
        (english(claimcheck.ModelEngine.name), "model", "model"), ("MongoDB", "mongodb", "MongoDB")]
    assert dict(report.engine_states(result.run))["MongoDB"] == "not run"
    assert "- MongoDB: not run" in report.markdown(result.run)


# No code cuts an engine's words apart -----------------------------------------------------

_SPLITS = {"split", "rsplit", "partition", "rpartition"}
_ENGINE_WORDS = re.compile(r"engine|label|\.name\b|describe")


def _label_splits(source: str) -> list[str]:
    """Where ``source`` cuts an engine's words: ``split``/``partition`` (and their r-forms)
    called on an expression naming an engine, a label, a ``.name`` or a description, or on a
    loop variable that runs over something's ``engines``."""
    tree = ast.parse(source)
    over_engines = {node.target.id for node in ast.walk(tree)
                    if isinstance(node, ast.For) and isinstance(node.target, ast.Name)
                    and "engines" in (ast.get_source_segment(source, node.iter) or "")}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _SPLITS):
            receiver = ast.get_source_segment(source, node.func.value) or ""
            if _ENGINE_WORDS.search(receiver) or receiver in over_engines:
                found.append((node.lineno, f"{node.lineno}: {receiver}.{node.func.attr}"))
    return [hit for _line, hit in sorted(found)]


def test_the_scan_finds_the_ways_labels_were_cut():
    """The scan below is not blind: it finds each way labkit once cut an engine's words (a
    run's engine lines at their first space, a row's label at " (" and " · ", an engine's
    name at " (")."""
    old = '''
for line in run.engines:
    name, _space, rest = line.partition(" ")
name = row.engine.split(" (", 1)[0]
label = f"{self.name.split(' (')[0]} {self.version}"
text = engine.name.split(" (")[0]
'''
    assert [hit.split(": ", 1)[1] for hit in _label_splits(old)] == [
        "line.partition", "row.engine.split", "self.name.split", "engine.name.split"]


def test_no_code_under_labkit_cuts_an_engines_words_apart():
    """No module of labkit splits or partitions an engine's label, name, description or a
    run's engine lines: every part is a field where it is first known (``names.EngineInfo``,
    ``Observation.engine_key``)."""
    package = Path(labkit.__file__).parent
    hits = [f"{path.relative_to(package)}:{hit}" for path in sorted(package.rglob("*.py"))
            for hit in _label_splits(path.read_text(encoding="utf-8"))]
    assert hits == []
