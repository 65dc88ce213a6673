"""Erase a person with a large memory while agents keep asking for other people's context."""

import json
import time


from governance import cypher, selectors, services
from governance.management.seeding import OthersUnderLoad, SeededPersonCommand
from governance.models import ErasureScope
from portal.machine import machine


class Command(SeededPersonCommand):
    help = "Seed a person with N graph items, erase them, and time other people's context calls meanwhile."

    def handle(self, *args, items, others, idle_seconds, **options):
        subject, seeded = self.person_seeded(label="erase", items=items)

        load = OthersUnderLoad(count=others)
        # The erasure takes the content's fingerprints and scans the graph for them itself; each step is
        # also timed alone here, outside the erasure's time.
        started = time.perf_counter()
        fingerprints = selectors.content_fingerprints(user_id=subject.user_id, labels=list(cypher.CONTENT_PROPERTIES))
        fingerprint_seconds = time.perf_counter() - started

        with load.measured(idle_seconds=idle_seconds):
            job = services.erasure_request(subject=subject, scope=ErasureScope.ALL)
            started = time.perf_counter()
            services.subject_erase(job_id=job.pk)
            erase_seconds = time.perf_counter() - started
        job.refresh_from_db()
        started = time.perf_counter()
        selectors.content_residue(fingerprints=fingerprints)
        scan_seconds = time.perf_counter() - started
        load.delete()
        subject.account.delete()

        result = {
            "bench": "erasure", "items": seeded, "erase_seconds": round(erase_seconds, 2),
            "fingerprints": len(fingerprints.runs) + len(fingerprints.names),
            "fingerprint_seconds": round(fingerprint_seconds, 2), "content_scan_seconds": round(scan_seconds, 2),
            "nodes_deleted": job.nodes_deleted, "residue": job.tombstone.residue_total,
            "residue_by_store": job.tombstone.residue, "status": job.status, **load.report(), "machine": machine(),
        }
        self.stdout.write(f"erased {job.nodes_deleted} nodes in {erase_seconds:.1f} s, residue {result['residue']}; "
                          f"others' p95 {result['others_idle_p95_ms']} ms idle, {result['others_during_p95_ms']} ms "
                          "during erasure")
        self.stdout.write(json.dumps(result))
