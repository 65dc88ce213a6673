"""Render the merge queue's first page over 10,000 pending proposals and print p50/p95, JSON last."""

import json
import statistics
import time

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError
from django.test import Client

from portal import graphdb
from portal.machine import machine
from portal.models import AuditEvent
from review import cypher

BATCH = 2000


class Command(BaseCommand):
    help = "Seed synthetic pending merge proposals, time the review queue page, then remove everything seeded."

    def add_arguments(self, parser):
        parser.add_argument("--proposals", type=int, default=10_000)
        parser.add_argument("--renders", type=int, default=30)
        parser.add_argument("--allow-populated", action="store_true",
                            help="Run even when Neo4j holds other data (the seeded people are the bench's own and removed).")

    def handle(self, *args, proposals, renders, allow_populated, **options):
        foreign = graphdb.scalar(cypher.BENCH_FOREIGN_NODES, {"prefix": cypher.BENCH_PREFIX})
        if foreign and not allow_populated:
            raise CommandError(f"Neo4j holds {foreign} nodes of other data; use an empty database or pass "
                               "--allow-populated.")
        from django.core.management import call_command

        call_command("install_labels", verbosity=0)
        user = get_user_model().objects.create_user(username="bench-review", email="bench-review@example.invalid",
                                                    is_staff=True)
        try:
            user.user_permissions.set(Permission.objects.filter(
                content_type__app_label="review", codename__in=["review_merges", "view_memory_content"]))
            self._seed(proposals)
            client = Client()
            client.force_login(user)
            timings = []
            for _ in range(renders + 1):
                start = time.perf_counter()
                response = client.get("/admin/review/merges/")
                timings.append((time.perf_counter() - start) * 1000)
                if response.status_code != 200 or f"{proposals} in all" not in response.content.decode():
                    raise CommandError(f"Unexpected queue page: {response.status_code}")
            timings = sorted(timings[1:])  # the first render warms caches
            p50 = statistics.median(timings)
            p95 = timings[min(len(timings) - 1, round(0.95 * len(timings)) - 1)]
            self.stdout.write(f"queue page, first of {proposals} pending: p50 {p50:.1f} ms, p95 {p95:.1f} ms "
                              f"over {renders} renders")
            self.stdout.write(json.dumps({"bench": "review_queue", "pending": proposals, "renders": renders,
                                          "p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "machine": machine()}))
        finally:
            while graphdb.scalar(cypher.BENCH_DELETE, {"batch": BATCH, "prefix": cypher.BENCH_PREFIX}):
                pass
            AuditEvent.objects.filter(actor=user).delete()
            user.delete()

    def _seed(self, n: int) -> None:
        for start in range(0, n, BATCH):
            rows = [{"a": f"bench-a-{i}", "b": f"bench-b-{i}", "user_id": f"{cypher.BENCH_PREFIX}{i % 50}",
                     "a_name": f"Person {i}", "b_name": f"Persons {i}", "type": "PERSON",
                     "score": 0.7 + (i % 20) / 100, "age": i,
                     "scores": json.dumps({"fuzzy": 0.9, "embedding": 0.8}),
                     "evidence": json.dumps({"mention": f"Person {i}", "sample": f"I met Person {i} today.",
                                             "mentions": []})}
                    for i in range(start, min(start + BATCH, n))]
            graphdb.run(cypher.BENCH_PROPOSALS_CREATE, {"rows": rows})
