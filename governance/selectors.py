"""Reads for the self-service pages, the export worker and the residue scan.

Every function that reads memory takes the subject's `user_id` and uses it.
"""

import base64
import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models import Count, Max
from django.db.models.functions import Cast
from django.utils.text import Truncator

from governance import cypher, disk
from governance.models import ErasureJob, ErasureScope, ErasureTombstone, ExportJob, JobStatus
from memory.kinds import KINDS, category_labels, kind_get
from memory.models import (CATEGORIES, Agent, ConsentRecord, Grant, MemoryAccess, MemoryAccessItem, RetentionChoice,
                           RetentionPolicy, Subject)
from memory import selectors as memory_selectors
from memory.selectors import consented_categories, item_texts, retention_cutoffs, retention_days
from memory.graph import RelatedTo, SameAs
from memory.wording import entity_type_label, fact_text, predicate_words, status_label, words
from portal.exceptions import NotFound
from portal import graphdb
from portal.graphdb import rows, scalar
from portal.outbox import WorkCount, WorkItem, work_keys
from portal.models import user_id_digest
from portal.redis_clients import app_redis, broker_redis

BROKER_QUEUE_TYPES = (b"list", "list")
# How much of a message the entity graph shows on its node.
# The neighbourhood's drawing, in CSS pixels: wide enough for a tablet without scaling its 13 px text under 12 px,
# each side's labels cut to what fits beside the middle (the list under it has them whole).
DRAWING_WIDTH, DRAWING_ROW, DRAWING_PAD, DRAWING_SPREAD = 700, 52, 28, 104
DRAWING_LABEL_CHARS = 26
DRAWING_KINDS = {"fact": "a fact about it", "message": "a message that mentions it"}
WORD = re.compile(r"\w+")
# A text's fingerprints are its runs of RUN_WORDS words (the whole text when shorter); runs shorter
# than RUN_CHARS characters ("thank you", "in the morning") are said by everyone and tell no one apart.
RUN_WORDS = 8
RUN_CHARS = 20
# A name is looked for as a whole value, and only when it has several words: "Lisbon" is anyone's.
NAME_WORDS = 2
# An id this long ("nam-alice", a UUID) is the person's wherever it is written; a shorter one only as a whole value.
ID_CHARS = 8


def subject_is_erased(*, user_id: str) -> bool:
    """Return whether a worker must refuse to write memory for this subject now.

    True while an erasure of the subject's memory is queued or running, and for good once the
    account was deleted; a subject who erased their memory but kept the account may be written to
    again once the erasure has finished.
    """
    digest = user_id_digest(user_id)
    return (
        ErasureJob.objects.filter(user_id_digest=digest, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).exists()
        or ErasureJob.objects.filter(user_id_digest=digest, scope=ErasureScope.ACCOUNT).exists()
    )


def graph_labels() -> list[str]:
    return [row["label"] for row in rows(cypher.LABELS)]


def label_count(*, user_id: str, label: str) -> int:
    return scalar(cypher.count(label), {"user_id": user_id, "label": label})


def node_counts(*, user_id: str) -> dict[str, int]:
    """Return how many conversations, messages, facts... the subject has."""
    return {"conversations": label_count(user_id=user_id, label="Conversation"),
            **{kind.name: label_count(user_id=user_id, label=kind.label) for kind in KINDS}}


def export_label_counts(*, user_id: str) -> dict[str, int]:
    """Return the subject's node count per label (each node under its first label), non-empty labels only."""
    counts = {label: label_count(user_id=user_id, label=label) for label in graph_labels()}
    return {label: n for label, n in counts.items() if n}


