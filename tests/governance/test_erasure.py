"""Erasure leaves nothing in Neo4j, Redis (app and broker), the database or the files, and nothing of others goes."""

import threading

import pytest
import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from kombu import Connection
from neo4j.exceptions import Neo4jError
from neomodel import db

from governance import selectors, services
from governance.models import ErasureJob, ErasureTombstone, JobStatus
from memory import selectors as memory_selectors
from memory import services as memory_services
from memory.models import ConsentRecord, Grant, MemoryAccess, Subject
from memory.services import forgetting
from wiring.celery import app

pytestmark = pytest.mark.django_db
STORES = {"neo4j": 0, "redis": 0, "broker": 0, "database": 0, "files": 0, "content": 0}


def _nodes(user_id):
    return db.cypher_query("MATCH (n) WHERE n.user_id = $u RETURN count(n)", {"u": user_id})[0][0][0]


@pytest.fixture
def broker():
    """Connections opened through `broker.append` stay open (holding unacked tasks) until teardown."""
    connections = []
    yield connections
    for connection in connections:
        connection.release()


def _everywhere(broker, *people):
    """Put each subject into every store: locks and cache, taken and queued tasks, an export, the access log.

    The broker is emptied first: the extraction tasks the seeding queued have already run inline.
    """
    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
    for p in people:  # a worker took an extraction task and has not acknowledged it yet
        app.send_task("memory.tasks.message_extract", args=[p["items"]["messages"], p["subject"].user_id],
                      queue="extraction")
        connection = Connection(settings.CELERY_BROKER_URL)
        broker.append(connection)
        taken = connection.SimpleQueue("extraction", no_ack=False).get(timeout=2)
        assert p["subject"].user_id in str(taken.headers["argsrepr"])
    for p in people:
        _stores(p)


def _stores(p):
    user_id = p["subject"].user_id
    app_redis = redis.Redis.from_url(settings.REDIS_URL)
    app_redis.set(f"lock:conversation:{user_id}:chat", "token")
    cache.set(f"history:{user_id}:chat", ["hello"])
    app.send_task("memory.tasks.message_extract", args=[p["items"]["messages"], user_id], queue="extraction")
    MemoryAccess.objects.create(subject=p["subject"], agent=p["agent"], session_id="chat",
                                items=[{"type": "fact", "uid": p["items"]["facts"], "score": 1.0}])
    p["client"].post("/me/export/")
    services.export_build(job_id=p["subject"].export_jobs.get().pk)


def _erase(p, url="/me/erase/"):
    assert "delete-confirmation" in p["client"].get(url).content.decode()  # a confirmation page first
    response = p["client"].post(url)
    job = ErasureJob.objects.get(user_id_digest__isnull=False, pk=ErasureJob.objects.latest("pk").pk)
    return response, job


def test_erasing_memory_leaves_zero_residue_in_every_store_and_spares_others(person, broker):
    alice, bob = person("ALPACA"), person("BUFFALO")
    _everywhere(broker, alice, bob)
    before = selectors.residue_scan(user_id=alice["subject"].user_id, subject_pk=alice["subject"].pk, scope="all")
    assert all(before.values()), before  # the scan sees each store, so zero below means erased

    response, job = _erase(alice)
    assert response.url == f"/me/erasures/{job.public_id}/"
    assert selectors.subject_is_erased(user_id=alice["subject"].user_id)
    blocked = alice["api"].post("/api/v1/context", {"user_id": alice["subject"].user_id, "query": "work"},
                                format="json")
    assert blocked.status_code == 403  # agents are paused while the erasure runs
    services.subject_erase(job_id=job.pk)

    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.tombstone.residue == STORES
    assert job.tombstone.deleted["neo4j_nodes"] == 12 and job.tombstone.deleted["broker_messages"] == 2
    assert job.tombstone.kept == {"consent_records": 3}
    user_id = alice["subject"].user_id
    assert _nodes(user_id) == 0
    assert not list(redis.Redis.from_url(settings.REDIS_URL).scan_iter(match=f"*{user_id}*"))
    assert not list(selectors.broker_messages(user_id=user_id))
    assert not selectors.export_directory(user_id=user_id).exists()
    assert not MemoryAccess.objects.filter(subject=alice["subject"]).exists()
    assert not selectors.database_rows(user_id=user_id, subject_pk=alice["subject"].pk, account=False)
    tombstone = ErasureTombstone.objects.get(job=job)
    assert user_id not in str(tombstone.__dict__) and user_id not in str(job.__dict__)

    assert Grant.objects.get(subject=alice["subject"]).paused_at is None  # resumed afterwards
    assert not selectors.subject_is_erased(user_id=user_id)
    page = alice["client"].get(f"/me/erasures/{job.public_id}/").content.decode()
    assert "nothing left anywhere" in page

    bob_id = bob["subject"].user_id
    assert _nodes(bob_id) == 12 and len(list(selectors.broker_messages(user_id=bob_id))) == 2  # queued + taken
    assert redis.Redis.from_url(settings.REDIS_URL).exists(f"lock:conversation:{bob_id}:chat")
    assert cache.get(f"history:{bob_id}:chat") == ["hello"]
    assert selectors.export_directory(user_id=bob_id).exists() and MemoryAccess.objects.filter(subject=bob["subject"])


