"""Reads of the review pages. Those that read one subject's memory take its `user_id` and use it."""

from datetime import UTC, datetime, timedelta

from django.db.models import Count, Max, QuerySet
from django.utils import timezone
from oauth2_provider.models import get_application_model

from memory.models import Agent, Correction, CorrectionStatus, HeldMemory, HeldStatus, Subject
from memory.graph import ReasoningTrace
from memory.selectors import item_texts, subject_find
from memory.wording import predicate_words
from portal.exceptions import NotFound
from portal.graphdb import moment, rows, scalar
from portal.models import AuditEvent, user_id_digest
from portal.redis_clients import app_redis
from review import cypher
from review.middleware import usage_key

SCORE_BANDS = {"high": (0.85, None), "middle": (0.75, 0.85), "low": (None, 0.75)}
AGES = {"day": ("newer", 1), "week": ("newer", 7), "older-week": ("older", 7), "older-month": ("older", 30)}
TIMELINE_WIDTH = 720
EARLIEST, LATEST = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)


def subject_labels(*, user_ids: set[str]) -> dict[str, str]:
    """Return each subject's account email by public id, for display."""
    return dict(Subject.objects.filter(user_id__in=user_ids).values_list("user_id", "account__email"))


def _merge_params(*, type: str | None, band: str | None, age: str | None) -> dict:
    low, high = SCORE_BANDS.get(band or "", (None, None))
    older = newer = None
    if age in AGES:
        direction, days = AGES[age]
        moment = timezone.now() - timedelta(days=days)
        older, newer = (moment, None) if direction == "older" else (None, moment)
    return {"type": type or None, "min_score": low, "max_score": high, "older_than": older, "newer_than": newer}


def _with_mentions(found: list[dict], *, per_entity: int = 2) -> list[dict]:
    """Return merge rows with the latest messages that mention each of their two entities (`from_mentions`,
    `into_mentions`)."""
    wanted = [{"user_id": row["user_id"], "uid": row[side].uid} for row in found for side in ("from", "into")]
    mentions = {(m["user_id"], m["uid"]): m["mentions"] for m in rows(cypher.ENTITY_MENTIONS, {
        "entities": wanted, "per_entity": per_entity})} if wanted else {}
    return [{**row, **{f"{side}_mentions": mentions.get((row["user_id"], row[side].uid), [])
                       for side in ("from", "into")}} for row in found]


def merge_proposal_page(*, user_id: str | None, type: str | None = None, band: str | None = None,
                        age: str | None = None, page: int = 1, per_page: int = 50) -> dict:
    """Return one page of pending merge proposals, newest first, with the total count."""
    params = {**_merge_params(type=type, band=band, age=age), "user_id": user_id,
              "skip": (page - 1) * per_page, "limit": per_page}
    if user_id:
        found = rows(cypher.MERGES_PENDING_FOR_USER, params, instances=True)
        count = scalar(cypher.MERGES_PENDING_FOR_USER_COUNT, params)
    else:
        params["newer_than"] = params["newer_than"] or EARLIEST
        params["older_than"] = params["older_than"] or LATEST
        page = rows(cypher.MERGES_PENDING, params, instances=True)[0]
        found, count = page["rows"], page["total"]
    # A pending SAME_AS another library wrote between unowned entities is counted on the index, not listed.
    return {"rows": _with_mentions([row for row in found if row["user_id"]]), "count": count}


def merge_decided_page(*, user_id: str | None, type: str | None = None, band: str | None = None,
                       age: str | None = None, page: int = 1, per_page: int = 50) -> list[dict]:
    """Return one page of decided merges (confirmed, automatic, rejected), latest decision first."""
    params = {**_merge_params(type=type, band=band, age=age), "user_id": user_id,
              "skip": (page - 1) * per_page, "limit": per_page}
    return [row for row in rows(cypher.MERGES_DECIDED, params, instances=True) if row["user_id"]]


def merge_names(*, user_id: str, from_uid: str, into_uid: str) -> dict:
    """Return the two names of one of the subject's merges."""
    found = rows(cypher.MERGE_NAMES, {"user_id": user_id, "from_uid": from_uid, "into_uid": into_uid})
    if not found:
        raise NotFound("No merge of those entities.")
    return found[0]


