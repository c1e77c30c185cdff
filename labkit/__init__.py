"""labkit: lessons that check MongoDB behaviour claims against real servers."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from labkit import _signals  # noqa: F401  # first: the command's signals, while it imports
from labkit._version import __version__
from labkit.errors import (
    BadInput,
    ClaimFailed,
    LabkitError,
    ServerStartError,
    ServerUnavailable,
)

if TYPE_CHECKING:
    from labkit.experiments.catalogue import registered
    from labkit.lessons.attempts import exercise, reveal
    from labkit.lessons.collection import collection
    from labkit.lessons.course import progress, tried
    from labkit.lessons.exercises import Exercise
    from labkit.lessons.notebook import (
        after,
        claim,
        language,
        on_server,
        session,
        start_lesson,
        table,
    )
    from labkit.lessons.recall import score
    from labkit.outputs.explanations import explain
    from labkit.run.doctor import run as doctor
    from labkit.servers import mongodb


def __getattr__(name: str) -> Any:
    """A public name of the notebooks' API, imported the first time it is asked for."""
    if name not in __all__:  # a submodule's name too, asked before the submodule is loaded
        raise AttributeError(f"module 'labkit' has no attribute {name!r}")
    # Here, not at the top: a command such as `labkit predict` loads no lesson code.
    from labkit.lessons.public import LAZY

    module, attribute = LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


__all__ = [  # the same names as lessons.public.NAMES (tests/test_api.py)
    "BadInput",
    "ClaimFailed",
    "Exercise",
    "LabkitError",
    "ServerStartError",
    "ServerUnavailable",
    "__version__",
    "after",
    "claim",
    "collection",
    "doctor",
    "exercise",
    "explain",
    "language",
    "mongodb",
    "on_server",
    "progress",
    "registered",
    "reveal",
    "score",
    "session",
    "start_lesson",
    "table",
    "tried",
]
