"""What a message states is dated by the message and ordered by when it was said, not by when it was extracted."""

import json
from datetime import date, datetime, timezone

import pytest
from neomodel import db

from memory import ingest, services
from tests.support.api import append

pytestmark = pytest.mark.django_db


def _append_all(client, user_id, messages, session="s1"):
    """Append messages through the API without extracting them; return their uids in order."""
    body = append(client, user_id, messages, session=session).json()
    return [r["uid"] for r in body["results"]]


def _extract(user_id, *uids):
    for uid in uids:
        assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"


def _facts(user_id, predicate):
    rows, _ = db.cypher_query(
        "MATCH (f:Fact {user_id: $u, predicate: $p}) OPTIONAL MATCH (f)-[:SUPERSEDED_BY]->(n:Fact) "
        "RETURN f.object AS object, f.status AS status, f.valid_from AS valid_from, f.valid_until AS valid_until, "
        "n.object AS superseded_by ORDER BY f.object", {"u": user_id, "p": predicate})
    return {row[0]: {"status": row[1], "valid_from": _native(row[2]), "valid_until": _native(row[3]),
                     "superseded_by": row[4]} for row in rows}


def _native(value):
    return value.to_native() if value is not None else None


def test_an_older_message_extracted_late_is_stored_as_already_superseded(granted):
    subject, _, client = granted
    user = subject.user_id
    acme, globex = _append_all(client, user, [
        {"role": "user", "content": "I work at Acme Corp now.", "created_at": "2025-01-10T09:00:00+00:00"},
        {"role": "user", "content": "I work at Globex now.", "created_at": "2025-02-03T09:00:00+00:00"},
    ])
    _extract(user, globex, acme)
    facts = _facts(user, "EMPLOYED_BY")
    assert facts["Globex"] == {"status": "current", "valid_from": datetime(2025, 2, 3, 9, tzinfo=timezone.utc),
                               "valid_until": None, "superseded_by": None}
    assert facts["Acme Corp"] == {"status": "superseded", "valid_from": datetime(2025, 1, 10, 9, tzinfo=timezone.utc),
                                  "valid_until": datetime(2025, 2, 3, 9, tzinfo=timezone.utc),
                                  "superseded_by": "Globex"}
    context = client.post("/api/v1/context", {"user_id": user, "query": "Where does the user work?",
                                              "include": {"history": False}, "limits": {"entities": 0}},
                          format="json").json()["context"]
    assert "Globex" in context and "Acme" not in context


def test_a_stated_valid_from_orders_the_statement(granted):
    subject, _, client = granted
    user = subject.user_id
    globex, contoso = _append_all(client, user, [
        {"role": "user", "content": "Globex.", "created_at": "2025-02-03T09:00:00+00:00",
         "facts": [{"subject": "user", "predicate": "EMPLOYED_BY", "object": "Globex"}]},
        {"role": "user", "content": "Contoso, back then.", "created_at": "2025-02-04T09:00:00+00:00",
         "facts": [{"subject": "user", "predicate": "EMPLOYED_BY", "object": "Contoso Bank",
                    "valid_from": "2024-03-03"}]},
    ])
    _extract(user, globex, contoso)
    facts = _facts(user, "EMPLOYED_BY")
    assert facts["Globex"]["status"] == "current"
    assert facts["Contoso Bank"] == {"status": "superseded", "valid_from": date(2024, 3, 3),
                                     "valid_until": datetime(2025, 2, 3, 9, tzinfo=timezone.utc),
                                     "superseded_by": "Globex"}


def test_the_message_time_is_the_reference_for_relative_dates(granted):
    subject, _, client = granted
    user = subject.user_id
    uid, = _append_all(client, user, [{"role": "user", "content": "Since last Monday I work at Globex.",
                                       "created_at": "2025-03-12T18:00:00+01:00"}])
    _extract(user, uid)
    assert _facts(user, "EMPLOYED_BY")["Globex"]["valid_from"] == date(2025, 3, 10)


def test_the_same_value_said_again_is_one_fact_with_both_statements(granted):
    subject, _, client = granted
    user = subject.user_id
    uids = _append_all(client, user, [
        {"role": "user", "content": "I live in Lisbon.", "created_at": "2025-01-10T09:00:00+00:00"},
        {"role": "user", "content": "I moved to Porto.", "created_at": "2025-02-10T09:00:00+00:00"},
        {"role": "user", "content": "I live in Porto.", "created_at": "2025-03-10T09:00:00+00:00"},
    ])
    _extract(user, uids[2], uids[0], uids[1])
    facts = _facts(user, "RESIDES_AT")
    assert facts["Porto"]["status"] == "current" and facts["Lisbon"]["superseded_by"] == "Porto"
    assert facts["Porto"]["valid_from"] == datetime(2025, 2, 10, 9, tzinfo=timezone.utc)
    rows, _ = db.cypher_query("MATCH (f:Fact {user_id: $u, object: 'Porto'})-[:EXTRACTED_FROM]->(m:Message) "
                              "RETURN count(DISTINCT f), count(m)", {"u": user})
    assert rows == [[1, 2]]


