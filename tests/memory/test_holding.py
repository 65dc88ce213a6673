"""Memory the agent or its tools want to add, held for the person: nothing of it in the graph or any context until
they approve; approve, reject and undo audited; the agent's policy; the person's own words never held."""

import pytest
from django.test import Client

from memory import ingest, services
from memory.models import Grant, HeldMemory
from memory.trust import claim_reason
from portal.models import AuditEvent
from tests.support.api import append, say

pytestmark = pytest.mark.django_db
IBAN = "DE89 3704 0044 0532 0130 00"


def _agent_says(api, user_id, content, role="assistant", **fields) -> tuple[str, str]:
    """Append one message of the agent's (or a tool's) and run its extraction; return its uid and what happened."""
    response = append(api, user_id, [{"role": role, "content": content, **fields}])
    assert response.status_code == 201, response.json()
    uid = response.json()["results"][0]["uid"]
    return uid, ingest.message_extract(message_uid=uid, user_id=user_id)


def _facts(api, user_id) -> set[str]:
    return {f["object"] for f in api.get(f"/api/v1/users/{user_id}/facts/").json()["items"]
            if f["status"] == "current"}


def _context(api, user_id, query) -> str:
    return api.post("/api/v1/context", {"user_id": user_id, "session_id": "s9", "query": query},
                    format="json").json()["context"]


def test_a_planted_account_waits_for_the_person_and_approve_undo_and_reject_hold(granted_person):
    subject, _, api, page = granted_person
    uid, outcome = _agent_says(api, subject.user_id, "Noted.",
                               facts=[{"subject": "user", "predicate": "HAS_IBAN", "object": IBAN}])
    assert outcome == "held" and _facts(api, subject.user_id) == set()
    assert IBAN not in _context(api, subject.user_id, "What is my IBAN?")
    held = HeldMemory.objects.get(subject=subject)
    assert held.status == "held" and claim_reason(["payment"]) in held.reasons and held.source == "agent"
    assert "Decide on 1 thing an agent wanted to add to your memory." in page.get("/me/").content.decode()
    listed = page.get("/me/held/").content.decode()
    assert IBAN in listed and "the agent’s own note" in listed and "HAS_IBAN" not in listed

    page.post(f"/me/held/{held.public_id}/approve/")
    assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    assert _facts(api, subject.user_id) == {IBAN} and IBAN in _context(api, subject.user_id, "What is my IBAN?")

    page.post(f"/me/held/{held.public_id}/undo/")
    assert _facts(api, subject.user_id) == set() and HeldMemory.objects.get(pk=held.pk).status == "held"
    page.post(f"/me/held/{held.public_id}/reject/")
    ingest.messages_reextract(user_id=subject.user_id, statuses=["skipped"])
    assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "skipped"  # the decision stands
    assert _facts(api, subject.user_id) == set()
    assert [e.action for e in AuditEvent.objects.filter(action__startswith="held.").order_by("pk")] == [
        "held.approve", "held.undo", "held.reject"]
    assert all(IBAN not in str(e.before) + str(e.after) for e in AuditEvent.objects.all())  # no content

    services.item_delete(user_id=subject.user_id, kind="messages", uid=uid, actor="test")
    assert not HeldMemory.objects.filter(subject=subject).exists()  # forgetting the message forgets what it held


def test_the_persons_own_words_and_the_agent_relaying_them_are_never_held(granted_person):
    subject, _, api, _ = granted_person
    say(api, subject.user_id, "I work at Contoso Bank.")
    say(api, subject.user_id, "My new account is DE89 3704 0044 0532 0130 00.",
        facts=[{"subject": "user", "predicate": "HAS_IBAN", "object": IBAN}])
    assert _facts(api, subject.user_id) >= {"Contoso Bank", IBAN}
    assert not HeldMemory.objects.exists()


def test_a_value_replacing_what_the_person_said_waits(granted_person):
    subject, _, api, _ = granted_person
    say(api, subject.user_id, "I work at Contoso Bank.")
    _, outcome = _agent_says(api, subject.user_id, "Updated your employer.",
                             facts=[{"subject": "user", "predicate": "EMPLOYED_BY", "object": "Evil Corp",
                                     "cardinality": "single"}])
    assert outcome == "held" and _facts(api, subject.user_id) == {"Contoso Bank"}
    assert "would replace what you said yourself" in HeldMemory.objects.get(subject=subject).reasons


