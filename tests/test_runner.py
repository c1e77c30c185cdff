"""The runner: claim kinds, verdicts per engine, the guard around each engine, exit status,
and the run's one cache of B-tree loads."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from labkit import servers
from labkit.claims.claim import (
    Claim,
    Kind,
    Observation,
    Unobservable,
    Verdict,
    claim_verdict,
    require,
)
from labkit.errors import ClaimFailed, UnknownClaim
from labkit.experiments import catalogue as claims
from labkit.lessons import notebook
from labkit.run import runner
from labkit.run.results import ClaimResult, Result, Run
from labkit.run.runner import Context


def _claim(experiment, expected=1, needs=(), judge=None, kind="behaviour") -> Claim:
    return Claim(id="X99", title="test claim", source="manual", topic="objectid",
                 expected=expected, experiment=experiment, needs=needs, judge=judge, kind=kind)


def _run(*results: ClaimResult) -> Run:
    now = dt.datetime.now(dt.UTC)
    return Run(list(results), now, now, [])


def _result(kind: str, *verdicts: str) -> ClaimResult:
    item = _claim(lambda ctx: None, kind=kind)
    return ClaimResult(item, [Result(item, v) for v in verdicts])


def test_claims_are_registered_in_claims_md_order():
    """All 31 claims are registered, ordered D, S, B, O, U, X, then by number."""
    ids = [c.id for c in claims.registered()]
    assert len(ids) == 31
    assert ids == sorted(ids, key=lambda i: ("DSBOUX".index(i[0]), int(i[1:])))


def test_survey_claims_are_the_ones_judged_per_engine():
    """U4, U5, U6 and X7 are surveys (a finding per engine); every other claim is a behaviour."""
    surveys = [c.id for c in claims.registered() if c.kind == claims.SURVEY]
    assert surveys == ["U4", "U5", "U6", "X7"]


def test_disagreement_of_a_behaviour_claim_fails():
    """A behaviour claim whose observation differs from the expectation gives ``fails``."""
    result = runner.run_claim(_claim(lambda ctx: Observation(2, "engine", "1.0")), Context())
    assert [row.verdict for row in result.rows] == [claims.FAILS]
    assert result.verdict == claims.FAILS
    assert result.rows[0].observation.observed == 2


def test_disagreement_of_a_survey_claim_is_a_finding():
    """A survey claim that does not hold on one engine is a finding there, not a failure."""
    item = _claim(lambda ctx: [Observation(1, "SQLite", "3"), Observation(0, "PostgreSQL", "15")],
                  kind="survey")
    result = runner.run_claim(item, Context())
    assert [(r.engine, r.verdict) for r in result.rows] == [("SQLite", "holds"),
                                                           ("PostgreSQL", "finding")]
    assert result.verdict == claims.FINDING


def test_crashing_experiment_is_reported_as_error_with_its_message():
    """An experiment that raises gives ``error`` and keeps the message and its type."""
    def boom(ctx):
        raise RuntimeError("the disk is on fire")

    result = runner.run_claim(_claim(boom), Context())
    assert result.verdict == claims.ERROR
    assert str(result.rows[0].reason) == "RuntimeError: the disk is on fire"


def test_judge_can_add_a_note():
    """A judge returning (bool, note) puts the note in the row's reason."""
    item = _claim(lambda ctx: Observation(1, "e", "1"), judge=lambda e, o: (e == o, "close call"))
    (row,) = runner.run_claim(item, Context()).rows
    assert (row.verdict, str(row.reason)) == (claims.HOLDS, "close call")


def test_a_crashing_judge_costs_that_engine_only():
    """A judge that raises on one engine's observation makes that row ``error``; the other
    engines keep their verdicts."""
    def judge(expected, observed):
        return 1 / observed == expected

    item = _claim(lambda ctx: [Observation(1, "A", "1"), Observation(0, "B", "1"),
                               Observation(2, "C", "1")], judge=judge, kind="survey")
    result = runner.run_claim(item, Context())
    assert [(r.engine, r.verdict) for r in result.rows] == [
        ("A", "holds"), ("B", "error"), ("C", "finding")]
    assert "ZeroDivisionError" in str(result.rows[1].reason)
    assert result.verdict == claims.ERROR


