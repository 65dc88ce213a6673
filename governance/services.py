"""Writes for self-service governance: pause, exports, erasure of a category, of all memory, of an account."""

import io
import json
import os
import shutil
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from governance import cypher, disk, receipts, selectors
from governance.models import ErasureJob, ErasureScope, ErasureTombstone, ExportJob, JobStatus
from memory import services as memory_services
from memory import selectors as memory_selectors
from memory.kinds import ERASE_ORDER, KINDS, category_labels, kind_get
from memory.models import (CATEGORIES, ConsentRecord, Correction, Grant, HeldMemory, MemoryAccess, RetentionChoice,
                           RetentionPolicy, Subject)
from memory.selectors import retention_cutoffs
from memory.wording import (CATEGORY_HELP, CATEGORY_LABELS, PHRASES, category_label, entity_type_label, fact_sentence,
                            moment, provenance, role_label, status_label)
from portal.audit import Actor, audit_record
from portal.exceptions import ApplicationError
from portal.graphdb import rows, scalar
from portal.models import AuditEvent, user_id_digest
from portal.outbox import work_enqueue
from portal.redis_clients import app_redis, broker_redis

EXPORT_PAGE = 1000
# Passes of erase-then-scan before an erasure gives up: a write that raced the first pass (an
# extraction already running) is caught by the next.
ERASE_PASSES = 5


@transaction.atomic
def grant_pause(*, grant: Grant, actor: Actor = None) -> None:
    if Grant.objects.filter(pk=grant.pk, paused_at__isnull=True).update(paused_at=timezone.now()):
        audit_record(actor=actor, action="grant.pause", user_id=grant.subject.user_id, target_type="agent",
                     target_id=grant.agent.agent_id, before={"paused": False}, after={"paused": True})


@transaction.atomic
def grant_resume(*, grant: Grant, actor: Actor = None) -> None:
    if Grant.objects.filter(pk=grant.pk, paused_at__isnull=False).update(paused_at=None):
        audit_record(actor=actor, action="grant.resume", user_id=grant.subject.user_id, target_type="agent",
                     target_id=grant.agent.agent_id, before={"paused": True}, after={"paused": False})


# --- export -----------------------------------------------------------------------------------

@transaction.atomic
def export_request(*, subject: Subject, actor: Actor = None) -> ExportJob:
    """Queue an export of everything about the subject; a worker builds it. Without an actor, the subject asked."""
    job = ExportJob.objects.create(subject=subject)
    audit_record(actor=actor or subject.account, action="export.request", user_id=subject.user_id,
                 target_type="export", target_id=job.public_id)
    # The queued row is the outbox: with the broker down, the Beat task queues the job later.
    transaction.on_commit(lambda: work_enqueue(kind="exports", entries=[(str(job.pk), (job.pk,))]))
    return job


def export_build(*, job_id: int) -> ExportJob:
    """Write the subject's zip page by page (memory stays bounded), then make it downloadable until it expires.

    What is past retention is deleted first, so the archive never holds it.
    """
    job = ExportJob.objects.select_related("subject").get(pk=job_id)
    if job.status not in (JobStatus.QUEUED, JobStatus.RUNNING):
        return job
    subject = job.subject
    user_id = subject.user_id
    retention_apply(subject=subject)
    counts = selectors.export_label_counts(user_id=user_id)
    job.status, job.items_total, job.items_done = JobStatus.RUNNING, sum(counts.values()), 0
    job.save(update_fields=["status", "items_total", "items_done"])

    directory = selectors.export_directory(user_id=user_id)
    directory.mkdir(parents=True, exist_ok=True)
    final = directory / f"{job.public_id}.zip"
    partial = final.with_suffix(".part")
    generated_at = timezone.now()
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.md", _export_readme())
        _readable_write(archive, subject=subject, generated_at=generated_at)
        _nodes_write(archive, job=job, counts=counts)
        relationships = _relationships_write(archive, user_id=user_id, labels=list(counts))
        _records_write(archive, subject=subject)
        archive.writestr("manifest.json", json.dumps({
            "user_id": user_id, "export_id": str(job.public_id), "generated_at": generated_at.isoformat(),
            "nodes": counts, "relationships": relationships, "embedder": settings.EMBEDDER,
        }, indent=2))
    os.replace(partial, final)
    job.status, job.items_done = JobStatus.DONE, sum(counts.values())
    job.file_name = str(final.relative_to(Path(settings.MEDIA_ROOT)))
    job.size_bytes = final.stat().st_size
    job.finished_at = timezone.now()
    job.expires_at = job.finished_at + timedelta(hours=settings.EXPORT_TTL_HOURS)
    job.save()
    return job


