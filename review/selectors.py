"""Reads of the review pages. Those that read one subject's memory take its `user_id` and use it."""

import json
from datetime import UTC, datetime, timedelta

from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone
from neomodel import db

from governance.models import user_id_digest
from memory.models import Agent, Subject
from portal.exceptions import NotFound
from review import cypher
from review.middleware import usage_key
from review.models import AuditEvent

SCORE_BANDS = {"high": (0.85, None), "middle": (0.75, 0.85), "low": (None, 0.75)}
AGES = {"day": ("newer", 1), "week": ("newer", 7), "older-week": ("older", 7), "older-month": ("older", 30)}
TIMELINE_WIDTH = 720
EARLIEST, LATEST = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)


def _native(value):
    return value.to_native() if hasattr(value, "to_native") else value


def subject_find(*, text: str) -> Subject | None:
    """Return the subject with this public id or account email."""
    text = text.strip()
    if not text:
        return None
    return Subject.objects.select_related("account").filter(Q(user_id=text) | Q(account__email__iexact=text)).first()


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


def _merge_row(row) -> dict:
    user_id, status, confidence, scores, evidence, created, decided_by, decided_at, undone_from, added, a, b = row
    return {"user_id": user_id, "status": status, "confidence": confidence, "scores": json.loads(scores or "{}"),
            "evidence": json.loads(evidence or "{}"), "created_at": _native(created), "decided_by": decided_by,
            "decided_at": _native(decided_at), "undone_from": undone_from, "added_aliases": added or [],
            "from": {**a, "aliases": a["aliases"] or []}, "into": {**b, "aliases": b["aliases"] or []}}


def merge_proposal_page(*, user_id: str | None, type: str | None = None, band: str | None = None,
                        age: str | None = None, page: int = 1, per_page: int = 50) -> dict:
    """Return one page of pending merge proposals, newest first, with the total count."""
    params = {**_merge_params(type=type, band=band, age=age), "user_id": user_id,
              "skip": (page - 1) * per_page, "limit": per_page}
    if user_id:
        rows, _ = db.cypher_query(cypher.MERGES_PENDING_FOR_USER, params)
        count = db.cypher_query(cypher.MERGES_PENDING_FOR_USER_COUNT, params)[0][0][0]
    else:
        params["newer_than"] = params["newer_than"] or EARLIEST
        params["older_than"] = params["older_than"] or LATEST
        [[count, rows]], _ = db.cypher_query(cypher.MERGES_PENDING, params)
    return {"rows": [_merge_row(row) for row in rows], "count": count}


def merge_decided_page(*, user_id: str | None, type: str | None = None, band: str | None = None,
                       age: str | None = None, page: int = 1, per_page: int = 50) -> list[dict]:
    """Return one page of decided merges (confirmed, automatic, rejected), latest decision first."""
    params = {**_merge_params(type=type, band=band, age=age), "user_id": user_id,
              "skip": (page - 1) * per_page, "limit": per_page}
    rows, _ = db.cypher_query(cypher.MERGES_DECIDED, params)
    return [_merge_row(row) for row in rows]


def fact_subject_list(*, user_id: str) -> list[dict]:
    rows, _ = db.cypher_query(cypher.FACT_SUBJECTS, {"user_id": user_id})
    return [{"subject": subject, "facts": n, "replaced": replaced} for subject, n, replaced in rows]


def fact_get(*, user_id: str, uid: str) -> dict:
    rows, _ = db.cypher_query(cypher.FACT_GET, {"user_id": user_id, "uid": uid})
    if not rows:
        raise NotFound("No fact with that id.")
    subject, predicate, obj, status, newer_uid, newer_object = rows[0]
    return {"uid": uid, "subject": subject, "predicate": predicate, "object": obj, "status": status,
            "newer_uid": newer_uid, "newer_object": newer_object}