def test_the_persons_policy_holds_or_drops_what_the_agent_adds(granted_person):
    subject, agent, api, _ = granted_person
    grant = Grant.objects.get(subject=subject, agent=agent)
    services.grant_untrusted_writes_set(grant=grant, policy="hold", actor=subject.account)
    _, outcome = _agent_says(api, subject.user_id, "Weather in Lisbon: sunny.", role="tool", tool_name="weather",
                             facts=[{"subject": "Lisbon", "predicate": "HAS_WEATHER", "object": "sunny"}])
    assert outcome == "held" and HeldMemory.objects.get(subject=subject).tool_name == "weather"
    services.grant_untrusted_writes_set(grant=Grant.objects.get(pk=grant.pk), policy="drop", actor=subject.account)
    _, outcome = _agent_says(api, subject.user_id, "Weather in Porto: rain.", role="tool",
                             facts=[{"subject": "Porto", "predicate": "HAS_WEATHER", "object": "rain"}])
    assert outcome == "skipped" and _facts(api, subject.user_id) == set() and HeldMemory.objects.count() == 1
    say(api, subject.user_id, "I work at Contoso Bank.")  # the person's own words apply whatever the policy
    assert _facts(api, subject.user_id) == {"Contoso Bank"}


def test_another_persons_held_memory_cannot_be_seen_or_decided(granted_person, make_subject):
    subject, _, api, _ = granted_person
    _agent_says(api, subject.user_id, "Noted.", facts=[{"subject": "user", "predicate": "HAS_IBAN", "object": IBAN}])
    held = HeldMemory.objects.get(subject=subject)
    stranger = Client()
    stranger.force_login(make_subject().account)
    assert IBAN not in stranger.get("/me/held/").content.decode()
    assert stranger.post(f"/me/held/{held.public_id}/approve/").status_code == 404
    assert HeldMemory.objects.get(pk=held.pk).status == "held"


def test_a_reviewer_sees_the_held_queue_and_its_count_and_decides(granted_person, staff):
    subject, _, api, _ = granted_person
    uid, _ = _agent_says(api, subject.user_id, "Noted.",
                         facts=[{"subject": "user", "predicate": "HAS_IBAN", "object": IBAN}])
    _, client = staff("review_facts", "view_memory_content")
    assert "Held memory" in client.get("/admin/").content.decode()
    queue = client.get("/admin/review/held/")
    assert queue.context["count"] == 1 and IBAN in queue.content.decode()
    held = HeldMemory.objects.get(subject=subject)
    client.post(f"/admin/review/held/{held.public_id}/approve/")
    assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    assert _facts(api, subject.user_id) == {IBAN}
    _, denied = staff("review_facts")
    assert denied.get("/admin/review/held/").status_code == 403


def test_each_item_says_whose_words_it_is(granted_person):
    subject, _, api, page = granted_person
    say(api, subject.user_id, "I work at Contoso Bank.")
    uid, _ = _agent_says(api, subject.user_id, "Lisbon is sunny today.", role="tool", tool_name="weather",
                         facts=[{"subject": "Lisbon", "predicate": "HAS_WEATHER", "object": "sunny"}])
    facts = {f["object"]: f for f in api.get(f"/api/v1/users/{subject.user_id}/facts/").json()["items"]}
    assert (facts["Contoso Bank"]["source"], facts["sunny"]["source"]) == ("person", "agent")
    detail = page.get(f"/me/memory/facts/{facts['sunny']['uid']}/").content.decode()
    assert "Where it came from" in detail and "the agent’s own note" in detail
    corrected = services.correction_create(subject=subject, kind="facts", uid=facts["Contoso Bank"]["uid"],
                                           value={"object": "Fabrikam"}, actor=subject.account)
    version = api.get(f"/api/v1/users/{subject.user_id}/facts/{corrected.version_uid}").json()
    assert version["source"] == "correction"
