"""What ``labkit server --room`` sends to the room's first mongod (access control on, on
127.0.0.1, its first user made through the localhost exception) to make its users, over the
wire through real pymongo against the scripted server; and, where a local mongod exists, the
whole room started for real.

The replies: ``createRole`` and ``createUser`` answer ``{ok: 1}`` alone, since neither names a
``reply_type`` in src/mongo/db/commands/user_management_commands.idl (mongodb/mongo at commit
0107dc33, where an IDL command without one replies with the plain OK reply); both commands
are ``strict: true`` there, so a field the file does not list is refused, and these tests
check labkit sends only listed ones. A refusal is ``mongo_wire.unauthorized`` (13, the reply
of a server with access control on to a connection without the privilege).
"""

from __future__ import annotations

import pytest
from mongo_wire import unauthorized
from wire_replies import hosted_role

from labkit import servers
from labkit.servers import room

wire = pytest.mark.wire

# The fields user_management_commands.idl lists for each command (same commit), beside the
# command's own name.
CREATE_ROLE_FIELDS = {"createRole", "privileges", "roles", "authenticationRestrictions"}
CREATE_USER_FIELDS = {"createUser", "pwd", "customData", "roles", "digestPassword",
                      "authenticationRestrictions", "mechanisms"}


@pytest.fixture
def client(wire_server):
    client = servers.mongo_client(wire_server.uri)
    yield client
    client.close()


@wire
def test_the_role_then_its_user_are_created_in_admin(wire_server, client):
    """labkit sends createRole (notebooks/hosted.md's privileges, no inherited role) and then
    createUser (the generated password, that one role in admin), both to admin, and nothing
    else."""
    wire_server.on("createRole", {"ok": 1.0})
    wire_server.on("createUser", {"ok": 1.0})
    room.create_user(client, "pw-generated")
    assert wire_server.commands() == ["createRole", "createUser"]
    role, user = wire_server.sent
    assert (role.db, user.db) == ("admin", "admin")
    assert role["createRole"] == "labkitRole"
    assert [(p["resource"], p["actions"]) for p in role["privileges"]] == hosted_role()
    assert role["roles"] == []
    assert user["createUser"] == "labkit"
    assert user["pwd"] == "pw-generated"
    assert user["roles"] == [{"role": "labkitRole", "db": "admin"}]


@wire
def test_only_fields_the_server_knows_are_sent(wire_server, client):
    """Each command carries only fields its strict IDL lists (a strict command refuses any
    other, so a stray option would fail the room on a real server)."""
    wire_server.on("createRole", {"ok": 1.0})
    wire_server.on("createUser", {"ok": 1.0})
    room.create_user(client, "pw")
    role, user = (sent.as_written() for sent in wire_server.sent)
    assert set(role) <= CREATE_ROLE_FIELDS
    assert set(user) <= CREATE_USER_FIELDS


@wire
def test_no_user_is_created_when_the_role_is_refused(wire_server, client):
    """A server that refuses createRole (one with access control on already) gets no
    createUser: the error reaches the caller, which stops the room and says why."""
    from pymongo.errors import OperationFailure

    wire_server.on("createRole", unauthorized("createRole"))
    with pytest.raises(OperationFailure) as caught:
        room.create_user(client, "pw")
    assert caught.value.code == 13
    assert wire_server.commands() == ["createRole"]


# A real room, on a local mongod ---------------------------------------------------------------


@pytest.fixture
def local_mongod():
    if servers.find_mongod() is None:
        pytest.skip("no local mongod (LABKIT_MONGOD or PATH): the room starts one of its own")


@pytest.mark.mongodb
@pytest.mark.slow
def test_a_room_lets_its_user_in_and_nobody_else(local_mongod):
    """The room's mongod, started for real on 127.0.0.1: the student URI connects and may run
    the experiments (connectionStatus), and a connection without the password is refused a
    command that needs authentication (13), so access control is on and the localhost
    exception is closed."""
    from pymongo.errors import OperationFailure

    from labkit.servers.privileges import read_privileges
    from labkit.servers.process import free_port

    with room.start("127.0.0.1", free_port(), 0.25) as started:
        with servers.mongo_client(started.uri) as client:
            assert read_privileges(client).usable
        anonymous = f"mongodb://127.0.0.1:{started.port}/?directConnection=true"
        with servers.mongo_client(anonymous) as client, pytest.raises(OperationFailure) as no:
            client["labkit_probe"].list_collection_names()
        assert no.value.code == 13


@wire
def test_the_setup_user_is_made_through_the_localhost_exception(wire_server, client):
    """The first user, made anonymously through the localhost exception: labkitSetup, an
    administrator of users only (userAdminAnyDatabase in admin), with the generated password;
    then dropped by name."""
    wire_server.on("createUser", {"ok": 1.0})
    wire_server.on("dropUser", {"ok": 1.0})
    room.create_setup_user(client, "setup-pw")
    room.drop_setup_user(client)
    assert wire_server.commands() == ["createUser", "dropUser"]
    made, dropped = wire_server.sent
    assert set(made.as_written()) - {"$db", "lsid", "$readPreference"} <= CREATE_USER_FIELDS
    assert (made["createUser"], made["pwd"]) == ("labkitSetup", "setup-pw")
    assert made["roles"] == [{"role": "userAdminAnyDatabase", "db": "admin"}]
    assert (made.db, dropped.db, dropped["dropUser"]) == ("admin", "admin", "labkitSetup")


@wire
def test_a_user_made_first_by_someone_else_stops_the_room(wire_server, client):
    """Where another local account made a user first, the localhost exception is closed and
    createUser is refused (13, unauthorized): labkit raises, and the room does not start."""
    from pymongo.errors import OperationFailure

    wire_server.on("createUser", unauthorized("createUser"))
    with pytest.raises(OperationFailure) as refused:
        room.create_setup_user(client, "setup-pw")
    assert refused.value.code == 13
