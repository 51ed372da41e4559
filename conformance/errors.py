"""Errors the runner reports to the user instead of a traceback."""

from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(Exception):
    """Bad input from the user (a file, an option): the runner prints the message and exits with 2.

    The message is one line naming the file or option and the problem.
    """
