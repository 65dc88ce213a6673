"""adopt_nam on the graph neo4j-agent-memory 0.8.0 wrote (tests/fixtures/nam_graph.json)."""

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client, override_settings
from neomodel import db

from governance.selectors import export_path
from governance.services import export_build, export_request
from memory import services
from memory.embeddings import int8_copy
from memory.models import Subject
from memory.selectors import unowned_counts
from tests.fixtures.nam import nam_adopt, nam_graph_load, nam_people

pytestmark = pytest.mark.django_db
IDENTIFIERS = ("nam-alice", "nam-bob", "nam-carol")
REVIEW_PERMISSIONS = ("review_merges", "review_facts", "review_traces", "view_memory_content", "view_auditevent")


def graph_snapshot() -> list:
    """Return every node's labels and properties and every relationship, in a stable order."""
    nodes, _ = db.cypher_query("MATCH (n) WHERE NOT n:PortalTestSuite "
                               "RETURN labels(n), properties(n), elementId(n)")
    rels, _ = db.cypher_query("MATCH (a)-[r]->(b) RETURN elementId(a), type(r), properties(r), elementId(b)")
    return sorted(repr(row) for row in nodes) + sorted(repr(row) for row in rels)


def test_dry_run_reports_by_label_and_person_and_changes_nothing():
    graph = nam_graph_load()
    people = nam_people(graph)
    before = graph_snapshot()

    report = nam_adopt("--dry-run")
    out = io.StringIO()
    call_command("adopt_nam", "--dry-run", stdout=out)

    assert graph_snapshot() == before
    lines = out.getvalue().splitlines()
    assert lines[0] == "Would adopt (dry run):"
    messages = ", ".join(f"{i}: {len(people[i]['messages'])}" for i in IDENTIFIERS)
    assert any(line.split()[:2] == ["Message", str(sum(len(p["messages"]) for p in people.values()))]
               and line.endswith(f"({messages})") for line in lines)
    assert "Cannot own 1 (left as they are):" in lines
    assert Subject.objects.count() == 0
    assert report["dry_run"] is True
    assert [(s["identifier"], s["user_id"], s["new"]) for s in report["subjects"]] == [
        (i, i, True) for i in IDENTIFIERS]
    assert report["adopted"]["Message"] == {i: len(people[i]["messages"]) for i in IDENTIFIERS}
    assert report["adopted"]["Entity"] == {i: len(people[i]["entities"]) for i in IDENTIFIERS}
    assert report["adopted"]["Preference"] == {i: len(people[i]["preferences"]) for i in IDENTIFIERS}
    assert report["adopted"]["ReasoningTrace"] == {"nam-bob": 1}
    shared = sum(len([i for i in IDENTIFIERS if name in people[i]["entities"]]) - 1
                 for name in {n for i in IDENTIFIERS for n in people[i]["entities"]})
    assert report["copies"]["Entity"] == shared > 0
    # The fact about no NAM user has no source either: reported, not guessed.
    assert [(row["label"], row["reason"]) for row in report["unowned"]] == [
        ("Fact", "it has no source message and its subject names no NAM user")]
    assert report["not_memory"] == {"SchemaMigration": 2, "Tool": 1}
    assert unowned_counts()["Message"] == sum(len(p["messages"]) for p in people.values())


