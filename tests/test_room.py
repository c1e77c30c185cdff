"""The room's server (``labkit server --room``) without a server: the mongod command lines labkit
would run, the address and port it accepts, the student line and where it is kept, and that
the generated password is hidden everywhere else (``_redact``). What labkit sends to the server
is in tests/test_wire_room.py.

The options are the manual's "mongod" command-line reference (Configuration File Settings and
Command-Line Options Mapping; ``--bind_ip`` takes a comma-separated list of addresses, ``--auth``
turns access control on, ``--port`` the TCP port), and the two starts follow the manual's
"Enable Access Control on Self-Managed Deployments" page: without access control on localhost
to create the user, then with ``--auth``.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import sys

import pytest
from wire_replies import hosted_role

from labkit import _redact
from labkit.errors import BadInput, SecretUnusable
from labkit.servers import room


def _options(command: list[str]) -> dict[str, str | None]:
    """A mongod command line as its options: ``--name value`` pairs, and flags as None."""
    found: dict[str, str | None] = {}
    words = command[1:]
    for i, word in enumerate(words):
        if word.startswith("--"):
            following = words[i + 1] if i + 1 < len(words) else ""
            found[word] = None if not following or following.startswith("--") else following
    return found


def test_the_first_start_is_local_and_with_access_control(tmp_path):
    """The first mongod listens on 127.0.0.1 alone, with ``--auth`` from its first moment:
    only this machine can reach it, and only the localhost exception's first user can be
    made there (issue 46, item 6: without --auth, any local account could make a root user
    of its own before labkit's existed)."""
    command = room.mongod_command("/opt/mongod", tmp_path / "db", tmp_path / "log", 40123,
                                  ["127.0.0.1"], auth=True, cache_gb=0.25)
    options = _options(command)
    assert command[0] == "/opt/mongod"
    assert options["--bind_ip"] == "127.0.0.1"
    assert options["--port"] == "40123"
    assert "--auth" in options
    assert options["--dbpath"] == str(tmp_path / "db")


def test_the_second_start_binds_the_rooms_address_with_access_control(tmp_path):
    """The second mongod has ``--auth`` and binds the room's address and 127.0.0.1, as one
    comma-separated ``--bind_ip``; the same data folder, so the user created first is there."""
    addresses = room.bind_addresses("192.0.2.7")
    command = room.mongod_command("/opt/mongod", tmp_path / "db", tmp_path / "log", 27018,
                                  addresses, auth=True, cache_gb=0.25)
    options = _options(command)
    assert options["--bind_ip"] == "127.0.0.1,192.0.2.7"
    assert "--auth" in options
    assert options["--auth"] is None
    assert options["--port"] == "27018"
    assert options["--dbpath"] == str(tmp_path / "db")


def test_no_command_line_carries_the_password(tmp_path):
    """The password goes over the wire (createUser's pwd), never on mongod's command line,
    which any user of the machine can read (``ps``)."""
    password = room.new_password()
    for auth in (False, True):
        command = room.mongod_command("/opt/mongod", tmp_path, tmp_path / "log", 27017,
                                      room.bind_addresses("192.0.2.7"), auth=auth, cache_gb=1)
        assert password not in " ".join(command)


@pytest.mark.parametrize("address", ["127.0.0.1", "localhost", "::1"])
def test_a_local_address_is_bound_once(address):
    """A room on this machine alone binds that address only, never 127.0.0.1 twice."""
    assert room.bind_addresses(address) == [address]


# Issue 46, item 6: every spelling of a wildcard the issue found accepted, each of which the
# C library or mongod reads as 0.0.0.0 or ::.
WILDCARD_SPELLINGS = ["0.0.0.0", "::", "::0", "0::", "0:0:0:0:0:0:0:0", "::ffff:0.0.0.0"]
OLD_IPV4_FORMS = ["0", "0.0", "0x0", "00.0.0.0", "0x7f.1", "012.0.0.1", "3232235796"]


@pytest.mark.parametrize("address", WILDCARD_SPELLINGS)
def test_a_wildcard_address_is_refused_with_a_reason(address):
    """``--room 0.0.0.0`` binds every network (public Wi-Fi too) and names no machine a student
    can type: refused, with an example of what to give."""
    with pytest.raises(BadInput, match=r"192\.168\.1\.20"):
        room.check_address(address)


@pytest.mark.parametrize("address", OLD_IPV4_FORMS)
def test_an_ipv4_address_in_an_old_form_is_refused(address):
    """``inet_aton`` reads ``0``, ``0x0`` or ``00.0.0.0`` as an address (0.0.0.0 among them):
    only four decimal numbers are taken, so what is bound is what the instructor reads."""
    with pytest.raises(BadInput, match="old form"):
        room.check_address(address)


def test_an_ipv6_address_is_taken_in_its_short_form():
    assert room.check_address("fe80:0:0:0:0:0:0:1") == "fe80::1"


@pytest.mark.parametrize("address", ["192.168.1.20", "fe80::1", "lab-pc.local", "db1"])
def test_addresses_and_host_names_are_accepted(address):
    """An IPv4 or IPv6 address or a host name is taken as it is."""
    assert room.check_address(address) == address


@pytest.mark.parametrize("address", ["http://x", "a b", "-bad", ""])
def test_other_text_is_refused(address):
    """Text that is neither an address nor a host name is refused with one line."""
    with pytest.raises(BadInput, match="neither an IP address nor a host name"):
        room.check_address(address)


@pytest.mark.parametrize("port", [0, 65536, -1])
def test_a_port_out_of_range_is_refused(port):
    """A port outside 1-65535 is refused."""
    with pytest.raises(BadInput, match="not a TCP port"):
        room.check_port(port)


def test_a_taken_port_is_refused_before_any_mongod_starts():
    """Where something listens on the room's port already, labkit refuses at once: otherwise
    its user would be created on that other server."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(BadInput, match=f"port {port} on 127.0.0.1 is taken"):
            room.check_port_free(["127.0.0.1"], port)


def test_a_free_port_passes_the_check():
    """A port nothing listens on passes (the check itself can succeed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    room.check_port_free(["127.0.0.1"], port)


def test_an_address_of_another_machine_is_refused():
    """An address this machine does not have (192.0.2.0/24 is TEST-NET-1, RFC 5737, never
    assigned) cannot be bound: said in one line."""
    with pytest.raises(BadInput, match="not an address of this machine"):
        room.check_port_free(["192.0.2.7"], 27017)


def test_an_ipv6_room_address_gets_mongods_ipv6_option(tmp_path):
    """mongod resolves its bind addresses as IPv4 unless ``--ipv6`` is given, skipping an IPv6
    one (src/mongo/transport/asio/asio_transport_layer.cpp, mongodb/mongo at 02bf3f55): a room
    on 2001:db8::5 gets the option, so it listens where its students' line points; an IPv4
    room does not."""
    def command(address):
        return room.mongod_command("/opt/mongod", tmp_path / "db", tmp_path / "log", 27018,
                                   room.bind_addresses(address), auth=True, cache_gb=0.25)

    assert "--ipv6" in command("2001:db8::5")
    assert _options(command("2001:db8::5"))["--bind_ip"] == "127.0.0.1,2001:db8::5"
    assert "--ipv6" not in command("192.0.2.7")


def test_a_host_name_that_is_only_loopback_here_is_refused(monkeypatch):
    """Debian maps a machine's own host name to 127.0.1.1 in /etc/hosts: a room bound on that
    name would listen where no student reaches, and pass every check made from this machine.
    Such a name is refused, saying what it resolves to; a name resolving to a network address
    is not."""
    import socket

    answers = {"myhost": ["127.0.1.1"], "classroom-pc": ["192.0.2.7"]}
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, 0)) for ip in answers[host]])
    with pytest.raises(BadInput, match=r"--room myhost names this machine only by a loopback "
                                       r"address \(127\.0\.1\.1\)"):
        room.check_port_free(["myhost"], 27017)
    with pytest.raises(BadInput, match="not an address of this machine"):
        room.check_port_free(["classroom-pc"], 27017)  # on to the bind, which refuses it here


