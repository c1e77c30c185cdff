"""Fixtures: one real server per test session, a fresh database per test."""

from __future__ import annotations

import os
import signal

import pytest

from labkit import i18n, servers
from labkit.i18n import Text, english


def skip_unless_required(kind: str, reason: Text) -> None:
    """Skip with the reason, unless LABKIT_REQUIRE names ``kind``: then a missing engine fails.

    .ci/run sets LABKIT_REQUIRE=postgres,wiredtiger,chromium and the workflow's MongoDB jobs
    LABKIT_REQUIRE=mongodb, so those tests can never be skipped there.
    """
    reason = english(reason)  # a labkit message (``servers.mongodb_missing``) in English
    required = {k.strip() for k in os.environ.get("LABKIT_REQUIRE", "").split(",")}
    if kind in required:
        pytest.fail(f"{kind} is required here (LABKIT_REQUIRE) but missing: {reason}")
    pytest.skip(reason)


# The tests run as a command run from a terminal's foreground: Ctrl-C raises
# KeyboardInterrupt. Started as a background job of a shell without job control (`make test &`,
# nohup in a script), Python inherits SIGINT ignored and keeps it so, and labkit rightly leaves
# an ignored Ctrl-C ignored (``_signals``): the tests that send this process Ctrl-C then failed
# (test_safe_writes.py's two interrupt tests, in a clean clone's .ci/run started so). A test
# of the ignored case sets SIG_IGN itself; the processes tests start set their own
# (``helpers``).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def language_from_the_environment(monkeypatch):
    """Each test starts with no language chosen in the process (``labkit.language``), so the
    language is LABKIT_LANG's: a test that chose one never leaves it to the next test on its
    worker (test_explain's Vietnamese test failed after one that chose English)."""
    monkeypatch.setattr(i18n, "_chosen", None)