def fact_timeline(*, user_id: str, subject: str, now: datetime | None = None) -> dict:
    """Return a subject's facts by predicate, each with the geometry of its validity bar on a shared time axis.

    A fact is drawn from when it held (valid_from, else when it was recorded) to when it stopped
    (valid_until, else when it expired), or to now while it holds.
    """
    now = now or timezone.now()
    rows, _ = db.cypher_query(cypher.FACT_TIMELINE, {"user_id": user_id, "subject": subject})
    facts = []
    for (uid, predicate, obj, status, valid_from, valid_until, recorded_at, expired_at, newer_uid, reverted_at,
         reverted_by, confirmed_at, confirmed_by) in rows:
        start = _native(valid_from) or _native(recorded_at)
        end = _native(valid_until) or _native(expired_at)
        facts.append({"uid": uid, "predicate": predicate, "object": obj, "status": status, "start": start,
                      "end": end, "recorded_at": _native(recorded_at), "expired_at": _native(expired_at),
                      "newer_uid": newer_uid, "reverted_at": _native(reverted_at), "reverted_by": reverted_by,
                      "confirmed_at": _native(confirmed_at), "confirmed_by": confirmed_by})
    if not facts:
        return {"predicates": [], "axis": []}
    first = min(f["start"] for f in facts)
    last = max([now, *(f["end"] for f in facts if f["end"])])
    span = max((last - first).total_seconds(), 1.0)

    def x(moment: datetime) -> int:
        return round(TIMELINE_WIDTH * (moment - first).total_seconds() / span)

    predicates: dict[str, list[dict]] = {}
    for fact in facts:
        left = x(fact["start"])
        fact["x"], fact["width"] = left, max(x(fact["end"] or now) - left, 3)
        predicates.setdefault(fact["predicate"], []).append(fact)
    axis = [{"x": x(first + (last - first) * i / 4), "label": first + (last - first) * i / 4} for i in range(5)]
    return {"predicates": [{"predicate": p, "facts": fs, "height": 26 * len(fs) + 8}
                           for p, fs in predicates.items()],
            "axis": axis, "width": TIMELINE_WIDTH}


def facts_as_of(*, user_id: str, as_of: datetime) -> list[dict]:
    """Return the subject's facts that held at a past moment, as the context endpoint's `as_of` sees them."""
    rows, _ = db.cypher_query(cypher.FACTS_AS_OF, {"user_id": user_id, "as_of": as_of})
    return [{"uid": uid, "subject": s, "predicate": p, "object": o, "valid_from": _native(vf),
             "recorded_at": _native(ra), "status": status} for uid, s, p, o, vf, ra, status in rows]


def _trace_params(*, user_id, agent_id, session_id, outcome, since, until) -> dict:
    return {"user_id": user_id or None, "agent_id": agent_id or None, "session_id": session_id or None,
            "outcome": outcome or None, "since": since, "until": until}


def trace_page(*, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
               outcome: str | None = None, since: datetime | None = None, until: datetime | None = None,
               page: int = 1, per_page: int = 50) -> dict:
    """Return one page of reasoning traces, newest first, with the total count."""
    params = _trace_params(user_id=user_id, agent_id=agent_id, session_id=session_id, outcome=outcome,
                           since=since, until=until)
    rows, _ = db.cypher_query(cypher.TRACES_PAGE, {**params, "skip": (page - 1) * per_page, "limit": per_page})
    count = db.cypher_query(cypher.TRACES_COUNT, params)[0][0][0]
    return {"count": count, "rows": [
        {"uid": uid, "user_id": uid_of_user, "agent_id": agent, "session_id": session, "task": task,
         "outcome": outcome_text, "success": success, "started_at": _native(started),
         "completed_at": _native(completed), "steps": steps}
        for uid, uid_of_user, agent, session, task, outcome_text, success, started, completed, steps in rows
    ]}


def trace_get(*, user_id: str, uid: str) -> dict:
    """Return a trace with its steps in order, each with its tool calls (arguments and results decoded)."""
    rows, _ = db.cypher_query(cypher.TRACE_GET, {"user_id": user_id, "uid": uid})
    if not rows:
        raise NotFound("No reasoning trace with that id.")
    trace = {k: _native(v) for k, v in rows[0][0].items()}
    steps, _ = db.cypher_query(cypher.TRACE_STEPS, {"user_id": user_id, "uid": uid})
    trace["steps"] = [
        {"order": order, **{k: _native(v) for k, v in step.items()},
         "tool_calls": [{**call, "arguments": _decoded(call["arguments"]), "result": _decoded(call["result"])}
                        for call in calls]}
        for order, step, calls in steps
    ]
    return trace


def _decoded(text):
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False) if text is not None else None
    except ValueError:
        return text


def trace_similar(*, user_id: str, uid: str, limit: int = 5) -> list[dict]:
    """Return the subject's other traces whose task is nearest by exact cosine of the task embeddings."""
    rows, _ = db.cypher_query(cypher.TRACES_SIMILAR, {"user_id": user_id, "uid": uid, "limit": limit})
    return [{"uid": u, "task": task, "outcome": outcome, "success": success, "started_at": _native(started),
             "score": float(score)} for u, task, outcome, success, started, score in rows]


def agent_list_with_usage() -> QuerySet[Agent]:
    """Return agents annotated with their context reads and their last use (any token, any read)."""
    return Agent.objects.annotate(
        context_reads=Count("memoryaccess", distinct=True), last_token_use=Max("tokens__last_used_at"),
        last_read=Max("memoryaccess__created_at"),
    )


def agent_counters(*, agent: Agent, redis_client) -> dict[str, int]:
    """Return the API calls and failed calls counted for an agent."""
    counters = redis_client.hgetall(usage_key(agent.pk))
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
