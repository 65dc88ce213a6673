"""Signed-in people with memory in every store, for the governance tests."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from neomodel import db
from rest_framework.test import APIClient

from memory import services
from memory.models import SCOPES, Agent

_ids = itertools.count(1)
VECTOR = [0.05] * 384


def seed_memory(user_id: str, word: str) -> dict:
    """Write a conversation of two messages, a fact and preference learnt from the first, an entity it
    mentions with a related one, and a trace with a step and a tool call; return the uids by kind."""
    rows, _ = db.cypher_query("""
        MERGE (u:User {user_id: $u}) ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
        CREATE (c:Conversation {uid: randomUUID(), user_id: $u, session_id: 'chat-' + $w, agent_id: 'agent',
                                title: 'About ' + $w, created_at: datetime(), last_seq: 2})
        CREATE (u)-[:HAS_CONVERSATION]->(c)
        CREATE (m1:Message {uid: randomUUID(), user_id: $u, role: 'user', content: 'I work at ' + $w + ' Corp.',
                            seq: 1, created_at: datetime(), embedding: $v, extraction_status: 'done'})
        CREATE (m2:Message {uid: randomUUID(), user_id: $u, role: 'assistant', content: 'Noted, ' + $w + '.',
                            seq: 2, created_at: datetime() + duration('PT1S'), embedding: $v})
        CREATE (c)-[:HAS_MESSAGE]->(m1), (c)-[:HAS_MESSAGE]->(m2), (c)-[:FIRST_MESSAGE]->(m1),
               (m1)-[:NEXT_MESSAGE]->(m2)
        CREATE (e:Entity {uid: randomUUID(), user_id: $u, name: $w + ' Corp', type: 'ORGANIZATION', aliases: [],
                          created_at: datetime(), embedding: $v})
        CREATE (city:Entity {uid: randomUUID(), user_id: $u, name: $w + 'ville', type: 'LOCATION', aliases: [],
                             created_at: datetime(), embedding: $v})
        CREATE (m1)-[:MENTIONS {confidence: 0.9, start: 10, end: 20}]->(e)
        CREATE (e)-[:RELATED_TO {type: 'HEADQUARTERS_AT', confidence: 0.8}]->(city)
        CREATE (f:Fact {uid: randomUUID(), user_id: $u, subject: 'user', predicate: 'EMPLOYED_BY', object: $w + ' Corp',
                        status: 'current', recorded_at: datetime(), valid_from: datetime(), embedding: $v})
        CREATE (f)-[:EXTRACTED_FROM]->(m1), (f)-[:ABOUT]->(e)
        CREATE (p:Preference {uid: randomUUID(), user_id: $u, category: 'work', preference: 'likes ' + $w,
                              status: 'current', valid_from: datetime(), embedding: $v})
        CREATE (p)-[:EXTRACTED_FROM]->(m1), (u)-[:HAS_PREFERENCE]->(p)
        CREATE (t:ReasoningTrace {uid: randomUUID(), user_id: $u, session_id: 'chat-' + $w, agent_id: 'agent',
                                  task: 'look up ' + $w, outcome: 'found', success: true, started_at: datetime(),
                                  completed_at: datetime(), task_embedding: $v})
        CREATE (s:ReasoningStep {uid: randomUUID(), user_id: $u, thought: 'search ' + $w, created_at: datetime()})
        CREATE (tc:ToolCall {uid: randomUUID(), user_id: $u, tool_name: 'search', arguments: '{}', result: '"' + $w + '"',
                             created_at: datetime()})
        CREATE (c)-[:HAS_TRACE]->(t), (t)-[:HAS_STEP {order: 1}]->(s), (s)-[:HAS_TOOL_CALL]->(tc)
        RETURN c.uid, m1.uid, m2.uid, f.uid, p.uid, e.uid, city.uid, t.uid
    """, {"u": user_id, "w": word, "v": VECTOR})
    conversation, m1, m2, fact, preference, entity, city, trace = rows[0]
    return {"conversation": conversation, "messages": m1, "reply": m2, "facts": fact, "preferences": preference,
            "entities": entity, "city": city, "traces": trace}


@pytest.fixture
def person(db):
    """Return a factory of (user, subject, signed-in Client, seeded uids) with one agent granted."""

    def make(word="ALPACA", *, client_class=Client, **client_kwargs):
        n = next(_ids)
        user = get_user_model().objects.create_user(username=f"gov{n}", email=f"gov{n}@example.com",
                                                    password="a-long-passphrase-1")
        subject = services.subject_get_or_create(user=user)
        agent = Agent.objects.create(agent_id=f"gov-agent-{n}", name=f"Helper {n}", scopes=list(SCOPES))
        _, secret = services.agent_token_issue(agent=agent)
        services.grant_create(subject=subject, agent=agent, actor=user)
        client = client_class(**client_kwargs)
        client.force_login(user)
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        return {"user": user, "subject": subject, "agent": agent, "client": client, "api": api,
                "items": seed_memory(subject.user_id, word)}

    return make
