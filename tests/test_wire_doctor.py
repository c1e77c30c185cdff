"""``labkit doctor``'s MongoDB line over the wire: the doctor's own code, unmodified, reaches
the scripted server through ``LABKIT_MONGODB_URI`` and real pymongo, and says ``[OK]`` or
``[FAIL]`` with what the URI's user may do, in English and in Vietnamese.

The replies are ``wire_replies``' (``connectionStatus`` from
src/mongo/db/commands/connection_status.cpp, each role's actions from
src/mongo/db/auth/builtin_roles.yml) and the probe's answers those test_wire_privileges.py
explains from src/mongo/db/commands.cpp's authorization checks; ``serverStatus`` is refused
with 13 to a user without the action on the cluster, as the server checks it.
"""

from __future__ import annotations

import re

import pytest
from mongo_wire import command_not_found, unauthenticated, unauthorized
from wire_replies import (
    ROLE_SETS,
    UNAUTHENTICATED,
    collections,
    databases,
    script_from_uri,
    server_status,
)

from labkit import cli, i18n
from labkit._redact import display
from labkit.run import doctor
from labkit.servers.privileges import PROBE_DATABASE

pytestmark = pytest.mark.wire

LINE = re.compile(r"^(?P<mark>\[[^\]]+\])\s+(?P<way>[^:]+): MongoDB (?P<version>\S+) "
                  r"(?:at|tại) (?P<uri>\S+); (?P<cache>.*?); "
                  r"(?P<privileges>(?:privileges|quyền): .*)$")
NEEDED = re.compile(r"(?:^|; )(\w+) \((required|optional|[^,]+),")


@pytest.fixture
def english(monkeypatch):
    """The command line's language: English (no ``LABKIT_LANG``, none chosen)."""
    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.delenv("LABKIT_LANG", raising=False)


@pytest.fixture
def uri_at(monkeypatch, wire_server):
    """``LABKIT_MONGODB_URI`` names the scripted server; its URI as the doctor shows it."""
    monkeypatch.setenv("LABKIT_MONGODB_URI", wire_server.uri)
    return display(wire_server.uri)


def _line(check: doctor.Check) -> re.Match[str]:
    found = LINE.match(check.line())
    assert found, check.line()
    return found


def _missing(privileges: str) -> list[str]:
    """The actions a privileges part names as missing, in its order."""
    _, _, rest = privileges.partition("; missing: ")
    return [match[0] for match in NEEDED.findall(rest)]


# Each role set: whether the line passes, who the doctor says is connected, what it names as
# missing (the role sets' own expectations are wire_replies.ROLE_SETS').
EXPECTED = {
    "root": (True, "user labkit (admin) with root (admin): every privilege labkit uses", []),
    "readWriteAnyDatabase": (True, "user labkit (admin) with readWriteAnyDatabase (admin)",
                             ["dropDatabase", "fsync", "serverStatus"]),
    "readWrite on one database": (False, "user labkit (admin) with readWrite (shop)",
                                  ["find", "insert", "update", "remove", "createCollection",
                                   "dropDatabase", "dropCollection", "listCollections",
                                   "collStats", "fsync", "serverStatus"]),
    "notebooks/hosted.md's custom role": (True, "user labkit (admin) with labkitRole (admin)",
                                     ["fsync"]),
    "dbAdminAnyDatabase and readWriteAnyDatabase": (
        True, "user labkit (admin) with dbAdminAnyDatabase (admin), readWriteAnyDatabase "
              "(admin)", ["fsync", "serverStatus"]),
    "clusterMonitor added": (True, "user labkit (admin) with dbAdminAnyDatabase (admin), "
                                   "readWriteAnyDatabase (admin), clusterMonitor (admin)",
                             ["fsync"]),
    "backup added": (True, "user labkit (admin) with readWriteAnyDatabase (admin), backup "
                           "(admin)", ["dropDatabase", "fsync"]),
}