@pytest.fixture(scope="session", autouse=True)
def labkit_config_dir(tmp_path_factory):
    """The suite's own configuration folder (``LABKIT_CONFIG_DIR``), so that its secret, the key
    of labkit's mark, is made there and never in the user's; subprocesses inherit it. Every
    xdist worker of one session shares it (their base folders' parent), as the processes of
    one installation share theirs."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "labkit-config"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(servers.CONFIG_VARIABLE, str(folder))
        yield folder


@pytest.fixture
def nothing_available(monkeypatch, tmp_path):
    """A machine with no way to MongoDB or PostgreSQL, whatever this one has."""
    for name in ("LABKIT_MONGODB_URI", "LABKIT_POSTGRES_DSN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LABKIT_MONGOD", str(tmp_path / "no-mongod"))
    monkeypatch.setenv("PATH", str(tmp_path))
    switch_off_docker_and_local_postgres(monkeypatch)


def switch_off_docker_and_local_postgres(monkeypatch) -> None:
    """No Docker and no local PostgreSQL binaries, wherever labkit looks them up: in the module
    that holds each (the ways to a server call it there) and in ``servers`` (``doctor`` does)."""
    from labkit.servers import base, postgres

    for module in (servers, base):
        monkeypatch.setattr(module, "docker_status", lambda: (False, "Docker switched off"))
    for module in (servers, postgres):
        monkeypatch.setattr(module, "find_postgres_bin", lambda: None)


@pytest.fixture(scope="session")
def mongodb_server():
    """One real MongoDB server for the session; the test is skipped, with why, when none exists."""
    why = servers.mongodb_missing()
    if why is not None:
        skip_unless_required("mongodb", why)
    server = servers.get_mongodb()
    yield server
    server.stop()


@pytest.fixture
def fresh_db(mongodb_server):
    """A new ``labkit_`` database on the session's server, dropped after the test."""
    database = mongodb_server.fresh_database("test")
    yield database
    mongodb_server.drop(database.name)


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL server for the session (DSN, local binaries or Docker), or a skip."""
    try:
        server = servers.get_postgres()
    except servers.ServerStartError:
        raise
    except servers.ServerUnavailable as exc:
        skip_unless_required("postgres", f"no PostgreSQL server: {exc.summary()}")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def wiredtiger_binding():
    """The embedded WiredTiger binding, or a skip saying how to install it."""
    from labkit.engines import btree_wiredtiger

    try:
        return btree_wiredtiger.wiredtiger_module()
    except servers.ServerUnavailable as exc:
        skip_unless_required("wiredtiger", exc.summary())


@pytest.fixture(scope="session", autouse=True)
def postgres_canary(labkit_config_dir):
    """On a user's PostgreSQL (``LABKIT_POSTGRES_DSN``), plant canaries before the suite and
    fail it if any database or table labkit did not create changed by its end."""
    if not os.environ.get("LABKIT_POSTGRES_DSN"):
        yield None
        return
    import canary

    server = servers.get_postgres("dsn")
    name = canary.plant(server)
    before = canary.fingerprint(server, name)
    yield name
    try:
        after = canary.fingerprint(server, name)
        assert after == before, f"the suite changed what labkit did not create: {after}"
    finally:
        canary.remove(server, name)
        server.stop()


def _no_server():
    raise servers.ServerUnavailable("no server here. Hint: set LABKIT_MONGODB_URI")


def _offline(kind: str):
    def unavailable():
        raise servers.ServerUnavailable(f"no {kind}: this run is offline on purpose")
    return unavailable


@pytest.fixture(scope="session")
def offline_run():
    """A real run (``runner.run``) of every claim in one context with no MongoDB or PostgreSQL,
    on 3,000-key B-tree loads, made once for the tests that only read its results
    (tests/test_report.py, tests/test_lesson_claims.py and tests/test_btree_keys.py, one unit
    of work under the root conftest.py): its ID-making processes alone wait several seconds
    for shared seconds."""
    from labkit.experiments import catalogue as claims
    from labkit.run import runner

    with runner.Context(btree_n=3_000, mongodb_provider=_offline("mongodb"),
                        postgres_provider=_offline("postgres")) as ctx:
        return runner.run(claims.registered(), ctx)


@pytest.fixture(scope="session")
def offline_session():
    """One kernel session (``runner.Context``) with no MongoDB or PostgreSQL and 2,000-key
    B-tree loads, shared by the tests that only read its claims' results: it runs each claim
    once (lesson 05's O6 starts four processes and waits for a shared second, about 5 s; 06's
    loads take a second) instead of once per test. A test that changes a session's state
    makes its own."""
    from labkit.run import runner

    ctx = runner.Context(btree_n=2_000, mongodb_provider=_no_server, postgres_provider=_no_server)
    yield ctx
    ctx.close()


@pytest.fixture
def wire_server(request):
    """A scripted MongoDB (``mongo_wire.WireServer``) answering ``ping`` and ``buildInfo``,
    for the ``wire`` tests; its version is 7.0 unless the test is parametrized indirectly
    (``@pytest.mark.parametrize("wire_server", mongo_wire.SERIES, indirect=True)`` for every
    series the workflow runs). The test
    fails if labkit sent a command no rule answered."""
    from mongo_wire import WireServer

    server = WireServer(version=getattr(request, "param", "7.0")).start().standalone()
    yield server
    server.stop()
    unscripted = [f"{s.name} on {s.db}" for s in server.unscripted]
    assert not unscripted, f"labkit sent commands no rule answered: {unscripted}"


@pytest.fixture
def kernel(monkeypatch, tmp_path):
    """A fresh offline kernel for a lesson's cells: no MongoDB or PostgreSQL, no exercise made
    or tried, no note shown, English; its one context is the session the lessons ask for."""
    from helpers import fresh_lab, offline

    from labkit import i18n
    from labkit.run import runner

    monkeypatch.setenv("LABKIT_PROGRESS", str(tmp_path / "progress.json"))
    monkeypatch.setattr(i18n, "_chosen", None)
    ctx = runner.Context(btree_n=1_000, mongodb_provider=offline, postgres_provider=offline)
    fresh_lab(monkeypatch, ctx)
    yield ctx
    ctx.close()