def test_an_extraction_running_during_erasure_cannot_leave_residue(person, monkeypatch):
    """A worker that derives facts from the subject's messages keeps writing while the erasure runs;
    it writes only where its message still exists (as memory.tasks.message_extract does)."""

    monkeypatch.setattr(forgetting, "ERASE_BATCH", 1)  # many small batches: a long window to race in
    p = person()
    user_id = p["subject"].user_id
    memory_services.messages_append(subject=p["subject"], agent=p["agent"], session_id="chat-ALPACA",
                                    messages=[{"role": "user", "content": f"message {i}"} for i in range(1, 201)])
    uids = [uid for (uid,) in db.cypher_query("MATCH (m:Message {user_id: $u}) RETURN m.uid", {"u": user_id})[0]]
    stop, written = threading.Event(), []

    # Hand-written: a writer that keeps deriving from every message for as long as the erasure runs,
    # where the real step, once a message is extracted, writes nothing more.
    def extraction():
        while not stop.is_set():
            for uid in uids:
                try:
                    rows, _ = db.cypher_query(
                        "MATCH (m:Message {uid: $m, user_id: $u}) "
                        "MERGE (f:Fact {uid: $m + '-fact', user_id: $u}) "
                        "ON CREATE SET f.subject = 'user', f.predicate = 'SAID', f.object = m.content, f.status = 'current' "
                        "MERGE (f)-[:EXTRACTED_FROM]->(m) RETURN count(f)", {"m": uid, "u": user_id})
                except Neo4jError:  # the message went while this ran; a real worker retries and finds it gone
                    continue
                written.append(rows[0][0])

    worker = threading.Thread(target=extraction)
    worker.start()
    try:
        _, job = _erase(p)
        services.subject_erase(job_id=job.pk)
    finally:
        stop.set()
        worker.join()
    job.refresh_from_db()
    assert sum(written) > 0  # the worker did write while the erasure ran
    assert job.status == JobStatus.DONE and job.tombstone.residue == STORES and _nodes(user_id) == 0


def test_withdrawing_consent_then_erasing_the_category_removes_only_that_category(person):
    p = person()
    p["client"].post("/me/consent/", {"category": "long_term", "agent": "", "granted": "0"})
    _, job = _erase(p, url="/me/consent/long_term/erase/")
    services.subject_erase(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.tombstone.residue == {"neo4j": 0, "content": 0}
    left = dict(db.cypher_query("MATCH (n {user_id: $u}) RETURN labels(n)[0], count(n)",
                                {"u": p["subject"].user_id})[0])
    assert left == {"User": 1, "Conversation": 1, "Message": 2, "ReasoningTrace": 1, "ReasoningStep": 1,
                    "ToolCall": 1}


def test_erasing_history_drops_conversations_left_empty(person):
    p = person()
    memory_services.messages_append(subject=p["subject"], agent=p["agent"], session_id="only-messages",
                                    messages=[{"role": "user", "content": "Remember the blue door."}])
    _, job = _erase(p, url="/me/consent/history/erase/")
    services.subject_erase(job_id=job.pk)
    left = dict(db.cypher_query("MATCH (n {user_id: $u}) RETURN labels(n)[0], count(n)",
                                {"u": p["subject"].user_id})[0])
    assert "Message" not in left and left["Fact"] == 2
    # The seeded conversation holds a reasoning trace, so it stays; the one of messages alone goes.
    kept = memory_selectors.conversation_list(user_id=p["subject"].user_id)
    assert [c["session_id"] for c in kept] == ["chat-ALPACA"]


def test_deleting_the_account_erases_everything_then_the_account(person, client, broker):
    alice, bob = person("ALPACA"), person("BUFFALO")
    _everywhere(broker, alice)
    user_id, subject_pk, user_pk = alice["subject"].user_id, alice["subject"].pk, alice["user"].pk
    response, job = _erase(alice, url="/me/delete-account/")
    assert response.url == f"/me/deleted/{job.public_id}/"
    assert alice["client"].get("/me/").status_code == 302  # signed out
    services.subject_erase(job_id=job.pk)

    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.subject is None and job.tombstone.residue == STORES
    assert not get_user_model().objects.filter(pk=user_pk).exists()
    assert not Subject.objects.filter(pk=subject_pk).exists()
    assert not ConsentRecord.objects.filter(subject_id=subject_pk).exists()
    assert _nodes(user_id) == 0
    assert selectors.subject_is_erased(user_id=user_id)  # late writes stay refused for good
    assert not selectors.subject_is_erased(user_id=bob["subject"].user_id)
    receipt = client.get(f"/me/deleted/{job.public_id}/").content.decode()
    assert "nothing left anywhere" in receipt and user_id not in receipt
    assert _nodes(bob["subject"].user_id) == 12


def test_a_second_request_while_one_is_pending_reuses_it(person):
    p = person()
    first = services.erasure_request(subject=p["subject"], scope="all")
    again = services.erasure_request(subject=p["subject"], scope="all")
    assert first.pk == again.pk and ErasureJob.objects.count() == 1


def test_the_outbox_keys_of_queued_extractions_go_with_the_person(person):
    alice = person()
    user_id = alice["subject"].user_id
    said = alice["api"].post("/api/v1/conversations/later/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": f"queued note {n}"} for n in range(20)]}, format="json").json()
    # Each queued extraction leaves a mark named by the message's id, not the person's.
    app_redis = redis.Redis.from_url(settings.REDIS_URL)
    marks = [f"work:queued:extractions:{r['uid']}" for r in said["results"]]
    assert app_redis.exists(*marks) == 20

    _, job = _erase(alice)
    services.subject_erase(job_id=job.pk)

    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.tombstone.residue == STORES
    assert job.tombstone.deleted["redis_keys"] >= 20 and app_redis.exists(*marks) == 0
