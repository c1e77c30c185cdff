"""The YAML loader of claim files: YAML as JSON sees it, read within labkit's bounds.

Imported only when a claim file is read (PyYAML costs an import the other commands skip).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import yaml

from labkit.errors import BadInput
from labkit.i18n import N_, Message
from labkit.model import fixtures

_SURROGATE = re.compile(r"[\ud800-\udfff]")


class _Mark(Protocol):
    """Where a node or an event starts (PyYAML's Python and C marks alike)."""

    line: int


class _PythonEvents(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's events read in Python, as its ``SafeLoader`` reads them."""

    def __init__(self, text: str) -> None:
        yaml.reader.Reader.__init__(self, text)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


class _Bounded(yaml.composer.Composer, yaml.constructor.SafeConstructor,
               yaml.resolver.Resolver):
    """YAML as JSON sees it (``2026-10-01`` stays a string, a key is its text), read within
    labkit's bounds: nesting, values repeated by aliases, integer digits, UTF-8 strings.
    The bounds are checked as the nodes are composed, before anything is expanded. The events
    come from the class named after this one: the Python composition here comes first.

    An anchor name may be given again: an alias then names the most recent node with that
    anchor (YAML 1.2.2, 3.2.2.2 "Anchors and Aliases" and 7.1 "Alias Nodes"; YAML 1.1 says the
    same), where PyYAML's composer refuses a "duplicate anchor" (yaml/pyyaml#100)."""

    def __init__(self, text: str, path: Path) -> None:
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self.path = path
        self.depth = 0
        self.repeated = 0
        self.definitions: dict[str, int] = {}  # how often each anchor name was given so far
        self.open_anchors: set[tuple[str, int]] = set()  # (name, definition) being composed
        self.escapes = "\\u" in text or "\\U" in text

    if TYPE_CHECKING:  # given by the class of events each loader adds
        def peek_event(self) -> yaml.Event | None: ...

        def dispose(self) -> None: ...

    def refuse(self, mark: _Mark | None, problem: Message) -> BadInput:
        line = mark.line + 1 if mark is not None else 1
        return BadInput(Message("{path}:{line:d}: {problem}", path=str(self.path), line=line,
                                problem=problem))

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self._count_alias(event)
            return super().compose_node(parent, index)
        self.depth += 1
        if self.depth > fixtures.MAX_FILE_DEPTH:
            raise self.refuse(getattr(event, "start_mark", None), Message(N_(
                "nested more than {file_depth} levels ({depth} in a document, BSON's limit) "
                "(labkit's bounds: see labkit --help)"), file_depth=fixtures.MAX_FILE_DEPTH,
                depth=fixtures.MAX_DEPTH))
        opened = self._define(getattr(event, "anchor", None))
        try:
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
            self.open_anchors.discard(opened)
        if self.escapes and isinstance(node, yaml.ScalarNode):
            node.value = self._utf8(node)
        if isinstance(node, yaml.MappingNode):
            self._once_each(node)
        return node

    def _once_each(self, node: yaml.MappingNode) -> None:
        """Refuse a key written twice in one mapping, as written (before merge keys bring in
        theirs): YAML forbids it and PyYAML keeps the last silently (two ``expect:``)."""
        seen: set[str] = set()
        for key_node, _value in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                continue
            if key_node.value in seen:
                raise self.refuse(key_node.start_mark, Message(N_(
                    "the key {key} is written twice in one mapping; keep one"),
                    key=repr(key_node.value)))
            seen.add(key_node.value)

    def _define(self, anchor: str | None) -> tuple[str, int]:
        """A node's anchor, counted as one more definition of its name: the earlier node of
        that name leaves the composer's table, so the new one replaces it."""
        if anchor is None:
            return ("", 0)
        self.anchors.pop(anchor, None)
        self.definitions[anchor] = self.definitions.get(anchor, 0) + 1
        opened = (anchor, self.definitions[anchor])
        self.open_anchors.add(opened)
        return opened

    def _count_alias(self, event: yaml.AliasEvent) -> None:
        """Count the values the alias repeats (and how deep they reach), refusing as soon
        as a bound is passed: a walk that never goes beyond the bound."""
        name = event.anchor or ""
        if (name, self.definitions.get(name, 0)) in self.open_anchors:
            raise self.refuse(event.start_mark, Message(N_(
                "the alias *{alias} is inside the value it names (a value that contains "
                "itself)"), alias=event.anchor))
        target = self.anchors.get(name)
        stack = [(target, self.depth + 1)] if target is not None else []
        while stack:
            node, depth = stack.pop()
            self.repeated += 1
            if self.repeated > fixtures.MAX_ALIAS_VALUES:
                raise self.refuse(event.start_mark, Message(N_(
                    "aliases repeat more than {most:,} values (labkit's bounds: see labkit "
                    "--help)"), most=fixtures.MAX_ALIAS_VALUES))
            if depth > fixtures.MAX_FILE_DEPTH:
                raise self.refuse(event.start_mark, Message(N_(
                    "the alias *{alias} nests values more than {file_depth} levels deep "
                    "(labkit's bounds: see labkit --help)"), alias=event.anchor,
                    file_depth=fixtures.MAX_FILE_DEPTH))
            if isinstance(node, yaml.SequenceNode):
                stack += [(child, depth + 1) for child in node.value]
            elif isinstance(node, yaml.MappingNode):
                stack += [(child, depth + 1) for pair in node.value for child in pair]

    def _utf8(self, node: yaml.ScalarNode) -> str:
        """The text with escaped surrogate pairs joined; a lone surrogate is refused, as
        no UTF-8 file (results.json, a BSON string) can hold it."""
        text = str(node.value)
        if not _SURROGATE.search(text):
            return text
        try:
            return text.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            raise self.refuse(node.start_mark, Message(N_(
                "a string holds a lone surrogate (\\ud800 to \\udfff alone), which is not UTF-8 "
                "text"))) from None

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """A node's value; a value its explicit tag cannot make (``!!float abc``, ``!!bool
        maybe``) is refused with its line, where PyYAML's constructors raise."""
        try:
            return super().construct_object(node, deep=deep)
        except BadInput:
            raise
        except (ValueError, KeyError, TypeError, OverflowError):
            raise self.refuse(node.start_mark, Message(N_(
                "{text} cannot be read as {tag} says"), text=repr(str(node.value)[:40]),
                tag=node.tag.replace("tag:yaml.org,2002:", "!!"))) from None

    def construct_mapping(self, node: yaml.MappingNode,
                          deep: bool = False) -> dict[Hashable, Any]:
        self.flatten_mapping(node)  # merge keys (<<), as the safe loader does
        mapping: dict[Hashable, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise self.refuse(key_node.start_mark, Message(N_(
                    "a key is a list or a mapping; a key is text")))
            mapping[key_node.value] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """An integer as YAML 1.2's core schema reads it: decimal (``017`` is 17), ``0o17``
        or ``0x1F``; PyYAML's own reads ``017`` as octal and ``1_000`` as 1000."""
        text = str(node.value)
        sign = -1 if text[:1] == "-" else 1
        body = text[1:] if text[:1] in "+-" else text
        if not _INTEGER.fullmatch(body):  # an explicit !!int on other text ("0b11", "٣", "")
            raise self.refuse(node.start_mark, Message(N_(
                "{text} is not an integer as YAML 1.2 writes one (digits 0-9, 0o… or 0x…)"),
                text=repr(text)))
        base = {"0o": 8, "0x": 16}.get(body[:2], 10)
        digits = body[2:] if base != 10 else body
        try:
            fixtures.check_integer_text(digits, N_("the value"))
        except BadInput as exc:  # its message, kept to be shown in the learner's language
            raise self.refuse(node.start_mark, Message(N_(
                "{problem} (labkit's bounds: see labkit --help)"), problem=exc.args[0])) from None
        return sign * int(digits, base)


_INTEGER = re.compile(r"[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", re.ASCII)

# YAML 1.2's core schema (YAML 1.2.2, 10.3.2 "Tag Resolution"), which reads what JSON reads as
# JSON reads it: ``1e3`` is a number (PyYAML's YAML 1.1 rules make it a string), ``no``, ``on``
# and ``12:30`` stay strings, and ``2026-10-01`` stays a string (no timestamps). Merge keys
# (``<<``) keep PyYAML's meaning.
_CORE = [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+.0123456789"),
    ("tag:yaml.org,2002:merge", r"^<<$", "<"),
]
_Bounded.yaml_implicit_resolvers = {}  # under each first character ("" for an empty value)
for _tag, _pattern, _firsts in _CORE:
    for _first in _firsts:
        _Bounded.yaml_implicit_resolvers.setdefault(_first, []).append(
            (_tag, re.compile(_pattern)))
# The override above, where the safe loader's table names its own integer constructor.
_Bounded.yaml_constructors = {**yaml.constructor.SafeConstructor.yaml_constructors,
                              "tag:yaml.org,2002:int": _Bounded.construct_yaml_int}


class PythonLoader(_Bounded, _PythonEvents):
    """The bounded loader on events read in Python: slower, and it reads what JSON allows
    and libyaml refuses, escaped surrogate pairs (``"\\ud83d\\ude00"``)."""

    def __init__(self, text: str, path: Path) -> None:
        _PythonEvents.__init__(self, text)
        _Bounded.__init__(self, text, path)


# The events come from libyaml where PyYAML was built with it (its wheels are), many times
# faster than in Python; a reader error's position is then a byte offset of the UTF-8 text.
Loader: type[_Bounded]
try:
    from yaml._yaml import CParser

    class CLoader(_Bounded, CParser):
        """The bounded loader on libyaml's events."""

        def __init__(self, text: str, path: Path) -> None:
            CParser.__init__(self, text)
            _Bounded.__init__(self, text, path)

    Loader, OFFSETS_IN_BYTES = CLoader, True
except ImportError:  # PyYAML without libyaml: the same events, read in Python
    Loader, OFFSETS_IN_BYTES = PythonLoader, False
