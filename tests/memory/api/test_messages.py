"""after_run: ordered, idempotent appends that never fork the chain, refused without consent."""

import os
import threading
import traceback
from datetime import timedelta

import pytest
from django.utils import timezone
from neo4j.exceptions import ServiceUnavailable
from neomodel import db

from memory import cypher, services
from tests.support.api import append
from tests.support.stack import neo4j_unreachable

pytestmark = pytest.mark.django_db


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
    response = append(client, subject.user_id, [{"role": "user", "content": "one"},
                                                 {"role": "assistant", "content": "two"}])
    assert response.status_code == 201
    body = response.json()
    assert body["stored"] == 2 and [r["seq"] for r in body["results"]] == [1, 2]
    append(client, subject.user_id, [{"role": "user", "content": "three"}])
    assert chain(subject.user_id) == ["one", "two", "three"]


def test_resending_with_client_ids_stores_nothing_twice(granted):
    subject, _, client = granted
    batch = [{"role": "user", "content": "hello", "client_message_id": "m-1"},
             {"role": "assistant", "content": "hi!", "client_message_id": "m-2"}]
    first = append(client, subject.user_id, batch).json()
    again = append(client, subject.user_id, batch)
    assert again.status_code == 200
    body = again.json()
    assert body["stored"] == 0
    assert [r["reason"] for r in body["results"]] == ["duplicate", "duplicate"]
    assert [r["uid"] for r in body["results"]] == [r["uid"] for r in first["results"]]
    assert chain(subject.user_id) == ["hello", "hi!"]


def test_retried_call_without_client_ids_is_recognised_by_content(granted):
    subject, _, client = granted
    batch = [{"role": "user", "content": "what time is it?"}, {"role": "assistant", "content": "noon"}]
    append(client, subject.user_id, batch)
    assert append(client, subject.user_id, batch).json()["stored"] == 0
    # The same words later in a conversation are a new message.
    append(client, subject.user_id, [{"role": "user", "content": "thanks"}, {"role": "assistant", "content": "ok"},
                                      {"role": "user", "content": "bye"}, {"role": "assistant", "content": "bye!"},
                                      {"role": "user", "content": "one more"}])
    assert append(client, subject.user_id, [{"role": "user", "content": "what time is it?"}]).json()["stored"] == 1


def test_concurrent_appends_from_threads_keep_one_chain(granted, transactional_db):
    subject, _, client = granted
    errors = []

    def worker(n):
        try:
            for i in range(5):
                response = append(client, subject.user_id, [{"role": "user", "content": f"t{n}-{i}"}])
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
    # Plain fork, not multiprocessing's: its after-fork hooks close the broker connections the child
    # inherited, and one left waiting on a reply (a health check's worker ping) blocks the child forever.
    children = []
    for n in range(3):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                _append_in_process(subject.user_id, n, vector)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        children.append(pid)
    for pid in children:
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    contents = chain(subject.user_id)
    assert sorted(contents) == sorted(f"p{n}-{i}" for n in range(3) for i in range(5))


def test_withdrawn_history_consent_stores_nothing_and_says_why(granted):
    subject, agent, client = granted
    services.consent_record(subject=subject, agent=None, category="history", granted=False)
    response = append(client, subject.user_id, [{"role": "user", "content": "secret", "client_message_id": "x"}])
    assert response.status_code == 200
    result = response.json()["results"][0]
    assert result["stored"] is False and result["reason"] == "consent_withdrawn"
    assert db.cypher_query("MATCH (m:Message) RETURN count(m)")[0][0][0] == 0
    services.consent_record(subject=subject, agent=agent, category="history", granted=True)
    assert append(client, subject.user_id, [{"role": "user", "content": "now ok"}]).status_code == 201


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
    response = append(client, subject.user_id, [{"role": "user", "content": "x"}], session="a" * 129)
    assert response.status_code == 400 and "session_id" in response.json()["extra"]["fields"]


def test_neo4j_down_is_503_then_a_retry_stores_once(granted):
    subject, _, client = granted
    message = [{"role": "user", "content": "kept", "client_message_id": "k"}]
    with neo4j_unreachable():
        response = append(client, subject.user_id, message)
    assert response.status_code == 503
    assert "Neo4j" in response.json()["message"] and "nothing was changed" in response.json()["message"]
    assert append(client, subject.user_id, message).status_code == 201
    assert append(client, subject.user_id, message).json()["stored"] == 0
    assert chain(subject.user_id) == ["kept"]


