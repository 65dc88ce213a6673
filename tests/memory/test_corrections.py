"""Corrections through the agent API and the services: proposal, accept, reject, direct, undo, extraction."""

import io
from datetime import datetime, timedelta, timezone

import pytest
from django.core.management import call_command

from memory import ingest, selectors, services
from memory.models import SCOPES, Correction, Grant
from portal.models import AuditEvent
from tests.support.api import say

pytestmark = pytest.mark.django_db

SAID = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


def _say(client, user_id, content, *, facts=(), preferences=(), entities=(), said_at=SAID, session="s1") -> str:
    """Append one message carrying explicit memory through the API, and extract it as the worker would."""
    message = {"role": "user", "content": content, "created_at": said_at.isoformat()}
    for name, items in (("facts", facts), ("preferences", preferences), ("entities", entities)):
        if items:
            message[name] = list(items)
    response = client.post(f"/api/v1/conversations/{session}/messages", {"user_id": user_id, "messages": [message]},
                           format="json")
    assert response.status_code == 201, response.content
    uid = response.json()["results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"
    return uid


def _lives_in(city: str) -> dict:
    return {"subject": "Dana", "predicate": "LIVES_IN", "object": city, "cardinality": "single"}


def _uid(user_id, kind, **match) -> str:
    return next(item["uid"] for item in selectors.item_list(user_id=user_id, kind=kind)["items"]
                if all(item[k] == v for k, v in match.items()))


def _context(client, user_id, query="Where does Dana live?") -> str:
    """Return the long-term memory of the agent's context (the messages themselves still say what was said)."""
    response = client.post("/api/v1/context", {"user_id": user_id, "query": query, "include": {"history": False},
                                               "min_relevance": 0}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["context"]


def _correct(client, user_id, kind, uid, **value):
    return client.post(f"/api/v1/users/{user_id}/{kind}/{uid}/corrections", value, format="json")


@pytest.fixture
def dana(granted):
    subject, agent, client = granted
    message = _say(client, subject.user_id, "I live in Paris.", facts=[_lives_in("Paris")])
    return {"subject": subject, "agent": agent, "client": client, "message": message,
            "fact": _uid(subject.user_id, "facts", object="Paris")}


def test_the_persons_correction_is_what_the_agent_sees_and_extraction_does_not_bring_it_back(dana):
    subject, client = dana["subject"], dana["client"]
    assert "Paris" in _context(client, subject.user_id)
    correction = services.correction_create(subject=subject, kind="facts", uid=dana["fact"], value={"object": "Lyon"},
                                            actor=subject.account)
    assert correction.status == "applied" and correction.corrected_by == "the person"
    context = _context(client, subject.user_id)
    assert "Lyon" in context and "Paris" not in context
    wrong = selectors.item_get(user_id=subject.user_id, kind="facts", uid=dana["fact"])
    assert wrong["status"] == "retracted" and wrong["object"] == "Paris"  # kept as history, not in reads

    call_command("reextract", user=subject.user_id, status="done", stdout=io.StringIO())
    assert ingest.message_extract(message_uid=dana["message"], user_id=subject.user_id) == "done"
    # The same wrong statement said again later counts for the correction, not against it.
    _say(client, subject.user_id, "Still in Paris, as I said.", facts=[_lives_in("Paris")],
         said_at=SAID + timedelta(days=2))
    context = _context(client, subject.user_id)
    assert "Lyon" in context and "Paris" not in context
    version = selectors.item_get(user_id=subject.user_id, kind="facts", uid=correction.version_uid)
    assert version["status"] == "current" and version["object"] == "Lyon"
    assert version["corrected_by"] == "the person"  # its provenance, on the item itself


def test_a_correction_made_before_a_late_extraction_wins_as_one_made_after(granted):
    subject, _, client = granted
    early = _say(client, subject.user_id, "I live in Paris.", facts=[_lives_in("Paris")])
    fact = _uid(subject.user_id, "facts", object="Paris")
    moved = {"role": "user", "content": "Now I live in Berlin.", "facts": [_lives_in("Berlin")],
             "created_at": (SAID + timedelta(days=5)).isoformat()}
    later = client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [moved]},
                        format="json").json()["results"][0]["uid"]
    again = {"role": "user", "content": "Back in Paris now.", "facts": [_lives_in("Paris")],
             "created_at": (SAID + timedelta(days=9)).isoformat()}
    last = client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [again]},
                       format="json").json()["results"][0]["uid"]
    correction = services.correction_create(subject=subject, kind="facts", uid=fact, value={"object": "Lyon"},
                                            actor=subject.account)
    for uid in (last, later):  # extracted after the correction, in the wrong order
        assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    facts = {f["object"]: f for f in selectors.item_list(user_id=subject.user_id, kind="facts")["items"]}
    assert facts["Lyon"]["uid"] == correction.version_uid and facts["Lyon"]["status"] == "current"
    assert facts["Berlin"]["status"] == "superseded" and facts["Paris"]["status"] == "retracted"
    assert early


