"""Accepted background work that is never lost: its outboxes, their dispatch, and what is stuck.

Each kind of work keeps its outbox where it is accepted, in the same write: a message's extraction
is the message's `extraction_status: 'pending'`, an export or an erasure is its job row until it is
done. After the commit the request queues the task without waiting for a broker that is down, and marks
the item queued (the moment it was). The Beat task (`portal.tasks.work_redispatch_task`) queues again
what has waited past WORK_DISPATCH_DELAY_SECONDS and is really lost: never queued (the broker was down),
queued before the oldest message still in its queue (the queue is first in, first out, so the broker
lost it: restarted, or the queue purged), or taken by a worker that died (its claim lapsed). Work still
in a queue, however long, is never queued twice. A worker claims an item before running it, so a
re-dispatch racing the first task never runs the same work twice at once. Apps register their kinds
of work here, as knowledge registers its context section with memory.
"""

import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

import redis
from celery import current_app
from django.conf import settings
from django.utils import timezone
from kombu.exceptions import OperationalError
from redis.exceptions import LockError

from portal.redis_clients import app_redis, broker_redis

logger = logging.getLogger(__name__)
# The header every task message carries: when it was queued (message_stamp).
QUEUED_AT = "queued_at"
# A queued item's mark outlives any queue: should it be left behind (its message purged, say), it lapses by then.
MARK_SECONDS = 24 * 3600


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
    queued, at = [], time.time()  # each message says the moment its item's mark says: first in its queue, it is there
    for key, args in entries:
        try:
            work.task.apply_async(args, retry=False, ignore_result=True, headers={QUEUED_AT: at})
        except OperationalError as exc:
            logger.warning("Broker unavailable, %d %s left in the outbox: %s", len(entries) - len(queued), kind, exc)
            break
        queued.append(key)
    with suppress(redis.RedisError):  # without the mark the Beat task queues it once more, which is harmless
        pipe = app_redis().pipeline(transaction=False)
        for key in queued:
            pipe.set(_queued_key(kind, key), at, ex=MARK_SECONDS)
        pipe.execute()
    return len(queued)


def message_stamp(headers: dict, **kwargs) -> None:
    """Stamp a task message with when it was queued, unless its sender did (Celery's before_task_publish)."""
    headers.setdefault(QUEUED_AT, time.time())


def work_redispatch(*, delay_seconds: float | None = None, limit: int = 1000) -> dict[str, int]:
    """Queue again the work that waited past the delay and is lost: never queued, or queued before the oldest
    message still in its queue, and not being run.

    Return how many items of each kind were queued; stops at the first item the broker refuses.
    """
    delay = settings.WORK_DISPATCH_DELAY_SECONDS if delay_seconds is None else delay_seconds
    before = timezone.now() - timedelta(seconds=delay)
    client = app_redis()
    queued = dict.fromkeys(_KINDS, 0)
    for work in _KINDS.values():
        items = work.waiting(before=before, limit=limit)
        if not items:
            continue
        claimed = client.mget([_claim_key(work.name, item.key) for item in items])
        marks = client.mget([_queued_key(work.name, item.key) for item in items])
        try:
            front = _queue_front(work)
        except redis.RedisError:  # the broker does not answer: what was queued stays marked, the rest is refused below
            front = 0.0
        due = [item for item, holder, mark in zip(items, claimed, marks)
               if holder is None and (mark is None or float(mark) < front)]
        at = time.time()
        for item in due:
            try:
                work.task.apply_async(item.args, retry=False, ignore_result=True, headers={QUEUED_AT: at})
            except OperationalError as exc:
                logger.warning("Broker still unavailable, %s stay in the outbox: %s", work.name, exc)
                return queued
            client.set(_queued_key(work.name, item.key), at, ex=MARK_SECONDS)
            queued[work.name] += 1
    return queued


def _queue_front(work: WorkKind) -> float:
    """Return when the oldest message still in the kind's queue was queued: work marked queued before it has left
    the queue (a worker took it, or the broker lost it). An empty queue holds nothing: every mark is older."""
    queue = current_app.amqp.router.route({}, work.task.name)["queue"].name
    oldest = broker_redis().lindex(queue, -1)  # kombu pushes on the left and takes from the right
    if oldest is None:
        return float("inf")
    return float(json.loads(oldest)["headers"].get(QUEUED_AT, 0))


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
    Claimed, the item has left its queue: its mark goes, so that once the claim lapses with the work
    undone (its worker died) the Beat task queues it again.
    """
    client = app_redis()
    lock = client.lock(_claim_key(kind, key), timeout=_KINDS[kind].claim_seconds, blocking=False)
    acquired = lock.acquire(token=holder)
    if not acquired:
        lock.local.token = holder.encode()
        with suppress(LockError):  # held by another task
            acquired = lock.reacquire()
    if acquired:
        client.delete(_queued_key(kind, key))
    try:
        yield acquired
    finally:
        if acquired:
            with suppress(LockError, redis.ConnectionError):  # lapsed, or Redis gone: it expires on its own
                lock.release()


def work_keys(*, kind: str, keys: list[str]) -> list[str]:
    """Return the names of the Redis keys the outbox may hold for these items of a kind (queued marks, claims)."""
    return [name for key in keys for name in (_queued_key(kind, key), _claim_key(kind, key))]


def _claim_key(kind: str, key: str) -> str:
    return f"lock:work:{kind}:{key}"


def _queued_key(kind: str, key: str) -> str:
    return f"work:queued:{kind}:{key}"