def entity_neighbourhood(*, user_id: str, uid: str, limit: int = 25) -> dict:
    """Return an entity with those it is related to (each with its link in `words`), the facts about it (each with
    its `text`) and the messages that mention it, and the drawing of all of them."""
    row = memory_selectors.entity_neighbourhood(user_id=user_id, uid=uid, limit=limit)
    entity = row["entity"]
    related = [{**r, "words": _relation_words(r["link"])} for r in row["related"]]
    facts = [{"fact": f, "text": fact_text(f)} for f in row["facts"]]
    connected = ([(r["words"], r["entity"].name, _entity_kind(r["entity"].type)) for r in related]
                 + [("a fact about it", f["text"], "fact") for f in facts])
    mentioned = [("mentioned in", m.content, "message") for m in row["messages"]]
    return {"entity": entity, "related": related, "facts": facts, "messages": row["messages"],
            "drawing": _drawing(center=entity.name, kind=_entity_kind(entity.type), left=connected, right=mentioned)}


def _entity_kind(entity_type: str) -> str:
    return entity_type_label(entity_type).replace(" ", "-")


def _drawing(*, center: str, kind: str, left: list[tuple[str, str, str]], right: list[tuple[str, str, str]]) -> dict:
    """Lay out an entity's neighbourhood as a drawing: the entity in the middle, what it is connected to on the left
    and the messages that mention it on the right, one row each (a caption over a label), so no two labels meet and
    each reads at its own size. Each side's items are (caption, text, kind); sizes are CSS pixels."""
    height = max(len(left), len(right), 1) * DRAWING_ROW + 2 * DRAWING_PAD
    cx, cy = DRAWING_WIDTH / 2, height / 2
    nodes = []
    for items, x, text_x, anchor in ((left, cx - DRAWING_SPREAD, cx - DRAWING_SPREAD - 12, "end"),
                                     (right, cx + DRAWING_SPREAD, cx + DRAWING_SPREAD + 12, "start")):
        top = cy - len(items) * DRAWING_ROW / 2
        for i, (caption, text, node_kind) in enumerate(items):
            y = top + DRAWING_ROW * (i + 0.5)
            nodes.append({"x": x, "y": y, "text_x": text_x, "caption_y": y - 5, "label_y": y + 13, "anchor": anchor,
                          "caption": caption, "title": text, "label": Truncator(text).chars(DRAWING_LABEL_CHARS),
                          "kind": node_kind})
    label = Truncator(center).chars(DRAWING_LABEL_CHARS)
    box = len(label) * 9 + 20
    kinds = dict.fromkeys([kind, *(n["kind"] for n in nodes)])
    return {"width": DRAWING_WIDTH, "height": height, "cx": cx, "cy": cy, "nodes": nodes, "kind": kind,
            "center": {"label": label, "box_x": cx - box / 2, "box_y": cy + 20, "box": box, "label_y": cy + 38},
            "legend": [(k, DRAWING_KINDS.get(k, k.replace("-", " "))) for k in kinds]}


def _relation_words(link: RelatedTo | SameAs) -> str:
    """Return a link between entities in words: "works at" (read from the side it starts at), "same as"."""
    if isinstance(link, SameAs):
        return f"same as ({status_label(link.status)})" if link.status else "same as"
    return predicate_words(link.type or "RELATED_TO")


def agent_names(*, agent_ids: set[str]) -> dict[str, str]:
    """Return each agent's name by its public id, for pages that name the agent a graph node records."""
    return dict(Agent.objects.filter(agent_id__in=agent_ids).values_list("agent_id", "name"))


def grant_list(*, subject: Subject):
    return Grant.objects.filter(subject=subject).select_related("agent").order_by("agent__name")


def grant_get(*, subject: Subject, agent_id: str) -> Grant:
    grant = Grant.objects.filter(subject=subject, agent__agent_id=agent_id).select_related("agent").first()
    if grant is None:
        raise NotFound("No agent with that id has access to your memory.")
    return grant


def consent_matrix(*, subject: Subject) -> list[dict]:
    """Return, for all agents and then each agent with a grant, which categories are consented to."""
    rows = [{"agent": None, "consented": consented_categories(subject=subject, agent=None)}]
    for grant in grant_list(subject=subject).filter(revoked_at__isnull=True):
        rows.append({"agent": grant.agent, "consented": consented_categories(subject=subject, agent=grant.agent)})
    for row in rows:
        row["categories"] = [(category, category in row["consented"]) for category in CATEGORIES]
    return rows


