"""Writes of memory and of its governance records."""

import hashlib
import json
import os
import socket
import time
from contextlib import suppress
from datetime import date, datetime

import redis
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError
from neomodel import db
from neomodel.exceptions import UniqueProperty

from memory import cypher, ingest, selectors
from memory.embeddings import get_embedder
from memory.extraction.rules import preference_topic_key
from memory.extraction.speakers import speaker_split
from memory.graph import ENTITY_TYPES
from memory.kinds import ENTITIES, FACTS, MESSAGES, PREFERENCES, kind_get
from memory.models import (CATEGORIES, Agent, AgentToken, ConsentRecord, Correction, CorrectionStatus, Grant,
                           MemoryAccess, MemoryAccessItem, Subject)
from memory.selectors import ACCESS_QUEUE, consented_categories, item_get
from memory.wording import fact_line
from portal.audit import Actor, actor_label, audit_record
from portal.exceptions import ApplicationError, NotFound, StoreUnavailable
from portal.outbox import work_enqueue
from portal import graphdb
from portal.redis_clients import app_redis

# The consumer group of the workers that drain the access log's queue (access_queue_drain).
ACCESS_GROUP = "drain"
ACCESS_BATCH = 500
ACCESS_CLAIM_IDLE_MS = 60_000
LOCK_TIMEOUT_SECONDS = 30
LOCK_WAIT_SECONDS = 10
APPEND_ATTEMPTS = 4


class ConversationBusy(ApplicationError):
    status_code = 409


class AppendOutcomeUnknown(StoreUnavailable):
    """Neo4j went away while committing an append: the messages may be stored or not."""


def subject_get_or_create(*, user) -> Subject:
    subject, _ = Subject.objects.get_or_create(account=user)
    return subject


@transaction.atomic
def agent_token_issue(*, agent: Agent, name: str = "", expires_at: datetime | None = None,
                      actor: Actor = None) -> tuple[AgentToken, str]:
    """Create a token and return it with its secret, which is not stored and cannot be shown again."""
    secret, prefix, digest = AgentToken.new_secret()
    token = AgentToken.objects.create(agent=agent, name=name, prefix=prefix, digest=digest, expires_at=expires_at)
    audit_record(actor=actor, action="token.issue", target_type="token", target_id=prefix,
                 after={"agent": agent.agent_id, "name": name, "expires_at": expires_at.isoformat() if expires_at else None})
    return token, secret


@transaction.atomic
def agent_token_revoke(*, token: AgentToken, actor: Actor = None) -> None:
    revoked = AgentToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    if revoked:
        audit_record(actor=actor, action="token.revoke", target_type="token", target_id=token.prefix,
                     before={"agent": token.agent.agent_id, "revoked": False}, after={"revoked": True})


@transaction.atomic
def grant_create(*, subject: Subject, agent: Agent, actor=None) -> Grant:
    """Let an agent use the subject's memory, consenting to every category for it (the ledger records it)."""
    grant, created = Grant.objects.get_or_create(subject=subject, agent=agent)
    if not created:
        grant.revoked_at = None
        grant.granted_at = timezone.now()
        grant.save(update_fields=["revoked_at", "granted_at"])
    for category in CATEGORIES:
        ConsentRecord.objects.create(subject=subject, agent=agent, category=category, granted=True, actor=actor)
    audit_record(actor=actor, action="grant.create", user_id=subject.user_id, target_type="agent",
                 target_id=agent.agent_id, before={"granted": not created},
                 after={"granted": True, "consent": list(CATEGORIES)})
    return grant


@transaction.atomic
def grant_revoke(*, subject: Subject, agent: Agent, actor: Actor = None) -> None:
    revoked = Grant.objects.filter(subject=subject, agent=agent, revoked_at__isnull=True).update(
        revoked_at=timezone.now())
    if revoked:
        audit_record(actor=actor, action="grant.revoke", user_id=subject.user_id, target_type="agent",
                     target_id=agent.agent_id, before={"granted": True}, after={"granted": False})


