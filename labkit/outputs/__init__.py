"""What a run shows: the terminal table, the report (HTML, Markdown, results.json), JUnit, plots
and tables.

Internal to labkit: the API is ``labkit``'s names and the lesson views' (docs/api.md);
what is here may change without notice.
"""
