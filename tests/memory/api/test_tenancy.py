"""Another user's or another agent's memory never shows, on any endpoint, ids guessed included."""

import pytest
from neomodel import db

from memory import ingest, selectors, services
from memory.kinds import BY_NAME

pytestmark = pytest.mark.django_db

KINDS = list(BY_NAME)


def _seed(client, user_id, word):
    """Write one item of every kind for a subject through the API, extracting as the worker would; return their uids.

    The message carries its memory explicitly (an entity, a fact about it, a preference), as an agent may send it.
    """
    appended = client.post("/api/v1/conversations/shared-session/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": f"My secret word is {word}.", "entities": [{"name": word, "type": "OBJECT"}],
         "facts": [{"subject": "secret word", "predicate": "IS", "object": word}],
         "preferences": [{"category": "secret", "preference": f"likes {word}"}]}]}, format="json").json()
    message_uid = appended["results"][0]["uid"]
    assert ingest.message_extract(message_uid=message_uid, user_id=user_id) == "done"
    trace_uid = client.post("/api/v1/traces", {"user_id": user_id, "session_id": "shared-session",
                                               "task": f"remember {word}"}, format="json").json()["uid"]
    client.post(f"/api/v1/traces/{trace_uid}/complete", {"user_id": user_id, "outcome": word, "success": True},
                format="json")
    [fact], [preference], [entity] = (selectors.item_list(user_id=user_id, kind=kind)["items"]
                                      for kind in ("facts", "preferences", "entities"))
    return {"messages": message_uid, "facts": fact["uid"], "preferences": preference["uid"], "entities": entity["uid"],
            "traces": trace_uid}


@pytest.fixture
def two_tenants(make_subject, make_agent, api_for):
    """Alice granted agent A; Bob granted agent B. Both wrote memory in a session with the same id."""
    alice, bob = make_subject(), make_subject()
    agent_a, secret_a = make_agent()
    agent_b, secret_b = make_agent()
    services.grant_create(subject=alice, agent=agent_a)
    services.grant_create(subject=bob, agent=agent_b)
    client_a, client_b = api_for(secret_a), api_for(secret_b)
    return {
        "alice": alice, "bob": bob, "client_a": client_a, "client_b": client_b,
        "alice_items": _seed(client_a, alice.user_id, "ALPACA"),
        "bob_items": _seed(client_b, bob.user_id, "BUFFALO"),
    }


def test_context_never_returns_another_users_memory(two_tenants):
    t = two_tenants
    response = t["client_a"].post("/api/v1/context", {
        "user_id": t["alice"].user_id, "session_id": "shared-session", "query": "What is my secret word BUFFALO?",
        "token_budget": 4000}, format="json")
    body = response.json()
    assert response.status_code == 200
    assert "ALPACA" in body["context"] and "BUFFALO" not in body["context"].replace("BUFFALO?", "")
    bob_ids = set(t["bob_items"].values())
    assert not bob_ids & {item["id"] for item in body["items"]}


@pytest.mark.parametrize("kind", KINDS)
def test_lists_hold_only_the_subjects_items(two_tenants, kind):
    t = two_tenants
    page = t["client_a"].get(f"/api/v1/users/{t['alice'].user_id}/{kind}/").json()
    uids = {item["uid"] for item in page["items"]}
    assert t["alice_items"][kind] in uids and t["bob_items"][kind] not in uids


@pytest.mark.parametrize("kind", KINDS)
def test_another_users_item_id_is_not_found_under_ones_own_user(two_tenants, kind):
    t = two_tenants
    url = f"/api/v1/users/{t['alice'].user_id}/{kind}/{t['bob_items'][kind]}"
    missing = f"/api/v1/users/{t['alice'].user_id}/{kind}/no-such-id"
    guessed, absent = t["client_a"].get(url), t["client_a"].get(missing)
    assert guessed.status_code == absent.status_code == 404
    assert guessed.json() == absent.json()
    assert t["client_a"].delete(url).status_code == 404
    assert t["client_b"].get(f"/api/v1/users/{t['bob'].user_id}/{kind}/{t['bob_items'][kind]}").status_code == 200


@pytest.mark.parametrize("method, path, body", [
    ("post", "/api/v1/context", {"query": "secret"}),
    ("post", "/api/v1/conversations/shared-session/messages", {"messages": [{"role": "user", "content": "x"}]}),
    ("post", "/api/v1/traces", {"session_id": "s", "task": "t"}),
    ("get", "/api/v1/users/{user_id}/messages/", None),
    ("get", "/api/v1/users/{user_id}/facts/{fact}", None),
    ("delete", "/api/v1/users/{user_id}/messages/{message}", None),
])
def test_an_agent_cannot_act_for_a_user_who_did_not_grant_it(two_tenants, method, path, body):
    t = two_tenants
    bob = t["bob"].user_id
    url = path.format(user_id=bob, fact=t["bob_items"]["facts"], message=t["bob_items"]["messages"])
    payload = {**body, "user_id": bob} if body is not None else None
    response = getattr(t["client_a"], method)(url, payload, format="json") if payload else getattr(t["client_a"], method)(url)
    assert response.status_code == 403
    assert response.json()["message"] == "This agent has no access to that user's memory."


def test_trace_of_another_user_cannot_be_extended_or_completed(two_tenants):
    t = two_tenants
    bob_trace = t["bob_items"]["traces"]
    alice = t["alice"].user_id
    step = t["client_a"].post(f"/api/v1/traces/{bob_trace}/steps", {"user_id": alice, "thought": "x"}, format="json")
    done = t["client_a"].post(f"/api/v1/traces/{bob_trace}/complete", {"user_id": alice, "outcome": "x",
                                                                       "success": False}, format="json")
    assert step.status_code == done.status_code == 404
    rows, _ = db.cypher_query("MATCH (t:ReasoningTrace {uid: $u})-[:HAS_STEP]->(s) RETURN count(s)", {"u": bob_trace})
    assert rows[0][0] == 0


def test_an_id_no_one_can_have_is_refused_like_a_stranger_in_a_path_and_named_in_a_body(two_tenants):
    """A NUL byte in a user id (PostgreSQL cannot even be asked about it): in a path it is any unknown id; in a
    body the field is named."""
    client = two_tenants["client_a"]
    in_path = client.get("/api/v1/users/alice%00/facts/")
    assert in_path.status_code == 403 and in_path.json()["message"] == "This agent has no access to that user's memory."
    in_body = client.post("/api/v1/context", {"query": "secret", "user_id": "alice\x00"}, format="json")
    assert in_body.status_code == 400 and "user_id" in in_body.json()["extra"]["fields"]
