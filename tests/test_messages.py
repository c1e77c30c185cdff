"""A message is one of labkit's sentences kept as data (``labkit.i18n.Message``): English where
files keep it, the learner's language where it is shown, whatever was imported first."""

from __future__ import annotations

import subprocess
import sys


def test_an_error_speaks_the_learner_s_language_whatever_was_imported_first():
    """A process that imports ``labkit.errors`` alone (no ``labkit.i18n`` import of its own)
    shows an error's ``Hint:`` line and what was tried in Vietnamese under LABKIT_LANG=vi, and
    keeps them English where files keep them: errors.py installs no hook, it imports its words."""
    program = (
        "from labkit.errors import ServerUnavailable\n"
        "error = ServerUnavailable('No MongoDB server is available.', tried=['Docker: off'],\n"
        "                          hint='start Docker')\n"
        "print(str(error).splitlines()[0])\n"
        "print(str(error).splitlines()[-1])\n"
        "print(error.english().splitlines()[-1])\n")
    shown = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                           timeout=60, env={"LABKIT_LANG": "vi", "PATH": "/usr/bin:/bin"},
                           check=True).stdout.splitlines()
    assert shown == ["No MongoDB server is available. Đã thử:", "Gợi ý: start Docker",
                     "Hint: start Docker"]


def test_a_message_is_a_value_of_its_own_not_a_str(monkeypatch):
    """A message keeps its template and values until it is shown (labkit/i18n.py, ``Message``):
    it is no ``str`` (nothing can cut or parse it as text), two are equal, and hash alike, when
    their template and values are, it cannot be changed, it pickles as its template and values,
    and ``str()`` is its English, the text files and exception text keep."""
    import pickle

    import pytest

    from labkit import i18n
    from labkit.i18n import N_, Message

    monkeypatch.setattr(i18n, "_chosen", "vi")
    note = Message(N_("N = {n:,} keys per kind"), n=2000)
    assert not isinstance(note, str)
    assert not hasattr(note, "strip")
    with pytest.raises(TypeError):
        note + "x"  # what would glue text to a message
    assert (note.template, note.values) == ("N = {n:,} keys per kind", {"n": 2000})
    assert (str(note), note.english()) == ("N = 2,000 keys per kind",) * 2
    assert note.shown() == "N = 2.000 khoá mỗi loại"
    assert note == Message(N_("N = {n:,} keys per kind"), n=2000)
    assert note != Message(N_("N = {n:,} keys per kind"), n=2001)
    assert note != "N = 2,000 keys per kind"
    assert len({note, Message(N_("N = {n:,} keys per kind"), n=2000)}) == 1
    with pytest.raises(AttributeError):
        note.template = "other"
    again = pickle.loads(pickle.dumps(note))
    assert (again, again.shown()) == (note, note.shown())
    assert not Message("")
    assert Message(N_("no Docker socket"))
    joined = i18n.joined("; ", [note, "", Message(N_("no Docker socket"))])
    assert (i18n.english(joined), i18n.shown(joined)) == (
        "N = 2,000 keys per kind; no Docker socket",
        "N = 2.000 khoá mỗi loại; không có socket Docker")
