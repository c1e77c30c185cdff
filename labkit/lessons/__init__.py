"""The learner's side: the notebook session, exercises and their questions, the course, the
translated edition.
"""
