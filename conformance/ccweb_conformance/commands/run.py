"""``ccweb-conformance run``: every scenario against an implementation, then the fuzz phase and the reports.

This module is what the command line imports: it validates the options and says at once what is
being started; the run itself (the engine, the servers, the reports) is in :mod:`.running`, imported
after that first line (its imports take seconds on a loaded machine).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

import ccweb_spec
from ccweb_conformance.commands import heap, last_failed
from ccweb_conformance.commands.tags import canonical_tags
from ccweb_conformance.options import RunnerOptions, add_arguments, redact, resolve
from ccweb_conformance.reports.model import ScenarioRef
from ccweb_conformance.reports.terminal import fit_to_terminal
from ccweb_conformance.suite.expected_failures import load_expected_failures
from ccweb_conformance.suite.scenario_index import bundled_features, feature_scenarios
from ccweb_conformance.suite.selection import check_keyword, options_selection, pasted_scenarios
from ccweb_conformance.values import RunValues, resolve_values

RUN_EPILOG = """
targets (choose one; none means the bundled reference server over stdio):
  --stdio "CMD ARGS"                    spawn CMD, talk MCP over its stdin/stdout
  --http-cmd "CMD --port {port}" --url http://127.0.0.1:{port}/mcp
                                        spawn CMD, talk Streamable HTTP to URL
  --url URL --sessions-dir DIR          a server that is already running and reads DIR

The runner writes conversation files (cc-web session JSON) into the sessions directory:
its own temporary one, passed to spawned servers as $SESSIONS_ENV and {sessions_dir},
or DIR for --url, where it only creates files <run prefix>-...json (UUIDs whose first
12 hex digits are new in every run) and removes them after.

examples:
  ccweb-conformance run
  ccweb-conformance run --stdio "node lib/mcp-server.js"
  ccweb-conformance run --stdio "node server.js" --junitxml junit.xml --markdown summary.md
  ccweb-conformance run --http-cmd "ccweb-reference --http --port {port} --sessions-dir {sessions_dir}" \\
      --url "http://127.0.0.1:{port}/mcp"
  ccweb-conformance run --stdio "node server.js" --expected-failures known-gaps.yaml
  ccweb-conformance run --tags AC-7,SRC-1 -v
  ccweb-conformance run --stdio "node server.js" --lf -x    (rerun what failed last time, stop at the first failure)
  ccweb-conformance run --url https://host/mcp --sessions-dir DIR --header "Authorization: Bearer $TOKEN"
  ccweb-conformance run --stdio "node server.js" --sessions-dir ./my-sessions --env LOG_LEVEL=debug
  ccweb-conformance run --json - | jq .counts       (a report path of - is stdout; the summary goes to stderr)

--sessions-dir also works with --stdio and --http-cmd: the spawned server is given your
directory (one your own service owns) and the runner only adds and removes its own
<run prefix>-...json files.

config file: ccweb-conformance.toml, or [tool.ccweb-conformance] in pyproject.toml, in the
current directory; keys are the long option names, as the GitHub Action's inputs are named
(stdio = "node server.js", header = [...], keyword = "emoji" for -k); the command line wins.
The file in use and the --expected-failures file are named in every report (JSON configFile /
expectedFailuresFile, JUnit properties, Markdown, console). At most
1 MiB of either file is read; a pyproject.toml that names no ccweb-conformance table is not read.

The run does not use pytest: PYTEST_ADDOPTS, PYTEST_PLUGINS and the other PYTEST_* settings,
pytest.ini / pyproject.toml / tox.ini / setup.cfg, conftest.py and installed pytest plugins play
no part in it. Select with --tags / -k only;
a run with a selection is never reported as a full pass ("PASSED (selection: ...)").

bounds (a CI gate always ends, and leaves no process and no file of the run behind):
  --timeout S             per request, partial lines and SSE streams included (default 10)
  --max-message-bytes N   one incoming message, over stdio, JSON or SSE (default 16 MiB)
  --max-time S            the whole run; scenarios left are not run, exit 1 (default 1800)
  --stop-after N          after N scenarios in a row in which the server died or timed out, or
                          broke the protocol the same way (a stray line on stdout), the rest is
                          not run, with the reason named once (default 3)
  Processes a server leaves behind (a daemon that called setsid) are stopped and named.
  A report path that is a named pipe, a socket or a folder is refused before the run; a device
  or the runner's own stdout whose reader takes nothing for 30 s (1 s after a signal) is given up.