def _nodes_write(archive: zipfile.ZipFile, *, job: ExportJob, counts: dict[str, int]) -> None:
    """Write each label's nodes as nodes/<label>.json, a page at a time, counting the job's progress."""
    done = 0
    for label in counts:
        with _json_array(archive, f"nodes/{label}.json") as write:
            for page in _pages(cypher.node_page(label), user_id=job.subject.user_id, label=label):
                for row in page:
                    write({"uid": row["key"], "labels": row["labels"], "properties": dict(row["properties"])})
                done += len(page)
                ExportJob.objects.filter(pk=job.pk).update(items_done=done)


def _relationships_write(archive: zipfile.ZipFile, *, user_id: str, labels: list[str]) -> int:
    """Write the outgoing relationships of the subject's nodes as relationships.json; return how many."""
    relationships = 0
    with _json_array(archive, "relationships.json") as write:
        for label in labels:
            for page in _pages(cypher.relationship_page(label), user_id=user_id, label=label):
                for row in page:
                    if row["type"] is not None:
                        write({"type": row["type"], "from": row["key"], "from_label": label, "to": row["target"],
                               "to_labels": row["target_labels"], "properties": row["properties"]})
                        relationships += 1
    return relationships


def _records_write(archive: zipfile.ZipFile, *, subject: Subject) -> None:
    """Write the subject's consent ledger, access log, corrections and held memory."""
    with _json_array(archive, "consent.json") as write:
        for record in ConsentRecord.objects.filter(subject=subject).select_related("agent").order_by("pk"):
            write({"category": record.category, "agent": record.agent.agent_id if record.agent else None,
                   "granted": record.granted, "policy_version": record.policy_version,
                   "actor": "you" if record.actor_id == subject.account_id else (
                       "someone else" if record.actor_id else None),
                   "created_at": record.created_at})
    with _json_array(archive, "access_log.json") as write:
        for access in MemoryAccess.objects.filter(subject=subject).select_related("agent").order_by("pk").iterator():
            write({"agent": access.agent.agent_id if access.agent else None, "session_id": access.session_id,
                   "items": access.items, "created_at": access.created_at})
    with _json_array(archive, "corrections.json") as write:
        for correction in Correction.objects.filter(subject=subject).select_related("agent").order_by("pk"):
            write({"id": str(correction.public_id), "kind": correction.kind, "target_uid": correction.target_uid,
                   "version_uid": correction.version_uid, "status": correction.status,
                   "previous": correction.previous, "value": correction.value, "reason": correction.reason,
                   "corrected_by": correction.corrected_by,
                   "agent": correction.agent.agent_id if correction.agent else None,
                   "created_at": correction.created_at, "decided_at": correction.decided_at,
                   "undone_at": correction.undone_at})
    with _json_array(archive, "held.json") as write:
        for held in HeldMemory.objects.filter(subject=subject).select_related("agent").order_by("pk"):
            write({"id": str(held.public_id), "message_uid": held.message_uid, "session_id": held.session_id,
                   "source": held.source, "tool_name": held.tool_name, "source_url": held.source_url,
                   "said": held.said, "adds": held.adds, "reasons": held.reasons, "status": held.status,
                   "agent": held.agent.agent_id if held.agent else None, "created_at": held.created_at,
                   "decided_at": held.decided_at})


