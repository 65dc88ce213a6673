"""Erase a person with a large memory while agents keep asking for other people's context; with --disk, then take it
off the disk and check every place byte by byte, and that every other person's context is the same, byte for byte."""

import json
import time

from governance import cypher, disk_step, selectors, services
from governance.management.seeding import OthersUnderLoad, SeededPersonCommand
from governance.models import ErasureScope
from portal.machine import machine


class Command(SeededPersonCommand):
    help = ("Seed a person with N graph items, erase them, and time other people's context calls meanwhile; with "
            "--disk, run the disk step and report the byte-level scan per place and the others' contexts.")

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--others-items", type=int, default=500, help="graph items of each other person")
        parser.add_argument("--erase-others", type=int, default=0, help="also erase this many of the others")
        parser.add_argument("--disk", action="store_true", dest="disk_step",
                            help="then run the disk step and check the bytes")

    def handle(self, *args, items, others, idle_seconds, others_items, erase_others, disk_step, **options):
        subject, seeded = self.person_seeded(label="erase", items=items)

        started = time.perf_counter()
        load = OthersUnderLoad(count=others, items=others_items)
        self.stdout.write(f"seeded {others} other people in {time.perf_counter() - started:.1f} s")
        erased_others, load.people = load.people[:erase_others], load.people[erase_others:]
        # The erasure takes the content's fingerprints and scans the graph for them itself; each step is
        # also timed alone here, outside the erasure's time.
        started = time.perf_counter()
        fingerprints = selectors.content_fingerprints(user_id=subject.user_id, labels=list(cypher.CONTENT_PROPERTIES))
        fingerprint_seconds = time.perf_counter() - started

        contexts = load.contexts() if disk_step else {}
        with load.measured(idle_seconds=idle_seconds):
            job = services.erasure_request(subject=subject, scope=ErasureScope.ALL)
            started = time.perf_counter()
            services.subject_erase(job_id=job.pk)
            erase_seconds = time.perf_counter() - started
        job.refresh_from_db()
        started = time.perf_counter()
        selectors.content_residue(fingerprints=fingerprints)
        scan_seconds = time.perf_counter() - started
        for other in erased_others:
            services.subject_erase(job_id=services.erasure_request(subject=other, scope=ErasureScope.ALL).pk)

        result = {
            "bench": "erasure", "items": seeded, "erase_seconds": round(erase_seconds, 2),
            "fingerprints": len(fingerprints.runs) + len(fingerprints.names),
            "fingerprint_seconds": round(fingerprint_seconds, 2), "content_scan_seconds": round(scan_seconds, 2),
            "nodes_deleted": job.nodes_deleted, "residue": job.tombstone.residue_total,
            "residue_by_store": job.tombstone.residue, "status": job.status, **load.report(),
        }
        if disk_step:
            result |= self._disk(job=job, load=load, contexts=contexts, erased=1 + len(erased_others))
        load.delete()
        subject.account.delete()
        result["machine"] = machine()
        self.stdout.write(f"erased {job.nodes_deleted} nodes in {erase_seconds:.1f} s, residue {result['residue']}; "
                          f"others' p95 {result['others_idle_p95_ms']} ms idle, {result['others_during_p95_ms']} ms "
                          "during erasure")
        self.stdout.write(json.dumps(result))

    def _disk(self, *, job, load: OthersUnderLoad, contexts: dict[str, bytes], erased: int) -> dict:
        """Run the disk step; return its cost, the needles found per place before and after it, and how many of the
        others' contexts are the same, byte for byte, as before the erasure."""
        started = time.perf_counter()
        step = disk_step.disk_erase()
        seconds = time.perf_counter() - started
        job.tombstone.refresh_from_db()
        before, after = job.tombstone.byte_checks[-2:]
        same = sum(contexts[user_id] == content for user_id, content in load.contexts().items())
        self.stdout.write(f"disk step for {erased} erasures in {seconds:.1f} s (Neo4j down "
                          f"{step['steps']['neo4j'].get('downtime_ms', 0) / 1000:.1f} s); needles found "
                          f"{step['hits_before']} before, {step['hits_after']} after; {same} of {len(contexts)} "
                          "contexts the same")
        return {"disk_erasures": erased, "disk_seconds": round(seconds, 2), "disk_steps": step["steps"],
                "disk_scan_seconds": step["scan_seconds"], "needles": before["needles"],
                "hits_before": {name: place.get("hits") for name, place in before["places"].items()},
                "hits_after": {name: place.get("hits") for name, place in after["places"].items()},
                "hits_after_total": step["hits_after"], "bytes_scanned": sum(
                    place.get("bytes", 0) for place in after["places"].values()),
                "contexts_same": same, "contexts": len(contexts)}
