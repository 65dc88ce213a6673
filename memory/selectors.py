"""Reads of memory. Every function that serves memory takes the subject's `user_id` and uses it."""

import base64
import json
import re
from datetime import datetime

from neomodel import db

from memory import cypher
from memory.models import CATEGORIES, Agent, ConsentRecord, Grant, Subject
from portal.exceptions import ApplicationError, NotFound


WORD = re.compile(r"\w+")


class AccessDenied(ApplicationError):
    status_code = 403


# What an agent or a person may list, with the properties returned and the time it sorts by.
ITEM_KINDS = {
    "messages": ("Message", "created_at", ["role", "content", "seq", "client_id", "agent_id", "created_at",
                                           "extraction_status", "extraction_error"]),
    "facts": ("Fact", "recorded_at", ["subject", "predicate", "object", "confidence", "valid_from", "valid_until",
                                      "recorded_at", "expired_at", "status"]),
    "preferences": ("Preference", "valid_from", ["category", "preference", "context", "confidence", "valid_from",
                                                 "valid_until", "status"]),
    "entities": ("Entity", "created_at", ["name", "type", "aliases", "description", "created_at"]),
    "traces": ("ReasoningTrace", "started_at", ["session_id", "agent_id", "task", "outcome", "success",
                                                "started_at", "completed_at"]),
}
# Categories that each kind of memory belongs to, for consent.
KIND_CATEGORY = {"messages": "history", "facts": "long_term", "preferences": "long_term",
                 "entities": "long_term", "traces": "reasoning"}


def _list_query(label: str, order: str, fields: list[str]) -> str:
    projection = ", ".join(f"{f}: n.{f}" for f in fields)
    return (
        f"MATCH (n:{label} {{user_id: $user_id}}) "
        f"WHERE $after_t IS NULL OR n.{order} < $after_t OR (n.{order} = $after_t AND n.uid < $after_uid) "
        f"RETURN n.uid, n.{order}, {{{projection}}} ORDER BY n.{order} DESC, n.uid DESC LIMIT $limit"
    )


def _get_query(label: str, fields: list[str]) -> str:
    projection = ", ".join(f"{f}: n.{f}" for f in fields)
    return f"MATCH (n:{label} {{uid: $uid, user_id: $user_id}}) RETURN n.uid, {{{projection}}}"


# Built once from the fixed table above, never from input.
LIST_QUERIES = {kind: _list_query(label, order, fields) for kind, (label, order, fields) in ITEM_KINDS.items()}
GET_QUERIES = {kind: _get_query(label, fields) for kind, (label, _, fields) in ITEM_KINDS.items()}


def subject_for_agent(*, agent: Agent, user_id: str) -> Subject:
    """Return the subject an agent may act for, or refuse the same way whether or not it exists."""
    grant = (
        Grant.objects.select_related("subject")
        .filter(agent=agent, subject__user_id=user_id, revoked_at__isnull=True)
        .first()
    )
    if grant is None:
        raise AccessDenied("This agent has no access to that user's memory.", {"user_id": user_id})
    if grant.paused_at is not None:
        raise AccessDenied("The user has paused this agent: it can neither read nor write their memory.",
                           {"user_id": user_id, "paused": True})
    return grant.subject


def consented_categories(*, subject: Subject, agent: Agent | None) -> set[str]:
    """Return the categories the subject consents to for this agent: the newest ledger row decides."""
    records = (
        ConsentRecord.objects.filter(subject=subject, agent__in=[agent] if agent else [])
        | ConsentRecord.objects.filter(subject=subject, agent__isnull=True)
    ).order_by("category", "-created_at", "-pk").values_list("category", "granted")
    decided = {}
    for category, granted in records:
        decided.setdefault(category, granted)
    return {category for category in CATEGORIES if decided.get(category)}


def _encode_cursor(t, uid) -> str:
    raw = json.dumps([_native(t).isoformat(), uid])
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _decode_cursor(cursor: str) -> tuple:
    try:
        t, uid = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return datetime.fromisoformat(t), str(uid)
    except (ValueError, TypeError) as exc:
        raise ApplicationError("Invalid cursor; pass back the `next` value of a previous page.",
                               {"fields": {"cursor": [str(exc)]}})


def item_list(*, user_id: str, kind: str, cursor: str | None = None, limit: int = 50) -> dict:
    """Return one page of a subject's items of a kind, newest first, with the next page's cursor."""
    after_t, after_uid = _decode_cursor(cursor) if cursor else (None, None)
    rows, _ = db.cypher_query(
        LIST_QUERIES[kind],
        {"user_id": user_id, "after_t": after_t, "after_uid": after_uid, "limit": limit + 1},
    )
    page = rows[:limit]
    items = [{"uid": uid, **_plain(props)} for uid, _, props in page]
    next_cursor = _encode_cursor(page[-1][1], page[-1][0]) if len(rows) > limit else None
    return {"items": items, "next": next_cursor}


