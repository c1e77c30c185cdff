"""A live run's database is never dropped: its lease survives the loss of any one connection
(a role's ``idle_session_timeout``, a proxy's idle timeout, an administrator's
``pg_terminate_backend``), a run whose lease is lost learns it and says so, and the server
ending the run's own connection is one ``Error:`` line, never a traceback.

The PostgreSQL tests run as a role of their own, made for the test (the session's DSN role
makes it), so that ending every connection of that role touches no one else's work.
``idle_session_timeout`` is PostgreSQL 14's (the manual's "Client Connection Defaults": "Terminate
any session that has been idle, that is, waiting for a client query, but not within an open
transaction, for longer than the specified amount of time").
"""

from __future__ import annotations

import datetime as dt
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest
from helpers import BareServer, database_comment
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from labkit import cli, servers
from labkit.errors import ServerUnavailable
from labkit.model import keys
from labkit.servers import base, postgres

MakeRole = Callable[..., str]


def _name_of(dsn: str) -> str:
    return str(conninfo_to_dict(dsn)["dbname"])


def _databases(admin: servers.PostgresServer, role: str) -> set[str]:
    """The databases ``role`` owns (others' tests make and drop theirs meanwhile)."""
    with admin.connect() as conn:
        return {row[0] for row in conn.execute(
            "SELECT datname FROM pg_database WHERE datdba = "
            "(SELECT oid FROM pg_roles WHERE rolname = %s)", (role,))}


def _end_connections(admin: servers.PostgresServer, role: str) -> int:
    """``pg_terminate_backend`` on every connection of ``role``, as an administrator would;
    how many there were."""
    with admin.connect() as conn:
        ended = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             "WHERE usename = %s", (role,)).fetchone()
    return int(ended[0]) if ended else 0


@pytest.fixture
def make_role(postgres_server) -> Iterator[MakeRole]:
    """A factory of login roles of the test's own (CREATEDB, a superuser where asked, an
    ``idle_session_timeout`` where given), each returned as its DSN; each role and every
    database it owns are removed after the test."""
    made: list[str] = []

    def make(*, idle_timeout: str | None = None, superuser: bool = False) -> str:
        role = f"labkit_lease_{uuid.uuid4().hex[:8]}"
        password = secrets.token_urlsafe(18)
        with postgres_server.connect() as conn:
            if idle_timeout is not None and conn.info.server_version < 140000:
                pytest.skip("idle_session_timeout is PostgreSQL 14's; this server is older")
            try:
                conn.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEDB {} PASSWORD {}").format(
                    sql.Identifier(role), sql.SQL("SUPERUSER" if superuser else "NOSUPERUSER"),
                    sql.Literal(password)))
            except psycopg.errors.InsufficientPrivilege:
                pytest.skip("the session's role may not create roles")
            made.append(role)
            if idle_timeout is not None:
                conn.execute(sql.SQL("ALTER ROLE {} SET idle_session_timeout = {}").format(
                    sql.Identifier(role), sql.Literal(idle_timeout)))
        return make_conninfo(**{**conninfo_to_dict(postgres_server.dsn), "user": role,
                                "password": password})

    yield make
    with postgres_server.connect() as conn:
        for role in made:
            for name in _databases(postgres_server, role):
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(name)))
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def _role_of(dsn: str) -> str:
    return str(conninfo_to_dict(dsn)["user"])


NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
SHORT = servers.LeaseTerms(every=dt.timedelta(seconds=0.1), lasts=dt.timedelta(seconds=1))


# The lease's terms and its judgement, for both vendors ------------------------------------------


@pytest.mark.parametrize(("ends", "renewed", "over"), [
    (NOW + dt.timedelta(seconds=1), None, False),
    (NOW, None, True),
    (NOW - dt.timedelta(days=1), NOW, True),  # the end decides, however recent the renewal
    (NOW + dt.timedelta(hours=1), NOW - dt.timedelta(days=1), False),
    ((NOW + dt.timedelta(minutes=1)).replace(tzinfo=None), None, False),  # a zoneless date: UTC
    (None, NOW - servers.STALE_AFTER + dt.timedelta(seconds=1), False),  # no end: an older
    (None, NOW - servers.STALE_AFTER, True),  # labkit's, judged STALE_AFTER after its renewal
    ("tomorrow", NOW, None),  # an end that is no date: it cannot be judged
    (None, "yesterday", None),
    (None, None, None),
])
def test_a_lease_is_over_once_the_servers_clock_passes_its_end(ends, renewed, over):
    """A lease has run out once the server's clock reaches its end; a lease without one (an
    older labkit's) STALE_AFTER after its last renewal; one whose times are no dates is never
    judged (left alone)."""
    assert base.lease_over(NOW, ends, renewed) is over