def _readable_write(archive: zipfile.ZipFile, *, subject: Subject, generated_at) -> None:
    """Write memory.html: the person's memory to read in any browser, in the words of their pages (a fact as a
    sentence, a status, who decided), a page of items at a time; no predicate, key or id."""
    user_id = subject.user_id
    granted = Grant.objects.filter(subject=subject).values_list("agent__agent_id", flat=True)
    names = selectors.agent_names(agent_ids=set(granted))
    with archive.open("memory.html", "w", force_zip64=True) as raw, io.TextIOWrapper(raw, encoding="utf-8") as out:
        out.write(render_to_string("governance/export_memory.html", {"generated_at": generated_at,
                                                                     "email": subject.account.email}))
        for kind in KINDS:
            out.write(format_html("<section><h2>{}</h2><ul>", kind.title))
            cursor, written = None, 0
            while True:
                found = memory_selectors.item_list(user_id=user_id, kind=kind.name, cursor=cursor, limit=EXPORT_PAGE)
                for item in found["items"]:
                    out.write(format_html("<li>{}</li>", _readable_item(kind.name, item, names)))
                    written += 1
                cursor = found["next"]
                if not cursor:
                    break
            out.write(format_html("{}</ul></section>", "" if written else mark_safe("<li>None.</li>")))
        out.write(format_html("<section><h2>{}</h2><ul>", "Consent: what you decided"))
        for record in ConsentRecord.objects.filter(subject=subject).select_related("agent").order_by("pk"):
            out.write(format_html("<li>{}: {} {} {} to {}.</li>", moment(record.created_at),
                                  "you" if record.actor_id == subject.account_id else "the portal",
                                  "gave" if record.granted else "withdrew",
                                  record.agent.name if record.agent else "any other agent",
                                  category_label(record.category).lower()))
        out.write(format_html("</ul></section><section><h2>{}</h2><ul>", "Who was given your memory"))
        for access in MemoryAccess.objects.filter(subject=subject).select_related("agent").order_by("pk").iterator():
            out.write(format_html("<li>{}: {} was given {} item{} of your memory.</li>", moment(access.created_at),
                                  access.agent.name if access.agent else "an agent that was removed",
                                  len(access.items), "" if len(access.items) == 1 else "s"))
        out.write(format_html("</ul></section><section><h2>{}</h2><ul>", "Corrections"))
        for correction in Correction.objects.filter(subject=subject).select_related("agent").order_by("pk"):
            out.write(format_html("<li>{}: a correction of a {} by {}, {}.</li>", moment(correction.created_at),
                                  kind_get(correction.kind).item_title.lower(),
                                  provenance(correction.corrected_by, agent_names=names),
                                  status_label(correction.status)))
        out.write(format_html("</ul></section><section><h2>{}</h2><ul>", "What agents wanted to add"))
        for held in HeldMemory.objects.filter(subject=subject).select_related("agent").order_by("pk"):
            out.write(format_html("<li>{}: {} wanted to add “{}”: {}.</li>", moment(held.created_at),
                                  held.agent.name if held.agent else "an agent that was removed", "; ".join(held.adds),
                                  {"approved": "added", "rejected": "not added"}.get(held.status, "waiting for you")))
        out.write("</ul></section></body></html>\n")


def _readable_item(kind: str, item: dict, names: dict[str, str]) -> str:
    """Return one item of memory as the person's pages show it."""
    status = item.get("status")
    said = f" ({status_label(status)})" if status and status != "current" else ""
    if kind == "facts":
        return fact_sentence(**item) + said
    if kind == "preferences":
        return item["preference"] + said
    if kind == "entities":
        also = f", also called {', '.join(item['aliases'])}" if item.get("aliases") else ""
        return f"{item['name']} ({entity_type_label(item['type'])}{also})"
    if kind == "messages":
        said_by = role_label(item["role"])
        who = said_by if item["role"] == "user" else names.get(item.get("agent_id"), said_by)
        return f"{moment(item['created_at'])}, {who}: {item['content']}"
    return f"{moment(item['started_at'])}: {item['task']}" + (f": {item['outcome']}" if item.get("outcome") else "")


def _export_readme() -> str:
    """Return the archive's README: what each file holds, and how the memory in it reads in words."""
    return render_to_string("governance/export_readme.md", {
        "categories": [(c, CATEGORY_LABELS[c], CATEGORY_HELP[c], category_labels(c)) for c in CATEGORIES],
        "phrases": sorted(PHRASES.items())})


def export_fail(*, job_id: int, error: str) -> None:
    ExportJob.objects.filter(pk=job_id).update(status=JobStatus.FAILED, error=error[:255], finished_at=timezone.now())


def _pages(query: str, *, user_id: str, label: str):
    after = None
    while True:
        page = rows(query, {"user_id": user_id, "label": label, "after": after, "limit": EXPORT_PAGE,
                            "skip": cypher.EMBEDDING_PROPERTIES})
        if not page:
            return
        yield page
        after = page[-1]["key"]


