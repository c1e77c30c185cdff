"""The servers labkit starts, over the wire: a local ``mongod`` whose port was taken before it
bound it is started again on another port, and the client labkit keeps for a mongod it started
(locally or in Docker) has the normal server selection timeout, not discovery's one second.

There is no mongod and no Docker here. The local ``mongod`` is a small Python program (written
by ``fake_mongod``) that does what mongod's start-up does at the port: it binds it, and where
the bind fails it logs mongod's "Error setting up listener" entry and exits with mongod's code
48. That is _initAndListen in src/mongo/db/mongod_main.cpp (mongodb/mongo at 6b0141d1, a
7.0-era version, and in a newer one the index holds): ``LOGV2_ERROR(20568, "Error setting up
listener", ...)`` then ``return ExitCode::netError``, before the storage engine is initialized,
so a second start may use the same dbpath; the bind's error is the system's (the transport
layer's errorCodeToStatus, src/mongo/transport/asio/asio_utils.cpp: a SocketException with
the system's message, "Address already in use" for EADDRINUSE); and src/mongo/util/
exit_code.h gives netError (EXIT_NET_ERROR at 09388643) the value 48. Where it binds, it
answers on that port as MockupDB with the harness's replies. Docker's container is a stand-in
for testcontainers' MongoDbContainer that hands out the scripted server's URI. Neither gives
any verdict about MongoDB: they show what labkit's start-up code does with what a mongod and
testcontainers give it.
"""

from __future__ import annotations

import json
import socket
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from wire_replies import server_status

from labkit import servers
from labkit.servers import base, process

pytestmark = pytest.mark.wire

TESTS = Path(__file__).resolve().parent

FAKE_MONGOD = '''\
#!{python}
"""A stand-in mongod for labkit's start-up code (tests/test_wire_server_start.py)."""
import datetime, json, os, socket, sys

args = sys.argv[1:]
if args == ["--version"]:
    print("db version v7.0.16")
    sys.exit(0)
here = os.path.dirname(os.path.abspath(sys.argv[0]))
with open(os.path.join(here, "starts.jsonl"), "a") as starts:
    starts.write(json.dumps(args) + "\\n")
port = int(args[args.index("--port") + 1])
log = args[args.index("--logpath") + 1]
cache_gb = float(args[args.index("--wiredTigerCacheSizeGB") + 1])
starts_so_far = sum(1 for _ in open(os.path.join(here, "starts.jsonl")))
if os.environ.get("FAKE_MONGOD_FAILS") == "after-its-first-start" and starts_so_far > 1:
    with open(log, "a") as out:
        out.write("exception in initAndListen: Location28596 (unable to read the dbpath)\\n")
    sys.exit(100)
if os.environ.get("FAKE_MONGOD_FAILS") == "1":
    with open(log, "a") as out:
        out.write("exception in initAndListen: Location28596 (unable to read the dbpath)\\n")
    sys.exit(100)  # ExitCode::uncaught: a failure that is not the port's
probe = socket.socket()
try:
    probe.bind(("127.0.0.1", port))
except OSError as exc:
    entry = {{"t": {{"$date": datetime.datetime.now(datetime.timezone.utc).isoformat()}},
             "s": "E", "c": "NETWORK", "id": 20568, "ctx": "initandlisten",
             "msg": "Error setting up listener",
             "attr": {{"error": {{"code": 9001, "codeName": "SocketException",
                                 "errmsg": exc.strerror}}}}}}
    with open(log, "a") as out:
        out.write(json.dumps(entry) + "\\n")
    sys.exit(48)
probe.close()
sys.path.insert(0, {tests!r})
import threading
from bson import Int64
from mockupdb import MockupDB
import mongo_wire
from wire_replies import server_status

status = server_status(int(cache_gb * 1024**3))
status["pid"] = Int64(os.getpid())

def answer(request):
    name = next(iter(request.doc), "").lower()
    if name in ("hello", "ismaster"):
        return request.replies(mongo_wire.hello_reply("7.0", legacy=name == "ismaster"))
    replies = {{"ping": {{"ok": 1.0}}, "buildinfo": mongo_wire.build_info_reply("7.0"),
               "serverstatus": status, "endsessions": {{"ok": 1.0}}}}
    return request.replies(replies.get(name, mongo_wire.command_not_found(name)))

server = MockupDB(port=port)
server.autoresponds(answer)
server.run()
threading.Event().wait()
'''


