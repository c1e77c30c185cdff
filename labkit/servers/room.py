"""One MongoDB server for a room: a ``mongod`` labkit starts on the instructor's machine, bound
to the address the instructor names, with access control on and one user, of the
least-privilege role notebooks/hosted.md gives, whose password labkit generates; the one line
students paste is its URI.

The steps follow the manual's "Enable Access Control on Self-Managed Deployments" and
"Localhost Exception" pages: start ``mongod`` with access control (``--auth``) from its first
moment, reachable from this machine only (``--bind_ip 127.0.0.1``, on a port the system
picks, not the room's), make the first user through the localhost exception (an
administrator of users, ``labkitSetup``, whose password is never kept), as it make the role
and the room's user and drop itself, then start it again on the room's address and port.
While there is no user, the exception lets one local connection make the first one and
nothing else; once a user exists it is off, so nobody, on this machine or in the room, gets
in without the password, and an account that made a user first makes the room refuse to
start.

The password goes to the server over the wire (``createUser``'s ``pwd``), never on a command
line, and is remembered by ``_redact`` at once, so no error, log line or report shows it; only
the student line shows it, where the instructor asks for it (``labkit server --room
--show-password``) or in the file only the instructor can read.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import re
import secrets
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labkit import _redact
from labkit.errors import BadInput, ServerStartError, ServerUnavailable
from labkit.i18n import N_, Message
from labkit.servers import mongo
from labkit.servers.mark import config_dir, write_private
from labkit.servers.privileges import read_privileges
from labkit.servers.process import OwnedServer, free_port
from labkit.servers.reaper import STOP_GRACE

if TYPE_CHECKING:
    from pymongo import MongoClient

ROLE = "labkitRole"
USER = "labkit"
ROOM_PORT = 27017  # mongod's own default port: the one students are least likely to mistype
LINE_FILE = "room-uri.txt"  # beside the installation's secret, readable by its owner only

# notebooks/hosted.md, "The smallest user: a custom role" (tests/test_room.py reads that page and
# compares): every action labkit's experiments use on any database, and serverStatus on the
# cluster; fsync is left out, as there, since it forces a checkpoint of the whole server.
ROLE_PRIVILEGES: list[dict[str, Any]] = [
    {"resource": {"db": "", "collection": ""},
     "actions": ["find", "insert", "update", "remove", "createCollection", "dropCollection",
                 "listCollections", "collStats", "dropDatabase"]},
    {"resource": {"cluster": True}, "actions": ["serverStatus"]},
]

_LOCAL = {"127.0.0.1", "localhost", "::1"}
_HOST_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$")


def check_address(address: str) -> str:
    """The address students reach this machine at (an IP address, written as ``ipaddress``
    writes it, or a host name), checked; ``BadInput`` for a wildcard in any spelling (``::0``,
    ``0:0:0:0:0:0:0:0``; it binds every network, public Wi-Fi included, and names no machine
    a student can type), for an IPv4 address in a form other than four decimal numbers
    (``0``, ``0x0``, ``00.0.0.0``: the C library reads them, often as 0.0.0.0), or for text
    that is neither."""
    text = address.strip()
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        if _old_ipv4_form(text):
            raise BadInput(Message(N_("--room {address} is an IPv4 address in an old form; write "
                                      "it as four decimal numbers, such as 192.168.1.20"),
                                   address=repr(address))) from None
        if not _HOST_NAME.match(text):
            raise BadInput(Message(N_("--room {address} is neither an IP address nor a host "
                                      "name"), address=repr(address))) from None
        return text
    mapped = getattr(ip, "ipv4_mapped", None)
    if ip.is_unspecified or (mapped is not None and mapped.is_unspecified):
        raise _wildcard(text)
    return f"::ffff:{mapped}" if mapped is not None else str(ip)


def _wildcard(address: str) -> BadInput:
    return BadInput(Message(N_("--room {address} binds every network this machine is on and "
                               "names no machine students can reach: give this machine's "
                               "address in the room's network, such as 192.168.1.20"),
                            address=address))


def _old_ipv4_form(text: str) -> bool:
    """Whether the C library reads ``text`` as an IPv4 address (``inet_aton``: ``0``, ``0x0``,
    ``10.1``, ``012.0.0.1``) though it is no dotted-decimal one."""
    if not _NUMERIC.fullmatch(text):  # glibc's inet_aton also takes "1.2.3.4 anything"
        return False
    try:
        socket.inet_aton(text)
    except (OSError, ValueError):
        return False
    return True


_NUMERIC = re.compile(r"[0-9A-Fa-fXx.]+")


def check_port(port: int) -> int:
    """A TCP port a ``mongod`` can listen on; ``BadInput`` otherwise."""
    if not 1 <= port <= 65535:
        raise BadInput(Message(N_("--port {port} is not a TCP port (1 to 65535)"),
                               port=str(port)))
    return port


def bind_addresses(address: str) -> list[str]:
    """What ``--bind_ip`` gets: the room's address, and 127.0.0.1 beside it, so the instructor's
    own machine reaches the server too (the manual's ``--bind_ip`` takes a comma-separated
    list)."""
    return [address] if address in _LOCAL else ["127.0.0.1", address]


def mongod_command(binary: str, dbpath: Path, log: Path, port: int, addresses: list[str], *,
                   auth: bool, cache_gb: float) -> list[str]:
    """The ``mongod`` command line for the room: options as the manual's "mongod" reference
    page names them (``--dbpath``, ``--port``, ``--bind_ip``, ``--auth``, ``--logpath``,
    ``--wiredTigerCacheSizeGB``); never a password."""
    command = [binary, "--dbpath", str(dbpath), "--port", str(port),
               "--bind_ip", ",".join(addresses), "--logpath", str(log),
               "--setParameter", "diagnosticDataCollectionEnabled=false",
               "--wiredTigerCacheSizeGB", str(cache_gb)]
    if any(":" in address for address in addresses):
        # mongod resolves its bind addresses as IPv4 unless --ipv6 is given: an IPv6 one is
        # then skipped, and the room would listen on 127.0.0.1 alone (src/mongo/transport/asio/
        # asio_transport_layer.cpp, mongodb/mongo at 02bf3f55: "Found no addresses for peer").
        command.append("--ipv6")
    if auth:
        command.append("--auth")
    if os.name != "nt":  # Windows builds have no Unix socket option
        command.append("--nounixsocket")
    return command


def new_password() -> str:
    """A generated password: 24 characters of ``secrets.token_urlsafe`` (letters, digits, ``-``
    and ``_``, which a URI's user information takes as they are), remembered by ``_redact``."""
    password = secrets.token_urlsafe(18)
    _redact.remember(student_uri("127.0.0.1", ROOM_PORT, password))
    return password


def student_uri(address: str, port: int, password: str) -> str:
    """The URI students set as LABKIT_MONGODB_URI: labkit's user at the room's address, its
    user kept in ``admin`` (``authSource``), one server (``directConnection``)."""
    host = f"[{address}]" if ":" in address else address
    return (f"mongodb://{USER}:{password}@{host}:{port}/"
            "?authSource=admin&directConnection=true")


SETUP_USER = "labkitSetup"  # made first, through the localhost exception; dropped after


def create_setup_user(client: MongoClient[dict[str, Any]], password: str) -> None:
    """The first user of a server started with access control, made through the manual's
    "Localhost Exception" (a connection from this machine may create the first user, and
    nothing else, while there is none): an administrator of users only
    (``userAdminAnyDatabase``), which then makes the room's role and user. Where another
    account made a user first, the exception is closed and the server refuses (13): labkit
    then stops, rather than serve a room someone else holds a user of."""
    client.admin.command({"createUser": SETUP_USER, "pwd": password,
                          "roles": [{"role": "userAdminAnyDatabase", "db": "admin"}]})


def _first_user(client: MongoClient[dict[str, Any]], password: str) -> None:
    """``create_setup_user``, a refusal said as what it means: someone was first."""
    from pymongo.errors import OperationFailure

    try:
        create_setup_user(client, password)
    except OperationFailure as exc:
        if exc.code != 13:
            raise
        raise ServerStartError(Message(N_(
            "another account on this machine made a user on the room's new server before "
            "labkit could (the localhost exception admits only the first): the room does "
            "not start"))) from exc


def drop_setup_user(client: MongoClient[dict[str, Any]]) -> None:
    """Drop the setup user once the room's user exists (its password was never kept)."""
    client.admin.command({"dropUser": SETUP_USER})


def create_user(client: MongoClient[dict[str, Any]], password: str) -> None:
    """Create the room's role and its one user, in ``admin`` (the manual's "createRole" and
    "createUser" pages: the role's privileges and inherited roles, the user's password and
    roles), on a server that has neither yet."""
    # Both commands reply {ok: 1} alone: neither names a reply_type in
    # src/mongo/db/commands/user_management_commands.idl, and both are strict (a field the
    # file does not list is refused).
    client.admin.command({"createRole": ROLE, "privileges": ROLE_PRIVILEGES, "roles": []})
    client.admin.command({"createUser": USER, "pwd": password,
                          "roles": [{"role": ROLE, "db": "admin"}]})


@dataclass
class Room:
    """The room's server while it runs: where students reach it, its version, the line they
    paste, and how it stops (``stop``, or Ctrl-C's clean-up at exit)."""

    address: str
    port: int
    version: str
    uri: str
    owned: OwnedServer

    @property
    def shown_uri(self) -> str:
        """The URI with its password hidden, as any log may show it."""
        return _redact.redact(self.uri)

    def stop(self) -> None:
        """Stop the room's mongod and remove its data (once; again is nothing)."""
        self.owned.stopper()

    def __enter__(self) -> Room:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def write_line(uri: str, folder: Path | None = None) -> Path:
    """Write the student line (``export LABKIT_MONGODB_URI='…'``) to a file only its owner may
    read, beside the installation's secret (its folder checked as the secret's, a link there
    replaced, never followed), and return its path."""
    target = (folder or config_dir()) / LINE_FILE
    write_private(target, export_line(uri) + "\n")
    return target


def export_line(uri: str) -> str:
    """The shell line students paste (quoted for any POSIX shell)."""
    import shlex

    return f"export LABKIT_MONGODB_URI={shlex.quote(uri)}"


def start(address: str, port: int, cache_gb: float) -> Room:
    """Start the room's ``mongod`` (``LABKIT_MONGOD`` or the one on PATH): its user created on
    127.0.0.1 without access control, then started again with ``--auth`` on ``address``."""
    binary = mongo.find_mongod()
    if binary is None:
        raise ServerUnavailable(
            Message(N_("--room starts a mongod on this machine, and there is none: {why}"),
                    why=mongo.mongod_missing_reason() or ""),
            hint=Message(N_("install MongoDB's server (conda install -c conda-forge mongodb, or "
                            "MongoDB's packages), or point LABKIT_MONGOD at its mongod.")))
    check_port_free(bind_addresses(address), port)
    owned = OwnedServer("mongod-room", "mongod.log")
    dbpath = owned.workdir / "db"
    dbpath.mkdir()
    password = new_password()
    # The first start has access control on from its first moment, on 127.0.0.1 at a port the
    # system picks: the localhost exception lets the first connection from this machine make
    # the first user, labkit's setup user, and nothing else. Another local account that came
    # first would make labkit's createUser fail (13): the room then does not start.
    first = free_port()
    setup = secrets.token_urlsafe(18)
    _redact.remember(setup)
    try:
        owned.port = first
        _run(owned, mongod_command(binary, dbpath, owned.log, first, ["127.0.0.1"], auth=True,
                                   cache_gb=cache_gb))
        with _client(first) as client:
            _first_user(client, setup)
        with _client(first, SETUP_USER, setup) as client:
            create_user(client, password)
            drop_setup_user(client)
        _stop_process(owned)
        owned.port = port
        _run(owned, mongod_command(binary, dbpath, owned.log, port, bind_addresses(address),
                                   auth=True, cache_gb=cache_gb))
        uri = student_uri(address, port, password)
        version = _check_student(port, password)
    except Exception as exc:
        raise owned.failed(
            Message(N_("Started {binary} for the room on port {port}, but it did not come up "
                       "with its user: {error}"), binary=binary, port=str(port),
                    error=_redact.redact(str(exc))),
            hint=Message(N_("is another server on port {port}? Choose another with --port, or "
                            "run the same mongod by hand to see why."), port=str(port))) from exc
    return Room(address=address, port=port, version=version, uri=uri, owned=owned)


def check_port_free(addresses: list[str], port: int) -> None:
    """Refuse to start where something listens on ``port`` already (labkit would otherwise
    create its user on that other server) or where ``address`` is not this machine's, or
    names it only by a loopback address (Debian maps a machine's own host name to 127.0.1.1
    in /etc/hosts: a room bound there is out of every student's reach)."""
    for address in addresses:
        _refuse_loopback_name(address)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            if os.name != "nt":  # as mongod does; on Windows the option lets a port be shared
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((address, port))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise BadInput(Message(N_("port {port} on {address} is taken (another "
                                              "server?): choose another with --port"),
                                           port=str(port), address=address)) from exc
                raise BadInput(Message(N_("--room {address} is not an address of this machine "
                                          "({error})"), address=address,
                                       error=exc.strerror or str(exc))) from exc


def _refuse_loopback_name(address: str) -> None:
    """BadInput where ``address`` is a host name (not ``localhost``) that this machine resolves
    to loopback addresses only."""
    if address in _LOCAL:
        return
    try:
        ipaddress.ip_address(address)
        return
    except ValueError:
        pass
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(address, None,
                                                               type=socket.SOCK_STREAM)}
    except OSError:  # a name that does not resolve: the bind below says so
        return
    if found and all(ipaddress.ip_address(ip.split("%")[0]).is_unspecified for ip in found):
        raise _wildcard(address)  # a name /etc/hosts gives 0.0.0.0 (as ad-blocking lists do)
    if found and all(ipaddress.ip_address(ip.split("%")[0]).is_loopback for ip in found):
        raise BadInput(Message(N_("--room {address} names this machine only by a loopback "
                                  "address ({found}), which no student can reach: give this "
                                  "machine's address in the room's network, such as "
                                  "192.168.1.20"), address=address,
                               found=", ".join(sorted(found))))