class _json_array:
    """Stream JSON values into one zip member as a JSON array, one value at a time."""

    def __init__(self, archive: zipfile.ZipFile, name: str):
        self.raw = archive.open(name, "w", force_zip64=True)
        self.out = io.TextIOWrapper(self.raw, encoding="utf-8")
        self.first = True

    def __enter__(self):
        self.out.write("[")
        return self.write

    def write(self, value) -> None:
        self.out.write(("\n" if self.first else ",\n") + json.dumps(value, default=_json_default, ensure_ascii=False))
        self.first = False

    def __exit__(self, *exc):
        self.out.write("\n]\n")
        self.out.close()


def _json_default(value):
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(f"Cannot export {type(value).__name__}")


def exports_expire() -> int:
    """Delete the files of exports past their expiry; return how many expired."""
    expired = 0
    for job in ExportJob.objects.filter(status=JobStatus.DONE, expires_at__lte=timezone.now()):
        _export_file_delete(job)
        job.status, job.file_name = JobStatus.EXPIRED, ""
        job.save(update_fields=["status", "file_name"])
        expired += 1
    return expired


def _export_file_delete(job: ExportJob) -> None:
    if job.file_name:
        path = selectors.export_path(job=job)
        path.unlink(missing_ok=True)
        path.with_suffix(".part").unlink(missing_ok=True)


# --- erasure ----------------------------------------------------------------------------------

@transaction.atomic
def erasure_request(*, subject: Subject, scope: str, category: str = "", actor: Actor = None,
                    reason: str = "") -> ErasureJob:
    """Queue an erasure. For all memory, every agent is paused at once, until the erasure has finished.

    Without an actor, the subject asked for it themselves.
    """
    if scope == ErasureScope.CATEGORY and category not in CATEGORIES:
        raise ApplicationError(f"Unknown category {category!r}; choose from {', '.join(CATEGORIES)}.")
    pending = selectors.erasure_pending(subject=subject)
    if pending is not None:
        return pending
    paused = []
    if scope != ErasureScope.CATEGORY:
        grants = Grant.objects.select_for_update().filter(subject=subject, paused_at__isnull=True)
        paused = list(grants.values_list("pk", flat=True))
        grants.update(paused_at=timezone.now())
    job = ErasureJob.objects.create(subject=subject, user_id_digest=user_id_digest(subject.user_id), scope=scope,
                                    category=category if scope == ErasureScope.CATEGORY else "",
                                    paused_grants=paused)
    audit_record(actor=actor or subject.account, action="erasure.request", user_id=subject.user_id,
                 target_type="erasure", target_id=job.public_id,
                 after={"scope": scope, "category": job.category, "paused_grants": len(paused)}, reason=reason)
    transaction.on_commit(lambda: work_enqueue(kind="erasures", entries=[(str(job.pk), (job.pk,))]))
    return job


def subject_erase(*, job_id: int) -> ErasureJob:
    """Erase what the job asks for, in batches, scan every store for residue, and leave a tombstone."""
    job = ErasureJob.objects.select_related("subject").get(pk=job_id)
    if job.status == JobStatus.DONE:
        return job
    subject = job.subject
    user_id, subject_pk = subject.user_id, subject.pk
    job.status, job.started_at = JobStatus.RUNNING, timezone.now()
    job.save(update_fields=["status", "started_at"])
    # What an agent still on neo4j-agent-memory wrote for the person since adoption becomes theirs, so it goes too.
    memory_services.nam_adopt_since(user_id=user_id)
    # Taken before anything goes: afterwards the scans look for this content itself, wherever it was copied, in the
    # graph and, byte by byte, on disk.
    labels = (list(category_labels(job.category)) if job.scope == ErasureScope.CATEGORY
              else list(cypher.CONTENT_PROPERTIES))
    fingerprints = selectors.content_fingerprints(user_id=user_id, labels=labels)
    needles = disk.subject_needles(user_id=user_id, labels=labels)
    kinds = {label: n for label, n in selectors.export_label_counts(user_id=user_id).items()
             if job.scope != ErasureScope.CATEGORY or label in category_labels(job.category)}
    # The outbox's keys of the subject's work name message and export ids, not the subject: taken before too.
    work = (selectors.subject_work_keys(subject=subject)
            if job.scope != ErasureScope.CATEGORY or job.category == "history" else [])

    deleted, residue = _erase_passes(job=job, work=work)
    content = selectors.content_residue(fingerprints=fingerprints, needles=needles)
    kept = {"content_shared_with_others": content["shared_with_others"]} if content["shared_with_others"] else {}
    consent_rows = ConsentRecord.objects.filter(subject=subject).count()
    if job.scope == ErasureScope.ACCOUNT:
        deleted["database_rows"] += consent_rows + Grant.objects.filter(subject=subject).count()
        with transaction.atomic():
            ErasureJob.objects.filter(pk=job.pk).update(subject=None)
            # The trail keeps what the person did, not who they were.
            AuditEvent.objects.filter(actor=subject.account).update(actor=None, actor_label="erased account")
            subject.account.delete()
        residue = selectors.residue_scan(user_id=user_id, subject_pk=subject_pk, scope=job.scope, work=work)
    else:
        kept["consent_records"] = consent_rows
        Grant.objects.filter(pk__in=job.paused_grants).update(paused_at=None)
    residue["content"] = len(content["hits"])
    _erasure_finish(job=job, user_id=user_id, deleted=deleted, residue=residue, kept=kept, hits=content["hits"],
                    kinds=kinds, needles=content["needles"])
    return job


