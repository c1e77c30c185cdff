"""The ObjectId lessons' MongoDB paths over the wire (claims O7, O8, O9 of lesson 05): labkit's
own experiment code, unmodified, speaks through real pymongo to MockupDB answering by script.

Lesson 04 (``objectid_anatomy``: O1-O5, O10) has no MongoDB path: its claims and its batch of
IDs made in a fresh process (O5) need no server, so nothing of it is here.

Each test asserts what labkit sends (command names, options, documents with their BSON types)
and how it judges a reply: the reply the source recorded on a real server (scripted, and labelled
so in a comment) and a reply that disagrees. The verdicts here check labkit's judging of a reply,
never MongoDB: the scripted server knows nothing of MongoDB's rules (it does not sort, count or
generate IDs), and no verdict a user sees comes from it. O9's ID-making processes
(``engines/processes.py``, each running ``engines/idworker.py``) connect to the scripted server
themselves, with its URI, and their commands are recorded beside the parent's.

The write replies' shapes (``update``, ``insert``, ``delete``) and the cursor replies (``find``,
``aggregate``) are the same in 6.0, 7.0 and 8.0; the live tests at the end ask a real server the
same commands and compare fields and types.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import time
from typing import Any

import pytest
from bson import Int64, ObjectId
from mongo_wire import (
    SERIES,
    Sent,
    WireServer,
    counted,
    cursor_reply,
    inserted,
    same_shape,
    unauthorized,
    update_reply,
    upserted,
    write_reply,
)
from wire_replies import (
    DATABASE_DROPPED,
    HOSTED_USER,
    LEASE_UPSERTED,
    OWN_DATABASES,
    UNAUTHENTICATED,
    run_claim,
    script_fresh_databases,
    script_from_uri,
    status,
)

from labkit.claims.claim import ERROR, FAILS, HOLDS
from labkit.engines import processes
from labkit.errors import LabkitError
from labkit.experiments import objectid_ordering
from labkit.model import objectid
from labkit.servers import mongo

wire = pytest.mark.wire

# --- The source's recorded results, scripted ----------------------------------------------

# O7: the chapter's upsert without _id on a real server gave 6ac711f6 1202b55ba5 d6ca57 (the
# course chapter "BSON & ObjectId, part 2/3"); labkit upserts twice, so the second reply is the
# next ID the same mongod makes (its counter one higher).
RECORDED_SERVER_IDS = (ObjectId("6ac711f61202b55ba5d6ca57"), ObjectId("6ac711f61202b55ba5d6ca58"))
RECORDED_CLIENT_ID = ObjectId("6ac711f6acb1910cc6ad711b")  # mongosh's, in the same second

# O9: the chapter's run that landed both processes in one second, as sort({_id: 1}) returned
# it: B (random a9fded4f0c) inserted about 250 ms after A (d1375a74bd) yet sorts first. The
# clock of each insert is the one the chapter printed (03:46:09.591 ... .850 on 2026-10-08).
_O9_SECOND = dt.datetime(2026, 10, 8, 3, 46, 9, tzinfo=dt.UTC)
RECORDED_O9 = [(label, ObjectId(hex_id), ms) for label, hex_id, ms in (
    ("B", "6ac71201a9fded4f0c2e7ec8", 844), ("B", "6ac71201a9fded4f0c2e7ec9", 849),
    ("B", "6ac71201a9fded4f0c2e7eca", 850), ("A", "6ac71201d1375a74bd43981a", 591),
    ("A", "6ac71201d1375a74bd43981b", 609), ("A", "6ac71201d1375a74bd43981c", 610))]


def _o9_documents(rows=RECORDED_O9) -> list[dict[str, Any]]:
    """The documents idworker inserts ({_id, process, inserted_at, inserted_ns}) for ``rows``."""
    docs = []
    for label, oid, ms in rows:
        moment = _O9_SECOND + dt.timedelta(milliseconds=ms)
        docs.append({"_id": oid, "process": label, "inserted_at": moment,
                     "inserted_ns": Int64(int(moment.timestamp()) * 10**9 + ms * 10**6)})
    return docs


# --- The scripted server and a run on it ----------------------------------------------------


@pytest.fixture
def mongodb(wire_server: WireServer):
    """labkit's MongoServer for the scripted server, found by URI as a user's server is: the
    user notebooks/hosted.md asks for (readWriteAnyDatabase and dbAdminAnyDatabase), serverStatus
    refused (that user lacks clusterMonitor), nothing of labkit's left on it, the lease and the
    database's drop answered. The server layer's own commands are other tests' subject; these
    tests assert what the claim's database gets."""
    script_from_uri(wire_server, status(*HOSTED_USER))
    script_fresh_databases(wire_server)
    server = mongo.from_uri(wire_server.uri)
    yield server
    server.stop()


