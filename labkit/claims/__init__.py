"""The claim vocabulary (verdicts, kinds, observations), the registry experiments fill, claim
files, and recorded results.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""