def consent_ledger(*, subject: Subject):
    return ConsentRecord.objects.filter(subject=subject).select_related("agent", "actor").order_by("-created_at", "-pk")


def access_list(*, subject: Subject):
    return (MemoryAccess.objects.filter(subject=subject).select_related("agent").prefetch_related("item_rows")
            .order_by("-created_at", "-pk"))


def export_list(*, subject: Subject):
    return ExportJob.objects.filter(subject=subject)


def export_get(*, subject: Subject, public_id) -> ExportJob:
    """Return one of the subject's exports; another subject's is not found, exactly like a missing one."""
    job = ExportJob.objects.filter(subject=subject, public_id=public_id).first()
    if job is None:
        raise NotFound("No export with that id.")
    return job


def erasure_get(*, subject: Subject, public_id) -> ErasureJob:
    job = ErasureJob.objects.filter(subject=subject, public_id=public_id).select_related("tombstone").first()
    if job is None:
        raise NotFound("No erasure with that id.")
    return job


def erasure_pending(*, subject: Subject) -> ErasureJob | None:
    return ErasureJob.objects.filter(subject=subject, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).first()


def tombstone_list(*, subject: Subject):
    return ErasureTombstone.objects.filter(job__subject=subject)


def account_tombstone_get(*, public_id) -> ErasureJob:
    """Return an account erasure by its unguessable id; it holds no content, so no sign-in is needed."""
    job = ErasureJob.objects.filter(public_id=public_id, scope=ErasureScope.ACCOUNT).select_related(
        "tombstone").first()
    if job is None:
        raise NotFound("No account erasure with that id.")
    return job


# Export and erasure jobs are their own outbox: a row stays queued (or running) until a worker is done with it.
UNFINISHED = [JobStatus.QUEUED, JobStatus.RUNNING]


def _jobs_waiting(model: type[models.Model], *, before: datetime, limit: int) -> list[WorkItem]:
    jobs = model.objects.filter(status__in=UNFINISHED, created_at__lt=before).order_by("created_at")[:limit]
    return [WorkItem(key=str(pk), args=(pk,), since=created_at) for pk, created_at in jobs.values_list("pk", "created_at")]


def _jobs_count(model: type[models.Model], *, stuck_before: datetime) -> WorkCount:
    return WorkCount(**model.objects.filter(status__in=UNFINISHED).aggregate(
        waiting=models.Count("pk"), stuck=models.Count("pk", filter=models.Q(created_at__lt=stuck_before)),
        oldest=models.Min("created_at")))


def exports_waiting(*, before: datetime, limit: int) -> list[WorkItem]:
    """Return the export jobs requested before `before` and not finished, oldest first."""
    return _jobs_waiting(ExportJob, before=before, limit=limit)


def exports_count(*, stuck_before: datetime) -> WorkCount:
    return _jobs_count(ExportJob, stuck_before=stuck_before)


def erasures_waiting(*, before: datetime, limit: int) -> list[WorkItem]:
    """Return the erasure jobs requested before `before` and not finished, oldest first."""
    return _jobs_waiting(ErasureJob, before=before, limit=limit)


def erasures_count(*, stuck_before: datetime) -> WorkCount:
    return _jobs_count(ErasureJob, stuck_before=stuck_before)


def export_directory(*, user_id: str) -> Path:
    """Return where a subject's export files live; the name reveals neither the id nor any content."""
    return Path(settings.MEDIA_ROOT) / "exports" / user_id_digest(user_id)[:32]


def export_path(*, job: ExportJob) -> Path:
    return Path(settings.MEDIA_ROOT) / job.file_name


