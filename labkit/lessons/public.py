"""The names ``labkit`` offers a notebook, and the module each lives in: the facade imports each
on first use (so that a command such as ``labkit predict`` loads only what it needs), and
``docs/api.md`` lists them (``lessons.reference``)."""

# A name of ``labkit`` -> (its module, its name there), imported on first use.
LAZY: dict[str, tuple[str, str]] = {
    "registered": ("labkit.experiments.catalogue", "registered"),
    "language": ("labkit.lessons.notebook", "language"),
    "progress": ("labkit.lessons.course", "progress"),
    "tried": ("labkit.lessons.course", "tried"),
    "Exercise": ("labkit.lessons.exercises", "Exercise"),
    "after": ("labkit.lessons.notebook", "after"),
    "claim": ("labkit.lessons.notebook", "claim"),
    "on_server": ("labkit.lessons.notebook", "on_server"),
    "session": ("labkit.lessons.notebook", "session"),
    "start_lesson": ("labkit.lessons.notebook", "start_lesson"),
    "table": ("labkit.lessons.notebook", "table"),
    "exercise": ("labkit.lessons.attempts", "exercise"),
    "collection": ("labkit.lessons.collection", "collection"),
    "reveal": ("labkit.lessons.attempts", "reveal"),
    "score": ("labkit.lessons.recall", "score"),
    "doctor": ("labkit.run.doctor", "run"),
    "explain": ("labkit.outputs.explanations", "explain"),
    "mongodb": ("labkit.servers", "mongodb"),
}
# The names the facade imports at once: the errors a notebook catches, and the version.
EAGER: dict[str, tuple[str, str]] = {
    "BadInput": ("labkit.errors", "BadInput"),
    "ClaimFailed": ("labkit.errors", "ClaimFailed"),
    "LabkitError": ("labkit.errors", "LabkitError"),
    "ServerStartError": ("labkit.errors", "ServerStartError"),
    "ServerUnavailable": ("labkit.errors", "ServerUnavailable"),
    "__version__": ("labkit._version", "__version__"),
}
NAMES: tuple[str, ...] = tuple(sorted([*LAZY, *EAGER]))