def test_adopt_owns_every_node_it_can_and_a_rerun_changes_nothing():
    nam_graph_load()
    report = nam_adopt()
    assert report["dry_run"] is False
    assert unowned_counts() == {"Fact": 1}
    missing, _ = db.cypher_query("MATCH (n) WHERE n.user_id IS NOT NULL AND (n.uid IS NULL OR n.nam_id IS NULL) "
                                 "RETURN count(n)")
    assert missing[0][0] == 0
    # seq follows each conversation's NEXT_MESSAGE chain from 1, and last_seq is its length.
    chains, _ = db.cypher_query(
        "MATCH (c:Conversation)-[:FIRST_MESSAGE]->(f) MATCH p = (f)-[:NEXT_MESSAGE*0..]->(l) "
        "WHERE NOT (l)-[:NEXT_MESSAGE]->() RETURN c.last_seq, [m IN nodes(p) | m.seq], "
        "[m IN nodes(p) | m.user_id = c.user_id]")
    for last_seq, seqs, same_owner in chains:
        assert seqs == list(range(1, last_seq + 1)) and all(same_owner)
    shared, _ = db.cypher_query("MATCH (e:Entity) WITH e.nam_id AS nam_id, collect(e.user_id) AS owners "
                                "WHERE size(owners) > 1 RETURN nam_id, owners")
    assert shared and all(len(set(owners)) == len(owners) for _, owners in shared)
    cross, _ = db.cypher_query("MATCH (m:Message)-[:MENTIONS]->(e:Entity) WHERE m.user_id <> e.user_id "
                               "RETURN count(*)")
    assert cross[0][0] == 0
    # NAM's entity provenance (Entity)-[:EXTRACTED_FROM]->(Message) is the portal's MENTIONS.
    sourced, _ = db.cypher_query("MATCH (:Entity)-[r:EXTRACTED_FROM]->() RETURN count(r)")
    summit, _ = db.cypher_query("MATCH (m:Message)-[:MENTIONS]->(:Entity {name: 'Web Summit 2026'}) "
                                "RETURN m.user_id, m.content")
    assert sourced[0][0] == 0 and summit == [["nam-carol", "Web Summit 2026, in November."]]
    labels, _ = db.cypher_query("MATCH (e:Entity) RETURN collect(DISTINCT labels(e))")
    assert labels[0][0] == [["Entity"]]
    dims, _ = db.cypher_query("MATCH (m:Message) RETURN collect(DISTINCT size(m.embedding))")
    assert dims[0][0] == [384]
    # Each adopted message's vector has its copy in signed bytes, which recall scans.
    vectors, _ = db.cypher_query("MATCH (m:Message) RETURN m.embedding, m.embedding_int8")
    assert vectors and all(bytes(copy) == int8_copy(vector) for vector, copy in vectors)

    after = graph_snapshot()
    again = nam_adopt()
    assert graph_snapshot() == after
    assert again["adopted"] == {} and again["subjects"] == [
        {"identifier": i, "user_id": i, "new": False} for i in IDENTIFIERS]
    assert [row["label"] for row in again["unowned"]] == ["Fact"]
    assert Subject.objects.count() == 3


REVIEW_PAGES = ("/admin/", "/admin/review/", "/admin/review/merges/", "/admin/review/merges/decided/",
                "/admin/review/traces/", "/admin/review/facts/", "/admin/review/audit/")


def test_review_pages_answer_on_unowned_nodes_and_after_adoption(staff):
    nam_graph_load()
    _, client = staff(*REVIEW_PERMISSIONS)
    for url in REVIEW_PAGES:
        assert client.get(url).status_code == 200, url
    index = client.get("/admin/review/").content.decode()
    assert "Unowned memory" in index and "Message" in index

    nam_adopt()
    for url in REVIEW_PAGES:
        assert client.get(url).status_code == 200, url
    timeline = client.get("/admin/review/facts/?user=nam-alice&subject=user")
    assert timeline.status_code == 200 and "<h3>works at</h3>" in timeline.content.decode()
    merges = client.get("/admin/review/merges/").content.decode()
    assert "Web Summit 2026" in merges
    # NAM's pending SAME_AS is now one person's proposal, decided like any other.
    pair, _ = db.cypher_query("MATCH (a:Entity)-[s:SAME_AS {status: 'pending'}]->(b:Entity) "
                              "RETURN a.user_id, a.uid, b.uid, b.user_id")
    (user_id, from_uid, into_uid, into_owner), = pair
    assert user_id == into_owner == "nam-carol"
    response = client.post("/admin/review/merges/approve/", {"decide": f"{user_id}|{from_uid}>{into_uid}"})
    assert response.status_code == 302
    decided, _ = db.cypher_query("MATCH ()-[s:SAME_AS]->(b:Entity {uid: $uid}) RETURN s.status, b.aliases",
                                 {"uid": into_uid})
    assert decided == [["confirmed", ["Web Summit 2026"]]]
    traces = client.get("/admin/review/traces/?user=nam-bob").content.decode()
    assert "Find a vegetarian restaurant in Lisbon" in traces
    uid, _ = db.cypher_query("MATCH (t:ReasoningTrace {user_id: 'nam-bob'}) RETURN t.uid")
    detail = client.get(f"/admin/review/traces/nam-bob/{uid[0][0]}/")
    assert detail.status_code == 200 and "restaurant_search" in detail.content.decode()


def listed(client, user_id: str, kind: str, field: str) -> list:
    response = client.get(f"/api/v1/users/{user_id}/{kind}/", {"limit": 200})
    assert response.status_code == 200, response.content
    return sorted(item[field] for item in response.json()["items"])


