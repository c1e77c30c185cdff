"""labkit: lessons that check MongoDB behaviour claims against real servers."""

from labkit import _signals  # noqa: F401  # first: the command's signals, while it imports
from labkit._version import __version__
from labkit.errors import (
    BadInput,
    ClaimFailed,
    LabkitError,
    ServerStartError,
    ServerUnavailable,
)
from labkit.experiments.catalogue import registered
from labkit.i18n import language
from labkit.lessons.attempts import exercise, reveal
from labkit.lessons.course import progress
from labkit.lessons.exercises import Exercise
from labkit.lessons.notebook import after, check, on_server, session, start_lesson, table
from labkit.run.doctor import run as doctor
from labkit.servers import mongodb

__all__ = [
    "BadInput",
    "ClaimFailed",
    "Exercise",
    "LabkitError",
    "ServerStartError",
    "ServerUnavailable",
    "__version__",
    "after",
    "check",
    "doctor",
    "exercise",
    "language",
    "mongodb",
    "on_server",
    "progress",
    "registered",
    "reveal",
    "session",
    "start_lesson",
    "table",
]
