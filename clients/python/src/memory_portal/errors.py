"""One error family for everything the portal (or the way to it) can refuse."""

from typing import Any

import httpx2


class MemoryPortalError(Exception):
    """A failed call: `status` is the HTTP status (None when no response came), `extra` the API's details."""

    def __init__(self, message: str, *, status: int | None = None, extra: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.extra = extra or {}

    def __str__(self) -> str:
        return f"{self.status} {self.message}" if self.status else self.message


class PortalUnreachable(MemoryPortalError):
    """No response: the connection failed or timed out."""


class InvalidRequest(MemoryPortalError):
    """400: `extra["fields"]` names each rejected field."""


class AuthenticationFailed(MemoryPortalError):
    """401: the token is unknown, revoked or expired, or the agent is deactivated."""


class AccessDenied(MemoryPortalError):
    """403: no grant, a paused agent, withdrawn consent or a missing scope."""


class NotFound(MemoryPortalError):
    """404."""


class Conflict(MemoryPortalError):
    """409: another append to the conversation holds its lock (retry shortly), or a correction's item was
    corrected or retracted already (correct its current version) or would duplicate another entity."""


class RateLimited(MemoryPortalError):
    """429: the agent's per-minute limit is used up; retry after `retry_after` seconds."""

    def __init__(self, message: str, *, retry_after: float | None, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServiceUnavailable(MemoryPortalError):
    """503: a store behind the portal (Neo4j, Redis or its database; `extra["service"]` names it) is down or busy;
    nothing was changed unless `extra["stored"]` says "unknown". Retry after the Retry-After header's seconds."""


_BY_STATUS: dict[int, type[MemoryPortalError]] = {
    400: InvalidRequest, 401: AuthenticationFailed, 403: AccessDenied, 404: NotFound, 409: Conflict,
    503: ServiceUnavailable,
}


def error_from_response(response: httpx2.Response) -> MemoryPortalError:
    """Build the error for a non-2xx response from its {"message", "extra"} body."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        message, extra = body["message"], body.get("extra") or {}
    else:
        message, extra = response.text.strip() or response.reason_phrase, {}
    if response.status_code == 429:
        retry_after = response.headers.get("Retry-After")
        return RateLimited(message, status=429, extra=extra,
                           retry_after=float(retry_after) if retry_after and retry_after.isdigit() else None)
    cls = _BY_STATUS.get(response.status_code, MemoryPortalError)
    return cls(message, status=response.status_code, extra=extra)
