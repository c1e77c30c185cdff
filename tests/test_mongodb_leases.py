"""What labkit creates on a user's MongoDB is marked by a lease its run renews; a killed run's
databases go stale and are removed, and nothing without labkit's lease is ever touched.
MongoDB has no owners and any client may write a lease: only a mark made with this
installation's secret for that database's name proves (issue 18, "a forged MongoDB lease")."""

from __future__ import annotations

import datetime as dt
import os
import uuid

import pytest

from labkit import servers

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
NAME = "labkit_lease_test_0123abcd"
REAL = object()  # stands for this installation's real mark for NAME, made in the test
LONG_AGO = NOW - dt.timedelta(days=3)


def _lease(mark, renewed):
    """A lease document for NAME (REAL: this installation's mark, made when the test runs)."""
    return {"_id": "lease", "mark": servers.mark_for(NAME) if mark is REAL else mark,
            "renewed": renewed}


@pytest.mark.parametrize(("lease", "state"), [
    (None, "unmarked"),
    ({"_id": "lease"}, "unmarked"),
    ({"mark": "someone else's", "renewed": NOW}, "unmarked"),
    ((REAL, "yesterday"), "unproven"),
    ((REAL, NOW - dt.timedelta(minutes=1)), "in use"),
    ((REAL, NOW - servers.STALE_AFTER + dt.timedelta(seconds=1)), "in use"),
    ((REAL, NOW - servers.STALE_AFTER), "stale"),
    ((REAL, (NOW - dt.timedelta(hours=5)).replace(tzinfo=None)), "stale"),
])
def test_lease_states(lease, state):
    """Only a lease whose mark is this installation's for the database's name counts; it is
    stale once not renewed for STALE_AFTER."""
    if isinstance(lease, tuple):
        lease = _lease(*lease)
    assert servers.lease_state(lease, NOW, NAME) == state


@pytest.mark.parametrize(("forged", "why"), [
    (servers.MARK, "bare labkit: (issue 18: the old mark any client could write)"),
    (f"{servers.MARK} created by a labkit run", "the old comment's words"),
    ("labkit:v1:" + "0" * 64, "the right form, a made-up digest"),
    ("COPY", "a real mark copied from another database's lease"),
    ("OTHER", "another installation's mark for this very name"),
])
def test_a_forged_lease_is_never_stale(forged, why, tmp_path, monkeypatch):
    """A forged lease (issue 18), however long ago it claims to have been renewed, is
    "unproven": left alone, never "stale"."""
    if forged == "COPY":
        forged = servers.mark_for("labkit_lease_test_other_name")
    elif forged == "OTHER":
        home = os.environ[servers.CONFIG_VARIABLE]
        monkeypatch.setenv(servers.CONFIG_VARIABLE, str(tmp_path / "another-installation"))
        forged = servers.mark_for(NAME)
        monkeypatch.setenv(servers.CONFIG_VARIABLE, home)
    assert servers.lease_state(_lease(forged, LONG_AGO), NOW, NAME) == "unproven", why
    assert servers.lease_state(_lease(REAL, LONG_AGO), NOW, NAME) == "stale"


def test_a_forged_lease_of_another_type_is_never_stale():
    """A mark that is not a string (a number, a document, a list holding the real mark) counts
    as no mark: never touched."""
    for forged in (1, {"mark": servers.MARK}, [servers.mark_for(NAME)], b"labkit:"):
        assert servers.lease_state(_lease(forged, LONG_AGO), NOW, NAME) == "unmarked"


def test_renewal_is_much_more_frequent_than_staleness():
    """A live run renews many times within the stale window, so a slow renewal is never taken
    for a dead run."""
    assert servers.STALE_AFTER >= 10 * servers.RENEW_EVERY


@pytest.mark.mongodb
def test_stale_databases_are_removed_and_others_kept(mongodb_server, monkeypatch):
    """On a server reached by URI: a marked database not renewed for long is dropped, an
    unmarked labkit_ one and a live one are kept (needs a real MongoDB server)."""
    client = mongodb_server.client()
    tag = uuid.uuid4().hex[:8]
    stale, unmarked = f"labkit_stale_{tag}", f"labkit_unmarked_{tag}"
    old = client.admin.command("hello")["localTime"] - servers.STALE_AFTER * 2
    client[stale][servers.LEASE_COLLECTION].insert_one(
        {"_id": "lease", "mark": servers.mark_for(stale), "renewed": old})
    client[unmarked].keep.insert_one({"x": 1})
    user = servers.from_uri(mongodb_server.uri)
    try:
        live = user.fresh_database("live")
        found = user.cleaned
        names = client.list_database_names()
        assert stale in found.removed
        assert stale not in names
        assert unmarked in names
        assert unmarked not in found.removed
        assert live.name in names
    finally:
        user.stop()
        client.drop_database(unmarked)
        client.drop_database(stale)


@pytest.mark.mongodb
def test_forged_leases_on_databases_holding_data_survive_a_clean_up(mongodb_server, capsys,
                                                                    monkeypatch):
    """Issue 18's forged MongoDB leases, each on a database holding data and renewed long ago
    by its own word: a bare ``labkit:`` mark, a real mark copied from another name, another
    installation's mark. ``clean_stale`` and ``labkit clean`` leave every one, data intact,
    and say so; a real stale lease beside them is removed (needs a real MongoDB server)."""
    from labkit import cli

    client = mongodb_server.client()
    tag = uuid.uuid4().hex[:8]
    old = client.admin.command("hello")["localTime"] - servers.STALE_AFTER * 2
    real, bare, copied, other = (f"labkit_{kind}_{tag}" for kind in
                                 ("real", "forged_bare", "forged_copy", "forged_other"))
    home = os.environ[servers.CONFIG_VARIABLE]
    monkeypatch.setenv(servers.CONFIG_VARIABLE, home + "-another-installation")
    theirs = servers.mark_for(other)
    monkeypatch.setenv(servers.CONFIG_VARIABLE, home)
    marks = {real: servers.mark_for(real), bare: servers.MARK,
             copied: servers.mark_for(real), other: theirs}
    data = [{"_id": i, "note": f"row {i}"} for i in range(100)]
    for name, mark in marks.items():
        client[name][servers.LEASE_COLLECTION].insert_one(
            {"_id": "lease", "mark": mark, "renewed": old})
        client[name].precious.insert_many(data)
    forged = [bare, copied, other]
    try:
        user = servers.from_uri(mongodb_server.uri)
        try:
            found = user.clean_stale()
        finally:
            user.stop()
        assert found.removed == [real]
        assert sorted(found.unproven) == sorted(forged)
        monkeypatch.setenv("LABKIT_MONGODB_URI", mongodb_server.uri)
        monkeypatch.delenv("LABKIT_POSTGRES_DSN", raising=False)
        assert cli.main(["clean"]) == 0
        out = capsys.readouterr().out
        names = client.list_database_names()
        assert real not in names
        for name in forged:
            assert name in names
            assert name in out
            assert list(client[name].precious.find().sort("_id", 1)) == data
    finally:
        for name in marks:
            client.drop_database(name)