def test_each_person_sees_only_their_own_memory_in_the_api_and_the_context(make_agent, api_for):
    graph = nam_graph_load()
    people = nam_people(graph)
    # An account whose subject id is a NAM identifier already (it answers, with nothing, before adoption).
    alice = Subject.objects.create(account=get_user_model().objects.create_user(username="alice"),
                                   user_id="nam-alice")
    agent, secret = make_agent()
    services.grant_create(subject=alice, agent=agent)
    client = api_for(secret)
    for kind, field in (("messages", "content"), ("entities", "name"), ("preferences", "preference"),
                        ("facts", "object"), ("traces", "task")):
        assert listed(client, "nam-alice", kind, field) == []
    before = client.post("/api/v1/context", {"user_id": "nam-alice", "query": "Where do I live?"}, format="json")
    assert before.status_code == 200 and before.json()["items"] == []
    browser = Client()
    browser.force_login(alice.account)
    assert browser.get("/me/").status_code == 200
    assert browser.get("/me/memory/messages/").status_code == 200
    # Alice also talks through the portal before adoption: the portal writes her own User node.
    said = client.post("/api/v1/conversations/portal-1/messages", {"user_id": "nam-alice", "messages": [
        {"role": "user", "content": "My cat is called Miso."}]}, format="json")
    assert said.status_code in (200, 201), said.content

    report = nam_adopt()

    assert [s["new"] for s in report["subjects"]] == [False, True, True]
    for identifier in ("nam-bob", "nam-carol"):
        services.grant_create(subject=Subject.objects.get(user_id=identifier), agent=agent)
    people["nam-alice"]["messages"] = sorted(people["nam-alice"]["messages"] + ["My cat is called Miso."])
    users, _ = db.cypher_query("MATCH (u:User {user_id: 'nam-alice'}) "
                               "RETURN u.identifier, COUNT { (u)-[:HAS_CONVERSATION]->() }")
    assert users == [["nam-alice", len(people["nam-alice"]["conversations"]) + 1]]
    seen = {}
    for identifier in IDENTIFIERS:
        person = people[identifier]
        assert listed(client, identifier, "messages", "content") == person["messages"]
        assert listed(client, identifier, "entities", "name") == person["entities"]
        assert listed(client, identifier, "preferences", "preference") == person["preferences"]
        assert listed(client, identifier, "traces", "task") == person["traces"]
        for kind in ("messages", "entities", "preferences", "facts", "traces"):
            for item in client.get(f"/api/v1/users/{identifier}/{kind}/", {"limit": 200}).json()["items"]:
                assert seen.setdefault(item["uid"], identifier) == identifier
    assert "I moved to Lisbon last spring" in browser.get("/me/memory/messages/").content.decode()
    # Facts NAM kept about a user (its subject is their identifier) are theirs, about 'user'.
    assert listed(client, "nam-alice", "facts", "object") == ["Acme Corp", "Lisbon"]
    assert listed(client, "nam-bob", "facts", "object") == ["chess"]

    response = client.post("/api/v1/context", {"user_id": "nam-bob", "session_id": "nam-bob-session-3",
                                               "query": "Where can I eat vegetarian food in Lisbon?"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert "loves vegetarian food" in body["context"]
    assert {"trace", "preference", "message"} <= {item["type"] for item in body["items"]}
    others = {m for i in ("nam-alice", "nam-carol") for m in people[i]["messages"]} - set(people["nam-bob"]["messages"])
    assert not [m for m in others if m in body["context"]]
    assert not {item["id"] for item in body["items"]} - {uid for uid, owner in seen.items() if owner == "nam-bob"}


def test_a_person_claims_an_adopted_subject_and_sees_it_on_their_pages():
    graph = nam_graph_load()
    people = nam_people(graph)
    nam_adopt()
    account = get_user_model().objects.create_user(username="carol", email="carol@example.com",
                                                   password="a-long-passphrase-9")
    call_command("adopt_nam", "--claim", "nam-carol", "--account", "carol@example.com", stdout=io.StringIO())
    assert Subject.objects.get(user_id="nam-carol").account == account
    assert not get_user_model().objects.filter(username="nam:nam-carol").exists()

    browser = Client()
    browser.force_login(account)
    pages = {kind: browser.get(f"/me/memory/{kind}/") for kind in ("messages", "entities", "preferences")}
    assert all(page.status_code == 200 for page in pages.values())
    messages = pages["messages"].content.decode()
    assert all(text in messages for text in people["nam-carol"]["messages"] if "'" not in text)
    assert not [text for text in people["nam-alice"]["messages"] if text in messages]
    assert "Web Summit 2026" in pages["entities"].content.decode()
    assert "drinks coffee black, no sugar" in pages["preferences"].content.decode()


def test_graph_status_counts_unowned_nodes_by_label():
    graph = nam_graph_load()
    out = io.StringIO()
    call_command("graph_status", stdout=out)
    text = out.getvalue()
    messages = sum(1 for node in graph["nodes"] if node["labels"] == ["Message"])
    assert "without an owner" in text and f"Message          {messages:>10}" in text
    nam_adopt()
    out = io.StringIO()
    call_command("graph_status", stdout=out)
    assert f"Fact             {1:>10}" in out.getvalue().split("without an owner")[1]


def test_a_nam_user_named_by_email_claims_their_subject_by_resetting_the_password(client, mailoutbox):
    people = nam_people(nam_graph_load())
    # NAM identifies this person by email (the fixture's users have plain identifiers).
    db.cypher_query("MATCH (u:User {identifier: 'nam-carol'}) SET u.identifier = 'carol@example.com' "
                    "WITH u MATCH (u)-[:HAS_CONVERSATION]->(c) SET c.user_identifier = u.identifier")
    report = nam_adopt()
    user_id = next(s["user_id"] for s in report["subjects"] if s["identifier"] == "carol@example.com")
    assert user_id != "carol@example.com"
    assert report["adopted"]["Message"][user_id] == len(people["nam-carol"]["messages"])
    subject = Subject.objects.get(user_id=user_id)
    assert subject.account.email == "carol@example.com" and not subject.account.has_usable_password()

    response = client.post("/accounts/password/reset/", {"email": "carol@example.com"})
    assert response.status_code == 302
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["carol@example.com"]


def test_embeddings_of_the_configured_size_are_kept_and_others_recomputed():
    graph = nam_graph_load()
    sizes = {len(value) for node in graph["nodes"] for key, value in node["properties"].items()
             if key in ("embedding", "task_embedding")}
    assert sizes == {64}
    assert nam_adopt("--dry-run")["embeddings_recomputed"] > 0
    with override_settings(EMBEDDER="openai", OPENAI_EMBEDDING_DIMENSIONS=64):
        assert nam_adopt("--dry-run")["embeddings_recomputed"] == 0


# What NAM 0.8.0's CREATE_MESSAGE writes when its agent goes on talking after adoption (the tail found
# by NEXT_MESSAGE, as NAM finds it).
NAM_MESSAGE_APPEND = """
MATCH (c:Conversation {session_id: $session_id})
MATCH (c)-[:HAS_MESSAGE]->(last:Message) WHERE NOT (last)-[:NEXT_MESSAGE]->()
CREATE (m:Message {id: randomUUID(), role: 'user', content: $content, timestamp: datetime(), metadata: '{}'})
CREATE (c)-[:HAS_MESSAGE]->(m)
CREATE (last)-[:NEXT_MESSAGE]->(m)
"""


def test_a_rerun_adopts_only_what_nam_wrote_since(make_agent, api_for):
    nam_graph_load()
    nam_adopt()
    last_seq, _ = db.cypher_query("MATCH (c:Conversation {session_id: 'nam-alice-session-1'}) RETURN c.last_seq")
    db.cypher_query(NAM_MESSAGE_APPEND, {"session_id": "nam-alice-session-1", "content": "I adopted a cat, Miso."})

    report = nam_adopt()

    assert report["adopted"] == {"Message": {"nam-alice": 1}} and report["copies"] == {"Entity": 0, "Preference": 0}
    found, _ = db.cypher_query("MATCH (c:Conversation {session_id: 'nam-alice-session-1'})-[:HAS_MESSAGE]->"
                               "(m:Message {content: 'I adopted a cat, Miso.'}) RETURN m.user_id, m.seq, c.last_seq")
    assert found == [["nam-alice", last_seq[0][0] + 1, last_seq[0][0] + 1]]
    agent, secret = make_agent()
    services.grant_create(subject=Subject.objects.get(user_id="nam-alice"), agent=agent)
    assert "I adopted a cat, Miso." in listed(api_for(secret), "nam-alice", "messages", "content")


# NAM 0.8.0's CREATE_ENTITY_RELATIONSHIP, as its extractor's relation stage writes it (off in the fixture).
NAM_RELATION = """
MATCH (a:Entity {name: $source}), (b:Entity {name: $target})
CREATE (a)-[:RELATED_TO {id: randomUUID(), type: $type, relation_type: $type, confidence: 0.8, support: 1}]->(b)
"""


def test_relations_follow_the_copies_and_what_joins_two_people_is_reported():
    people = nam_people(nam_graph_load())
    db.cypher_query(NAM_RELATION, {"source": "Acme Corp", "target": "Lisbon", "type": "HEADQUARTERED_IN"})
    db.cypher_query(NAM_RELATION, {"source": "Marta Silva", "target": "Rui Costa", "type": "KNOWS"})
    db.cypher_query("MATCH (e:Entity {name: 'Jazz Festival'}) SET e.type = 'CONCEPT'")

    report = nam_adopt()

    both = [i for i in IDENTIFIERS if {"Acme Corp", "Lisbon"} <= set(people[i]["entities"])]
    assert len(both) > 1
    found, _ = db.cypher_query("MATCH (a:Entity {name: 'Acme Corp'})-[r:RELATED_TO]->(b:Entity {name: 'Lisbon'}) "
                               "RETURN a.user_id, b.user_id, r.type ORDER BY a.user_id")
    assert found == [[i, i, "HEADQUARTERED_IN"] for i in both]
    assert sorted((row["label"], row["reason"]) for row in report["unowned"]) == [
        ("Entity", "its type 'CONCEPT' is not one of PERSON, ORGANIZATION, LOCATION, EVENT, OBJECT, UNTYPED"),
        ("Fact", "it has no source message and its subject names no NAM user"),
        ("RELATED_TO", "its entities belong to no common person"),
    ]
    assert unowned_counts() == {"Entity": 1, "Fact": 1}


def test_an_adopted_persons_export_holds_their_messages_entities_preferences_facts_and_trace():
    people = nam_people(nam_graph_load())
    nam_adopt()
    subject = Subject.objects.get(user_id="nam-bob")

    job = export_build(job_id=export_request(subject=subject).pk)

    archive = zipfile.ZipFile(export_path(job=job))
    nodes = {name.removeprefix("nodes/").removesuffix(".json"): json.loads(archive.read(name))
             for name in archive.namelist() if name.startswith("nodes/")}
    texts = {label: sorted(n["properties"][key] for n in nodes[label]) for label, key in (
        ("Message", "content"), ("Entity", "name"), ("Preference", "preference"), ("ReasoningTrace", "task"),
        ("Fact", "object"))}
    bob = people["nam-bob"]
    assert texts == {"Message": bob["messages"], "Entity": bob["entities"], "Preference": bob["preferences"],
                     "ReasoningTrace": bob["traces"], "Fact": ["chess"]}
    assert (len(nodes["ReasoningStep"]), len(nodes["ToolCall"]), len(nodes["Conversation"])) == (2, 1, 3)
    assert all(n["properties"]["user_id"] == "nam-bob" for label in nodes for n in nodes[label])
    relationships = json.loads(archive.read("relationships.json"))
    assert {r["type"] for r in relationships} >= {"HAS_MESSAGE", "MENTIONS", "HAS_PREFERENCE", "HAS_STEP",
                                                  "HAS_TOOL_CALL", "NEXT_MESSAGE"}


# NAM 0.8.0's _link_preference_to_entity (memory/long_term.py), as its add_preference(about=...) writes it.
NAM_PREFERENCE_APPLIES_TO = """
MATCH (p:Preference {id: $preference_id})
MATCH (e:Entity {id: $entity_id})
MERGE (p)-[:APPLIES_TO]->(e)
"""


def test_a_preferences_applies_to_joins_each_persons_own_copies_and_one_between_people_is_reported():
    graph = nam_graph_load()
    people = nam_people(graph)
    nam_id = {n["properties"].get("preference") or n["properties"].get("name"): n["properties"].get("id")
              for n in graph["nodes"] if n["labels"][0] in ("Preference", "Entity")}
    db.cypher_query(NAM_PREFERENCE_APPLIES_TO, {"preference_id": nam_id["prefers dark mode in every app"],
                                                "entity_id": nam_id["Lisbon"]})
    db.cypher_query(NAM_PREFERENCE_APPLIES_TO, {"preference_id": nam_id["keep answers short"],
                                                "entity_id": nam_id["Web Summit"]})

    report = nam_adopt()

    assert all("Lisbon" in people[i]["entities"] and "prefers dark mode in every app" in people[i]["preferences"]
               for i in IDENTIFIERS)
    found, _ = db.cypher_query("MATCH (p:Preference)-[:APPLIES_TO]->(e:Entity) RETURN p.user_id, e.user_id, e.name "
                               "ORDER BY p.user_id, e.user_id")
    # The one between two people (Alice's preference, Carol's entity) is reported and left as NAM wrote it.
    assert found == [["nam-alice", "nam-alice", "Lisbon"], ["nam-alice", "nam-carol", "Web Summit"],
                     ["nam-bob", "nam-bob", "Lisbon"], ["nam-carol", "nam-carol", "Lisbon"]]
    assert ("APPLIES_TO", "its preference and entity belong to no common person") in [
        (row["label"], row["reason"]) for row in report["unowned"]]
    assert nam_adopt()["adopted"] == {}
