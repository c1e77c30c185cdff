"""The exceptions labkit raises; each one's message tells the user what to do next."""

from __future__ import annotations


class LabkitError(Exception):
    """Base class: an expected failure that the command line reports in one line."""

    exit_status = 1


class BadInput(LabkitError, ValueError):
    """A value given by the user is malformed or out of range."""

    exit_status = 2


class ServerUnavailable(LabkitError):
    """No server of the requested kind could be found or started."""

    def summary(self) -> str:
        """The message on one line: what failed, what was tried, and the hint."""
        lines = str(self).splitlines() or [type(self).__name__]
        tried = [line.strip()[2:] for line in lines if line.startswith("  - ")]
        hint = next((line for line in lines if line.startswith("Hint:")), "")
        text = lines[0].removesuffix(" Tried:").rstrip(".")
        if tried:
            text += f" (tried {'; '.join(tried)})"
        return f"{text}. {hint}".strip()


class ServerStartError(ServerUnavailable):
    """A server was found but did not start; the message carries its log and a hint."""


class ClaimFailed(LabkitError, AssertionError):
    """A claim's live observation disagreed with its expectation."""


class UnknownClaim(BadInput):
    """The claim ID is not registered."""