def claim_database(wire_server: WireServer) -> str:
    """The database the claim's run created: the one its lease went into."""
    (lease,) = [s for s in wire_server.named("update") if s["update"] == mongo.LEASE_COLLECTION]
    return lease.db


def experiment_commands(wire_server: WireServer) -> list[Sent]:
    """What the experiment itself sent to its database, in order: every command there after
    the lease's upsert and before the database's drop, which must come last."""
    name = claim_database(wire_server)
    there = [s for s in wire_server.sent if s.db == name]
    assert there[0].name == "update"
    assert there[0]["update"] == mongo.LEASE_COLLECTION
    assert there[-1].name == "dropDatabase", [s.name for s in there]
    return there[1:-1]


# --- O7: an _id the server generates ----------------------------------------------------------


@wire
@pytest.mark.parametrize("wire_server", SERIES, indirect=True)
def test_o7_upserts_without_an_id_and_holds_on_the_recorded_reply(wire_server, mongodb):
    """O7 sends two ``update`` commands on ``seq``, each one statement with upsert true, its
    filter and ``$set`` holding no _id (so the server must generate it) and ``at`` a BSON date;
    on the source's recorded server-made IDs in the documented upsert reply it holds, its
    evidence quoting those IDs and the version buildInfo gave."""
    replies = iter(RECORDED_SERVER_IDS)
    wire_server.on("update", lambda s: upserted(next(replies)),
                   match=lambda s: s["update"] == "seq")
    started = dt.datetime.now(dt.UTC)

    (row,) = run_claim(mongodb, "O7").rows

    sent = experiment_commands(wire_server)
    assert [s.name for s in sent] == ["update", "update"]
    for i, command in enumerate(sent, start=1):
        body = command.as_written()
        (statement,) = body.pop("updates")
        assert body == {"update": "seq", "ordered": True}
        at = statement["u"]["$set"]["at"]
        assert statement == {"q": {"proc": f"server{i}"}, "u": {"$set": {"at": at}},
                             "multi": False, "upsert": True}
        assert isinstance(at, dt.datetime)  # a BSON date (MockupDB decodes it naive, in UTC)
        assert started - dt.timedelta(seconds=1) <= at.replace(tzinfo=dt.UTC) \
            <= dt.datetime.now(dt.UTC)
    assert row.verdict == HOLDS, row.reason
    assert row.engine_version == wire_server.release
    servers_rows = [r for r in row.observation.evidence if r["made_by"] == "server"]
    assert [r["hex"] for r in servers_rows] == [str(i) for i in RECORDED_SERVER_IDS]


