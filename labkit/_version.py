"""labkit's version: one home, read by the package, the build and every report."""

__version__ = "0.1.0"