@transaction.atomic
def consent_record(*, subject: Subject, agent: Agent | None, category: str, granted: bool, actor=None) -> ConsentRecord:
    if category not in CATEGORIES:
        raise ApplicationError(f"Unknown consent category {category!r}; choose from {', '.join(CATEGORIES)}.")
    record = ConsentRecord.objects.create(subject=subject, agent=agent, category=category, granted=granted,
                                          actor=actor)
    audit_record(actor=actor, action="consent.grant" if granted else "consent.withdraw", user_id=subject.user_id,
                 target_type="consent", target_id=f"{category}:{agent.agent_id if agent else '*'}",
                 after={"category": category, "agent": agent.agent_id if agent else None, "granted": granted,
                        "policy_version": record.policy_version})
    return record


def conversation_lock(*, user_id: str, session_id: str):
    """A lock per conversation that holds across processes and web nodes."""
    return app_redis().lock(
        f"lock:conversation:{user_id}:{session_id}", timeout=LOCK_TIMEOUT_SECONDS, blocking_timeout=LOCK_WAIT_SECONDS
    )


def content_hash(*, role: str, content: str) -> str:
    return hashlib.sha256(f"{role}\x00{content}".encode()).hexdigest()


def messages_append(*, subject: Subject, agent: Agent, session_id: str, messages: list[dict]) -> list[dict]:
    """Append messages in order, once each, and return per message whether it was stored and why not."""
    if "history" not in consented_categories(subject=subject, agent=agent):
        return [
            {"client_message_id": m.get("client_message_id"), "stored": False,
             "reason": "consent_withdrawn", "detail": "The user has not consented to storing conversation history."}
            for m in messages
        ]
    rows = [
        {"role": m["role"], "content": m["content"], "client_id": m.get("client_message_id"),
         "content_hash": content_hash(role=m["role"], content=m["content"]), "explicit": _explicit(m),
         "created_at": m.get("created_at"), "label": speaker_split(m["content"])[0]}
        for m in messages
    ]
    return conversation_append(user_id=subject.user_id, agent_id=agent.agent_id, session_id=session_id, rows=rows)


def _explicit(message: dict) -> str | None:
    known = {key: message[key] for key in ("entities", "facts", "preferences") if message.get(key)}
    return json.dumps(known, default=str) if known else None


def conversation_append(*, user_id: str, agent_id: str, session_id: str, rows: list[dict]) -> list[dict]:
    """Write message rows at the end of the conversation's chain, skipping repeats; the extraction worker
    embeds each one (ingest.message_extract), so an append never waits on the embedder.

    A row is a repeat when its client id is already stored in the conversation, or, without a
    client id, when the same role and content are among the last few messages (a retried call).
    A row's `created_at` (default: now, or the previous message's time if that is later) may not
    be earlier than the message before it: the chain's order is the order of time too.
    """
    lock = conversation_lock(user_id=user_id, session_id=session_id)
    if not lock.acquire():
        raise ConversationBusy("Another append to this conversation is taking too long; retry shortly.")
    try:
        for attempt in range(APPEND_ATTEMPTS):
            try:
                results, created = _conversation_write(user_id=user_id, agent_id=agent_id, session_id=session_id,
                                                       rows=rows)
                break
            except TransientError:  # a deadlock with a worker's write: nothing was written, try again
                if attempt == APPEND_ATTEMPTS - 1:
                    raise ConversationBusy("The memory graph is busy with this person; retry shortly.")
                time.sleep(0.05 * 2 ** attempt)
    finally:
        # A write that outlasted the lock (Neo4j restarting) lost only the lock: the graph write locked
        # the conversation node too, so the chain is whole, and what it stored must still be answered.
        with suppress(redis.exceptions.LockError):
            lock.release()

    stored, fresh = iter(created), []
    for i, result in enumerate(results):
        if result is None:
            uid, seq, client_id, _ = next(stored)
            results[i] = {"client_message_id": client_id, "stored": True, "uid": uid, "seq": seq}
            fresh.append(results[i])
    # Each message was stored `pending` (the extraction outbox); with the broker down it stays so,
    # and the Beat task queues it later, so the caller is told "pending" rather than given an error.
    queued = work_enqueue(kind="extractions", entries=[(r["uid"], (r["uid"], user_id)) for r in fresh])
    for index, result in enumerate(fresh):
        result["extraction"] = "queued" if index < queued else "pending"
    return results


