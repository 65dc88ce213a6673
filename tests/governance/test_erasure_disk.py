"""Erasure to the bytes, on a stack of the test's own: after the logical erasure the byte-level scan still finds the
person's canaries in Neo4j's files and Redis's append-only file, the disk step takes every place to zero, and nothing
comes back when Neo4j, Redis and the worker are killed and started again, a task is retried or work re-dispatched;
no log ever holds them. The receipt verifies, a tampered one does not; a restored backup's erased person is erased
again from the ledger."""

import json

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from neomodel import db

from governance import disk, disk_step, receipts, services
from governance.models import ErasureJob, JobStatus
from memory.tasks import message_extract
from governance.tasks import subject_erase_task
from portal.outbox import work_redispatch
from tests.support.disk import own_stack, wait_for
from tests.support.governance import seed_memory

pytestmark = pytest.mark.django_db(transaction=True)

# A word in no dictionary: wherever these bytes are found, the person's words went.
CANARY = "Zorbquaxle"
SAID = [f"My {CANARY} marmalade sits in the blue telescope cupboard at my aunt's farm.",
        f"The {CANARY} password hint is the name of the lighthouse keeper's grey cat."]
NEO4J_PLACES = ("neo4j_store", "neo4j_transaction_logs", "neo4j_fulltext_indexes", "neo4j_vector_indexes",
                "neo4j_other_indexes", "neo4j_logs")


def _nodes(user_id):
    return db.cypher_query("MATCH (n) WHERE n.user_id = $u RETURN count(n)", {"u": user_id})[0][0][0]


def _context(p):
    return p["api"].post("/api/v1/context", {"user_id": p["subject"].user_id, "session_id": "chat-BUFFALO",
                                             "query": "Where is the company headquartered?"}, format="json").content


@pytest.fixture
def stack(launched, tmp_path, monkeypatch):
    yield from own_stack(launched, tmp_path, monkeypatch)


def test_the_disk_step_takes_every_place_to_zero_and_nothing_comes_back_after_restarts(stack, person):
    alice, bob = person(CANARY.upper()), person("BUFFALO")
    user_id = alice["subject"].user_id
    said = alice["api"].post("/api/v1/conversations/chat/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": text} for text in SAID]}, format="json").json()["results"]
    uids = [r["uid"] for r in said]
    wait_for(lambda: {row[0] for row in db.cypher_query(
        "MATCH (m:Message) WHERE m.uid IN $uids RETURN m.extraction_status", {"uids": uids})[0]} == {"done"})
    # Hand-written: nothing of the product keeps a person's words in Redis now, yet a Redis that persists must
    # be read too, so some go there under a key of theirs, as a cache would keep them.
    cache.set(f"history:{user_id}:chat", SAID)
    alice["client"].post("/me/export/")
    wait_for(lambda: alice["subject"].export_jobs.get().status == JobStatus.DONE)
    before = _context(bob)
    stack.neo4j("stop")  # a clean stop writes what the page cache held to the store files and indexes
    stack.neo4j("start")

    alice["client"].post("/me/erase/")
    job = ErasureJob.objects.get(subject=alice["subject"])
    wait_for(lambda: ErasureJob.objects.get(pk=job.pk).status == JobStatus.DONE)
    page = alice["client"].get(reverse("governance:erasure_detail", args=[job.public_id])).content.decode()
    assert "nightly maintenance, next at" in page and _nodes(user_id) == 0

    report = disk_step.disk_erase()
    job.tombstone.refresh_from_db()
    before_step, after_step = job.tombstone.byte_checks
    found = {name: place["hits"] for name, place in before_step["places"].items() if place["checked"]}
    assert all(found[name] for name in ("neo4j_store", "neo4j_transaction_logs", "neo4j_fulltext_indexes",
                                        "neo4j_vector_indexes", "redis_aof")), found
    assert found["logs"] == found["neo4j_logs"] == 0  # no log holds a person's words, ever
    assert all(after_step["places"][name]["checked"] for name in (*NEO4J_PLACES, "redis_dump", "redis_aof", "media",
                                                                  "logs"))
    assert disk.hits_total(after_step["places"]) == 0 and report["hits_after"] == 0
    assert report["steps"]["neo4j"]["status"] == "done" and _context(bob) == before

    # Everything dies and comes back: Neo4j replays its logs, Redis its append-only file, the worker its tasks.
    for message in uids:
        message_extract.delay(message, user_id)
    subject_erase_task.delay(job.pk)
    stack.worker.kill()
    stack.neo4j_kill()
    stack.redis.kill()
    stack.redis.start()
    work_redispatch(delay_seconds=0)
    stack.worker.start()  # a worker that starts checks the disk again
    wait_for(lambda: job.tombstone.__class__.objects.get(pk=job.tombstone.pk).needles is None)
    job.tombstone.refresh_from_db()
    again = job.tombstone.byte_checks[-1]
    assert again["after"] == "a restart" and disk.hits_total(again["places"]) == 0
    assert again["places"]["neo4j_store"]["checked"] and again["places"]["redis_aof"]["checked"]
    assert _nodes(user_id) == 0 and not redis.Redis.from_url(settings.REDIS_URL).keys(f"*{user_id}*")
    assert _context(bob) == before

    document = json.loads(alice["client"].get(reverse("governance:erasure_receipt", args=[job.public_id])).content)
    assert receipts.receipt_verify(document)
    assert document["receipt"]["result"] == "erased from every store and from every place on disk that was checked"
    assert document["receipt"]["deleted"]["by_kind"]["messages"] == 4 and user_id not in json.dumps(document)


