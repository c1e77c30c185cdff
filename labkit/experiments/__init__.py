"""The experiments behind the claims, one module per lesson, named in its record in
``labkit.syllabus``; ``catalogue`` imports each one named there, which registers every claim.

Each module's docstring names its lesson; ``tests/test_<module>.py`` mirrors it.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""
