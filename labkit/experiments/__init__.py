"""The experiments behind the claims; importing this package registers them all."""

from . import btree_claims, encoding, objectid_order, objectids, uuidv7  # noqa: F401
