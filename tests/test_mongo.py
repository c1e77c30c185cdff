"""Finding and starting MongoDB, `labkit.servers.mongo`: the ways tried and what their failure
says, the clients labkit builds, the WiredTiger cache a mongod is given and the cache a server
reports, and, on a real server, that labkit makes and drops its own databases only."""

from __future__ import annotations

import math
import tempfile

import pytest
from helpers import POSIX_ONLY, others_database_name

from labkit import servers
from labkit.errors import BadInput, ServerStartError, ServerUnavailable
from labkit.experiments import catalogue as claims
from labkit.run import runner
from labkit.servers import base, mongo


def test_no_mongodb_error_names_all_three_ways(nothing_available):
    """With nothing available the error lists what was tried and how to get each way working."""
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_mongodb()
    message = str(caught.value)
    assert "LABKIT_MONGODB_URI: not set" in message
    assert "local mongod: LABKIT_MONGOD is set to " in message
    assert "no-mongod, which does not exist" in message
    assert "Docker: Docker switched off" in message
    assert message.splitlines()[-1].startswith("Hint:")
    assert "environment.yml" in message


def test_unreachable_uri_is_an_error_not_a_fallback(monkeypatch):
    """A URI that does not answer is reported; labkit does not quietly start another server."""
    port = servers.free_port()
    monkeypatch.setenv("LABKIT_MONGODB_URI",
                       f"mongodb://127.0.0.1:{port}/?serverSelectionTimeoutMS=300")
    with pytest.raises(ServerUnavailable, match="did not answer"):
        servers.get_mongodb()


def test_client_uses_standard_uuids_and_aware_dates():
    """Every client labkit builds encodes UUIDs the standard way and returns aware datetimes."""
    from bson.binary import UuidRepresentation

    client = servers.mongo_client("mongodb://127.0.0.1:1/", connect=False)
    options = client.codec_options
    assert options.uuid_representation == UuidRepresentation.STANDARD
    assert options.tz_aware is True
    client.close()


@pytest.mark.parametrize(("uri", "seconds"), [
    ("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300", 0.3),
    ("mongodb://127.0.0.1:1/?serverselectiontimeoutms=250", 0.25),  # option names: any case
    ("mongodb://127.0.0.1:1/", 5.0),
])
def test_a_uri_timeout_is_kept_and_labkit_gives_one_where_it_sets_none(uri, seconds):
    """The URI's own serverSelectionTimeoutMS wins (pymongo lets keyword options override the
    URI's, so labkit adds its 5 s only where the URI sets none; pymongo's MongoClient docs)."""
    client = servers.mongo_client(uri)
    try:
        assert client.options.server_selection_timeout == seconds
    finally:
        client.close()


BROKEN_MONGOD = """\
#!/bin/sh
if [ "$1" = "--version" ]; then echo "db version v7.0.99"; exit 0; fi
while [ $# -gt 0 ]; do
  if [ "$1" = "--logpath" ]; then echo "exception in initAndListen: disk on fire" > "$2"; fi
  shift
done
exit 48
"""


