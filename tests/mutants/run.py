"""Apply one mutant or variant of the reference, then run the conformance CLI or serve it.

    python tests/mutants/run.py {mutant|variant} NAME [ccweb-conformance args...]
        e.g. python tests/mutants/run.py mutant newest_first run --in-process --json out.json
    python tests/mutants/run.py serve {mutant|variant} NAME [ccweb-reference args...]
        e.g. ccweb-conformance run --stdio "python tests/mutants/run.py serve mutant newest_first
             --sessions-dir {sessions_dir}"
    python tests/mutants/run.py batch OUT_DIR JOBS {mutant|variant}:NAME ...
    python tests/mutants/run.py list

The patch is applied in this process, so ``run --in-process`` sees the changed reference;
``serve`` runs the reference's own stdio (or HTTP) server with the patch applied.
Exit code: the CLI's (0 passed, 1 a scenario failed, 2 usage); 2 for an unknown name.

``batch`` is the fast path for many entries: this process imports everything once, then
forks one child per entry (at most JOBS at a time; ``tests/runner/forked.py``). Each child applies its patch to its own
copy of the modules and runs ``ccweb-conformance run --in-process --json OUT_DIR/KIND-NAME.json``
(plus ``--strict`` for SHOULD-level mutants, and ``--no-rerun``: the scenario failing is the proof, a rerun alone
adds one more run and proves nothing more), what the single-entry form does, with
its output in ``OUT_DIR/KIND-NAME.log``. A mutant runs the scenario that must kill it
(``Mutant.selection``: its name pasted into ``-k`` as ``--co`` prints it, no fuzz phase); a
mutant of ``fuzz.py``, caught by the fuzz phase, runs one scenario and the default run's short
phase. Before forking, the batch collects the suite once (``run --co``), so that no child parses
and binds the features again.
The exit codes and times go to ``OUT_DIR/results.json``; the batch itself exits 0 unless an
entry is unknown.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests/ folder: import mutants

from mutants.catalogue import MUTANTS, VARIANTS

USAGE = __doc__ or ""
RUN_PY = Path(__file__).resolve()


def run_batch(kind: str, names: list[str], out_dir: Path, jobs: int = 2) -> dict[str, dict[str, Any]]:
    """Run ``names`` through ``run.py batch``; per name its exit code and JSON report (or None)."""
    command = [sys.executable, str(RUN_PY), "batch", str(out_dir), str(jobs), *(f"{kind}:{n}" for n in names)]
    done = subprocess.run(
        command, cwd=RUN_PY.parents[2], capture_output=True, text=True, timeout=900, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"run.py batch failed ({done.returncode}): {done.stderr[-3000:]}")
    results = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
    outcome: dict[str, dict[str, Any]] = {}
    for name in names:
        report = out_dir / f"{kind}-{name}.json"
        log = out_dir / f"{kind}-{name}.log"
        outcome[name] = {
            "exit": results[f"{kind}:{name}"]["exit"],
            "report": json.loads(report.read_text(encoding="utf-8")) if report.exists() else None,
            "log": log.read_text(encoding="utf-8", errors="replace") if log.exists() else "",
        }
    return outcome


def selected_params(request: Any, function_name: str) -> list[str]:
    """The ``name`` parameters of the collected (not deselected) items of ``function_name`` in the requesting
    test module (``-k`` narrows the batch to what will be asserted)."""
    names = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if getattr(item, "module", None) is not request.module:
            continue
        if getattr(item, "originalname", None) == function_name and callspec is not None:
            names.append(callspec.params["name"])
    return names


def target_args(kind: str, name: str) -> list[str]:
    """In process, or, for a mutant whose bug needs one HTTP server for every source, ``serve --http``."""
    if kind == "mutant" and MUTANTS[name].stdio:
        return ["--stdio", f"{sys.executable} {RUN_PY} serve {kind} {name} --sessions-dir {{sessions_dir}}"]
    if kind != "mutant" or not MUTANTS[name].http:
        return ["--in-process"]
    serve = f"{sys.executable} {RUN_PY} serve {kind} {name} --http --port {{port}} --sessions-dir {{sessions_dir}}"
    return ["--http-cmd", serve, "--url", "http://127.0.0.1:{port}/mcp"]


def _apply(kind: str, name: str) -> bool:
    table = {"mutant": MUTANTS, "variant": VARIANTS}.get(kind)
    if table is None or name not in table:
        known = ", ".join(sorted(table)) if table else "mutant, variant"
        print(f"run.py: unknown {kind} {name!r}; known: {known}", file=sys.stderr)
        return False
    table[name].apply()
    return True


def _entry_run(stem: str, out_dir: Path) -> int:
    """In a forked child (its output already in ``OUT_DIR/KIND-NAME.log``): patch, run the suite."""
    kind, _, name = stem.partition("-")
    if not _apply(kind, name):
        return 2
    from ccweb_conformance.cli import main as conformance  # noqa: PLC0415

    # Each run draws its own marker (its run context, made after the fork): one child's end-of-run sweep
    # never kills the server another child spawned (HTTP mutants).
    args = ["run", *target_args(kind, name), "--json", str(out_dir / f"{stem}.json")]
    if kind == "mutant":
        # The scenarios that can kill it (its requirements' or its feature's; the fuzz phase for a mutant of
        # fuzz.py); every variant runs the whole default run.
        args += [*MUTANTS[name].selection, "--no-rerun"]  # its scenario failing is the proof: no rerun alone
        if MUTANTS[name].should:
            args.append("--strict")
    return conformance(args)


def batch(out_dir: Path, jobs: int, entries: list[str]) -> int:
    """Run many entries, JOBS forked children at a time (``tests/runner/forked.py``); write OUT_DIR/results.json."""
    from runner.forked import each_in_a_child, import_the_kit  # noqa: PLC0415 (tests/ on the path)

    pending = []
    for entry in entries:
        kind, _, name = entry.partition(":")
        if name not in {"mutant": MUTANTS, "variant": VARIANTS}.get(kind, {}):
            print(f"run.py: unknown entry {entry!r}", file=sys.stderr)
            return 2
        pending.append((kind, name))
    # Whole runs first (the fuzz-phase mutants, every variant), so that no long run is left to end the batch alone.
    pending.sort(key=lambda entry: entry[0] == "mutant" and MUTANTS[entry[1]].feature_tag is not None)
    results: dict[str, dict[str, float | int]] = {}

    def ended(stem: str, code: int, seconds: float) -> None:
        kind, _, name = stem.partition("-")
        results[f"{kind}:{name}"] = {"exit": code, "seconds": round(seconds, 2)}
        print(f"{kind} {name} exit={code} {round(seconds, 2)}s", flush=True)

    import_the_kit()
    stems = [f"{kind}-{name}" for kind, name in pending]  # a kind holds no "-": the stem splits back at the first
    each_in_a_child(stems, lambda stem: _entry_run(stem, out_dir), out_dir, jobs, streams=("log", "log"), ended=ended)
    (out_dir / "results.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


def _list() -> int:
    for kind, table in (("mutant", MUTANTS), ("variant", VARIANTS)):
        for name, entry in table.items():
            print(f"{kind:8} {name:32} {entry.description}")
    return 0


def _serve(kind: str, name: str, args: list[str]) -> int:
    if not _apply(kind, name):
        return 2
    from ccweb_reference.cli import main as serve  # noqa: PLC0415

    return serve(args)


def _conformance(kind: str, name: str, args: list[str]) -> int:
    if not _apply(kind, name):
        return 2
    from ccweb_conformance.cli import main as conformance  # noqa: PLC0415

    return conformance(args)


def main(argv: list[str]) -> int:
    """Entry point."""
    if argv[:1] == ["list"]:
        return _list()
    if argv[:1] == ["batch"] and len(argv) >= 3:
        return batch(Path(argv[1]), max(1, int(argv[2])), argv[3:])
    if argv[:1] == ["serve"] and len(argv) >= 3:
        return _serve(argv[1], argv[2], argv[3:])
    if len(argv) >= 2 and argv[0] in ("mutant", "variant"):
        return _conformance(argv[0], argv[1], argv[2:])
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
