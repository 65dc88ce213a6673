"""A subject with pending merges, written as resolution writes them or through real extraction."""

import pytest
from neomodel import db

from memory import ingest
from tests.memory.api.test_messages import _append

ALL = ["review_merges", "review_facts", "review_traces", "view_memory_content", "manage_agents", "erase_subjects",
       "view_auditevent"]


def say(client, user_id, content, session="s1", **explicit) -> str:
    """Append one user message through the API and run its extraction now; return the message uid."""
    body = _append(client, user_id, [{"role": "user", "content": content, **explicit}], session=session).json()
    uid = body["results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"
    return uid


def same_as(user_id) -> dict:
    rows, _ = db.cypher_query(
        "MATCH (a:Entity {user_id: $u})-[s:SAME_AS]->(b:Entity) RETURN a.name, s.status, a.uid, b.uid", {"u": user_id})
    return {name: (status, from_uid, into_uid) for name, status, from_uid, into_uid in rows}


SEED = """
MERGE (u:User {user_id: $u}) ON CREATE SET u.uid = randomUUID()
CREATE (c:Conversation {uid: randomUUID(), user_id: $u, session_id: 's1', agent_id: 'a', created_at: datetime(),
                        last_seq: 1})
CREATE (m:Message {uid: randomUUID(), user_id: $u, role: 'user', seq: 1, created_at: datetime(),
                   content: 'Jonathon Smith and Anna Berger met Jonathan Smith.', extraction_status: 'done'})
CREATE (u)-[:HAS_CONVERSATION]->(c), (c)-[:HAS_MESSAGE]->(m), (c)-[:FIRST_MESSAGE]->(m)
WITH m
UNWIND $pairs AS pair
CREATE (a:Entity {uid: randomUUID(), user_id: $u, name: pair[0], type: 'PERSON', aliases: [], created_at: datetime()})
CREATE (b:Entity {uid: randomUUID(), user_id: $u, name: pair[1], type: 'PERSON', aliases: [pair[1] + ' Sr'],
                  created_at: datetime()})
CREATE (m)-[:MENTIONS {confidence: 0.9}]->(a), (m)-[:MENTIONS {confidence: 0.9}]->(b)
CREATE (b)-[:RELATED_TO {type: 'WORKS_WITH', confidence: 0.7}]->(a)
CREATE (a)-[:SAME_AS {status: 'pending', confidence: pair[2], created_at: datetime(),
                      scores: '{"fuzzy": 0.93, "embedding": 0.81, "combined": ' + toString(pair[2]) + '}',
                      evidence: '{"mention": "' + pair[0] + '", "sample": "' + m.content + '", "mentions": []}'}]->(b)
"""


@pytest.fixture
def proposals(granted):
    """A subject with two pending merges (Jonathon Smith, Anna Berger), written as resolution writes them."""
    subject, agent, client = granted
    db.cypher_query(SEED, {"u": subject.user_id, "pairs": [["Jonathon Smith", "Jonathan Smith", 0.88],
                                                           ["Anna Berger", "Anna Berg", 0.8]]})
    return {"subject": subject, "agent": agent, "api": client, "pairs": same_as(subject.user_id)}


@pytest.fixture
def extracted(granted):
    """A subject whose two pending merges came from real extraction, so re-extraction can be tested."""
    subject, agent, client = granted
    user = subject.user_id
    say(client, user, "Met Jonathan Smith and Anna Berg.",
        entities=[{"name": "Jonathan Smith", "type": "PERSON"}, {"name": "Anna Berg", "type": "PERSON"}])
    say(client, user, "Jonathon Smith and Anna Berger called.",
        entities=[{"name": "Jonathon Smith", "type": "PERSON"}, {"name": "Anna Berger", "type": "PERSON"}])
    pairs = same_as(user)
    assert {name for name, (status, *_) in pairs.items() if status == "pending"} == {"Jonathon Smith", "Anna Berger"}
    return {"subject": subject, "agent": agent, "api": client, "pairs": pairs}