def subject_work_keys(*, subject: Subject) -> list[str]:
    """Return the names of the keys the outbox may hold in the app's Redis for the subject's work (each
    message's extraction, each export), which name ids, not the subject: take them before erasing."""
    messages = memory_selectors.message_uids(user_id=subject.user_id)
    exports = [str(pk) for pk in ExportJob.objects.filter(subject=subject).values_list("pk", flat=True)]
    return work_keys(kind="extractions", keys=messages) + work_keys(kind="exports", keys=exports)


def redis_keys(*, user_id: str, work: list[str] = (), named: bool = True) -> list[bytes]:
    """Return the keys in the app's Redis (caches, locks, counters) whose names mention the subject (unless not
    `named`), and those of `work` (subject_work_keys) that exist."""
    client = app_redis()
    found = list(client.scan_iter(match=f"*{user_id}*", count=1000)) if named else []
    for start in range(0, len(work), 1000):
        pipe = client.pipeline(transaction=False)
        for name in work[start:start + 1000]:
            pipe.exists(name)
        found += [name.encode() for name, held in zip(work[start:start + 1000], pipe.execute()) if held]
    return found


def broker_messages(*, user_id: str) -> Iterator[tuple[str, bytes, bytes]]:
    """Yield (kind, key, entry) for task messages in the broker that mention the subject.

    Queued messages sit in list keys (one per queue); those a worker has taken but not yet
    acknowledged sit in the `unacked` hash (kind "unacked", entry = delivery tag).
    """
    broker = broker_redis()
    for key in broker.scan_iter(count=1000):
        kind = broker.type(key)
        if kind in BROKER_QUEUE_TYPES:
            for raw in broker.lrange(key, 0, -1):
                if _mentions(raw, user_id):
                    yield "list", key, raw
        elif key == b"unacked":
            for tag, raw in broker.hscan_iter(key, count=1000):
                if _mentions(raw, user_id):
                    yield "unacked", key, tag


def _mentions(raw: bytes, user_id: str) -> bool:
    if user_id.encode() in raw:
        return True
    try:
        message = json.loads(raw)
        message = message[0] if isinstance(message, list) else message
        return user_id.encode() in base64.b64decode(message.get("body", ""))
    except (ValueError, TypeError, AttributeError):
        return False


def database_rows(*, user_id: str, subject_pk: int, account: bool) -> dict[str, int]:
    """Return rows of any table that still mention the subject's public id, or still hold its memory.

    Every text and JSON column of every model is searched for the id. When the account is kept,
    the subject row itself (the account's link to its id) is not residue.
    """
    found = {}
    own = []
    if not account:
        # The person's own sign-in (a username such as "nam:<identifier>", an email), wherever it is
        # written (the account, its addresses, the audit trail's actor), says who they are, not what
        # they said; it stays with the account.
        signin = get_user_model().objects.filter(subject__pk=subject_pk).values("username", "email").first() or {}
        own = [value for value in signin.values() if value]
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if not isinstance(field, (models.CharField, models.TextField, models.JSONField)):
                continue
            if model is Subject and field.name == "user_id" and not account:
                continue
            n = (model.objects.annotate(_text=Cast(field.name, models.TextField()))
                 .filter(_text__contains=user_id).exclude(_text__in=own).count())
            if n:
                key = f"{model._meta.label}.{field.name}"
                found[key] = found.get(key, 0) + n
    owned = [MemoryAccess, ExportJob]
    if account:
        owned += [Grant, ConsentRecord]
        found_subject = Subject.objects.filter(pk=subject_pk).count()
        if found_subject:
            found["memory.Subject"] = found_subject
    for model in owned:
        n = model.objects.filter(subject_id=subject_pk).count()
        if n:
            found[model._meta.label] = n
    return found


