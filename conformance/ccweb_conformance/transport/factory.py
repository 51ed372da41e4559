"""Builds the transport target the options describe."""

from __future__ import annotations

from pathlib import Path

from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import (
    HttpCommandTarget,
    HttpUrlTarget,
    InProcessTarget,
    StdioTarget,
    Target,
    reference_command,
)


def make_target(
    options: RunnerOptions, sessions_dir: Path, context: RunContext, decoy_source: str | None = None
) -> Target:
    """The target for these options, for the run of ``context``; no target given means the bundled reference over
    stdio.

    A spawned HTTP server gets ``decoy_source`` in the stdio source variable (``--source-env``),
    unless ``--env`` sets it: over HTTP only the header counts, so a fallback to it shows.
    """
    if options.in_process:
        return InProcessTarget(
            sessions_dir,
            protocol=options.protocol,
            timeout=options.timeout,
            limit=options.max_message_bytes,
            context=context,
        )
    if options.http_cmd and options.url:
        return HttpCommandTarget(
            options.http_cmd,
            options.url,
            sessions_dir,
            source_header=options.source_header,
            protocol=options.protocol,
            timeout=options.timeout,
            env={**({options.source_env: decoy_source} if decoy_source else {}), **options.environment()},
            limit=options.max_message_bytes,
            context=context,
        ).with_headers(options.http_headers())
    if options.url:
        return HttpUrlTarget(
            options.url,
            sessions_dir,
            source_header=options.source_header,
            protocol=options.protocol,
            timeout=options.timeout,
            limit=options.max_message_bytes,
            context=context,
        ).with_headers(options.http_headers())
    return StdioTarget(
        options.stdio or reference_command(),
        sessions_dir,
        source_env=options.source_env,
        protocol=options.protocol,
        timeout=options.timeout,
        env=options.environment(),
        limit=options.max_message_bytes,
        context=context,
    )