def fact_subject_list(*, user_id: str) -> list[dict]:
    return rows(cypher.FACT_SUBJECTS, {"user_id": user_id})


def facts_to_confirm_people(*, limit: int = 50) -> list[dict]:
    """Return the people with superseded facts waiting for a reviewer, most first, with the subjects of those facts."""
    found = rows(cypher.FACTS_TO_CONFIRM_PEOPLE, {"limit": limit})
    emails = subject_labels(user_ids={row["user_id"] for row in found})
    return [{**row, "email": emails.get(row["user_id"], "")} for row in found]


def fact_get(*, user_id: str, uid: str) -> dict:
    """Return one of the subject's facts (`fact`) and the fact that superseded it (`newer`, or None)."""
    found = rows(cypher.FACT_GET, {"user_id": user_id, "uid": uid}, instances=True)
    if not found:
        raise NotFound("No fact with that id.")
    return found[0]


def fact_timeline(*, user_id: str, subject: str, now: datetime | None = None) -> dict:
    """Return a subject's facts by predicate, each with the geometry of its validity bar on a shared time axis.

    A fact is drawn from when it held (valid_from, else when it was recorded) to when it stopped
    (valid_until, else when it expired), or to now while it holds. A stated date (valid_from "2025-03-03")
    is placed at the start of its day; `start` and `end` keep what was stated, for display. Each bar holds its
    `fact`, the `supersession` that replaced it (confirmed or reverted by whom) and the `newer_uid` it led to.
    """
    now = now or timezone.now()
    facts = []
    for row in rows(cypher.FACT_TIMELINE, {"user_id": user_id, "subject": subject}, instances=True):
        start = row["fact"].valid_from or row["fact"].recorded_at
        end = row["fact"].valid_until or row["fact"].expired_at
        facts.append({**row, "start": start, "end": end, "start_at": moment(start),
                      "end_at": moment(end) if end else None})
    if not facts:
        return {"predicates": [], "axis": []}
    first = min(f["start_at"] for f in facts)
    last = max([now, *(f["end_at"] for f in facts if f["end_at"])])
    span = max((last - first).total_seconds(), 1.0)

    def x(moment: datetime) -> int:
        return round(TIMELINE_WIDTH * (moment - first).total_seconds() / span)

    predicates: dict[str, list[dict]] = {}
    for fact in facts:
        left = x(fact["start_at"])
        fact["x"], fact["width"] = left, max(x(fact["end_at"] or now) - left, 3)
        predicates.setdefault(fact["fact"].predicate, []).append(fact)
    axis = [{"x": x(first + (last - first) * i / 4), "label": first + (last - first) * i / 4} for i in range(5)]
    return {"predicates": [{"predicate": p, "words": predicate_words(p), "facts": fs,
                            "height": 26 * len(fs) + 8} for p, fs in predicates.items()],
            "axis": axis, "width": TIMELINE_WIDTH}


def _trace_params(*, user_id, agent_id, session_id, outcome, since, until) -> dict:
    return {"user_id": user_id or None, "agent_id": agent_id or None, "session_id": session_id or None,
            "outcome": outcome or None, "since": since, "until": until}


def trace_page(*, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
               outcome: str | None = None, since: datetime | None = None, until: datetime | None = None,
               page: int = 1, per_page: int = 50) -> dict:
    """Return one page of reasoning traces, newest first, with the total count."""
    params = _trace_params(user_id=user_id, agent_id=agent_id, session_id=session_id, outcome=outcome,
                           since=since, until=until)
    found = rows(cypher.TRACES_PAGE, {**params, "skip": (page - 1) * per_page, "limit": per_page}, instances=True)
    return {"count": scalar(cypher.TRACES_COUNT, params), "rows": [row for row in found if row["user_id"]]}


def trace_get(*, user_id: str, uid: str) -> ReasoningTrace:
    """Return one of the subject's reasoning traces."""
    found = rows(cypher.TRACE_GET, {"user_id": user_id, "uid": uid}, instances=True)
    if not found:
        raise NotFound("No reasoning trace with that id.")
    return found[0]["trace"]


