"""2026-07-28 maps JSON-RPC errors to HTTP statuses (Streamable HTTP, Request Metadata): -32601 404, -32020 400."""

from __future__ import annotations

import pytest

from ccweb_conformance.transport.validate import http_status_violations

MODERN = "2026-07-28"


def _error(code: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}}


@pytest.mark.parametrize(
    ("code", "status", "version", "violations"),
    [
        (-32601, 404, MODERN, []),
        (-32020, 400, MODERN, []),
        (-32601, 200, MODERN, [
            "JSON-RPC error -32601 came with HTTP 200: revision 2026-07-28 sends it with HTTP 404 (Streamable HTTP,"
            " Request Metadata)"
        ]),
        (-32020, 200, MODERN, [
            "JSON-RPC error -32020 came with HTTP 200: revision 2026-07-28 sends it with HTTP 400 (Streamable HTTP,"
            " Request Metadata)"
        ]),
        (-32602, 200, MODERN, []),  # the revision maps no status to other codes
        (-32601, 200, "2025-11-25", []),  # the earlier revisions map none
        (-32601, None, MODERN, []),  # stdio: no HTTP status
        (True, 200, MODERN, []),
    ],
)
def test_a_modern_error_comes_with_the_status_its_code_maps_to(code, status, version, violations) -> None:
    assert http_status_violations(_error(code), status, version) == violations


def test_a_success_has_no_status_rule() -> None:
    assert http_status_violations({"jsonrpc": "2.0", "id": 1, "result": {}}, 200, MODERN) == []
