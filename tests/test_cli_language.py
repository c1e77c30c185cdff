"""The command line in the learner's language: with ``LABKIT_LANG=vi`` every ``--help`` and
every usage error is Vietnamese only (labkit's help texts and argparse's own words alike); in
English both are what they always were."""

from __future__ import annotations

import argparse
import gettext
import inspect
import re

import polib
import pytest

from labkit import cli, i18n
from labkit.lessons import translate


def _parsers(parser: argparse.ArgumentParser, argv: tuple[str, ...] = ()):
    """Each command's argv and parser: the top level, every group and every subcommand."""
    yield argv, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*argv, name))


def _english_words(parser: argparse.ArgumentParser) -> list[str]:
    """The sentences a command's ``--help`` shows of labkit's own: its description, its epilog
    and each option's or subcommand's help."""
    parser.format_help()  # the bounds' epilog is written with the help
    helps = [action.help for action in parser._actions if action.help]
    helps += [choice.help for action in parser._actions
              if isinstance(action, argparse._SubParsersAction)
              for choice in action._choices_actions if choice.help]
    return [text for text in (parser.description, parser.epilog, *helps) if text]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _english_parsers():
    saved = i18n._chosen
    i18n._chosen = "en"
    try:
        return [(list(argv), _english_words(parser)) for argv, parser in
                _parsers(cli.build_parser())]
    finally:
        i18n._chosen = saved


COMMANDS = _english_parsers()


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    """``labkit ARGV`` in this process: its status, stdout and stderr."""
    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


def _speak(monkeypatch, code: str) -> str:
    monkeypatch.setattr(i18n, "_chosen", None)
    monkeypatch.setenv("LABKIT_LANG", code)
    monkeypatch.setenv("COLUMNS", "10000")
    return code


@pytest.fixture(params=["en", "vi"])
def lang(request, monkeypatch):
    """``LABKIT_LANG`` set to each language in turn, on a terminal wide enough that no help
    line wraps (a sentence is then found whole)."""
    return _speak(monkeypatch, request.param)


@pytest.fixture
def vietnamese(monkeypatch):
    """``LABKIT_LANG=vi``."""
    return _speak(monkeypatch, "vi")


@pytest.mark.parametrize(("argv", "english"), COMMANDS,
                         ids=[" ".join(argv) or "labkit" for argv, _ in COMMANDS])
def test_every_help_is_in_the_language_only(lang, argv, english, capsys):
    """Each command's ``--help`` under ``LABKIT_LANG=vi`` has argparse's headings in Vietnamese
    and each of labkit's help sentences in its Vietnamese, none left in English; in English
    every sentence is there as written."""
    status, out, _ = _run([*argv, "--help"], capsys)
    assert status == 0
    shown = _flat(out)
    if lang == "en":
        assert out.startswith("usage: labkit")
        assert all(_flat(text) in shown for text in english)
        return
    assert out.startswith("cách dùng: labkit")
    assert "tuỳ chọn:" in out.splitlines()
    assert "hiện phần trợ giúp này rồi thoát" in shown
    for heading in ("usage:", "options:", "positional arguments:", "show this help message"):
        assert heading not in out
    left = [text for text in english if _flat(text) in shown]
    assert left == [], "help left in English"
    assert english, "a command with no help text of its own"
    if argv in ([], ["check"], ["predict", "sort"]):  # the bounds are among the words
        assert any(text.startswith("Files are read within bounds") for text in english)


@pytest.mark.parametrize(("argv", "said"), [
    (["run", "--btree-n", "x"], "đối số --btree-n: 'x' không phải một số nguyên (xem "
                                "`labkit run --help`)"),
    (["run", "--mongodb", "x"], "đối số --mongodb: lựa chọn không hợp lệ: 'x' (hãy chọn "
                                "trong: 'auto', 'uri', 'local', 'docker') (xem `labkit run "
                                "--help`)"),
    ([], "còn thiếu các đối số bắt buộc sau: COMMAND (xem `labkit --help`)"),
    (["doctor", "--zz"], "đối số không nhận ra: --zz (xem `labkit --help`)"),
    (["run", "--out"], "đối số --out: cần đúng một giá trị (xem `labkit run --help`)"),
    (["progress", "--merge"], "đối số --merge: cần ít nhất một giá trị (xem `labkit "
                              "progress --help`)"),
    (["progress", "--export", "a", "--merge", "b"], "đối số --merge: không được dùng cùng "
                                                    "đối số --export (xem `labkit progress "
                                                    "--help`)"),
    (["run", "--mongo", "uri"], "tuỳ chọn chưa rõ: --mongo có thể là --mongodb, "
                                "--mongodb-version (xem `labkit run --help`)"),
    (["doctor", "--json=1"], "đối số --json: tuỳ chọn này không nhận giá trị, nhưng được "
                             "cho '1' (xem `labkit doctor --help`)"),
    (["server", "--cache-gb", "x"], "đối số --cache-gb: giá trị float không hợp lệ: 'x' (xem "
                                    "`labkit server --help`)"),
    (["run", "--btree-n", "0"], "--btree-n phải nằm trong khoảng từ 1 đến 100.000.000 khoá, "
                                "không phải 0"),
])
def test_a_usage_error_is_vietnamese_only(vietnamese, argv, said, capsys):
    """A usage error under ``LABKIT_LANG=vi`` is one Vietnamese line, argparse's part and
    labkit's alike, ``Lỗi:`` first and the pointer to ``--help`` in Vietnamese too."""
    status, out, err = _run(argv, capsys)
    assert (status, out, err) == (2, "", f"Lỗi: {said}\n")


def test_a_usage_error_in_english_is_as_it_was(lang, capsys):
    """In English the ``--btree-n x`` error is the line it has always been."""
    status, _, err = _run(["run", "--btree-n", "x"], capsys)
    expected = {"en": "Error: argument --btree-n: 'x' is not an integer (see `labkit run "
                      "--help`)\n",
                "vi": "Lỗi: đối số --btree-n: 'x' không phải một số nguyên (xem `labkit run "
                      "--help`)\n"}
    assert (status, err) == (2, expected[lang])


def test_argparse_is_given_back_its_own_gettext(vietnamese, capsys):
    """After a command, argparse looks its words up through gettext again: another parser in
    the process is not spoken to in labkit's language."""
    _run(["run", "--btree-n", "x"], capsys)
    assert vars(argparse)["_"] is gettext.gettext
    assert argparse.ArgumentParser(prog="other").format_usage() == "usage: other [-h]\n"


def test_each_argparse_word_labkit_translates_is_argparse_s():
    """Each of argparse's words in labkit's catalogue is still a message of this Python's
    argparse, and its translation keeps its ``%`` placeholders: a renamed message would
    otherwise go back to English unnoticed."""
    source = inspect.getsource(argparse)
    catalogue = {e.msgid: e.msgstr for e in polib.pofile(str(translate.LABKIT_CATALOGUE))}
    for word in cli._ARGPARSE_WORDS:
        assert f"_({word!r})" in source or f"_({word!r}," in source, word
        placeholders = re.findall(r"%(?:\(\w+\))?[sr]", word)
        assert sorted(re.findall(r"%(?:\(\w+\))?[sr]", catalogue[word])) == sorted(placeholders)