def test_the_role_is_the_one_docs_hosted_md_gives():
    """The role labkit creates has exactly the privileges of notebooks/hosted.md's custom role
    (read from the page: every action labkit uses on any database, serverStatus on the
    cluster), so the page and the room cannot drift."""
    made = [(privilege["resource"], privilege["actions"]) for privilege in room.ROLE_PRIVILEGES]
    assert made == hosted_role()


def test_the_student_uri_names_the_user_the_room_and_admin():
    """The line students paste: labkit's user and password at the room's address and port,
    authSource admin (where the user lives), one server; an IPv6 address in brackets."""
    assert room.student_uri("192.0.2.7", 27017, "pw-123_x") == (
        "mongodb://labkit:pw-123_x@192.0.2.7:27017/?authSource=admin&directConnection=true")
    assert room.student_uri("fe80::1", 27017, "p").startswith("mongodb://labkit:p@[fe80::1]:")


def test_the_student_uri_parses_as_pymongo_reads_it():
    """pymongo's own parser reads the user, password, host, port and options back."""
    from pymongo.uri_parser import parse_uri

    password = room.new_password()
    parsed = parse_uri(room.student_uri("192.0.2.7", 27018, password))
    assert (parsed["username"], parsed["password"]) == ("labkit", password)
    assert parsed["nodelist"] == [("192.0.2.7", 27018)]
    assert parsed["options"]["authSource"] == "admin"


