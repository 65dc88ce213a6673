"""Benchmark subjects: a person with a large synthetic memory graph, and agents for other people."""

import uuid

import numpy as np
from django.contrib.auth import get_user_model
from neomodel import db

from memory import services
from memory.models import SCOPES, Agent, Subject

# Share of each kind in a seeded graph; messages come in conversations of CONVERSATION_SIZE, and every
# second message has a fact extracted from it.
MIX = {"Message": 0.4, "Preference": 0.1, "Entity": 0.2, "ReasoningTrace": 0.1}
CONVERSATION_SIZE = 500
BATCH = 1000

SEED_MESSAGES = """
MERGE (u:User {user_id: $user_id}) ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
MERGE (c:Conversation {user_id: $user_id, session_id: $session})
  ON CREATE SET c.uid = randomUUID(), c.created_at = datetime(), c.agent_id = 'bench'
MERGE (u)-[:HAS_CONVERSATION]->(c)
WITH c
UNWIND $rows AS row
CREATE (m:Message {uid: randomUUID(), user_id: $user_id, role: 'user', content: row.text, seq: row.seq,
                   embedding: row.v, created_at: datetime(), extraction_status: 'done'})
CREATE (c)-[:HAS_MESSAGE]->(m)
WITH m, row WHERE row.seq % 2 = 0
CREATE (f:Fact {uid: randomUUID(), user_id: $user_id, subject: 'user', predicate: 'SAID', object: row.text,
                status: 'current', recorded_at: datetime(), embedding: row.v})
CREATE (f)-[:EXTRACTED_FROM]->(m)
"""
SEED_PREFERENCES = """
UNWIND $rows AS row
CREATE (p:Preference {uid: randomUUID(), user_id: $user_id, category: 'bench', preference: row.text,
                      status: 'current', valid_from: datetime(), embedding: row.v})
"""
SEED_ENTITIES = """
UNWIND $rows AS row
CREATE (e:Entity {uid: randomUUID(), user_id: $user_id, name: row.text, type: 'OBJECT', aliases: [],
                  created_at: datetime(), embedding: row.v})
"""
SEED_TRACES = """
UNWIND $rows AS row
CREATE (t:ReasoningTrace {uid: randomUUID(), user_id: $user_id, task: row.text, outcome: 'ok', success: true,
                          started_at: datetime(), completed_at: datetime(), task_embedding: row.v})
"""
SEEDS = {"Preference": SEED_PREFERENCES, "Entity": SEED_ENTITIES, "ReasoningTrace": SEED_TRACES}


def person_create(*, label: str) -> Subject:
    user = get_user_model().objects.create_user(username=f"bench-{label}-{uuid.uuid4().hex[:8]}")
    return services.subject_get_or_create(user=user)


def graph_seed(*, user_id: str, items: int, seed: int = 0) -> int:
    """Write about `items` memory nodes for a subject in UNWIND batches, with random unit vectors (no embedder
    runs); return the count."""
    rng = np.random.default_rng(seed)
    written = 0
    for label, share in MIX.items():
        n = int(items * share)
        for start in range(0, n, BATCH):
            size = min(BATCH, n - start)
            vectors = rng.standard_normal((size, 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            rows = [{"text": f"{label.lower()} {start + i} about item {rng.integers(1_000_000)}",
                     "seq": start + i + 1, "v": vectors[i].tolist()} for i in range(size)]
            if label == "Message":
                for offset in range(0, size, CONVERSATION_SIZE):
                    session = f"bench-{(start + offset) // CONVERSATION_SIZE}"
                    db.cypher_query(SEED_MESSAGES, {"user_id": user_id, "session": session,
                                                    "rows": rows[offset:offset + CONVERSATION_SIZE]})
                written += size // 2
            else:
                db.cypher_query(SEEDS[label], {"user_id": user_id, "rows": rows})
            written += size
    return written


def agent_create() -> tuple[Agent, str]:
    agent = Agent.objects.create(agent_id=f"bench-{uuid.uuid4().hex[:8]}", name="Benchmark agent",
                                 scopes=list(SCOPES), rate_limit_per_minute=1_000_000)
    _, secret = services.agent_token_issue(agent=agent)
    return agent, secret
