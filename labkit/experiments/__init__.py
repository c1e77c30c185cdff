"""The experiments behind the claims; importing this package registers them all."""

from . import (  # noqa: F401
    bson_claims,
    btree_claims,
    encoding,
    objectid_order,
    objectids,
    uuidv7,
)
