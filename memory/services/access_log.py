"""The access log: which items each context gave which agent, queued by the request and written by a worker."""

import json
import os
import socket
from datetime import datetime

import redis
from django.db import transaction
from django.utils import timezone

from memory import selectors
from memory.models import Agent, MemoryAccess, MemoryAccessItem, Subject
from memory.selectors import ACCESS_QUEUE
from portal.redis_clients import app_redis


# The consumer group of the workers that drain the access log's queue (access_queue_drain).
ACCESS_GROUP = "drain"
ACCESS_BATCH = 500
ACCESS_CLAIM_IDLE_MS = 60_000


@transaction.atomic
def access_record(*, subject: Subject, agent: Agent, session_id: str | None, items: list[dict],
                  turn_seq: int | None = None, at: datetime | None = None) -> MemoryAccess:
    """Log which items a context gave the agent, for which turn of the session, and when (default now): the one
    writer of the access log."""
    access = MemoryAccess.objects.create(
        subject=subject, agent=agent, session_id=session_id or "", turn_seq=turn_seq if session_id else None,
        created_at=at or timezone.now(),
        items=[{"type": item["type"], "uid": item["id"], "score": item["score"]} for item in items],
    )
    MemoryAccessItem.objects.bulk_create([
        MemoryAccessItem(access=access, subject=subject, item_type=item["type"], uid=item["id"], score=item["score"])
        for item in items
    ])
    return access


def access_enqueue(*, subject: Subject, agent: Agent, session_id: str | None, items: list[dict],
                   turn_seq: int | None = None) -> None:
    """Queue the access record of a context response for a worker (`access_queue_drain`), so the request
    writes no row; when Redis cannot take it, write it now.

    A record is never lost: if the queue's reply is lost after it took the record, the record is
    written here too, and the drain recognises the copy (same person, agent, session, turn and time).
    """
    at = timezone.now()
    record = {"subject": subject.pk, "agent": agent.pk, "session_id": session_id or "", "turn_seq": turn_seq,
              "at": at.isoformat(), "items": [{key: item[key] for key in ("type", "id", "score")} for item in items]}
    try:
        app_redis().xadd(ACCESS_QUEUE, {"record": json.dumps(record)})
    except (redis.ConnectionError, redis.TimeoutError):
        access_record(subject=subject, agent=agent, session_id=session_id, items=items, turn_seq=turn_seq, at=at)


def access_queue_drain(*, batches: int = 20, claim_idle_ms: int = ACCESS_CLAIM_IDLE_MS) -> int:
    """Write queued access records through `access_record`, a batch per transaction; return how many were written.

    A batch is acknowledged (and removed from the queue) only after it commits. A worker that dies
    holding one leaves it pending, and a later drain takes it over after `claim_idle_ms`; one
    that died after its commit but before acknowledging has its records recognised and not written twice.
    """

    client = app_redis()
    try:
        client.xgroup_create(ACCESS_QUEUE, ACCESS_GROUP, id="0", mkstream=True)
    except redis.ResponseError:  # BUSYGROUP: made by an earlier drain
        pass
    consumer = f"{socket.gethostname()}:{os.getpid()}"
    _, abandoned, _ = client.xautoclaim(ACCESS_QUEUE, ACCESS_GROUP, consumer, min_idle_time=claim_idle_ms,
                                        start_id="0-0", count=ACCESS_BATCH)
    written = _access_batch_write(client=client, entries=abandoned) if abandoned else 0
    for _ in range(batches):
        found = client.xreadgroup(ACCESS_GROUP, consumer, {ACCESS_QUEUE: ">"}, count=ACCESS_BATCH)
        if not found:
            break
        written += _access_batch_write(client=client, entries=found[0][1])
    return written


def _access_batch_write(*, client: redis.Redis, entries: list) -> int:
    records = [json.loads(fields[b"record"]) for _, fields in entries]
    for record in records:
        record["at"] = datetime.fromisoformat(record["at"])
    subjects = Subject.objects.in_bulk({record["subject"] for record in records})
    agents = Agent.objects.in_bulk({record["agent"] for record in records})
    erased = {pk for pk, subject in subjects.items() if selectors.subject_is_erased(user_id=subject.user_id)}
    written = set(MemoryAccess.objects.filter(created_at__in=[record["at"] for record in records]).values_list(
        "subject_id", "agent_id", "session_id", "turn_seq", "created_at"))
    count = 0
    with transaction.atomic():
        for record in records:
            key = (record["subject"], record["agent"], record["session_id"],
                   record["turn_seq"] if record["session_id"] else None, record["at"])
            # A person gone or being erased: their access log goes with their memory.
            if record["subject"] not in subjects or record["subject"] in erased or key in written:
                continue
            access_record(subject=subjects[record["subject"]], agent=agents.get(record["agent"]),
                          session_id=record["session_id"], items=record["items"], turn_seq=record["turn_seq"],
                          at=record["at"])
            written.add(key)
            count += 1
    ids = [entry_id for entry_id, _ in entries]
    client.xack(ACCESS_QUEUE, ACCESS_GROUP, *ids)
    client.xdel(ACCESS_QUEUE, *ids)
    return count
