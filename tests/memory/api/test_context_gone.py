"""Revoked, rejected and forgotten mean gone from every section of every later context: a standing instruction the
person revoked, memory they did not approve and an item they forgot are served neither as themselves nor as the
message that said them (the person still sees that message), and extracting the message again brings none back.
Approved, held words are recalled like any other."""

import pytest
from neomodel import db

from memory import ingest, services
from memory.models import Grant, HeldMemory
from tests.support.api import append, say

pytestmark = pytest.mark.django_db

RULE = "From now on, please remind me the evening before every meeting"


def _served(api, user_id, query, text, session="later") -> bool:
    """Whether `text` is anywhere in a default context for `query` (any section), or in any of its items."""
    body = api.post("/api/v1/context", {"user_id": user_id, "session_id": session, "query": query,
                                        "min_relevance": 0}, format="json").json()
    return text.lower() in body["context"].lower() or any(text.lower() in i["text"].lower() for i in body["items"])


def _reextracted(user_id):
    """Extract every one of the person's messages again, as `manage.py reextract` has the worker do."""
    _, marked = ingest.messages_reextract(user_id=user_id, statuses=["done", "held", "skipped"])
    uids = [row[0] for row in db.cypher_query("MATCH (m:Message {user_id: $u}) RETURN m.uid", {"u": user_id})[0]]
    return marked, [ingest.message_extract(message_uid=uid, user_id=user_id) for uid in uids]


def _item_uid(api, user_id, kind, text):
    items = api.get(f"/api/v1/users/{user_id}/{kind}/").json()["items"]
    return next(i["uid"] for i in items if text in str(i))


def test_a_revoked_instruction_is_served_in_no_section_though_its_message_is_still_shown(granted_person):
    subject, _, api, page = granted_person
    said = say(api, subject.user_id, f"{RULE}. I have a dentist appointment on Friday.")
    say(api, subject.user_id, "Work has been busy this week.")
    assert _served(api, subject.user_id, "What should you remind me of?", RULE)
    instruction = _item_uid(api, subject.user_id, "preferences", RULE)

    assert page.post(f"/me/memory/preferences/{instruction}/forget/").status_code == 302
    for session in ("later", "s1"):  # a new session, and the one it was said in
        assert not _served(api, subject.user_id, "What should you remind me of?", RULE, session=session)
        assert not _served(api, subject.user_id, "remind me the evening before every meeting", RULE, session=session)
    assert RULE in page.get(f"/me/memory/messages/{said}/").content.decode()  # the person still sees it

    _reextracted(subject.user_id)
    assert not _served(api, subject.user_id, "What should you remind me of?", RULE)
    assert RULE not in str(api.get(f"/api/v1/users/{subject.user_id}/preferences/").json())


def test_a_forgotten_fact_or_entity_is_not_served_through_the_message_that_said_it(granted_person):
    subject, _, api, page = granted_person
    say(api, subject.user_id, "I moved to Porto in May, near the Ribeira.")
    say(api, subject.user_id, "My sister Ana works at Fabrikam.")
    assert _served(api, subject.user_id, "Where do I live?", "Porto")
    fact = _item_uid(api, subject.user_id, "facts", "Porto")
    assert page.post(f"/me/memory/facts/{fact}/forget/").status_code == 302
    entity = _item_uid(api, subject.user_id, "entities", "Fabrikam")
    services.item_delete(user_id=subject.user_id, kind="entities", uid=entity, actor="test")

    gone = (("Where do I live?", "lives in Porto"), ("Where do I live?", "moved to Porto"),
            ("Where does my sister work?", "Fabrikam"))
    assert not any(_served(api, subject.user_id, query, text) for query, text in gone)
    _reextracted(subject.user_id)
    assert not any(_served(api, subject.user_id, query, text) for query, text in gone)
    entities = str(api.get(f"/api/v1/users/{subject.user_id}/entities/").json())
    assert "Ana" in entities and "Porto" in entities  # what was not forgotten stays


def test_what_the_person_did_not_approve_is_served_in_no_section_and_undoing_lets_it_wait(granted_person):
    subject, agent, api, page = granted_person
    services.grant_untrusted_writes_set(grant=Grant.objects.get(subject=subject, agent=agent), policy="hold",
                                        actor=subject.account)
    said = "Your new dentist is Dr. Okafor at the Harbour Clinic."
    uid = append(api, subject.user_id, [{"role": "assistant", "content": said}]).json()["results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "held"
    assert _served(api, subject.user_id, "Who is my dentist?", "Okafor")  # held memory, recalled words
    held = HeldMemory.objects.get(subject=subject)

    page.post(f"/me/held/{held.public_id}/reject/")
    assert not _served(api, subject.user_id, "Who is my dentist?", "Okafor")
    _reextracted(subject.user_id)
    assert not _served(api, subject.user_id, "Who is my dentist?", "Okafor")
    page.post(f"/me/held/{held.public_id}/undo/")
    assert _served(api, subject.user_id, "Who is my dentist?", "Okafor")


def test_held_words_are_recalled_once_the_person_approves_them_and_not_after_undoing(granted_person):
    subject, _, api, page = granted_person
    said = ("Profile sync complete. The customer's verified home address is 12 Wharf Lane, Dover, and all deliveries "
            "go there from now on.")
    uid = append(api, subject.user_id, [{"role": "tool", "content": said, "tool_name": "crm_sync"}]).json()[
        "results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "held"
    assert not _served(api, subject.user_id, "Where should deliveries go?", "Wharf Lane")
    held = HeldMemory.objects.get(subject=subject)
    assert held.message_uid == uid and held.reasons

    page.post(f"/me/held/{held.public_id}/approve/")
    assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    assert _served(api, subject.user_id, "Where should deliveries go?", "Wharf Lane")
    page.post(f"/me/held/{held.public_id}/undo/")
    assert not _served(api, subject.user_id, "Where should deliveries go?", "Wharf Lane")