def test_a_mongodb_lease_is_judged_by_its_end():
    """A MongoDB lease document whose ``expires`` is later than the server's clock is in use
    however long ago it was renewed; one whose end has passed is stale."""
    name = "labkit_lease_test_0123abcd"
    lease = {"_id": "lease", "mark": servers.mark_for(name), "renewed": NOW - dt.timedelta(days=2)}
    assert servers.lease_state({**lease, "expires": NOW + dt.timedelta(seconds=5)}, NOW,
                               name) == "in use"
    assert servers.lease_state({**lease, "expires": NOW}, NOW, name) == "stale"
    assert servers.lease_state({**lease, "expires": "soon"}, NOW, name) == "unproven"


@pytest.mark.parametrize(("comment", "end"), [
    ("labkit:v1:ab created by a labkit run on 2026-11-30T12:00:00+00:00; leased until "
     "2026-11-30T12:30:00.5+00:00; removed when it ends",
     dt.datetime(2026, 11, 30, 12, 30, 0, 500000, tzinfo=dt.UTC)),
    ("labkit:v1:ab created by a labkit run on 2026-11-30T12:00:00+00:00; removed when it ends",
     None),  # an older labkit's comment: its run held an advisory lock
    ("labkit:v1:ab; leased until 2026-11-30T12:30:00; removed", None),  # no time zone
    ("labkit:v1:ab; leased until never; removed", None),
    (None, None),
])
def test_a_postgres_comment_gives_its_leases_end(comment, end):
    """The end of the lease is read from a database's comment only where it is a date with its
    time zone; anything else holds no end (such a database is left alone)."""
    assert postgres.lease_end(comment) == end


def _as_shown(text: str) -> str:
    """``text`` as an error keeps it: every secret in force hidden (where the session's DSN
    password is "labkit", as CI's is, that word shows as ***)."""
    return servers.redact(text)


class _Leasing(BareServer):
    """A server whose renewals answer as the test says: the base's bookkeeping alone."""

    renewals: list[bool | Exception]

    def _create(self, name: str) -> str:
        made = super()._create(name)
        self._lease_sent(name)
        return made

    def _renew(self, name: str, lasts: dt.timedelta) -> bool:
        answer = self.renewals.pop(0) if self.renewals else True
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_machine_asleep_longer_than_the_lease_has_lost_it(monkeypatch):
    """Where the wall clock went on past the lease's length while the monotonic clock did not
    (Linux's stops while the machine sleeps; the server's clock does not), the lease is lost
    and the run says so, even though every renewal got through."""
    server = _Leasing(how="x", version="1")
    server.renewals = []
    name = server.fresh_database("asleep")
    try:
        server.check_lease()
        woke = time.time() + servers.STALE_AFTER.total_seconds() + 1
        monkeypatch.setattr(base.time, "time", lambda: woke)
        with pytest.raises(ServerUnavailable) as caught:
            server.check_lease()
        assert str(caught.value.message) == _as_shown(
            f"This run's database {name} on x:// lost its lease: it was not renewed for 1,800 s "
            "(no renewal got through), so `labkit clean` may drop it.")
    finally:
        server.stop()


# Renewed by hand: the renewer's thread waits an hour between its renewals.
BY_HAND = servers.LeaseTerms(every=dt.timedelta(hours=1), lasts=dt.timedelta(seconds=1))


def test_a_renewal_that_fails_costs_nothing_until_the_lease_runs_out():
    """A renewal that raises is tried again at the next one: the lease holds while the
    failures last less than its length, a renewal that gets through renews it, and once it has
    run out it is lost, with the last failure."""
    server = _Leasing(how="x", version="1", lease=BY_HAND)
    server.renewals = [ConnectionError("reset"), ConnectionError("reset"), True,
                       ConnectionError("reset again")]
    name = server.fresh_database("flaky")
    try:
        server.renew()
        server.renew()
        server.check_lease()  # two failed renewals within the lease: it holds
        time.sleep(0.6)
        server.renew()  # gets through
        time.sleep(0.6)  # 1.2 s since the database was made, 0.6 s since that renewal
        server.check_lease()
        server.renew()
        time.sleep(0.5)
        with pytest.raises(ServerUnavailable) as caught:
            server.check_lease()
        assert str(caught.value.message) == _as_shown(
            f"This run's database {name} on x:// lost its lease: it was not renewed for 1 s "
            "(ConnectionError: reset again), so `labkit clean` may drop it.")
    finally:
        server.stop()


