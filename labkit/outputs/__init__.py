"""What a run shows: the terminal table, the report (HTML, Markdown, results.json), JUnit, plots
and tables.
"""
