"""One error family for the whole portal, mapped once to HTTP responses: the API's by exception_handler, a
page's NotFound by `found`, and a store's failure by `store_unavailable` for every door (the API, the MCP server, the
OAuth endpoints), each answering it in its own shape with Retry-After."""

import redis
from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404
from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class ApplicationError(Exception):
    """A failure the caller can act on: `message` says what, `extra` carries the details."""

    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, message: str, extra: dict | None = None):
        super().__init__(message)
        self.message = message
        self.extra = extra or {}


class NotFound(ApplicationError):
    status_code = status.HTTP_404_NOT_FOUND


class AccessDenied(ApplicationError):
    status_code = status.HTTP_403_FORBIDDEN


class BodyTooLarge(ApplicationError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE


class StoreUnavailable(ApplicationError):
    """A store the request needs does not answer; `extra["service"]` names it, `retry_after` when to try again."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    retry_after = 5  # seconds: a restarted store, a lock another writer holds, a deadlock retried


def found(read, **kwargs):
    """Call a selector (or a service) and turn its NotFound into a 404 page, the same for missing and for someone
    else's."""
    try:
        return read(**kwargs)
    except NotFound as exc:
        raise Http404(exc.message)


# Failures a worker retries: the store will most likely answer a moment later.
TRANSIENT = (ServiceUnavailable, SessionExpired, TransientError, redis.ConnectionError, redis.TimeoutError)
# Failures of a store a request needs: the request is refused, and a retry will most likely be served. A relational
# database's OperationalError is one that is not the request's fault: locked by another writer ("database is
# locked", a lock timeout), unreachable, out of connections.
STORE_FAILURES = (*TRANSIENT, OperationalError, InterfaceError, StoreUnavailable)


def store_unavailable(exc: BaseException) -> StoreUnavailable | None:
    """Return what a store's failure means to the caller, or None when `exc` is no store's failure.

    Whatever was written in the failed request was in a transaction the failure ended, so nothing was changed.
    """
    if isinstance(exc, StoreUnavailable):
        return exc
    if isinstance(exc, (ServiceUnavailable, SessionExpired)):
        return StoreUnavailable("The memory graph (Neo4j) is unavailable; nothing was changed. Retry later.",
                                {"service": "neo4j"})
    if isinstance(exc, TransientError):  # e.g. a deadlock with a worker: Neo4j rolled the transaction back
        return StoreUnavailable("The memory graph (Neo4j) was busy; nothing was changed. Retry.", {"service": "neo4j"})
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError)):
        return StoreUnavailable("Redis (locks and caches) is unavailable; nothing was changed. Retry later.",
                                {"service": "redis"})
    if isinstance(exc, (OperationalError, InterfaceError)):
        return StoreUnavailable("The database is unavailable or busy (another writer may hold it); nothing was "
                                "changed. Retry.", {"service": "database"})
    return None


def exception_handler(exc, context):
    """Render every API error as {"message": ..., "extra": {...}}; a store's failure as a 503 with Retry-After."""

    if isinstance(exc, RequestDataTooBig):  # Django's own check, run when DRF reads the body
        exc = BodyTooLarge(f"The body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE // (1024 * 1024)} MiB; "
                           "nothing was read or stored.")
    exc = store_unavailable(exc) or exc
    if isinstance(exc, ApplicationError):
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, StoreUnavailable) else None
        return Response({"message": exc.message, "extra": exc.extra}, status=exc.status_code, headers=headers)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"message": "Invalid input; see extra.fields.", "extra": {"fields": response.data}}
    else:
        response.data = {"message": str(exc.detail), "extra": {}}
    return response
