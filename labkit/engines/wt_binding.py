"""The embedded WiredTiger binding as the B-tree loads use it: imported or said how to install,
its version, a statistics cursor read as a dictionary, and inserts of raw bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labkit.errors import ServerUnavailable
from labkit.i18n import N_, Message


def wiredtiger_module() -> Any:
    """Import the WiredTiger binding, or say how to install it (a SWIG module without types:
    Any to its callers)."""
    try:
        import wiredtiger  # optional: built by make wiredtiger (pyproject: no stubs)
    except ImportError as exc:
        raise ServerUnavailable(
            Message(N_("The WiredTiger binding is not installed.")),
            hint=Message(N_("make wiredtiger (needs swig, cmake, ninja and a C/C++ compiler: "
                            "apt-get install swig cmake ninja-build g++, or the conda "
                            "environment)."))) from exc
    return wiredtiger


def wiredtiger_version() -> str:
    """The version of the embedded WiredTiger library."""
    wt = wiredtiger_module()
    return str(wt.wiredtiger_version()[0]).split(":")[0].replace("WiredTiger ", "")


def wt_inserter(cursor: Any) -> Callable[[bytes, bytes], None]:
    """Insert a key and a value through ``cursor``, each given as its bytes.

    The binding's ``set_key`` and ``set_value`` run every item through a packer written in
    Python, which took about 40% of a 200,000-key load; for a format of one ``u`` (a raw byte
    array, the last item of its format, so stored without a length: WiredTiger's "Packing and
    unpacking data") that packer returns the bytes unchanged, so they go to the cursor's own
    setters directly. The key stays referenced by its batch and the value by the caller until
    the insert returns, as the binding's setters keep theirs. Any other format, or a binding
    without those setters, takes the public path.
    """
    set_key, set_value = getattr(cursor, "_set_key", None), getattr(cursor, "_set_value", None)
    if (cursor.key_format, cursor.value_format) != ("u", "u") or not (set_key and set_value):
        def insert_public(key: bytes, value: bytes) -> None:
            cursor[key] = value
        return insert_public
    raw_insert = cursor.insert

    def insert(key: bytes, value: bytes) -> None:
        set_key(key)
        set_value(value)
        if raw_insert() != 0:
            raise KeyError(key)
    return insert


def wt_stats(session: Any, uri: str, config: str | None = None) -> dict[str, int]:
    """A statistics cursor on ``uri`` ("": the connection's) as ``{description: value}``."""
    cursor = session.open_cursor(f"statistics:{uri}", None, config)
    stats: dict[str, int] = {}
    try:
        while cursor.next() == 0:
            desc, _, value = cursor.get_value()
            stats[desc] = value
    finally:
        cursor.close()
    return stats
