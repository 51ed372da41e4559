"""A whole profile: conversations of growing size, each implementation measured on each, then judged."""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import time
from collections.abc import Callable
from pathlib import Path

from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.profile.budgets import advisories
from ccweb_conformance.profile.check import Oracle
from ccweb_conformance.profile.conversation import cc_web_bytes, conversation, revisable_bytes
from ccweb_conformance.profile.growth import judge
from ccweb_conformance.profile.measure import Context, Conversations, Implementation, SizeSession
from ccweb_conformance.profile.model import ImplementationProfile, Profile, SizeResult
from ccweb_conformance.profile.settings import ProfileSettings
from ccweb_conformance.profile.writer import ProfileFiles
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import reference_command
from ccweb_conformance.values import TargetSpec, target_of

TINY_MESSAGES = 10
REFERENCE = "reference"

Progress = Callable[[str], None]


def label(target: TargetSpec) -> str:
    """A short name for the implementation: the program and its script, or the URL."""
    if target.is_bundled_reference:
        return REFERENCE
    if target.url and not target.http_cmd:
        return target.url.split("://", 1)[-1]
    command = target.stdio or target.http_cmd or ""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    script = next((w for w in words[1:] if not w.startswith("-") and "{" not in w), None)
    return " ".join([Path(words[0]).name] + ([Path(script).name] if script else []))


def reference_target(target: TargetSpec) -> TargetSpec:
    """The bundled reference over the target's kind of transport, with the same protocol and timeout."""
    if target.http_cmd or target.url:
        return target_of(
            RunnerOptions(
                http_cmd=f"{reference_command()} --http --port {{port}}",
                url="http://127.0.0.1:{port}/mcp",
                protocol=target.protocol,
                timeout=target.timeout,
            )
        )
    return target_of(RunnerOptions(protocol=target.protocol, timeout=target.timeout))


def implementations(target: TargetSpec, settings: ProfileSettings) -> list[Implementation]:
    """The target, then the reference beside it (unless asked not to, or the target is the reference).

    Both read the run's one sessions directory (the workspace's: the runner's own, or ``--sessions-dir``).
    """
    found = [Implementation(label(target), target, target.is_bundled_reference)]
    if settings.reference and not target.is_bundled_reference:
        found.append(Implementation(REFERENCE, reference_target(target), True))
    return found


def description(implementation: Implementation) -> str:
    """What the implementation is, in words (the command or the URL)."""
    target = implementation.target
    if target.url and not target.http_cmd:
        return f"HTTP server at {target.url}"
    command = target.stdio or target.http_cmd or reference_command()
    return f"{'HTTP' if target.http_cmd else 'stdio'} server {command!r}"


def machine() -> dict[str, object]:
    """What the profile ran on."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(), "load": load}


def _progress_line(number: int, total: int, result_of: dict[str, SizeResult], seconds: float) -> str:
    first = next(iter(result_of.values()))
    parts = []
    for name, size in result_of.items():
        if size.failure is not None:
            parts.append(f"{name} stopped answering")
            continue
        shown = [f"first {size.first_median:,.1f} ms" if size.first_median is not None else "first -"]
        shown.append(f"repeated {size.repeated_median:,.2f} ms" if size.repeated_median is not None else "repeated -")
        wrong = " WRONG" if size.wrong else ""
        parts.append(f"{name} {', '.join(shown)}{wrong}")
    return (
        f"profile: size {number}/{total}: {first.messages:,} messages ({first.file_bytes / 1e6:.2f} MB): "
        + "; ".join(parts)
        + f" [{seconds:.1f} s]"
    )


def run_profile(
    target: TargetSpec,
    settings: ProfileSettings,
    *,
    workspace: Workspace,
    run: RunContext,
    kit_version: str,
    spec_version: str,
    progress: Progress,
) -> Profile:
    """Profile the target (and the reference) at every size; files and servers are gone when it returns.

    ``workspace`` is the run's (``fixtures/workspace.py``): the runner's own sessions directory, or the
    user's ``--sessions-dir``; the files the profile writes are removed, the workspace is the caller's.
    ``run``: the command's run context (``transport/run_context.py``), which its targets start their servers in.

    TargetError escapes when an implementation cannot be started or reached.
    """
    started = time.perf_counter()
    profile = Profile(
        kit_version=kit_version,
        spec_version=spec_version,
        started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        sizes=settings.sizes,
        machine=machine(),
    )
    chosen = implementations(target, settings)
    profile.implementations = [
        ImplementationProfile(i.name, description(i), _transport(i.target), i.is_reference) for i in chosen
    ]
    files = ProfileFiles(workspace)
    context = Context(files, Oracle(files.sessions_dir), settings, run)
    for number, messages in enumerate(settings.sizes, 1):
        size_started = time.perf_counter()
        results = _profile_size(messages, chosen, profile, context)
        progress(_progress_line(number, len(settings.sizes), results, time.perf_counter() - size_started))
    for implementation in profile.implementations:
        implementation.sampled = any(size.read_per_call is not None for size in implementation.sizes)
        judge(implementation)
        profile.advisories.extend(advisories(implementation))
    profile.duration_s = time.perf_counter() - started
    return profile


def _transport(target: TargetSpec) -> str:
    return "http" if target.http_cmd or target.url else "stdio"


def _profile_size(
    messages: int, chosen: list[Implementation], profile: Profile, context: Context
) -> dict[str, SizeResult]:
    workspace = context.workspace
    large_id = workspace.conversation_id("p", messages)
    tiny_id = workspace.conversation_id("t", messages)
    large = revisable_bytes(messages, large_id)
    conversations = Conversations(large_id, large, tiny_id)
    sessions: list[SizeSession] = []
    try:
        workspace.create(tiny_id, cc_web_bytes(conversation(TINY_MESSAGES, tiny_id, seed=1)))
        workspace.create(large_id, large)
        for implementation, record in zip(chosen, profile.implementations, strict=True):
            result = SizeResult(messages, len(large))
            record.sizes.append(result)
            sessions.append(SizeSession(implementation, result, conversations, context))
        for session in sessions:
            session.start()
        for session in sessions:
            session.guarded(session.first_phase)
        workspace.wait_settled(context.settings.settle)
        for session in sessions:
            session.guarded(session.repeated_phase)
    finally:
        for session in sessions:
            session.close()
        workspace.remove_all()
        context.oracle.forget()
    return {session.implementation.name: session.result for session in sessions}
