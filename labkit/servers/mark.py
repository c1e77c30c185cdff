"""labkit's mark on a database it made: an HMAC of the database's name, keyed with a secret of
this installation that nobody else can read.

A comment or a lease document any client can write proves nothing; a mark made with a key
kept 0600 in the user's configuration folder can only come from this installation, and
one made for one name does not verify on another. The secret is made on first use;
deleting it means the databases marked before can no longer be proven labkit's, so they
are left alone (and ``labkit clean`` says so).

The secret is trusted only where nobody else can have written it or swapped it: a regular file
(never a link, folder, named pipe or device), owned by the current user, mode 0600, in a folder
owned by the current user (or root) that group and others may not write, unless its sticky bit
is set (as /tmp's is: there only a file's owner may remove or rename it). Anything else is
refused with a ``SecretUnusable`` naming the path and what to do; the folders above that one
are not judged.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from labkit.errors import SecretUnusable
from labkit.i18n import N_, Message

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


_DELETE = N_("delete it to make a new one (databases marked with the old one are then left "
             "alone).")
_ELSEWHERE = N_("set LABKIT_CONFIG_DIR to a folder of your own (labkit makes it, mode 700).")
# What stands where the secret should be, when it is no regular file.
_KINDS = ((stat.S_ISDIR, N_("a folder")), (stat.S_ISFIFO, N_("a named pipe (FIFO)")),
          (stat.S_ISSOCK, N_("a socket")), (stat.S_ISCHR, N_("a device")),
          (stat.S_ISBLK, N_("a device")))


def _refuse(path: Path, why: Message, hint: Message) -> SecretUnusable:
    return SecretUnusable(why, path=str(path), hint=hint)


def _trusted_folder(path: Path) -> None:
    """Refuse the folder of the secret at ``path`` unless only this user can put a file there
    or take one away: a folder of this user's (or root's), which group and others may not
    write unless its sticky bit is set (then only a file's owner may remove or rename it)."""
    folder = path.parent
    try:
        info = os.stat(folder)  # followed: ~/.config is often a link, and its target is judged
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _refuse(path, Message(N_("labkit's configuration folder {folder} cannot be read "
                                       "({error})."), folder=folder, error=exc.strerror or exc),
                      Message(_ELSEWHERE)) from exc
    if not stat.S_ISDIR(info.st_mode):
        raise _refuse(path, Message(N_("labkit's configuration folder {folder} is not a "
                                       "folder."), folder=folder),
                      Message(N_("move it out of the way, or set LABKIT_CONFIG_DIR to a folder "
                                 "of your own (labkit makes it, mode 700).")))
    if os.name != "posix":
        return  # Windows keeps a user's AppData the user's by its access lists, not modes
    if info.st_uid not in (os.geteuid(), 0):
        raise _refuse(path, Message(N_(
            "labkit's configuration folder {folder} belongs to another user (uid {owner}), who "
            "may replace the secret in it."), folder=folder, owner=str(info.st_uid)),
            Message(_ELSEWHERE))
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not info.st_mode & stat.S_ISVTX:
        raise _refuse(path, Message(N_(
            "labkit's configuration folder {folder} may be written by others (mode {mode}): "
            "they may replace the secret in it with one of theirs."),
            folder=folder, mode=f"{stat.S_IMODE(info.st_mode):o}"),
            Message(N_("chmod go-w {folder}, or set LABKIT_CONFIG_DIR to a folder of your own "
                       "(labkit makes it, mode 700)."), folder=folder))


def _trusted_file(path: Path, info: os.stat_result) -> None:
    """Refuse the opened secret unless it is a regular file of this user's, mode 0600."""
    if not stat.S_ISREG(info.st_mode):
        kind = next((kind for test, kind in _KINDS if test(info.st_mode)), N_("something else"))
        raise _refuse(path, Message(N_("labkit's secret at {path} is not a regular file (it is "
                                       "{kind})."), path=path, kind=Message(kind)),
                      Message(N_("move it out of the way: labkit then makes a new secret there "
                                 "(databases marked with the old one are left alone).")))
    if os.name != "posix":
        return
    if info.st_uid != os.geteuid():
        raise _refuse(path, Message(N_(
            "labkit's secret at {path} belongs to another user (uid {owner}): whoever owns it "
            "can read it and forge labkit's mark."), path=path, owner=str(info.st_uid)),
            Message(N_("delete it so that labkit makes one of your own, or set "
                       "LABKIT_CONFIG_DIR to a folder of your own.")))
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise _refuse(path, Message(N_(
            "labkit's secret at {path} may be read by others (mode {mode}): anyone who reads "
            "it can forge labkit's mark."), path=path, mode=f"{stat.S_IMODE(info.st_mode):o}"),
            Message(N_("chmod 600 {path}, or delete it to make a new one (databases marked "
                       "with the old one are then left alone)."), path=path))


def _read(path: Path) -> bytes | None:
    """The key in ``path``, None if there is none; refused if another user may have written it
    or may read it, or if it is not one labkit wrote."""
    _trusted_folder(path)
    try:
        # O_NOFOLLOW where there is one: a link planted in the folder is not followed.
        # O_NONBLOCK: a named pipe planted there does not hold the open until a writer comes.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _refuse(path, Message(N_("labkit's secret at {path} cannot be read ({error})."),
                                    path=path, error=exc.strerror or exc),
                      Message(N_("check the file, or delete it to make a new one (databases "
                                 "marked with the old one are then left alone)."))) from exc
    try:
        _trusted_file(path, os.fstat(fd))  # before fdopen, which refuses a folder on its own
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as file:
        text = file.read(_SECRET_HEX + 2).strip()
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) * 2 != _SECRET_HEX:
        raise _refuse(path, Message(N_("labkit's secret at {path} is not a secret labkit wrote "
                                       "(64 hexadecimal digits)."), path=path),
                      Message(_DELETE))
    return key


def _create(path: Path) -> None:
    """Write a new secret to ``path`` unless one exists: whole or not at all (written beside
    it, then linked into place, which never replaces a file another process made first)."""
    _private_folder(path)
    with _written_beside(path, secrets.token_hex(_SECRET_HEX // 2) + "\n") as scratch, \
            contextlib.suppress(FileExistsError):  # another process made it first: theirs
        os.link(scratch, path)


def write_private(path: Path, text: str) -> None:
    """Write ``text`` as the file ``path``, readable by its owner only (mode 600), in a folder
    checked as the secret's is (this user's, not writable by others): written beside it and
    renamed into place, so a link planted at ``path`` is replaced, never written through."""
    _private_folder(path)
    with _written_beside(path, text) as scratch:
        os.replace(scratch, path)


def _private_folder(path: Path) -> None:
    """Make ``path``'s folder (mode 700) where it is missing, and refuse it unless only this
    user can put a file there or take one away (``_trusted_folder``)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        _trusted_folder(path)  # a file in the folder's place: said as such
        raise _refuse(path, Message(N_("labkit's configuration folder {folder} cannot be made "
                                       "({error})."), folder=path.parent,
                                    error=exc.strerror or exc),
                      Message(_ELSEWHERE)) from exc
    _trusted_folder(path)


@contextlib.contextmanager
def _written_beside(path: Path, text: str) -> Iterator[Path]:
    """``text`` written whole, and synced, to a new file of mode 600 beside ``path`` (made
    new: a name taken, a link among them, is never opened), for the block to put in place;
    removed when the block ends, wherever it is then."""
    scratch = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        yield scratch
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
