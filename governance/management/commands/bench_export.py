"""Export a person with a large memory and report the time and the peak memory it took."""

import json
import resource
import time
import tracemalloc

from django.core.management.base import BaseCommand

from governance import selectors, services
from governance.management.seeding import graph_seed, person_create
from governance.models import ErasureScope, ExportJob
from portal.machine import machine


class Command(BaseCommand):
    help = "Seed a person with N graph items, build their export, print time and peak memory."

    def add_arguments(self, parser):
        parser.add_argument("--items", type=int, default=100_000)

    def handle(self, *args, items, **options):
        subject = person_create(label="export")
        started = time.perf_counter()
        seeded = graph_seed(user_id=subject.user_id, items=items)
        self.stdout.write(f"seeded {seeded} items in {time.perf_counter() - started:.1f} s")

        job = ExportJob.objects.create(subject=subject)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        started = time.perf_counter()
        job = services.export_build(job_id=job.pk)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        size = selectors.export_path(job=job).stat().st_size

        services.subject_erase(job_id=services.erasure_request(subject=subject, scope=ErasureScope.ACCOUNT).pk)
        result = {
            "bench": "export", "items": seeded, "exported_nodes": job.items_done, "seconds": round(seconds, 2),
            "python_peak_mb": round(peak / 2**20, 1), "max_rss_growth_mb": round((rss_after - rss_before) / 1024, 1),
            "max_rss_mb": round(rss_after / 1024, 1), "zip_mb": round(size / 2**20, 1), "machine": machine(),
        }
        self.stdout.write(f"exported {job.items_done} nodes in {seconds:.1f} s; Python peak {result['python_peak_mb']} MB, "
                          f"max RSS grew {result['max_rss_growth_mb']} MB; zip {result['zip_mb']} MB")
        self.stdout.write(json.dumps(result))