exit codes: 0 every required scenario passed (expected failures allowed); 1 a scenario
failed or was not run (--max-time, the implementation stopped answering), an expected
failure passed, or the server broke the protocol (also during the handshake: PROTO-1
fails); 2 usage error, the implementation could not be started, exited or never answered,
a report could not be written, or the runner's own machine failed it (its working directory
removed, a full disk, no descriptor or thread left: one line that says so); 130 / 143 / 129
interrupted by SIGINT / SIGTERM / SIGHUP (every report still says INTERRUPTED with the
scenarios not run; never 0).
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``run`` command's description, epilog and options."""
    parser.description = "Run every scenario of the features against an implementation and report per requirement."
    parser.epilog = RUN_EPILOG.replace("$SESSIONS_ENV", "$" + ccweb_spec.binding().sessions_dir_env)
    add_arguments(parser, "run")


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance run``: valid options, the first line at once, then the run (:mod:`.running`)."""
    features = bundled_features()  # parsed once, passed on
    scenarios = feature_scenarios(features)
    values = resolve_values(_options(args, scenarios))
    chosen = last_failed.choose(values.selection, values.target, scenarios)
    if chosen is not None and chosen.names and values.fuzz.count is None:  # a narrow run: fuzz only when asked
        values = dataclasses.replace(values, fuzz=dataclasses.replace(values.fuzz, count=0))
    collecting = values.selection.collect_only
    if not collecting:
        from ccweb_conformance.transport import limits  # noqa: PLC0415 (light: the os and resource modules)

        limits.ensure_descriptors()  # a limit the run cannot live with is its one line, before anything is said
    if not collecting:  # on stderr, terminal or log alike: what starts, before seconds of imports
        selection = options_selection(values.selection)
        selection = chosen.label(selection) if chosen is not None else selection
        line = f"ccweb-conformance: {redact(starting_line(values, selection), values.target.secrets)}"
        print(fit_to_terminal(line, sys.stderr), file=sys.stderr, flush=True)
    if chosen is not None:
        print(f"ccweb-conformance: {chosen.note}", file=sys.stderr)
    # the engine, the transports and the reports: imported after the first line, with no collection meanwhile
    with heap.importing():
        from ccweb_conformance.commands.collect_only import collect_only  # noqa: PLC0415
        from ccweb_conformance.commands.frame import framed  # noqa: PLC0415
        from ccweb_conformance.commands.running import run  # noqa: PLC0415
        from ccweb_conformance.suite import steps  # noqa: PLC0415

        steps.load()  # every step module, before the run holds a descriptor of its own (workspace, servers)

    if collecting:
        return collect_only(values, chosen, features)
    config_file = getattr(args, "config_file", None)
    with heap.frozen():  # the modules and data imported so far are walked by no collection of the run
        return framed(
            "run",
            values,
            lambda frame: run(frame, values, features, chosen, config_file=config_file),
            interrupted_detail="nothing was reported",
            report_leftovers=False,
        )


def _options(args: argparse.Namespace, scenarios: list[ScenarioRef]) -> RunnerOptions:
    options = resolve(vars(args))
    if options.tags:
        options = dataclasses.replace(options, tags=canonical_tags(options.tags, scenarios))
    pasted = pasted_scenarios(options.keyword, scenarios) if options.keyword else None
    if pasted is not None:  # --co's lines pasted back: named as --co names them (requirement column dropped)
        options = dataclasses.replace(options, keyword="\n".join(sorted(pasted)))
    elif options.keyword:
        check_keyword(options.keyword)  # bounded, one line, before the run reads it
    if options.expected_failures is not None:
        load_expected_failures(options.expected_failures)  # fail early, with its own message
    return options


def starting_line(values: RunValues, selection: str | None = None) -> str:
    """What a run starts, said at once (collecting the scenarios and starting the server take seconds).

    On stderr, in English as every line there (stdout's first line stays the verdict), on a terminal and
    in a CI log alike: a start-up fault follows it as a second line.
    """
    selection = selection or options_selection(values.selection)
    chosen = f" (selection: {selection})" if selection else ""
    fuzz = "" if values.fuzz.count == 0 or selection else ", then the fuzz phase"
    scenarios = f"the scenarios of ccweb_list_user_inputs {ccweb_spec.contract_version()}"
    return f"testing {values.target.described()}{chosen}: {scenarios}{fuzz}"


