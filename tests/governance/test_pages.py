"""The "My memory" pages: overview, consent, agents, browse and forget, access log; each enforced."""

import pytest
from neomodel import db

from memory import services as memory_services
from memory.models import ConsentRecord, Grant, MemoryAccess
from memory.selectors import item_list

pytestmark = pytest.mark.django_db


def _append(api, user_id, content="Remember the blue door."):
    return api.post("/api/v1/conversations/s1/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": content}]}, format="json")


def test_pages_require_sign_in(client):
    for url in ["/me/", "/me/consent/", "/me/agents/", "/me/memory/facts/", "/me/access/", "/me/export/",
                "/me/erase/", "/me/delete-account/"]:
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response.url, url


def test_overview_counts_each_kind_and_lists_agents(person):
    p = person()
    page = p["client"].get("/me/")
    assert page.status_code == 200
    assert {kind: n for kind, _, n in page.context["counts"]} == {
        "conversations": 1, "messages": 2, "facts": 2, "preferences": 1, "entities": 2, "traces": 1}
    body = page.content.decode()
    assert p["agent"].name in body and "chat-ALPACA" in body
    assert page.context["withdrawn"] == []  # granting access consented to every category for that agent


def test_overview_says_which_agent_may_not_use_which_memory(person):
    p = person()
    p["client"].post("/me/consent/", {"category": "reasoning", "agent": p["agent"].agent_id, "granted": "0"})
    page = p["client"].get("/me/")
    assert page.context["withdrawn"] == [(p["agent"].name, "Reasoning traces")]
    assert f"{p['agent'].name} may not use your reasoning traces." in page.content.decode()


def test_withdrawing_consent_makes_the_api_refuse_and_offers_erasure(person):
    p = person()
    response = p["client"].post("/me/consent/", {"category": "history", "agent": "", "granted": "0"})
    assert response.status_code == 302 and response.url == "/me/consent/history/erase/"
    refused = _append(p["api"], p["subject"].user_id).json()
    assert refused["stored"] == 0 and refused["results"][0]["reason"] == "consent_withdrawn"
    offer = p["client"].get(response.url)
    assert "2 messages" in offer.content.decode()

    p["client"].post("/me/consent/", {"category": "history", "agent": p["agent"].agent_id, "granted": "1"})
    assert _append(p["api"], p["subject"].user_id).json()["stored"] == 1
    ledger = list(ConsentRecord.objects.filter(subject=p["subject"], category="history").order_by("pk")
                  .values_list("agent__agent_id", "granted", "actor"))
    assert ledger[-2:] == [(None, False, p["user"].pk), (p["agent"].agent_id, True, p["user"].pk)]
    page = p["client"].get("/me/consent/").content.decode()
    assert "withdrawn" in page and "granted" in page


def test_unknown_category_is_refused_with_a_message(person):
    p = person()
    response = p["client"].post("/me/consent/", {"category": "everything", "agent": "", "granted": "0"}, follow=True)
    assert "Unknown consent category" in response.content.decode()
    assert not ConsentRecord.objects.filter(subject=p["subject"], category="everything").exists()


def test_pausing_an_agent_blocks_reads_and_writes_until_resumed(person):
    p = person()
    p["client"].post(f"/me/agents/{p['agent'].agent_id}/pause/", {"action": "pause"})
    context = p["api"].post("/api/v1/context", {"user_id": p["subject"].user_id, "query": "door"}, format="json")
    assert context.status_code == 403 and context.json()["extra"]["paused"] is True
    assert _append(p["api"], p["subject"].user_id).status_code == 403
    p["client"].post(f"/me/agents/{p['agent'].agent_id}/pause/", {"action": "resume"})
    assert _append(p["api"], p["subject"].user_id).status_code == 201


def test_revoking_an_agent_asks_first(person):
    p = person()
    url = f"/me/agents/{p['agent'].agent_id}/revoke/"
    assert "Are you sure" in p["client"].get(url).content.decode()
    assert Grant.objects.get(subject=p["subject"]).revoked_at is None
    p["client"].post(url)
    assert Grant.objects.get(subject=p["subject"]).revoked_at is not None
    assert _append(p["api"], p["subject"].user_id).status_code == 403


