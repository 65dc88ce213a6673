"""Forgetting one item is one service (memory.services.item_delete), and every path to it, the agent
API, the person's own pages and staff review, leaves its audit row with who did it."""

import pytest
from django.test import Client

from portal.models import AuditEvent, user_id_digest
from tests.support.api import say

pytestmark = pytest.mark.django_db


def _trace(api, user_id: str, task: str) -> str:
    started = api.post("/api/v1/traces", {"user_id": user_id, "session_id": "s1", "task": task}, format="json")
    uid = started.json()["uid"]
    api.post(f"/api/v1/traces/{uid}/steps", {"user_id": user_id, "thought": "look", "tool_calls": [
        {"tool_name": "search", "arguments": {"q": task}}]}, format="json")
    return uid


def test_every_path_that_forgets_an_item_writes_its_audit_row(granted, staff):
    subject, agent, api = granted
    user = subject.user_id
    by_api, by_person, by_staff = (_trace(api, user, task) for task in ("book a flight", "find a hotel", "rent a car"))
    message = say(api, user, "I live in Lisbon.")
    person = Client()
    person.force_login(subject.account)
    reviewer, review = staff("review_traces")

    assert api.delete(f"/api/v1/users/{user}/traces/{by_api}").json() == {"deleted": 3}
    assert person.post(f"/me/memory/traces/{by_person}/forget/").status_code == 302
    assert review.post(f"/admin/review/traces/{user}/{by_staff}/delete/", {"reason": "asked by phone"}
                       ).status_code == 302
    assert person.post(f"/me/memory/messages/{message}/forget/").status_code == 302

    events = AuditEvent.objects.filter(subject_digest=user_id_digest(user))
    traces = {(e.target_id, e.actor_label, e.before["nodes"], e.reason) for e in events.filter(action="trace.delete")}
    assert traces == {(by_api, f"agent:{agent.agent_id}", 3, ""), (by_person, subject.account.email, 3, ""),
                      (by_staff, reviewer.email, 3, "asked by phone")}
    forgotten = events.get(action="message.delete")
    assert (forgotten.target_id, forgotten.actor) == (message, subject.account)
    assert forgotten.before["nodes"] >= 2  # the message with the fact it alone gave


def test_a_missing_item_is_not_found_and_leaves_no_audit_row(granted):
    subject, _, api = granted
    assert api.delete(f"/api/v1/users/{subject.user_id}/traces/missing").status_code == 404
    assert not AuditEvent.objects.filter(action__endswith=".delete").exists()


def test_an_export_request_is_audited(granted):
    subject, _, _ = granted
    person = Client()
    person.force_login(subject.account)
    person.post("/me/export/")
    event = AuditEvent.objects.get(action="export.request")
    assert event.actor == subject.account and event.subject_digest == user_id_digest(subject.user_id)
