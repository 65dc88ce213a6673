"""memory/graph.py says what the product writes: every property of every node and relationship that the
API, the worker's extraction and the review decisions write is declared there, with a type that holds
the value written (a stated date may be a date, a moment is a datetime)."""

import pytest
from neomodel import db

from review import services as review_services
from tests.support.api import say
from tests.support.graph import (NODE_PROPERTIES, RELATIONSHIP_PROPERTIES, declared_nodes, declared_relationships,
                                  properties_written, undeclared)

pytestmark = pytest.mark.django_db


@pytest.fixture
def everything(granted):
    """A subject with memory from every write path: extraction, explicit facts with a stated date,
    supersession, merges pending, automatic, approved and undone, a reverted fact, a trace with a tool call."""
    subject, agent, client = granted
    user = subject.user_id
    say(client, user, "Since 3 March 2025 I work at Contoso Bank. I love hiking in the Alps.",
        created_at="2025-03-10T09:00:00+00:00")
    say(client, user, "I work at Fabrikam now.", created_at="2026-01-05T09:00:00+00:00")
    say(client, user, "Ticket 7 is urgent.", session="s2",
        facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": "high", "valid_from": "2025-05-01"}])
    say(client, user, "Bumped it.", session="s2",
        facts=[{"subject": "Ticket_7", "predicate": "HAS_PRIORITY", "object": "critical"}],
        preferences=[{"category": "food", "preference": "dislikes cilantro"}])
    say(client, user, "Met Jonathan Smith and Anna Berg.", session="s3",
        entities=[{"name": "Jonathan Smith", "type": "PERSON"}, {"name": "Anna Berg", "type": "PERSON"}])
    say(client, user, "Jonathon Smith and Anna Berger called.", session="s3",
        entities=[{"name": "Jonathon Smith", "type": "PERSON"}, {"name": "Anna Berger", "type": "PERSON"},
                  {"name": "Jonathan Smith", "type": "PERSON", "aliases": ["J. Smith"]}])
    pairs, _ = db.cypher_query("MATCH (a:Entity {user_id: $u})-[s:SAME_AS {status: 'pending'}]->(b) "
                               "RETURN a.uid, b.uid", {"u": user})
    assert len(pairs) >= 2
    review_services.merge_approve(user_id=user, from_uid=pairs[0][0], into_uid=pairs[0][1], actor="rev")
    review_services.merge_undo(user_id=user, from_uid=pairs[0][0], into_uid=pairs[0][1], actor="rev")
    review_services.merge_reject(user_id=user, from_uid=pairs[1][0], into_uid=pairs[1][1], actor="rev")
    old = db.cypher_query("MATCH (f:Fact {user_id: $u, status: 'superseded'}) RETURN f.uid", {"u": user})[0]
    review_services.fact_confirm(user_id=user, fact_uid=old[0][0], actor="rev")
    review_services.fact_revert(user_id=user, fact_uid=old[-1][0], actor="rev")
    started = client.post("/api/v1/traces", {"user_id": user, "session_id": "s1", "task": "find the bank"},
                          format="json").json()["uid"]
    client.post(f"/api/v1/traces/{started}/steps", {"user_id": user, "thought": "search", "tool_calls": [
        {"tool_name": "search", "arguments": {"q": "bank"}, "result": ["Contoso"], "status": "success",
         "duration_ms": 12.5}]}, format="json")
    client.post(f"/api/v1/traces/{started}/complete", {"user_id": user, "outcome": "found", "success": True},
                format="json")
    return user


def test_every_node_property_the_product_writes_is_declared(everything):
    assert undeclared(properties_written(NODE_PROPERTIES), declared_nodes()) == []


def test_every_relationship_property_the_product_writes_is_declared(everything):
    written = properties_written(RELATIONSHIP_PROPERTIES)
    declared = declared_relationships()
    types, _ = db.cypher_query("MATCH ()-[r]->() RETURN collect(DISTINCT type(r))")
    assert sorted(set(types[0][0]) - set(declared)) == []
    assert undeclared(written, declared) == []


def test_a_stated_date_stays_a_date_and_a_moment_a_datetime(everything):
    rows, _ = db.cypher_query("MATCH (f:Fact {user_id: $u, predicate: 'HAS_PRIORITY', object: 'high'}) "
                              "RETURN valueType(f.valid_from), valueType(f.recorded_at)", {"u": everything})
    assert rows == [["DATE NOT NULL", "ZONED DATETIME NOT NULL"]]
