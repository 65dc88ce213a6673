"""The two Redis clients of the portal: the app's (caches, locks, counters) and the Celery broker's."""

import functools

import redis
from django.conf import settings


@functools.cache
def _client(url: str) -> redis.Redis:
    # redis-py pools connections per client, so one client per URL serves every caller of a process.
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2)


def app_redis() -> redis.Redis:
    """Return the client of REDIS_URL."""
    return _client(settings.REDIS_URL)


def broker_redis() -> redis.Redis:
    """Return the client of CELERY_BROKER_URL, for scans of queued task messages."""
    return _client(settings.CELERY_BROKER_URL)