@dataclass(frozen=True)
class Fingerprints:
    """What an erasure looks for after deleting: the subject's ids, runs of their words, their names.

    `ids` (the public id, and NAM's identifier and id for a person NAM knew, as folded words) count
    wherever they are written when they have ID_CHARS characters or more, else as a whole value only.
    """

    user_id: str
    runs: frozenset[str]
    names: frozenset[str]
    ids: frozenset[str] = frozenset()

    @property
    def run_lengths(self) -> list[int]:
        return sorted({run.count(" ") + 1 for run in self.runs})

    @property
    def run_starts(self) -> frozenset[str]:
        return frozenset(run.split(" ", 1)[0] for run in self.runs)


def _words(text: str) -> list[str]:
    return WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def text_fingerprints(text: str) -> set[str]:
    """Return a text's runs of words, normalised (case, accents' forms, punctuation and spacing go)."""
    words = _words(text)
    runs = {" ".join(words[i:i + RUN_WORDS]) for i in range(len(words) - RUN_WORDS + 1)} or {" ".join(words)}
    return {run for run in runs if len(run) >= RUN_CHARS}


def content_fingerprints(*, user_id: str, labels: list[str]) -> Fingerprints:
    """Return the fingerprints of the subject's content under these labels; take them before erasing.

    They cover the subject's own nodes and what neo4j-agent-memory wrote for a user of this identifier
    that was never adopted, which the erasure cannot reach by `user_id`.
    """
    texts = [row["text"] for label in labels if label in cypher.CONTENT_PROPERTIES
             for row in rows(cypher.content_texts(label),
                             {"user_id": user_id, "properties": cypher.CONTENT_PROPERTIES[label]})]
    texts += [row["text"] for row in rows(cypher.NAM_CONTENT_TEXTS, {"user_id": user_id}) if row["label"] in labels]
    names = set()
    if "Entity" in labels:
        names = {" ".join(words) for row in rows(cypher.ENTITY_NAMES, {"user_id": user_id})
                 if len(words := _words(row["name"])) >= NAME_WORDS}
    nam = memory_selectors.nam_references(user_id=user_id)
    ids = {user_id} | nam["ids"]
    names |= {" ".join(_words(name)) for name in nam["names"]}
    return Fingerprints(user_id=user_id, runs=frozenset(run for text in texts for run in text_fingerprints(text)),
                        names=frozenset(names), ids=frozenset(" ".join(_words(i)) for i in ids if _words(i)))


def _matches(text: str, fingerprints: Fingerprints, lengths: list[int], starts: frozenset[str]) -> set[str]:
    """Return the fingerprints a value holds: runs anywhere in it, a name as the whole of it."""
    if text == fingerprints.user_id:
        return {text}
    words = _words(text)
    whole = " ".join(words)
    found = {whole} if whole in fingerprints.names or whole in fingerprints.ids else set()
    found |= {i for i in fingerprints.ids if len(i) >= ID_CHARS and f" {i} " in f" {whole} "}
    for i, word in enumerate(words):
        if word in starts:
            found.update(run for n in lengths if i + n <= len(words)
                         and (run := " ".join(words[i:i + n])) in fingerprints.runs)
    return found


def content_residue(*, fingerprints: Fingerprints, needles: list[disk.NodeNeedles] = ()) -> dict:
    """Look for the subject's fingerprints in every property of every node left that is not theirs.

    A hit in a node without an owner (another library's, one never adopted, one written by hand) is
    residue, reported as label, property and node id, never as content. Another person's memory is
    theirs even where it says what the subject said ("prefers dark mode in every app"): what it holds
    is counted as shared, and a node without an owner that holds only shared content is no residue.
    The same pass drops from the byte-level scan's `needles` (disk.subject_needles) what any node left
    holds (curated knowledge too: it may be on disk), and returns the rest as `needles`.
    """
    lengths, starts = fingerprints.run_lengths, fingerprints.run_starts
    candidates, shared, shared_bytes = [], set(), set()
    words = {needle for runs, tokens, _ in needles for needle in runs | tokens}
    matcher = disk.Matcher(disk.Needles(tokens=words), words=True) if words else None
    for record in graphdb.stream(cypher.RESIDUE_TEXTS, {"user_id": fingerprints.user_id}):
        for key, value in record["texts"]:
            for text in value if isinstance(value, list) else [value]:
                if matcher:  # what the graph still holds, anyone's or no one's, may be on disk
                    shared_bytes |= matcher.found(text.encode())
                found = _matches(text, fingerprints, lengths, starts)
                if not found:
                    continue
                if record["owner"] is None:
                    candidates.append(((record["labels"][0] if record["labels"] else "", key, record["node"]), found))
                else:
                    shared |= found - {fingerprints.user_id} - fingerprints.ids
    hits = {hit: None for hit, found in candidates if found - shared}
    return {"hits": [{"label": label, "property": key, "node": node} for label, key, node in hits],
            "shared_with_others": len(shared), "needles": disk.needles_unshared(nodes=needles, shared=shared_bytes)}