def _conversation_write(*, user_id: str, agent_id: str, session_id: str, rows: list[dict]) -> tuple[list, list]:
    """Append the rows that are not repeats in one transaction; return the results so far and the rows created.

    Neo4j failing before the commit changed nothing (the transaction dies with the connection), and
    the caller hears so; failing during the commit may have stored everything, so the caller hears that
    the outcome is unknown and that a retry is safe: the repeat check answers what was stored as a
    duplicate.
    """
    committing = False
    try:
        with db.transaction:
            results, created = _rows_write(user_id=user_id, agent_id=agent_id, session_id=session_id, rows=rows)
            committing = True
    except (ServiceUnavailable, SessionExpired) as exc:
        if committing:
            raise AppendOutcomeUnknown(
                "The memory graph (Neo4j) became unavailable while committing these messages: they may or may "
                "not be stored. Retrying with the same client_message_id (or the same messages) is safe: what "
                "was stored is answered as a duplicate, never stored twice.",
                {"service": "neo4j", "stored": "unknown"}) from exc
        raise
    return results, created


def _rows_write(*, user_id: str, agent_id: str, session_id: str, rows: list[dict]) -> tuple[list, list]:
    """Write the rows that are not repeats in the open transaction; return the results so far and the rows created."""
    (conversation_uid, previous, seen, labelling), = db.cypher_query(cypher.CONVERSATION_MERGE, {
        "user_id": user_id, "session_id": session_id, "agent_id": agent_id, "window": 2 * len(rows),
        "client_ids": [r["client_id"] for r in rows if r["client_id"]],
        "hashes": [r["content_hash"] for r in rows if not r["client_id"]],
    })[0]
    previous = previous.to_native() if previous is not None else None
    known = {(client_id or digest): (uid, seq) for uid, seq, client_id, digest in seen}
    results, fresh, now = [], [], timezone.now()
    for index, row in enumerate(rows):
        key = row["client_id"] or row["content_hash"]
        if key in known:
            uid, seq = known[key]
            results.append({"client_message_id": row["client_id"], "stored": False, "reason": "duplicate",
                            "uid": uid, "seq": seq, "detail": "Already stored; nothing was written twice."})
            continue
        previous = _message_time(index=index, given=row.get("created_at"), previous=previous, now=now)
        results.append(None)
        # "Name: text" names its speaker in a conversation that labels its turns: its first turn, or one whose
        # turn before was labelled too ("Booked: Monday 7:39" after an unlabelled turn is what was said).
        fresh.append({**row, "created_at": previous, "speaker": row.get("label") if labelling else None})
        labelling = row.get("label") is not None
        known[key] = (None, None)  # a batch may not repeat itself either
    created = []
    if fresh:
        created, _ = db.cypher_query(cypher.MESSAGES_APPEND, {
            "conversation_uid": conversation_uid, "user_id": user_id, "agent_id": agent_id, "messages": fresh,
        })
    return results, created


def _message_time(*, index: int, given: datetime | None, previous: datetime | None, now: datetime) -> datetime:
    """Return the time to store for the message at `index`, refusing one earlier than the one before it."""
    if given is None:
        return max(now, previous) if previous else now
    if previous and given < previous:
        problem = {"created_at": [f"Earlier than the message before it ({previous.isoformat()})."]}
        raise ApplicationError(f"messages[{index}].created_at is earlier than the message before it; "
                               "nothing was stored.", {"fields": {"messages": {str(index): problem}}})
    return given


def trace_start(*, subject: Subject, agent: Agent, session_id: str, task: str) -> str:
    embedding = get_embedder().embed([task])[0].tolist()
    return graphdb.scalar(cypher.TRACE_START, {
        "user_id": subject.user_id, "session_id": session_id, "agent_id": agent.agent_id,
        "task": task, "embedding": embedding,
    })


