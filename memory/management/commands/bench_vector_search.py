import hashlib
import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test import override_settings

from memory import selectors
from memory.embeddings import get_embedder, int8_copy
from memory.management.commands.bench_api import SEED_CHAIN, exact_top
from memory.management.commands.bench_conversations import conversations_load
from portal import graphdb
from portal.graphdb import rows, server_info, vector_search_filters
from portal.machine import machine

LOCOMO_IDS = ["26", "30", "41", "42", "43", "44", "47", "48", "49", "50"]

# Hand-written rather than appended through services.messages_append: 100,000 appends one by one
# would take hours. It writes the shape the product writes (User, Conversation with its last seq and
# tail, HAS_MESSAGE, FIRST_MESSAGE, the NEXT_MESSAGE chain, Message with its embedding and time).
SEED = """
UNWIND $rows AS row
MERGE (u:User {user_id: row.user_id}) ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
MERGE (c:Conversation {user_id: row.user_id, session_id: row.session_id})
  ON CREATE SET c.uid = randomUUID(), c.agent_id = 'bench-vector-search', c.created_at = datetime()
MERGE (u)-[:HAS_CONVERSATION]->(c)
WITH c, row
UNWIND row.messages AS m
CREATE (n:Message {uid: m.uid, user_id: row.user_id, role: m.role, content: m.content,
                   seq: m.seq, content_hash: m.uid, agent_id: 'bench-vector-search', created_at: m.created_at,
                   extraction_status: 'done'})
WITH c, n, m
CALL db.create.setNodeVectorProperty(n, 'embedding', m.embedding)  // as the worker stores it
SET n.embedding_int8 = m.embedding_int8
CREATE (c)-[:HAS_MESSAGE]->(n)
""" + SEED_CHAIN

# The bench's people have no retention limits.
KEPT_FOREVER = {"history": None, "long_term": None, "reasoning": None}
AWAIT_INDEXES = "CALL db.awaitIndexes(3600)"
COUNT = "MATCH (m:Message {user_id: $user_id}) RETURN count(m) AS n"
CLEAN = "MATCH (n) WHERE n.user_id STARTS WITH $prefix CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"