@dataclass
class Starts:
    """The stand-in mongod (``binary``) and, called, the starts it recorded, each its
    arguments."""

    binary: Path

    def __call__(self) -> list[list[str]]:
        path = self.binary.parent / "starts.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] \
            if path.exists() else []


@pytest.fixture
def fake_mongod(tmp_path, monkeypatch):
    """LABKIT_MONGOD naming the stand-in mongod, given as its ``Starts``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    binary = folder / "mongod"
    binary.write_text(FAKE_MONGOD.format(python=sys.executable, tests=str(TESTS)))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("LABKIT_MONGOD", str(binary))
    monkeypatch.delenv("LABKIT_MONGODB_URI", raising=False)
    monkeypatch.delenv("FAKE_MONGOD_FAILS", raising=False)

    return Starts(binary)


@pytest.fixture
def taken_port(monkeypatch):
    """A port bound by another socket, which the first port labkit picks will be (as if another
    program took it between labkit's choice and mongod's bind); the picks after it are free."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    port = holder.getsockname()[1]
    picks = iter([port])
    free = process.free_port
    monkeypatch.setattr(process, "free_port", lambda: next(picks, None) or free())
    yield port
    holder.close()


def _option(arguments: list[str], name: str) -> str:
    return arguments[arguments.index(name) + 1]


def test_a_port_taken_before_mongod_binds_it_means_another_port(fake_mongod, taken_port):
    """A mongod that exits with code 48 ("Error setting up listener": the port was taken after
    labkit chose it) is started again on a new port with the same dbpath, and that one is the
    server labkit keeps; before, the start failed."""
    server = servers.get_mongodb("local")
    try:
        first, second = fake_mongod()
        assert int(_option(first, "--port")) == taken_port
        assert int(_option(second, "--port")) != taken_port
        assert _option(first, "--dbpath") == _option(second, "--dbpath")
        assert server.uri == f"mongodb://127.0.0.1:{_option(second, '--port')}/" \
                             "?directConnection=true"
        assert (server.how, server.version) == ("local", "7.0.16")
        assert str(server.cache) == "WiredTiger cache 0.25 GB (set by labkit)"
        workdir = server.workdir
        assert workdir is not None
        assert workdir.exists()
    finally:
        server.stop()
    assert not workdir.exists()


def test_the_client_kept_for_a_local_mongod_has_the_normal_timeout(fake_mongod):
    """After a local mongod answered labkit's one-second pings, the client labkit keeps selects
    a server within 5 s (MongoClient's option, read back from the client); before, the
    discovery client's one second stayed for the whole run."""
    with servers.get_mongodb("local") as server:
        assert server.client().options.server_selection_timeout == 5.0
        assert len(fake_mongod()) == 1


def test_a_mongod_that_fails_otherwise_is_not_started_again(fake_mongod, monkeypatch):
    """A mongod that exits for another reason (not code 48, no "Address already in use" in its
    log) is reported with its log at once, not retried on another port."""
    monkeypatch.setenv("FAKE_MONGOD_FAILS", "1")
    with pytest.raises(servers.ServerStartError) as caught:
        servers.get_mongodb("local")
    assert len(fake_mongod()) == 1
    assert "unable to read the dbpath" in caught.value.log_tail
    assert "taken before" not in str(caught.value.message)


def test_a_second_start_failing_otherwise_is_not_taken_for_its_port(fake_mongod, taken_port,
                                                                    monkeypatch):
    """After one start lost its port, the next start failing for another reason is said at
    once: the sign of a taken port is looked for in that start's own log lines, not in the
    first start's, which the log still holds (before, every later failure looked like a
    taken port and was started again, PORT_ATTEMPTS times)."""
    monkeypatch.setenv("FAKE_MONGOD_FAILS", "after-its-first-start")
    with pytest.raises(servers.ServerStartError) as caught:
        servers.get_mongodb("local")
    assert len(fake_mongod()) == 2
    assert "unable to read the dbpath" in caught.value.log_tail