def test_an_observation_the_engine_cannot_give_is_not_run_there():
    """A judge that needs a statistic the engine does not report gives not-run with why."""
    def judge(expected, observed):
        return require(observed["fill"], "an average leaf fill", "MongoDB") == expected

    item = _claim(lambda ctx: [Observation({"fill": None}, "MongoDB", "8.0"),
                               Observation({"fill": 1}, "SQLite", "3")], judge=judge,
                  kind="survey")
    result = runner.run_claim(item, Context())
    assert [r.verdict for r in result.rows] == ["not-run", "holds"]
    assert str(result.rows[0].reason) == "MongoDB does not report an average leaf fill"
    assert result.verdict == claims.HOLDS


def test_unobservable_is_a_plain_exception():
    """``Unobservable`` is what ``require`` raises for None, and nothing for a value."""
    assert require(0, "x") == 0
    with pytest.raises(Unobservable, match="does not report x"):
        require(None, "x")


def test_missing_mongodb_gives_not_run_with_how_to_get_one(nothing_available):
    """A claim that needs MongoDB on a machine without one is not run, and says how to get one."""
    calls = []
    item = _claim(lambda ctx: calls.append(1), needs=("mongodb",))
    with Context() as ctx:
        result = runner.run_claim(item, ctx)
    assert result.verdict == claims.NOT_RUN
    assert calls == []
    for way in ("LABKIT_MONGODB_URI", "mongod", "Docker"):
        assert way in str(result.rows[0].reason)


def test_server_search_happens_once_per_run(nothing_available, monkeypatch):
    """After one failed search for MongoDB, later claims reuse the answer."""
    searches = []
    real = servers.provide
    monkeypatch.setattr(servers, "provide", lambda *a: searches.append(a) or real(*a))
    item = _claim(lambda ctx: None, needs=("mongodb",))
    with Context() as ctx:
        runner.run([item, item, item], ctx)
    assert len(searches) == 1


@pytest.mark.parametrize(("kind", "verdicts", "claim_verdict_"), [
    ("behaviour", ["holds"], "holds"),
    ("behaviour", ["fails"], "fails"),
    ("behaviour", ["not-run"], "not-run"),
    ("survey", ["holds", "finding", "not-run"], "finding"),
    ("survey", ["holds", "not-run"], "holds"),
    ("survey", ["not-run", "not-run"], "not-run"),
    ("survey", ["finding", "error"], "error"),
])
def test_a_claims_verdict_sums_up_its_rows(kind, verdicts, claim_verdict_):
    """Error outranks a failure or finding, which outranks holds; none ran is not run."""
    assert claim_verdict(verdicts) == claim_verdict_


@pytest.mark.parametrize(("results", "strict", "status"), [
    ([("behaviour", "holds")], False, 0),
    ([("behaviour", "holds"), ("behaviour", "not-run")], False, 0),
    ([("behaviour", "holds"), ("behaviour", "not-run")], True, 1),
    ([("behaviour", "fails")], False, 1),
    ([("behaviour", "error")], False, 1),
    ([("survey", "holds", "finding")], False, 0),
    ([("survey", "holds", "finding")], True, 0),
    ([("survey", "finding", "error")], False, 1),
    ([], True, 0),
])
def test_exit_status(results, strict, status):
    """0 when every behaviour claim that ran holds and nothing erred; findings never fail the
    run; --strict adds not-run claims."""
    run = _run(*(_result(kind, *verdicts) for kind, *verdicts in results))
    assert run.exit_status(strict) == status


def test_counts_are_claims_not_rows():
    """The summary counts one verdict per claim, whatever the number of engines behind it."""
    run = _run(_result("behaviour", "holds"), _result("survey", "holds", "finding", "finding"),
               _result("behaviour", "not-run"))
    assert run.summary() == "3 claims: 1 hold, 0 do not hold, 1 findings, 1 not run, 0 error"
    assert run.to_dict()["counts"] == {"hold": 1, "do not hold": 0, "findings": 1,
                                       "not run": 1, "error": 0}


def test_select_by_topic_and_id():
    """Topics and IDs narrow the claims; unknown or empty ones are refused."""
    assert {c.topic for c in claims.select(topics=["objectid"])} == {"objectid"}
    assert [c.id for c in claims.select(ids=["o3", "D2"])] == ["D2", "O3"]
    with pytest.raises(UnknownClaim, match="known"):
        claims.select(ids=["Q1"])
    with pytest.raises(UnknownClaim, match="dates"):
        claims.select(topics=["astrology"])
    for empty in ([""], [], [" ", "O3"]):
        with pytest.raises(claims.BadInput, match="at least one"):
            claims.select(ids=empty)


