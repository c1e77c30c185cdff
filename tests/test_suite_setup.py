"""The suite's own set-up in the root conftest.py: nbval loads from there, after the stand-in
for ``rfc3987_syntax``, and jsonschema's IRI checks give that package's answers through it;
nbval's kernels talk over ipc files, not TCP ports."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import jsonschema
import pytest

# RFC 3987's IRI: a scheme, then characters beyond ASCII allowed (section 2.2's ucschar); a
# space is allowed nowhere, and a relative reference is no IRI.
IRIS = [("https://例え.テスト/パス?q=ä#frag", True), ("urn:isbn:0451450523", True),
        ("https://example.com/a b", False), ("/relative/path", False)]


def test_nbval_is_loaded(pytestconfig):
    """The lessons' notebook test is a plugin of this run (``--nbval-lax`` is its option)."""
    assert pytestconfig.pluginmanager.has_plugin("nbval.plugin")
    assert pytestconfig.getoption("nbval_lax") is True


@pytest.mark.parametrize(("value", "is_iri"), IRIS)
def test_the_iri_format_answers_as_rfc3987_syntax_does(value, is_iri):
    """jsonschema's "iri" format check, through the stand-in, gives the package's answer; after
    the first check the package itself is the module in place."""
    from rfc3987_syntax import is_valid_syntax  # the stand-in's function, or the package's

    assert jsonschema.FormatChecker().conforms(value, "iri") is is_iri
    assert is_valid_syntax("iri", value) is is_iri
    assert getattr(sys.modules["rfc3987_syntax"], "__file__", None)


def test_nbvals_kernels_talk_over_ipc_files_in_a_folder_of_the_runs(kernel_manager):
    """A kernel nbval starts binds files of its own folder under the temporary directory, so no
    port another process took can stop it; the Vietnamese lessons' kernels (``kernel_manager``)
    are made by the same class."""
    import nbval.kernel

    assert nbval.kernel.KernelManager is kernel_manager
    first = nbval.kernel.KernelManager(kernel_name="python3")
    second = nbval.kernel.KernelManager(kernel_name="python3")
    assert (first.transport, second.transport) == ("ipc", "ipc")
    assert Path(first.ip).parent != Path(second.ip).parent
    assert Path(first.ip).is_relative_to(tempfile.gettempdir())
