"""Extraction by a real worker over Redis: killed mid-task, deleted while queued, re-queued by command."""

import os
import signal
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from neomodel import db

from tests.support.api import append

pytestmark = pytest.mark.django_db(transaction=True)


def _statuses(user_id):
    rows, _ = db.cypher_query("MATCH (m:Message {user_id: $u}) RETURN m.extraction_status, count(*)", {"u": user_id})
    return dict(rows)


def _wait_until_done(user_id, total, timeout=120):
    deadline = time.monotonic() + timeout
    while _statuses(user_id).get("done", 0) < total:
        assert time.monotonic() < deadline, _statuses(user_id)
        time.sleep(0.2)


def _pool_children(pid):
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_pool_process_killed_mid_task_leaves_one_correct_result(granted, celery_worker_process):
    subject, _, client = granted
    user = subject.user_id
    places = ["Lisbon", "Porto", "Braga", "Faro", "Evora", "Coimbra", "Aveiro", "Leiria", "Viseu", "Tomar"] * 3
    for i, place in enumerate(places):
        append(client, user, [{"role": "user", "content": f"I flew to {place} today."}], session=f"s{i}")
    while _statuses(user).get("done", 0) < 3:
        time.sleep(0.05)
    for child in _pool_children(celery_worker_process.pid):
        os.kill(child, signal.SIGKILL)  # the task it was running is redelivered (acks_late, reject on loss)
    _wait_until_done(user, len(places))
    rows, _ = db.cypher_query(
        "MATCH (m:Message {user_id: $u}) OPTIONAL MATCH (m)-[r:MENTIONS]->(e:Entity) "
        "RETURN m.uid, m.content, count(r), collect(e.name)", {"u": user})
    for _, content, mentions, names in rows:
        assert mentions == 1 and names[0] in content, (content, names)
    entities, _ = db.cypher_query("MATCH (e:Entity {user_id: $u}) RETURN e.name, count(*)", {"u": user})
    assert all(count == 1 for _, count in entities) and len(entities) == 10


def test_a_message_deleted_while_queued_leaves_nothing(granted, celery_worker_process):
    subject, _, client = granted
    user = subject.user_id
    body = append(client, user, [{"role": "user", "content": f"I flew to Berlin on trip {i}."}
                                  for i in range(20)]).json()
    doomed = body["results"][-1]["uid"]
    client.delete(f"/api/v1/users/{user}/messages/{doomed}")
    _wait_until_done(user, 19)
    time.sleep(1)  # the doomed message's task ran too, and found nothing to do
    rows, _ = db.cypher_query("MATCH (m:Message {uid: $d}) RETURN count(m)", {"d": doomed})
    assert rows[0][0] == 0
    rows, _ = db.cypher_query("MATCH (e:Entity {user_id: $u})<-[r:MENTIONS]-(m:Message) RETURN count(DISTINCT m)",
                              {"u": user})
    assert rows[0][0] == 19


def test_reextract_queues_failed_messages_again(granted, celery_worker_process):
    subject, _, client = granted
    user = subject.user_id
    body = append(client, user, [{"role": "user", "content": "I live in Lisbon."}]).json()
    uid = body["results"][0]["uid"]
    _wait_until_done(user, 1)
    db.cypher_query("MATCH (m:Message {uid: $u}) SET m.extraction_status = 'failed', m.extraction_error = 'boom' "
                    "WITH m MATCH (f:Fact)-[:EXTRACTED_FROM]->(m) DETACH DELETE f", {"u": uid})
    call_command("reextract", user=user)
    _wait_until_done(user, 1)
    facts, _ = db.cypher_query("MATCH (f:Fact {user_id: $u}) RETURN f.object", {"u": user})
    assert facts == [["Lisbon"]]
