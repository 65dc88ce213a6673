"""after_run: ordered, idempotent appends that never fork the chain, refused without consent."""

import multiprocessing
import threading

import pytest
from neomodel import db

from memory import services
from tests.conftest import neo4j_unreachable

pytestmark = pytest.mark.django_db


def _append(client, user_id, messages, session="s1"):
    return client.post(f"/api/v1/conversations/{session}/messages", {"user_id": user_id, "messages": messages},
                       format="json")


def chain(user_id, session="s1"):
    """Return the contents along FIRST_MESSAGE/NEXT_MESSAGE, failing if the chain forks or skips."""
    rows, _ = db.cypher_query(
        "MATCH (c:Conversation {user_id: $u, session_id: $s}) "
        "OPTIONAL MATCH (m:Message)<-[:HAS_MESSAGE]-(c) "
        "OPTIONAL MATCH (m)-[n:NEXT_MESSAGE]->() "
        "RETURN count(DISTINCT m), count(n), COUNT { (c)-[:FIRST_MESSAGE]->() }", {"u": user_id, "s": session})
    messages, links, firsts = rows[0]
    assert firsts == (1 if messages else 0) and links == max(messages - 1, 0)
    rows, _ = db.cypher_query(
        "MATCH (c:Conversation {user_id: $u, session_id: $s})-[:FIRST_MESSAGE]->(first) "
        "MATCH p = (first)-[:NEXT_MESSAGE*0..]->(last) WHERE NOT (last)-[:NEXT_MESSAGE]->() "
        "RETURN [m IN nodes(p) | m.content], [m IN nodes(p) | m.seq]", {"u": user_id, "s": session})
    contents, seqs = rows[0]
    assert len(contents) == messages and seqs == sorted(seqs)
    return contents


def test_messages_are_stored_in_order(granted):
    subject, _, client = granted
    response = _append(client, subject.user_id, [{"role": "user", "content": "one"},
                                                 {"role": "assistant", "content": "two"}])
    assert response.status_code == 201
    body = response.json()
    assert body["stored"] == 2 and [r["seq"] for r in body["results"]] == [1, 2]
    _append(client, subject.user_id, [{"role": "user", "content": "three"}])
    assert chain(subject.user_id) == ["one", "two", "three"]


def test_resending_with_client_ids_stores_nothing_twice(granted):
    subject, _, client = granted
    batch = [{"role": "user", "content": "hello", "client_message_id": "m-1"},
             {"role": "assistant", "content": "hi!", "client_message_id": "m-2"}]
    first = _append(client, subject.user_id, batch).json()
    again = _append(client, subject.user_id, batch)
    assert again.status_code == 200
    body = again.json()
    assert body["stored"] == 0
    assert [r["reason"] for r in body["results"]] == ["duplicate", "duplicate"]
    assert [r["uid"] for r in body["results"]] == [r["uid"] for r in first["results"]]
    assert chain(subject.user_id) == ["hello", "hi!"]


def test_retried_call_without_client_ids_is_recognised_by_content(granted):
    subject, _, client = granted
    batch = [{"role": "user", "content": "what time is it?"}, {"role": "assistant", "content": "noon"}]
    _append(client, subject.user_id, batch)
    assert _append(client, subject.user_id, batch).json()["stored"] == 0
    # The same words later in a conversation are a new message.
    _append(client, subject.user_id, [{"role": "user", "content": "thanks"}, {"role": "assistant", "content": "ok"},
                                      {"role": "user", "content": "bye"}, {"role": "assistant", "content": "bye!"},
                                      {"role": "user", "content": "one more"}])
    assert _append(client, subject.user_id, [{"role": "user", "content": "what time is it?"}]).json()["stored"] == 1


