"""A connection string's display form: read by its driver's own parser, rebuilt from safe parts.

libpq strings (``postgresql://`` URIs and ``key=value`` strings) are parsed by libpq's own
parser through ``psycopg.conninfo.conninfo_to_dict``, which decodes percent-encoded keys as the
connection itself does; MongoDB URIs by pymongo's (``uri_parser.parse_uri``; a
``mongodb+srv://`` URI through the same module's helpers that do not ask DNS). What is shown is
rebuilt from the scheme, hosts, ports, database and user alone (a string in which the parser
finds no secret at all is shown as written); a password or any other
secret-bearing option is named with ``***`` for its value; every other option is left out. A
string that does not parse, or whose parts hold anything a host, port, database or user name
cannot, is not shown at all: :data:`HIDDEN` stands in for the whole of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote_plus

MASK = "***"
HIDDEN = "[connection string not shown: ***]"

LIBPQ_SCHEMES = ("postgresql://", "postgres://")
MONGODB_SCHEME, MONGODB_SRV_SCHEME = "mongodb://", "mongodb+srv://"
# The parts a display form is made of; everything else a connection string holds is left out.
SAFE_KEYS = ("host", "hostaddr", "port", "dbname", "user")
# Options whose value is a secret, named (with ***) so that a reader sees one was given.
SECRET_KEYS = frozenset({"password", "sslpassword", "scram_client_key", "scram_server_key",
                         "oauth_client_secret", "authmechanismproperties",
                         "tlscertificatekeyfilepassword", "sslpemkeypassword"})
_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key")

# What a shown part may hold. Anything else means the parser read a piece of the secret as a
# host, port, database or user (``postgresql://u:pw/x@h`` is host ``u``, port ``pw`` to libpq).
_NAME = re.compile(r"[\w.$~+-]*")
_HOST = re.compile(r"[\w.~%:-]+|\[[0-9A-Fa-f:.%\w]+\]|/[\w./~-]*")
_PORT = re.compile(r"[0-9]{1,5}")


def is_secret(key: str) -> bool:
    """Whether an option's value is a secret (passwords, keys, tokens, mechanism properties)."""
    key = key.lower()
    return key in SECRET_KEYS or any(word in key for word in _SECRET_WORDS)


@dataclass
class Parts:
    """The safe parts of a parsed connection string, and the names of its secret options."""

    scheme: str  # "" for a libpq key=value string
    hosts: list[tuple[str, str]] = field(default_factory=list)  # (host, port or "")
    database: str = ""
    user: str = ""
    password: bool = False
    secrets: list[str] = field(default_factory=list)

    def validate(self) -> Parts:
        """These parts, if each holds only what its kind of name can; else ValueError."""
        for host, port in self.hosts:
            if (host and not _HOST.fullmatch(host)) or (port and not _PORT.fullmatch(port)):
                raise ValueError("a host or port holds what neither can")
        if not (_NAME.fullmatch(self.database) and _NAME.fullmatch(self.user)):
            raise ValueError("a database or user name holds what neither can")
        return self

    def render(self) -> str:
        """The display form, in the string's own form (URI or key=value)."""
        if not self.scheme:
            return self._key_values()
        hosts = ",".join((quote(h, safe="") if h.startswith("/") else h) + (f":{p}" if p else "")
                         for h, p in self.hosts)
        user = self.user + (f":{MASK}" if self.password else "")
        query = "&".join(f"{name}={MASK}" for name in self.secrets)
        return (f"{self.scheme}{user + '@' if user else ''}{hosts}/{self.database}"
                + (f"?{query}" if query else ""))

    def _key_values(self) -> str:
        hosts = ",".join(h for h, _ in self.hosts)
        ports = ",".join(p for _, p in self.hosts if p)
        pairs = [("host", hosts), ("port", ports), ("dbname", self.database),
                 ("user", self.user), *(("password", MASK) for _ in range(self.password)),
                 *((name, MASK) for name in self.secrets)]
        return " ".join(f"{key}={value}" for key, value in pairs if value)


def display(conninfo: str) -> str:
    """``conninfo`` as it may be shown: rebuilt from its safe parts where it holds a secret,
    unchanged where its driver's parser finds none, :data:`HIDDEN` where it does not parse."""
    try:
        parts = parse(conninfo).validate()
    except Exception:  # any parser's refusal, whatever its type, means: show none of it
        return HIDDEN
    # What the driver's parser read whole and found no secret in is shown as it was written.
    return parts.render() if parts.password or parts.secrets else conninfo


def parse(conninfo: str) -> Parts:
    """The parts of a libpq or MongoDB connection string, read by the driver's own parser."""
    if conninfo.startswith(MONGODB_SCHEME):
        return _mongodb(conninfo)
    if conninfo.startswith(MONGODB_SRV_SCHEME):
        return _mongodb_srv(conninfo)
    scheme = next((s for s in LIBPQ_SCHEMES if conninfo.startswith(s)), "")
    if "://" in conninfo.split("=", 1)[0] and not scheme:
        raise ValueError("not a libpq or MongoDB URI")
    return _libpq(conninfo, scheme)