def test_a_receipt_verifies_and_a_tampered_one_does_not(person, client, staff):
    alice = person()
    alice["client"].post("/me/erase/")
    job = ErasureJob.objects.get(subject=alice["subject"])
    services.subject_erase(job_id=job.pk)
    response = alice["client"].get(reverse("governance:erasure_receipt", args=[job.public_id]))
    assert response["Content-Disposition"].startswith("attachment")
    document = response.json()
    assert document["receipt"]["result"] == "erased from every store; the disk step has not run yet"
    assert document["receipt"]["disk_step"]["due_by"] and receipts.receipt_verify(document)
    _, reviewer = staff("erase_subjects")
    assert reviewer.get(reverse("admin:governance_erasurejob_receipt", args=[job.pk])).json() == document

    tampered = json.loads(json.dumps(document))
    tampered["receipt"]["deleted"]["by_kind"]["messages"] = 0
    assert not receipts.receipt_verify(tampered)
    verify = reverse("governance:receipt_verify")
    assert "does not verify" in client.post(verify, {"text": json.dumps(tampered)}).content.decode()
    intact = client.post(verify, {"text": json.dumps(document)}).content.decode()
    assert "intact and was signed by this portal" in intact


def test_a_person_erased_after_a_backup_is_erased_again_when_it_is_restored(person, settings, tmp_path):
    settings.ERASURE_LEDGER = tmp_path / "ledger.jsonl"
    alice, bob = person("ALPACA"), person("BUFFALO")
    job = services.erasure_request(subject=alice["subject"], scope="all")
    services.subject_erase(job_id=job.pk)
    ledger = settings.ERASURE_LEDGER.read_text()
    assert alice["subject"].user_id not in ledger and json.loads(ledger)["person"] == job.user_id_digest

    # The restore: a backup taken before the erasure brings the memory back, and knows nothing of the erasure.
    ErasureJob.objects.all().delete()
    seed_memory(subject=alice["subject"], agent=alice["agent"], word="ALPACA")
    assert _nodes(alice["subject"].user_id) == 12

    assert services.erasure_ledger_replay() == {"ledger_lines": 1, "erased_again": 1}
    assert _nodes(alice["subject"].user_id) == 0 and _nodes(bob["subject"].user_id) == 12
    assert services.erasure_ledger_replay() == {"ledger_lines": 2, "erased_again": 0}  # erased since: left alone
