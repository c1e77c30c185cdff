"""The experiments behind the claims, one module per lesson; ``catalogue`` imports them all,
which registers every claim.

Each module's docstring names its lesson; ``tests/test_<module>.py`` mirrors it.
"""
