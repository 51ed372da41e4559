"""``ccweb-conformance export``: the suite's cases as language-neutral JSON for a team's own test runner."""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files
from pathlib import Path

from ccweb_conformance.commands import help_text
from ccweb_conformance.commands.document_files import check_destination, deliver, out_of_date, write_file
from ccweb_conformance.commands.frame import Frame, framed
from ccweb_conformance.errors import EXIT_FAILED, EXIT_PASSED, RunnerError
from ccweb_conformance.jsontext import escape_lone_surrogates
from ccweb_conformance.options import RunnerOptions, resolve
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import resolve_values

HARNESS = "contract-cases.js"
"""The Node harness, shipped in the kit and written beside the cases by ``--output``."""
GUIDES = ("CASES.md", "CASES.zh-CN.md")


def shipped(name: str) -> Path:
    """The installed path of a file of the kit's ``harness`` folder (the Node harness, the guides)."""
    return Path(str(files("ccweb_conformance.harness").joinpath(name)))


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description and epilog (the shipped files named)."""
    parser.description = (
        "Write the suite's cases as language-neutral JSON: function-level cases a harness replays "
        "without MCP, and the MCP-level scenarios left to 'run'."
    )
    guide, guide_zh = (shipped(name) for name in GUIDES)
    parser.epilog = help_text("export").format(harness=HARNESS, guide=guide, guide_zh=guide_zh)


def render(context: RunContext) -> str:
    """The export document as JSON text, recorded in the run of ``context``: two-space indent, raw UTF-8, lone
    surrogates escaped."""
    import json  # noqa: PLC0415 (start-up: nothing heavy is imported before the command runs)

    from ccweb_conformance.reports.case_export import export_document  # noqa: PLC0415
    from ccweb_conformance.reports.hand_cases import hand_cases  # noqa: PLC0415
    from ccweb_conformance.suite.case_recording import record_cases  # noqa: PLC0415

    text = json.dumps(export_document(record_cases(context) + hand_cases()), ensure_ascii=False, indent=2) + "\n"
    return escape_lone_surrogates(text)


def main(args: argparse.Namespace) -> int:
    """Write, print or check the export; a signal (the suite stops early) leaves the file as it was."""
    options = resolve(vars(args))
    check_destination(options)

    def work(frame: Frame) -> int:
        try:
            text = render(frame.context)
        except RunnerError as error:
            print(f"ccweb-conformance: error: {error}", file=sys.stderr)
            return EXIT_FAILED
        frame.settle()
        if frame.state.signum is not None:  # the recording stopped part-way: a partial export is never written
            return frame.exit_code(failed=True)
        code = deliver(options, text, f"ccweb-conformance export --output {options.check}")
        return code if code else _harness_beside(options)

    return framed("export", resolve_values(options), work, interrupted_detail="nothing written")


def _harness_beside(options: RunnerOptions) -> int:
    """``--output``: write the Node harness beside the cases; ``--check``: compare one found there."""
    harness = shipped(HARNESS).read_bytes()
    if options.output is not None and options.output.is_file():  # not /dev/stdout or a pipe: a folder to write into
        write_file(options.output.parent / HARNESS, harness)
    elif options.check is not None:  # a harness found beside the cases must hold the shipped bytes
        beside = options.check.parent / HARNESS
        if beside.is_file() and beside.read_bytes() != harness:
            return out_of_date(beside, f"ccweb-conformance export --output {options.check}")
    return EXIT_PASSED