@pytest.fixture
def own_tempdir(tmp_path, monkeypatch):
    """Make labkit's temporary folders land in this test's folder, and only look there."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


@POSIX_ONLY
def test_a_mongod_that_will_not_start_is_reported_with_its_log_every_time(
        own_tempdir, tmp_path_factory, monkeypatch):
    """A local mongod that dies at start gives, in 20 runs out of 20, its log's last lines.

    The binary here is a stand-in that fails on purpose: the test is about labkit's
    error report, and no MongoDB result comes from it.
    """
    broken = tmp_path_factory.mktemp("bin") / "mongod"
    broken.write_text(BROKEN_MONGOD)
    broken.chmod(0o755)
    monkeypatch.setenv("LABKIT_MONGOD", str(broken))
    reports = []
    for _ in range(20):
        with pytest.raises(ServerStartError) as caught:
            servers.get_mongodb("local")
        reports.append(caught.value)
    assert [e.log_tail for e in reports] == ["exception in initAndListen: disk on fire"] * 20
    message = str(reports[-1])
    assert f"Started {broken} on port" in message
    assert "did not answer" in message
    assert "Last lines of its log:\nexception in initAndListen: disk on fire" in message
    assert message.splitlines()[-1].startswith("Hint:")
    assert str(reports[-1].hint).startswith("Hint: run the same mongod by hand")
    assert list(own_tempdir.iterdir()) == []  # every run's folder is removed


@POSIX_ONLY
def test_in_auto_mode_a_failed_local_start_is_one_of_the_ways_tried(own_tempdir, monkeypatch,
                                                                      tmp_path_factory):
    """In auto mode a mongod that will not start is listed, with its log, and Docker is tried."""
    broken = tmp_path_factory.mktemp("bin") / "mongod"
    broken.write_text(BROKEN_MONGOD)
    broken.chmod(0o755)
    monkeypatch.delenv("LABKIT_MONGODB_URI", raising=False)
    monkeypatch.setenv("LABKIT_MONGOD", str(broken))
    monkeypatch.setattr(base, "docker_status", lambda: (False, "Docker switched off"))
    with pytest.raises(ServerUnavailable) as caught:
        servers.get_mongodb()
    error = caught.value
    assert not isinstance(error, ServerStartError)
    tried = [str(way) for way in error.tried]
    assert [way.split(":")[0] for way in tried] == ["LABKIT_MONGODB_URI", "local mongod", "Docker"]
    assert tried[1].startswith(f"local mongod: failed to start: Started {broken} on port")
    assert "disk on fire" in tried[1]
    assert str(error.hint) == servers.MONGO_HINT
    assert list(own_tempdir.iterdir()) == []


@pytest.mark.parametrize("cache_gb", [0.1, 0.2499, 0, -1, math.nan, math.inf, 10001, "0.5",
                                      True, [0.5]])
def test_a_cache_mongod_would_refuse_is_refused_before_anything_starts(
        cache_gb, tmp_path, monkeypatch):
    """Below 0.25 GB, above 10000, NaN, infinite or not a number: BadInput naming the range."""
    ran = tmp_path / "ran"
    spy = tmp_path / "mongod"
    spy.write_text(f"#!/bin/sh\ntouch {ran}\necho 'db version v7.0.99'\n")
    spy.chmod(0o755)
    monkeypatch.setenv("LABKIT_MONGOD", str(spy))
    with pytest.raises(BadInput, match=r"from 0\.25 to 10000 GB"):
        servers.get_mongodb("local", cache_gb=cache_gb)
    assert not ran.exists()


@pytest.mark.parametrize(("given", "used"), [(None, 0.25), (0.25, 0.25), (1.5, 1.5), (2, 2.0)])
def test_the_cache_defaults_to_the_smallest_mongod_accepts(given, used):
    """No size given means 0.25 GB; a valid size is used as given."""
    assert servers.DEFAULT_CACHE_GB == 0.25
    assert servers.check_cache_gb(given) == used


GIB = 1024**3


@pytest.mark.parametrize(("status", "asked", "gb", "text"), [
    ({"wiredTiger": {"cache": {"maximum bytes configured": GIB // 4}}}, 0.25, 0.25,
     "WiredTiger cache 0.25 GB (set by labkit)"),
    ({"wiredTiger": {"cache": {"maximum bytes configured": GIB}}}, 0.25, 1.0,
     "WiredTiger cache 1 GB (labkit asked for 0.25 GB)"),
    ({}, 0.25, 0.25, "WiredTiger cache 0.25 GB (set by labkit)"),
    ({"wiredTiger": {"cache": {"maximum bytes configured": 3 * GIB // 2}}}, None, 1.5,
     "WiredTiger cache 1.5 GB (the server's own setting; labkit did not start this server)"),
    ({"ok": 1.0}, None, None,
     "WiredTiger cache: the server's own setting (not readable: serverStatus has no "
     "wiredTiger.cache section); labkit did not start this server"),
    (RuntimeError("not authorized on admin to execute command serverStatus\nmore"), None,
     None, "WiredTiger cache: the server's own setting (not readable: not authorized on admin "
     "to execute command serverStatus); labkit did not start this server"),
])
def test_the_cache_is_reported_from_what_the_server_states(status, asked, gb, text):
    """The cache comes from serverStatus's wiredTiger.cache; unreadable, the report says why."""
    size, said = mongo.cache_report(status, asked)
    assert (size, str(said)) == (gb, text)