def trace_step_add(*, subject: Subject, trace_uid: str, thought: str | None, action: str | None,
                   observation: str | None, tool_calls: list[dict]) -> dict:
    step = graphdb.rows(cypher.TRACE_STEP_ADD, {
        "user_id": subject.user_id, "trace_uid": trace_uid, "thought": thought, "action": action,
        "observation": observation, "tool_calls": [_tool_call_row(call) for call in tool_calls],
    })
    if not step:
        raise NotFound("No open reasoning trace with that id.")
    return step[0]


def _tool_call_row(call: dict) -> dict:
    # Arguments and results are free-form JSON; the graph stores them as JSON text.
    return {
        "tool_name": call["tool_name"], "arguments": json.dumps(call.get("arguments")),
        "result": json.dumps(call.get("result")), "status": call.get("status"), "error": call.get("error"),
        "duration_ms": call.get("duration_ms"),
    }


def trace_complete(*, subject: Subject, trace_uid: str, outcome: str, success: bool) -> None:
    completed = graphdb.scalar(cypher.TRACE_COMPLETE, {
        "user_id": subject.user_id, "trace_uid": trace_uid, "outcome": outcome, "success": success,
    })
    if completed is None:
        raise NotFound("No open reasoning trace with that id.")


def item_delete(*, user_id: str, kind: str, uid: str, actor: Actor, reason: str = "") -> int:
    """Forget one item of a subject, with what was derived only from it; return the nodes deleted.

    Every path (the agent API, the person's own pages, staff review) comes here, so each writes its audit row.
    """
    item = kind_get(kind)
    params = {"user_id": user_id, "uid": uid}
    with db.transaction:
        deleted, groups = 0, []
        if item is MESSAGES:
            if not graphdb.scalar(cypher.MESSAGE_UNLINK, params):
                raise NotFound("No message with that id.")
            groups = ingest.message_statement_groups(user_id=user_id, message_uid=uid)
            deleted = (graphdb.scalar(cypher.MESSAGE_DERIVED_DELETE, params)
                       + graphdb.scalar(cypher.MESSAGE_ORPHANS_DELETE, params))
        removed = graphdb.scalar(item.delete_query, params)
        if removed is None:
            raise NotFound(f"No {item.item_title.lower()} with that id.")
        for group in groups:  # what the message said no longer decides which fact or preference is current
            ingest.group_settle(user_id=user_id, group=group)
    deleted += removed
    # A correction of a forgotten item holds its values: it goes too.
    Correction.objects.filter(Q(target_uid=uid) | Q(version_uid=uid), subject__user_id=user_id).delete()
    audit_record(actor=actor, action=f"{item.item_type}.delete", user_id=user_id, target_type=item.item_type,
                 target_id=uid, before={"nodes": deleted}, after={"nodes": 0}, reason=reason)
    return deleted


@transaction.atomic
def access_record(*, subject: Subject, agent: Agent, session_id: str | None, items: list[dict],
                  turn_seq: int | None = None, at: datetime | None = None) -> MemoryAccess:
    """Log which items a context gave the agent, for which turn of the session, and when (default now): the one
    writer of the access log."""
    access = MemoryAccess.objects.create(
        subject=subject, agent=agent, session_id=session_id or "", turn_seq=turn_seq if session_id else None,
        created_at=at or timezone.now(),
        items=[{"type": item["type"], "uid": item["id"], "score": item["score"]} for item in items],
    )
    MemoryAccessItem.objects.bulk_create([
        MemoryAccessItem(access=access, subject=subject, item_type=item["type"], uid=item["id"], score=item["score"])
        for item in items
    ])
    return access


