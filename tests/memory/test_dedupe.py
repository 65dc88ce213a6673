"""dedupe_memory: duplicates that extraction before keyed nodes left are merged reversibly, or proposed.

The duplicates are written by hand because today's write path cannot make them (that is the point).
"""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from neomodel import db

from review import services as review_services
from tests.support.graph import (RELATIONSHIP_PROPERTIES, declared_relationships, graph_snapshot, properties_written,
                                  undeclared)

pytestmark = pytest.mark.django_db

# Written by hand: the graph extraction left before nodes were keyed (one name or liking in several nodes), which
# today's writes can no longer produce.
OLD_GRAPH = """
MERGE (u:User {user_id: $u}) ON CREATE SET u.uid = randomUUID()
CREATE (c:Conversation {uid: randomUUID(), user_id: $u, session_id: 'old', created_at: datetime(), last_seq: 2})
CREATE (m1:Message {uid: randomUUID(), user_id: $u, role: 'user', seq: 1, content: 'Kestrel Robotics called.',
                    created_at: datetime('2025-01-01T10:00:00Z'), extraction_status: 'done'})
CREATE (m2:Message {uid: randomUUID(), user_id: $u, role: 'user', seq: 2, content: 'KESTREL ROBOTICS again.',
                    created_at: datetime('2025-01-01T10:00:01Z'), extraction_status: 'done'})
CREATE (u)-[:HAS_CONVERSATION]->(c), (c)-[:HAS_MESSAGE]->(m1), (c)-[:HAS_MESSAGE]->(m2),
       (c)-[:FIRST_MESSAGE]->(m1), (m1)-[:NEXT_MESSAGE]->(m2)
CREATE (a:Entity {uid: randomUUID(), user_id: $u, name: 'Kestrel Robotics', type: 'ORGANIZATION', aliases: ['KR'],
                  created_at: datetime('2025-01-01T10:00:00Z')})
CREATE (b:Entity {uid: randomUUID(), user_id: $u, name: 'KESTREL ROBOTICS', type: 'ORGANIZATION', aliases: ['Kestrel'],
                  created_at: datetime('2025-01-01T10:00:01Z')})
CREATE (o:Entity {uid: randomUUID(), user_id: $u, name: 'Kestrel Robotics', type: 'PERSON', aliases: [],
                  created_at: datetime('2025-01-01T10:00:01Z')})
CREATE (m1)-[:MENTIONS {confidence: 0.9}]->(a), (m2)-[:MENTIONS {confidence: 0.9}]->(b), (m2)-[:MENTIONS]->(o)
CREATE (p1:Preference {uid: randomUUID(), user_id: $u, category: 'food', preference: 'likes curry for lunch',
                       status: 'current', valid_from: datetime('2025-01-01T10:00:00Z')})
CREATE (p2:Preference {uid: randomUUID(), user_id: $u, category: 'food', preference: 'likes curry for lunch',
                       status: 'current', valid_from: datetime('2025-01-01T10:00:01Z')})
CREATE (p3:Preference {uid: randomUUID(), user_id: $u, category: 'food', preference: 'dislikes curry for lunch',
                       status: 'current', valid_from: datetime('2025-01-01T10:00:01Z')})
CREATE (u)-[:HAS_PREFERENCE]->(p1), (u)-[:HAS_PREFERENCE]->(p2), (u)-[:HAS_PREFERENCE]->(p3)
CREATE (p1)-[:EXTRACTED_FROM]->(m1), (p2)-[:EXTRACTED_FROM]->(m2)
"""


def _dedupe(**options) -> dict:
    out = StringIO()
    call_command("dedupe_memory", stdout=out, **options)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def _same_as(user_id):
    rows, _ = db.cypher_query("MATCH (a:Entity {user_id: $u})-[s:SAME_AS]->(b:Entity) "
                              "RETURN a.name, b.name, s.status, a.uid, b.uid", {"u": user_id})
    return rows


def _current_preferences(user_id):
    rows, _ = db.cypher_query("MATCH (p:Preference {user_id: $u, status: 'current'}) RETURN p.preference "
                              "ORDER BY p.preference", {"u": user_id})
    return [r[0] for r in rows]


