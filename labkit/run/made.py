"""What a run makes on disk: each folder and file recorded as it is made, files written whole
and put in place together, and, on a stop, only what is still its own removed."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import stat
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from labkit._signals import SIGNALS, take
from labkit.errors import BadInput, LabkitError
from labkit.i18n import N_, Message
from labkit.servers import reaper

# What is in the way of an output file, by its kind: labkit writes only regular files.
_NOT_REGULAR = ((stat.S_ISLNK, N_("a symbolic link")), (stat.S_ISDIR, N_("a folder")),
                (stat.S_ISFIFO, N_("a named pipe (FIFO)")), (stat.S_ISSOCK, N_("a socket")),
                (stat.S_ISCHR, N_("a device")), (stat.S_ISBLK, N_("a device")))


def check_target(path: Path, option: str) -> None:
    """Refuse ``path`` as an output file when something other than a regular file is there (a
    symbolic link, a named pipe, a folder…): labkit never writes through a link, and a named
    pipe would block the run after its work. Called before the work where the path is known."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise BadInput(Message(N_("{option}: {path} cannot be checked: {error}"),
                               option=option, path=str(path),
                               error=exc.strerror or str(exc))) from exc
    for test, kind in _NOT_REGULAR:
        if test(mode):
            raise BadInput(Message(
                N_("{option}: {path} is {kind}, not a regular file; labkit writes its outputs "
                   "only as regular files: remove it or choose another name"),
                option=option, path=str(path), kind=Message(kind)))


def check_not_an_input(outputs: Iterable[Path], inputs: Iterable[Path], option: str) -> None:
    """Refuse an output that is one of the same command's inputs (paths resolved, links
    followed): ``--junit claims.yaml`` would replace the claim file it judged, ``--merge … --out
    an.csv`` a learner's export."""
    given = list(inputs)
    read = {_resolved(path) for path in given}
    files = {_identity(path) for path in given} - {None}
    for path in outputs:
        if _resolved(path) in read or _identity(path) in files:
            raise BadInput(Message(N_("{option}: {path} is also one of this command's inputs; "
                                      "write to another file"), option=option, path=str(path)))


def _identity(path: Path) -> tuple[int, int] | None:
    """A file's device and inode, the same for every name it has (a hard link, another case
    on a file system that ignores it); None where there is no file yet."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links: compared as written
        return path.absolute()


@contextlib.contextmanager
def _stops_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held back while the block runs (they act once it is done), so that
    the files an output puts in place are all new or all as before, never a mix. Only the main
    thread can hold them; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if any(signal.getsignal(signum) is None for signum in SIGNALS):  # set outside Python
        yield
        return
    caught: list[int] = []
    # a signal ignored here (nohup's SIGHUP) is left ignored, not held (take)
    previous = {signum: take(signum, lambda signum, frame: caught.append(signum))
                for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(caught):  # each once, in the order they came
            signal.raise_signal(signum)


class Made:
    """What an output made on disk, recorded as it makes each folder and file (with the
    device and inode each had), so that a stop removes only that, and only while it is still
    its own (``servers.reaper.unmake``); with ``watch``, this process's watcher is told of
    each, and removes them the same way if the process is killed.

    Files are written whole to a temporary file beside their name (never through a link, so a
    planted ``report.md -> victim`` writes no victim), then all put in place together by
    ``commit``: an interrupt or a full disk before then leaves what was there before.
    """

    def __init__(self, watch: bool = False) -> None:
        self.watch = watch
        self.entries: list[reaper.MadeEntry] = []
        self.staged: list[tuple[Path, Path]] = []  # (the temporary file, its name)

    def _record(self, path: Path) -> None:
        found = os.lstat(path)
        entry = (os.fspath(path), found.st_dev, found.st_ino)
        self.entries.append(entry)
        if self.watch:
            reaper.watch_made(*entry)

    def folder(self, path: Path) -> Path:
        """``path`` as a folder: each missing level made (and recorded), from the top down."""
        absolute = Path(os.path.abspath(path))
        for level in (*reversed(absolute.parents), absolute):
            if level.is_dir():
                continue
            try:
                os.mkdir(level)
            except FileExistsError:
                if level.is_dir():  # another process made it a moment ago: it is theirs
                    continue
                raise
            self._record(level)
        return path

    def stage(self, path: Path, data: bytes) -> None:
        """Write ``data`` whole to a new temporary file beside ``path``; ``commit`` puts it in
        place. A write that fails (a full disk) removes that file and raises ``LabkitError``
        naming ``path``."""
        target = Path(path)
        temp, fd = self._new_temp(target)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            reaper.unmake([self.entries.pop()])
            raise LabkitError(Message(
                N_("could not write {path}: {error}; none of this output's files was put in "
                   "place, and what was there before is kept"),
                path=str(target), error=exc.strerror or str(exc))) from exc
        self.staged.append((temp, target))

    def _new_temp(self, target: Path) -> tuple[Path, int]:
        """A temporary file of its own beside ``target``, made new (a name already taken,
        a link among them, is never opened), readable as the user's files are."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
            | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
        while True:
            temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
            try:
                fd = os.open(temp, flags, 0o666)
            except FileExistsError:
                continue
            except OSError as exc:
                raise LabkitError(Message(N_("could not write {path}: {error}"),
                                          path=str(target),
                                          error=exc.strerror or str(exc))) from exc
            self._record(temp)
            return temp, fd

    def commit(self) -> None:
        """Put every staged file in place at once (Ctrl-C and SIGTERM wait until all are),
        each only where a regular file or nothing is; then everything made is kept."""
        for _temp, target in self.staged:
            check_target(target, target.name)
        with _stops_held():
            for temp, target in self.staged:
                os.replace(temp, target)
            self.staged.clear()
            self.keep()

    def keep(self) -> None:
        """Everything made so far stays: a later stop removes none of it."""
        if self.watch:
            for path, _dev, _ino in self.entries:
                reaper.keep_made(path)
        self.entries.clear()

    def undo(self) -> list[str]:
        """Remove what was made and not kept, newest first, each only while still its own;
        the paths left in place (a folder another process wrote into)."""
        left = reaper.unmake(self.entries)
        self.keep()
        self.staged.clear()
        return left


@contextlib.contextmanager
def staged_in(made: Made | None) -> Iterator[Made]:
    """The record an output stages its files in: ``made``, the run's, whose ``commit`` puts
    them in place with the run's other outputs; or, without one, a record of the output's own,
    committed when the block ends and undone when it raises (an interrupt among it)."""
    if made is not None:
        yield made
        return
    own = Made()
    try:
        yield own
        own.commit()
    except BaseException:
        own.undo()
        raise


def write_file(path: Path, data: bytes, option: str) -> Path:
    """Write ``data`` as the file ``path`` whole (a temporary file renamed into place), never
    through a link; something other than a regular file at ``path`` is refused."""
    check_target(path, option)
    with staged_in(None) as made:
        made.stage(path, data)
    return path


@contextlib.contextmanager
def undone_if_stopped(folder: Path) -> Iterator[Made]:
    """The record of what the block makes (``Made``, watched): its folders, made through
    ``Made.folder`` from ``folder`` up, and its files. When the block ends in an exception
    (Ctrl-C and SIGTERM among them) or the process is killed, that and only that is removed,
    so a stopped run leaves no empty or half-written report, and nothing of anyone else's:
    another run's report under the same new parent, a file saved meanwhile in ``--out``."""
    made = Made(watch=True)
    try:
        yield made
    except BaseException:
        made.undo()
        raise
    made.keep()
