"""A fixture's ``undefined`` values as BSON can carry them to a server.

BSON keeps a deprecated type for ``undefined`` (type 0x06, no value bytes; bsonspec.org's
"Specification Version 1.1", element ``"\\x06" e_name``), and MongoDB still stores and matches
it: whether ``{a: null}`` matches it is one of the differences between versions the model keeps
(``labkit.model.versions``). pymongo decodes the type as ``None`` and has no value that encodes
as it, so a fixture holding the model's ``UNDEFINED`` cannot be inserted as a dict.
``as_bson`` encodes such a document with ``None`` in each ``undefined``'s place, then turns
those elements' type byte from null (0x0A) to undefined (0x06): both carry no value bytes, so
no length changes. The result is a ``RawBSONDocument``, which pymongo sends as it is.

An in-process fake stores Python values, among which ``undefined`` has no form, so
``holds_undefined`` lets its engine say so instead of answering about a null.
"""

from __future__ import annotations

import struct
from typing import Any

from labkit.model.bson_order import UNDEFINED

_NULL, _UNDEFINED = 0x0A, 0x06
_DOCUMENT, _ARRAY = 0x03, 0x04
# The size of each type's value where it is fixed (bsonspec.org, "Specification Version 1.1").
_FIXED = {0x01: 8, 0x06: 0, 0x07: 12, 0x08: 1, 0x09: 8, 0x0A: 0, 0x10: 4, 0x11: 8, 0x12: 8,
          0x13: 16, 0x7F: 0, 0xFF: 0}
# Types whose value opens with its length as an int32: string, JavaScript code and symbol
# count the bytes after the length; a document, an array and code with scope count themselves.
_COUNTED_AFTER = {0x02, 0x0D, 0x0E}
_COUNTED_WHOLE = {_DOCUMENT, _ARRAY, 0x0F}


def holds_undefined(value: Any) -> bool:
    """Whether ``value`` (a document, a list or a scalar) holds ``UNDEFINED`` anywhere."""
    if value is UNDEFINED:
        return True
    if isinstance(value, dict):
        return any(holds_undefined(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(holds_undefined(item) for item in value)
    return False


def as_bson(document: dict[str, Any]) -> Any:
    """``document`` ready for pymongo: as it is where it holds no ``UNDEFINED``, else a
    ``RawBSONDocument`` whose ``undefined`` values are BSON's type 0x06."""
    if not holds_undefined(document):
        return document
    import bson
    from bson.raw_bson import RawBSONDocument

    data = bytearray(bson.encode(_nulled(document)))
    _mark(data, 0, document)
    return RawBSONDocument(bytes(data))


def _nulled(value: Any) -> Any:
    if value is UNDEFINED:
        return None
    if isinstance(value, dict):
        return {name: _nulled(item) for name, item in value.items()}
    if isinstance(value, list | tuple):
        return [_nulled(item) for item in value]
    return value


def _mark(data: bytearray, start: int, value: dict[str, Any] | list[Any]) -> None:
    """Turn to undefined the null elements of the BSON document at ``start`` that stand for
    ``UNDEFINED`` in ``value``, the document or list it was encoded from. Elements are found
    by name, not place: pymongo writes a top-level ``_id`` first."""
    length = _int32(data, start)
    at, end = start + 4, start + length - 1
    while at < end:
        kind = data[at]
        name_end = data.index(0, at + 1)
        name = data[at + 1:name_end].decode()
        original = value[int(name)] if isinstance(value, list) else value[name]
        body = name_end + 1
        if kind == _NULL and original is UNDEFINED:
            data[at] = _UNDEFINED
        elif kind in (_DOCUMENT, _ARRAY) and isinstance(original, dict | list | tuple):
            _mark(data, body, original if isinstance(original, dict) else list(original))
        at = body + _size(data, kind, body)


def _size(data: bytearray, kind: int, body: int) -> int:
    """The size of the value of type ``kind`` that starts at ``body``."""
    if kind in _FIXED:
        return _FIXED[kind]
    if kind in _COUNTED_AFTER:
        return 4 + _int32(data, body)
    if kind in _COUNTED_WHOLE:
        return _int32(data, body)
    if kind == 0x05:  # binary: length, subtype, bytes
        return 5 + _int32(data, body)
    if kind == 0x0B:  # regular expression: two C strings
        second = data.index(0, data.index(0, body) + 1)
        return second + 1 - body
    if kind == 0x0C:  # DBPointer: a string, then an ObjectId
        return 4 + _int32(data, body) + 12
    raise ValueError(f"BSON type 0x{kind:02x} is not one pymongo writes")


def _int32(data: bytearray, at: int) -> int:
    """The little-endian int32 at ``at``: every length BSON writes."""
    return int(struct.unpack_from("<i", data, at)[0])