def trace_similar(*, user_id: str, uid: str, limit: int = 5) -> list[dict]:
    """Return the subject's other traces (`trace`) whose task is nearest by exact cosine of the task embeddings
    (`score`)."""
    return rows(cypher.TRACES_SIMILAR, {"user_id": user_id, "uid": uid, "limit": limit}, instances=True)


def agent_list_with_usage() -> QuerySet[Agent]:
    """Return agents annotated with their context reads and their last use (any token, any read)."""
    return Agent.objects.annotate(
        context_reads=Count("memoryaccess", distinct=True), last_token_use=Max("tokens__last_used_at"),
        last_read=Max("memoryaccess__created_at"),
    )


def agent_counters(*, agent: Agent) -> dict[str, int]:
    """Return the API calls and failed calls counted for an agent."""
    counters = app_redis().hgetall(usage_key(agent.pk))
    return {"calls": int(counters.get(b"calls", 0)), "errors": int(counters.get(b"errors", 0))}


def audit_event_list(*, action: str = "", actor: str = "", user: str = "", since: datetime | None = None,
                     until: datetime | None = None) -> QuerySet[AuditEvent]:
    """Return audit events, newest first, filtered by action prefix, actor, subject (id or email) and time."""
    events = AuditEvent.objects.select_related("actor")
    if action:
        events = events.filter(action__startswith=action)
    if actor:
        events = events.filter(actor_label__icontains=actor)
    if user:
        subject = subject_find(text=user)
        events = events.filter(subject_digest=user_id_digest(subject.user_id if subject else user.strip()))
    if since:
        events = events.filter(created_at__gte=since)
    if until:
        events = events.filter(created_at__lt=until)
    return events


def audit_names(*, events) -> dict[str, dict[str, str]]:
    """Return, for a page of audit events, the names its ids stand for: agents and apps by their ids (`targets`),
    people by their digest (`people`: their email, while they have an account)."""
    wanted = {value for e in events for value in (e.target_id, *(e.after or {}).values()) if isinstance(value, str)}
    targets = dict(Agent.objects.filter(agent_id__in=wanted).values_list("agent_id", "name"))
    targets |= dict(get_application_model().objects.filter(client_id__in=wanted).values_list("client_id", "name"))
    digests = {e.subject_digest for e in events if e.subject_digest}
    people = {}
    if digests:  # a digest names no one by itself: the people whose id hashes to one on the page
        for user_id, email in Subject.objects.filter(account__isnull=False).values_list("user_id", "account__email"):
            if user_id_digest(user_id) in digests:
                people[user_id_digest(user_id)] = email
    return {"targets": targets, "people": people}


def review_counts(*, cap: int) -> dict[str, int]:
    """Return what waits for review: pending merges, superseded facts not yet confirmed, corrections agents
    proposed and memory held for people, each counted up to cap + 1 so that the cost stays bounded, and every trace."""
    proposed = Correction.objects.filter(status=CorrectionStatus.PROPOSED).values("pk")[:cap + 1]
    held = HeldMemory.objects.filter(status=HeldStatus.HELD).values("pk")[:cap + 1]
    return {**rows(cypher.REVIEW_COUNTS, {"cap": cap})[0], "corrections_proposed": proposed.count(),
            "held_waiting": held.count()}


def correction_proposal_page(*, page: int, per_page: int) -> dict:
    """Return one page of the corrections agents proposed that wait for a decision, oldest first, each with
    the text of the item it corrects."""

    waiting = Correction.objects.filter(status=CorrectionStatus.PROPOSED).select_related("subject__account", "agent")
    start = (page - 1) * per_page
    found = list(waiting.order_by("created_at", "pk")[start:start + per_page])
    wanted: dict[str, dict[str, set[str]]] = {}
    for c in found:
        wanted.setdefault(c.subject.user_id, {}).setdefault(c.kind, set()).add(c.target_uid)
    texts = {uid: text for user_id, uids in wanted.items()
             for uid, text in item_texts(user_id=user_id, uids=uids).items()}
    return {"rows": [(c, texts.get(c.target_uid)) for c in found], "count": waiting.count()}


def correction_proposal_get(*, public_id) -> Correction:
    correction = Correction.objects.select_related("subject", "agent").filter(public_id=public_id).first()
    if correction is None:
        raise NotFound("No correction with that id.")
    return correction
