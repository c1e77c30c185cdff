"""The claims runner: registration, verdicts, not-run reasons, errors and exit status."""

from __future__ import annotations

import datetime as dt

import pytest

from labkit import claims, servers
from labkit.claims import Claim, Context, Observation
from labkit.errors import ClaimFailed, UnknownClaim

OFFLINE = ["D2", "O1", "O2", "O3", "O4", "O5", "O6", "O10", "U1", "U2", "U3", "X6"]
ON_MONGODB = [c.id for c in claims.registered() if "mongodb" in c.needs]


def _claim(experiment, expected=1, needs=(), judge=None) -> Claim:
    return Claim(id="X99", title="test claim", source="manual", topic="objectid",
                 expected=expected, experiment=experiment, needs=needs, judge=judge)


def test_offline_claims_are_registered_in_claims_md_order():
    """The offline claims are registered, ordered D, S, B, O, U, X, then by number."""
    ids = [c.id for c in claims.registered()]
    assert [i for i in ids if i in OFFLINE] == OFFLINE
    assert ids == sorted(ids, key=lambda i: ("DSBOUX".index(i[0]), int(i[1:])))


@pytest.mark.parametrize("claim_id", OFFLINE)
def test_offline_claim_holds_on_a_live_run(claim_id):
    """Each offline claim's experiment runs and agrees with CLAIMS.md, naming its engine."""
    with Context() as ctx:
        (result,) = claims.run_claim(claims.get(claim_id), ctx)
    assert result.verdict == claims.HOLDS, str(result)
    assert result.engine and result.engine_version
    assert result.to_dict()["engine_version"] == result.engine_version


@pytest.mark.mongodb
@pytest.mark.parametrize("claim_id", ON_MONGODB)
def test_server_claim_holds_on_a_real_server(claim_id, mongodb_server):
    """Each claim that needs MongoDB agrees with CLAIMS.md on the session's real server."""
    with Context(mongodb_provider=lambda: mongodb_server) as ctx:
        results = claims.run_claim(claims.get(claim_id), ctx)
    for result in results:
        assert result.verdict == claims.HOLDS, str(result)
        assert result.engine == "MongoDB"
        assert result.engine_version == mongodb_server.version


def test_disagreement_is_reported_as_fails():
    """An observation that differs from the expectation gives ``fails``, not an exception."""
    item = _claim(lambda ctx: Observation(2, "engine", "1.0"))
    (result,) = claims.run_claim(item, Context())
    assert result.verdict == claims.FAILS
    assert result.observation.observed == 2


def test_crashing_experiment_is_reported_as_error_with_its_message():
    """An experiment that raises gives ``error`` and keeps the message."""
    def boom(ctx):
        raise RuntimeError("the disk is on fire")

    (result,) = claims.run_claim(_claim(boom), Context())
    assert result.verdict == claims.ERROR
    assert "the disk is on fire" in result.reason


def test_judge_can_add_a_note():
    """A judge returning (bool, note) puts the note in the result's reason."""
    item = _claim(lambda ctx: Observation(1, "e", "1"), judge=lambda e, o: (e == o, "close call"))
    (result,) = claims.run_claim(item, Context())
    assert (result.verdict, result.reason) == (claims.HOLDS, "close call")


def test_one_verdict_per_engine():
    """An experiment returning several observations gets one verdict each."""
    item = _claim(lambda ctx: [Observation(1, "SQLite", "3"), Observation(0, "PostgreSQL", "15")])
    results = claims.run_claim(item, Context())
    assert [(r.engine, r.verdict) for r in results] == [("SQLite", "holds"),
                                                        ("PostgreSQL", "fails")]


def test_missing_mongodb_gives_not_run_with_how_to_get_one(nothing_available):
    """A claim that needs MongoDB on a machine without one is not run, and says how to get one."""
    calls = []
    item = _claim(lambda ctx: calls.append(1), needs=("mongodb",))
    with Context() as ctx:
        (result,) = claims.run_claim(item, ctx)
    assert result.verdict == claims.NOT_RUN
    assert calls == []
    for way in ("LABKIT_MONGODB_URI", "mongod", "Docker"):
        assert way in result.reason


