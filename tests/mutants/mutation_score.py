"""Print the suite's mutation score: every mutant of tests/mutants/catalogue.py, killed or not.

    python tests/mutants/mutation_score.py [--jobs N] [--json FILE] [NAME ...]

Each mutant runs in process the scenario it names (``Mutant.selection``; the short fuzz phase for
a mutant of the fuzzer; ``--strict`` for SHOULD-level mutants), N at a time (default 2) in forked
children of one ``run.py batch``. A mutant is killed when the run
exits 1; the first failing scenario is shown, and whether the scenario the catalogue names
(``killed_by``) is among the failures. Exit code 1 if any mutant survives or is not killed by
its named scenario, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests/ folder: import mutants

from mutants.catalogue import MUTANTS, scenario_matches
from mutants.run import run_batch


def _verdict(name: str, run: dict[str, Any]) -> tuple[str, str]:
    """(status, killing scenario) of one mutant's run: the first failure matching killed_by."""
    report = run["report"]
    if report is None:
        return f"ERROR (exit {run['exit']}, no report)", ""
    failed = [s["name"] for s in report["scenarios"] if s["status"] == "failed"]
    if run["exit"] != 1 or not failed:
        return "SURVIVED", ""
    more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
    named = [f for f in failed if scenario_matches(MUTANTS[name].killed_by, f)]
    if not named:
        return "killed, but not by killed_by", failed[0] + more
    return "killed", named[0] + more


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at a time (default: 2)")
    parser.add_argument("--json", type=Path, help="also write the verdicts as JSON")
    parser.add_argument("names", nargs="*", help="only these mutants (default: all)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(MUTANTS))
    if unknown:
        parser.error(f"unknown mutants: {', '.join(unknown)}")
    names = args.names or list(MUTANTS)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ccweb-mutants-") as out:
        runs = run_batch("mutant", names, Path(out), jobs=args.jobs)
    verdicts = []
    width = max(len(n) for n in names)
    for name in names:
        mutant = MUTANTS[name]
        status, first = _verdict(name, runs[name])
        level = " (SHOULD, --strict)" if mutant.should else ""
        requirement = ",".join(mutant.requirements)
        print(f"{name:{width}}  {requirement:11} {status:6}  {first}{level}", flush=True)
        verdicts.append({"name": name, "requirements": list(mutant.requirements), "status": status, "first": first})
    killed = sum(1 for v in verdicts if v["status"] == "killed")
    total = len(verdicts)
    seconds = time.perf_counter() - started
    print(f"\nmutation score: {killed}/{total} killed ({100.0 * killed / total:.1f}%) in {seconds:.0f}s", flush=True)
    for verdict in verdicts:
        if verdict["status"] != "killed":
            to_add = MUTANTS[verdict["name"]].killed_by
            print(
                f"  NOT KILLED AS EXPECTED: {verdict['name']}: {verdict['status']} (expected killer: {to_add!r})",
                file=sys.stderr,
            )
    if args.json is not None:
        args.json.write_text(json.dumps({"killed": killed, "total": total, "mutants": verdicts}, indent=2) + "\n")
    return 0 if killed == total else 1


if __name__ == "__main__":
    sys.exit(main())
