"""The installation's secret, the key of labkit's mark, is trusted only where nobody else can
have written or replaced it: a regular file of the current user's, mode 0600, in a folder of
the current user's (or root's) that others may not write unless its sticky bit is set (POSIX,
<sys/stat.h>, S_ISVTX: in a writable folder with it, a file may be removed or renamed only
by its owner, the folder's owner or a privileged process; Linux's unlink(2) and rename(2),
EPERM).

Anything else is refused with one ``SecretUnusable`` that names the path and says what to do;
nothing is read from it, and nothing is marked or dropped while it stands."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from labkit import servers
from labkit.errors import SecretUnusable

pytestmark = pytest.mark.skipif(os.name != "posix" or not hasattr(os, "geteuid"),
                                reason="POSIX owners, modes and special files")

OTHER_UID = os.geteuid() + 4242  # a user that is not this one (and not root)
SUBPROCESS_BOUND = 30  # a bound on a wait, so that a read that blocks fails instead of hanging


@pytest.fixture
def config(tmp_path, monkeypatch):
    """A configuration folder of this test's own, made 0700 (``LABKIT_CONFIG_DIR``)."""
    folder = tmp_path / "config"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv(servers.CONFIG_VARIABLE, str(folder))
    return folder


def _write_secret(path, uid: int | None = None) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write("ab" * 32 + "\n")
    if uid is not None:
        os.chown(path, uid, -1)


def _refused(use=lambda: servers.mark_for("labkit_a_1")) -> SecretUnusable:
    with pytest.raises(SecretUnusable) as caught:
        use()
    assert caught.value.path == str(servers.secret_path())
    assert str(servers.secret_path().parent) in str(caught.value)
    assert str(caught.value.hint)
    return caught.value


def test_a_secret_another_user_owns_is_refused(config):
    """A 0600 secret owned by another user is refused, by mark_for and mark_verifies alike:
    that user can read it and so make the same marks (open(2) lets root read it; labkit asks
    who owns it)."""
    _write_secret(config / "secret", OTHER_UID)
    for use in (lambda: servers.mark_for("labkit_a_1"),
                lambda: servers.mark_verifies("labkit_a_1", "labkit:v1:00")):
        refused = _refused(use)
        assert f"uid {OTHER_UID}" in str(refused)
        assert "belongs to another user" in str(refused)


def test_another_users_secret_in_a_folder_anyone_may_write_is_refused(config):
    """The attack as found: a 0600 secret owned by another user in a world-writable
    LABKIT_CONFIG_DIR is refused (before, it was used and that user computed the same marks)."""
    config.chmod(0o777)
    _write_secret(config / "secret", OTHER_UID)
    _refused()


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o770, 0o702])
def test_a_folder_others_may_write_is_refused(config, mode):
    """A folder group or others may write, without its sticky bit, is refused even with this
    user's own 0600 secret in it: whoever may write the folder may replace the secret (rename
    the file away and put one of theirs in its place) between two runs."""
    servers.mark_for("labkit_a_1")
    config.chmod(mode)
    refused = _refused()
    assert "may be written by others" in str(refused)
    assert f"chmod go-w {config}" in str(refused.hint)


def test_a_folder_others_may_write_is_refused_before_a_secret_is_made(config):
    """No secret is made in a folder others may write: the refusal comes first and the folder
    stays empty."""
    config.chmod(0o777)
    _refused()
    assert list(config.iterdir()) == []


def test_a_sticky_folder_of_this_user_is_accepted(config):
    """A folder anyone may write, with its sticky bit set (as /tmp), is accepted: there only a
    file's owner may remove or rename it, so this user's secret stays this user's."""
    config.chmod(0o1777)
    first = servers.mark_for("labkit_a_1")
    assert servers.mark_verifies("labkit_a_1", first)
    assert stat.S_IMODE(servers.secret_path().stat().st_mode) == 0o600


def test_a_folder_another_user_owns_is_refused(config):
    """A configuration folder another user owns is refused, whatever its mode: its owner may
    change the mode and replace what is in it."""
    servers.mark_for("labkit_a_1")
    os.chown(config, OTHER_UID, -1)
    refused = _refused()
    assert "belongs to another user" in str(refused)
    assert f"uid {OTHER_UID}" in str(refused)


def test_a_folder_in_place_of_the_secret_is_refused_with_its_path(config):
    """A directory named ``secret`` is refused with its path and what to do (before, the
    command said only "Error: Is a directory: 3")."""
    (config / "secret").mkdir()
    refused = _refused()
    assert "not a regular file" in str(refused)
    assert "Is a directory" not in str(refused)
    assert str(config / "secret") in str(refused)


def test_a_fifo_in_place_of_the_secret_is_refused_at_once(config):
    """A named pipe (FIFO) where the secret goes is refused at once (before, opening it waited
    forever for a writer: open(2) on a FIFO blocks without O_NONBLOCK)."""
    os.mkfifo(config / "secret", 0o600)
    code = ("from labkit.servers import mark\n"
            "try:\n    mark.installation_key()\n"
            "except mark.SecretUnusable as exc:\n    print(exc)\n")
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=SUBPROCESS_BOUND, env={**os.environ})
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading a FIFO as the secret blocked for {SUBPROCESS_BOUND} s")
    assert done.returncode == 0, done.stderr
    assert "not a regular file" in done.stdout
    assert str(config / "secret") in done.stdout


def test_a_file_in_place_of_the_folder_is_refused(tmp_path, monkeypatch):
    """LABKIT_CONFIG_DIR naming a file, not a folder, is refused with its path (not an
    operating system error about the secret inside it)."""
    named = tmp_path / "config"
    named.write_text("not a folder\n")
    monkeypatch.setenv(servers.CONFIG_VARIABLE, str(named))
    refused = _refused()
    assert "is not a folder" in str(refused)