def test_the_same_preference_in_two_sessions_is_one_node_with_both_messages(granted):
    subject, _, client = granted
    user = subject.user_id
    first = _append_all(client, user, [{"role": "user", "content": "I really like curry for lunch.",
                                        "created_at": "2025-01-10T12:00:00+00:00"}], session="monday")
    second = _append_all(client, user, [{"role": "user", "content": "I like curry for lunch.",
                                         "created_at": "2025-01-17T12:00:00+00:00"}], session="friday")
    _extract(user, *second, *first)
    rows, _ = db.cypher_query(
        "MATCH (p:Preference {user_id: $u}) OPTIONAL MATCH (p)-[:EXTRACTED_FROM]->(m:Message) "
        "RETURN p.preference, p.status, p.valid_from, count(m)", {"u": user})
    assert len(rows) == 1
    text, status, valid_from, messages = rows[0]
    assert "curry for lunch" in text and status == "current" and messages == 2
    assert valid_from.to_native() == datetime(2025, 1, 10, 12, tzinfo=timezone.utc)
    context = client.post("/api/v1/context", {"user_id": user, "query": "What does the user like for lunch?",
                                              "include": {"history": False}}, format="json").json()["context"]
    assert context.count("curry for lunch") == 1


def test_the_other_polarity_said_later_supersedes_whatever_order_it_is_extracted_in(granted):
    subject, _, client = granted
    user = subject.user_id
    likes, dislikes, likes_again = _append_all(client, user, [
        {"role": "user", "content": "a", "created_at": "2025-01-01T12:00:00+00:00",
         "preferences": [{"category": "food", "preference": "likes cilantro"}]},
        {"role": "user", "content": "b", "created_at": "2025-01-02T12:00:00+00:00",
         "preferences": [{"category": "food", "preference": "dislikes cilantro"}]},
        {"role": "user", "content": "c", "created_at": "2025-01-03T12:00:00+00:00",
         "preferences": [{"category": "food", "preference": "likes cilantro"}]},
    ])
    _extract(user, dislikes, likes_again, likes)
    rows, _ = db.cypher_query(
        "MATCH (p:Preference {user_id: $u}) OPTIONAL MATCH (p)-[:SUPERSEDED_BY]->(n:Preference) "
        "RETURN p.preference, p.status, p.valid_until, n.preference ORDER BY p.preference", {"u": user})
    assert [(text, status, until.to_native() if until else None, by) for text, status, until, by in rows] == [
        ("dislikes cilantro", "superseded", datetime(2025, 1, 3, 12, tzinfo=timezone.utc), "likes cilantro"),
        ("likes cilantro", "current", None, None),
    ]


def test_an_unstated_valid_time_is_the_message_time(granted):
    subject, _, client = granted
    user = subject.user_id
    uid, = _append_all(client, user, [{"role": "user", "content": "I live in Lisbon.",
                                       "created_at": "2024-06-01T08:30:00-03:00"}])
    _extract(user, uid)
    assert _facts(user, "RESIDES_AT")["Lisbon"]["valid_from"].isoformat() == "2024-06-01T08:30:00-03:00"
    rows, _ = db.cypher_query("MATCH (e:Entity {user_id: $u, name: 'Lisbon'}) RETURN e.created_at", {"u": user})
    assert rows[0][0].to_native().isoformat() == "2024-06-01T08:30:00-03:00"


def test_forgetting_the_newer_message_makes_the_older_fact_current_again(granted):
    subject, _, client = granted
    user = subject.user_id
    acme, globex, again = _append_all(client, user, [
        {"role": "user", "content": "I work at Acme Corp now.", "created_at": "2025-01-10T09:00:00+00:00"},
        {"role": "user", "content": "I work at Globex now.", "created_at": "2025-02-03T09:00:00+00:00"},
        {"role": "user", "content": "I like tea.", "created_at": "2025-02-04T09:00:00+00:00"},
    ])
    _extract(user, acme, globex, again)
    services.item_delete(user_id=user, kind="messages", uid=globex, actor="test")
    assert _facts(user, "EMPLOYED_BY") == {"Acme Corp": {
        "status": "current", "valid_from": datetime(2025, 1, 10, 9, tzinfo=timezone.utc), "valid_until": None,
        "superseded_by": None}}


def test_a_merge_proposal_shows_the_earliest_message_naming_the_entity_that_would_merge_away(granted):
    subject, _, client = granted
    user = subject.user_id
    person = [{"name": "Jonathan Smith", "type": "PERSON"}]
    variant = [{"name": "Jonathon Smith", "type": "PERSON"}]
    first, second, third = _append_all(client, user, [
        {"role": "user", "content": "Met Jonathan Smith.", "entities": person},
        {"role": "user", "content": "Jonathon Smith called.", "entities": variant},
        {"role": "user", "content": "Jonathon Smith again.", "entities": variant},
    ])
    _extract(user, third, first, second)
    rows, _ = db.cypher_query("MATCH (a:Entity {user_id: $u})-[s:SAME_AS]->(b:Entity) "
                              "RETURN a.name, b.name, s.status, s.evidence", {"u": user})
    (source, into, status, evidence), = rows
    assert (source, into, status) == ("Jonathon Smith", "Jonathan Smith", "pending")
    evidence = json.loads(evidence)
    assert evidence["message_uid"] == second and evidence["sample"] == "Jonathon Smith called."
