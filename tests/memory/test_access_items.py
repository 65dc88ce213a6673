"""Where each memory was used: every context response is logged item by item with the turn it served, so a
person sees from any item which agents received it, how often and when last, and from a conversation which
memories each turn was given; another person's log never shows."""

from django.test import Client

from governance import selectors as governance_selectors
from memory import ingest, selectors, services
from memory.models import MemoryAccess, MemoryAccessItem


def append(api, subject, session_id: str, *texts: str) -> list[str]:
    response = api.post(f"/api/v1/conversations/{session_id}/messages", {
        "user_id": subject.user_id, "messages": [{"role": role, "content": text} for role, text in
                                                 zip(("user", "assistant") * len(texts), texts)]}, format="json")
    assert response.status_code == 201
    uids = [r["uid"] for r in response.json()["results"]]
    for uid in uids:
        assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    return uids


def ask(api, subject, session_id: str, query: str) -> dict:
    response = api.post("/api/v1/context", {"user_id": subject.user_id, "session_id": session_id, "query": query},
                        format="json")
    assert response.status_code == 200
    return response.json()


def test_each_context_is_logged_by_item_with_the_turn_it_served(make_subject, make_agent, api_for):
    subject = make_subject()
    helper, secret = make_agent()
    other, other_secret = make_agent()
    for agent in (helper, other):
        services.grant_create(subject=subject, agent=agent)
    api, other_api = api_for(secret), api_for(other_secret)
    # A fact the agent states itself, on a turn that shares nothing with the question: the fact is what answers.
    stated = api.post("/api/v1/conversations/earlier/messages", {"user_id": subject.user_id, "messages": [{
        "role": "user", "content": "Onboarding paperwork is done.", "facts": [
            {"subject": "user", "predicate": "EMPLOYED_BY", "object": "Acme Corp"}]}]}, format="json")
    ingest.message_extract(message_uid=stated.json()["results"][0]["uid"], user_id=subject.user_id)
    said = append(api, subject, "trip", "Off on a trip tomorrow.", "Have fun!")

    first = ask(api, subject, "trip", "Where do I work?")
    append(api, subject, "trip", "Which tea should I bring?", "Green tea, you like it.")
    second = ask(api, subject, "trip", "Where do I work again?")
    ask(other_api, subject, "trip", "Where do I work?")
    assert services.access_queue_drain() == 3  # what the worker's Beat task runs

    accesses = list(MemoryAccess.objects.filter(subject=subject, agent=helper).order_by("pk"))
    assert [a.turn_seq for a in accesses] == [3, 5]  # the seq the next message took: the turn served
    for access, response in zip(accesses, (first, second)):
        rows = list(MemoryAccessItem.objects.filter(access=access).order_by("pk").values_list("item_type", "uid",
                                                                                              "score"))
        assert rows == [(i["type"], i["id"], i["score"]) for i in response["items"]]
        assert access.items == [{"type": i["type"], "uid": i["id"], "score": i["score"]} for i in response["items"]]

    fact = next(f["uid"] for f in selectors.item_list(user_id=subject.user_id, kind="facts")["items"]
                if f["object"] == "Acme Corp")
    assert fact in {i["id"] for i in first["items"]}
    uses = {u["access__agent__agent_id"]: u for u in governance_selectors.item_uses(subject=subject, uid=fact)}
    assert set(uses) == {helper.agent_id, other.agent_id}
    assert uses[helper.agent_id]["times"] == sum(fact in {i["id"] for i in r["items"]} for r in (first, second))
    assert uses[other.agent_id]["last_at"] == MemoryAccess.objects.get(agent=other).created_at

    turns = governance_selectors.turn_contexts(subject=subject, session_id="trip")
    assert set(turns) == {3, 5}
    assert [c["agent"] for c in turns[3]] == [helper]
    assert {i["uid"] for i in turns[3][0]["items"]} == {i["id"] for i in first["items"]}
    assert said[0] in {i["uid"] for i in turns[5][0]["items"]}  # the first turn is history for the second
    named = {i["uid"]: i["text"] for i in turns[3][0]["items"]}
    assert named[fact].startswith("You work at Acme Corp")


def test_the_pages_show_who_used_an_item_and_what_each_turn_was_given_only_to_their_person(
        make_subject, make_agent, api_for):
    alice, bob = make_subject(), make_subject()
    agent, secret = make_agent()
    for subject in (alice, bob):
        services.grant_create(subject=subject, agent=agent)
    api = api_for(secret)
    append(api, alice, "chat", "I work at Acme Corp.", "Noted.")
    append(api, bob, "chat", "I work at Bolt Corp.", "Noted.")
    ask(api, alice, "chat", "Where do I work?")
    append(api, alice, "chat", "Thanks, where was that again?")
    ask(api, alice, "chat", "Where do I work?")  # for a turn not said yet
    ask(api, alice, "elsewhere", "Where do I work?")  # the fact, not the turn it came from, which is history in "chat"
    ask(api, bob, "chat", "Where do I work?")
    services.access_queue_drain()
    fact = next(f["uid"] for f in selectors.item_list(user_id=alice.user_id, kind="facts")["items"])
    conversation = selectors.conversation_list(user_id=alice.user_id)[0]["uid"]

    client = Client()
    client.force_login(alice.account)
    page = client.get(f"/me/memory/facts/{fact}/").content.decode()
    assert agent.name in page and 'id="uses"' in page
    turn = client.get(f"/me/conversations/{conversation}/").content.decode()
    assert 'data-turn="3"' in turn and 'data-turn="next"' in turn and "Acme Corp" in turn and "Bolt" not in turn
    # The access log: what each request was given, as text, linked to her items and to her conversation of
    # that session (Bob's has the same session id).
    log = client.get("/me/access/").content.decode()
    assert "You work at Acme Corp" in log and f"/me/memory/facts/{fact}/" in log
    assert f"/me/conversations/{conversation}/" in log and "Bolt" not in log

    client.force_login(bob.account)
    assert client.get(f"/me/memory/facts/{fact}/").status_code == 404
    assert client.get(f"/me/conversations/{conversation}/").status_code == 404
    bob_fact = next(f["uid"] for f in selectors.item_list(user_id=bob.user_id, kind="facts")["items"])
    assert not governance_selectors.item_uses(subject=alice, uid=bob_fact)