@wire
@pytest.mark.parametrize(("reply_ids", "differs"), [
    pytest.param("this process", {"server_random_differs_from_client"},
                 id="IDs carrying the client's random value"),
    pytest.param((RECORDED_SERVER_IDS[0], RECORDED_CLIENT_ID), {"server_ids_share_random"},
                 id="two IDs with different random values"),
    pytest.param((None, None), {"server_generated", "server_random_differs_from_client",
                                "server_ids_share_random"}, id="no upserted entry"),
    pytest.param(("lease", "lease"), {"server_generated", "server_random_differs_from_client",
                                      "server_ids_share_random"}, id="an _id that is a string"),
])
def test_o7_fails_on_a_reply_that_disagrees(wire_server, mongodb, reply_ids, differs):
    """O7 fails, naming what differs, where the upsert reply's IDs carry this client's random
    value, carry two random values, are missing (no ``upserted``: ``{n: 1, nModified: 1}``) or
    are no ObjectId: a verdict on what the server said, never an error."""
    def reply(_sent: Sent) -> dict[str, Any]:
        _id = next(ids)
        return update_reply(n=1, modified=1) if _id is None else upserted(_id)

    ids = iter([ObjectId(), ObjectId()] if reply_ids == "this process" else reply_ids)
    wire_server.on("update", reply, match=lambda s: s["update"] == "seq")

    (row,) = run_claim(mongodb, "O7").rows

    assert row.verdict == FAILS, row.reason
    assert set(str(row.reason).split("; ")[-1].removeprefix("differs in: ").split(", ")) == differs
    named_none = "the update reply named no ObjectId as the upserted _id of 2 of the 2 upserts"
    assert (named_none in str(row.reason)) is ("server_generated" in differs), row.reason
    assert [s.name for s in experiment_commands(wire_server)] == ["update", "update"]


# --- O8: range boundaries ------------------------------------------------------------------------


def _gte(sent: Sent) -> Any:
    """The ``$gte`` bound of count_documents's ``$match`` on _id."""
    return sent["pipeline"][0]["$match"]["_id"]["$gte"]


def _script_o8(wire_server: WireServer, from_bound: int, from_made_at: int) -> None:
    bound = ObjectId("6ac6dd000000000000000000")
    wire_server.on("insert", inserted,
                   match=lambda s: s["insert"] == "seq")
    wire_server.on("aggregate", counted(from_made_at), match=lambda s: _gte(s) != bound)
    wire_server.on("aggregate", counted(from_bound), match=lambda s: _gte(s) == bound)


@wire
def test_o8_inserts_the_ids_and_counts_from_both_boundaries(wire_server, mongodb):
    """O8 inserts 30 ObjectIds (5 of the second before 2026-10-08T00:00:00Z, 20 of it, 5 of the
    next) in one ordered ``insert``, then counts with two ``aggregate`` commands matching
    ``{_id: {$gte: …}}`` whose bounds are BSON ObjectIds: from_datetime's
    6ac6dd000000000000000000, then an ID this process made at that second after five others;
    on the counts a server gives (25 from the bound; scripted, 20 from the made-at ID, which
    the five earlier IDs of its own process sort below) it holds."""
    _script_o8(wire_server, from_bound=25, from_made_at=20)

    (row,) = run_claim(mongodb, "O8").rows

    insert, count_bound, count_made_at = experiment_commands(wire_server)
    body = insert.as_written()
    documents = body.pop("documents")
    assert body == {"insert": "seq", "ordered": True}
    assert all(set(d) == {"_id"} and type(d["_id"]) is ObjectId for d in documents)
    second = objectid_ordering.O8_SECOND
    stamps = [objectid.split(d["_id"]).timestamp for d in documents]
    assert stamps == [second - 1] * 5 + [second] * 20 + [second + 1] * 5
    for command, bound in ((count_bound, ObjectId("6ac6dd000000000000000000")),
                           (count_made_at, _gte(count_made_at))):
        body = command.as_written()
        assert body == {"aggregate": "seq", "cursor": {},
                        "pipeline": [{"$match": {"_id": {"$gte": bound}}},
                                     {"$group": {"_id": 1, "n": {"$sum": 1}}}]}
        assert type(bound) is ObjectId
    made_at = objectid.split(_gte(count_made_at))
    own = [objectid.split(d["_id"]) for d in documents[5:10]]  # this process's, earlier
    assert made_at.timestamp == second
    assert {p.random for p in own} == {made_at.random}
    assert made_at.counter == (own[-1].counter + 1) % (objectid.MAX_COUNTER + 1)
    assert row.verdict == HOLDS, row.reason
    assert row.observation.observed["lower_bound"] == "6ac6dd000000000000000000"
    assert (row.observation.observed["count_from_lower_bound"],
            row.observation.observed["count_from_made_at"]) == (25, 20)


