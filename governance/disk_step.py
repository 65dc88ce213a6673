"""The disk step: take off the disk what erasures deleted, and check it byte by byte (docs/erasure.md).

Neo4j's store is compacted by the repository's launcher (a copy of the live graph into a new store: Neo4j serves
nothing meanwhile), the database's files and Redis's persistence files are rewritten from what they hold now, and
every place is scanned for each erasure's needles before and after; each scan is recorded on the erasure's tombstone
and its receipt signed again. A worker that starts checks again (governance.tasks.disk_check_on_start).
"""

import functools
import operator
import time

import redis
from django.db import connection
from django.utils import timezone
from neo4j.exceptions import DriverError, Neo4jError

from governance import cypher, disk, receipts
from governance.models import ErasureTombstone
from memory.models import Correction, HeldMemory
from portal.audit import audit_record
from portal.graphdb import scalar

# Tables whose rows hold a person's words (what was held back, the values of corrections): PostgreSQL rewrites them.
CONTENT_MODELS = (HeldMemory, Correction)
COMPACT_WAIT_SECONDS = 3 * 3600


def disk_erase() -> dict:
    """Take off the disk what erasures deleted, for every erasure waiting for it: scan every place, have Neo4j's store
    compacted (the launcher serves nothing meanwhile), the database's tables that held content and Redis's
    persistence files rewritten, scan again; record both scans on each erasure and sign its receipt again. Erasures
    stepped before are checked once more first (their last check). Return what ran, how long each step took and the
    needles found before and after."""
    report = {"checked_again": disk_check(after="the next disk step")}
    waiting = list(ErasureTombstone.objects.select_related("job").filter(needles__isnull=False,
                                                                         disk_erased_at__isnull=True))
    report["erasures"] = len(waiting)
    if not waiting:
        return report
    needles = {tombstone.pk: disk.needles_open(tombstone.needles) for tombstone in waiting}
    every = functools.reduce(operator.or_, needles.values())
    started = time.monotonic()
    before = disk.scan(needles=every)
    report["scan_seconds"] = round(time.monotonic() - started, 2)
    report["steps"] = {"neo4j": _timed(_neo4j_compact), "database": _timed(_database_rewrite),
                       "redis": _timed(_redis_rewrite)}
    after = disk.scan(needles=every)
    for tombstone in waiting:
        check = _byte_check("the disk step", after, needles[tombstone.pk])
        tombstone.byte_checks = [*tombstone.byte_checks,
                                 _byte_check("before the disk step", before, needles[tombstone.pk]), check]
        if not disk.hits_total(check["places"]):  # else the next disk step takes it again
            tombstone.disk_erased_at = timezone.now()
        tombstone.save(update_fields=["byte_checks", "disk_erased_at"])
        receipts.receipt_issue(tombstone=tombstone)
    report["hits_before"] = disk.hits_total(disk.scan_summary(before, every))
    report["hits_after"] = disk.hits_total(disk.scan_summary(after, every))
    audit_record(actor="disk step", action="erasure.disk", target_type="erasure", target_id="",
                 after={"erasures": report["erasures"], "found_before": report["hits_before"],
                        "found_after": report["hits_after"],
                        "neo4j_down_seconds": report["steps"]["neo4j"].get("downtime_ms", 0) / 1000})
    return report


def disk_check(*, after: str) -> int:
    """Scan again for every erasure whose disk step has run and whose needles are still kept: record the check,
    sign the receipt again, and destroy the needles once a check finds none of them (nothing looks for them after
    that). Return how many erasures were checked."""
    stepped = list(ErasureTombstone.objects.select_related("job").filter(needles__isnull=False,
                                                                         disk_erased_at__isnull=False))
    if not stepped:
        return 0
    needles = {tombstone.pk: disk.needles_open(tombstone.needles) for tombstone in stepped}
    found = disk.scan(needles=functools.reduce(operator.or_, needles.values()))
    for tombstone in stepped:
        check = _byte_check(after, found, needles[tombstone.pk])
        tombstone.byte_checks = [*tombstone.byte_checks, check]
        if not disk.hits_total(check["places"]):
            tombstone.needles = None
        tombstone.save(update_fields=["byte_checks", "needles"])
        receipts.receipt_issue(tombstone=tombstone)
    return len(stepped)


def _byte_check(after: str, found: dict, needles: disk.Needles) -> dict:
    return {"at": timezone.now().isoformat(), "after": after, "needles": len(needles),
            "places": disk.scan_summary(found, needles)}


def _timed(step) -> dict:
    started = time.monotonic()
    return step() | {"seconds": round(time.monotonic() - started, 2)}


def _neo4j_compact() -> dict:
    """Have the repository's launcher compact Neo4j's store and wait until it serves the new one; another Neo4j
    offers no compaction (docs/erasure.md says what its operator can do)."""
    if not scalar(cypher.STORE_COMPACT_OFFERED):
        return {"status": "not offered by this Neo4j server"}
    previous = scalar(cypher.STORE_COMPACTION).get("started")
    scalar(cypher.STORE_COMPACT)
    deadline = time.monotonic() + COMPACT_WAIT_SECONDS
    while time.monotonic() < deadline:
        time.sleep(1)
        try:
            result = scalar(cypher.STORE_COMPACTION)
        except (Neo4jError, DriverError):  # not serving while it compacts, or not yet with its procedures
            continue
        if result.get("started") != previous and result.get("status") in ("done", "failed"):
            return result
    return {"status": "not finished in time"}


def _database_rewrite() -> dict:
    """Rewrite the database's files so that deleted rows' bytes go with them: SQLite whole (VACUUM, its write-ahead
    log truncated; it also zeroes what it deletes, settings' secure_delete), PostgreSQL the tables that held content
    (VACUUM FULL)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("VACUUM")
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        elif connection.vendor == "postgresql":
            for model in CONTENT_MODELS:
                cursor.execute(f"VACUUM FULL {connection.ops.quote_name(model._meta.db_table)}")
        else:
            return {"status": f"not done on {connection.vendor}"}
    return {"status": "done"}


def _redis_rewrite() -> dict:
    """Have each Redis server write its persistence files again from what it holds now: the append-only file when it
    keeps one (BGREWRITEAOF), the dump when it saves one (BGSAVE)."""
    done = []
    for client in disk.redis_servers():
        if client.info("persistence").get("aof_enabled"):
            client.bgrewriteaof()
            _redis_wait(client, "aof_rewrite_in_progress", "aof_rewrite_scheduled")
            done.append("append-only file")
        try:
            saves = bool(client.config_get("save").get("save"))
        except redis.ResponseError:  # CONFIG refused: the server's operator owns its dumps
            saves = False
        if saves:
            client.bgsave()
            _redis_wait(client, "rdb_bgsave_in_progress")
            done.append("dump")
    return {"status": "done", "rewrote": done}


def _redis_wait(client, *flags: str) -> None:
    while any(client.info("persistence").get(flag) for flag in flags):
        time.sleep(0.05)
