"""A claim file's text read as YAML (JSON is YAML) with the line of every value, and its values
turned from Extended JSON into BSON values; every mistake is one ``BadInput`` with a line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labkit.claims._shell import find_notation, notation_in_line
from labkit.errors import BadInput
from labkit.i18n import N_, Message, Text
from labkit.model import fixtures

if TYPE_CHECKING:
    import yaml

    from labkit.claims._bounded_yaml import _Bounded
    from labkit.claims._shell import Notation


class Node:
    """A parsed value with the line it starts on, and its children's nodes."""

    def __init__(self, node: yaml.Node) -> None:
        self.node = node

    @property
    def line(self) -> int:
        """The line the value starts on, counted from 1."""
        return int(self.node.start_mark.line) + 1

    def item(self, index: int) -> Node:
        """The node of a list's item."""
        return Node(self.node.value[index])

    def key(self, name: str) -> Node | None:
        """The node of a mapping's value (its line is where the key is written)."""
        for key_node, value_node in getattr(self.node, "value", []):
            if getattr(key_node, "value", None) == name:
                return Node(value_node)
        return None

    def at(self, *path: str | int) -> Node | None:
        """The node of the value at ``path`` (keys and indexes), or None where there is none."""
        node: Node | None = self
        for part in path:
            if node is None:
                return None
            if isinstance(part, int):
                items = node.node.value
                if not isinstance(items, list) or not 0 <= part < len(items) or isinstance(
                        items[part], tuple):
                    return None
                node = node.item(part)
            else:
                node = node.key(part)
        return node

    def line_of(self, *path: str | int) -> int:
        """The line of the value at ``path`` (keys and indexes), or of the nearest one above."""
        node: Node | None = self
        line = self.line
        for part in path:
            if node is None:
                break
            node = node.item(part) if isinstance(part, int) else node.key(part)
            if node is not None:
                line = node.line
        return line


def parse(path: Path) -> tuple[Any, Node]:
    """A claim file's data, and the node that knows the line of each value in it."""
    import yaml

    data = fixtures.read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(Message(N_("{path}: not UTF-8 text"), path=str(path))) from exc
    try:
        return _compose_and_construct(path, text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        # mongosh's notation in a flow collection can break the parse itself (the comma and
        # the quotes of BinData(0, "…")): the refusal with what to write beats YAML's words.
        lines = text.splitlines()
        for at in dict.fromkeys(m.line for m in (exc.problem_mark, exc.context_mark) if m):
            notation = notation_in_line(lines[at]) if at < len(lines) else None
            if notation is not None:
                raise BadInput(Message("{path}:{line:d}: {problem}", path=str(path),
                                       line=at + 1, problem=notation)) from exc
        raise BadInput(Message("{path}:{line:d}: {problem}", path=str(path), line=line,
                               problem=_problem(exc))) from exc
    except yaml.reader.ReaderError as exc:  # a control character: the reader checks first
        line = _line_at(text, exc.position)
        raise BadInput(Message(N_(
            "{path}:{line:d}: the control character #x{code:02x} is not allowed in YAML or JSON "
            "text; write it as an escape such as \"\\u{code:04x}\""), path=str(path), line=line,
            code=exc.character)) from exc
    except yaml.YAMLError as exc:
        raise BadInput(Message(N_("{path}: not valid YAML or JSON: {error}"), path=str(path),
                               error=str(exc))) from exc


def _problem(exc: yaml.MarkedYAMLError) -> Message:
    """PyYAML's problem with its context ("while parsing a flow mapping"), never one alone."""
    if exc.problem == "exceeded maximum nesting depth":  # libyaml's own bound (1,000) came first
        return Message(N_("nested more than {file_depth} levels ({depth} in a document, BSON's "
                          "limit) (labkit's bounds: see labkit --help)"),
                       file_depth=fixtures.MAX_FILE_DEPTH, depth=fixtures.MAX_DEPTH)
    problem = "; ".join(str(part) for part in (exc.context, exc.problem) if part) or str(exc)
    return Message(N_("not valid YAML or JSON: {problem}"), problem=problem)


def _line_at(text: str, position: int) -> int:
    # PyYAML (about 20 ms): loaded when a claim file is first read, not with claims.files
    from labkit.claims._bounded_yaml import OFFSETS_IN_BYTES

    if OFFSETS_IN_BYTES:
        return text.encode("utf-8", "surrogatepass").count(b"\n", 0, position) + 1
    return text.count("\n", 0, position) + 1


def _compose_and_construct(path: Path, text: str) -> tuple[Any, Node]:
    import yaml

    # PyYAML (about 20 ms): loaded when a claim file is first read, not with claims.files
    from labkit.claims._bounded_yaml import Loader, PythonLoader

    try:
        return _load(Loader(text, path))
    except yaml.MarkedYAMLError as exc:
        # libyaml refuses escaped surrogates, which JSON writes for a character beyond U+FFFF
        # ("\\ud83d\\ude00"): such a file is read again with events read in Python.
        if Loader is PythonLoader or "Unicode character escape" not in str(exc.problem):
            raise
        return _load(PythonLoader(text, path))


def _load(loader: _Bounded) -> tuple[Any, Node]:
    try:
        node = loader.get_single_node()
        if node is None:
            raise BadInput(Message(N_("{path}:1: the file is empty; write a list of claims"),
                                   path=str(loader.path)))
        return loader.construct_document(node), Node(node)
    finally:
        loader.dispose()


def shell_notation(node: Node | None) -> Notation | None:
    """The first unquoted value in mongosh's notation (``NumberDecimal("42.00")``) at or under
    ``node``, which a claim file refuses (``_shell``); None where there is none."""
    return find_notation(node.node) if node is not None else None


def extended_json(value: Any, where: Text = N_("the value")) -> Any:
    """A value as read from YAML or JSON, with Extended JSON (``$numberDecimal``, ``$date``, …)
    turned into BSON values, exactly as ``fixtures`` reads the data files."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError) as exc:
        raise BadInput(Message(N_("not a JSON value: {error}"), error=str(exc))) from exc
    return fixtures.parse_value(text, where)


def option_value(text: str, option: str, json_problem: Text = "") -> Any:
    """A value given to ``option`` in a claim file's notation, as the claim files read one:
    YAML's flow style (``{userId: {$gt: 0}}``, keys unquoted, as mongosh writes a filter)
    with Extended JSON values; mongosh's own notation (``NumberLong(5)``, ``/^ab/``) is
    refused with the Extended JSON to write, as in a claim file. ``json_problem``: what JSON
    said of the text, for the refusal where neither reads it."""
    import yaml

    try:
        data, node = _compose_and_construct(Path(option), text)
    except yaml.YAMLError as exc:
        in_line = notation_in_line(text)
        if in_line is not None:
            raise BadInput(Message("{option}: {problem}", option=option,
                                   problem=in_line)) from exc
        raise BadInput(Message(N_("{option} is neither JSON ({problem}) nor a claim file's "
                                  "notation (such as {example})"), option=option,
                               problem=json_problem, example="'{userId: {$gt: 0}}'")) from exc
    notation = shell_notation(node)
    if notation is not None:
        raise BadInput(Message("{option}: {problem}", option=option, problem=notation.problem))
    return extended_json(data, option)

