"""The app's Redis stopped for real: reads go on, writes answer a JSON 503 naming Redis and store nothing."""


import pytest
from neomodel import db


pytestmark = pytest.mark.django_db


def append(client, user_id, content, client_message_id):
    return client.post("/api/v1/conversations/s1/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": content, "client_message_id": client_message_id}]}, format="json")


def stored(user_id) -> list[str]:
    rows, _ = db.cypher_query("MATCH (m:Message {user_id: $u}) RETURN m.content ORDER BY m.seq", {"u": user_id})
    return [r[0] for r in rows]


def test_with_the_app_redis_down_context_answers_and_appends_are_a_json_503(granted, app_redis_server):
    subject, _, client = granted
    assert append(client, subject.user_id, "I live in Lisbon.", "m-1").status_code == 201

    app_redis_server.kill()
    context = client.post("/api/v1/context", {"user_id": subject.user_id, "session_id": "s1",
                                              "query": "Where do I live?"}, format="json")
    assert context.status_code == 200  # the rate limiter lets it through; see AgentRateThrottle
    refused = append(client, subject.user_id, "I moved to Porto.", "m-2")
    assert refused.status_code == 503 and refused["Content-Type"] == "application/json"
    assert refused.json()["extra"] == {"service": "redis"}
    assert "nothing was changed" in refused.json()["message"]
    assert stored(subject.user_id) == ["I live in Lisbon."]

    app_redis_server.start()
    assert append(client, subject.user_id, "I moved to Porto.", "m-2").status_code == 201
    assert append(client, subject.user_id, "I moved to Porto.", "m-2").json()["stored"] == 0
    assert stored(subject.user_id) == ["I live in Lisbon.", "I moved to Porto."]
