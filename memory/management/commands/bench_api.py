import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from neomodel import db

from memory import selectors, services
from memory.embeddings import get_embedder
from memory.models import CATEGORIES, SCOPES, Agent, ConsentRecord, Grant, Subject

TOPICS = ["launch", "budget", "garden", "flight", "invoice", "database", "holiday", "recipe", "contract", "sensor",
          "meeting", "report", "bicycle", "piano", "server", "ticket", "camera", "vaccine", "lease", "harvest"]
PLACES = ["Lisbon", "Porto", "Berlin", "Osaka", "Lima", "Nairobi", "Oslo", "Quito", "Hanoi", "Tunis"]
TEMPLATES = ["We need to move the {t} review to {p} next week.", "My {t} notes from {p} are in the shared folder.",
             "Remind me that the {t} in {p} is due on Friday.", "The {t} team in {p} asked for an update.",
             "I prefer to discuss the {t} over coffee in {p}.", "Is the {t} still blocked by the {p} office?"]

SEED_MESSAGES = """
UNWIND $rows AS row
MERGE (u:User {user_id: row.user_id}) ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
CREATE (c:Conversation {uid: randomUUID(), user_id: row.user_id, session_id: row.session_id, agent_id: $agent_id,
                        created_at: datetime(), last_seq: size(row.messages)})
CREATE (u)-[:HAS_CONVERSATION]->(c)
WITH c, row
UNWIND range(0, size(row.messages) - 1) AS i
WITH c, row, i, row.messages[i] AS m
CREATE (n:Message {uid: m.uid, user_id: row.user_id, role: 'user', content: m.content, embedding: m.embedding,
                   seq: i + 1, content_hash: m.uid, agent_id: $agent_id, created_at: datetime(),
                   extraction_status: 'done'})
CREATE (c)-[:HAS_MESSAGE]->(n)
WITH c, collect(n) AS chain
CALL (c, chain) {
  WITH c, chain[0] AS first CREATE (c)-[:FIRST_MESSAGE]->(first)
}
CALL (chain) {
  UNWIND range(0, size(chain) - 2) AS i
  WITH chain[i] AS a, chain[i + 1] AS b CREATE (a)-[:NEXT_MESSAGE]->(b)
}
"""

CLEAN = {label: f"UNWIND $ids AS id MATCH (n:{label} {{user_id: id}}) DETACH DELETE n"
         for label in ("Message", "Conversation", "User")}


