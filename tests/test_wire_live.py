"""First contact: each reply shape the wire tests share (tests/mongo_wire.py) against the same
command on a real server, field by field and type by type (``same_shape``), so the first run on
a real MongoDB says at once whether a scripted reply was wrong. Runs where a server exists;
the workflow runs it on 6.0, 7.0 and 8.0."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import mongo_wire as w
import pytest
import yaml
from bson import ObjectId
from pymongo.errors import OperationFailure

WORKFLOW = Path(__file__).resolve().parent.parent / ".github" / "workflows" / "tests.yml"


@pytest.fixture(scope="module")
def series(mongodb_server):
    """The server's release series ("8.0"), and the scripted shapes' version for it (the
    newest scripted one for a series the table does not list)."""
    version = str(mongodb_server.client().server_info()["version"])
    found = ".".join(version.split(".")[:2])
    return found, found if found in w.VERSIONS else max(w.VERSIONS)


@pytest.mark.mongodb
def test_wire_version_table_matches_the_server(mongodb_server, series):
    """The server's maxWireVersion is the one VERSIONS gives for its series (17, 21, 25)."""
    found, _scripted = series
    if found not in w.VERSIONS:
        pytest.skip(f"the wire version table has no row for MongoDB {found}")
    hello = mongodb_server.client().admin.command("hello")
    assert hello["maxWireVersion"] == w.VERSIONS[found][1]


@pytest.mark.mongodb
def test_hello_has_the_scripted_shape(mongodb_server, series):
    """A real ``hello`` has every field of hello_reply, with the same types, and isWritablePrimary
    without ismaster."""
    real = mongodb_server.client().admin.command("hello")
    assert w.same_shape(w.hello_reply(series[1]), real) == []
    assert "ismaster" not in real


@pytest.mark.mongodb
def test_is_master_has_the_scripted_shape(mongodb_server, series):
    """A real ``isMaster`` has every field of hello_reply(legacy=True): ismaster, not
    isWritablePrimary."""
    real = mongodb_server.client().admin.command("isMaster")
    assert w.same_shape(w.hello_reply(series[1], legacy=True), real) == []
    assert "isWritablePrimary" not in real


@pytest.mark.mongodb
def test_build_info_has_the_scripted_shape(mongodb_server, series):
    """A real ``buildInfo`` has every field of build_info_reply with the same types, and its
    versionArray starts with the version's numbers."""
    real = mongodb_server.client().admin.command("buildInfo")
    assert w.same_shape(w.build_info_reply(series[1]), real) == []
    major, minor = (int(p) for p in series[0].split("."))
    assert real["versionArray"][:2] == [major, minor]


@pytest.mark.mongodb
@pytest.mark.parametrize("command", ["find", "aggregate", "listCollections"])
def test_cursor_replies_have_the_scripted_shape(fresh_db, command):
    """Real find, aggregate and listCollections replies have cursor_reply's shape: a first
    batch, an int64 id, a string ns, ok 1.0."""
    fresh_db.things.insert_one({"_id": 1, "a": 2})
    arguments = {"find": {"filter": {}}, "aggregate": {"pipeline": [], "cursor": {}},
                 "listCollections": {}}[command]
    target = 1 if command == "listCollections" else "things"
    real = fresh_db.command(command, target, **arguments)
    scripted = w.cursor_reply(f"{fresh_db.name}.things", [{"_id": 1, "a": 2}])
    if command == "listCollections":
        scripted = w.cursor_reply(f"{fresh_db.name}.$cmd.listCollections",
                                  [{"name": "things", "type": "collection"}])
    assert w.same_shape(scripted, real) == []


@pytest.mark.mongodb
def test_insert_and_delete_replies_have_the_scripted_shape(fresh_db):
    """Real insert and delete replies have write_reply's shape: n an int32, ok 1.0."""
    inserted = fresh_db.command("insert", "things", documents=[{"_id": 1}, {"_id": 2}])
    deleted = fresh_db.command("delete", "things", deletes=[{"q": {}, "limit": 0}])
    assert w.same_shape(w.write_reply(2), inserted) == []
    assert w.same_shape(w.write_reply(2), deleted) == []
    assert (inserted["n"], deleted["n"]) == (2, 2)


