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
