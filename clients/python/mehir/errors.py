"""The error an error answer raises."""

from typing import Any, Mapping, Optional


class MehirError(Exception):
    """An error answer (4xx/5xx), after any retries.

    ``code``, ``param`` and ``request_id`` are the problem+json members: branch on ``code``
    (e.g. ``"product_not_found"``), show ``detail`` to people, quote ``request_id`` when reporting
    a problem. An answer that is not problem+json (a proxy's error page, the MCP transport's
    JSON-RPC errors) has ``code`` None and its parsed body in ``body``.
    """

    def __init__(self, status: int, body: Any, headers: Mapping[str, str], retry_after: Optional[int] = None) -> None:
        problem = body if isinstance(body, dict) and isinstance(body.get("code"), str) and isinstance(body.get("status"), int) else None
        self.status: int = status
        self.code: Optional[str] = problem["code"] if problem else None
        self.param: Optional[str] = problem.get("param") if problem else None
        self.request_id: Optional[str] = (problem.get("request_id") if problem else None) or _header(headers, "x-request-id")
        self.detail: Optional[str] = problem.get("detail") if problem else None
        self.retry_after: Optional[int] = retry_after
        self.body: Any = body
        message = f"{status} {self.code}: {self.detail}" if problem else f"{status}: {str(body)[:200]}"
        super().__init__(message)


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None