@wire
@pytest.mark.parametrize(("from_bound", "from_made_at", "differs"), [
    pytest.param(25, 25, {"made_at_misses_documents"}, id="the made-at ID misses nothing"),
    pytest.param(24, 20, {"count_from_lower_bound"}, id="the bound misses a document"),
])
def test_o8_fails_on_counts_that_disagree(wire_server, mongodb, from_bound, from_made_at,
                                          differs):
    """O8 fails, naming what differs, where the server's counts say the made-at ID misses no
    document or the from_datetime bound misses one."""
    _script_o8(wire_server, from_bound, from_made_at)

    (row,) = run_claim(mongodb, "O8").rows

    assert row.verdict == FAILS, row.reason
    assert set(str(row.reason).split("; ")[-1].removeprefix("differs in: ").split(", ")) == differs


@wire
def test_o8_a_connection_reset_during_the_count_is_one_error_line_and_nothing_left(
        wire_server, mongodb):
    """A connection reset during O8's count (pymongo retries the read once, and the second
    connection is reset too) is O8's error row in one line, and the database is still dropped."""
    wire_server.on("insert", inserted,
                   match=lambda s: s["insert"] == "seq")
    wire_server.on("aggregate", hangup=True)

    (row,) = run_claim(mongodb, "O8").rows

    assert row.verdict == ERROR
    assert "\n" not in str(row.reason)
    assert "Traceback" not in str(row.reason)
    assert str(row.reason).startswith(f"AutoReconnect: 127.0.0.1:{wire_server.port}: connection "
                                      "closed"), row.reason
    names = [s.name for s in experiment_commands(wire_server)]  # the drop came last
    assert names == ["insert", "aggregate", "aggregate"]  # the retryable read, tried twice


# --- O9: order across processes ------------------------------------------------------------------


def _script_o9_writes(wire_server: WireServer) -> None:
    wire_server.on("delete", lambda s: write_reply(0), match=lambda s: s["delete"] == "seq")
    wire_server.on("insert", inserted,
                   match=lambda s: s["insert"] == "seq")


@wire
def test_o9_processes_insert_then_a_sorted_find_holds_on_the_recorded_order(wire_server,
                                                                            mongodb,
                                                                            monkeypatch):
    """O9 empties ``seq`` (``delete`` of ``{q: {}, limit: 0}``), starts processes A and B that
    connect to the server themselves (a ``ping`` each), make three IDs each at their moment
    and insert them in one ``insert`` ({_id: ObjectId, process, inserted_at: date,
    inserted_ns: int64} each: made first, so that the round trips to a distant server do not
    spread one process's IDs over a second), B's 250 ms after A's, then sends ``find`` on
    ``seq`` with filter {} and sort {_id: 1}; on the source's recorded sorted reply (B's lower
    random value first) it holds in one try."""
    _script_o9_writes(wire_server)
    wire_server.on("find", lambda s: cursor_reply(f"{s.db}.seq", _o9_documents()),
                   match=lambda s: s["find"] == "seq")
    moments: list[int] = []
    chosen = processes.start_of_next_second_ns
    monkeypatch.setattr(processes, "start_of_next_second_ns",
                        lambda: moments.append(chosen()) or moments[-1])

    (row,) = run_claim(mongodb, "O9").rows

    sent = experiment_commands(wire_server)
    assert sent[0].name == "delete"
    assert sent[-1].name == "find"
    delete = sent[0].as_written()
    assert delete == {"delete": "seq", "ordered": True, "deletes": [{"q": {}, "limit": 0}]}
    find = sent[-1].as_written()
    assert find == {"find": "seq", "filter": {}, "sort": {"_id": 1}}
    children = sent[1:-1]
    assert sorted(s.name for s in children) == ["insert"] * 2 + ["ping"] * 2
    inserted: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
    for command in (s for s in children if s.name == "insert"):
        body = command.as_written()
        documents = body.pop("documents")
        assert body == {"insert": "seq", "ordered": True}
        assert len(documents) == 3
        assert len({document["process"] for document in documents}) == 1
        for document in documents:
            assert set(document) == {"_id", "process", "inserted_at", "inserted_ns"}
            assert (type(document["_id"]), type(document["inserted_at"]),
                    type(document["inserted_ns"])) == (ObjectId, dt.datetime, Int64)
            inserted[document["process"]].append(document)
    for documents in inserted.values():  # one process's IDs: one random value, counter + 1
        parts = [objectid.split(d["_id"]) for d in documents]
        assert len({p.random for p in parts}) == 1
        assert [p.counter - parts[0].counter for p in parts] == [0, 1, 2]
        assert [d["inserted_ns"] for d in documents] == sorted(d["inserted_ns"]
                                                               for d in documents)
    randoms = {p: objectid.split(docs[0]["_id"]).random for p, docs in inserted.items()}
    assert randoms["A"] != randoms["B"]
    (start,) = moments  # no process writes before its moment: A's, then B's 250 ms later
    assert inserted["A"][0]["inserted_ns"] >= start
    assert inserted["B"][0]["inserted_ns"] >= start + 250 * 10**6
    assert row.verdict == HOLDS, row.reason
    observed = row.observation.observed
    assert (observed["same_second"], observed["later_process_sorts_first"], observed["tries"]) \
        == (True, True, 1)
    assert [r["hex"] for r in row.observation.evidence] == [str(oid) for _l, oid, _m
                                                            in RECORDED_O9]
    assert next(r["clock"] for r in row.observation.evidence) == "2026-10-08T03:46:09.844Z"


