"""Erase a person with a large memory while agents keep asking for other people's context."""

import json
import statistics
import threading
import time

from django.core.management.base import BaseCommand
from neomodel import db
from rest_framework.test import APIClient

from governance import cypher, selectors, services
from governance.management.seeding import agent_create, graph_seed, person_create
from governance.models import ErasureScope
from memory import services as memory_services


def p95(values: list[float]) -> float:
    return round(statistics.quantiles(values, n=20)[-1] * 1000, 1) if len(values) > 1 else 0.0


class Command(BaseCommand):
    help = "Seed a person with N graph items, erase them, and time other people's context calls meanwhile."

    def add_arguments(self, parser):
        parser.add_argument("--items", type=int, default=100_000)
        parser.add_argument("--others", type=int, default=4, help="other people, each with one agent")
        parser.add_argument("--idle-seconds", type=float, default=10.0)

    def handle(self, *args, items, others, idle_seconds, **options):
        subject = person_create(label="erase")
        started = time.perf_counter()
        seeded = graph_seed(user_id=subject.user_id, items=items)
        self.stdout.write(f"seeded {seeded} items in {time.perf_counter() - started:.1f} s")

        agent, secret = agent_create()
        people = []
        for i in range(others):
            other = person_create(label=f"other{i}")
            memory_services.grant_create(subject=other, agent=agent)
            graph_seed(user_id=other.user_id, items=500, seed=i + 1)
            people.append(other)

        # The erasure takes the content's fingerprints and scans the graph for them itself; each step is
        # also timed alone here, outside the erasure's time.
        started = time.perf_counter()
        fingerprints = selectors.content_fingerprints(user_id=subject.user_id, labels=list(cypher.CONTENT_PROPERTIES))
        fingerprint_seconds = time.perf_counter() - started

        # Context calls go through the whole Django stack (auth, throttle, view, Neo4j) with the test client,
        # from one thread, as one agent would call.
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        latencies: list[float] = []
        errors: list[int] = []
        stop = threading.Event()

        def agent_loop():
            n = 0
            while not stop.is_set():
                person = people[n % len(people)]
                n += 1
                t = time.perf_counter()
                response = client.post("/api/v1/context", {"user_id": person.user_id, "session_id": "bench-0",
                                                           "query": f"item about {n}"}, format="json")
                latencies.append(time.perf_counter() - t)
                if response.status_code != 200:
                    errors.append(response.status_code)

        for person in people:  # warm up: the embedder loads, Neo4j plans the queries
            client.post("/api/v1/context", {"user_id": person.user_id, "query": "warm up"}, format="json")
        worker = threading.Thread(target=agent_loop)
        worker.start()
        time.sleep(idle_seconds)
        idle = list(latencies)
        latencies.clear()

        job = services.erasure_request(subject=subject, scope=ErasureScope.ALL)
        started = time.perf_counter()
        services.subject_erase(job_id=job.pk)
        erase_seconds = time.perf_counter() - started
        during = list(latencies)
        stop.set()
        worker.join()
        job.refresh_from_db()
        started = time.perf_counter()
        selectors.content_residue(fingerprints=fingerprints)
        scan_seconds = time.perf_counter() - started

        for other in people:
            db.cypher_query("MATCH (n {user_id: $u}) DETACH DELETE n", {"u": other.user_id})
            other.account.delete()
        subject.account.delete()
        agent.delete()

        result = {
            "bench": "erasure", "items": seeded, "erase_seconds": round(erase_seconds, 2),
            "fingerprints": len(fingerprints.runs) + len(fingerprints.names),
            "fingerprint_seconds": round(fingerprint_seconds, 2), "content_scan_seconds": round(scan_seconds, 2),
            "nodes_deleted": job.nodes_deleted, "residue": job.tombstone.residue_total,
            "residue_by_store": job.tombstone.residue, "status": job.status,
            "others_idle_p95_ms": p95(idle), "others_during_p95_ms": p95(during),
            "others_idle_calls": len(idle), "others_during_calls": len(during), "others_errors": len(errors),
            "p95_ratio": round(p95(during) / p95(idle), 2) if p95(idle) else None,
        }
        self.stdout.write(f"erased {job.nodes_deleted} nodes in {erase_seconds:.1f} s, residue {result['residue']}; "
                          f"others' p95 {result['others_idle_p95_ms']} ms idle, {result['others_during_p95_ms']} ms "
                          "during erasure")
        self.stdout.write(json.dumps(result))