def _run(owned: OwnedServer, command: list[str]) -> None:
    owned.popen(command)
    mongo._ping_until(f"mongodb://127.0.0.1:{owned.port}/?directConnection=true", owned.running)


def _client(port: int, user: str = "", password: str = "") -> MongoClient[dict[str, Any]]:
    """A client of the first start, anonymous (the localhost exception) or as ``user``."""
    login = f"{user}:{password}@" if user else ""
    source = "&authSource=admin" if user else ""
    return mongo.mongo_client(f"mongodb://{login}127.0.0.1:{port}/?directConnection=true"
                              f"{source}")


def _stop_process(owned: OwnedServer) -> None:
    """Stop the first ``mongod`` (SIGTERM: mongod's clean shutdown) before the second starts on
    the same data."""
    process = owned.process
    if process is None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired as exc:
        process.kill()
        process.wait()
        raise ServerStartError(Message(N_("the room's first mongod did not stop within {seconds} "
                                          "s"), seconds=STOP_GRACE)) from exc


def _check_student(port: int, password: str) -> str:
    """Connect as the students will (on 127.0.0.1) and return the server's version, once
    ``connectionStatus`` says the user may run the experiments."""
    with mongo.mongo_client(student_uri("127.0.0.1", port, password)) as client:
        privileges = read_privileges(client)
        if not privileges.usable:
            raise ServerStartError(Message(N_("the room's user cannot run the experiments: "
                                              "{report}"), report=privileges.report()))
        return str(client.server_info()["version"])
