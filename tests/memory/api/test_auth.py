"""Tokens, scopes, grants and pauses: who may call what, without revealing whether data exists."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memory import services
from memory.models import Grant

pytestmark = pytest.mark.django_db


def _context(client, user_id):
    return client.post("/api/v1/context", {"user_id": user_id, "query": "anything"}, format="json")


def test_missing_and_malformed_tokens_are_401(client, granted):
    subject, _, _ = granted
    assert client.post("/api/v1/context", {"user_id": subject.user_id}, format="json").status_code == 401
    client.credentials = None
    response = client.post("/api/v1/context", {"user_id": subject.user_id}, format="json",
                           HTTP_AUTHORIZATION="Bearer mp_nothing_here")
    assert response.status_code == 401
    assert response.json() == {"message": "Invalid token.", "extra": {}}


def test_revoked_token_fails(granted, make_agent, api_for, make_subject):
    subject = make_subject()
    agent, secret = make_agent()
    services.grant_create(subject=subject, agent=agent)
    client = api_for(secret)
    assert _context(client, subject.user_id).status_code == 200
    services.agent_token_revoke(token=agent.tokens.get())
    response = _context(client, subject.user_id)
    assert response.status_code == 401 and "revoked" in response.json()["message"]


def test_expired_token_fails(make_agent, make_subject, api_for):
    subject = make_subject()
    agent, _ = make_agent()
    services.grant_create(subject=subject, agent=agent)
    _, secret = services.agent_token_issue(agent=agent, expires_at=timezone.now() - timedelta(seconds=1))
    response = _context(api_for(secret), subject.user_id)
    assert response.status_code == 401 and "expired" in response.json()["message"]


def test_token_secret_is_not_stored(make_agent):
    agent, secret = make_agent()
    token = agent.tokens.get()
    assert secret not in (token.digest, token.prefix) and token.digest != secret
    assert len(token.digest) == 64


def test_missing_scope_is_403(make_agent, make_subject, api_for):
    subject = make_subject()
    agent, secret = make_agent(scopes=["messages:write"])
    services.grant_create(subject=subject, agent=agent)
    response = _context(api_for(secret), subject.user_id)
    assert response.status_code == 403 and "context:read" in response.json()["message"]


def test_no_grant_looks_the_same_for_existing_and_unknown_users(make_agent, make_subject, api_for):
    stranger = make_subject()
    _, secret = make_agent()
    client = api_for(secret)
    existing = _context(client, stranger.user_id)
    unknown = _context(client, "0" * 32)
    assert existing.status_code == unknown.status_code == 403
    assert existing.json()["message"] == unknown.json()["message"]


def test_revoked_grant_blocks_reads_and_writes(granted):
    subject, agent, client = granted
    services.grant_revoke(subject=subject, agent=agent)
    assert _context(client, subject.user_id).status_code == 403
    append = client.post("/api/v1/conversations/s1/messages",
                         {"user_id": subject.user_id, "messages": [{"role": "user", "content": "hi"}]}, format="json")
    assert append.status_code == 403


def test_paused_agent_can_neither_read_nor_write(granted):
    subject, agent, client = granted
    Grant.objects.filter(subject=subject, agent=agent).update(paused_at=timezone.now())
    response = _context(client, subject.user_id)
    assert response.status_code == 403 and response.json()["extra"]["paused"] is True
    append = client.post("/api/v1/conversations/s1/messages",
                         {"user_id": subject.user_id, "messages": [{"role": "user", "content": "hi"}]}, format="json")
    assert append.status_code == 403


def test_rate_limit_answers_429_with_retry_after(make_agent, make_subject, api_for):
    subject = make_subject()
    agent, secret = make_agent(rate_limit_per_minute=3)
    services.grant_create(subject=subject, agent=agent)
    client = api_for(secret)
    statuses = [_context(client, subject.user_id).status_code for _ in range(4)]
    assert statuses[:3] == [200, 200, 200]
    response = _context(client, subject.user_id)
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
