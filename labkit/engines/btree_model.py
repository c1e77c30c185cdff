"""The textbook B+tree the B-tree lessons start from, as a B-tree engine: 50/50 or rightmost
splits, every leaf's fill, and the split count as the keys go in."""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from labkit._version import __version__
from labkit.engines.btree_engine import BTreeEngine, LoadResult, Progress, Settings
from labkit.errors import BadInput
from labkit.i18n import N_, Message
from labkit.model import keys as keymod

POLICIES = ("half", "rightmost")
MODEL_TRACE_POINTS = 50  # a run's model loads record their split count this many times each


# The textbook model --------------------------------------------------------------------


# The keys of a load are bytes; the tests insert integers too: any keys ordered among themselves.
Key = Any


class _Node:
    __slots__ = ("children", "keys")

    def __init__(self, keys: list[Key], children: list[_Node] | None = None) -> None:
        self.keys = keys
        self.children = children


class BPlusTree:
    """A textbook B+tree: leaves hold up to ``capacity`` keys, internal nodes as many children.

    ``policy="half"`` splits every full node 50/50. ``policy="rightmost"`` splits a
    full node at the right edge of the tree so that the new node takes only the
    new key (what PostgreSQL, InnoDB and WiredTiger's append path do), and 50/50
    elsewhere.
    """

    def __init__(self, capacity: int = 64, policy: str = "half") -> None:
        if policy not in POLICIES:
            raise BadInput(Message(N_("unknown split policy {policy}; choose half or rightmost"),
                                   policy=repr(policy)))
        if capacity < 3:
            raise BadInput(Message(N_("page capacity must be at least 3 keys, not {capacity}"),
                                   capacity=repr(capacity)))
        self.capacity = capacity
        self.policy = policy
        self.root = _Node([])
        self.leaf_splits = 0
        self.internal_splits = 0
        self.size = 0

    def insert(self, key: Key) -> None:
        """Insert one key (duplicates are refused), splitting full nodes on the way back up."""
        path: list[tuple[_Node, int]] = []
        node = self.root
        at_right_edge = True
        while node.children is not None:
            index = bisect.bisect_right(node.keys, key)
            at_right_edge = at_right_edge and index == len(node.children) - 1
            path.append((node, index))
            node = node.children[index]
        position = bisect.bisect_left(node.keys, key)
        if position < len(node.keys) and node.keys[position] == key:
            raise BadInput(Message(N_("duplicate key {key}"), key=repr(key)))
        node.keys.insert(position, key)
        self.size += 1
        appended = at_right_edge and position == len(node.keys) - 1
        if len(node.keys) > self.capacity:
            self._split_up(node, path, appended)

    def _cut(self, length: int, appended: bool) -> int:
        return length - 1 if appended and self.policy == "rightmost" else length // 2

    def _split_up(self, node: _Node, path: list[tuple[_Node, int]], appended: bool) -> None:
        cut = self._cut(len(node.keys), appended)
        right = _Node(node.keys[cut:])
        node.keys = node.keys[:cut]
        separator = right.keys[0]
        self.leaf_splits += 1
        while True:
            if not path:
                self.root = _Node([separator], [node, right])
                return
            parent, index = path.pop()
            children = parent.children
            assert children is not None  # the path holds internal nodes only
            parent.keys.insert(index, separator)
            children.insert(index + 1, right)
            if len(children) <= self.capacity:
                return
            self.internal_splits += 1
            cut = self._cut(len(children), appended)
            separator = parent.keys[cut - 1]
            right = _Node(parent.keys[cut:], children[cut:])
            parent.keys, parent.children = parent.keys[: cut - 1], children[:cut]
            node = parent

    def leaves(self) -> Iterable[_Node]:
        """The leaves, left to right."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.children is None:
                yield node
            else:
                stack.extend(reversed(node.children))

    def leaf_fills(self) -> list[float]:
        """Each leaf's keys divided by its capacity, left to right."""
        return [len(leaf.keys) / self.capacity for leaf in self.leaves()]


@dataclass
class ModelLoad(LoadResult):
    """The textbook model (``BPlusTree``): its page capacity and split policy, the
    splits it made, every leaf's fill and, every ``trace_every`` keys, its split count."""

    page_capacity: int = 64
    split_policy: str = "half"
    leaf_splits: int = 0
    internal_splits: int = 0
    splits_trace: list[int] = field(default_factory=list)
    trace_every: int = 0

    @property
    def splits_per_1000_inserts(self) -> float:
        """Leaf splits per thousand keys inserted."""
        return 1000 * self.leaf_splits / self.n

    def _figures(self) -> Iterator[tuple[str, Any]]:
        yield from super()._figures()
        yield from (("page_capacity", self.page_capacity), ("split_policy", self.split_policy),
                    ("leaf_splits", self.leaf_splits), ("internal_splits", self.internal_splits),
                    ("splits_per_1000_inserts", self.splits_per_1000_inserts),
                    ("leaf_fills", self.leaf_fills), ("splits_trace", self.splits_trace),
                    ("trace_every", self.trace_every))


class ModelTree(BTreeEngine[None]):
    """The textbook B+tree (``BPlusTree``): 50/50 or rightmost splits."""

    key = "model"

    def version(self, server: None) -> str:
        """The model has no version of its own; it is labkit's."""
        return f"labkit {__version__}"

    def load(self, kind: str, n: int, settings: Settings, server: None,
             progress: Progress | None = None) -> ModelLoad:
        """Insert the keys into the model; count its splits (every ``settings.trace_every``
        keys, if set) and read every leaf's fill."""
        capacity, policy, every = settings.capacity, settings.policy, settings.trace_every
        tree = BPlusTree(capacity, policy)
        splits_trace: list[int] = []
        start = time.perf_counter()
        done = 0
        for batch in keymod.batches(kind, n, self._batch(settings)):
            for key in batch:
                tree.insert(key)
                done += 1
                if every and done % every == 0:
                    splits_trace.append(tree.leaf_splits)
            if progress:
                progress(len(batch))
        seconds = time.perf_counter() - start
        fills = tree.leaf_fills()
        return ModelLoad(keys=kind, n=n, index_bytes=None, leaf_pages=len(fills),
                         avg_leaf_fill=sum(fills) / len(fills), insert_seconds=seconds,
                         page_capacity=capacity, split_policy=policy,
                         leaf_splits=tree.leaf_splits, internal_splits=tree.internal_splits,
                         leaf_fills=fills, splits_trace=splits_trace, trace_every=every)

    def load_key(self, settings: Settings, server: None) -> tuple[object, ...]:
        """A model load is set apart by its split policy and page capacity."""
        return (settings.policy, settings.capacity)

    def checkpoint_every(self, settings: Settings) -> int | None:
        """The model takes no checkpoints."""
        return None