@pytest.mark.parametrize("kind,text", [("messages", "I work at ALPACA Corp."), ("facts", "You work at ALPACA Corp"),
                                       ("preferences", "likes ALPACA"), ("entities", "ALPACAville"),
                                       ("traces", "look up ALPACA")])
def test_browse_lists_and_shows_each_kind(person, kind, text):
    p = person()
    listing = p["client"].get(f"/me/memory/{kind}/")
    assert text in listing.content.decode()
    detail = p["client"].get(f"/me/memory/{kind}/{p['items'][kind]}/")
    assert detail.status_code == 200


def test_search_finds_by_text(person):
    p = person()
    found = p["client"].get("/me/memory/messages/", {"q": "alpaca corp"}).context["page"]["items"]
    assert [m["uid"] for m in found] == [p["items"]["messages"]]
    assert p["client"].get("/me/memory/messages/", {"q": "zebra"}).context["page"]["items"] == []


def test_entity_page_draws_its_neighbourhood(person):
    p = person()
    page = p["client"].get(f"/me/memory/entities/{p['items']['entities']}/")
    neighbourhood = page.context["neighbourhood"]
    facts = item_list(user_id=p["subject"].user_id, kind="facts")["items"]  # both are about it
    drawn = {(n["caption"], n["title"]) for n in neighbourhood["drawing"]["nodes"]}
    assert ("is headquartered in", neighbourhood["related"][0]["entity"].name) in drawn
    assert {n["title"] for n in neighbourhood["drawing"]["nodes"] if n["kind"] == "fact"} == {
        f["text"] for f in neighbourhood["facts"]} and len(neighbourhood["facts"]) == len(facts)
    assert [n["caption"] for n in neighbourhood["drawing"]["nodes"]].count("mentioned in") == 1
    # Drawn on the server, without a script: labels are text a page can measure, one row each.
    rows = sorted(n["y"] for n in neighbourhood["drawing"]["nodes"] if n["anchor"] == "end")
    assert all(b - a >= 52 for a, b in zip(rows, rows[1:]))
    body = page.content.decode()
    assert 'class="neighbourhood-drawing"' in body and "cytoscape" not in body


def test_conversation_shows_its_messages_in_order(person):
    p = person()
    page = p["client"].get(f"/me/conversations/{p['items']['conversation']}/")
    assert [m["seq"] for m in page.context["conversation"]["messages"]] == [1, 2]


def test_forgetting_a_message_asks_then_deletes_what_derives_only_from_it(person):
    p = person()
    url = f"/me/memory/messages/{p['items']['messages']}/forget/"
    assert "Are you sure" in p["client"].get(url).content.decode()
    assert db.cypher_query("MATCH (m:Message {uid: $uid}) RETURN count(m)", {"uid": p["items"]["messages"]})[0][0][0] == 1
    response = p["client"].post(url, follow=True)
    assert "Forgotten" in response.content.decode()
    left = db.cypher_query("MATCH (n {user_id: $u}) RETURN labels(n)[0], count(n)", {"u": p["subject"].user_id})[0]
    counts = dict(left)
    assert "Fact" not in counts and "Preference" not in counts  # extracted from that message alone
    # The company was mentioned by that message alone; the reply mentions the city too, so it stays.
    assert counts["Message"] == 1 and counts["Entity"] == 1


def test_access_log_shows_which_agent_read_what(person):
    p = person()
    p["api"].post("/api/v1/context", {"user_id": p["subject"].user_id, "query": "Where do I work? ALPACA",
                                      "token_budget": 2000}, format="json")
    memory_services.access_queue_drain()  # what the worker's Beat task runs
    access = MemoryAccess.objects.get(subject=p["subject"])
    assert access.items
    page = p["client"].get("/me/access/").content.decode()
    assert p["agent"].name in page and access.items[0]["uid"][:10] in page