@pytest.mark.mongodb
def test_update_replies_have_the_scripted_shape(fresh_db):
    """A real upsert reply has update_reply's shape with ``upserted`` [{index: int32, _id}],
    counted in n and not in nModified; a plain update has no ``upserted``."""
    upsert = fresh_db.command("update", "things", updates=[
        {"q": {"_id": "new"}, "u": {"$set": {"a": 1}}, "upsert": True}])
    plain = fresh_db.command("update", "things", updates=[
        {"q": {"_id": "new"}, "u": {"$set": {"a": 2}}}])
    assert w.same_shape(w.upserted("new"), upsert) == []
    assert (upsert["n"], upsert["nModified"]) == (1, 0)
    assert w.same_shape(w.update_reply(1, 1), plain) == []
    assert "upserted" not in plain


@pytest.mark.mongodb
def test_upserted_id_keeps_its_type(fresh_db):
    """An upsert that generates its _id reports an ObjectId in ``upserted``, as a script that
    writes ObjectId there assumes."""
    real = fresh_db.command("update", "things", updates=[
        {"q": {"a": 5}, "u": {"$set": {"b": 1}}, "upsert": True}])
    assert w.same_shape(w.upserted(ObjectId()), real) == []


@pytest.mark.mongodb
def test_an_unknown_command_is_refused_as_scripted(mongodb_server):
    """A command the server does not know is refused exactly as command_not_found scripts it:
    ok 0.0, code 59, codeName CommandNotFound, errmsg "no such command: '<name>'"."""
    with pytest.raises(OperationFailure) as caught:
        mongodb_server.client().admin.command("labkitNoSuchCommand")
    scripted = w.command_not_found("labkitNoSuchCommand")
    assert w.same_shape(scripted, caught.value.details) == []
    assert caught.value.code == w.COMMAND_NOT_FOUND
    details = caught.value.details
    assert (details["codeName"], details["errmsg"]) == (scripted["codeName"], scripted["errmsg"])


def test_workflow_runs_first_contact_on_each_version_once_mongod_answers():
    """CI starts the tests only once its mongod listens (a TCP health check on the service,
    which opens no logical session for mongod to write: issue 44), runs this file's live tests
    and the wire tests on 6.0, 7.0 and 8.0, and requires MongoDB there, so a live test can
    never quietly skip."""
    (job,) = [job for job in yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"].values()
              if "mongodb" in job.get("services", {})]
    options = shlex.split(job["services"]["mongodb"]["options"])
    check = shlex.split(options[options.index("--health-cmd") + 1])
    assert check == ["bash", "-c", ": < /dev/tcp/127.0.0.1/27017"]
    assert {"--health-interval", "--health-retries"} <= set(options)
    assert job["strategy"]["matrix"]["mongodb"] == sorted(w.VERSIONS)
    assert "mongodb" in job["env"]["LABKIT_REQUIRE"].split(",")
    runs = [shlex.split(step["run"]) for step in job["steps"] if "run" in step]
    first_contact = [run for run in runs if "tests/test_wire_live.py" in run]
    assert len(first_contact) == 1
    assert {"mongodb or wire", "tests/test_wire_harness.py"} <= set(first_contact[0])


def _installs_the_test_tools(run: list[str], makefile: str) -> bool:
    """Whether a step's command installs the test extra: pip with ``[test``, or make with a
    target the Makefile makes depend on the test extra's stamp."""
    if "pip" in " ".join(run[:3]) and any("[test" in arg for arg in run):
        return True
    if not run or run[0] != "make":
        return False
    testing = set(re.findall(r"^([\w-]+):[^=\n]*\$\(TEST_STAMP\)", makefile, re.MULTILINE))
    return bool(testing & set(run[1:]))


def test_every_workflow_step_that_runs_pytest_has_it_installed():
    """Issue 44: the live jobs' first-contact step ran ``.venv/bin/python -m pytest`` after
    ``make wiredtiger``, which installs the lab and wiredtiger extras only, so it stopped with
    "No module named pytest" on every version. Each step that runs pytest by itself comes
    after one that installs the test extra (``make test`` installs it first)."""
    makefile = (WORKFLOW.parents[2] / "Makefile").read_text(encoding="utf-8")
    jobs = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    checked = 0
    for name, job in jobs.items():
        installed = False
        for step in job["steps"]:
            run = shlex.split(step.get("run", ""))
            if any(arg.endswith("pytest") for arg in run):
                assert installed, f"job {name}: {step['run']!r} runs before pytest is installed"
                checked += 1
            installed = installed or _installs_the_test_tools(run, makefile)
    assert checked >= 1