def _libpq(conninfo: str, scheme: str) -> Parts:
    from psycopg.conninfo import conninfo_to_dict

    params = {key: str(value) for key, value in conninfo_to_dict(conninfo).items()}
    hosts = params.get("host", params.get("hostaddr", "")).split(",")
    ports = params.get("port", "").split(",")
    if len(ports) == 1:
        ports *= len(hosts)  # libpq: one port serves every host
    if len(ports) != len(hosts):
        raise ValueError("hosts and ports do not pair")
    return Parts(scheme, [(h, p) for h, p in zip(hosts, ports, strict=True) if h or p],
                 params.get("dbname", ""), params.get("user", ""), "password" in params,
                 [key for key in params if key != "password" and is_secret(key)])


def _mongodb(uri: str) -> Parts:
    from pymongo.uri_parser import parse_uri

    uri, masked = _without_masked_options(uri)
    parsed = parse_uri(uri, validate=True, warn=False, normalize=False)
    return Parts(MONGODB_SCHEME, [(str(h), str(p)) for h, p in parsed["nodelist"]],
                 parsed["database"] or "", parsed["username"] or "",
                 bool(parsed["password"]), masked + _secret_options(parsed["options"]))


def _mongodb_srv(uri: str) -> Parts:
    """A ``mongodb+srv://`` URI, split as pymongo's parser splits it, without the DNS look-ups
    ``parse_uri`` makes for one: its public helpers read user, hosts and options."""
    from pymongo.uri_parser import parse_userinfo, split_hosts, split_options

    uri, masked = _without_masked_options(uri)
    host_and_db, _, options = uri[len(MONGODB_SRV_SCHEME):].partition("?")
    host_part, _, database = host_and_db.partition("/")
    userinfo, at, hosts = host_part.rpartition("@")
    user, password = parse_userinfo(userinfo) if at else ("", "")
    nodes = split_hosts(hosts, default_port=None)
    if len(nodes) != 1 or nodes[0][1] is not None:
        raise ValueError("a mongodb+srv:// URI names one host and no port")
    parsed = split_options(options, validate=True, warn=False, normalize=False) \
        if options else {}
    return Parts(MONGODB_SRV_SCHEME, [(str(nodes[0][0]), "")],
                 unquote_plus(database).split(".", 1)[0], user, bool(password),
                 masked + _secret_options(parsed))


def secret_values(conninfo: str) -> list[str]:
    """The secret values its driver's parser reads in ``conninfo``: the password and each
    secret-bearing option's value (``authMechanismProperties`` gives each of its values). A
    string the parser refuses gives none: what it holds is found as written, by the caller."""
    options: Mapping[str, Any]
    if conninfo.startswith(MONGODB_SRV_SCHEME):
        from pymongo.uri_parser import parse_userinfo, split_options

        host_part, _, query = conninfo[len(MONGODB_SRV_SCHEME):].partition("?")
        userinfo, at, _ = host_part.partition("/")[0].rpartition("@")
        password = parse_userinfo(userinfo)[1] if at else ""
        options = split_options(query, validate=False, warn=False, normalize=False) \
            if query else {}
    elif conninfo.startswith(MONGODB_SCHEME):
        from pymongo.uri_parser import parse_uri

        parsed = parse_uri(conninfo, validate=False, warn=False, normalize=False)
        password, options = parsed["password"] or "", parsed["options"]
    else:
        from psycopg.conninfo import conninfo_to_dict

        options = {key: str(value) for key, value in conninfo_to_dict(conninfo).items()}
        password = options.get("password", "")
    found = [str(password)]
    for key, value in options.items():
        if not is_secret(str(key)):
            continue
        if isinstance(value, Mapping):  # authMechanismProperties, validated: its values
            found += [str(item) for item in value.values()]
        else:  # and as written, "NAME:value,NAME:value"
            found += [str(value), *(item.partition(":")[2] for item in str(value).split(","))]
    return [value for value in dict.fromkeys(found) if value]


def _without_masked_options(uri: str) -> tuple[str, list[str]]:
    """The URI without the options whose value is already the mask, and their names: a display
    form reads back as itself (pymongo would refuse ``authMechanismProperties=***``)."""
    base, _, query = uri.partition("?")
    kept, masked = [], []
    for item in re.split("[&;]", query) if query else []:
        key, _, value = item.partition("=")
        if value == MASK:
            masked.append(key)
        else:
            kept.append(item)
    return base + ("?" + "&".join(kept) if kept else ""), masked


def _secret_options(options: Mapping[str, Any]) -> list[str]:
    return [str(key) for key in options if is_secret(str(key))]


def display_mapping(mapping: Mapping[Any, Any]) -> dict[Any, Any]:
    """A parsed mapping of connection parameters with only its safe entries and its secrets
    named: ``{'host': 'h', 'password': '***'}``."""
    shown: dict[Any, Any] = {}
    for key, value in mapping.items():
        name = str(key)
        if is_secret(name) or name not in SAFE_KEYS or not _NAME.fullmatch(str(value)):
            if is_secret(name) or name in SAFE_KEYS:
                shown[key] = MASK
        else:
            shown[key] = value
    return shown