def _erase_passes(*, job: ErasureJob, work: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Erase what the job asks for from every store, then scan for residue, until none is left or ERASE_PASSES
    have run; return what was deleted from each store and what the last scan found."""
    subject = job.subject
    user_id = subject.user_id
    deleted = {"neo4j_nodes": 0, "redis_keys": 0, "broker_messages": 0, "export_files": 0, "database_rows": 0}
    for _ in range(ERASE_PASSES):
        if job.scope == ErasureScope.CATEGORY:
            deleted["neo4j_nodes"] += _category_erase(user_id=user_id, category=job.category)
            deleted["redis_keys"] += _keys_delete(selectors.redis_keys(user_id=user_id, work=work, named=False))
        else:
            deleted["neo4j_nodes"] += _graph_erase(user_id=user_id)
            deleted["redis_keys"] += _redis_erase(user_id=user_id, work=work)
            deleted["broker_messages"] += _broker_erase(user_id=user_id)
            files, rows = _exports_erase(subject=subject)
            deleted["export_files"] += files
            deleted["database_rows"] += rows + MemoryAccess.objects.filter(subject=subject).delete()[0]
        if job.scope != ErasureScope.CATEGORY or job.category == "long_term":  # corrections hold content
            deleted["database_rows"] += Correction.objects.filter(subject=subject).delete()[0]
        if job.scope != ErasureScope.CATEGORY or job.category in ("history", "long_term"):  # held: words and memory
            deleted["database_rows"] += HeldMemory.objects.filter(subject=subject).delete()[0]
        ErasureJob.objects.filter(pk=job.pk).update(nodes_deleted=deleted["neo4j_nodes"])
        # The account itself goes only once its memory is gone.
        scope = ErasureScope.ALL if job.scope == ErasureScope.ACCOUNT else job.scope
        residue = selectors.residue_scan(user_id=user_id, subject_pk=subject.pk, scope=scope, category=job.category,
                                         work=work)
        if not sum(residue.values()):
            break
    return deleted, residue


@transaction.atomic
def _erasure_finish(*, job: ErasureJob, user_id: str, deleted: dict, residue: dict, kept: dict,
                    hits: list[dict], kinds: dict[str, int], needles: disk.Needles) -> None:
    """Leave the erasure's content-free tombstone (with its byte-level needles sealed until the disk step has been
    checked) and its first receipt, and mark the job done, or failed saying what is left."""
    tombstone = ErasureTombstone.objects.create(
        job=job, user_id_digest=job.user_id_digest, scope=job.scope, category=job.category, deleted=deleted,
        residue=residue, kept=kept, residue_hits=hits, kinds=kinds,
        needles=disk.needles_seal(needles) if len(needles) else None)
    job.status = JobStatus.DONE if not sum(residue.values()) else JobStatus.FAILED
    job.error = "" if job.status == JobStatus.DONE else _residue_error(residue)
    job.nodes_deleted, job.finished_at = deleted["neo4j_nodes"], timezone.now()
    job.save(update_fields=["status", "error", "nodes_deleted", "finished_at"])
    audit_record(actor="erasure worker", action="erasure.done", user_id=user_id, target_type="erasure",
                 target_id=job.public_id, after={"status": job.status, "deleted": deleted, "residue": residue})
    receipts.receipt_issue(tombstone=tombstone)
    if job.status == JobStatus.DONE:
        transaction.on_commit(lambda: _ledger_append(job))


def _ledger_append(job: ErasureJob) -> None:
    """Append the erasure to the ledger kept outside the backups: who (as the SHA-256 of their id), what, when."""
    path = Path(settings.ERASURE_LEDGER)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as ledger:
        ledger.write(json.dumps({"person": job.user_id_digest, "scope": job.scope, "category": job.category,
                                 "erasure": str(job.public_id), "erased_at": job.finished_at.isoformat()}) + "\n")


def erasure_ledger_replay(*, path: Path | None = None) -> dict:
    """Erase again whoever a restored backup brought back: for each erasure in the ledger, a person of that id
    (found by its SHA-256) who has not been erased so since, is erased again as then (same scope and category).
    Return how many lines were read and how many erasures ran again."""
    lines = Path(path or settings.ERASURE_LEDGER).read_text().splitlines()
    entries = [json.loads(line) for line in lines if line.strip()]
    subjects = {user_id_digest(subject.user_id): subject for subject in Subject.objects.select_related("account")}
    again = 0
    for entry in entries:
        subject = subjects.get(entry["person"])
        since = ErasureJob.objects.filter(user_id_digest=entry["person"], scope=entry["scope"],
                                          category=entry["category"], status=JobStatus.DONE,
                                          finished_at__gte=datetime.fromisoformat(entry["erased_at"]))
        if subject is None or not Subject.objects.filter(pk=subject.pk).exists() or since.exists():
            continue
        job = erasure_request(subject=subject, scope=entry["scope"], category=entry["category"],
                              actor="erasure ledger", reason=f"erasure {entry['erasure']} replayed after a restore")
        subject_erase(job_id=job.pk)
        again += 1
    return {"ledger_lines": len(entries), "erased_again": again}


def _residue_error(residue: dict[str, int]) -> str:
    """Return what is left after an erasure and how to finish it, for the person and staff."""
    if residue.get("content") and sum(residue.values()) == residue["content"]:
        return (f"Your content is still in {residue['content']} place(s) no one owns, listed below. Staff finish the "
                "erasure by deleting them: Erasure jobs, action \"Finish: delete the residue found\".")
    return ("Something of yours remained after erasing (counts per store below); it was retried. Staff can "
            "request the erasure again once the store that held it answers.")


def erasure_residue_delete(*, job: ErasureJob, actor: Actor) -> ErasureJob:
    """Finish a failed erasure whose only residue is content in nodes no one owns: delete those nodes (the
    tombstone lists them), check that none is left, and mark the job done. Anything else leaves it failed."""
    tombstone = job.tombstone
    if job.status != JobStatus.FAILED or sum(tombstone.residue.values()) != tombstone.residue.get("content", 0):
        raise ApplicationError("Only a failed erasure whose sole residue is content in unowned nodes can be finished.")
    nodes = sorted({hit["node"] for hit in tombstone.residue_hits})
    deleted = scalar(cypher.RESIDUE_NODES_DELETE, {"nodes": nodes})
    left = scalar(cypher.RESIDUE_NODES_LEFT, {"nodes": nodes})
    with transaction.atomic():
        tombstone.deleted["residue_nodes"] = tombstone.deleted.get("residue_nodes", 0) + deleted
        tombstone.residue["content"] = left
        if not left:
            tombstone.residue_hits = []
        tombstone.save(update_fields=["deleted", "residue", "residue_hits"])
        if not left:
            job.status, job.error = JobStatus.DONE, ""
            job.save(update_fields=["status", "error"])
        audit_record(actor=actor, action="erasure.finish", target_type="erasure", target_id=job.public_id,
                     after={"status": job.status, "residue_nodes_deleted": deleted, "left": left})
    return job


def erasure_fail(*, job_id: int, error: str) -> None:
    ErasureJob.objects.filter(pk=job_id).update(status=JobStatus.FAILED, error=error[:255], finished_at=timezone.now())


def _graph_erase(*, user_id: str) -> int:
    """Delete every node carrying the subject's id, under any label, with its relationships."""
    labels = list(ERASE_ORDER) + [label for label in selectors.graph_labels() if label not in ERASE_ORDER]
    return memory_services.labels_erase(user_id=user_id, labels=labels)


