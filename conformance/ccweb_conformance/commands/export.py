"""``ccweb-conformance export``: the suite's cases as language-neutral JSON for a team's own test runner."""

from __future__ import annotations

import argparse
import sys

from ccweb_conformance.commands.document_files import check_destination, deliver
from ccweb_conformance.commands.frame import Frame, framed
from ccweb_conformance.errors import EXIT_FAILED, RunnerError
from ccweb_conformance.jsontext import escape_lone_surrogates
from ccweb_conformance.options import add_arguments, resolve

EPILOG = """
The cases come from the features, recorded against the bundled reference (the oracle): the
same data as 'run', never kept by hand. Function-level cases replay without MCP against a
function (sessionsDir, sourceId, args) => result; MCP-level scenarios are listed with the
reason each needs 'ccweb-conformance run'. docs/CASES.md tells a harness how to run them.

examples:
  ccweb-conformance export --output cases.json
  ccweb-conformance export --check examples/node-server/contract/cases.json   (exit 1 when it drifted)
  ccweb-conformance export | jq '.counts'
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, epilog and options."""
    parser.description = (
        "Write the suite's cases as language-neutral JSON: function-level cases a harness replays "
        "without MCP, and the MCP-level scenarios left to 'run'."
    )
    parser.epilog = EPILOG
    add_arguments(parser, "export")


def render() -> str:
    """The export document as JSON text: two-space indent, raw UTF-8, lone surrogates escaped."""
    import json  # noqa: PLC0415 (start-up: nothing heavy is imported before the command runs)

    from ccweb_conformance.reports.case_export import export_document  # noqa: PLC0415
    from ccweb_conformance.suite.case_recording import record_cases  # noqa: PLC0415

    text = json.dumps(export_document(record_cases()), ensure_ascii=False, indent=2) + "\n"
    return escape_lone_surrogates(text)


def main(args: argparse.Namespace) -> int:
    """Write, print or check the export; a signal (the suite stops early) leaves the file as it was."""
    options = resolve(vars(args))
    check_destination(options)

    def work(frame: Frame) -> int:
        try:
            text = render()
        except RunnerError as error:
            print(f"ccweb-conformance: error: {error}", file=sys.stderr)
            return EXIT_FAILED
        frame.settle()
        if frame.state.signum is not None:  # the recording stopped part-way: a partial export is never written
            return frame.exit_code(failed=True)
        return deliver(options, text, f"ccweb-conformance export --output {options.check}")

    return framed("export", options, work, interrupted_detail="nothing written")
