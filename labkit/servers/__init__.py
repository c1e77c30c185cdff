"""Real database servers for the experiments: found or started, and always cleaned up.

MongoDB comes from, in order: ``LABKIT_MONGODB_URI``, a local ``mongod``
(``LABKIT_MONGOD`` or ``PATH``), Docker through testcontainers. PostgreSQL the
same way: ``LABKIT_POSTGRES_DSN``, local binaries, Docker. On a server the user
owns, labkit only touches databases whose names start with ``labkit_``. A ``mongod``
labkit starts gets the WiredTiger cache asked for, by default the smallest mongod accepts
(0.25 GB, more than the B-tree lesson's index needs at its default size); on a server labkit
did not start, the cache is that server's own.

Every caller gets its server through ``provide`` (``route``); ``Server`` (``base``) is the
interface both vendors share; ``mongo`` and ``postgres`` hold what differs; ``process``
owns the server processes labkit starts, and ``reaper`` stops them if labkit is killed;
``mark`` is labkit's mark on what it creates, keyed with this installation's secret;
``privileges`` reads what a MongoDB user may do (``connectionStatus``) and which roles give it.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""

from __future__ import annotations

from labkit.errors import ServerStartError, ServerUnavailable
from labkit.servers.base import (
    DB_PREFIX,
    RENEW_EVERY,
    STALE_AFTER,
    LeaseTerms,
    Server,
    ServerRequest,
    Stale,
    check_pinned_version,
    docker_status,
    redact,
    why_unproven,
)
from labkit.servers.mark import (
    CONFIG_VARIABLE,
    MARK,
    config_dir,
    mark_for,
    mark_verifies,
    secret_path,
)
from labkit.servers.mongo import (
    ATLAS_ERROR,
    DEFAULT_CACHE_GB,
    DEFAULT_MONGO_VERSION,
    LEASE_COLLECTION,
    MAX_CACHE_GB,
    MIN_CACHE_GB,
    MONGO_HINT,
    MONGO_MODES,
    REFUSED,
    MongoServer,
    check_cache_gb,
    find_mongod,
    from_uri,
    in_replica_set,
    lease_state,
    missing_command,
    mongo_client,
    mongod_missing_reason,
    mongod_version,
    mongodb_missing,
    refused,
)
from labkit.servers.postgres import (
    DEFAULT_POSTGRES_VERSION,
    POSTGRES_HINT,
    POSTGRES_MODES,
    PostgresServer,
    find_postgres_bin,
    from_dsn,
    postgres_bin_version,
)
from labkit.servers.privileges import NEEDS, Need, Privileges, parse_connection_status
from labkit.servers.process import free_port
from labkit.servers.route import clean_user_servers, get_mongodb, get_postgres, mongodb, provide

__all__ = [
    "ATLAS_ERROR",
    "CONFIG_VARIABLE",
    "DB_PREFIX",
    "DEFAULT_CACHE_GB",
    "DEFAULT_MONGO_VERSION",
    "DEFAULT_POSTGRES_VERSION",
    "LEASE_COLLECTION",
    "MARK",
    "MAX_CACHE_GB",
    "MIN_CACHE_GB",
    "MONGO_HINT",
    "MONGO_MODES",
    "NEEDS",
    "POSTGRES_HINT",
    "POSTGRES_MODES",
    "REFUSED",
    "RENEW_EVERY",
    "STALE_AFTER",
    "LeaseTerms",
    "MongoServer",
    "Need",
    "PostgresServer",
    "Privileges",
    "Server",
    "ServerRequest",
    "ServerStartError",
    "ServerUnavailable",
    "Stale",
    "check_cache_gb",
    "check_pinned_version",
    "clean_user_servers",
    "config_dir",
    "docker_status",
    "find_mongod",
    "find_postgres_bin",
    "free_port",
    "from_dsn",
    "from_uri",
    "get_mongodb",
    "get_postgres",
    "in_replica_set",
    "lease_state",
    "mark_for",
    "mark_verifies",
    "missing_command",
    "mongo_client",
    "mongod_missing_reason",
    "mongod_version",
    "mongodb",
    "mongodb_missing",
    "parse_connection_status",
    "postgres_bin_version",
    "provide",
    "redact",
    "refused",
    "secret_path",
    "why_unproven",
]