def access_enqueue(*, subject: Subject, agent: Agent, session_id: str | None, items: list[dict],
                   turn_seq: int | None = None) -> None:
    """Queue the access record of a context response for a worker (`access_queue_drain`), so the request
    writes no row; when Redis cannot take it, write it now.

    A record is never lost: if the queue's reply is lost after it took the record, the record is
    written here too, and the drain recognises the copy (same person, agent, session, turn and time).
    """
    at = timezone.now()
    record = {"subject": subject.pk, "agent": agent.pk, "session_id": session_id or "", "turn_seq": turn_seq,
              "at": at.isoformat(), "items": [{key: item[key] for key in ("type", "id", "score")} for item in items]}
    try:
        app_redis().xadd(ACCESS_QUEUE, {"record": json.dumps(record)})
    except (redis.ConnectionError, redis.TimeoutError):
        access_record(subject=subject, agent=agent, session_id=session_id, items=items, turn_seq=turn_seq, at=at)


def access_queue_drain(*, batches: int = 20, claim_idle_ms: int = ACCESS_CLAIM_IDLE_MS) -> int:
    """Write queued access records through `access_record`, a batch per transaction; return how many were written.

    A batch is acknowledged (and removed from the queue) only after it commits. A worker that dies
    holding one leaves it pending, and a later drain takes it over after `claim_idle_ms`; one
    that died after its commit but before acknowledging has its records recognised and not written twice.
    """
    client = app_redis()
    try:
        client.xgroup_create(ACCESS_QUEUE, ACCESS_GROUP, id="0", mkstream=True)
    except redis.ResponseError:  # BUSYGROUP: made by an earlier drain
        pass
    consumer = f"{socket.gethostname()}:{os.getpid()}"
    _, abandoned, _ = client.xautoclaim(ACCESS_QUEUE, ACCESS_GROUP, consumer, min_idle_time=claim_idle_ms,
                                        start_id="0-0", count=ACCESS_BATCH)
    written = _access_batch_write(client=client, entries=abandoned) if abandoned else 0
    for _ in range(batches):
        found = client.xreadgroup(ACCESS_GROUP, consumer, {ACCESS_QUEUE: ">"}, count=ACCESS_BATCH)
        if not found:
            break
        written += _access_batch_write(client=client, entries=found[0][1])
    return written


def _access_batch_write(*, client: redis.Redis, entries: list) -> int:
    records = [json.loads(fields[b"record"]) for _, fields in entries]
    for record in records:
        record["at"] = datetime.fromisoformat(record["at"])
    subjects = Subject.objects.in_bulk({record["subject"] for record in records})
    agents = Agent.objects.in_bulk({record["agent"] for record in records})
    erased = {pk for pk, subject in subjects.items() if selectors.subject_is_erased(user_id=subject.user_id)}
    written = set(MemoryAccess.objects.filter(created_at__in=[record["at"] for record in records]).values_list(
        "subject_id", "agent_id", "session_id", "turn_seq", "created_at"))
    count = 0
    with transaction.atomic():
        for record in records:
            key = (record["subject"], record["agent"], record["session_id"],
                   record["turn_seq"] if record["session_id"] else None, record["at"])
            # A person gone or being erased: their access log goes with their memory.
            if record["subject"] not in subjects or record["subject"] in erased or key in written:
                continue
            access_record(subject=subjects[record["subject"]], agent=agents.get(record["agent"]),
                          session_id=record["session_id"], items=record["items"], turn_seq=record["turn_seq"],
                          at=record["at"])
            written.add(key)
            count += 1
    ids = [entry_id for entry_id, _ in entries]
    client.xack(ACCESS_QUEUE, ACCESS_GROUP, *ids)
    client.xdel(ACCESS_QUEUE, *ids)
    return count


# --- corrections --------------------------------------------------------------------------------

CORRECTABLE = (FACTS.name, PREFERENCES.name, ENTITIES.name)
# The fields a correction of each kind may set.
CORRECTION_FIELDS = {FACTS.name: ("object", "valid_from", "valid_until"),
                     PREFERENCES.name: ("preference", "category"),
                     ENTITIES.name: ("name", "type", "aliases")}


class CorrectionConflict(ApplicationError):
    status_code = 409


