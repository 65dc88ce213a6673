"""Who may read what, cached in each process: tokens, grants, consent and retention, checked on every request.

The hot path answers these from memory instead of the database. An entry is valid for one version
of the access state, a random value in Redis that every change to an agent, token, grant, consent
row, retention policy or subject replaces (`access_state_invalidate`: model signals and the
queryset's bulk writes call it, in the change's transaction and again once it commits). Each
lookup reads the version first (an API request once, at its start: one Redis GET), so a revoke,
pause or withdrawal holds from the very next request on every web node. With Redis unreachable the cache is cleared and bypassed;
a change made while Redis was down is seen by a process that served no request meanwhile after
`ACCESS_CACHE_SECONDS` at the latest.
"""

import logging
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

import redis
from django.conf import settings
from django.db import transaction

from portal.redis_clients import app_redis

logger = logging.getLogger(__name__)
T = TypeVar("T")
VERSION_KEY = "access-state:version"
# Entries a process keeps before it starts again from empty (a person and an agent are one entry).
MAX_ENTRIES = 50_000
_entries: dict[tuple, tuple[bytes, float, object]] = {}
# The version an API request read once at its start (access_state_pinned).
_pinned: ContextVar[bytes | None] = ContextVar("access_state_pinned", default=None)


def access_state_invalidate() -> None:
    """Make every process's cached access state stale, now and again when the transaction commits.

    The second time covers a reader that, between the first and the commit, cached what the
    database still said before the change.
    """
    _version_replace()
    transaction.on_commit(_version_replace)


def _version_replace() -> None:
    try:
        app_redis().set(VERSION_KEY, uuid.uuid4().hex)
    except (redis.ConnectionError, redis.TimeoutError):
        _entries.clear()
        logger.warning("Access state changed while Redis is unavailable; other processes see it within %s s.",
                       settings.ACCESS_CACHE_SECONDS)


def _version() -> bytes | None:
    """Return the current version (starting one when Redis has none), or None when Redis is unreachable."""
    client = app_redis()
    try:
        version = client.get(VERSION_KEY)
        if version is None:
            client.set(VERSION_KEY, uuid.uuid4().hex, nx=True)
            version = client.get(VERSION_KEY)
        return version
    except (redis.ConnectionError, redis.TimeoutError):
        _entries.clear()
        return None


@contextmanager
def access_state_pinned() -> Iterator[None]:
    """Read the version once for the block (one API request), so that its lookups cost no Redis round trip each.

    A request served within one already pinned (an MCP tool call answered by the API view) keeps its caller's.
    """
    pinned = _pinned.set(_pinned.get() or _version())
    try:
        yield
    finally:
        _pinned.reset(pinned)


def access_state_cached(*, key: tuple, load: Callable[[], T | None]) -> T | None:
    """Return the cached value for `key` at the current version, else `load()` (cached unless None)."""
    version = _pinned.get() or _version()
    if version is None:
        return load()
    now = time.monotonic()
    entry = _entries.get(key)
    if entry is not None and entry[0] == version and now - entry[1] < settings.ACCESS_CACHE_SECONDS:
        return entry[2]
    value = load()
    if value is not None:
        if len(_entries) >= MAX_ENTRIES:
            _entries.clear()
        _entries[key] = (version, now, value)
    return value