def test_generated_passwords_are_long_and_different():
    """Each password is 24 URL-safe characters (no percent-encoding needed), never the same."""
    passwords = {room.new_password() for _ in range(20)}
    assert len(passwords) == 20
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{24}", p) for p in passwords)


def test_the_password_is_hidden_in_any_text_labkit_shows():
    """Once generated, the password is a secret in force: any text ``_redact`` is given
    (an error, a log line) shows it masked, the student URI as ``labkit:***``."""
    password = room.new_password()
    uri = room.student_uri("192.0.2.7", 27017, password)
    assert password not in _redact.redact(f"connect failed: {password} refused")
    assert _redact.redact(uri).startswith("mongodb://labkit:***@192.0.2.7:27017/")
    assert password not in _redact.redact(uri)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_the_student_line_is_kept_for_its_owner_only(tmp_path):
    """The student line goes to a file of mode 0600 beside the installation's secret, also
    where the file existed with a wider mode; it is the export line, quoted for the shell."""
    (tmp_path / room.LINE_FILE).write_text("old")
    os.chmod(tmp_path / room.LINE_FILE, 0o644)
    uri = room.student_uri("192.0.2.7", 27017, "pw")
    path = room.write_line(uri, tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == f"export LABKIT_MONGODB_URI='{uri}'\n"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and modes")
def test_a_link_planted_at_the_student_line_is_replaced_not_followed(tmp_path):
    """A link at room-uri.txt to another file: the line is written as a new file in its place
    and the link's target is left as it was."""
    target = tmp_path / "elsewhere.txt"
    target.write_text("theirs")
    folder = tmp_path / "config"
    folder.mkdir(mode=0o700)
    (folder / room.LINE_FILE).symlink_to(target)
    path = room.write_line(room.student_uri("192.0.2.7", 27017, "pw"), folder)
    assert not path.is_symlink()
    assert target.read_text() == "theirs"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_the_student_line_is_not_written_in_a_folder_others_may_write(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    with pytest.raises(SecretUnusable, match="may be written by others"):
        room.write_line(room.student_uri("192.0.2.7", 27017, "pw"), folder)
    assert not (folder / room.LINE_FILE).exists()


def test_the_first_start_is_closed_and_off_the_rooms_port(monkeypatch, tmp_path):
    """Issue 46, item 6: the first mongod has --auth from its first moment and listens on
    127.0.0.1 at a port the system picks; labkit makes the setup user through the localhost
    exception (anonymous), then, as that user, the room's role and user, and drops the setup
    user; only the second start, with --auth, is on the room's port. Each start as
    ``room.start`` runs it, the server's replies left out (tests/test_wire_room.py sends the
    commands; only a real mongod can confirm the second start takes the data)."""
    started, done = [], []
    monkeypatch.setattr(room.mongo, "find_mongod", lambda: "/opt/mongod")
    monkeypatch.setattr(room, "check_port_free", lambda addresses, port: None)
    monkeypatch.setattr(room, "_run", lambda owned, command: started.append(command))
    monkeypatch.setattr(room, "_client",
                        lambda port, user="", password="": _NoClient(port, user, started))
    monkeypatch.setattr(room, "create_setup_user", lambda client, pw: done.append(
        ("setup", client.user)))
    monkeypatch.setattr(room, "create_user", lambda client, pw: done.append(("user", client.user)))
    monkeypatch.setattr(room, "drop_setup_user", lambda client: done.append(("drop", client.user)))
    monkeypatch.setattr(room, "_stop_process", lambda owned: None)
    monkeypatch.setattr(room, "_check_student", lambda port, password: "8.0.4")
    with room.start("192.0.2.7", 27017, 0.25) as started_room:
        assert started_room.port == 27017
    first, second = started
    first_port = int(first[first.index("--port") + 1])
    assert first_port != 27017
    assert first[first.index("--bind_ip") + 1] == "127.0.0.1"
    assert "--auth" in first
    assert second[second.index("--port") + 1] == "27017"
    assert "--auth" in second
    assert done == [("setup", ""), ("user", room.SETUP_USER), ("drop", room.SETUP_USER)]


class _NoClient:
    """Where ``room.start`` would connect: the first start's port, anonymous or as a user."""

    def __init__(self, port, user, started):
        first = started[0]
        assert port == int(first[first.index("--port") + 1])
        self.user = user

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def test_labkit_server_room_without_a_mongod_says_what_to_install(monkeypatch, tmp_path, capsys):
    """``labkit server --room`` on a machine without mongod: one ``Error:`` line saying the room
    starts a mongod here and there is none, and a hint naming how to get one; exit status 1."""
    from labkit import cli

    monkeypatch.setenv("LABKIT_MONGOD", str(tmp_path / "no-mongod"))
    assert cli.main(["server", "--room", "127.0.0.1", "--port", "27999"]) == 1
    err = capsys.readouterr().err
    assert "Error: --room starts a mongod on this machine, and there is none" in err
    assert "Hint: install MongoDB's server" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("argv", "words"), [
    (["--room", "0.0.0.0"], "binds every network"),
    (["--room", "127.0.0.1", "--port", "70000"], "not a TCP port"),
    (["--room", "127.0.0.1", "--", "echo"], "--room takes no command"),
])
def test_labkit_server_room_refuses_bad_input_in_one_line(capsys, argv, words):
    """A wildcard address, a port out of range, or a command after ``--`` with ``--room``:
    an ``Error:`` line, exit status 2, before anything starts."""
    from labkit import cli

    assert cli.main(["server", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: ")
    assert words in err


def test_a_first_user_made_by_someone_else_stops_the_room_saying_so(monkeypatch):
    """The localhost exception admits one first user: where another account made one first,
    createUser is refused (13) and the room does not start, saying why."""
    from pymongo.errors import OperationFailure

    from labkit.errors import ServerStartError

    started = []
    monkeypatch.setattr(room.mongo, "find_mongod", lambda: "/opt/mongod")
    monkeypatch.setattr(room, "check_port_free", lambda addresses, port: None)
    monkeypatch.setattr(room, "_run", lambda owned, command: started.append(command))
    monkeypatch.setattr(room, "_client",
                        lambda port, user="", password="": _NoClient(port, user, started))

    def refused(client, password):
        raise OperationFailure("not authorized on admin", code=13)
    monkeypatch.setattr(room, "create_setup_user", refused)
    with pytest.raises(ServerStartError, match="another account on this machine made a user"):
        room.start("192.0.2.7", 27017, 0.25)


def test_a_host_name_that_resolves_to_a_wildcard_is_refused(monkeypatch):
    """From a second read: a name /etc/hosts maps to 0.0.0.0 (as ad-blocking lists do) passed
    the address check and bound every network."""
    import socket

    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("0.0.0.0", 0))])
    with pytest.raises(BadInput, match="binds every network"):
        room.check_port_free(["ads.example"], 27017)


@pytest.mark.parametrize(("address", "shown"), [("::FFFF:192.168.1.20", "::ffff:192.168.1.20")])
def test_an_ipv4_mapped_address_keeps_its_ipv4_form(address, shown):
    assert room.check_address(address) == shown


def test_text_after_an_address_is_not_called_an_old_form():
    with pytest.raises(BadInput, match="neither an IP address nor a host name"):
        room.check_address("1.2.3.4 x")
