"""A real two-process worker pool extracts a conversation into the same graph as extraction inline in order.

The two pool processes take the conversation's tasks as they come, so statements are extracted out
of order and concurrently; what they write must still equal, property by property, what one
inline pass in seq order writes (test_order_independence names the one property ignored).
"""

import time

import pytest
from neomodel import db

from memory.extraction.names import name_core
from tests.support.graph import (
    assert_same_graph,
    conversation_append,
    extract_in_order,
    graph_snapshot,
    memory_forget,
)

pytestmark = pytest.mark.django_db(transaction=True)
WORKER_CONCURRENCY = 2


def _wait_until_extracted(user_id, total, timeout=180):
    deadline = time.monotonic() + timeout
    while True:
        rows, _ = db.cypher_query("MATCH (m:Message {user_id: $u}) WHERE m.extraction_status = 'done' RETURN count(m)",
                                  {"u": user_id})
        if rows[0][0] >= total:
            return
        assert time.monotonic() < deadline, f"{rows[0][0]} of {total} extracted"
        time.sleep(0.2)


def test_a_two_process_pool_writes_what_inline_extraction_writes(granted, celery_worker_process):
    subject, _, client = granted
    user = subject.user_id
    uids = conversation_append(client, user)
    _wait_until_extracted(user, len(uids))
    pooled = graph_snapshot(user)
    entities, _ = db.cypher_query("MATCH (e:Entity {user_id: $u}) RETURN e.type, e.name", {"u": user})
    keys = [(kind, name_core(name)) for kind, name in entities]
    assert len(keys) == len(set(keys)) and len(keys) > 10

    memory_forget(user)
    extract_in_order(user, uids)
    assert_same_graph(graph_snapshot(user), pooled)


def test_concurrent_mentions_of_one_name_make_one_entity(granted, celery_worker_process):
    subject, _, client = granted
    user = subject.user_id
    for i in range(12):  # twelve sessions: their tasks run side by side on the two pool processes
        client.post(f"/api/v1/conversations/race-{i}/messages", {"user_id": user, "messages": [
            {"role": "user", "content": f"Kestrel Robotics called me about order {i}."}]}, format="json")
    _wait_until_extracted(user, 12)
    rows, _ = db.cypher_query("MATCH (e:Entity {user_id: $u, name: 'Kestrel Robotics'})<-[r:MENTIONS]-() "
                              "RETURN count(DISTINCT e), count(r)", {"u": user})
    assert rows == [[1, 12]]