def test_a_proposal_waits_for_the_person_and_is_applied_on_accept(dana):
    subject, agent, client = dana["subject"], dana["agent"], dana["client"]
    response = _correct(client, subject.user_id, "facts", dana["fact"], object="Lyon", reason="She said Lyon.")
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "proposed" and response.json()["version_uid"] == ""
    assert "Paris" in _context(client, subject.user_id)
    correction = Correction.objects.get(public_id=response.json()["correction"])
    assert correction.agent == agent and correction.value == {"object": "Lyon"}
    services.correction_accept(correction=correction, actor=subject.account)
    assert "Lyon" in _context(client, subject.user_id)
    assert correction.corrected_by == f"agent {agent.agent_id}, accepted by the person"
    actions = list(AuditEvent.objects.filter(action__startswith="correction.").order_by("pk").values_list("action", flat=True))
    assert actions == ["correction.propose", "correction.accept"]
    event = AuditEvent.objects.get(action="correction.accept")
    assert "Lyon" not in str(event.after) and event.after["fields"] == ["object"]  # no content in the trail


def test_a_rejected_proposal_changes_nothing(dana):
    subject, client = dana["subject"], dana["client"]
    response = _correct(client, subject.user_id, "facts", dana["fact"], object="Lyon")
    correction = Correction.objects.get(public_id=response.json()["correction"])
    services.correction_reject(correction=correction, actor=subject.account)
    assert "Paris" in _context(client, subject.user_id)
    assert selectors.item_get(user_id=subject.user_id, kind="facts", uid=dana["fact"])["status"] == "current"
    with pytest.raises(services.CorrectionConflict):
        services.correction_accept(correction=correction, actor=subject.account)


def test_an_agent_the_person_allowed_corrects_directly_and_undo_brings_the_old_version_back(dana):
    subject, agent, client = dana["subject"], dana["agent"], dana["client"]
    Grant.objects.filter(subject=subject, agent=agent).update(may_correct=True)
    response = _correct(client, subject.user_id, "facts", dana["fact"], object="Lyon")
    assert response.status_code == 201 and response.json()["status"] == "applied"
    correction = Correction.objects.get(public_id=response.json()["correction"])
    # The agent's own correction is its word, not the person's: said so in the context and the item API.
    assert "- the agent's own note: Dana lives in Lyon" in _context(client, subject.user_id)
    version = selectors.item_get(user_id=subject.user_id, kind="facts", uid=correction.version_uid)
    assert version["source"] == "agent"
    services.correction_undo(correction=correction, actor=subject.account)
    context = _context(client, subject.user_id)
    assert "Paris" in context and "Lyon" not in context
    assert selectors.item_get(user_id=subject.user_id, kind="facts", uid=dana["fact"])["status"] == "current"
    with pytest.raises(Exception):
        selectors.item_get(user_id=subject.user_id, kind="facts", uid=correction.version_uid)
    assert list(AuditEvent.objects.filter(action__startswith="correction.").order_by("pk").values_list("action", flat=True)) == [
        "correction.apply", "correction.undo"]


def test_an_agents_own_correction_is_no_value_the_person_stated(dana):
    """The strict rule holds what would replace the person's own word; an agent's own correction is not theirs."""
    subject, agent, client = dana["subject"], dana["agent"], dana["client"]
    Grant.objects.filter(subject=subject, agent=agent).update(may_correct=True)
    assert _correct(client, subject.user_id, "facts", dana["fact"], object="Lyon").json()["status"] == "applied"
    say(client, subject.user_id, "Dana moved again.", session="s2", role="assistant", facts=[_lives_in("Madrid")])
    assert "Dana lives in Madrid" in _context(client, subject.user_id)


def test_validity_correction_ends_a_fact(dana):
    subject, client = dana["subject"], dana["client"]
    correction = services.correction_create(subject=subject, kind="facts", uid=dana["fact"],
                                            value={"valid_from": SAID.date() - timedelta(days=30),
                                                   "valid_until": SAID.date() + timedelta(days=3)},
                                            actor=subject.account)
    version = selectors.item_get(user_id=subject.user_id, kind="facts", uid=correction.version_uid)
    assert version["status"] == "superseded" and version["object"] == "Paris"
    assert str(version["valid_from"]) == str(SAID.date() - timedelta(days=30))
    assert str(version["valid_until"]) == str(SAID.date() + timedelta(days=3))
    assert "Paris" not in _context(client, subject.user_id)


