"""Tokens, grants and consent are answered from each process's cache, and every change holds from the very
next request: whoever makes it (the person's pages, staff, another process), and with the app's Redis down."""

import json
import os
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory import services
from memory.management.commands.bench_api import MCP_HEADERS, MCP_VERSION
from memory.models import SCOPES
from portal.processes import database_url
from tests.support.stack import ROOT

pytestmark = pytest.mark.django_db
ACCESS_TABLES = ("memory_agenttoken", "memory_agent", "memory_grant", "memory_consentrecord", "memory_subject")


def _context(client, user_id):
    return client.post("/api/v1/context", {"user_id": user_id, "session_id": "s1", "query": "Where do I live?"},
                       format="json")


def _append(client, user_id, content):
    return client.post("/api/v1/conversations/s1/messages",
                       {"user_id": user_id, "messages": [{"role": "user", "content": content}]}, format="json")


def _signed_in(subject) -> Client:
    page = Client()
    page.force_login(subject.account)
    return page


def test_a_warm_request_reads_no_token_grant_or_consent_row_and_serves_no_one_else(granted, make_subject):
    subject, _, client = granted
    assert _context(client, subject.user_id).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        warm = _context(client, subject.user_id)
    assert warm.status_code == 200 and sorted(warm.json()["categories"]) == ["history", "long_term", "reasoning"]
    assert [q["sql"] for q in queries if any(table in q["sql"] for table in ACCESS_TABLES)] == []

    other = make_subject()  # never granted this agent: the cached grant of someone else does not stand in
    assert _context(client, other.user_id).status_code == 403


def test_a_warm_mcp_call_reads_no_access_row_either(granted):
    """The MCP door reads the token, the client's connection (none here) and the grant from the same cache."""
    subject, _, client = granted
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "context_build", "arguments": {"user_id": subject.user_id, "session_id": "s1", "query": "Where?"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": MCP_VERSION,
                  "io.modelcontextprotocol/clientCapabilities": {}}}}
    assert client.post("/mcp/", call, format="json", headers=MCP_HEADERS).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        warm = client.post("/mcp/", call, format="json", headers=MCP_HEADERS)
    assert warm.status_code == 200 and not warm.json()["result"].get("isError")
    tables = (*ACCESS_TABLES, "agents_mcp_clientconnection")
    assert [q["sql"] for q in queries if any(table in q["sql"] for table in tables)] == []


def test_a_token_revoked_by_staff_is_refused_on_the_next_request(granted, staff):
    subject, agent, client = granted
    assert _context(client, subject.user_id).status_code == 200
    _, admin = staff("manage_agents")
    admin.post(f"/admin/memory/agent/{agent.pk}/tokens/{agent.tokens.get().pk}/revoke/")
    refused = _context(client, subject.user_id)
    assert refused.status_code == 401 and "revoked" in refused.json()["message"]


def test_an_agent_deactivated_on_the_admin_site_is_refused_on_the_next_request(granted, staff):
    subject, agent, client = granted
    assert _context(client, subject.user_id).status_code == 200
    _, admin = staff("manage_agents")
    changed = admin.post(f"/admin/memory/agent/{agent.pk}/change/", {
        "agent_id": agent.agent_id, "name": agent.name, "scopes": list(SCOPES),
        "rate_limit_per_minute": agent.rate_limit_per_minute, "untrusted_writes": "apply"})  # is_active unticked
    assert changed.status_code == 302
    refused = _context(client, subject.user_id)
    assert refused.status_code == 401 and "deactivated" in refused.json()["message"]


def test_a_scope_taken_away_on_the_admin_site_is_refused_on_the_next_request(granted, staff):
    subject, agent, client = granted
    assert _context(client, subject.user_id).status_code == 200
    _, admin = staff("manage_agents")
    admin.post(f"/admin/memory/agent/{agent.pk}/change/", {
        "agent_id": agent.agent_id, "name": agent.name, "scopes": ["messages:write"],
        "rate_limit_per_minute": agent.rate_limit_per_minute, "untrusted_writes": "apply", "is_active": "on"})
    refused = _context(client, subject.user_id)
    assert refused.status_code == 403 and "context:read" in refused.json()["message"]


