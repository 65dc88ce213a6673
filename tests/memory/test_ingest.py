"""Extraction, resolution bands, supersession and their reviews, on the real graph."""

import pytest
from neomodel import db

from memory import ingest, services
from review import services as review_services
from tests.support.api import append

pytestmark = pytest.mark.django_db


def _say(client, user_id, content, session="s1", **explicit):
    """Append one user message and run its extraction now; return the message uid."""
    body = append(client, user_id, [{"role": "user", "content": content, **explicit}], session=session).json()
    uid = body["results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"
    return uid


def _facts(user_id):
    rows, _ = db.cypher_query(
        "MATCH (f:Fact {user_id: $u}) RETURN f.subject, f.predicate, f.object, f.status ORDER BY f.recorded_at",
        {"u": user_id})
    return [tuple(r) for r in rows]


def _same_as(user_id):
    rows, _ = db.cypher_query(
        "MATCH (a:Entity {user_id: $u})-[s:SAME_AS]->(b:Entity) RETURN a.name, b.name, s.status, a.uid, b.uid",
        {"u": user_id})
    return [tuple(r) for r in rows]


def _counts(user_id):
    rows, _ = db.cypher_query(
        "MATCH (n {user_id: $u}) WITH labels(n)[0] AS label, count(*) AS n RETURN label, n ORDER BY label",
        {"u": user_id})
    rels, _ = db.cypher_query("MATCH (n {user_id: $u})-[r]-() RETURN count(r)", {"u": user_id})
    return dict(rows), rels[0][0]


def test_first_person_statement_becomes_a_fact_about_the_user(granted):
    subject, _, client = granted
    _say(client, subject.user_id, "I live in Lisbon.")
    assert _facts(subject.user_id) == [("user", "RESIDES_AT", "Lisbon", "current")]
    rows, _ = db.cypher_query("MATCH (m:Message)-[r:MENTIONS]->(e:Entity {name: 'Lisbon'}) "
                              "RETURN e.type, r.start, r.end, m.extraction_status")
    assert rows == [["LOCATION", 10, 16, "done"]]


def test_negation_gives_no_positive_fact(granted):
    subject, _, client = granted
    _say(client, subject.user_id, "Marcus did not join Northwind.")
    _say(client, subject.user_id, "I never lived in Porto.")
    assert _facts(subject.user_id) == []
    rows, _ = db.cypher_query("MATCH ()-[r:RELATED_TO]->() RETURN count(r)")
    assert rows[0][0] == 0


def test_a_newer_value_supersedes_the_older_one(granted):
    subject, _, client = granted
    user = subject.user_id
    _say(client, user, "I live in Lisbon.")
    _say(client, user, "I moved to Porto.")
    assert _facts(user) == [("user", "RESIDES_AT", "Lisbon", "superseded"), ("user", "RESIDES_AT", "Porto", "current")]
    rows, _ = db.cypher_query("MATCH (old:Fact {object: 'Lisbon'})-[:SUPERSEDED_BY]->(new:Fact {object: 'Porto'}) "
                              "RETURN old.valid_until IS NOT NULL, old.expired_at IS NOT NULL")
    assert rows == [[True, True]]
    context = client.post("/api/v1/context", {"user_id": user, "query": "Where does the user live?",
                                              "include": {"history": False}, "limits": {"entities": 0}},
                          format="json").json()["context"]
    assert "Porto" in context and "Lisbon" not in context


def test_reverting_a_supersession_makes_the_older_fact_current(granted):
    subject, _, client = granted
    user = subject.user_id
    _say(client, user, "Ticket 7 is urgent.", facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": "high"}])
    _say(client, user, "Bumped it.", facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": "critical"}])
    old_uid = db.cypher_query("MATCH (f:Fact {object: 'high'}) RETURN f.uid")[0][0][0]
    review_services.fact_revert(user_id=user, fact_uid=old_uid, actor="reviewer@example.com")
    assert _facts(user) == [("Ticket_7", "HAS_PRIORITY", "high", "current"),
                            ("Ticket_7", "HAS_PRIORITY", "critical", "retracted")]
    context = client.post("/api/v1/context", {"user_id": user, "query": "What is the priority of Ticket_7?",
                                              "include": {"history": False}}, format="json").json()["context"]
    assert "high" in context and "critical" not in context


def test_multi_valued_predicates_accumulate(granted):
    subject, _, client = granted
    user = subject.user_id
    _say(client, user, "x", facts=[{"subject": "AuthModule", "predicate": "DEPENDS_ON", "object": "RateLimiter"}])
    _say(client, user, "y", facts=[{"subject": "AuthModule", "predicate": "DEPENDS_ON", "object": "TokenStore"}])
    assert {f[3] for f in _facts(user)} == {"current"}


def test_rerunning_extraction_changes_nothing(granted):
    subject, _, client = granted
    user = subject.user_id
    uid = _say(client, user, "The Lisbon Rail Summit takes place in Lisbon.")
    before = _counts(user)
    db.cypher_query("MATCH (m:Message {uid: $u}) SET m.extraction_status = 'pending'", {"u": uid})
    assert ingest.message_extract(message_uid=uid, user_id=user) == "done"
    assert ingest.message_extract(message_uid=uid, user_id=user) == "done"
    assert _counts(user) == before


def test_type_trap_location_is_not_the_event(granted):
    subject, _, client = granted
    user = subject.user_id
    _say(client, user, "The Lisbon Rail Summit takes place in Lisbon.")
    _say(client, user, "I flew to Lisbon.", entities=[{"name": "Lisbon", "type": "LOCATION"}])
    rows, _ = db.cypher_query("MATCH (e:Entity {user_id: $u}) RETURN e.name, e.type ORDER BY e.name", {"u": user})
    assert rows == [["Lisbon", "LOCATION"], ["Lisbon Rail Summit", "EVENT"]]
    assert _same_as(user) == []


def test_a_name_nothing_types_is_stored_untyped_and_read_as_not_sure_what_kind(granted, client):
    subject, _, agent_client = granted
    _say(agent_client, subject.user_id, "Mateus uses Slack every day.")
    rows, _ = db.cypher_query("MATCH (e:Entity {user_id: $u, name: 'Mateus'}) RETURN e.type", {"u": subject.user_id})
    assert rows == [["UNTYPED"]]
    client.force_login(subject.account)
    assert "not sure what kind" in client.get("/me/memory/entities/").content.decode()


def test_three_resolution_bands(granted):
    subject, _, client = granted
    user = subject.user_id
    _say(client, user, "a", entities=[{"name": "Kestrel Robotics", "type": "ORGANIZATION"},
                                      {"name": "Jonathan Smith", "type": "PERSON"},
                                      {"name": "Paris", "type": "LOCATION"}])
    _say(client, user, "b", entities=[{"name": "Kestrel", "type": "ORGANIZATION"},
                                      {"name": "Jonathon Smith", "type": "PERSON"},
                                      {"name": "Parish", "type": "LOCATION"}])
    links = {(a, b): status for a, b, status, _, _ in _same_as(user)}
    assert links == {("Kestrel", "Kestrel Robotics"): "auto", ("Jonathon Smith", "Jonathan Smith"): "pending"}
    aliases = db.cypher_query("MATCH (e:Entity {name: 'Kestrel Robotics'}) RETURN e.aliases")[0][0][0]
    assert aliases == ["Kestrel"]
    evidence = db.cypher_query("MATCH ()-[s:SAME_AS {status: 'pending'}]->() RETURN s.scores, s.evidence")[0][0]
    assert '"fuzzy"' in evidence[0] and '"embedding"' in evidence[0] and "Jonathon Smith" in evidence[1]


def test_approve_reject_and_undo(granted):
    subject, _, client = granted
    user = subject.user_id
    _say(client, user, "a", entities=[{"name": "Jonathan Smith", "type": "PERSON"},
                                      {"name": "Anna Berg", "type": "PERSON"}])
    before, _ = db.cypher_query("MATCH (e:Entity {user_id: $u}) RETURN e.name, e.aliases ORDER BY e.name", {"u": user})
    _say(client, user, "b", entities=[{"name": "Jonathon Smith", "type": "PERSON"},
                                      {"name": "Anna Berger", "type": "PERSON"}])
    pending = {a: (from_uid, into_uid) for a, _, status, from_uid, into_uid in _same_as(user) if status == "pending"}
    assert set(pending) == {"Jonathon Smith", "Anna Berger"}

    review_services.merge_approve(user_id=user, from_uid=pending["Jonathon Smith"][0],
                                  into_uid=pending["Jonathon Smith"][1], actor="rev")
    review_services.merge_reject(user_id=user, from_uid=pending["Anna Berger"][0],
                                 into_uid=pending["Anna Berger"][1], actor="rev")
    aliases = db.cypher_query("MATCH (e:Entity {name: 'Jonathan Smith'}) RETURN e.aliases")[0][0][0]
    assert aliases == ["Jonathon Smith"]

    review_services.merge_undo(user_id=user, from_uid=pending["Jonathon Smith"][0],
                               into_uid=pending["Jonathon Smith"][1], actor="rev")
    after, _ = db.cypher_query("MATCH (e:Entity {user_id: $u}) WHERE e.name IN ['Jonathan Smith', 'Anna Berg'] "
                               "RETURN e.name, e.aliases ORDER BY e.name", {"u": user})
    assert after == before

    # Neither the rejected nor the undone pair comes back when the messages are extracted again.
    for uid, in db.cypher_query("MATCH (m:Message {user_id: $u}) RETURN m.uid", {"u": user})[0]:
        db.cypher_query("MATCH (m:Message {uid: $m}) SET m.extraction_status = 'pending'", {"m": uid})
        ingest.message_extract(message_uid=uid, user_id=user)
    assert {status for *_, status, _, _ in [(a, b, s, f, i) for a, b, s, f, i in _same_as(user)]} == {"rejected"}
    with pytest.raises(Exception, match="No merge"):
        review_services.merge_approve(user_id=user, from_uid=pending["Anna Berger"][0],
                                      into_uid=pending["Anna Berger"][1], actor="rev")


def test_preferences_supersede_when_they_contradict(granted):
    subject, _, client = granted
    user = subject.user_id
    _say(client, user, "a", preferences=[{"category": "food", "preference": "likes cilantro"}])
    _say(client, user, "b", preferences=[{"category": "food", "preference": "dislikes cilantro"}])
    _say(client, user, "c", preferences=[{"category": "food", "preference": "likes sushi"}])
    rows, _ = db.cypher_query("MATCH (p:Preference {user_id: $u}) RETURN p.preference, p.status ORDER BY p.preference",
                              {"u": user})
    assert rows == [["dislikes cilantro", "current"], ["likes cilantro", "superseded"], ["likes sushi", "current"]]


def test_consent_is_checked_when_the_task_runs(granted):
    subject, agent, client = granted
    user = subject.user_id
    uid = append(client, user, [{"role": "user", "content": "I live in Lisbon."}]).json()["results"][0]["uid"]
    services.consent_record(subject=subject, agent=agent, category="long_term", granted=False)
    assert ingest.message_extract(message_uid=uid, user_id=user) == "skipped"
    assert _facts(user) == []
    status = client.get(f"/api/v1/users/{user}/messages/{uid}").json()
    assert status["extraction_status"] == "skipped" and "consent" in status["extraction_error"]


def test_a_message_deleted_before_its_task_runs_is_left_alone(granted):
    subject, _, client = granted
    user = subject.user_id
    uid = append(client, user, [{"role": "user", "content": "I live in Lisbon."}]).json()["results"][0]["uid"]
    services.item_delete(user_id=user, kind="messages", uid=uid, actor="test")
    assert ingest.message_extract(message_uid=uid, user_id=user) == "gone"
    assert _counts(user)[0].get("Fact") is None and _counts(user)[0].get("Entity") is None


def test_forgetting_a_message_takes_what_was_derived_only_from_it(granted):
    subject, _, client = granted
    user = subject.user_id
    first = _say(client, user, "I live in Lisbon.")
    _say(client, user, "Lisbon has great trams.", entities=[{"name": "Lisbon", "type": "LOCATION"}])
    services.item_delete(user_id=user, kind="messages", uid=first, actor="test")
    assert _facts(user) == []
    rows, _ = db.cypher_query("MATCH (e:Entity {user_id: $u}) RETURN e.name", {"u": user})
    assert rows == [["Lisbon"]]  # still mentioned by the other message