def residue_scan(*, user_id: str, subject_pk: int, scope: str, category: str = "", work: list[str] = ()
                 ) -> dict[str, int]:
    """Count what is left of a subject in every store after an erasure of the given scope; all zero is clean.

    `work` names the outbox's keys of the subject's work (subject_work_keys), taken before erasing.
    """
    if scope == ErasureScope.CATEGORY:
        left = {"neo4j": sum(label_count(user_id=user_id, label=label) for label in category_labels(category))}
        # Erased messages leave their extraction's keys behind unless the erasure removed them.
        return left | ({"redis": len(redis_keys(user_id=user_id, work=work, named=False))} if work else {})
    directory = export_directory(user_id=user_id)
    files = sum(1 for p in directory.rglob("*") if p.is_file()) if directory.exists() else 0
    return {
        "neo4j": scalar(cypher.RESIDUE_NODES, {"user_id": user_id}),
        "redis": len(redis_keys(user_id=user_id, work=work)),
        "broker": sum(1 for _ in broker_messages(user_id=user_id)),
        "database": sum(database_rows(user_id=user_id, subject_pk=subject_pk,
                                      account=scope == ErasureScope.ACCOUNT).values()),
        "files": files,
    }


# --- retention and where memory was used ---------------------------------------------------------

def retention_expired(*, subject: Subject, at: datetime | None = None) -> dict[str, int]:
    """Return how many of the subject's items of each kind are past retention (what the next run deletes)."""
    cutoffs = retention_cutoffs(subject=subject, agent=None, at=at)
    if not any(cutoffs.values()):
        return {kind.name: 0 for kind in KINDS}
    return memory_selectors.expired_counts(user_id=subject.user_id, cutoffs=cutoffs)


def retention_subjects():
    """Return the subjects whose memory may expire: everyone under a staff default, else those who chose one."""
    subjects = Subject.objects.order_by("pk")
    if RetentionPolicy.objects.filter(agent__isnull=True, days__isnull=False).exists():
        return subjects
    return subjects.filter(retention_choices__isnull=False).distinct()


def retention_overview(*, subject: Subject) -> list[dict]:
    """Return per category what staff keep, what the subject chose, what holds (days, None: forever; the
    oldest moment kept) and how many items are past it."""
    defaults = dict(RetentionPolicy.objects.filter(agent__isnull=True).values_list("category", "days"))
    chosen = dict(RetentionChoice.objects.filter(subject=subject).values_list("category", "days"))
    held = retention_days(subject=subject, agent=None)
    cutoffs = retention_cutoffs(subject=subject, agent=None)
    expired = retention_expired(subject=subject)
    return [{"category": category, "default": defaults.get(category), "chosen": chosen.get(category),
             "days": held[category], "cutoff": cutoffs[category],
             "expired": sum(n for name, n in expired.items() if kind_get(name).category == category)}
            for category in CATEGORIES]


