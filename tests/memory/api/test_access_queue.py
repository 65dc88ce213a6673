"""The access log is written off the request: a context response queues its record in a Redis stream and a
worker's drain writes it through `access_record`; no record is lost or written twice, whatever dies when."""

import json
import time

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory import selectors, services
from memory.models import MemoryAccess, MemoryAccessItem
from memory.tasks import access_queue_drain_task
from portal.outbox import work_redispatch, work_status
from portal.redis_clients import app_redis

pytestmark = pytest.mark.django_db


def _context(client, user_id, session_id="s2"):
    response = client.post("/api/v1/context", {"user_id": user_id, "session_id": session_id,
                                               "query": "Where is the boat moored?"}, format="json")
    assert response.status_code == 200
    return response.json()


def _seeded(granted):
    subject, agent, client = granted
    client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": "The boat is moored in Cascais."}]}, format="json")
    return subject, agent, client


def _queued() -> list:
    return app_redis().xrange(selectors.ACCESS_QUEUE)


def test_a_context_request_writes_no_row_and_the_drain_writes_its_record_once(granted, make_subject):
    subject, agent, client = _seeded(granted)
    _context(client, subject.user_id)  # warm: grant and consent cached
    with CaptureQueriesContext(connection) as queries:
        body = _context(client, subject.user_id)
    assert [q["sql"] for q in queries if "memory_memoryaccess" in q["sql"]] == []
    assert not MemoryAccess.objects.exists() and len(_queued()) == 2
    answered = time.time()

    assert services.access_queue_drain() == 2
    assert services.access_queue_drain() == 0 and _queued() == []
    access = MemoryAccess.objects.filter(subject=subject).order_by("pk").last()
    assert (access.agent, access.session_id, access.turn_seq) == (agent, "s2", 1)
    assert access.created_at.timestamp() <= answered  # the time of the response, not of the drain
    assert [row.uid for row in access.item_rows.order_by("pk")] == [item["id"] for item in body["items"]]
    assert "Cascais" not in str(access.items)
    assert not MemoryAccess.objects.exclude(subject=subject).exists()  # nobody else's log


def test_with_the_app_redis_down_the_record_is_written_in_the_request(granted, app_redis_server):  # noqa: F811
    subject, _, client = _seeded(granted)
    app_redis_server.kill()
    body = _context(client, subject.user_id)
    access = MemoryAccess.objects.get(subject=subject)
    assert [a["uid"] for a in access.items] == [item["id"] for item in body["items"]]


def test_records_a_dead_worker_took_are_taken_over_and_written(granted):
    subject, _, client = _seeded(granted)
    _context(client, subject.user_id)
    services.access_queue_drain(batches=0)  # makes the consumer group
    taken = app_redis().xreadgroup(services.ACCESS_GROUP, "dead-worker", {selectors.ACCESS_QUEUE: ">"}, count=10)
    assert len(taken[0][1]) == 1  # taken, never acknowledged: that worker died
    assert services.access_queue_drain() == 0  # not yet idle long enough to be taken over
    assert services.access_queue_drain(claim_idle_ms=0) == 1
    assert MemoryAccess.objects.filter(subject=subject).count() == 1 and _queued() == []


def test_a_batch_written_but_not_acknowledged_is_not_written_twice(granted):
    subject, _, client = _seeded(granted)
    _context(client, subject.user_id)
    fields = _queued()[0][1]
    assert services.access_queue_drain() == 1
    app_redis().xadd(selectors.ACCESS_QUEUE, fields)  # as if the worker died between its commit and its ack
    assert services.access_queue_drain() == 0
    assert MemoryAccess.objects.filter(subject=subject).count() == 1
    assert MemoryAccessItem.objects.filter(subject=subject).count() == len(json.loads(fields[b"record"])["items"])


def test_a_record_queued_for_a_person_being_erased_is_not_written(granted):
    subject, _, client = _seeded(granted)
    _context(client, subject.user_id)
    page = Client()
    page.force_login(subject.account)
    page.post("/me/erase/")  # the erasure is queued; its worker would delete the access log
    assert services.access_queue_drain() == 0
    assert not MemoryAccess.objects.filter(subject=subject).exists() and _queued() == []


@pytest.mark.django_db(transaction=True)
def test_the_beat_task_drains_the_queue_in_a_worker(granted, celery_worker_process):
    subject, _, client = _seeded(granted)
    _context(client, subject.user_id)
    access_queue_drain_task.delay()
    deadline = time.monotonic() + 30
    while not MemoryAccess.objects.filter(subject=subject).exists():
        assert time.monotonic() < deadline, "the worker did not drain the access-log queue"
        time.sleep(0.2)
    assert _queued() == []


def test_the_health_check_counts_the_queue_and_a_stalled_drain_is_queued_again(granted, client, settings):
    subject, _, api = _seeded(granted)
    _context(api, subject.user_id)
    work = client.get("/healthz").json()["work"]["access_log"]
    assert (work["waiting"], work["stuck"]) == (1, 0)
    assert work_status(stuck_seconds=0)["access_log"]["stuck"] == 1
    assert work_redispatch(delay_seconds=0)["access_log"] == 1  # the drain task, queued for a worker
    services.access_queue_drain()
    assert work_status()["access_log"] == {"waiting": 0, "stuck": 0, "oldest_seconds": None}