@pytest.fixture
def old_graph(granted):
    subject, _, client = granted
    db.cypher_query(OLD_GRAPH, {"u": subject.user_id})
    return subject.user_id, client


def test_dry_run_lists_duplicates_and_changes_nothing(old_graph):
    user, _ = old_graph
    before = graph_snapshot(user)
    summary = _dedupe(user=user, dry_run=True)
    assert summary == {"dry_run": True, "entity_groups": 1, "entity_duplicates": 1, "preference_groups": 1,
                       "preference_duplicates": 1}
    assert graph_snapshot(user) == before


def test_merging_is_automatic_and_undone_by_a_reviewer_and_by_restore(old_graph):
    user, client = old_graph
    before = graph_snapshot(user)
    summary = _dedupe(user=user)
    assert summary["entities_merged"] == 1 and summary["preferences_merged"] == 1
    (source, into, status, from_uid, into_uid), = _same_as(user)
    assert (source, into, status) == ("KESTREL ROBOTICS", "Kestrel Robotics", "auto")
    aliases = db.cypher_query("MATCH (e:Entity {uid: $e}) RETURN e.aliases", {"e": into_uid})[0][0][0]
    assert aliases == ["KESTREL ROBOTICS", "KR", "Kestrel"]
    assert _current_preferences(user) == ["dislikes curry for lunch", "likes curry for lunch"]
    assert undeclared(properties_written(RELATIONSHIP_PROPERTIES), declared_relationships()) == []
    assert _dedupe(user=user, dry_run=True)["entity_groups"] == 0  # nothing left to merge, and no second proposal

    review_services.merge_undo(user_id=user, from_uid=from_uid, into_uid=into_uid, actor="reviewer")
    assert _dedupe(restore=True, user=user) == {"preferences_restored": 1}
    after = graph_snapshot(user)
    same_as = [key for key in after if key[:2] == ("rel", "SAME_AS")]
    assert len(same_as) == 1 and after.pop(same_as[0])["status"] == "rejected"  # and never proposed again
    assert [key for key, props in after.items() if props.pop("kept_apart", False)] != []  # and never merged again
    assert after == before


def test_review_proposes_instead(old_graph):
    user, _ = old_graph
    assert _dedupe(user=user, review=True)["entity_merge_status"] == "pending"
    assert [row[2] for row in _same_as(user)] == ["pending"]
    aliases = db.cypher_query("MATCH (e:Entity {user_id: $u, name: 'Kestrel Robotics', type: 'ORGANIZATION'}) "
                              "RETURN e.aliases", {"u": user})[0][0][0]
    assert aliases == ["KR"]


def test_a_preference_written_apart_in_other_words_is_merged_and_restored(granted):
    subject, _, _ = granted
    user = subject.user_id
    # The graph an extraction before topic keys wrote: one liking in two nodes, keyed by their words.
    db.cypher_query("""
        MERGE (u:User {user_id: $u}) ON CREATE SET u.uid = randomUUID()
        CREATE (u)-[:HAS_PREFERENCE]->(:Preference {uid: randomUUID(), user_id: $u, category: 'entertainment',
               preference: 'likes dancing', topic: 'dancing', polarity: 'positive', status: 'current',
               valid_from: datetime('2025-01-01T10:00:00Z')})
        CREATE (u)-[:HAS_PREFERENCE]->(:Preference {uid: randomUUID(), user_id: $u, category: 'entertainment',
               preference: 'likes all dances', topic: 'all dances', polarity: 'positive', status: 'current',
               valid_from: datetime('2025-01-02T10:00:00Z')})""", {"u": user})
    before = graph_snapshot(user)
    assert _dedupe(user=user)["preferences_merged"] == 1
    assert _current_preferences(user) == ["likes dancing"]
    assert _dedupe(restore=True, user=user) == {"preferences_restored": 1}
    after = graph_snapshot(user)
    assert [key for key, props in after.items() if props.pop("kept_apart", False)] != []
    assert after == before
