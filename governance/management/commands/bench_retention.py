"""Expire a person's large memory while agents keep asking for other people's context."""

import json
import resource
import statistics
import threading
import time
import tracemalloc
from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone
from neomodel import db
from rest_framework.test import APIClient

from governance import selectors, services
from governance.management.seeding import agent_create, graph_seed, person_create
from memory import services as memory_services
from memory.models import CATEGORIES


def p95(values: list[float]) -> float:
    return round(statistics.quantiles(values, n=20)[-1] * 1000, 1) if len(values) > 1 else 0.0


class Command(BaseCommand):
    help = ("Seed a person with N graph items, let all of them pass a one-day retention, apply it (as the Beat "
            "task does) and time other people's context calls meanwhile; print time, peak memory and p95s.")

    def add_arguments(self, parser):
        parser.add_argument("--items", type=int, default=100_000)
        parser.add_argument("--others", type=int, default=4, help="other people, each with one agent")
        parser.add_argument("--idle-seconds", type=float, default=10.0)

    def handle(self, *args, items, others, idle_seconds, **options):
        subject = person_create(label="expire")
        started = time.perf_counter()
        seeded = graph_seed(user_id=subject.user_id, items=items)
        self.stdout.write(f"seeded {seeded} items in {time.perf_counter() - started:.1f} s")
        for category in CATEGORIES:
            services.retention_choose(subject=subject, category=category, days=1, actor="bench_retention")
        # Two days on, everything the person has is past a one-day retention.
        later = timezone.now() + timedelta(days=2)

        agent, secret = agent_create()
        people = []
        for i in range(others):
            other = person_create(label=f"other{i}")
            memory_services.grant_create(subject=other, agent=agent)
            graph_seed(user_id=other.user_id, items=500, seed=i + 1)
            people.append(other)

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
        expiring = selectors.retention_expired(subject=subject, at=later)
        worker = threading.Thread(target=agent_loop)
        worker.start()
        time.sleep(idle_seconds)
        idle = list(latencies)
        latencies.clear()

        tracemalloc.start()
        started = time.perf_counter()
        result = services.retention_apply(subject=subject, at=later, actor="bench_retention")
        expire_seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        during = list(latencies)
        stop.set()
        worker.join()

        for person in [*people, subject]:
            db.cypher_query("MATCH (n {user_id: $u}) DETACH DELETE n", {"u": person.user_id})
            person.account.delete()
        agent.delete()

        report = {
            "bench": "retention", "items": seeded, "expiring": expiring, "deleted": result["deleted"],
            "expire_seconds": round(expire_seconds, 2), "residue": sum(result["residue"].values()),
            "python_peak_mb": round(peak / 2**20, 1),
            "process_max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "others_idle_p95_ms": p95(idle), "others_during_p95_ms": p95(during),
            "others_idle_calls": len(idle), "others_during_calls": len(during), "others_errors": len(errors),
            "p95_ratio": round(p95(during) / p95(idle), 2) if p95(idle) else None,
        }
        self.stdout.write(f"expired {sum(result['deleted'].values())} nodes in {expire_seconds:.1f} s "
                          f"(Python peak {report['python_peak_mb']} MB), residue {report['residue']}; others' p95 "
                          f"{report['others_idle_p95_ms']} ms idle, {report['others_during_p95_ms']} ms during")
        self.stdout.write(json.dumps(report))
