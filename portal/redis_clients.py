"""The two Redis clients of the portal: the app's (caches, locks, counters) and the Celery broker's."""

import functools

import redis
from django.conf import settings


@functools.cache
def app_redis() -> redis.Redis:
    """Return the process's client of REDIS_URL; redis-py pools connections, so one client serves every caller."""
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=2)


@functools.cache
def broker_redis() -> redis.Redis:
    """Return the process's client of CELERY_BROKER_URL, for scans of queued task messages."""
    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=5, socket_connect_timeout=2)