def _category_erase(*, user_id: str, category: str) -> int:
    total = memory_services.labels_erase(user_id=user_id, labels=list(category_labels(category)))
    if category == "history":
        total += memory_services.conversations_empty_erase(user_id=user_id)
    return total


def _redis_erase(*, user_id: str, work: list[str]) -> int:
    return _keys_delete(selectors.redis_keys(user_id=user_id, work=work))


def _keys_delete(keys: list[bytes]) -> int:
    for start in range(0, len(keys), 1000):
        app_redis().delete(*keys[start:start + 1000])
    return len(keys)


def _broker_erase(*, user_id: str) -> int:
    """Drop queued and unacknowledged task messages that mention the subject (their payloads are its data)."""
    broker = broker_redis()
    removed = 0
    for kind, key, entry in list(selectors.broker_messages(user_id=user_id)):
        if kind == "list":
            removed += broker.lrem(key, 0, entry)
        else:
            removed += broker.hdel(key, entry)
            broker.zrem(b"unacked_index", entry)
    return removed


def _exports_erase(*, subject: Subject) -> tuple[int, int]:
    directory = selectors.export_directory(user_id=subject.user_id)
    files = sum(1 for p in directory.rglob("*") if p.is_file()) if directory.exists() else 0
    shutil.rmtree(directory, ignore_errors=True)
    rows, _ = ExportJob.objects.filter(subject=subject).delete()
    return files, rows


