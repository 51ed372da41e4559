"""The profile's own options, declared once as data, and the settings they produce.

The target options (``--stdio``, ``--http-cmd``, ``--url``, ``--sessions-dir``,
``--protocol``, ``--timeout``, ``--source-env``, ``--source-header``) are the runner's and
become a :class:`~ccweb_conformance.options.RunnerOptions`; the ones here only the profile
reads. Defaults come from ``spec/ccweb_spec/performance.yaml``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance.errors import UsageError


def parse_sizes(text: str) -> tuple[int, ...]:
    """``10,1000,1e4`` -> (10, 1000, 10000): positive message counts, ascending, no repeats."""
    sizes: list[int] = []
    for word in text.replace("_", "").split(","):
        try:
            number = float(word.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{word.strip()!r} is not a number of messages") from None
        if number != int(number) or number < 1:
            raise argparse.ArgumentTypeError(f"{word.strip()!r} is not a whole number of messages of at least 1")
        sizes.append(int(number))
    return tuple(sorted(set(sizes)))


def positive_int(text: str) -> int:
    """A whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def seconds(text: str) -> float:
    """A number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range [0, 60] seconds")
    return value


@dataclass(frozen=True)
class ProfileOption:
    """One command-line option of ``ccweb-conformance profile``."""

    flag: str
    dest: str
    help: str
    metavar: str | None = None
    convert: Callable[[str], Any] | None = None
    """Turns the word into the value (None with ``flag_only``)."""
    default_key: str | None = None
    """The key of its default under ``measurement`` in spec/ccweb_spec/performance.yaml."""
    flag_only: bool = False
    lazy_default: bool = False
    """The default only shows in the help; the value stays None when the option is not given."""


PROFILE_OPTIONS: tuple[ProfileOption, ...] = (
    ProfileOption(
        "--sizes",
        "sizes",
        "comma-separated message counts to profile (default: %(default)s, those up to --max-size)",
        "N,N,...",
        parse_sizes,
        "sizes",
        lazy_default=True,
    ),
    ProfileOption(
        "--max-size",
        "max_size",
        "the largest conversation to write, in messages (default: %(default)s)",
        "N",
        positive_int,
        "max_size",
    ),
    ProfileOption(
        "--repeats",
        "repeats",
        "calls on the unchanged file per size (default: %(default)s)",
        "N",
        positive_int,
        "repeats",
    ),
    ProfileOption(
        "--settle",
        "settle",
        "seconds the file is left unchanged before the repeated calls, so a cache that distrusts "
        "fresh file times can use itself (default: %(default)s)",
        "SECONDS",
        seconds,
        "settle_seconds",
    ),
    ProfileOption("--no-reference", "no_reference", "do not profile the bundled reference beside it", flag_only=True),
    ProfileOption("--json", "json", "write the figures as JSON", "FILE", Path),
    ProfileOption(
        "--markdown", "markdown", "write a Markdown summary with Mermaid charts (CI step summary)", "FILE", Path
    ),
    ProfileOption("--svg", "svg", "write an SVG line chart of latency against size", "FILE", Path),
)


def add_profile_options(parser: argparse.ArgumentParser) -> None:
    """Declare :data:`PROFILE_OPTIONS` on ``parser``, in two groups."""
    measurement = ccweb_spec.performance()["measurement"]
    groups = {"measure": parser.add_argument_group("profile"), "reports": parser.add_argument_group("reports")}
    for option in PROFILE_OPTIONS:
        group = groups["reports" if option.convert is Path else "measure"]
        if option.flag_only:
            group.add_argument(option.flag, dest=option.dest, action="store_true", help=option.help)
            continue
        default: Any = None if option.default_key is None else measurement[option.default_key]
        text = option.help
        if option.lazy_default:
            shown = ",".join(str(v) for v in default) if isinstance(default, list) else str(default)
            text, default = text.replace("%(default)s", shown), None
        group.add_argument(
            option.flag,
            dest=option.dest,
            metavar=option.metavar,
            type=option.convert or str,
            default=default,
            help=text,
        )


@dataclass(frozen=True)
class ProfileSettings:
    """How to profile: sizes, repetitions, reports."""

    sizes: tuple[int, ...]
    repeats: int
    settle: float
    first_calls: int
    floor_calls: int
    phase_seconds: float
    reference: bool
    json: Path | None = None
    markdown: Path | None = None
    svg: Path | None = None


def profile_settings(args: argparse.Namespace) -> ProfileSettings:
    """The settings the parsed options describe; UsageError for impossible ones."""
    measurement = ccweb_spec.performance()["measurement"]
    limit = int(measurement["max_size_limit"])
    if args.max_size > limit:
        raise UsageError(f"--max-size {args.max_size:,} is above the limit of {limit:,} messages")
    if args.sizes is None:
        sizes = tuple(size for size in measurement["sizes"] if size <= args.max_size) or (args.max_size,)
    else:
        sizes = args.sizes
        too_large = [size for size in sizes if size > args.max_size]
        if too_large:
            raise UsageError(
                f"--sizes {too_large[0]:,} is above --max-size {args.max_size:,}; raise --max-size to profile it"
            )
    for report in (args.json, args.markdown, args.svg):
        if report is not None and not report.resolve().parent.is_dir():
            raise UsageError(f"cannot write {str(report)!r}: its folder does not exist")
    return ProfileSettings(
        sizes=sizes,
        repeats=args.repeats,
        settle=args.settle,
        first_calls=int(measurement["first_calls"]),
        floor_calls=int(measurement["floor_calls"]),
        phase_seconds=float(measurement["phase_seconds"]),
        reference=not args.no_reference,
        json=args.json,
        markdown=args.markdown,
        svg=args.svg,
    )