def test_describe_names_the_cache():
    """A server's one-line description ends with its WiredTiger cache."""
    server = servers.MongoServer(uri="mongodb://u:pw@h:1/", how="uri", version="7.0.14",
                                 cache_gb=1.5, cache="WiredTiger cache 1.5 GB (x)")
    assert server.describe() == ("MongoDB 7.0.14 (uri: mongodb://u:***@h:1/; "
                                 "WiredTiger cache 1.5 GB (x))")


# What only a real MongoDB can confirm ----------------------------------------------------


@pytest.mark.mongodb
def test_fresh_database_per_experiment(mongodb_server):
    """Each fresh database has the prefix and a new name; dropping it leaves the others."""
    first = mongodb_server.fresh_database("a")
    second = mongodb_server.fresh_database("a")
    assert first.name != second.name
    assert first.name.startswith("labkit_a_")
    first.t.insert_one({"x": 1})
    second.t.insert_one({"x": 1})
    mongodb_server.drop(first.name)
    names = mongodb_server.client().list_database_names()
    assert first.name not in names
    assert second.name in names
    mongodb_server.drop(second.name)


@pytest.mark.mongodb
def test_full_run_leaves_the_users_databases_alone(mongodb_server, monkeypatch, tmp_path):
    """On a user's server (by URI), a full run creates and drops only labkit_ databases. The
    suite's other workers make and drop labkit_ databases on the same server meanwhile (issue
    44: comparing every name before and after a run of minutes failed on one shared server),
    so the names compared are the user's and this run's own, which it records."""
    client = mongodb_server.client()
    other = others_database_name()
    users = client[other]
    users.keep.insert_one({"precious": True})
    monkeypatch.setenv("LABKIT_MONGODB_URI", mongodb_server.uri)
    made: list[str] = []
    create = mongo.MongoServer._create

    def recorded(server, name):
        made.append(name)
        return create(server, name)

    monkeypatch.setattr(mongo.MongoServer, "_create", recorded)

    def users_own(names: set[str]) -> set[str]:
        return {name for name in names if not name.startswith(servers.DB_PREFIX)}

    before = set(client.list_database_names())
    try:
        with runner.Context("uri") as ctx:
            ctx.btree_n = 20_000
            runner.run(claims.registered(), ctx)
        after = set(client.list_database_names())
        assert users.keep.find_one({"precious": True}) is not None
        assert users_own(before) == users_own(after)
        assert made
        assert all(name.startswith(servers.DB_PREFIX) for name in made)
        assert not set(made) & after
    finally:
        client.drop_database(other)


@pytest.mark.mongodb
def test_a_started_mongod_really_has_the_small_cache():
    """A mongod labkit starts states a 0.25 GB WiredTiger cache in serverStatus."""
    if servers.find_mongod() is None and not servers.docker_status()[0]:
        pytest.skip("no local mongod and no Docker: labkit cannot start a mongod here")
    mode = "local" if servers.find_mongod() else "docker"
    with servers.get_mongodb(mode) as server:
        status = server.client().admin.command("serverStatus")
        assert status["wiredTiger"]["cache"]["maximum bytes configured"] == 268435456
        assert server.cache_gb == 0.25
        assert str(server.cache) == "WiredTiger cache 0.25 GB (set by labkit)"
        assert server.cache in server.describe()


@pytest.mark.mongodb
def test_a_server_by_uri_reports_its_own_cache(mongodb_server, monkeypatch):
    """On a server found by URI the cache is the server's own, and the report says so."""
    monkeypatch.setenv("LABKIT_MONGODB_URI", mongodb_server.uri)
    server = servers.get_mongodb("uri")
    try:
        assert "labkit did not start this server" in server.cache
        assert server.cache.startswith("WiredTiger cache")
    finally:
        server.stop()