@pytest.mark.parametrize("case", EXPECTED)
def test_the_uri_line_for_each_role_set(english, uri_at, wire_server, case):
    """For each role set the doctor's URI line is ``[OK]`` exactly when the experiments can
    run, names the server's version and the URI, and ends with who is connected and each
    missing action in the table's order."""
    reply, lacking = ROLE_SETS[case]
    ok, who, missing = EXPECTED[case]
    assert set(missing) == lacking
    script_from_uri(wire_server, reply)
    check = doctor._mongodb_uri()
    found = _line(check)
    assert check.ok is ok
    assert found["mark"] == ("[OK]" if ok else "[FAIL]")
    assert (found["way"], found["version"], found["uri"]) == (
        "MongoDB via LABKIT_MONGODB_URI", "7.0.16", uri_at)
    assert found["privileges"].startswith(f"privileges: {who}")
    assert _missing(found["privileges"]) == missing


@pytest.mark.parametrize(("case", "probe", "databases", "ok", "privileges"), [
    ("no access control", collections(PROBE_DATABASE), None, True,
     "privileges: the server runs without access control: every privilege labkit uses"),
    ("no credentials", unauthenticated("listCollections"),
     unauthenticated("listDatabases"), False,
     "privileges: no user is authenticated (the URI has no credentials); missing: find "
     "(required, on every database: read the fixtures back; given by readWriteAnyDatabase, "
     "readAnyDatabase, root)"),
    ("no user yet, from localhost", unauthorized("listCollections", db=PROBE_DATABASE),
     databases(), False,
     "privileges: access control is on and no user exists yet (MongoDB's localhost "
     "exception): from this machine the server lets a connection without a user create the "
     "first user and nothing else; create a user administrator in the admin database, then "
     "labkit's user (notebooks/hosted.md, \"The user labkit needs\"), and put that user's name and "
     "password in LABKIT_MONGODB_URI"),
])
def test_the_uri_line_without_a_user(english, uri_at, wire_server, case, probe, databases, ok,
                                     privileges):
    """Without credentials the line passes only where the server has no access control; a
    server with it fails the line, saying that the URI has no credentials, or, before any user
    exists, that access control is on and what to do first."""
    status_reply = server_status() if case == "no access control" else (
        unauthenticated("serverStatus") if case == "no credentials"
        else unauthorized("serverStatus"))
    script_from_uri(wire_server, UNAUTHENTICATED, probe=probe, databases=databases,
                    status_reply=status_reply)
    check = doctor._mongodb_uri()
    found = _line(check)
    assert check.ok is ok
    assert found["mark"] == ("[OK]" if ok else "[FAIL]")
    if case == "no credentials":
        assert found["privileges"].startswith(privileges)
    else:
        assert found["privileges"] == privileges


def test_a_server_that_does_not_answer_connection_status(english, uri_at, wire_server):
    """A server (or a proxy) that refuses ``connectionStatus`` as an unknown command: the line
    says the privileges are not readable, and passes on what ``ping`` and ``buildInfo`` said."""
    script_from_uri(wire_server, UNAUTHENTICATED)
    wire_server.on("connectionStatus", command_not_found("connectionStatus"))
    check = doctor._mongodb_uri()
    assert check.ok
    assert _line(check)["privileges"] == ("privileges: not readable (the server did not answer "
                                          "connectionStatus)")


# The command itself ---------------------------------------------------------------------------