def correction_value_check(*, kind: str, value: dict) -> dict:
    """Return the fields a correction of this kind sets, or refuse it naming the field."""
    if kind not in CORRECTABLE:
        raise ApplicationError(f"Only {', '.join(CORRECTABLE)} can be corrected.", {"fields": {"kind": [kind]}})
    fields = {name: value[name] for name in CORRECTION_FIELDS[kind] if value.get(name) not in (None, "")}
    if kind == ENTITIES.name and "aliases" in value and value["aliases"] is not None:
        fields["aliases"] = sorted({alias.strip() for alias in value["aliases"] if alias.strip()})
    if not fields:
        names = ", ".join(CORRECTION_FIELDS[kind])
        raise ApplicationError(f"Give at least one of {names}.", {"fields": {"value": [f"One of {names}."]}})
    if fields.get("type") and fields["type"] not in ENTITY_TYPES:
        raise ApplicationError("Unknown entity type.", {"fields": {"type": [f"One of {', '.join(ENTITY_TYPES)}."]}})
    until, since = fields.get("valid_until"), fields.get("valid_from")
    if until and until > timezone.localdate():
        raise ApplicationError("valid_until is in the future; a fact can be corrected to have ended, not to end.",
                               {"fields": {"valid_until": ["Not after today."]}})
    if until and since and until <= since:
        raise ApplicationError("valid_until is not after valid_from.", {"fields": {"valid_until": ["After valid_from."]}})
    return fields


def _correction_by(*, subject: Subject, actor: Actor, agent: Agent | None) -> str:
    if agent is not None:
        return f"agent {agent.agent_id}"
    if getattr(actor, "pk", None) == subject.account_id:
        return "the person"
    return f"reviewer {actor_label(actor)}"


def _correction_audit(*, correction: Correction, actor: Actor, action: str, reason: str = "") -> None:
    audit_record(actor=actor, action=f"correction.{action}", user_id=correction.subject.user_id,
                 target_type=kind_get(correction.kind).item_type, target_id=correction.target_uid,
                 after={"correction": str(correction.public_id), "status": correction.status,
                        "fields": sorted(correction.value), "version": correction.version_uid,
                        "by": correction.corrected_by, "agent": correction.agent.agent_id if correction.agent else None},
                 reason=reason)


@transaction.atomic
def correction_create(*, subject: Subject, kind: str, uid: str, value: dict, actor: Actor,
                      agent: Agent | None = None, reason: str = "") -> Correction:
    """Correct one item, or, for an agent the person has not let correct directly, propose the correction.

    The person and a reviewer correct at once; so does an agent whose grant allows it (`may_correct`).
    """
    item = item_get(user_id=subject.user_id, kind=kind, uid=uid)
    fields = correction_value_check(kind=kind, value=value)
    correction = Correction.objects.create(
        subject=subject, kind=kind, target_uid=uid, value=_json_ready(fields), reason=reason[:500], agent=agent,
        previous=_json_ready({name: item.get(name) for name in fields}),
        corrected_by=_correction_by(subject=subject, actor=actor, agent=agent))
    direct = agent is None or Grant.objects.filter(subject=subject, agent=agent, may_correct=True).exists()
    if not direct:
        _correction_audit(correction=correction, actor=actor, action="propose", reason=reason)
        return correction
    _correction_apply(correction=correction, actor=actor)
    _correction_audit(correction=correction, actor=actor, action="apply", reason=reason)
    return correction


@transaction.atomic
def correction_accept(*, correction: Correction, actor: Actor) -> Correction:
    """Apply a proposed correction, as decided by the person or a reviewer."""
    _correction_pending(correction=correction)
    decider = _correction_by(subject=correction.subject, actor=actor, agent=None)
    correction.corrected_by = f"{correction.corrected_by}, accepted by {decider}"
    _correction_apply(correction=correction, actor=actor)
    _correction_audit(correction=correction, actor=actor, action="accept")
    return correction