def item_get(*, user_id: str, kind: str, uid: str) -> dict:
    rows, _ = db.cypher_query(GET_QUERIES[kind], {"user_id": user_id, "uid": uid})
    if not rows:
        raise NotFound(f"No {kind[:-1]} with that id.")
    return {"uid": rows[0][0], **_plain(rows[0][1])}


def _plain(props: dict) -> dict:
    """Turn Neo4j temporal values into Python ones."""
    return {k: (v.to_native() if hasattr(v, "to_native") else v) for k, v in props.items()}


def messages_recent(*, user_id: str, session_id: str, limit: int) -> list[dict]:
    rows, _ = db.cypher_query(cypher.RECENT_MESSAGES, {"user_id": user_id, "session_id": session_id, "limit": limit})
    return [_message(row) for row in rows]


def messages_relevant(*, user_id: str, embedding: list[float], lucene: str | None, exclude: list[str],
                      limit: int) -> list[dict]:
    """Blend exact vector recall and fulltext recall with reciprocal-rank fusion."""
    params = {"user_id": user_id, "embedding": embedding, "exclude": exclude, "limit": limit}
    by_vector, _ = db.cypher_query(cypher.MESSAGES_BY_VECTOR, params)
    by_text = []
    if lucene:
        by_text, _ = db.cypher_query(cypher.MESSAGES_BY_FULLTEXT, {**params, "lucene": lucene})
    fused: dict[str, dict] = {}
    for source, rows in (("vector", by_vector), ("fulltext", by_text)):
        for rank, row in enumerate(rows):
            item = fused.setdefault(row[0], {**_message(row), "scores": {}, "rrf": 0.0})
            item["scores"][source] = round(float(row[6]), 4)
            item["rrf"] += 1.0 / (60 + rank)
    ranked = sorted(fused.values(), key=lambda item: item["rrf"], reverse=True)[:limit]
    for item in ranked:
        item["score"] = item["scores"].get("vector", 0.0)
    return ranked


def _message(row) -> dict:
    return {"uid": row[0], "role": row[1], "content": row[2], "seq": row[3],
            "created_at": row[4].to_native(), "session_id": row[5]}


def facts_relevant(*, user_id: str, embedding: list[float], limit: int, as_of: datetime | None) -> list[dict]:
    rows, _ = db.cypher_query(cypher.FACTS_BY_VECTOR,
                              {"user_id": user_id, "embedding": embedding, "limit": limit, "as_of": as_of})
    return [
        {"uid": uid, "subject": s, "predicate": p, "object": o, "valid_from": _native(vf),
         "valid_until": _native(vu), "recorded_at": _native(ra), "score": float(score), "message_uid": source}
        for uid, s, p, o, vf, vu, ra, score, source in rows
    ]


def preferences_relevant(*, user_id: str, embedding: list[float], limit: int, as_of: datetime | None) -> list[dict]:
    rows, _ = db.cypher_query(cypher.PREFERENCES_BY_VECTOR,
                              {"user_id": user_id, "embedding": embedding, "limit": limit, "as_of": as_of})
    return [
        {"uid": uid, "category": c, "preference": p, "valid_from": _native(vf), "score": float(score),
         "message_uid": source}
        for uid, c, p, vf, score, source in rows
    ]


def entities_relevant(*, user_id: str, embedding: list[float], lucene: str | None, limit: int) -> list[dict]:
    rows, _ = db.cypher_query(
        cypher.ENTITIES_RELEVANT,
        {"user_id": user_id, "embedding": embedding, "lucene": lucene, "limit": limit},
    )
    return [
        {"uid": uid, "name": name, "type": kind, "aliases": aliases or [], "score": float(score), "related": related}
        for uid, name, kind, aliases, score, related in rows
    ]


def traces_similar(*, user_id: str, embedding: list[float], limit: int) -> list[dict]:
    rows, _ = db.cypher_query(cypher.TRACES_BY_VECTOR, {"user_id": user_id, "embedding": embedding, "limit": limit})
    return [
        {"uid": uid, "task": task, "outcome": outcome, "success": success, "score": float(score), "steps": steps}
        for uid, task, outcome, success, score, steps in rows
    ]


def _native(value):
    return value.to_native() if hasattr(value, "to_native") else value


def lucene_query(*, text: str, user_id: str, fields: tuple[str, ...]) -> str | None:
    """Return a tenant-filtered Lucene query for the words of `text`, or None when it has none.

    Only word characters survive and each word is quoted, so no operator or special character
    from the text can reach Lucene.
    """
    words = list(dict.fromkeys(w.lower() for w in WORD.findall(text) if len(w) > 2))[:32]
    if not words:
        return None
    terms = " OR ".join(f'"{w}"' for w in words)
    matches = " OR ".join(f"{field}:({terms})" for field in fields)
    return f'user_id:"{user_id}" AND ({matches})'
