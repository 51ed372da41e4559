"""The commands: one module each on one shared frame (``frame.py``), listed in :data:`REGISTRY`.

``cli.py`` parses and dispatches only. It builds the top-level parser from the registry
alone (so ``--version`` and ``--help`` import nothing else) and imports the module of the
command being run, which declares its parser and does the work.

Adding a command is one module and one line:

1. ``commands/NAME.py`` defines ``configure(parser)`` (its description, and its positional
   arguments, its only ones of its own: ``cli.py`` gives it the epilog ``help/NAME.txt``, which
   ``configure`` may change, and the rows of the option table whose ``commands`` name it) and
   ``main(args) -> int`` (the exit code, from ``errors.py``). Work that starts processes or writes files runs in
   ``framed(NAME, options, work, interrupted_detail=...)`` (signals, subreaping and sweep, the
   temporary directory, the console, the reports, the interrupt line and the exit code).
2. One :class:`Entry` line below: its name and its one-line help; its examples, where it has some, in
   ``help/NAME.txt`` (:func:`help_text`).

Options shared with other commands are rows of ``options.RunnerOptions`` (add the command's
name to the row's ``commands``); the config file, ``--help``, validation and the Action then
serve it with no further code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["REGISTRY", "Entry", "entry", "help_text"]


@dataclass(frozen=True)
class Entry:
    """One command: its name (``commands/NAME.py``) and its line in ``ccweb-conformance --help``."""

    name: str
    help: str

    @property
    def module(self) -> str:
        """The module that configures and runs it."""
        return f"ccweb_conformance.commands.{self.name.replace('-', '_')}"


REGISTRY: tuple[Entry, ...] = (
    Entry("run", "run the suite against an implementation (default target: the bundled reference)"),
    Entry("list", "list the requirements and the scenarios that prove them (nothing is started)"),
    Entry("spec", "render the contract (tool, requirements, errors, schemas, traceability) as Markdown"),
    Entry("profile", "measure how the cost of a call grows with the conversation, beside the reference"),
    Entry("check-description", "check one tool description against the facts of D-11"),
    Entry("export", "write the suite's cases as JSON for your own test runner (no Python, no MCP)"),
)
"""Every command, in the order ``--help`` lists them."""


def entry(name: str) -> Entry | None:
    """The registry's entry for ``name``, or None."""
    return next((e for e in REGISTRY if e.name == name), None)


def help_text(name: str) -> str:
    """A text of ``--help`` kept beside this package, ``help/NAME.txt``: a command's epilog (its examples), or
    ``top``, the examples under the list of commands."""
    return (Path(__file__).parent / "help" / f"{name}.txt").read_text(encoding="utf-8")
