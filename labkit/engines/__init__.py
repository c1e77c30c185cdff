"""What answers a claim: labkit's model, a real MongoDB, the in-process fakes; the B-tree
engines; the ID-making processes.
"""