def test_work_that_fails_after_its_lease_was_lost_says_the_loss():
    """Any failure inside ``working`` after the lease was lost (a renewal found the database
    gone) is said as that loss, the failure kept as its cause; with the lease held, the
    failure goes through as it was."""
    server = _Leasing(how="x", version="1", lease=BY_HAND)
    server.renewals = []
    name = server.fresh_database("work")
    try:
        with pytest.raises(KeyError), server.working():
            raise KeyError("t")
        server.renewals = [False]
        server.renew()
        with pytest.raises(ServerUnavailable) as caught, server.working():
            raise KeyError("t")
        assert _as_shown(f"{name} on x:// lost its lease") in str(caught.value.message)
        assert isinstance(caught.value.__cause__, KeyError)
    finally:
        server.stop()


# PostgreSQL: the lease survives the loss of a connection ---------------------------------------


@pytest.mark.postgres
def test_an_idle_timeout_does_not_make_a_live_runs_database_stale(make_role):
    """With the role's ``idle_session_timeout`` at 1 s, a run's database stays in use for a
    clean-up 2 s after it was made (the lease was an advisory lock held on an idle connection,
    which the server closed: ``labkit clean`` dropped the live database)."""
    dsn = make_role(idle_timeout="1s")
    run = servers.from_dsn(dsn)
    try:
        name = _name_of(run.fresh_database("idle"))
        time.sleep(2.0)  # past the role's idle timeout: the server closes its idle sessions
        found = servers.from_dsn(dsn).clean_stale()
        assert name in found.in_use
        assert name not in found.removed
    finally:
        run.stop()


@pytest.mark.postgres
def test_an_administrator_ending_the_runs_connections_does_not_make_it_stale(make_role,
                                                                             postgres_server):
    """``pg_terminate_backend`` on every connection of the run's role leaves its database in
    use for a clean-up (it ended the connection that held the advisory lock)."""
    dsn = make_role()
    run = servers.from_dsn(dsn)
    try:
        name = _name_of(run.fresh_database("ended"))
        _end_connections(postgres_server, _role_of(dsn))
        time.sleep(0.2)  # pg_terminate_backend signals the backend; it exits a moment later
        found = servers.from_dsn(dsn).clean_stale()
        assert name in found.in_use
        assert name in _databases(postgres_server, _role_of(dsn))
    finally:
        run.stop()


# labkit btree and labkit clean, as the learner meets them ---------------------------------------


def _pausing(monkeypatch, during: Callable[[], None], between: float = 0.0) -> None:
    """Make the B-tree load call ``during`` once, after its first batch of keys, as if a
    person acted at that moment, and wait ``between`` seconds before each batch (a slower
    load; the keys themselves are the real ones)."""
    real = keys.batches

    def batches(kind: str, n: int, size: int = 10_000) -> Iterator[list[bytes]]:
        for number, batch in enumerate(real(kind, n, size)):
            if number == 1:
                during()
            time.sleep(between)
            yield batch

    monkeypatch.setattr(keys, "batches", batches)


def _btree(n: int = 30_000) -> list[str]:
    """``labkit btree`` on PostgreSQL with ``n`` UUIDv4 keys, no progress bar."""
    return ["btree", "--engine", "postgres", "--keys", "uuid4", "--n", str(n), "--quiet",
            "--checkpoint-every", "none"]


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines[0].startswith("Error: ")
    assert err.count("Error:") == 1
    return err


@pytest.mark.postgres
def test_labkit_clean_during_a_load_keeps_the_live_database(make_role, monkeypatch, capsys):
    """``labkit clean`` with the same DSN, 2 s into ``labkit btree --engine postgres`` as a role
    whose idle sessions end after 1 s, keeps the load's database as in use and the load ends
    well (it reported the database stale and dropped it ``WITH (FORCE)``, and the load died
    with psycopg's ``AdminShutdown`` traceback)."""
    dsn = make_role(idle_timeout="1s", superuser=True)
    monkeypatch.setenv("LABKIT_POSTGRES_DSN", dsn)
    monkeypatch.delenv("LABKIT_MONGODB_URI", raising=False)
    seen: list[servers.Stale] = []

    def clean() -> None:
        time.sleep(2.0)
        [report] = servers.clean_user_servers()
        seen.append(servers.Stale(report["removed"], report["in_use"]))

    cleaner = threading.Thread(target=clean)
    # 15 batches 0.2 s apart: the load lasts 3 s, its own connection never idle for 1 s.
    _pausing(monkeypatch, cleaner.start, between=0.2)
    assert cli.main(_btree(150_000)) == 0
    cleaner.join()
    [found] = seen
    assert found.removed == []
    assert [name.startswith("labkit_btree_uuid4_") for name in found.in_use] == [True]


