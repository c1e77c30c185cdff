"""labkit: lessons that check MongoDB behaviour claims against real servers."""

__version__ = "0.1.0"  # set before the imports below (E402): submodules read it


from .claims import registered  # noqa: E402
from .course import progress  # noqa: E402
from .environment import run as doctor  # noqa: E402
from .errors import (  # noqa: E402
    BadInput,
    ClaimFailed,
    LabkitError,
    ServerStartError,
    ServerUnavailable,
)
from .exercises import Exercise  # noqa: E402
from .i18n import language  # noqa: E402
from .notebook import check, on_server, session, start_lesson  # noqa: E402
from .questions import exercise  # noqa: E402
from .servers import mongodb  # noqa: E402

__all__ = [
    "BadInput",
    "ClaimFailed",
    "Exercise",
    "LabkitError",
    "ServerStartError",
    "ServerUnavailable",
    "check",
    "doctor",
    "exercise",
    "language",
    "mongodb",
    "on_server",
    "progress",
    "registered",
    "session",
    "start_lesson",
]