@transaction.atomic
def correction_reject(*, correction: Correction, actor: Actor) -> Correction:
    """Refuse a proposed correction; the item stays as it is."""
    _correction_pending(correction=correction)
    correction.status, correction.decided_at, correction.decided_by = \
        CorrectionStatus.REJECTED, timezone.now(), actor_label(actor)
    correction.save(update_fields=["status", "decided_at", "decided_by"])
    _correction_audit(correction=correction, actor=actor, action="reject")
    return correction


def _correction_pending(*, correction: Correction) -> None:
    if Correction.objects.filter(pk=correction.pk).values_list("status", flat=True).first() != CorrectionStatus.PROPOSED:
        raise CorrectionConflict("This correction was already decided.", {"status": correction.status})


def _json_ready(values: dict) -> dict:
    return json.loads(json.dumps(values, default=lambda v: getattr(v, "to_native", lambda: v)().isoformat()))


def _correction_apply(*, correction: Correction, actor: Actor) -> None:
    """Write the correction to the graph and mark it applied (the caller's transaction holds both)."""
    user_id, value = correction.subject.user_id, correction.value
    item = item_get(user_id=user_id, kind=correction.kind, uid=correction.target_uid)
    correction.previous = _json_ready({name: item.get(name) for name in value})  # as it is now, for an undo
    if correction.kind == ENTITIES.name:
        name = value.get("name", item["name"])
        embedding = get_embedder().embed([name])[0].tolist()
        params = {"user_id": user_id, "uid": correction.target_uid, "name": name,
                  "type": value.get("type", item["type"]), "aliases": value.get("aliases", item["aliases"] or []),
                  "embedding": embedding, "correction_id": str(correction.public_id),
                  "corrected_by": correction.corrected_by}
        try:
            with db.transaction:
                db.cypher_query(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
                graphdb.scalar(cypher.ENTITY_CORRECT, params)
        except UniqueProperty:  # neomodel's name for the (user_id, type, key) constraint refusing it
            raise CorrectionConflict("You already have another entity of that type and name; forget one of them "
                                     "or correct the other.", {"fields": {"type": ["Taken by another entity."]}})
        correction.version_uid = correction.target_uid
    else:
        if item["status"] not in ("current", "superseded"):
            raise CorrectionConflict("This item was corrected or retracted already; correct its current version.",
                                     {"status": item["status"]})
        label = kind_get(correction.kind).label
        correction.version_uid = ingest.derived_uid(user_id, correction.kind, "correction", str(correction.public_id))
        props, stated_from = _version_props(kind=correction.kind, item=item, value=value)
        with db.transaction:
            # Under the person's write lock, so no extraction adds a statement the version would miss.
            db.cypher_query(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
            statements = [
                {**s, "key": ingest.statement_key_restated(key=s["key"], valid_from=stated_from),
                 "valid_from": stated_from or s["valid_from"]}
                for s in graphdb.rows(cypher.STATEMENTS_OF[label], {"user_id": user_id, "uid": correction.target_uid})
            ]
            groups = ingest.node_statement_groups(user_id=user_id, uids=[correction.target_uid])
            created = graphdb.scalar(cypher.VERSION_CREATE[label], {
                "user_id": user_id, "uid": correction.target_uid, "version_uid": correction.version_uid,
                "props": props, "statements": statements, "correction_id": str(correction.public_id),
                "corrected_by": correction.corrected_by})
            if created is None:
                raise CorrectionConflict("This item was corrected or retracted already; correct its current version.")
            groups += ingest.node_statement_groups(user_id=user_id, uids=[correction.version_uid])
            for group in sorted(set(groups), key=lambda g: (g.label, g.key)):
                ingest.group_settle(user_id=user_id, group=group)
    correction.status, correction.decided_at = CorrectionStatus.APPLIED, timezone.now()
    correction.decided_by = actor_label(actor)
    correction.save(update_fields=["status", "decided_at", "decided_by", "version_uid", "corrected_by", "previous"])


def _version_props(*, kind: str, item: dict, value: dict) -> tuple[dict, date | None]:
    """Return the properties of a corrected version, and the valid_from the correction states."""
    if kind == FACTS.name:
        stated_from = date.fromisoformat(value["valid_from"]) if value.get("valid_from") else None
        stated_until = date.fromisoformat(value["valid_until"]) if value.get("valid_until") else None
        obj = value.get("object", item["object"])
        text = fact_line(subject=item["subject"], predicate=item["predicate"], object=obj)
        return {"subject": item["subject"], "predicate": item["predicate"], "object": obj, "confidence": 1.0,
                "embedding": get_embedder().embed([text])[0].tolist(), "stated_from": stated_from,
                "stated_until": stated_until}, stated_from
    text = value.get("preference", item["preference"])
    topic, polarity = ingest.preference_key(text)
    return {"category": value.get("category", item["category"]), "preference": text, "topic": topic,
            "topic_key": preference_topic_key(topic),
            "polarity": polarity, "confidence": 1.0, "context": item.get("context"),
            "embedding": get_embedder().embed([text])[0].tolist()}, None


@transaction.atomic
def correction_undo(*, correction: Correction, actor: Actor) -> Correction:
    """Take an applied correction back: the version it corrected returns (a later correction goes first)."""
    correction = Correction.objects.select_for_update().select_related("subject").get(pk=correction.pk)
    if correction.status != CorrectionStatus.APPLIED:
        raise CorrectionConflict("Only an applied correction can be undone.", {"status": correction.status})
    user_id, later = correction.subject.user_id, "It was corrected again since; undo the later correction first."
    if correction.kind == ENTITIES.name:
        newest = Correction.objects.filter(subject=correction.subject, kind=correction.kind,
                                           target_uid=correction.target_uid, status=CorrectionStatus.APPLIED
                                           ).order_by("-decided_at", "-pk").first()
        if newest != correction:
            raise CorrectionConflict(later)
        before = Correction.objects.filter(subject=correction.subject, kind=correction.kind,
                                           target_uid=correction.target_uid, status=CorrectionStatus.APPLIED
                                           ).exclude(pk=correction.pk).order_by("-decided_at", "-pk").first()
        item = item_get(user_id=user_id, kind=correction.kind, uid=correction.target_uid)
        restored = {**{name: item[name] for name in ("name", "type", "aliases")}, **correction.previous}
        with db.transaction:
            db.cypher_query(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
            graphdb.scalar(cypher.ENTITY_CORRECT, {
                "user_id": user_id, "uid": correction.target_uid, **restored,
                "embedding": get_embedder().embed([restored["name"]])[0].tolist(),
                "correction_id": str(before.public_id) if before else None,
                "corrected_by": before.corrected_by if before else None})
    else:
        label = kind_get(correction.kind).label
        with db.transaction:
            db.cypher_query(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
            groups = ingest.node_statement_groups(user_id=user_id, uids=[correction.version_uid])
            undone = graphdb.scalar(cypher.VERSION_UNDO[label], {
                "user_id": user_id, "uid": correction.target_uid, "version_uid": correction.version_uid,
                "correction_id": str(correction.public_id)})
            if undone is None:
                raise CorrectionConflict(later)
            groups += ingest.node_statement_groups(user_id=user_id, uids=[correction.target_uid])
            for group in sorted(set(groups), key=lambda g: (g.label, g.key)):
                ingest.group_settle(user_id=user_id, group=group)
    correction.status, correction.undone_at = CorrectionStatus.UNDONE, timezone.now()
    correction.save(update_fields=["status", "undone_at"])
    _correction_audit(correction=correction, actor=actor, action="undo")
    return correction


@transaction.atomic
def grant_correction_allow(*, grant: Grant, allowed: bool, actor: Actor = None) -> None:
    """Let an agent correct the person's memory directly (allowed) or only propose corrections."""
    if Grant.objects.filter(pk=grant.pk).exclude(may_correct=allowed).update(may_correct=allowed):
        audit_record(actor=actor, action="grant.correct_allow" if allowed else "grant.correct_propose_only",
                     user_id=grant.subject.user_id, target_type="agent", target_id=grant.agent.agent_id,
                     before={"may_correct": not allowed}, after={"may_correct": allowed})