def test_claim_returns_verdicts_and_raises_on_disagreement(monkeypatch):
    """``labkit.claim`` returns the verdict card, and raises ClaimFailed when a claim fails."""
    assert notebook.claim("O3").verdict == claims.HOLDS
    monkeypatch.setitem(claims.REGISTRY, "X99", _claim(lambda ctx: Observation(2, "e", "1")))
    with pytest.raises(ClaimFailed, match="does not hold"):
        notebook.claim("X99")


def test_claim_shows_a_survey_finding_without_raising(monkeypatch):
    """A survey claim that does not hold on an engine is shown, not raised; an error is raised."""
    finding = _claim(lambda ctx: [Observation(1, "A", "1"), Observation(2, "B", "1")],
                     kind="survey")
    monkeypatch.setitem(claims.REGISTRY, "X99", finding)
    checked = notebook.claim("X99")
    assert checked.verdict == claims.FINDING
    assert "finding" in checked._repr_html_()
    broken = _claim(lambda ctx: [Observation(1, "A", "1"), Observation(None, "B", "1",
                                                                        error="boom")],
                    kind="survey")
    monkeypatch.setitem(claims.REGISTRY, "X99", broken)
    with pytest.raises(ClaimFailed, match="boom"):
        notebook.claim("X99")


def test_every_result_names_its_experiment_and_lesson():
    """results.json names the function behind each claim and the lesson that teaches it."""
    data = runner.run_claim(claims.get("O3"), Context()).to_dict()
    assert data["experiment"] == "labkit.experiments.objectid_anatomy.decoding_example"
    assert data["lesson"] == "notebooks/04_objectid_anatomy.ipynb"


# The run's B-tree loads ---------------------------------------------------------------


@pytest.fixture
def postgres_here(request):
    """The PostgreSQL a run finds here, as a run's provider: the session's server, which one
    worker starts once for all of its tests, where one can be had (a run left to find its own
    started and removed a PostgreSQL of its own, initdb and all, for each test); else a
    provider that says why none can, as the run's own search would."""
    try:
        server = request.getfixturevalue("postgres_server")
    except pytest.skip.Exception as missing:
        why = str(missing)

        def unavailable():
            raise servers.ServerUnavailable(why)
        return unavailable
    return lambda: server


def test_each_btree_load_is_made_once_per_run(monkeypatch, postgres_here):
    """Two claims and a lesson table asking for the same engine, kinds and N share one load."""
    from labkit.engines.btree_sqlite import SQLiteTree

    loads = []
    real = SQLiteTree.load

    def counted(self, kind, *args, **kwargs):
        loads.append(kind)
        return real(self, kind, *args, **kwargs)

    monkeypatch.setattr(SQLiteTree, "load", counted)
    with Context(btree_n=2_000, postgres_provider=postgres_here) as ctx:
        first = ctx.btree_load("sqlite", ["uuid4", "uuid7"])
        second = ctx.btree_load("sqlite", ["uuid7", "uuid4", "int"])
        runner.run(claims.select(ids=["U5", "U6"]), ctx)
        table = ctx.btree_comparison(["sqlite"], ["uuid4"])["sqlite"]
    assert sorted(loads) == ["int", "objectid", "uuid4", "uuid7"]
    by_kind = second.by_kind()
    assert by_kind["uuid4"] is first.results[0]
    assert table.results[0] is first.results[0]


def test_each_new_btree_load_is_announced_once_through_on_load():
    """``on_load``, given to the context, hears (engine, key kind, N) before each new load and
    never for a load the run already has; set as an attribute after construction it hears the
    same."""
    heard = []
    with Context(btree_n=500, on_load=lambda *said: heard.append(said)) as ctx:
        ctx.btree_load("model", ["uuid4", "int"])
        ctx.btree_load("model", ["int", "uuid7"])
    assert heard == [("model", "uuid4", 500), ("model", "int", 500), ("model", "uuid7", 500)]
    later = []
    with Context(btree_n=500) as ctx:
        ctx.on_load = lambda *said: later.append(said)
        ctx.btree_load("model", ["int"])
    assert later == [("model", "int", 500)]


