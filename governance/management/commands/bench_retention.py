"""Expire a person's large memory while agents keep asking for other people's context."""

import json
import resource
import time
import tracemalloc
from datetime import timedelta

from django.utils import timezone

from governance import selectors, services
from governance.management.seeding import PERSON_GRAPH_DELETE, OthersUnderLoad, SeededPersonCommand
from memory.models import CATEGORIES
from portal import graphdb
from portal.machine import machine


class Command(SeededPersonCommand):
    help = ("Seed a person with N graph items, let all of them pass a one-day retention, apply it (as the Beat "
            "task does) and time other people's context calls meanwhile; print time, peak memory and p95s.")

    def handle(self, *args, items, others, idle_seconds, **options):
        subject, seeded = self.person_seeded(label="expire", items=items)
        for category in CATEGORIES:
            services.retention_choose(subject=subject, category=category, days=1, actor="bench_retention")
        # Two days on, everything the person has is past a one-day retention.
        later = timezone.now() + timedelta(days=2)

        load = OthersUnderLoad(count=others)
        expiring = selectors.retention_expired(subject=subject, at=later)
        with load.measured(idle_seconds=idle_seconds):
            tracemalloc.start()
            started = time.perf_counter()
            result = services.retention_apply(subject=subject, at=later, actor="bench_retention")
            expire_seconds = time.perf_counter() - started
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        load.delete()
        graphdb.run(PERSON_GRAPH_DELETE, {"user_id": subject.user_id})
        subject.account.delete()

        report = {
            "bench": "retention", "items": seeded, "expiring": expiring, "deleted": result["deleted"],
            "expire_seconds": round(expire_seconds, 2), "residue": sum(result["residue"].values()),
            "python_peak_mb": round(peak / 2**20, 1),
            "process_max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            **load.report(), "machine": machine(),
        }
        self.stdout.write(f"expired {sum(result['deleted'].values())} nodes in {expire_seconds:.1f} s "
                          f"(Python peak {report['python_peak_mb']} MB), residue {report['residue']}; others' p95 "
                          f"{report['others_idle_p95_ms']} ms idle, {report['others_during_p95_ms']} ms during")
        self.stdout.write(json.dumps(report))
