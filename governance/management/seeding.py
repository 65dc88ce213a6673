"""Benchmark subjects: a person with a large synthetic memory graph, and other people whose context an agent
keeps asking for while a benchmark runs an operation on the first."""

import statistics
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.test import APIClient

from memory import services
from memory.models import SCOPES, Agent, Subject
from portal import graphdb

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
# A benchmark's people are removed whole, with nothing to audit or check: not an erasure.
PERSON_GRAPH_DELETE = "MATCH (n {user_id: $user_id}) DETACH DELETE n"


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
                    graphdb.run(SEED_MESSAGES, {"user_id": user_id, "session": session,
                                                    "rows": rows[offset:offset + CONVERSATION_SIZE]})
                written += size // 2
            else:
                graphdb.run(SEEDS[label], {"user_id": user_id, "rows": rows})
            written += size
    return written


def agent_create() -> tuple[Agent, str]:
    agent = Agent.objects.create(agent_id=f"bench-{uuid.uuid4().hex[:8]}", name="Benchmark agent",
                                 scopes=list(SCOPES), rate_limit_per_minute=1_000_000)
    _, secret = services.agent_token_issue(agent=agent)
    return agent, secret


def p95(values: list[float]) -> float:
    return round(statistics.quantiles(values, n=20)[-1] * 1000, 1) if len(values) > 1 else 0.0


class OthersUnderLoad:
    """Other people, each with a small memory granted to one agent, whose context the agent asks for in a loop.

    Context calls go through the whole Django stack (auth, throttle, view, Neo4j) with the test client, from
    one thread, as one agent would call.
    """

    def __init__(self, *, count: int, items: int = 500):
        self.agent, secret = agent_create()
        self.people = []
        for i in range(count):
            other = person_create(label=f"other{i}")
            services.grant_create(subject=other, agent=self.agent)
            graph_seed(user_id=other.user_id, items=items, seed=i + 1)
            self.people.append(other)
        self.client = APIClient()
        self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        self.latencies: list[float] = []
        self.errors: list[int] = []
        self.idle: list[float] = []
        self.during: list[float] = []

    def _calls(self, stop: threading.Event) -> None:
        n = 0
        while not stop.is_set():
            person = self.people[n % len(self.people)]
            n += 1
            started = time.perf_counter()
            response = self.client.post("/api/v1/context", {"user_id": person.user_id, "session_id": "bench-0",
                                                            "query": f"item about {n}"}, format="json")
            self.latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                self.errors.append(response.status_code)

    @contextmanager
    def measured(self, *, idle_seconds: float) -> Iterator[None]:
        """Warm up, keep calling for `idle_seconds` (the idle times), then time the calls made during the block."""
        for person in self.people:  # the embedder loads, Neo4j plans the queries
            self.client.post("/api/v1/context", {"user_id": person.user_id, "query": "warm up"}, format="json")
        stop = threading.Event()
        caller = threading.Thread(target=self._calls, args=(stop,))
        caller.start()
        try:
            time.sleep(idle_seconds)
            self.idle = list(self.latencies)
            self.latencies.clear()
            yield
            self.during = list(self.latencies)
        finally:
            stop.set()
            caller.join()

    def report(self) -> dict:
        """Return the others' p95 context latency idle and during the block, the call counts and the errors."""
        return {"others_idle_p95_ms": p95(self.idle), "others_during_p95_ms": p95(self.during),
                "others_idle_calls": len(self.idle), "others_during_calls": len(self.during),
                "others_errors": len(self.errors),
                "p95_ratio": round(p95(self.during) / p95(self.idle), 2) if p95(self.idle) else None}

    def contexts(self) -> dict[str, bytes]:
        """Return each person's context for one question, as the API sends it (the bytes)."""
        return {person.user_id: self.client.post("/api/v1/context", {"user_id": person.user_id, "session_id": "bench-0",
                                                                      "query": "what about item 7"},
                                                 format="json").content for person in self.people}

    def delete(self) -> None:
        """Delete the other people's memory, their accounts and the agent."""

        for other in self.people:
            graphdb.run(PERSON_GRAPH_DELETE, {"user_id": other.user_id})
            other.account.delete()
        self.agent.delete()


class SeededPersonCommand(BaseCommand):
    """A bench of one person with a large memory while other people's agents keep asking for context."""

    def add_arguments(self, parser):
        parser.add_argument("--items", type=int, default=100_000)
        parser.add_argument("--others", type=int, default=4, help="other people, each with one agent")
        parser.add_argument("--idle-seconds", type=float, default=10.0)

    def person_seeded(self, *, label: str, items: int) -> tuple[Subject, int]:
        """Create the bench's person with `items` graph items; say how long the seeding took, return how many."""
        subject = person_create(label=label)
        started = time.perf_counter()
        seeded = graph_seed(user_id=subject.user_id, items=items)
        self.stdout.write(f"seeded {seeded} items in {time.perf_counter() - started:.1f} s")
        return subject, seeded