@wire
@pytest.mark.parametrize(("rows", "differs"), [
    pytest.param(RECORDED_O9[3:] + RECORDED_O9[:3], {"later_process_sorts_first"},
                 id="A sorts first"),
    pytest.param([(label, ObjectId(f"6ac71202{str(oid)[8:]}") if label == "A" else oid, ms)
                  for label, oid, ms in RECORDED_O9],
                 {"same_second", "later_process_sorts_first"}, id="two seconds"),
])
def test_o9_tries_twelve_times_then_fails_on_a_reply_that_disagrees(wire_server, mongodb,
                                                                   monkeypatch, rows, differs):
    """Where every sorted find puts A first, or the documents span two seconds, O9 tries twelve
    times (each emptying ``seq`` and starting the processes again before its find) and fails,
    naming what differs. The processes are recorded here, not started: the test above runs
    them, and twelve rounds of them would take half a minute."""
    started: list[dict[str, Any]] = []
    monkeypatch.setattr(processes, "in_processes", lambda labels, **options: started.append(
        {"labels": labels, **options}) or [])
    _script_o9_writes(wire_server)
    wire_server.on("find", lambda s: cursor_reply(f"{s.db}.seq", _o9_documents(rows)),
                   match=lambda s: s["find"] == "seq")

    (row,) = run_claim(mongodb, "O9").rows

    assert [s.name for s in experiment_commands(wire_server)] == ["delete", "find"] * 12
    name = claim_database(wire_server)
    assert started == [{"labels": ["A", "B"], "count": 3, "offsets_ms": [0, 250],
                        "uri": wire_server.uri, "database": name, "collection": "seq"}] * 12
    assert row.verdict == FAILS, row.reason
    assert set(str(row.reason).split("; ")[-1].removeprefix("differs in: ").split(", ")) == differs
    assert row.observation.observed["tries"] == 12


@wire
def test_o9_a_process_whose_insert_is_refused_is_one_error_line(wire_server, mongodb,
                                                               monkeypatch):
    """Where the server refuses process A's inserts (code 13, as for a user who may not
    insert), O9 is an error whose one line names process A and the server's refusal, not the
    process's traceback, and the database's drop is the last command it gets."""
    # The processes' moment is now, not the next whole second 1.5 s on (O9's own, which keeps
    # both in one second): a refused insert fails the same way, a second or two sooner.
    monkeypatch.setattr(processes, "start_of_next_second_ns", time.time_ns)
    wire_server.on("delete", lambda s: write_reply(0), match=lambda s: s["delete"] == "seq")
    wire_server.on("insert", lambda s: write_reply(1), match=lambda s: s["insert"] == "seq")
    wire_server.on("insert", lambda s: unauthorized("insert", s.db),
                   match=lambda s: s["documents"][0]["process"] == "A")

    (row,) = run_claim(mongodb, "O9").rows

    assert row.verdict == ERROR
    assert "\n" not in str(row.reason)
    assert "Traceback" not in str(row.reason)
    assert str(row.reason).startswith("the ID-making process A failed: OperationFailure: not "
                                      f"authorized on {claim_database(wire_server)} to execute "
                                      "command"), row.reason
    experiment_commands(wire_server)  # asserts the drop is the database's last command


