"""``ccweb-conformance profile``: how an implementation's cost grows with the conversation.

Entry points: :func:`ccweb_conformance.profile.command.profile_command` (the command line's
handler), :data:`ccweb_conformance.profile.options.PROFILE_OPTIONS` (its own options, as
data) and :func:`ccweb_conformance.profile.run.run_profile`. Modules, one job each:
conversation (the generated files), writer (writing them into the run's workspace), measure (one implementation
at one size), timing (wire time), proc (process figures, through psutil), check (the oracle), growth (ratios
and verdicts), budgets (spec/ccweb_spec/performance.yaml), format, console, json_report, markdown (with
Mermaid) and svg (the reports), run (the whole profile). Nothing is imported here, so the
command line stays quick to start.
"""
