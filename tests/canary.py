"""Canaries on a PostgreSQL server: a database and tables labkit did not create, and beside it
issue 18's forgeries (a bare ``labkit:`` comment, a real mark copied onto another name, another
role's database carrying a mark that verifies), each holding a table of data; planted before
the suite (or a clean-up) and compared byte for byte after it."""

from __future__ import annotations

import uuid

import psycopg
from helpers import database_comment, wait_until
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from labkit import servers

ROWS = [(i, f"row {i}", bytes([i % 256]) * 7) for i in range(200)]
# What each forgery's name ends with, after the canary's name.
BARE, COPY, ROLE = "_bare", "_copy", "_role"
OLD_COMMENT = f"{servers.MARK} created by a labkit run on 2026-11-30T12:00:00+00:00; removed " \
              "when it ends"  # the comment labkit wrote before its mark was keyed


def plant(server: servers.PostgresServer) -> str:
    """Create an unmarked ``labkit_canary_<random>`` database holding two tables, and its
    forgeries (``forgeries``); return its name."""
    name = f"labkit_canary_{uuid.uuid4().hex[:8]}"
    _database(server, name)
    _fill(server, name, two_tables=True)
    real = servers.PostgresServer(dsn=server.dsn, how="dsn", version="?")
    try:
        real_mark = database_comment(server, _name_of(real.fresh_database("canary_real")))
    finally:
        real.stop()
    _database(server, name + BARE, comment=OLD_COMMENT)
    _database(server, name + COPY, comment=real_mark)
    try:
        with server.connect() as conn:
            conn.execute(f'CREATE ROLE "{name + ROLE}" NOLOGIN')
        _database(server, name + ROLE, comment=servers.mark_for(name + ROLE), owner=name + ROLE)
    except psycopg.errors.InsufficientPrivilege:
        pass  # a role that may not create roles: that forgery is not planted
    for forged in forgeries(server, name):
        _fill(server, forged, two_tables=False)
    return name


def forgeries(server: servers.PostgresServer, canary: str) -> list[str]:
    """The forgeries planted beside ``canary`` that exist now."""
    with server.connect() as conn:
        return [row[0] for row in conn.execute(
            "SELECT datname FROM pg_database WHERE datname = ANY(%s) ORDER BY datname",
            ([canary + end for end in (BARE, COPY, ROLE)],))]


def _database(server: servers.PostgresServer, name: str, comment: str | None = None,
              owner: str | None = None) -> None:
    with server.connect() as conn:
        create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if owner:
            create += sql.SQL(" OWNER {}").format(sql.Identifier(owner))
        conn.execute(create)
        if comment is not None:
            conn.execute(sql.SQL("COMMENT ON DATABASE {} IS {}").format(
                sql.Identifier(name), sql.Literal(comment)))


def _fill(server: servers.PostgresServer, name: str, two_tables: bool) -> None:
    with server.connect(_in(server, name)) as conn:
        conn.execute("CREATE TABLE precious (id int PRIMARY KEY, note text, blob bytea)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO precious VALUES (%s, %s, %s)", ROWS)
        if two_tables:
            conn.execute("CREATE TABLE t (id int PRIMARY KEY)")  # the name the B-tree loads use
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO t VALUES (%s)", [(i,) for i in range(50)])




def _name_of(dsn: str) -> str:
    return str(conninfo_to_dict(dsn)["dbname"])


def _in(server: servers.PostgresServer, database: str) -> str:
    return make_conninfo(**{**conninfo_to_dict(server.dsn), "dbname": database})


def _planted(canary: str, name: str) -> bool:
    return name == canary or name in (canary + end for end in (BARE, COPY, ROLE))


# How long a database of labkit's name may stay unmarked before the fingerprint counts it.
_BEING_MADE = 10.0


def _databases(server: servers.PostgresServer) -> list[tuple]:
    with server.connect() as conn:
        return conn.execute(
            "SELECT datname, pg_get_userbyid(datdba), shobj_description(oid, 'pg_database') "
            "FROM pg_database ORDER BY datname").fetchall()


def _watched(canary: str, row: tuple) -> bool:
    """Whether the fingerprint holds database ``row``: planted with ``canary``, or neither
    marked as labkit's nor another session's canary."""
    return _planted(canary, row[0]) or (
        not (row[2] or "").startswith(servers.MARK) and not row[0].startswith("labkit_canary_"))


def _being_made(canary: str, row: tuple) -> bool:
    """Whether ``row`` may be a database labkit is making at this moment: labkit marks one by a
    second statement after CREATE DATABASE (which cannot run in a transaction), so another
    test's run may show its database unmarked for a few milliseconds."""
    return _watched(canary, row) and not _planted(canary, row[0]) \
        and row[0].startswith(servers.DB_PREFIX)


def fingerprint(server: servers.PostgresServer, canary: str) -> dict:
    """Every database without a ``labkit:`` comment and every one planted with ``canary`` (name,
    owner, comment), and the planted ones' tables' contents as digests. Other test sessions'
    canaries (a suite running at the same time on the same server plants and removes its own)
    are not this session's to watch. A database labkit may be making (``_being_made``) is read
    again once marked; one still unmarked after ``_BEING_MADE`` seconds is counted like any
    other, so nothing unmarked goes unwatched."""
    read = [_databases(server)]

    def settled() -> bool:
        read[0] = _databases(server)
        return not any(_being_made(canary, row) for row in read[0])

    if any(_being_made(canary, row) for row in read[0]):
        wait_until(settled, _BEING_MADE)
    databases = [row for row in read[0] if _watched(canary, row)]
    tables = {}
    for database in (row[0] for row in databases if _planted(canary, row[0])):
        with server.connect(_in(server, database)) as conn:
            for (table,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = "
                                         "'public' ORDER BY 1").fetchall():
                tables[f"{database}.{table}"] = conn.execute(
                    f"SELECT md5(string_agg(r::text, ',' ORDER BY r::text)), count(*) "
                    f'FROM "{table}" AS r').fetchone()
    return {"databases": databases, "tables": tables}


def remove(server: servers.PostgresServer, canary: str) -> None:
    """Drop the canary database, its forgeries and the forgers' role (the suite's own, by
    their random names)."""
    with server.connect() as conn:
        for end in ("", BARE, COPY, ROLE):
            conn.execute(f'DROP DATABASE IF EXISTS "{canary + end}" WITH (FORCE)')
        conn.execute(f'DROP ROLE IF EXISTS "{canary + ROLE}"')