def test_preference_and_entity_corrections_survive_reextraction(granted):
    subject, _, client = granted
    message = _say(client, subject.user_id, "I like green tea. I met Jon Smyth.",
                   preferences=[{"category": "drink", "preference": "likes green tea"}],
                   entities=[{"name": "Jon Smyth", "type": "PERSON"}])
    preference = _uid(subject.user_id, "preferences", preference="likes green tea")
    entity = _uid(subject.user_id, "entities", name="Jon Smyth")
    corrected = services.correction_create(subject=subject, kind="preferences", uid=preference,
                                           value={"preference": "likes black coffee", "category": "drinks"},
                                           actor=subject.account)
    services.correction_create(subject=subject, kind="entities", uid=entity,
                               value={"name": "John Smith", "aliases": ["Johnny"]}, actor=subject.account)
    call_command("reextract", user=subject.user_id, status="done", stdout=io.StringIO())
    assert ingest.message_extract(message_uid=message, user_id=subject.user_id) == "done"
    context = _context(client, subject.user_id, query="What does the person drink, and who is John Smith?")
    assert "black coffee" in context and "green tea" not in context
    assert selectors.item_get(user_id=subject.user_id, kind="preferences", uid=corrected.version_uid)["status"] \
        == "current"
    person = selectors.item_get(user_id=subject.user_id, kind="entities", uid=entity)
    assert (person["name"], person["aliases"]) == ("John Smith", ["Johnny"])


def test_bad_input_gets_the_one_error_shape(dana):
    subject, client = dana["subject"], dana["client"]
    response = _correct(client, subject.user_id, "facts", dana["fact"], colour="red")
    assert response.status_code == 400 and response.json()["extra"]["fields"] == {"colour": ["Unknown field."]}
    response = _correct(client, subject.user_id, "facts", dana["fact"], name="Lyon")
    assert response.status_code == 400 and "object" in response.json()["message"]
    response = _correct(client, subject.user_id, "messages", dana["message"], object="x")
    assert response.status_code == 400 and set(response.json()) == {"message", "extra"}
    future = (datetime.now(timezone.utc) + timedelta(days=3)).date().isoformat()
    response = _correct(client, subject.user_id, "facts", dana["fact"], valid_until=future)
    assert response.status_code == 400 and "valid_until" in response.json()["extra"]["fields"]
    assert not Correction.objects.exists()


def test_another_persons_item_is_404_and_refusals_are_403(dana, make_subject, make_agent, api_for):
    subject, client = dana["subject"], dana["client"]
    other = make_subject()
    agent, secret = make_agent()
    services.grant_create(subject=other, agent=agent)
    other_client = api_for(secret)
    _say(other_client, other.user_id, "I live in Rome.", facts=[_lives_in("Rome")])
    rome = _uid(other.user_id, "facts", object="Rome")
    missing = _correct(client, subject.user_id, "facts", "no-such-uid", object="Lyon")
    guessed = _correct(client, subject.user_id, "facts", rome, object="Lyon")
    assert guessed.status_code == missing.status_code == 404 and guessed.json() == missing.json()

    limited, limited_secret = make_agent(scopes=[s for s in SCOPES if s != "memory:correct"])
    services.grant_create(subject=subject, agent=limited)
    response = _correct(api_for(limited_secret), subject.user_id, "facts", dana["fact"], object="Lyon")
    assert response.status_code == 403 and "memory:correct" in response.json()["message"]

    grant = Grant.objects.get(subject=subject, agent=dana["agent"])
    grant.paused_at = SAID
    grant.save()
    assert _correct(client, subject.user_id, "facts", dana["fact"], object="Lyon").status_code == 403
    services.grant_revoke(subject=subject, agent=dana["agent"])
    assert _correct(client, subject.user_id, "facts", dana["fact"], object="Lyon").status_code == 403
    assert not Correction.objects.exists()
    assert selectors.item_get(user_id=other.user_id, kind="facts", uid=rome)["object"] == "Rome"


def test_forgetting_a_corrected_item_forgets_its_corrections(dana):
    subject, client = dana["subject"], dana["client"]
    correction = services.correction_create(subject=subject, kind="facts", uid=dana["fact"], value={"object": "Lyon"},
                                            actor=subject.account)
    response = client.delete(f"/api/v1/users/{subject.user_id}/facts/{correction.version_uid}")
    assert response.status_code == 200
    assert not Correction.objects.filter(subject=subject).exists()  # its values went with the item
    assert "Lyon" not in _context(client, subject.user_id)


def _timeline(user_id) -> dict:
    return {(f["object"], f["status"], str(f["valid_from"]), str(f["valid_until"]))
            for f in selectors.item_list(user_id=user_id, kind="facts")["items"]}


