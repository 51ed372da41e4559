"""``ccweb-conformance profile``: how an implementation's cost grows with the conversation.

Entry points: :func:`ccweb_conformance.commands.profile.main` (the command line's handler; its
options are rows of the one option table, group ``profile``) and
:func:`ccweb_conformance.profile.whole_profile.run_profile`. Modules, one job each:
conversation (the generated files), writer (writing them into the run's workspace), measure (one implementation
at one size), timing (wire time), proc (process figures, through psutil), check (the oracle), growth (ratios
and verdicts), budgets (spec/ccweb_spec/performance.yaml), settings (the options resolved), format, console,
json_report, markdown (with Mermaid) and svg (the reports), whole_profile (the whole profile).
Nothing is imported here, so the command line stays quick to start.
"""
