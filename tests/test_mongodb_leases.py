"""What labkit creates on a user's MongoDB is marked by a lease its run renews; a killed run's
databases go stale and are removed, and nothing without labkit's lease is ever touched."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from labkit import servers

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(("lease", "state"), [
    (None, "unmarked"),
    ({"_id": "lease"}, "unmarked"),
    ({"mark": "someone else's", "renewed": NOW}, "unmarked"),
    ({"mark": servers.MARK, "renewed": "yesterday"}, "unmarked"),
    ({"mark": servers.MARK, "renewed": NOW - dt.timedelta(minutes=1)}, "in use"),
    ({"mark": servers.MARK, "renewed": NOW - servers.STALE_AFTER + dt.timedelta(seconds=1)},
     "in use"),
    ({"mark": servers.MARK, "renewed": NOW - servers.STALE_AFTER}, "stale"),
    ({"mark": servers.MARK, "renewed": (NOW - dt.timedelta(hours=5)).replace(tzinfo=None)},
     "stale"),
])
def test_lease_states(lease, state):
    """Only a lease with labkit's mark counts; it is stale once not renewed for STALE_AFTER."""
    assert servers.lease_state(lease, NOW) == state


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
        {"_id": "lease", "mark": servers.MARK, "renewed": old})
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
