"""Superseded facts, traces, agents and tokens, audit log and staff erasure: gates, effects, audit rows."""

import csv
import io

import pytest
from neomodel import db

from memory import services
from memory.models import AgentToken
from portal.models import AuditEvent, user_id_digest
from tests.support.governance import seed_memory
from tests.support.api import say

pytestmark = pytest.mark.django_db


def _context(api, user_id, query):
    return api.post("/api/v1/context", {"user_id": user_id, "query": query, "include": {"history": False}},
                    format="json")


def test_timeline_confirm_revert_and_as_of(granted, staff):
    subject, _, api = granted
    user = subject.user_id
    say(api, user, "Ticket 7 is urgent.", facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": "high"}])
    say(api, user, "Bumped it.", facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": "critical"}])
    # The moment halfway between the two statements, when "high" held and "critical" did not yet.
    old_uid, between = db.cypher_query(
        "MATCH (f:Fact {object: 'high', user_id: $u}) "
        "RETURN f.uid, f.valid_from + duration.between(f.valid_from, f.valid_until) / 2",
        {"u": user})[0][0]
    reviewer, client = staff("review_facts", "view_memory_content")

    page = client.get(f"/admin/review/facts/?user={subject.account.email}&subject=ticket_7")
    body = page.content.decode()
    assert page.status_code == 200 and body.count("<rect") == 2 and "<h3>has priority</h3>" in body
    assert AuditEvent.objects.filter(action="memory.view", target_type="fact_timeline",
                                     subject_digest=user_id_digest(user)).exists()
    as_of = client.get(f"/admin/review/facts/as-of/?user={user}&as_of={between.to_native():%Y-%m-%d %H:%M:%S.%f}")
    assert [f.object for f in as_of.context["facts"]] == ["high"]

    client.post(f"/admin/review/facts/{user}/{old_uid}/confirm/")
    assert AuditEvent.objects.get(action="fact.confirm").actor == reviewer
    assert "Revert" in client.get(f"/admin/review/facts/{user}/{old_uid}/revert/").content.decode()
    assert "critical" in _context(api, user, "What is the priority of Ticket_7?").json()["context"]
    client.post(f"/admin/review/facts/{user}/{old_uid}/revert/")
    context = _context(api, user, "What is the priority of Ticket_7?").json()["context"]
    assert "high" in context and "critical" not in context
    statuses = dict(db.cypher_query("MATCH (f:Fact {user_id: $u}) RETURN f.object, f.status", {"u": user})[0])
    assert statuses == {"high": "current", "critical": "retracted"}
    event = AuditEvent.objects.get(action="fact.revert")
    assert event.actor == reviewer and event.before[old_uid] == "superseded" and event.after[old_uid] == "current"


def test_fact_pages_need_both_permissions(granted, staff):
    subject, _, _ = granted
    for perms in [("review_facts",), ("view_memory_content",)]:
        _, client = staff(*perms)
        assert client.get(f"/admin/review/facts/?user={subject.user_id}").status_code == 403
        assert client.get(f"/admin/review/facts/as-of/?user={subject.user_id}").status_code == 403
    _, client = staff("view_memory_content")
    assert client.post(f"/admin/review/facts/{subject.user_id}/x/revert/").status_code == 403
    assert not AuditEvent.objects.filter(action__startswith="fact.").exists()


def test_trace_list_tree_similar_and_delete(granted, staff, make_subject):
    subject, agent, _ = granted
    user = subject.user_id
    first, second = seed_memory(subject=subject, agent=agent), seed_memory(subject=subject, agent=agent, word="LLAMA")
    someone_else = make_subject()
    services.grant_create(subject=someone_else, agent=agent)
    other = seed_memory(subject=someone_else, agent=agent)
    _, client = staff("review_traces", "view_memory_content")
    listing = client.get(f"/admin/review/traces/?user={user}&outcome=success")
    assert listing.context["count"] == 2 and {r["user_id"] for r in listing.context["rows"]} == {user}
    assert client.get(f"/admin/review/traces/?user={user}&outcome=failure").context["count"] == 0

    detail = client.get(f"/admin/review/traces/{user}/{first['traces']}/")
    body = detail.content.decode()
    assert detail.status_code == 200 and 'id="trace-tree"' in body and "search ALPACA" in body
    assert "<code>search</code>" in body and "&quot;ALPACA&quot;" in body
    assert [t["trace"].uid for t in detail.context["similar"]] == [second["traces"]]  # never another user's
    assert client.get(f"/admin/review/traces/{user}/{other['traces']}/").status_code == 404

    url = f"/admin/review/traces/{user}/{first['traces']}/delete/"
    assert client.post(url, {"reason": ""}).status_code == 200  # a reason is required
    client.post(url, {"reason": "asked by the user"})
    assert db.cypher_query("MATCH (t:ReasoningTrace {user_id: $u}) RETURN count(t)", {"u": user})[0][0][0] == 1
    assert db.cypher_query("MATCH (n:ToolCall {user_id: $u}) RETURN count(n)", {"u": user})[0][0][0] == 1
    event = AuditEvent.objects.get(action="trace.delete")
    assert event.reason == "asked by the user" and event.before == {"nodes": 3}


def test_trace_pages_need_both_permissions(granted, staff):
    subject, agent, _ = granted
    uid = seed_memory(subject=subject, agent=agent)["traces"]
    _, client = staff("review_traces")
    assert client.get("/admin/review/traces/").status_code == 403
    assert client.get(f"/admin/review/traces/{subject.user_id}/{uid}/").status_code == 403
    _, client = staff("view_memory_content")
    assert client.post(f"/admin/review/traces/{subject.user_id}/{uid}/delete/", {"reason": "x"}).status_code == 403
    assert db.cypher_query("MATCH (t:ReasoningTrace) RETURN count(t)")[0][0][0] == 1


def test_issue_and_revoke_a_token_and_the_api_refuses_it(granted, staff, api_for):
    subject, agent, _ = granted
    _, outsider = staff("view_memory_content")
    assert outsider.get("/admin/memory/agent/").status_code == 403
    assert outsider.post(f"/admin/memory/agent/{agent.pk}/tokens/issue/", {"name": "x"}).status_code == 403
    manager, client = staff("manage_agents")
    assert client.get("/admin/memory/agent/").status_code == 200

    issued = client.post(f"/admin/memory/agent/{agent.pk}/tokens/issue/", {"name": "laptop"})
    secret = issued.context["secret"]
    assert issued.status_code == 200 and secret in issued.content.decode()
    token = AgentToken.objects.get(name="laptop")
    assert token.digest == AgentToken.digest_of(secret) and secret not in client.get(
        f"/admin/memory/agent/{agent.pk}/change/").content.decode()
    api = api_for(secret)
    assert _context(api, subject.user_id, "hello").status_code == 200

    revoke = f"/admin/memory/agent/{agent.pk}/tokens/{token.pk}/revoke/"
    assert outsider.post(revoke).status_code == 403
    assert client.get(revoke).status_code == 200 and _context(api, subject.user_id, "hello").status_code == 200
    client.post(revoke)
    refused = _context(api, subject.user_id, "hello")
    assert refused.status_code == 401 and "revoked" in refused.content.decode()
    events = list(AuditEvent.objects.filter(action__startswith="token.", actor__isnull=False).order_by("pk")
                  .values_list("action", "actor", "target_id"))
    assert events == [("token.issue", manager.pk, token.prefix), ("token.revoke", manager.pk, token.prefix)]
    assert not AuditEvent.objects.filter(after__icontains=secret.split("_", 2)[-1]).exists()

    services.access_queue_drain()  # what the worker's Beat task runs: the context reads are logged
    changelist = client.get("/admin/memory/agent/").context["cl"]
    row = next(r for r in changelist.result_list if r.pk == agent.pk)
    # The refused call carried no valid token, so it is nobody's: two calls, no errors.
    assert (changelist.model_admin.calls(row), changelist.model_admin.errors(row)) == (2, 0)
    assert row.context_reads == 2 and changelist.model_admin.last_use(row) is not None


def test_audit_log_filters_and_exports_csv_and_self_service_is_audited(granted, staff):
    subject, agent, _ = granted
    person = subject.account
    person.set_password("a-long-passphrase-9")
    person.save()
    from django.test import Client

    own = Client()
    own.force_login(person)
    own.post("/me/consent/", {"category": "history", "agent": "", "granted": "0"})
    own.post(f"/me/agents/{agent.agent_id}/pause/", {"action": "pause"})
    own.post(f"/me/agents/{agent.agent_id}/revoke/")
    _, outsider = staff("view_memory_content")
    assert outsider.get("/admin/review/audit/").status_code == 403
    assert outsider.get("/admin/review/audit/export.csv").status_code == 403
    _, client = staff("view_auditevent")
    page = client.get("/admin/review/audit/", {"user": person.email})
    actions = [e.action for e in page.context["events"]]
    assert actions == ["grant.revoke", "grant.pause", "consent.withdraw", "grant.create"]
    shown = page.content.decode()  # in words: who did what, for whom, to which agent; no key, id or ISO time
    assert all(words in shown for words in ("revoked an agent", "paused an agent", "withdrew consent",
                                           person.email, f"agent {agent.name}", "paused: <del>no</del> → <ins>yes</ins>"))
    assert "grant.pause" not in shown and agent.agent_id not in shown.replace(f'title="{agent.agent_id}"', "")
    assert [e.action for e in client.get("/admin/review/audit/", {"action": "grant.p"}).context["events"]] == [
        "grant.pause"]
    exported = client.get("/admin/review/audit/export.csv", {"action": "consent."})
    rows = list(csv.reader(io.StringIO(b"".join(exported.streaming_content).decode())))
    assert rows[0][2] == "action" and [r[2] for r in rows[1:]] == ["consent.withdraw"]
    assert subject.user_id not in b"".join(client.get("/admin/review/audit/export.csv").streaming_content).decode()
