import io

import pytest
from django.core.management import call_command
from neomodel import db

from memory.models import Agent, Subject

pytestmark = pytest.mark.django_db


def _load() -> str:
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def test_demo_loads_once_and_rotates_its_token(client):
    first = _load()
    subject = Subject.objects.get(account__email="demo@example.com")
    counts, _ = db.cypher_query("MATCH (n {user_id: $u}) RETURN labels(n)[0], count(*)", {"u": subject.user_id})
    counts = dict(counts)
    assert counts["Message"] == 7 and counts["Fact"] >= 2 and counts["ReasoningTrace"] == 1

    second = _load()
    again, _ = db.cypher_query("MATCH (n {user_id: $u}) RETURN labels(n)[0], count(*)", {"u": subject.user_id})
    assert dict(again) == counts
    agent = Agent.objects.get(agent_id="demo-assistant")
    assert agent.tokens.filter(revoked_at__isnull=True).count() == 1

    token = second.split("token (shown once, revoked at the next load): ")[1].split()[0]
    old_token = first.split("token (shown once, revoked at the next load): ")[1].split()[0]
    body = {"user_id": subject.user_id, "query": "Which seat do I like on flights?"}
    answer = client.post("/api/v1/context", body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert answer.status_code == 200 and "window" in answer.json()["context"]
    refused = client.post("/api/v1/context", body, content_type="application/json",
                          HTTP_AUTHORIZATION=f"Bearer {old_token}")
    assert refused.status_code == 401
    assert client.login(username="demo", password="demo-password")
