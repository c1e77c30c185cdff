"""A run: its context and caches, the one per-engine guard, results counted once; labkit check;
the doctor.
"""