# --- retention --------------------------------------------------------------------------------


@transaction.atomic
def retention_choose(*, subject: Subject, category: str, days: int | None, actor: Actor = None) -> None:
    """Keep a category's memory only `days` days (None: as long as staff keep it); only shorter than staff."""
    if category not in CATEGORIES:
        raise ApplicationError(f"Unknown category {category!r}; choose from {', '.join(CATEGORIES)}.",
                               {"fields": {"category": [category]}})
    staff = RetentionPolicy.objects.filter(category=category, agent__isnull=True).values_list("days", flat=True).first()
    if days is not None and (days < 1 or (staff is not None and days >= staff)):
        limit = f"fewer than the {staff} days staff keep it" if staff else "at least one day"
        raise ApplicationError(f"Choose {limit}.", {"fields": {"days": [f"{days} is not {limit}."]}})
    before = RetentionChoice.objects.filter(subject=subject, category=category).values_list("days", flat=True).first()
    if days is None:
        RetentionChoice.objects.filter(subject=subject, category=category).delete()
    else:
        RetentionChoice.objects.update_or_create(subject=subject, category=category,
                                                 defaults={"days": days, "chosen_at": timezone.now()})
    audit_record(actor=actor or subject.account, action="retention.choose", user_id=subject.user_id,
                 target_type="retention", target_id=category, before={"days": before}, after={"days": days})


def retention_apply(*, subject: Subject, at: datetime | None = None, actor: Actor = "retention worker") -> dict:
    """Delete what is past the subject's retention, as erasure deletes (batched, what was derived only from
    expired messages with them, what newer messages support kept and settled again), then check that nothing
    expired is left; return the nodes deleted per kind and the residue. Exports made before go too."""

    cutoffs = retention_cutoffs(subject=subject, agent=None, at=at)
    if not any(cutoffs.values()) or selectors.subject_is_erased(user_id=subject.user_id):
        return {}
    started = timezone.now()
    deleted = dict.fromkeys((kind.name for kind in KINDS), 0)
    for _ in range(ERASE_PASSES):
        for kind, count in memory_services.expired_forget(user_id=subject.user_id, cutoffs=cutoffs).items():
            deleted[kind] += count
        residue = selectors.retention_expired(subject=subject, at=at)
        if not sum(residue.values()):
            break
    exports = 0
    if sum(deleted.values()):
        for job in ExportJob.objects.filter(subject=subject, status=JobStatus.DONE, finished_at__lt=started):
            _export_file_delete(job)
            job.status, job.file_name = JobStatus.EXPIRED, ""
            job.save(update_fields=["status", "file_name"])
            exports += 1
        audit_record(actor=actor, action="retention.apply", user_id=subject.user_id, target_type="retention",
                     target_id=subject.user_id, before={"cutoffs": {c: t.isoformat() if t else None
                                                                    for c, t in cutoffs.items()}},
                     after={"deleted": deleted, "exports_expired": exports, "residue": residue})
    return {"deleted": deleted, "exports_expired": exports, "residue": residue}
