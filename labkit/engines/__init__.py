"""What answers a claim: labkit's model, a real MongoDB, the in-process fakes; the B-tree
engines; the ID-making processes.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""
