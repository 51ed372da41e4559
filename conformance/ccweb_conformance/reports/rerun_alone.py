"""A failure's rerun alone in words, for every report: reproduced alone, not reproduced alone, or why not rerun."""

from __future__ import annotations

from collections.abc import Callable

from ccweb_conformance.i18n import DEFAULT_LANGUAGE, messages, translated
from ccweb_conformance.reports.model import Rerun

__all__ = ["rerun_line"]


def rerun_line(rerun: Rerun, language: str = DEFAULT_LANGUAGE, *, quote: Callable[[str], str] = str) -> str:
    """One line saying what the scenario did when run again alone, on what fresh server, in ``language``; ``quote``
    writes what stopped an unfinished rerun (the server's text) as the format wants it."""
    say = messages(language)
    if rerun.outcome == "not_rerun":
        return say(f"alone.not_rerun.{rerun.not_rerun or 'unfinished'}", why=quote(rerun.why or ""))
    server = say(f"alone.server.{rerun.server}")
    requirements = ", ".join(rerun.failed_requirements)
    if rerun.outcome == "reproduced":
        return say("alone.reproduced", server=server, requirements=requirements)
    if rerun.status == "passed":
        got = say("alone.got_passed")
    elif rerun.status == "failed":
        got = say("alone.got_other", requirements=requirements, check=translated(rerun.check or "", language))
    else:
        got = say("alone.got_status", status=rerun.status)
    return say("alone.not_reproduced", server=server, got=got)