@pytest.mark.parametrize("correct_first", [True, False])
def test_the_graph_is_the_same_whether_the_correction_came_before_or_after_extraction(
        make_subject, make_agent, api_for, correct_first):
    subject = make_subject()
    agent, secret = make_agent()
    services.grant_create(subject=subject, agent=agent)
    client = api_for(secret)
    _say(client, subject.user_id, "I live in Paris.", facts=[_lives_in("Paris")])
    fact = _uid(subject.user_id, "facts", object="Paris")
    said = [("Now I live in Berlin.", "Berlin", 5), ("Back in Paris.", "Paris", 9)]
    uids = [client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": text, "facts": [_lives_in(city)],
         "created_at": (SAID + timedelta(days=days)).isoformat()}]}, format="json").json()["results"][0]["uid"]
        for text, city, days in said]

    def correct():
        services.correction_create(subject=subject, kind="facts", uid=fact, value={"object": "Lyon"},
                                   actor=subject.account)

    if correct_first:
        correct()
    for uid in reversed(uids):
        assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    if not correct_first:
        correct()
    assert _timeline(subject.user_id) == {
        ("Paris", "retracted", str(SAID), "None"),
        ("Lyon", "current", str(SAID), "None"),
        ("Berlin", "superseded", str(SAID + timedelta(days=5)), str(SAID + timedelta(days=9))),
    }


def test_undoing_preference_and_entity_corrections_restores_them_and_reject_is_audited(granted):
    subject, _, client = granted
    _say(client, subject.user_id, "I like green tea. I met Jon Smyth.",
         preferences=[{"category": "drink", "preference": "likes green tea"}],
         entities=[{"name": "Jon Smyth", "type": "PERSON", "aliases": ["Jonny"]}])
    preference = _uid(subject.user_id, "preferences", preference="likes green tea")
    entity = _uid(subject.user_id, "entities", name="Jon Smyth")
    tea = services.correction_create(subject=subject, kind="preferences", uid=preference,
                                     value={"preference": "likes black coffee"}, actor=subject.account)
    first = services.correction_create(subject=subject, kind="entities", uid=entity,
                                       value={"name": "John Smith", "aliases": []}, actor=subject.account)
    second = services.correction_create(subject=subject, kind="entities", uid=entity, value={"type": "ORGANIZATION"},
                                        actor=subject.account)
    with pytest.raises(services.CorrectionConflict):
        services.correction_undo(correction=first, actor=subject.account)  # the later one goes first
    services.correction_undo(correction=second, actor=subject.account)
    person = selectors.item_get(user_id=subject.user_id, kind="entities", uid=entity)
    assert (person["name"], person["type"], person["aliases"]) == ("John Smith", "PERSON", [])
    services.correction_undo(correction=first, actor=subject.account)
    person = selectors.item_get(user_id=subject.user_id, kind="entities", uid=entity)
    assert (person["name"], person["type"], person["aliases"]) == ("Jon Smyth", "PERSON", ["Jonny"])
    services.correction_undo(correction=tea, actor=subject.account)
    context = _context(client, subject.user_id, query="What does the person drink?")
    assert "green tea" in context and "black coffee" not in context

    proposal = _correct(client, subject.user_id, "entities", entity, name="Jon Smith").json()["correction"]
    services.correction_reject(correction=Correction.objects.get(public_id=proposal), actor=subject.account)
    assert AuditEvent.objects.filter(action="correction.reject", target_id=entity).count() == 1
    assert selectors.item_get(user_id=subject.user_id, kind="entities", uid=entity)["name"] == "Jon Smyth"

    # A proposal accepted after the item changed is undone to what it was when accepted.
    late = _correct(client, subject.user_id, "entities", entity, name="J. Smyth").json()["correction"]
    services.correction_create(subject=subject, kind="entities", uid=entity, value={"name": "Jonathan Smyth"},
                               actor=subject.account)
    late = services.correction_accept(correction=Correction.objects.get(public_id=late), actor=subject.account)
    assert late.previous == {"name": "Jonathan Smyth"}
    services.correction_undo(correction=late, actor=subject.account)
    assert selectors.item_get(user_id=subject.user_id, kind="entities", uid=entity)["name"] == "Jonathan Smyth"


def test_an_entity_cannot_be_corrected_into_another_of_the_same_type_and_name(granted):
    subject, _, client = granted
    _say(client, subject.user_id, "Jordan is my friend; Jordan is also where I travel.",
         entities=[{"name": "Jordan", "type": "PERSON"}, {"name": "Jordan", "type": "LOCATION"}])
    person = _uid(subject.user_id, "entities", type="PERSON")
    Grant.objects.filter(subject=subject).update(may_correct=True)
    response = _correct(client, subject.user_id, "entities", person, type="LOCATION")
    assert response.status_code == 409 and set(response.json()) == {"message", "extra"}
    assert selectors.item_get(user_id=subject.user_id, kind="entities", uid=person)["type"] == "PERSON"
    assert Correction.objects.filter(status="applied").count() == 0