class Command(BaseCommand):
    help = ("Seed users x messages, then measure context and messages latency with concurrent HTTP clients "
            "against gunicorn, and tenant-scoped recall@10 against exact search. JSON line last.")

    def add_arguments(self, parser):
        parser.add_argument("--users", type=int, default=1000)
        parser.add_argument("--messages", type=int, default=200_000)
        parser.add_argument("--clients", type=int, default=4, help="concurrent HTTP clients")
        parser.add_argument("--requests", type=int, default=2000, help="requests per endpoint")
        parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
        parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
        parser.add_argument("--recall-queries", type=int, default=200)
        parser.add_argument("--keep", action="store_true", help="keep the seeded data")

    def handle(self, *args, **options):
        run = uuid.uuid4().hex[:8]
        agent = Agent.objects.create(agent_id=f"bench-api-{run}", name="bench_api", scopes=list(SCOPES),
                                     rate_limit_per_minute=10_000_000)
        _, token = services.agent_token_issue(agent=agent)
        subjects = self._subjects(run, options["users"], agent)
        sentences, vectors = self._vocabulary()
        started = time.monotonic()
        seeded = self._seed(subjects, agent, sentences, vectors, options["messages"])
        seed_seconds = time.monotonic() - started
        self.stderr.write(f"seeded {seeded} messages for {len(subjects)} users in {seed_seconds:.0f} s")

        server, port = self._serve(options["workers"], options["threads"])
        try:
            context = self._load(port, token, options, lambda rnd: ("/api/v1/context", {
                "user_id": rnd.choice(subjects).user_id, "session_id": "bench-0",
                "query": rnd.choice(sentences), "token_budget": 500}))
            messages = self._load(port, token, options, lambda rnd: (
                f"/api/v1/conversations/bench-live-{rnd.randrange(4)}/messages", {
                    "user_id": rnd.choice(subjects).user_id,
                    "messages": [{"role": "user", "content": rnd.choice(sentences), "client_message_id": uuid.uuid4().hex}]}))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        recall = self._recall(subjects, sentences, vectors, options["recall_queries"])
        if not options["keep"]:
            self._clean(subjects, agent)
        self.stdout.write(json.dumps({
            "benchmark": "api", "users": len(subjects), "messages": seeded, "seed_seconds": round(seed_seconds, 1),
            "clients": options["clients"], "gunicorn": f"{options['workers']}x{options['threads']}",
            "context_ms": context, "messages_ms": messages, "recall_at_10": recall,
            "machine": f"{os.cpu_count()} cores",
        }))

    def _subjects(self, run, count, agent):
        User = get_user_model()
        with transaction.atomic():
            users = User.objects.bulk_create(
                [User(username=f"bench-{run}-{i}", email=f"bench-{run}-{i}@bench.invalid") for i in range(count)])
            subjects = Subject.objects.bulk_create([Subject(account=u) for u in users])
            Grant.objects.bulk_create([Grant(subject=s, agent=agent) for s in subjects])
            ConsentRecord.objects.bulk_create(
                [ConsentRecord(subject=s, agent=agent, category=c, granted=True) for s in subjects for c in CATEGORIES])
        return subjects

    def _vocabulary(self):
        sentences = [t.format(t=topic, p=place) for t in TEMPLATES for topic in TOPICS for place in PLACES]
        return sentences, get_embedder().embed(sentences)

    def _seed(self, subjects, agent, sentences, vectors, total):
        rnd = random.Random(7)
        per_user = max(total // len(subjects), 1)
        self.vectors_by_user = {}
        batch, seeded = [], 0
        for subject in subjects:
            picks = [rnd.randrange(len(sentences)) for _ in range(per_user)]
            # A little noise makes every stored vector distinct, as real messages are.
            noisy = vectors[picks] + np.random.default_rng(seeded).normal(0, 0.02, (per_user, vectors.shape[1]))
            noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
            uids = [str(uuid.uuid4()) for _ in picks]
            self.vectors_by_user[subject.user_id] = (uids, noisy.astype(np.float32))
            batch.append({"user_id": subject.user_id, "session_id": "bench-0", "messages": [
                {"uid": uid, "content": sentences[p], "embedding": v.tolist()} for uid, p, v in zip(uids, picks, noisy)]})
            seeded += per_user
            if sum(len(b["messages"]) for b in batch) >= 5000:
                db.cypher_query(SEED_MESSAGES, {"rows": batch, "agent_id": agent.agent_id})
                batch = []
        if batch:
            db.cypher_query(SEED_MESSAGES, {"rows": batch, "agent_id": agent.agent_id})
        return seeded

    def _serve(self, workers, threads):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "portal.wsgi", "--bind", f"127.0.0.1:{port}", "--workers",
             str(workers), "--threads", str(threads), "--worker-class", "gthread", "--log-level", "warning"],
            cwd=Path(settings.BASE_DIR), env=os.environ.copy())
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return server, port
            except OSError:
                time.sleep(0.2)
        server.kill()
        raise RuntimeError("gunicorn did not start")

    def _load(self, port, token, options, make_request):
        """Warm up, then send `requests` requests from `clients` threads; return latency percentiles in ms."""
        latencies, errors = [], []
        per_client = options["requests"] // options["clients"]

        def client(seed, count, record):
            rnd = random.Random(seed)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for _ in range(count):
                path, payload = make_request(rnd)
                started = time.perf_counter()
                conn.request("POST", path, json.dumps(payload), {
                    "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                elapsed = (time.perf_counter() - started) * 1000
                if response.status >= 300:
                    errors.append(response.status)
                if record:
                    latencies.append(elapsed)
            conn.close()

        warm = [threading.Thread(target=client, args=(i, 20, False)) for i in range(options["clients"])]
        for t in warm:
            t.start()
        for t in warm:
            t.join()
        threads = [threading.Thread(target=client, args=(100 + i, per_client, True)) for i in range(options["clients"])]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        q = statistics.quantiles(latencies, n=100)
        return {"p50": round(q[49], 1), "p95": round(q[94], 1), "p99": round(q[98], 1),
                "rps": round(len(latencies) / elapsed, 1), "errors": len(errors)}

    def _recall(self, subjects, sentences, vectors, count):
        """Compare the tenant-scoped vector recall with exact search over the same user's vectors."""
        rnd = random.Random(11)
        hits = total = 0
        embedder = get_embedder()
        for _ in range(count):
            subject = rnd.choice(subjects)
            query = rnd.choice(sentences)
            q = embedder.embed([query])[0]
            uids, matrix = self.vectors_by_user[subject.user_id]
            exact = np.sort(matrix @ q)[::-1][:10]
            found = selectors.messages_similar(user_id=subject.user_id, embedding=q.tolist(), exclude=[], limit=10)
            got = sorted((item["score"] for item in found), reverse=True)
            # Neo4j reports cosine as (1 + cos) / 2; compare on that scale, ties included.
            threshold = (1 + exact[-1]) / 2 - 1e-4
            hits += sum(1 for s in got if s >= threshold)
            total += len(exact)
        return round(hits / total, 4)

    def _clean(self, subjects, agent):
        ids = [s.user_id for s in subjects]
        for label in ("Message", "Conversation", "User"):
            for start in range(0, len(ids), 20):
                db.cypher_query(CLEAN[label], {"ids": ids[start:start + 20]})
        get_user_model().objects.filter(subject__in=subjects).delete()
        agent.delete()