class Command(BaseCommand):
    help = ("The context's message recall for one person holding 1,000 / 10,000 / 100,000 messages among others: "
            "p50/p95 of its vector branch scanning every message and, where the server filters inside the vector "
            "index, through the index, each with its recall@10 against exact search. Real MiniLM vectors of LoCoMo "
            "turns, replicated with a perturbation; LoCoMo questions as queries. JSON line last.")

    def add_arguments(self, parser):
        parser.add_argument("--locomo", default="var/locomo/data", help="LoCoMo's <id>.json files or locomo10.json")
        parser.add_argument("--sizes", default="1000,10000,100000", help="messages of each measured person")
        parser.add_argument("--others", type=int, default=50, help="other people, 1,000 messages each")
        parser.add_argument("--turns", type=int, default=3000, help="distinct LoCoMo turns the messages copy")
        parser.add_argument("--queries", type=int, default=100)
        parser.add_argument("--repeat", type=int, default=2, help="timed passes over the queries (after a warm one)")
        parser.add_argument("--reuse", action="store_true", help="measure a graph a previous --keep run left")
        parser.add_argument("--keep", action="store_true", help="keep the seeded graph for --reuse")

    def handle(self, *args, **options):
        sizes = [int(n) for n in options["sizes"].split(",")]
        turns, questions = self._corpus(Path(options["locomo"]))
        turns = turns[:options["turns"]]
        embedder = get_embedder()
        started = time.monotonic()
        turn_vectors = self._turn_vectors(turns)
        query_vectors = embedder.embed(questions[:options["queries"]])
        self.stderr.write(f"embedded {len(turns)} turns and {len(query_vectors)} questions "
                          f"in {time.monotonic() - started:.0f} s")
        people = {f"bench-vs-{size}": size for size in sizes}
        people |= {f"bench-vs-other-{i}": 1000 for i in range(options["others"])}
        call_command("install_labels", verbosity=0)
        if options["reuse"]:
            for size in sizes:
                found = rows(COUNT, {"user_id": f"bench-vs-{size}"})[0]["n"]
                if found != size:
                    raise CommandError(f"--reuse found {found} messages of bench-vs-{size}, not {size}")
            seed_seconds = 0.0
        else:
            if rows("MATCH (m:Message) RETURN count(m) AS n")[0]["n"]:
                raise CommandError("This Neo4j already holds messages: use an empty one, or --reuse a kept run.")
            started = time.monotonic()
            for offset, (user_id, size) in enumerate(people.items()):
                self._seed(user_id, size, turns, turn_vectors, seed=offset)
            graphdb.run(AWAIT_INDEXES)
            seed_seconds = time.monotonic() - started
            self.stderr.write(f"seeded {sum(people.values())} messages for {len(people)} people in {seed_seconds:.0f} s")
        filtered = vector_search_filters()
        points = [self._measure(f"bench-vs-{size}", size, query_vectors, filtered, options["repeat"]) for size in sizes]
        if not options["keep"]:
            graphdb.run(CLEAN, {"prefix": "bench-vs-"})
        self.stdout.write(json.dumps({
            "benchmark": "vector_search", "neo4j": server_info()["version"], "filtered_search": filtered,
            "messages": sum(people.values()), "people": len(people), "seed_seconds": round(seed_seconds, 1),
            "queries": len(query_vectors), "points": points, "machine": machine(),
        }))

    def _corpus(self, directory: Path) -> tuple[list[str], list[str]]:
        conversations = conversations_load(directory=directory, ids=LOCOMO_IDS)
        turns = list(dict.fromkeys(t["text"] for c in conversations for s in c["sessions"] for t in s["turns"]
                                   if t.get("text")))
        questions = [q["question"] for c in conversations for q in c["questions"]]
        rng = np.random.default_rng(11)
        return [turns[i] for i in rng.permutation(len(turns))], [questions[i] for i in rng.permutation(len(questions))]

    def _turn_vectors(self, turns: list[str]) -> np.ndarray:
        """Embed the turns once, in batches of similar length (little padding); later runs read them from var/."""
        embedder = get_embedder()
        digest = hashlib.sha256(json.dumps([embedder.name, turns]).encode()).hexdigest()[:16]
        cached = Path(settings.BASE_DIR) / "var" / "bench_vector_search" / f"turns-{digest}.npy"
        if cached.exists():
            return np.load(cached)
        order = sorted(range(len(turns)), key=lambda i: len(turns[i]))
        vectors = np.zeros((len(turns), embedder.dimensions), dtype=np.float32)
        for start in range(0, len(order), 16):
            batch = order[start:start + 16]
            vectors[batch] = embedder.embed([turns[i] for i in batch])
        cached.parent.mkdir(parents=True, exist_ok=True)
        np.save(cached, vectors)
        return vectors

    def _seed(self, user_id: str, size: int, turns: list[str], vectors: np.ndarray, *, seed: int) -> None:
        """Store `size` messages: real turn vectors, each copy pulled a little towards another turn and
        jittered, so copies are distinct (as a year of real messages is) and stay in MiniLM's space."""
        rng = np.random.default_rng(seed)
        base = np.arange(size) % len(turns)
        rng.shuffle(base)
        mix = vectors[rng.integers(0, len(turns), size)] * rng.uniform(0.05, 0.35, (size, 1))
        made = vectors[base] + mix + rng.normal(0, 0.01, (size, vectors.shape[1]))
        made /= np.linalg.norm(made, axis=1, keepdims=True)
        start = datetime(2023, 1, 1, tzinfo=UTC)
        for chunk in range(0, size, 1000):
            session = f"bench-{chunk // 1000}"
            messages = [{"uid": str(uuid.uuid4()), "role": "user" if i % 2 else "assistant", "content": turns[base[i]],
                         "embedding": made[i].tolist(), "embedding_int8": int8_copy(made[i]), "seq": i - chunk + 1,
                         "created_at": start + timedelta(minutes=10 * i)} for i in range(chunk, min(chunk + 1000, size))]
            graphdb.run(SEED, {"rows": [{"user_id": user_id, "session_id": session, "messages": messages}]})

    def _measure(self, user_id: str, size: int, queries: np.ndarray, filtered: bool, repeat: int) -> dict:
        """Time the context's vector branch (selectors.messages_nearest, the recall part of the one statement)
        scanning every message and, where the server filters, through the index; recall@10 of each against exact
        search over the person's stored vectors, computed here."""
        stored = rows("MATCH (m:Message {user_id: $user_id}) RETURN m.uid AS uid, m.embedding AS embedding",
                      {"user_id": user_id})
        uids, vectors = [m["uid"] for m in stored], np.array([m["embedding"] for m in stored], dtype=np.float32)
        exact = [exact_top(uids, vectors @ vector, 10) for vector in queries]
        ways = {"scan": size} | ({"index": 0} if filtered else {})  # RECALL_EXACT_SCAN_MAX for each
        found: dict[str, list[list[str]]] = {}
        point = {"messages": size}
        for name, scan_max in ways.items():
            times, found[name] = [], []
            with override_settings(RECALL_EXACT_SCAN_MAX=scan_max):
                for attempt in range(repeat + 1):
                    for vector in queries:
                        began = time.perf_counter()
                        result = selectors.messages_nearest(user_id=user_id, embedding=vector.tolist(), limit=10,
                                                             cutoffs=KEPT_FOREVER)
                        if attempt:
                            times.append((time.perf_counter() - began) * 1000)
                        else:
                            found[name].append([hit["uid"] for hit in result])
            times.sort()
            point[name] = {"p50_ms": round(times[len(times) // 2], 1), "p95_ms": round(times[int(len(times) * 0.95)], 1)}
            point[name]["recall_at_10"] = round(float(np.mean(
                [len(set(a) & e) / min(10, len(uids)) for a, e in zip(found[name], exact)])), 4)
            self.stderr.write(f"{size} messages, {name}: {point[name]}")
        return point