@pytest.mark.postgres
def test_the_server_ending_the_loads_connection_is_one_error_line(make_role, postgres_server,
                                                                  monkeypatch, capsys):
    """``pg_terminate_backend`` on the load's connection in the middle of ``labkit btree`` ends
    the command with status 1 and one ``Error:`` line naming the server (it was psycopg's
    ``AdminShutdown`` traceback), and the load's database is dropped."""
    dsn = make_role(superuser=True)
    monkeypatch.setenv("LABKIT_POSTGRES_DSN", dsn)
    _pausing(monkeypatch, lambda: _end_connections(postgres_server, _role_of(dsn)))
    assert cli.main(_btree()) == 1
    err = _one_error(capsys)
    assert "PostgreSQL" in err
    assert "terminating connection due to administrator command" in err
    assert _databases(postgres_server, _role_of(dsn)) == set()


@pytest.mark.postgres
def test_a_load_whose_database_is_dropped_says_its_lease_was_lost(make_role, postgres_server,
                                                                  monkeypatch, capsys):
    """Where someone drops the load's database ``WITH (FORCE)`` in the middle of ``labkit
    btree``, the command ends with one ``Error:`` line saying the run's database and its lease
    were lost (it was a traceback)."""
    dsn = make_role(superuser=True)
    monkeypatch.setenv("LABKIT_POSTGRES_DSN", dsn)

    def drop() -> None:
        with postgres_server.connect() as conn:
            for name in _databases(postgres_server, _role_of(dsn)):
                conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(
                    sql.Identifier(name)))

    _pausing(monkeypatch, drop)
    assert cli.main(_btree()) == 1
    err = _one_error(capsys)
    assert "lost its lease" in err
    assert "_btree_uuid4_" in err  # (a DSN password "labkit", as CI's, hides the word)


@pytest.mark.postgres
def test_the_renewer_pushes_the_lease_end_ahead_in_the_comment(make_role):
    """The run's renewals rewrite its database's comment with a later lease end, by the
    server's clock, the mark still first."""
    dsn = make_role()
    run = servers.from_dsn(dsn)
    run.lease = SHORT
    try:
        name = _name_of(run.fresh_database("renewed"))
        comment = database_comment(run, name)
        first = postgres.lease_end(comment)
        time.sleep(0.5)  # several renewals
        again = database_comment(run, name)
        assert servers.mark_verifies(name, again)
        assert first is not None
        assert postgres.lease_end(again) > first
        assert again.startswith(comment.split("; leased until ")[0])
    finally:
        run.stop()


@pytest.mark.postgres
def test_a_run_that_cannot_renew_until_its_lease_runs_out_stops(make_role, postgres_server):
    """Where no renewal gets through (the role may no longer log in: ``ALTER ROLE … NOLOGIN``)
    until the lease has run out, the run refuses to go on and says why, the server's refusal
    included; its database is dropped once it may connect again."""
    dsn = make_role()
    role = sql.Identifier(_role_of(dsn))
    run = servers.from_dsn(dsn)
    run.lease = SHORT
    try:
        name = _name_of(run.fresh_database("cut_off"))
        with postgres_server.connect() as conn:
            conn.execute(sql.SQL("ALTER ROLE {} NOLOGIN").format(role))
        time.sleep(1.2)
        with pytest.raises(ServerUnavailable) as caught:
            run.fresh_database("next")
        message = str(caught.value.message)
        assert f"_{name.partition('_')[2]} on " in message  # (CI's DSN password hides "labkit")
        assert "lost its lease: it was not renewed for 1 s (OperationalError: " in message
        assert "is not permitted to log in" in message
    finally:
        with postgres_server.connect() as conn:
            conn.execute(sql.SQL("ALTER ROLE {} LOGIN").format(role))
        run.stop()
    assert _databases(postgres_server, _role_of(dsn)) == set()


@pytest.mark.postgres
def test_an_older_labkits_database_without_a_lease_end_is_left_and_said(make_role):
    """A database of labkit's (its mark verifies) whose comment holds no lease end, as an older
    labkit wrote it when an advisory lock was the lease, is left alone with why: whether its
    run lives cannot be told."""
    dsn = make_role()
    run = servers.from_dsn(dsn)
    name = f"labkit_older_{uuid.uuid4().hex[:8]}"
    with run.connect() as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        conn.execute(sql.SQL("COMMENT ON DATABASE {} IS {}").format(
            sql.Identifier(name), sql.Literal(
                f"{servers.mark_for(name)} created by a labkit run on "
                "2026-11-30T12:00:00+00:00; removed when it ends")))
    found = run.clean_stale()
    assert found.unproven[name] == postgres.UNDATED
    assert name not in found.removed