def test_an_expired_token_is_refused_once_its_time_has_passed(make_agent, make_subject, api_for):
    subject = make_subject()
    agent, _ = make_agent()
    services.grant_create(subject=subject, agent=agent)
    _, secret = services.agent_token_issue(agent=agent, expires_at=timezone.now() + timedelta(seconds=1))
    client = api_for(secret)
    assert _context(client, subject.user_id).status_code == 200
    time.sleep(1.1)
    refused = _context(client, subject.user_id)
    assert refused.status_code == 401 and "expired" in refused.json()["message"]


def test_pause_resume_and_revoke_on_the_persons_pages_hold_from_the_next_request(granted):
    subject, agent, client = granted
    page = _signed_in(subject)
    assert _context(client, subject.user_id).status_code == 200
    page.post(f"/me/agents/{agent.agent_id}/pause/", {"action": "pause"})
    paused = _context(client, subject.user_id)
    assert paused.status_code == 403 and paused.json()["extra"]["paused"] is True
    assert _append(client, subject.user_id, "I live in Lisbon.").status_code == 403

    page.post(f"/me/agents/{agent.agent_id}/pause/", {"action": "resume"})
    assert _context(client, subject.user_id).status_code == 200
    page.post(f"/me/agents/{agent.agent_id}/revoke/")
    assert _context(client, subject.user_id).status_code == 403


def test_consent_withdrawn_for_one_agent_or_for_all_holds_from_the_next_request(granted):
    subject, agent, client = granted
    page = _signed_in(subject)
    assert _append(client, subject.user_id, "I live in Lisbon.").json()["stored"] == 1
    page.post("/me/consent/", {"category": "history", "agent": agent.agent_id, "granted": "0"})
    assert "history" not in _context(client, subject.user_id).json()["categories"]
    refused = _append(client, subject.user_id, "I moved to Porto.").json()["results"][0]
    assert refused == {**refused, "stored": False, "reason": "consent_withdrawn"}

    page.post("/me/consent/", {"category": "reasoning", "agent": "", "granted": "0"})  # every agent
    assert _context(client, subject.user_id).json()["categories"] == ["long_term"]
    page.post("/me/consent/", {"category": "history", "agent": agent.agent_id, "granted": "1"})
    assert _context(client, subject.user_id).json()["categories"] == ["history", "long_term"]


def test_an_erasure_request_pauses_the_agent_from_the_next_request(granted):
    subject, _, client = granted
    assert _context(client, subject.user_id).status_code == 200
    _signed_in(subject).post("/me/erase/")
    refused = _context(client, subject.user_id)
    assert refused.status_code == 403 and refused.json()["extra"]["paused"] is True


@pytest.mark.django_db(transaction=True)
def test_a_revoke_made_by_another_process_holds_on_this_ones_next_request(granted):
    subject, agent, client = granted
    assert _context(client, subject.user_id).status_code == 200
    revoke = ("from memory import services; from memory.models import Grant; "
              f"g = Grant.objects.select_related('subject', 'agent').get(pk={agent.grants.get().pk}); "
              "services.grant_revoke(subject=g.subject, agent=g.agent)")
    subprocess.run([sys.executable, "manage.py", "shell", "-c", revoke], cwd=ROOT, check=True,
                   env={**os.environ, "DATABASE_URL": database_url()})
    assert _context(client, subject.user_id).status_code == 403


def test_with_the_app_redis_down_a_revoke_still_holds_on_the_next_request(granted, app_redis_server):  # noqa: F811
    subject, agent, client = granted
    assert _context(client, subject.user_id).status_code == 200
    app_redis_server.kill()
    services.grant_revoke(subject=subject, agent=agent)
    assert _context(client, subject.user_id).status_code == 403
