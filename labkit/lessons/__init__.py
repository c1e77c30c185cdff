"""The learner's side: the notebook session, exercises and their questions, the course, the
translated edition.

Internal to labkit, but for ``views``: the API is ``labkit``'s names and the lesson
views' (docs/api.md); what is here may change without notice.
"""
