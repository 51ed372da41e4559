"""The ``--ccweb-*`` words that hand options to the kit's pytest plugin (and ``-k`` to pytest), from the option table:
how a test runs plain pytest with the options a ``ccweb-conformance run`` takes."""

from __future__ import annotations

from ccweb_conformance.options import RunnerOptions, table


def pytest_flags(options: RunnerOptions) -> list[str]:
    """Every option the plugin reads, as plain pytest's arguments (a switch only when on; values as given)."""
    words: list[str] = []
    for row in table():
        value, flag = getattr(options, row.name), row.spec.plugin
        if not flag or value is None or value is False:
            continue
        if row.is_flag:
            words.append(flag)
        elif row.is_repeatable:
            words += [word for item in value for word in (flag, item)]
        else:
            words += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    return words
