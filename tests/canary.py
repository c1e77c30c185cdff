"""Canaries on a user's PostgreSQL (``LABKIT_POSTGRES_DSN``): a database and tables labkit did
not create, planted before the suite and compared byte for byte after it."""

from __future__ import annotations

import uuid

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from labkit import servers

ROWS = [(i, f"row {i}", bytes([i % 256]) * 7) for i in range(200)]


def plant(server: servers.PostgresServer) -> str:
    """Create an unmarked ``labkit_canary_<random>`` database holding two tables; its name."""
    name = f"labkit_canary_{uuid.uuid4().hex[:8]}"
    with server.connect() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    with server.connect(_in(server, name)) as conn:
        conn.execute("CREATE TABLE precious (id int PRIMARY KEY, note text, blob bytea)")
        conn.execute("CREATE TABLE t (id int PRIMARY KEY)")  # the name the B-tree loads use
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO precious VALUES (%s, %s, %s)", ROWS)
            cur.executemany("INSERT INTO t VALUES (%s)", [(i,) for i in range(50)])
    return name


def _in(server: servers.PostgresServer, database: str) -> str:
    return make_conninfo(**{**conninfo_to_dict(server.dsn), "dbname": database})


def fingerprint(server: servers.PostgresServer, canary: str) -> dict:
    """Every database labkit did not mark (name, owner, comment), and the canary's tables'
    contents as digests. Other test sessions' canaries (a suite running at the same time on
    the same server plants and removes its own) are not this session's to watch."""
    with server.connect() as conn:
        databases = conn.execute(
            "SELECT datname, pg_get_userbyid(datdba), shobj_description(oid, 'pg_database') "
            "FROM pg_database WHERE coalesce(shobj_description(oid, 'pg_database'), '') "
            "NOT LIKE %s AND (datname NOT LIKE 'labkit\\_canary\\_%%' OR datname = %s) "
            "ORDER BY datname", (servers.MARK + "%", canary)).fetchall()
    tables = {}
    with server.connect(_in(server, canary)) as conn:
        for (table,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = "
                                     "'public' ORDER BY 1").fetchall():
            tables[table] = conn.execute(
                f"SELECT md5(string_agg(r::text, ',' ORDER BY r::text)), count(*) "
                f'FROM "{table}" AS r').fetchone()
    return {"databases": databases, "tables": tables}


def remove(server: servers.PostgresServer, canary: str) -> None:
    """Drop the canary database (the suite's own, by its random name)."""
    with server.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{canary}" WITH (FORCE)')
