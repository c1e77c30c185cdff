"""The claim vocabulary (verdicts, kinds, observations), the registry experiments fill, claim
files, and recorded results.
"""