@wire
def test_when_one_process_fails_the_others_are_stopped_before_their_moment(wire_server,
                                                                          monkeypatch):
    """When one ID-making process fails (its first insert refused), ``in_processes`` stops the
    others before it raises: B, whose moment is five seconds after A's, never writes, so no
    process outlives the call to write into a database its caller has dropped meanwhile."""
    popened = _recording_popen(monkeypatch)
    wire_server.on("insert", lambda s: write_reply(1))
    wire_server.on("insert", lambda s: unauthorized("insert", s.db), times=1)

    with pytest.raises(LabkitError):  # A's moment now: it is refused as soon as it is up
        processes.in_processes(["A", "B"], offsets_ms=[0, 5000], uri=wire_server.uri,
                               database="labkit_stop", collection="seq",
                               start_ns=time.time_ns())
    alive = [p for p in popened if p.poll() is None]
    for process in alive:  # had one lived on: let it make its moment's inserts, then end
        process.communicate(timeout=30)

    assert alive == []
    assert [s["documents"][0]["process"] for s in wire_server.named("insert")] == ["A"]


@wire
def test_o9_delete_refused_is_an_error_and_starts_no_process(wire_server, mongodb,
                                                             monkeypatch):
    """Where the user may not remove documents (a role without the ``remove`` action: code 13
    on ``delete``), O9 is an error row naming the refusal, and no ID-making process starts."""
    started: list[list[str]] = []
    monkeypatch.setattr(processes, "in_processes",
                        lambda labels, **options: started.append(labels) or [])
    wire_server.on("delete", lambda s: unauthorized("delete", s.db),
                   match=lambda s: s["delete"] == "seq")

    (row,) = run_claim(mongodb, "O9").rows

    assert row.verdict == ERROR
    assert "\n" not in str(row.reason)
    assert str(row.reason).startswith("OperationFailure: not authorized on "
                                      f"{claim_database(wire_server)} to execute "
                                      "command"), row.reason
    assert [s.name for s in experiment_commands(wire_server)] == ["delete"]
    assert started == []


def _recording_popen(monkeypatch) -> list[subprocess.Popen]:
    """Every process ``in_processes`` starts, kept to ask afterwards whether it ended."""
    popened: list[subprocess.Popen] = []
    real = subprocess.Popen

    def recording(*args, **kwargs):
        popened.append(real(*args, **kwargs))
        return popened[-1]

    monkeypatch.setattr(subprocess, "Popen", recording)
    return popened


@wire
def test_processes_that_do_not_finish_in_time_are_stopped_with_one_error(wire_server,
                                                                         monkeypatch):
    """ID-making processes still waiting when ``in_processes`` stops waiting are killed before
    it raises one LabkitError naming the process and the time allowed: none lives on to write
    into a database the run has dropped."""
    wire_server.on("insert", lambda s: write_reply(1))
    popened = _recording_popen(monkeypatch)
    # A quarter of a second: the processes are still starting or waiting when it ends, which
    # is all this needs (a longer wait only slows the test).
    monkeypatch.setattr(processes, "WAIT_S", 0.25)
    start = time.time_ns() + 60 * 10**9  # a moment they would wait a minute for

    with pytest.raises(LabkitError, match=r"did not finish within 0\.25 s") as raised:
        processes.in_processes(["A", "B"], start_ns=start, uri=wire_server.uri,
                               database="labkit_wait", collection="seq")

    assert "\n" not in str(raised.value)
    assert len(popened) == 2
    assert all(p.poll() is not None for p in popened)  # both ended, none left waiting
    assert wire_server.named("insert") == []


