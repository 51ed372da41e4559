"""Builds the transport target a resolved target value describes."""

from __future__ import annotations

from pathlib import Path

from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import (
    HttpCommandTarget,
    HttpUrlTarget,
    InProcessTarget,
    StdioTarget,
    Target,
    TargetSettings,
    reference_command,
)
from ccweb_conformance.values import TargetSpec


def make_target(
    spec: TargetSpec, sessions_dir: Path, context: RunContext, decoy_source: str | None = None
) -> Target:
    """The target ``spec`` names, for the run of ``context``; no target given means the bundled reference over
    stdio.

    A spawned HTTP server gets ``decoy_source`` in the stdio source variable (``--source-env``),
    unless ``--env`` sets it: over HTTP only the header counts, so a fallback to it shows.
    """
    limit = spec.max_message_bytes
    settings = TargetSettings(protocol=spec.protocol, timeout=spec.timeout, limit=limit, context=context)
    if spec.in_process:
        return InProcessTarget(sessions_dir, **settings)
    if spec.http_cmd and spec.url:
        return HttpCommandTarget(
            spec.http_cmd,
            spec.url,
            sessions_dir,
            source_header=spec.source_header,
            env={**({spec.source_env: decoy_source} if decoy_source else {}), **dict(spec.env)},
            **settings,
        ).with_headers(dict(spec.headers))
    if spec.url:
        return HttpUrlTarget(spec.url, sessions_dir, source_header=spec.source_header, **settings).with_headers(
            dict(spec.headers)
        )
    return StdioTarget(
        spec.stdio or reference_command(),
        sessions_dir,
        source_env=spec.source_env,
        env=dict(spec.env),
        **settings,
    )
