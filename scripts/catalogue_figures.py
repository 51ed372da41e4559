#!/usr/bin/env python3
"""Write or check ``spec/ccweb_spec/catalogue.yaml``: per requirement, the catalogued mutants that declare it.

The file is rendered from the declarations of ``tests/mutants/`` (``mutants.figures``); no mutant is run.
The living spec (``ccweb-conformance spec``) shows it per requirement. After adding or changing a mutant,
rewrite the file, then regenerate the living spec:

    .venv/bin/python scripts/catalogue_figures.py            # rewrite the file
    .venv/bin/python scripts/catalogue_figures.py --check    # exit 1 when it is out of date

Exit 0 written or current, 1 out of date (``--check``), 2 the catalogue or the file could not be read or
written (the reason on stderr).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the tests/ folder: import mutants

from mutants.figures import COMMITTED, catalogue_document

PROG = "catalogue_figures"
SCRIPT = "scripts/catalogue_figures.py"


def main(argv: list[str] | None = None) -> int:
    """Rewrite ``--output`` (the committed file by default), or with ``--check`` compare it; the exit code."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 when the file is out of date, write nothing")
    parser.add_argument("--output", type=Path, default=COMMITTED, help="the file (default: %(default)s)")
    args = parser.parse_args(argv)
    output: Path = args.output
    try:
        text = catalogue_document()
        if args.check:
            current = output.read_text(encoding="utf-8") if output.exists() else None
            if current != text:
                again = "" if output == COMMITTED else f" --output {output}"
                print(f"{PROG}: {output} is out of date; run 'python {SCRIPT}{again}'", file=sys.stderr)
                return 1
            return 0
        output.write_text(text, encoding="utf-8")
    except (LookupError, OSError, UnicodeError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