def test_a_connection_lost_during_the_commit_says_the_outcome_is_unknown_and_the_retry_is_safe(granted, monkeypatch):
    subject, _, client = granted
    commit = db.commit

    def commit_then_lose_the_reply():
        # The commit reaches Neo4j, and the connection drops before its answer does (a Neo4j killed at that
        # moment, which no test can time): the only way to land in that window on purpose.
        commit()
        raise ServiceUnavailable("connection lost while committing")

    monkeypatch.setattr(db, "commit", commit_then_lose_the_reply)
    lost = append(client, subject.user_id, [{"role": "user", "content": "hello", "client_message_id": "c1"}])
    monkeypatch.undo()
    assert lost.status_code == 503 and lost.json()["extra"] == {"service": "neo4j", "stored": "unknown"}
    assert "may or may not be stored" in lost.json()["message"] and "nothing was changed" not in lost.json()["message"]
    retry = append(client, subject.user_id, [{"role": "user", "content": "hello", "client_message_id": "c1"}])
    assert retry.status_code == 200 and retry.json()["results"][0]["reason"] == "duplicate"
    assert chain(subject.user_id) == ["hello"]


def test_a_connection_lost_before_the_commit_says_nothing_was_changed(granted, monkeypatch):
    subject, _, client = granted
    query = db.cypher_query

    def lose_the_append(statement, *args, **kwargs):
        if statement == cypher.MESSAGES_APPEND:
            raise ServiceUnavailable("connection lost before the commit")
        return query(statement, *args, **kwargs)

    monkeypatch.setattr(db, "cypher_query", lose_the_append)
    lost = append(client, subject.user_id, [{"role": "user", "content": "hello", "client_message_id": "c1"}])
    monkeypatch.undo()
    assert lost.status_code == 503 and lost.json()["extra"] == {"service": "neo4j"}
    assert "nothing was changed" in lost.json()["message"]
    assert db.cypher_query("MATCH (m:Message {user_id: $u}) RETURN count(m)", {"u": subject.user_id})[0] == [[0]]


def _stored_times(user_id, session="s1"):
    rows, _ = db.cypher_query("MATCH (c:Conversation {user_id: $u, session_id: $s})-[:HAS_MESSAGE]->(m) "
                              "RETURN m.content, m.created_at ORDER BY m.seq", {"u": user_id, "s": session})
    return [(content, moment.to_native()) for content, moment in rows]


def test_messages_carry_their_own_time_with_its_offset(granted):
    subject, _, client = granted
    response = append(client, subject.user_id, [
        {"role": "user", "content": "back then", "created_at": "2025-03-03T18:30:00+01:00"},
        {"role": "assistant", "content": "same minute", "created_at": "2025-03-03T18:30:00+01:00"},
        {"role": "user", "content": "now"},
    ])
    assert response.status_code == 201
    (_, first), (_, second), (_, third) = _stored_times(subject.user_id)
    assert first.isoformat() == second.isoformat() == "2025-03-03T18:30:00+01:00"
    assert (timezone.now() - third).total_seconds() < 60
    context = client.post("/api/v1/context", {"user_id": subject.user_id, "session_id": "s1"}, format="json").json()
    assert [i["provenance"]["created_at"] for i in context["items"]][:2] == ["2025-03-03T18:30:00+01:00"] * 2


@pytest.mark.parametrize("value, detail", [
    ("2025-03-03T18:30:00", "offset"),
    ("next tuesday", "format"),
    ((timezone.now() + timedelta(days=365)).isoformat(), "future"),
])
def test_a_bad_message_time_is_a_400_naming_the_message_and_field(granted, value, detail):
    subject, _, client = granted
    response = append(client, subject.user_id, [{"role": "user", "content": "ok"},
                                                 {"role": "user", "content": "bad", "created_at": value}])
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"message", "extra"}
    assert list(body["extra"]["fields"]["messages"]) == ["1"] and "created_at" in body["extra"]["fields"]["messages"]["1"]
    assert db.cypher_query("MATCH (m:Message) RETURN count(m)")[0][0][0] == 0


def test_a_few_minutes_of_clock_skew_are_accepted(granted):
    subject, _, client = granted
    soon = (timezone.now() + timedelta(minutes=2)).isoformat()
    assert append(client, subject.user_id, [{"role": "user", "content": "x", "created_at": soon}]).status_code == 201