@wire
def test_a_process_that_cannot_reach_the_server_is_one_error_line(wire_server):
    """A process whose server hangs up on its ``ping`` ends with one line naming what pymongo
    raised, which ``in_processes`` quotes: the learner reads no traceback."""
    wire_server.on("ping", hangup=True)

    with pytest.raises(LabkitError) as raised:
        processes.in_processes(["A"], uri=wire_server.uri, database="labkit_wait",
                               collection="seq", start_ns=time.time_ns())

    text = str(raised.value)
    assert "\n" not in text
    assert "Traceback" not in text
    assert text.startswith("the ID-making process A failed: AutoReconnect: "
                           f"127.0.0.1:{wire_server.port}: connection closed"), text


# --- Live: the same commands on a real server -------------------------------------------------


@pytest.mark.mongodb
def test_live_upsert_reply_has_the_scripted_fields_and_types(fresh_db):
    """A real server answers O7's upsert without _id as the script does: n and nModified
    int32, upserted a list of {index: int32, _id: ObjectId}, ok a double."""
    reply = fresh_db.command("update", "seq", updates=[
        {"q": {"proc": "server1"}, "u": {"$set": {"at": dt.datetime.now(dt.UTC)}},
         "upsert": True}])
    assert same_shape(upserted(RECORDED_SERVER_IDS[0]), reply) == []


@pytest.mark.mongodb
def test_live_insert_count_delete_and_lease_replies_have_the_scripted_shapes(fresh_db):
    """A real server's replies to O8's insert and count_documents's aggregate, O9's delete,
    the lease's pipeline upsert on a string _id and the database's drop have the scripted
    fields and types."""
    insert = fresh_db.command("insert", "seq", documents=[{"_id": ObjectId()}])
    assert same_shape(write_reply(1), insert) == []
    count = fresh_db.command("aggregate", "seq", cursor={}, pipeline=[
        {"$match": {"_id": {"$gte": ObjectId("000000000000000000000000")}}},
        {"$group": {"_id": 1, "n": {"$sum": 1}}}])
    assert same_shape(counted(1)(Sent("aggregate", fresh_db.name, {"aggregate": "seq"})),
                      count) == []
    deleted = fresh_db.command("delete", "seq", deletes=[{"q": {}, "limit": 0}])
    assert same_shape(write_reply(1), deleted) == []
    lease = fresh_db.command("update", "other", updates=[
        {"q": {"_id": "lease"}, "u": [{"$set": {"renewed": "$$NOW"}}], "upsert": True}])
    assert same_shape(LEASE_UPSERTED, lease) == []
    assert same_shape(DATABASE_DROPPED, fresh_db.command("dropDatabase")) == []


@pytest.mark.mongodb
def test_live_workers_documents_come_back_with_the_scripted_types(fresh_db, mongodb_server):
    """The documents O9's processes insert into a real server come back from a sorted find as
    the scripted reply holds them: _id ObjectId, process string, inserted_at date, inserted_ns
    int64, in a cursor reply of the scripted shape."""
    processes.in_processes(["A", "B"], count=3, offsets_ms=[0, 250], uri=mongodb_server.uri,
                           database=fresh_db.name, collection="seq")
    found = fresh_db.command("find", "seq", filter={}, sort={"_id": 1})
    assert same_shape(cursor_reply(f"{fresh_db.name}.seq", _o9_documents()), found) == []
    assert len(found["cursor"]["firstBatch"]) == 6
    for document in found["cursor"]["firstBatch"]:
        assert same_shape(_o9_documents()[0], document) == []


@pytest.mark.mongodb
def test_live_connection_status_and_list_databases_have_the_scripted_shapes(mongodb_server):
    """A real server's connectionStatus (showPrivileges) and listDatabases (nameOnly) replies
    have the fields and types of the scripted ones; where the server runs without access
    control its lists are empty, so only their being lists is compared."""
    admin = mongodb_server.client().admin
    connection = admin.command("connectionStatus", showPrivileges=True)
    if connection["authInfo"]["authenticatedUsers"]:
        assert same_shape(status(*HOSTED_USER), connection) == []
    else:
        assert same_shape(UNAUTHENTICATED, connection) == []
    listed = admin.command("listDatabases", nameOnly=True)
    assert same_shape(OWN_DATABASES, listed) == []
    assert all(set(d) == {"name"} for d in listed["databases"])
