"""Which requirement a failed scenario is charged to: the one of the check that failed.

A scenario carries several requirement tags, but a failure breaks the requirement of the check
that raised it, not every tag. A check names its requirement when it raises
(:func:`~ccweb_conformance.checks.failures.fail` with ``proves=``); a failure that names none
is charged to every requirement of the scenario, as before. The scenario's other requirements
are passed by it only when their checks all ran: when the failed step was its last.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Mapping, Sequence
from typing import Any

import ccweb_spec
from ccweb_conformance.checks.failures import ConformanceFailure

_ORDER = {r.id: number for number, r in enumerate(ccweb_spec.requirements())}
_LEVELS = {r.id: r.level for r in ccweb_spec.requirements()}
_CHAIN_LIMIT = 10


def charged_requirements(error: BaseException | None, requirements: Sequence[str] = ()) -> tuple[str, ...]:
    """The requirements the failed check proves, in spec order; () when no check named any.

    A check that may prove one of several (an error code defined by two requirements) is
    charged to those the scenario is about, when it is about any of them, else to all.
    """
    seen = 0
    while error is not None and seen < _CHAIN_LIMIT:
        if isinstance(error, ConformanceFailure) and error.proves:
            known = [r for r in dict.fromkeys(error.proves) if r in _ORDER]
            known = [r for r in known if r in requirements] or known
            return tuple(sorted(known, key=_ORDER.__getitem__))
        error = error.__cause__ or error.__context__
        seen += 1
    return ()


def failure_level(charged: Sequence[str], requirements: Sequence[str]) -> str:
    """SHOULD when every requirement the failure counts against is SHOULD-level, else MUST."""
    against = tuple(charged) or tuple(requirements)
    return "SHOULD" if against and all(_LEVELS.get(r) == "SHOULD" for r in against) else "MUST"


def proved_requirements(
    requirements: Sequence[str], charged: Sequence[str], steps_run: int, steps_total: int
) -> tuple[str, ...]:
    """The scenario's requirements other than the charged ones, when the failing step was its last.

    Then every other check of the scenario ran and passed; otherwise they are not judged by it.
    """
    if not charged or steps_total <= 0 or steps_run != steps_total:
        return ()
    return tuple(r for r in requirements if r not in charged)


_NOT_ID_CHARACTER = re.compile(r"[^A-Za-z0-9-]")
_LOOKUP_ERRORS = frozenset({"conversation_not_found", "invalid_conversation_id", "missing_source_conversation"})


def code_requirements(code: str) -> tuple[str, ...]:
    """The requirements that say when the error ``code`` is given (the registry's)."""
    for entry in ccweb_spec.error_codes():
        if entry.code == code:
            return entry.requirements
    return ()


def success_requirements(result: Mapping[str, Any], arguments: Any, source: str | None) -> tuple[str, ...]:
    """Whom to charge when a success was required and ``result`` is an error.

    A lookup error (the runner wrote the conversation) means the server did not find it: the
    cleaning (SRC-4) when the ID needed cleaning, else reading the explicit (SRC-2) or the source
    conversation (SRC-1). Any other error: () (the scenario's own requirements).
    """
    error = result.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if code not in _LOOKUP_ERRORS:
        return ()
    explicit = arguments.get("conversationId") if isinstance(arguments, dict) else None
    raw = explicit if isinstance(explicit, str) else source
    if isinstance(raw, str) and _NOT_ID_CHARACTER.search(raw):
        return ("SRC-4",)
    return ("SRC-2",) if isinstance(explicit, str) else ("SRC-1",)


ENVIRONMENT_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT, errno.EMFILE, errno.ENFILE}
)
"""File-system errors of the runner's own machine: a full or read-only disk, missing permissions."""


def environment_fault(error: BaseException | None) -> str | None:
    """One line when the runner's own file system failed it (writing a fixture), else None.

    The server's answers arrive over the wire and never raise these locally; a step that failed
    with one of them failed the runner, and must not be blamed on the server.
    """
    seen = 0
    while error is not None and seen < _CHAIN_LIMIT:
        if isinstance(error, OSError) and error.errno in ENVIRONMENT_ERRNOS:
            where = f": {error.filename}" if error.filename else ""
            reason = error.strerror or errno.errorcode.get(error.errno or 0, "")
            return (
                f"the runner could not write its fixtures ([Errno {error.errno}] {reason}{where}); "
                "this is the runner's environment, not the implementation: free space, or give the runner "
                "a writable sessions directory"
            )
        error = error.__cause__ or error.__context__
        seen += 1
    return None