def test_a_message_earlier_than_the_one_before_it_is_refused(granted):
    subject, _, client = granted
    user = subject.user_id
    assert append(client, user, [{"role": "user", "content": "one", "created_at": "2025-03-03T10:00:00Z"}]).status_code == 201
    stored = append(client, user, [{"role": "user", "content": "two", "created_at": "2025-03-03T10:05:00Z"},
                                    {"role": "user", "content": "three", "created_at": "2025-03-03T09:59:00Z"}])
    assert stored.status_code == 400
    body = stored.json()
    assert "messages[1].created_at" in body["message"]
    assert body["extra"]["fields"]["messages"] == {"1": {"created_at": [body["extra"]["fields"]["messages"]["1"]["created_at"][0]]}}
    earlier = append(client, user, [{"role": "user", "content": "zero", "created_at": "2025-03-03T09:00:00+00:00"}])
    assert earlier.status_code == 400 and "messages[0].created_at" in earlier.json()["message"]
    assert chain(user) == ["one"]  # nothing of a refused batch was written
    # A re-sent duplicate keeps its own, earlier time and is no error; the new message goes on the chain.
    again = append(client, user, [{"role": "user", "content": "one", "created_at": "2025-03-03T10:00:00Z"},
                                   {"role": "user", "content": "two", "created_at": "2025-03-03T11:00:00Z"}])
    assert again.status_code == 201 and [r["stored"] for r in again.json()["results"]] == [False, True]
    assert chain(user) == ["one", "two"]


def test_a_message_without_a_time_after_one_dated_ahead_keeps_the_order(granted):
    subject, _, client = granted
    ahead = (timezone.now() + timedelta(minutes=3)).replace(microsecond=0)
    append(client, subject.user_id, [{"role": "user", "content": "ahead", "created_at": ahead.isoformat()}])
    append(client, subject.user_id, [{"role": "user", "content": "undated"}])
    (_, first), (_, second) = _stored_times(subject.user_id)
    assert second >= first


def test_the_schema_documents_created_at(granted):
    _, _, client = granted
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    field = schema["components"]["schemas"]["MessageIn"]["properties"]["created_at"]
    assert field["format"] == "date-time" and "offset" in field["description"]


def test_forgetting_the_last_message_lets_the_next_append_follow_the_one_before(granted):
    subject, _, client = granted
    stored = append(client, subject.user_id, [{"role": "user", "content": c} for c in ("one", "two", "three")]).json()

    assert client.delete(f"/api/v1/users/{subject.user_id}/messages/{stored['results'][2]['uid']}").status_code == 200
    rows, _ = db.cypher_query("MATCH (c:Conversation {user_id: $u}) RETURN c.tail_uid", {"u": subject.user_id})
    assert rows == [[stored["results"][1]["uid"]]]
    append(client, subject.user_id, [{"role": "user", "content": "four"}])

    assert chain(subject.user_id) == ["one", "two", "four"]
    body = client.post("/api/v1/context", {"user_id": subject.user_id, "session_id": "s1", "token_budget": 500},
                       format="json").json()
    assert [i["text"] for i in body["items"] if i["provenance"].get("source") == "recent"] == [
        "user: one", "user: two", "user: four"]


def test_a_conversation_that_names_no_last_message_is_appended_to_its_real_end(granted):
    subject, _, client = granted
    append(client, subject.user_id, [{"role": "user", "content": "one", "client_message_id": "a"},
                                      {"role": "assistant", "content": "two"}])
    # As another library (or a version before tail_uid) leaves a conversation: nothing names its last message.
    db.cypher_query("MATCH (c:Conversation {user_id: $u}) REMOVE c.tail_uid", {"u": subject.user_id})

    again = append(client, subject.user_id, [{"role": "user", "content": "one", "client_message_id": "a"},
                                              {"role": "assistant", "content": "two"},
                                              {"role": "user", "content": "three"}]).json()

    assert [r["stored"] for r in again["results"]] == [False, False, True]
    assert chain(subject.user_id) == ["one", "two", "three"]
    rows, _ = db.cypher_query("MATCH (c:Conversation {user_id: $u}) MATCH (m:Message {uid: c.tail_uid}) "
                              "RETURN m.content", {"u": subject.user_id})
    assert rows == [["three"]]


def test_repeats_are_found_by_client_id_however_long_ago_and_by_content_only_among_the_last(granted):
    subject, _, client = granted
    first = [{"role": "user", "content": "hello", "client_message_id": "early"}]
    append(client, subject.user_id, first)
    append(client, subject.user_id, [{"role": "user", "content": f"turn {i}"} for i in range(30)])

    again = append(client, subject.user_id, [*first, {"role": "user", "content": "turn 29"},
                                              {"role": "user", "content": "turn 0"}]).json()

    assert [r["stored"] for r in again["results"]] == [False, False, True]
    assert chain(subject.user_id)[-1] == "turn 0"