def test_server_search_happens_once_per_run(nothing_available, monkeypatch):
    """After one failed search for MongoDB, later claims reuse the answer."""
    searches = []
    real = servers.get_mongodb
    monkeypatch.setattr(servers, "get_mongodb", lambda *a: searches.append(a) or real(*a))
    item = _claim(lambda ctx: None, needs=("mongodb",))
    with Context() as ctx:
        claims.run([item, item, item], ctx)
    assert len(searches) == 1


@pytest.mark.parametrize("verdicts, strict, status", [
    (["holds"], False, 0), (["holds", "not-run"], False, 0), (["holds", "not-run"], True, 1),
    (["fails"], False, 1), (["error"], False, 1), ([], True, 0),
])
def test_exit_status(verdicts, strict, status):
    """0 when every claim that ran agreed; 1 on fails or error; --strict adds not-run."""
    item = _claim(lambda ctx: None)
    now = dt.datetime.now(dt.UTC)
    run = claims.Run([claims.Result(item, v) for v in verdicts], now, now, [])
    assert run.exit_status(strict) == status


def test_select_by_topic_and_id():
    """Topics and IDs narrow the claims; unknown ones are refused with the known list."""
    assert {c.topic for c in claims.select(topics=["objectid"])} == {"objectid"}
    assert [c.id for c in claims.select(ids=["o3", "D2"])] == ["D2", "O3"]
    with pytest.raises(UnknownClaim, match="known"):
        claims.select(ids=["Q1"])
    with pytest.raises(UnknownClaim, match="dates"):
        claims.select(topics=["astrology"])


def test_check_returns_verdicts_and_raises_on_disagreement(monkeypatch):
    """``labkit.check`` returns the verdict card, and raises ClaimFailed when a claim fails."""
    assert claims.check("O3")[0].verdict == claims.HOLDS
    monkeypatch.setitem(claims.REGISTRY, "X99", _claim(lambda ctx: Observation(2, "e", "1")))
    with pytest.raises(ClaimFailed, match="does not hold"):
        claims.check("X99")


@pytest.fixture(scope="module")
def btree_verdicts():
    """U4-U7 and X7 judged on small real loads: {(claim, engine): result}."""
    with Context() as ctx:
        ctx.btree_n = 30_000
        results = claims.run(claims.select(ids=["U4", "U5", "U6", "U7", "X7"]), ctx).results
    return {(r.claim.id, r.engine): r for r in results}


@pytest.mark.parametrize("claim_id, engine, verdict", [
    ("U4", "model (50/50 splits)", "fails"),  # sequential pages end half full under 50/50
    ("U4", "model (rightmost splits)", "holds"),
    ("U6", "model (50/50 splits)", "fails"),  # random fill is near ln 2, not 50%
    ("U6", "SQLite", "fails"),
])
def test_btree_claims_are_judged_per_engine(btree_verdicts, claim_id, engine, verdict):
    """The same claim gets its own verdict on each engine, from that engine's measurement."""
    result = btree_verdicts[(claim_id, engine)]
    assert result.verdict == verdict, str(result)
    assert result.reason.startswith("N = 30,000 keys per kind")


@pytest.mark.postgres
def test_btree_claims_on_postgres(btree_verdicts):
    """On PostgreSQL sequential leaves end about 90% full and random ones well below."""
    assert btree_verdicts[("U4", "PostgreSQL")].verdict == "holds"
    assert btree_verdicts[("U6", "PostgreSQL")].verdict == "fails"
    assert btree_verdicts[("U5", "PostgreSQL")].observation.observed["random_larger_by"] > 0.2
    u7 = btree_verdicts[("U7", "PostgreSQL")]
    if u7.verdict == "not-run":
        assert "18" in u7.reason
    else:
        assert u7.verdict == "holds"


def test_missing_engine_is_not_run_for_that_engine_only(btree_verdicts):
    """An engine that cannot be had gives not-run for that engine, with how to get it."""
    for (claim_id, engine), result in btree_verdicts.items():
        if result.verdict == "not-run":
            assert result.reason, (claim_id, engine)
        else:
            assert result.observation.engine_version, (claim_id, engine)
