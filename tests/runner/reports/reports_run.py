"""Run the CLI with mutants applied, writing Cucumber JSON in every flavour (for the schema tests).

    python reports_run.py MUTANT[,MUTANT...]|- CLI-ARGS...

``--cucumberjson PATH`` then writes PATH.js, PATH.jvm and PATH.ruby.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: import mutants

from mutants.catalogue import MUTANTS

from ccweb_conformance import cli
from ccweb_conformance.reports import cucumber
from ccweb_conformance.reports.model import RunResult

WRITE_CUCUMBER = cucumber.write_cucumber


def _every_flavour(run: RunResult, path: Path, flavour: str = "js") -> None:
    WRITE_CUCUMBER(run, path, flavour)
    for name in ("js", "jvm", "ruby"):
        WRITE_CUCUMBER(run, Path(f"{TARGET}.{name}"), name)


TARGET = ""


if __name__ == "__main__":
    TARGET = sys.argv[sys.argv.index("--cucumberjson") + 1]
    for mutant in [m for m in sys.argv[1].split(",") if m and m != "-"]:
        MUTANTS[mutant].apply()
    cucumber.write_cucumber = _every_flavour  # the report-format registry looks the writer up when it writes
    sys.exit(cli.main(sys.argv[2:]))
