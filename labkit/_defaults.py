"""The defaults labkit's help shows, each spelled once, here: building the command line's
parser then imports none of the modules that use them (the servers, the B-tree engines).
"""

from __future__ import annotations

# Keys per kind for the B-tree claims, the lesson and ``labkit run`` (LABKIT_BTREE_N, --btree-n).
BTREE_N = 200_000
# Keys between two checkpoints of a B-tree load, the same for every key kind
# (``--checkpoint-every``).
CHECKPOINT_EVERY = 50_000
# The ways to get a MongoDB server, ``auto`` trying the others in this order.
MONGO_MODES = ("auto", "uri", "local", "docker")
# The WiredTiger cache of a mongod labkit starts, in GB: the smallest mongod accepts.
DEFAULT_CACHE_GB = 0.25
# The embedded WiredTiger's cache for a B-tree load, in MB, unless --cache-mb says otherwise.
WT_CACHE_MB = 64
# labkit's own PostgreSQL: shared buffers smaller than the B-tree lesson's index at its default
# N, so that the index outgrows the cache there (claim U5); ``--cache-mb`` sets another size.
OWN_SHARED_BUFFERS_MB = 4
