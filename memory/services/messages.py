"""Appending messages to a conversation: in order, once each, under a lock that holds across web nodes."""

import hashlib
import json
import time
from contextlib import suppress
from datetime import datetime

import redis
from django.utils import timezone
from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError
from neomodel import db

from memory import cypher
from memory.extraction.speakers import speaker_split
from memory.models import Agent, Subject
from memory.selectors import PersonWords, consented_categories
from memory.services.grants import consent_refusal
from memory.trust import ROLE_SOURCES, TRUSTED, held_reasons
from portal import graphdb
from portal.exceptions import ApplicationError, StoreUnavailable
from portal.outbox import work_enqueue
from portal.redis_clients import app_redis


LOCK_TIMEOUT_SECONDS = 30
LOCK_WAIT_SECONDS = 10
APPEND_ATTEMPTS = 4


class ConversationBusy(ApplicationError):
    status_code = 409


class AppendOutcomeUnknown(StoreUnavailable):
    """Neo4j went away while committing an append: the messages may be stored or not."""


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
        return [{"client_message_id": m.get("client_message_id"), **consent_refusal(category="history")}
                for m in messages]
    person = PersonWords(user_id=subject.user_id)
    rows = []
    for m in messages:
        trusted = ROLE_SOURCES[m["role"]] in TRUSTED
        rows.append({
            "role": m["role"], "content": m["content"], "client_id": m.get("client_message_id"),
            "content_hash": content_hash(role=m["role"], content=m["content"]), "explicit": _explicit(m),
            "created_at": m.get("created_at"), "label": speaker_split(m["content"])[0],
            "tool_name": m.get("tool_name"), "source_url": m.get("source_url"),
            # read once, at the append, against what the person said before it: their own words are never held
            "held_reasons": None if trusted else held_reasons([m["content"]], person=person,
                                                              source=ROLE_SOURCES[m["role"]])})
        if m["role"] == "user":
            person.pending.append(m["content"])
        elif m["role"] == "tool":
            person.tools_pending.append(m["content"])
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
            message = next(stored)
            results[i] = {"client_message_id": message["client_id"], "stored": True, "uid": message["uid"],
                          "seq": message["seq"]}
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
    conversation = graphdb.rows(cypher.CONVERSATION_MERGE, {
        "user_id": user_id, "session_id": session_id, "agent_id": agent_id, "window": 2 * len(rows),
        "client_ids": [r["client_id"] for r in rows if r["client_id"]],
        "hashes": [r["content_hash"] for r in rows if not r["client_id"]],
    })[0]
    previous, labelling = conversation["last_created_at"], conversation["labelling"]
    known = {(client_id or digest): (uid, seq) for uid, seq, client_id, digest in conversation["seen"]}
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
        created = graphdb.rows(cypher.MESSAGES_APPEND, {
            "conversation_uid": conversation["uid"], "user_id": user_id, "agent_id": agent_id, "messages": fresh,
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
