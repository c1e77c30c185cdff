"""A run: its context and caches, the one per-engine guard, results counted once; labkit check;
the doctor.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""