@pytest.mark.parametrize(("reply", "probe", "databases", "status", "ready"), [
    (ROLE_SETS["root"][0], None, None, 0, "Ready."),
    (UNAUTHENTICATED, unauthorized("listCollections", db=PROBE_DATABASE), databases(), 1,
     "Not ready: MongoDB via LABKIT_MONGODB_URI cannot be used"),
])
def test_labkit_doctor_prints_the_line_and_exits_by_it(english, nothing_available, uri_at,
                                                        wire_server, capsys, reply, probe,
                                                        databases, status, ready):
    """``labkit doctor`` prints the URI line among the others and exits 0 when the URI's user
    can run the experiments (here the only way to MongoDB), 1 when access control is on and no
    user exists yet; never a traceback."""
    script_from_uri(wire_server, reply, probe=probe, databases=databases)
    assert cli.main(["doctor"]) == status
    out, err = capsys.readouterr()
    (line,) = [line for line in out.splitlines() if "LABKIT_MONGODB_URI:" in line]
    assert line.startswith("[OK]" if status == 0 else "[FAIL]")
    assert uri_at in line
    assert out.splitlines()[-1].startswith(ready)
    assert "Traceback" not in out + err


# In Vietnamese --------------------------------------------------------------------------------

# Stand-in translations of the report's templates (labkit/locale/vi/labkit.po gains its own):
# with them the test sees that each part of the report is looked up in the catalogue.
STAND_INS = {
    "user {users} with {roles}": "người dùng {users} có {roles}",
    "{who}; missing: {needs}": "{who}; còn thiếu: {needs}",
    "{action} ({must}, {where}: {why}; given by {roles})":
        "{action} ({must}, {where}: {why}; có trong {roles})",
    "optional": "không bắt buộc",
    "required": "bắt buộc",
    "on every database": "trên mọi cơ sở dữ liệu",
    "on the cluster": "trên cụm",
    "access control is on and no user exists yet (MongoDB's localhost exception)":
        "kiểm soát truy cập đang bật và chưa có người dùng nào (ngoại lệ localhost của MongoDB)",
}


@pytest.fixture
def vietnamese(monkeypatch):
    """``LABKIT_LANG=vi``, with the stand-ins in the Vietnamese catalogue for this test."""
    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.setenv("LABKIT_LANG", "vi")
    catalogue = i18n._catalogue("vi")
    for english_text, vietnamese_text in STAND_INS.items():
        monkeypatch.setitem(catalogue, english_text, vietnamese_text)


def test_the_uri_line_in_vietnamese(vietnamese, uri_at, wire_server):
    """With ``LABKIT_LANG=vi`` the line's mark, way and frame are the catalogue's, and the
    privilege report is shown in the learner's language part by part: who is connected, each
    missing action with whether it is required and where (the action names stay MongoDB's)."""
    script_from_uri(wire_server, ROLE_SETS["readWriteAnyDatabase"][0])
    check = doctor._mongodb_uri()
    line = check.line()
    assert check.ok
    assert line.startswith("[OK]       MongoDB qua LABKIT_MONGODB_URI: MongoDB 7.0.16 tại "
                           f"{uri_at}; ")
    privileges = line[line.index("; quyền: ") + 2:]
    assert privileges.startswith("quyền: người dùng labkit (admin) có readWriteAnyDatabase "
                                 "(admin); còn thiếu: dropDatabase (không bắt buộc, trên mọi "
                                 "cơ sở dữ liệu: ")
    assert "; fsync (không bắt buộc, trên cụm: " in privileges
    assert privileges.endswith("; có trong clusterMonitor, backup, clusterAdmin, root)")
    for english_text in ("missing:", "optional", "given by", "on the cluster", " with "):
        assert english_text not in privileges


def test_the_failing_line_in_vietnamese(vietnamese, uri_at, wire_server):
    """Before any user exists the Vietnamese line is ``[CHƯA ĐẠT]`` and says so in the
    learner's language."""
    script_from_uri(wire_server, UNAUTHENTICATED,
                    probe=unauthorized("listCollections", db=PROBE_DATABASE),
                    databases=databases())
    check = doctor._mongodb_uri()
    assert not check.ok
    assert check.line().startswith("[CHƯA ĐẠT] MongoDB qua LABKIT_MONGODB_URI: MongoDB 7.0.16 "
                                   f"tại {uri_at}; ")
    assert "; quyền: kiểm soát truy cập đang bật và chưa có người dùng nào (ngoại lệ localhost " \
           "của MongoDB): " in check.line()