def test_concurrent_appends_from_threads_keep_one_chain(granted, transactional_db):
    subject, _, client = granted
    errors = []

    def worker(n):
        try:
            for i in range(5):
                response = _append(client, subject.user_id, [{"role": "user", "content": f"t{n}-{i}"}])
                assert response.status_code == 201, response.content
        except Exception as exc:  # collected and re-raised in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    contents = chain(subject.user_id)
    assert sorted(contents) == sorted(f"t{n}-{i}" for n in range(4) for i in range(5))
    for n in range(4):  # each writer's own messages stay in its order
        mine = [c for c in contents if c.startswith(f"t{n}-")]
        assert mine == [f"t{n}-{i}" for i in range(5)]


def _append_in_process(user_id, n, vector):
    from portal import graphdb

    graphdb.reconnect()
    for i in range(5):
        services.conversation_append(user_id=user_id, agent_id="proc", session_id="s1", rows=[{
            "role": "user", "content": f"p{n}-{i}", "client_id": f"p{n}-{i}", "content_hash": f"h{n}-{i}",
            "embedding": vector}])


def test_concurrent_appends_from_processes_keep_one_chain(granted):
    subject, _, _ = granted
    vector = [0.0] * 383 + [1.0]
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_append_in_process, args=(subject.user_id, n, vector)) for n in range(3)]
    for p in processes:
        p.start()
    for p in processes:
        p.join(timeout=60)
        assert p.exitcode == 0
    contents = chain(subject.user_id)
    assert sorted(contents) == sorted(f"p{n}-{i}" for n in range(3) for i in range(5))


def test_withdrawn_history_consent_stores_nothing_and_says_why(granted):
    subject, agent, client = granted
    services.consent_record(subject=subject, agent=None, category="history", granted=False)
    response = _append(client, subject.user_id, [{"role": "user", "content": "secret", "client_message_id": "x"}])
    assert response.status_code == 200
    result = response.json()["results"][0]
    assert result["stored"] is False and result["reason"] == "consent_withdrawn"
    assert db.cypher_query("MATCH (m:Message) RETURN count(m)")[0][0][0] == 0
    services.consent_record(subject=subject, agent=agent, category="history", granted=True)
    assert _append(client, subject.user_id, [{"role": "user", "content": "now ok"}]).status_code == 201


@pytest.mark.parametrize("payload, field", [
    ({"messages": [{"role": "user", "content": "x"}]}, "user_id"),
    ({"user_id": "bad id!", "messages": [{"role": "user", "content": "x"}]}, "user_id"),
    ({"user_id": "u", "messages": []}, "messages"),
    ({"user_id": "u", "messages": [{"role": "user", "content": "x"}] * 101}, "messages"),
    ({"user_id": "u", "messages": [{"role": "robot", "content": "x"}]}, "messages"),
    ({"user_id": "u", "messages": [{"role": "user", "content": "x" * 32_001}]}, "messages"),
    ({"user_id": "u", "messages": [{"role": "user", "content": "x", "extra": 1}]}, "messages"),
    ({"user_id": "u", "messages": [{"role": "user", "content": "x"}], "surprise": True}, "surprise"),
])
def test_bad_input_is_rejected_naming_the_field(granted, payload, field):
    _, _, client = granted
    response = client.post("/api/v1/conversations/s1/messages", payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["extra"]["fields"]


def test_bad_session_id_in_path_is_named(granted):
    subject, _, client = granted
    response = _append(client, subject.user_id, [{"role": "user", "content": "x"}], session="a" * 129)
    assert response.status_code == 400 and "session_id" in response.json()["extra"]["fields"]


def test_neo4j_down_is_503_then_a_retry_stores_once(granted):
    subject, _, client = granted
    message = [{"role": "user", "content": "kept", "client_message_id": "k"}]
    with neo4j_unreachable():
        response = _append(client, subject.user_id, message)
    assert response.status_code == 503
    assert "Neo4j" in response.json()["message"] and "nothing was changed" in response.json()["message"]
    assert _append(client, subject.user_id, message).status_code == 201
    assert _append(client, subject.user_id, message).json()["stored"] == 0
    assert chain(subject.user_id) == ["kept"]