def test_btree_load_is_keyed_by_n_and_model_policy():
    """A different N or split policy is a different load; the same one is reused."""
    with Context(btree_n=1_000) as ctx:
        half = ctx.btree_load("model", ["uuid7"], policy="half")
        rightmost = ctx.btree_load("model", ["uuid7"], policy="rightmost")
        bigger = ctx.btree_load("model", ["uuid7"], n=2_000, policy="half")
        again = ctx.btree_load("model", ["uuid7"], policy="half")
    assert half.results[0] is again.results[0]
    assert half.results[0].avg_leaf_fill != rightmost.results[0].avg_leaf_fill
    assert bigger.results[0].n == 2_000
    assert half.results[0].n == 1_000


def test_one_engine_failing_costs_that_engine_only(monkeypatch, postgres_here):
    """When one engine's load raises (a server that stops, a refused command), the survey's
    other engines still run and keep their verdicts, and the failure is that engine's error."""
    from labkit.engines.btree_sqlite import SQLiteTree

    def flaky(self, *args, **kwargs):
        raise RuntimeError("database disk image is malformed")

    monkeypatch.setattr(SQLiteTree, "load", flaky)
    with Context(btree_n=2_000, postgres_provider=postgres_here) as ctx:
        result = runner.run_claim(claims.get("U6"), ctx)
    rows = {str(row.engine): row for row in result.rows}
    assert rows["SQLite"].verdict == claims.ERROR
    assert "database disk image is malformed" in str(rows["SQLite"].reason)
    assert rows["model (50/50 splits)"].verdict == claims.FINDING
    assert rows["model (rightmost splits)"].observation.observed["uuid4_fill"] > 0.6
    assert result.verdict == claims.ERROR


def test_btree_n_comes_from_the_environment_or_the_default(monkeypatch):
    """LABKIT_BTREE_N sets the run's N; unset, the one default; malformed, a clear error."""
    from labkit.engines.btree_engine import DEFAULT_N

    monkeypatch.delenv("LABKIT_BTREE_N", raising=False)
    assert Context().btree_n == DEFAULT_N
    monkeypatch.setenv("LABKIT_BTREE_N", "5000")
    assert Context().btree_n == 5000
    for bad in ("abc", "0", "-5"):
        monkeypatch.setenv("LABKIT_BTREE_N", bad)
        with pytest.raises(claims.BadInput, match="LABKIT_BTREE_N"):
            Context()


def test_a_lessons_exercise_and_its_verdict_card_share_one_run_of_the_claim(monkeypatch):
    """An exercise built on a claim and ``labkit.claim`` of that claim run its experiment once
    per kernel, so the answer judged and the card shown come from the same observation."""
    import dataclasses

    from labkit import Exercise

    calls = []

    def experiment(ctx):
        calls.append(1)
        return Observation({"seconds": len(calls)}, "engine", "1")

    counted = dataclasses.replace(claims.get("O3"), experiment=experiment,
                                  expected={"seconds": 1})
    monkeypatch.setitem(claims.REGISTRY, "O3", counted)
    ctx = Context()
    monkeypatch.setattr(notebook, "session", lambda: ctx)
    exercise = Exercise.from_claim("O3", "how many?", pick=lambda o: o["seconds"], hint="h",
                                   explanation="e")
    assert exercise.answer() == 1
    assert notebook.claim("O3").result.rows[0].observation.observed == {"seconds": 1}
    assert calls == [1]


def test_verdicts_and_kinds_are_closed_sets_stored_as_their_old_strings():
    """Verdicts and claim kinds are enums whose values are the strings results.json always
    stored, so a results file reads the same and JSON writes them as plain strings."""
    assert [v.value for v in Verdict] == ["holds", "fails", "finding", "not-run", "error"]
    assert [k.value for k in Kind] == ["behaviour", "survey"]
    assert json.dumps({"verdict": Verdict.NOT_RUN}) == '{"verdict": "not-run"}'
    assert f"{Verdict.FAILS}" == "fails"
    assert claim_verdict(["not-run", "holds"]) is Verdict.HOLDS
    assert claim_verdict([]) is Verdict.NOT_RUN
    assert all(isinstance(c.kind, Kind) for c in claims.registered())