def test_every_port_taken_is_said(fake_mongod, monkeypatch):
    """Where every port labkit picks is taken before mongod binds it, the error says so and
    names them; labkit gives up after PORT_ATTEMPTS starts."""
    holders = []

    def held() -> int:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        holders.append(sock)
        return sock.getsockname()[1]

    monkeypatch.setattr(process, "free_port", held)
    monkeypatch.setattr(process, "PORT_ATTEMPTS", 2)
    try:
        with pytest.raises(servers.ServerStartError) as caught:
            servers.get_mongodb("local")
    finally:
        for sock in holders:
            sock.close()
    ports = [int(_option(start, "--port")) for start in fake_mongod()]
    assert len(ports) == 2
    assert str(caught.value.message).startswith(
        f"Started {fake_mongod.binary} on port {ports[1]} (after port(s) {ports[0]}, taken "
        "before it bound them), but it did not answer (the server exited before it answered).")
    assert "Address already in use" in caught.value.log_tail


def test_a_local_mongod_of_another_version_is_passed_over_and_said(fake_mongod, monkeypatch):
    """In auto mode a local mongod whose ``--version`` is not the version asked for is not
    started; the error lists each way and why it gave nothing."""
    monkeypatch.setattr(base, "docker_status", lambda: (False, "Docker switched off"))
    with pytest.raises(servers.ServerUnavailable) as caught:
        servers.get_mongodb("auto", "8.0")
    assert fake_mongod() == []
    assert [str(way) for way in caught.value.tried] == [
        "LABKIT_MONGODB_URI: not set",
        f"local mongod: {fake_mongod.binary} is version 7.0.16, not 8.0",
        "Docker: Docker switched off"]


# Docker, through a stand-in container -------------------------------------------------------


class StandInContainer:
    """Stands in for testcontainers' MongoDbContainer (there is no Docker here): records the
    image and command labkit asks for and hands out the scripted server's URI."""

    made: ClassVar[list[StandInContainer]] = []
    uri: ClassVar[str] = ""

    def __init__(self, image: str, **options) -> None:
        self.image, self.command, self.stopped = image, None, False
        self.options = options
        StandInContainer.made.append(self)

    def with_command(self, command):
        self.command = command
        return self

    def start(self):
        return self

    def get_connection_url(self) -> str:
        return self.uri

    def get_logs(self) -> tuple[bytes, bytes]:
        return b"stand-in container log\n", b""

    def stop(self) -> None:
        self.stopped = True


@pytest.fixture
def docker(wire_server, monkeypatch):
    """Docker "available", its MongoDB container a stand-in answering with the scripted
    server (serverStatus as a mongod started with --wiredTigerCacheSizeGB 0.25 states it)."""
    from testcontainers.community import mongodb

    monkeypatch.setattr(base, "docker_status", lambda: (True, "Docker (a stand-in)"))
    monkeypatch.setattr(mongodb, "MongoDbContainer", StandInContainer)
    monkeypatch.setattr(StandInContainer, "made", [])
    monkeypatch.setattr(StandInContainer, "uri", wire_server.uri)
    wire_server.on("serverStatus", server_status(256 * 1024**2))
    return StandInContainer.made


def test_docker_mongod_gets_the_cache_and_the_normal_timeout(docker, wire_server):
    """In Docker labkit runs mongo:<version> with --wiredTigerCacheSizeGB, reports the cache the
    server states, keeps a client with the normal 5 s timeout (before: discovery's one
    second), and stops the container with the server."""
    with servers.get_mongodb("docker", "7.0") as server:
        [container] = docker
        assert container.image == "mongo:7.0"
        assert container.command == ["--wiredTigerCacheSizeGB", "0.25"]
        # Its own password: testcontainers' default "test" would be hidden as *** wherever the
        # word shows in a lesson or a report (issue 44).
        assert container.options["username"] == "labkit"
        assert len(container.options["password"]) >= 24
        assert (server.how, server.version) == ("docker", "7.0.16")
        assert str(server.cache) == "WiredTiger cache 0.25 GB (set by labkit)"
        assert server.client().options.server_selection_timeout == 5.0
        assert not container.stopped
    assert container.stopped
    assert wire_server.commands() == ["ping", "buildinfo", "serverStatus"]


def test_a_docker_mongod_that_stops_answering_is_a_start_error(docker, wire_server):
    """A container whose mongod answers ping and then hangs up is a ServerStartError with the
    container's log; the container is stopped."""
    wire_server.on("buildInfo", hangup=True)
    with pytest.raises(servers.ServerStartError) as caught:
        servers.get_mongodb("docker", "7.0")
    assert str(caught.value.message).startswith("Docker could not start mongo:7.0 (")
    assert caught.value.log_tail == "stand-in container log"
    assert docker[0].stopped
