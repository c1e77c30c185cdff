"""A pytest plugin that records every find, match and sort the model answers while the model's
own tests run, for ``test_explain_corpus.py`` to ask ``labkit explain`` the same questions.

Loaded with ``-p explain_recorder`` (``tests/`` on the path) and ``LABKIT_EXPLAIN_RECORD`` set
to a file: each call that returns is kept with its arguments, copied before the call (a test
may change its documents afterwards), and the file is written at the session's end.
"""

from __future__ import annotations

import copy
import functools
import inspect
import os
import pickle
from typing import Any

_calls: list[tuple[str, tuple[Any, ...]]] = []


def _recording(kind: str, original: Any) -> Any:
    signature = inspect.signature(original)

    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        docs, spec, collation, version = bound.args[:4]
        if kind != "match":
            docs = list(docs)  # an iterator is read once: the call gets the list
            bound.arguments[next(iter(bound.arguments))] = docs
        try:
            kept = copy.deepcopy(([docs] if kind == "match" else docs, spec, collation, version))
        except Exception:  # a value that cannot be copied is no case to replay
            kept = None
        result = original(*bound.args, **bound.kwargs)
        if kept is not None:
            _calls.append((kind, kept))
        return result

    return call


def pytest_configure(config: Any) -> None:
    """Wrap the model's find, matches and sort before any test module imports them."""
    import labkit.model
    from labkit.model import bson_order, reads

    wrapped = {"find": _recording("find", reads.find),
               "matches": _recording("match", reads.matches),
               "sort": _recording("sort", bson_order.sort)}
    for module in (labkit.model, reads):
        module.find, module.matches = wrapped["find"], wrapped["matches"]
    labkit.model.sort = bson_order.sort = wrapped["sort"]


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    path = os.environ["LABKIT_EXPLAIN_RECORD"]
    kept = []
    for kind, arguments in _calls:
        try:
            kept.append(pickle.dumps((kind, arguments)))
        except Exception:  # a value pickle cannot write (a compiled pattern's flags, say)
            continue
    with open(path, "wb") as file:
        pickle.dump(kept, file)
