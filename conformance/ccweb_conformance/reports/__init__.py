"""Reports of a run: console summary, JUnit XML, the runner's JSON, Cucumber JSON, Markdown.

Every renderer takes a :class:`~ccweb_conformance.reports.model.RunResult` (its secrets already redacted,
:mod:`~ccweb_conformance.reports.redact`) and returns the report's text; ``output.place`` writes it once. Which
renderer serves which option is ``commands/report_formats.py``; importing this package imports no writer, so
``ccweb-conformance list`` does not pay for them.
"""
