"""Accepted background work that is never lost: its outboxes, their dispatch, and what is stuck.

Each kind of work keeps its outbox where it is accepted, in the same write: a message's extraction
is the message's `extraction_status: 'pending'`, an export or an erasure is its job row until it is
done. After the commit the request queues the task without waiting for a broker that is down; the
Beat task (`portal.tasks.work_redispatch_task`) queues again whatever has waited past
WORK_DISPATCH_DELAY_SECONDS, at most once per WORK_REDISPATCH_SECONDS, and a worker claims an item
before running it, so a re-dispatch racing the first task never runs the same work twice at once.
Apps register their kinds of work here, as knowledge registers its context section with memory.
"""

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

import redis
from django.conf import settings
from django.utils import timezone
from kombu.exceptions import OperationalError
from redis.exceptions import LockError

from portal.redis_clients import app_redis

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkItem:
    key: str  # unique within its kind: a message uid, a job id
    args: tuple  # the task's arguments
    since: datetime  # when it was accepted


@dataclass(frozen=True)
class WorkCount:
    waiting: int
    stuck: int
    oldest: datetime | None


@dataclass(frozen=True)
class WorkKind:
    """One kind of background work: its task, and how to read its outbox."""

    name: str
    task: object  # the Celery task that does one item
    waiting: Callable[..., list[WorkItem]]  # (*, before: datetime, limit: int): accepted before `before`, oldest first
    count: Callable[..., WorkCount]  # (*, stuck_before: datetime): all waiting, and those accepted before it
    claim_seconds: int  # how long a claim outlives a worker that died holding it


_KINDS: dict[str, WorkKind] = {}


def work_kind_register(kind: WorkKind) -> None:
    _KINDS[kind.name] = kind


def work_enqueue(*, kind: str, entries: list[tuple[str, tuple]]) -> int:
    """Queue one task per (key, args) entry; return how many were queued (fewer when the broker is down).

    Never waits on a broker that is down and never raises for it: what was not queued stays in its
    outbox, and the Beat task queues it once the broker is back.
    """
    work = _KINDS[kind]
    queued = []
    for key, args in entries:
        try:
            work.task.apply_async(args, retry=False, ignore_result=True)
        except OperationalError as exc:
            logger.warning("Broker unavailable, %d %s left in the outbox: %s", len(entries) - len(queued), kind, exc)
            break
        queued.append(key)
    with suppress(redis.RedisError):  # without the mark the Beat task queues it once more, which is harmless
        pipe = app_redis().pipeline(transaction=False)
        for key in queued:
            pipe.set(_dispatched_key(kind, key), 1, ex=settings.WORK_REDISPATCH_SECONDS)
        pipe.execute()
    return len(queued)


def work_redispatch(*, delay_seconds: float | None = None, redispatch_seconds: float | None = None,
                    limit: int = 1000) -> dict[str, int]:
    """Queue again the work that waited past the delay, is not being run and was not queued lately.

    Return how many items of each kind were queued; stops at the first item the broker refuses.
    """
    delay = settings.WORK_DISPATCH_DELAY_SECONDS if delay_seconds is None else delay_seconds
    ttl = settings.WORK_REDISPATCH_SECONDS if redispatch_seconds is None else redispatch_seconds
    before = timezone.now() - timedelta(seconds=delay)
    client = app_redis()
    queued = dict.fromkeys(_KINDS, 0)
    for work in _KINDS.values():
        items = work.waiting(before=before, limit=limit)
        claimed = client.mget([_claim_key(work.name, item.key) for item in items]) if items else []
        marks = client.pipeline(transaction=False)
        idle = [item for item, holder in zip(items, claimed) if holder is None]
        for item in idle:
            marks.set(_dispatched_key(work.name, item.key), 1, nx=True, ex=max(1, int(ttl)))
        due = [item for item, marked in zip(idle, marks.execute()) if marked]
        for index, item in enumerate(due):
            try:
                work.task.apply_async(item.args, retry=False, ignore_result=True)
            except OperationalError as exc:
                client.delete(*[_dispatched_key(work.name, later.key) for later in due[index:]])
                logger.warning("Broker still unavailable, %s stay in the outbox: %s", work.name, exc)
                return queued
            queued[work.name] += 1
    return queued


def work_status(*, stuck_seconds: float | None = None) -> dict[str, dict]:
    """Return, per kind of work, how many items wait, how many waited past the threshold, and the oldest's age.

    A kind whose store does not answer gets `error` instead of counts.
    """
    threshold = settings.WORK_STUCK_SECONDS if stuck_seconds is None else stuck_seconds
    now = timezone.now()
    status = {}
    for work in _KINDS.values():
        try:
            count = work.count(stuck_before=now - timedelta(seconds=threshold))
        except Exception as exc:  # whatever the store raised, its counts are unknown
            status[work.name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        status[work.name] = {"waiting": count.waiting, "stuck": count.stuck,
                             "oldest_seconds": round((now - count.oldest).total_seconds()) if count.oldest else None}
    return status


@contextmanager
def work_claim(*, kind: str, key: str, holder: str) -> Iterator[bool]:
    """Hold the item's claim while the block runs it; yield False when another task holds it now.

    `holder` is the task's id: a task delivered again after its worker died (the same id) takes its
    own claim back at once, while another task for the item (a re-dispatch) waits until it lapses.
    """
    lock = app_redis().lock(_claim_key(kind, key), timeout=_KINDS[kind].claim_seconds, blocking=False)
    acquired = lock.acquire(token=holder)
    if not acquired:
        lock.local.token = holder.encode()
        with suppress(LockError):  # held by another task
            acquired = lock.reacquire()
    try:
        yield acquired
    finally:
        if acquired:
            with suppress(LockError, redis.ConnectionError):  # lapsed, or Redis gone: it expires on its own
                lock.release()


def work_keys(*, kind: str, keys: list[str]) -> list[str]:
    """Return the names of the Redis keys the outbox may hold for these items of a kind (dispatch marks, claims)."""
    return [name for key in keys for name in (_dispatched_key(kind, key), _claim_key(kind, key))]


def _claim_key(kind: str, key: str) -> str:
    return f"lock:work:{kind}:{key}"


def _dispatched_key(kind: str, key: str) -> str:
    return f"work:dispatched:{kind}:{key}"