def kind_retention_days(*, subject: Subject, kind: str) -> int | None:
    """Return how many days the subject's items of a kind are kept (None: forever): what is derived from
    messages is kept no longer than the messages are (memory.cypher.clauses.retention_cutoff)."""
    days = retention_days(subject=subject, agent=None)
    category = kind_get(kind).category
    if category != "long_term":
        return days[category]
    limits = [d for d in (days["history"], days["long_term"]) if d]
    return min(limits) if limits else None


def kept_until(*, subject: Subject, kind: str, items: list[dict]) -> list[dict]:
    """Return the items with `kept_until`, the moment each goes (None: kept forever)."""
    days = kind_retention_days(subject=subject, kind=kind)
    return [{**item, "kept_until": item["kept_since"] + timedelta(days=days)
             if days and item.get("kept_since") else None} for item in items]


def item_uses(*, subject: Subject, uid: str) -> list[dict]:
    """Return which agents received one of the subject's items in a context, how often and when last."""
    return list(MemoryAccessItem.objects.filter(subject=subject, uid=uid)
                .values("access__agent__agent_id", "access__agent__name")
                .annotate(times=Count("pk"), last_at=Max("access__created_at"))
                .order_by("-last_at"))


def items_read(*, subject: Subject, accesses: list[MemoryAccess]) -> dict[int, list[dict]]:
    """Return, per access (by pk), the items it gave in order: each with its kind (None: not the person's
    memory, such as curated knowledge), its text as a person reads it (None: no longer kept) and its score."""
    kinds = {kind.item_type: kind for kind in KINDS}
    found = {access.pk: sorted(access.item_rows.all(), key=lambda row: row.pk) for access in accesses}
    wanted: dict[str, set[str]] = {}
    for item_rows in found.values():
        for row in item_rows:
            if row.item_type in kinds:
                wanted.setdefault(kinds[row.item_type].name, set()).add(row.uid)
    texts = item_texts(user_id=subject.user_id, uids=wanted)
    return {pk: [{"item_type": row.item_type, "uid": row.uid, "score": row.score, "text": texts.get(row.uid),
                  "kind": kinds[row.item_type].name if row.item_type in kinds else None,
                  "title": kinds[row.item_type].item_title if row.item_type in kinds else None} for row in item_rows]
            for pk, item_rows in found.items()}


def access_page(*, subject: Subject, accesses: list[MemoryAccess]) -> list[dict]:
    """Return a page of the access log as a person reads it: per request the agent, the conversation it
    served and the items it gave, grouped by kind in the registry's order (what is not memory last)."""
    items = items_read(subject=subject, accesses=accesses)
    sessions = {access.session_id for access in accesses if access.session_id}
    conversations = memory_selectors.conversations_of_sessions(user_id=subject.user_id, sessions=sessions)
    titles = {kind.name: kind.title for kind in KINDS}
    page = []
    for access in accesses:
        groups: dict[str, list[dict]] = {}
        for item in items[access.pk]:
            groups.setdefault(item["kind"] or item["item_type"], []).append(item)
        order = sorted(groups, key=lambda name: list(titles).index(name) if name in titles else len(titles))
        page.append({"access": access, "conversation": conversations.get(access.session_id),
                     "groups": [(titles.get(name) or words(name).capitalize(), groups[name]) for name in order]})
    return page


def turn_contexts(*, subject: Subject, session_id: str) -> dict[int, list[dict]]:
    """Return, per turn (the seq of its first message) of one of the subject's sessions, the contexts that
    served it: agent, time and the items given, each with the kind its page is under (None: not memory)."""

    accesses = list(MemoryAccess.objects.filter(subject=subject, session_id=session_id, turn_seq__isnull=False)
                    .select_related("agent").prefetch_related("item_rows").order_by("created_at", "pk"))
    items = items_read(subject=subject, accesses=accesses)
    turns: dict[int, list[dict]] = {}
    for access in accesses:
        turns.setdefault(access.turn_seq, []).append(
            {"agent": access.agent, "created_at": access.created_at, "items": items[access.pk]})
    return turns
