"""labkit's mark on a database it made: an HMAC of the database's name, keyed with a secret of
this installation that nobody else can read.

A comment or a lease document any client can write proves nothing; a mark made with a key
kept 0600 in the user's configuration folder can only come from this installation, and
one made for one name does not verify on another. The secret is made on first use;
deleting it means the databases marked before can no longer be proven labkit's, so they
are left alone (and ``labkit clean`` says so).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from labkit.errors import SecretUnusable

MARK = "labkit:"
# The version of the mark's form: a later form can be told from this one, never confused.
_FORM = "v1"
_DOMAIN = b"labkit database mark v1\0"  # keeps this key's HMACs apart from any other use
SECRET_FILE = "secret"
CONFIG_VARIABLE = "LABKIT_CONFIG_DIR"
_SECRET_HEX = 64  # 32 random bytes


def config_dir() -> Path:
    """labkit's configuration folder: ``LABKIT_CONFIG_DIR`` if set, otherwise the user's
    (``$XDG_CONFIG_HOME/labkit`` or ``~/.config/labkit``; the user's AppData on Windows;
    ``~/Library/Application Support/labkit`` on macOS), as ``platformdirs`` finds it."""
    named = os.environ.get(CONFIG_VARIABLE)
    if named:
        return Path(named)
    import platformdirs

    return Path(platformdirs.user_config_dir("labkit", appauthor=False))


def secret_path() -> Path:
    """Where this installation's secret lives (it may not exist yet)."""
    return config_dir() / SECRET_FILE


def _refuse(path: Path, why: str, hint: str) -> SecretUnusable:
    return SecretUnusable(f"labkit's secret at {path} {why}", path=str(path), hint=hint)


def _read(path: Path) -> bytes | None:
    """The key in ``path``, None if there is none; refused if others may read it or it is not
    one labkit wrote."""
    try:
        # O_NOFOLLOW where there is one: a link planted in the folder is not followed.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _refuse(path, f"cannot be read ({exc.strerror or exc})",
                      "check the file, or delete it to make a new one (databases marked "
                      "with the old one are then left alone).") from exc
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise _refuse(path, f"may be read by others (mode {stat.S_IMODE(info.st_mode):o}):"
                          " anyone who reads it can forge labkit's mark",
                          f"chmod 600 {path}, or delete it to make a new one.")
        text = file.read(_SECRET_HEX + 2).strip()
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) * 2 != _SECRET_HEX:
        raise _refuse(path, "is not a secret labkit wrote (64 hexadecimal digits)",
                      "delete it to make a new one (databases marked with the old one are "
                      "then left alone).")
    return key


def _create(path: Path) -> None:
    """Write a new secret to ``path`` unless one exists: whole or not at all (written beside
    it, then linked into place, which never replaces a file another process made first)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    scratch = path.with_name(f".{SECRET_FILE}.{secrets.token_hex(8)}")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(secrets.token_hex(_SECRET_HEX // 2) + "\n")
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):  # another process made it first: theirs
            os.link(scratch, path)
    finally:
        scratch.unlink(missing_ok=True)


def installation_key(create: bool = False) -> bytes | None:
    """This installation's key; made first if ``create`` and there is none (None otherwise)."""
    path = secret_path()
    key = _read(path)
    if key is None and create:
        _create(path)
        key = _read(path)
    return key


def _digest(key: bytes, name: str) -> str:
    message = _DOMAIN + name.encode("utf-8", "surrogatepass")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def mark_for(name: str) -> str:
    """The mark of database ``name``: ``labkit:v1:<HMAC>`` (the secret is made on first use)."""
    key = installation_key(create=True)
    assert key is not None  # made just now if it was missing
    return f"{MARK}{_FORM}:{_digest(key, name)}"


def mark_verifies(name: str, text: object) -> bool:
    """Whether ``text`` (a comment or lease field; its first word is the mark) is this
    installation's mark for database ``name``. Without a secret, nothing verifies."""
    if not isinstance(text, str) or not text.startswith(MARK):
        return False
    key = installation_key(create=False)
    if key is None:
        return False
    given = text.split(maxsplit=1)[0]
    return hmac.compare_digest(given.encode("utf-8", "replace"),
                               f"{MARK}{_FORM}:{_digest(key, name)}".encode())
