"""labkit's mark: an HMAC (RFC 2104) of a database's name, keyed with a secret of this
installation kept 0600 in the user's configuration folder, so that nobody else can make it
(issue 18, "Nothing dropped that labkit did not make")."""

from __future__ import annotations

import os
import stat
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labkit import servers
from labkit.errors import SecretUnusable
from labkit.servers import mark

POSIX_ONLY = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes and links")
NAMES = st.text(min_size=1, max_size=60)


@pytest.fixture
def config(tmp_path, monkeypatch):
    """A configuration folder of this test's own, not yet made (``LABKIT_CONFIG_DIR``)."""
    folder = tmp_path / "config" / "labkit"
    monkeypatch.setenv(servers.CONFIG_VARIABLE, str(folder))
    return folder


def test_the_secret_is_made_on_first_use_in_the_configuration_folder(config):
    """No secret exists until the first mark; then it is in LABKIT_CONFIG_DIR, and later uses
    read the same one (the mark of a name does not change)."""
    assert servers.secret_path() == config / "secret"
    assert not servers.secret_path().exists()
    first = servers.mark_for("labkit_x_1")
    assert servers.secret_path().exists()
    assert servers.mark_for("labkit_x_1") == first
    assert first.startswith(servers.MARK + "v1:")
    assert len(first) == len("labkit:v1:") + 64  # SHA-256, in hexadecimal


@POSIX_ONLY
def test_the_secret_and_its_folder_are_the_users_alone(config):
    """The secret is mode 0600 and a folder labkit makes for it 0700 (issue 18: "kept 0600 in
    the user's configuration folder")."""
    servers.mark_for("labkit_x_1")
    assert stat.S_IMODE(servers.secret_path().stat().st_mode) == 0o600
    assert stat.S_IMODE(config.stat().st_mode) == 0o700
    assert [p.name for p in config.iterdir()] == ["secret"]  # no scratch file left beside it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG layout is Linux's")
def test_the_configuration_folder_follows_the_xdg_base_directory_specification(
        tmp_path, monkeypatch):
    """Without LABKIT_CONFIG_DIR: $XDG_CONFIG_HOME/labkit, else ~/.config/labkit (XDG Base
    Directory Specification, as platformdirs.user_config_dir reads it)."""
    monkeypatch.delenv(servers.CONFIG_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert servers.config_dir() == tmp_path / "xdg" / "labkit"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert servers.config_dir() == tmp_path / "home" / ".config" / "labkit"


def test_a_mark_verifies_for_its_name_only(config):
    """A real mark verifies for the name it was made for, with or without the comment's words
    after it; copied onto another name, or bare ``labkit:``, it does not (issue 18's
    forgeries: a bare comment, a real mark on another name)."""
    real = servers.mark_for("labkit_a_1")
    assert servers.mark_verifies("labkit_a_1", real)
    assert servers.mark_verifies("labkit_a_1", f"{real} created by a labkit run on 2026-01-01")
    assert not servers.mark_verifies("labkit_b_2", real)
    assert not servers.mark_verifies("labkit_a_1", servers.MARK)
    assert not servers.mark_verifies("labkit_a_1", f"{servers.MARK} created by a labkit run")
    assert not servers.mark_verifies("labkit_a_1", real[:-1] + ("0" if real[-1] != "0" else "1"))
    assert not servers.mark_verifies("labkit_a_1", real.upper())
    assert not servers.mark_verifies("labkit_a_1", None)
    assert not servers.mark_verifies("labkit_a_1", 7)


def test_another_installations_mark_does_not_verify(config, tmp_path, monkeypatch):
    """A mark made with another secret (another installation, another user) proves nothing
    here, even for the same name."""
    monkeypatch.setenv(servers.CONFIG_VARIABLE, str(tmp_path / "elsewhere"))
    theirs = servers.mark_for("labkit_a_1")
    monkeypatch.setenv(servers.CONFIG_VARIABLE, str(config))
    assert servers.mark_for("labkit_a_1") != theirs
    assert not servers.mark_verifies("labkit_a_1", theirs)


def test_after_the_secret_is_deleted_nothing_made_before_verifies(config):
    """Deleting the secret: verifying makes no new one and nothing verifies; the next mark
    makes a new secret, under which the old marks still do not verify (docs/servers.md,
    "labkit's mark and its secret")."""
    old = servers.mark_for("labkit_a_1")
    servers.secret_path().unlink()
    assert not servers.mark_verifies("labkit_a_1", old)
    assert not servers.secret_path().exists()
    assert "no secret at" in str(servers.why_unproven("labkit_a_1", old))
    new = servers.mark_for("labkit_a_1")
    assert new != old
    assert not servers.mark_verifies("labkit_a_1", old)
    assert servers.mark_verifies("labkit_a_1", new)


@POSIX_ONLY
@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o644])
def test_a_secret_others_may_read_is_refused(config, mode):
    """A secret group or others may read is refused with what to do: anyone who reads it could
    make labkit's mark (issue 18: "kept 0600")."""
    servers.mark_for("labkit_a_1")
    servers.secret_path().chmod(mode)
    for use in (lambda: servers.mark_for("labkit_a_1"),
                lambda: servers.mark_verifies("labkit_a_1", "labkit:v1:00")):
        with pytest.raises(SecretUnusable) as caught:
            use()
        assert caught.value.path == str(servers.secret_path())
        assert f"chmod 600 {servers.secret_path()}" in str(caught.value.hint)
        assert "may be read by others" in str(caught.value)


@pytest.mark.parametrize("content", [b"", b"labkit\n", b"zz" * 32, b"ab" * 31, b"ab" * 33,
                                     b"\xff" * 64])
def test_a_secret_labkit_did_not_write_is_refused(config, content):
    """A secret file that is not 64 hexadecimal digits is refused, never used as a short or
    empty key."""
    config.mkdir(parents=True)
    fd = os.open(config / "secret", os.O_WRONLY | os.O_CREAT, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(content)
    with pytest.raises(SecretUnusable, match="not a secret labkit wrote"):
        servers.mark_for("labkit_a_1")


@POSIX_ONLY
def test_a_link_in_place_of_the_secret_is_not_followed(config, tmp_path):
    """A symbolic link planted where the secret goes is refused, not read (open(2),
    O_NOFOLLOW)."""
    target = tmp_path / "planted"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write("ab" * 32 + "\n")
    config.mkdir(parents=True)
    (config / "secret").symlink_to(target)
    with pytest.raises(SecretUnusable, match="cannot be read"):
        servers.mark_for("labkit_a_1")


def test_processes_making_the_secret_at_once_agree_on_one(config):
    """Eight threads making the first mark together all end with the same secret: the one
    linked into place first (link(2) never replaces an existing file)."""
    start, marks = threading.Barrier(8), []

    def make() -> None:
        start.wait()
        marks.append(servers.mark_for("labkit_a_1"))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(marks) == 8
    assert len(set(marks)) == 1
    assert servers.mark_verifies("labkit_a_1", marks[0])
    assert sorted(p.name for p in config.iterdir()) == ["secret"]


@settings(max_examples=200, derandomize=True, deadline=None)
@given(name=NAMES, other=NAMES)
def test_a_mark_proves_exactly_its_own_name(name, other):
    """Property (fixed seed): the mark of any name verifies for that name and for no other
    (the suite's own secret, LABKIT_CONFIG_DIR)."""
    made = mark.mark_for(name)
    assert mark.mark_verifies(name, made)
    assert mark.mark_verifies(other, made) == (other == name)
