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

RENDER_CUCUMBER = cucumber.render_cucumber


def _every_flavour(run: RunResult, flavour: str = "js") -> str:
    for name in ("js", "jvm", "ruby"):
        Path(f"{TARGET}.{name}").write_text(RENDER_CUCUMBER(run, name), encoding="utf-8", errors="backslashreplace")
    return RENDER_CUCUMBER(run, flavour)


TARGET = ""


if __name__ == "__main__":
    TARGET = sys.argv[sys.argv.index("--cucumberjson") + 1]
    for mutant in [m for m in sys.argv[1].split(",") if m and m != "-"]:
        MUTANTS[mutant].apply()
    cucumber.render_cucumber = _every_flavour  # the report-format registry looks the renderer up when it renders
    sys.exit(cli.main(sys.argv[2:]))
