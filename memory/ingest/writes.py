"""Extraction's writes: one stored message embedded, extracted, and its entities, relations, facts and preferences
written as statements of it; then resolution and supersession for what it said."""

import json
from datetime import date, datetime

from neo4j.exceptions import ClientError
from neomodel import db

from memory import cypher
from memory.embeddings import get_embedder, int8_copy
from memory.extraction import ExtractedEntity, ExtractedFact, ExtractedPreference, Extraction, Turn, get_extractor
from memory.extraction.rules import predicate_cardinality, preference_topic, preference_topic_key
from memory.extraction.speakers import speaker_split
from memory.ingest.corrections import corrections_follow
from memory.ingest.holding import APPLY, DROPPED, HOLD, memory_hold
from memory.ingest.keys import (Statement, entity_key, entity_uid, fact_uid, preference_topic_split,
                                preference_uid)
from memory.ingest.resolution import entities_resolve
from memory.ingest.supersession import StatementGroup, group_settle, preferences_settle
from memory.models import Agent, Subject
from memory.selectors import consented_categories, subject_is_erased
from memory.units import sentence_spans, units_stored
from memory.wording import fact_line
from portal import graphdb
from portal.outbox import work_enqueue

ENTITY_NOT_FOUND = "Neo.ClientError.Statement.EntityNotFound"
# Messages given their copies in one write by message_copies_fill.
COPIES_BATCH = 1000


def message_extract(*, message_uid: str, user_id: str) -> str:
    """Embed one message (an append stores it without its vector), then extract, resolve and supersede for
    it; return what happened.

    A message erased in the meantime (or whose subject is being erased), already extracted, or whose
    subject withdrew long-term consent (checked now, not when the task was queued) is left alone.
    """
    if subject_is_erased(user_id=user_id):
        return "gone"
    found = graphdb.rows(cypher.MESSAGE_FOR_EXTRACTION, {"uid": message_uid, "user_id": user_id}, as_stored=True)
    if not found:
        return "gone"
    row = found[0]
    if row["unembedded"] or row["unsplit"]:
        _message_embed(row, user_id=user_id)
    if row["status"] == "done":
        return "done"
    subject = Subject.objects.filter(user_id=user_id).first()
    agent = Agent.objects.filter(agent_id=row["agent_id"]).first()
    if subject is None or "long_term" not in consented_categories(subject=subject, agent=agent):
        _set_status(message_uid, user_id, "skipped", "No consent for long-term memory when extraction ran.")
        return "skipped"
    created_at = row["created_at"].to_native()
    statement = Statement(message_uid=message_uid, created_at=created_at, seq=row["seq"],
                          stored_at=(row["stored_at"] or row["created_at"]).to_native())
    extraction = _forgotten_left_out(_extraction(row, created_at), user_id=user_id, forgotten=row["forgotten"])
    held = memory_hold(subject=subject, agent=agent, message=row, extraction=extraction)
    if held != APPLY:
        _set_status(message_uid, user_id, "held" if held == HOLD else "skipped", None if held == HOLD else DROPPED)
        return "held" if held == HOLD else "skipped"
    vectors = _embed(extraction)
    try:
        with db.transaction:
            memory_write(user_id=user_id, statement=statement, text=row["content"], extraction=extraction,
                         vectors=vectors)
            _set_status(message_uid, user_id, "done", None)
    except ClientError as exc:
        if exc.code == ENTITY_NOT_FOUND:  # deleted while we wrote: the transaction rolled back
            return "gone"
        raise
    return "done"


def _message_embed(row: dict, *, user_id: str) -> None:
    """Set a message's vector and its sentences (memory.units), all from one call to the embedder; a speaker's label
    says who, not what, and is left out of both. A message embedded before messages kept their sentences gets them
    alone, so that whenever it was first read it ends the same."""
    content = row["content"]
    said = speaker_split(content)[1]
    spans = sentence_spans(said, offset=len(content) - len(said))
    sentences = [content[start:end] for start, end in spans] if len(spans) > 1 else []
    whole = [said] if row["unembedded"] else []
    vectors = get_embedder().embed(whole + sentences) if whole or sentences else []
    units = units_stored(spans, vectors[len(whole):])
    if not whole:
        graphdb.run(cypher.MESSAGE_UNITS_SET, {"uid": row["uid"], "user_id": user_id, **units})
        return
    embedding = vectors[0].tolist()
    graphdb.run(cypher.MESSAGE_EMBEDDING_SET, {"uid": row["uid"], "user_id": user_id, "embedding": embedding,
                                               "embedding_int8": int8_copy(embedding), **units})


def _extraction(row: dict, created_at: datetime) -> Extraction:
    """Return what a message states: the agent's explicit fields when it sent them, else the extractor's reading."""
    if row["explicit"]:
        return extraction_from_explicit(json.loads(row["explicit"]))
    return get_extractor().extract(text=row["content"], role=row["role"], reference_date=created_at.date(),
                                   context=[Turn(role=t["role"], content=t["content"]) for t in row["earlier"]])


def _forgotten_left_out(extraction: Extraction, *, user_id: str, forgotten: list[str] | None) -> Extraction:
    """Leave out of a message's extraction what the person forgot of it (memory.graph.Message.forgotten), so
    extracting it again brings none of it back."""
    if not forgotten:
        return extraction
    gone = set(forgotten)
    extraction.entities = [e for e in extraction.entities
                           if entity_uid(user_id=user_id, type=e.type, name=e.name) not in gone]
    extraction.facts = [f for f in extraction.facts if fact_uid(
        user_id=user_id, subject=f.subject, predicate=f.predicate, object=f.object) not in gone]
    extraction.preferences = [p for p in extraction.preferences if preference_uid(
        user_id=user_id, topic=_topic(p), polarity=p.polarity) not in gone]
    return extraction


def _topic(preference: ExtractedPreference) -> str:
    return preference_topic(preference.topic) or preference_topic(preference.preference)


def message_copies_fill(*, batch: int = COPIES_BATCH) -> int:
    """Give every message that has a vector and no copy of it in signed bytes its copy, `batch` at a time; return
    how many. Messages stored before copies existed, and those adopted from neo4j-agent-memory with their vectors,
    have none: recall scans them by their floats until then."""
    filled, after = 0, ""
    while found := graphdb.rows(cypher.MESSAGES_WITHOUT_COPY, {"after": after, "limit": batch}):
        graphdb.run(cypher.MESSAGE_COPIES_SET, {"rows": [
            {"uid": row["uid"], "copy": int8_copy(row["embedding"])} for row in found]})
        filled += len(found)
        after = found[-1]["uid"]
    return filled


def _set_status(message_uid: str, user_id: str, status: str, error: str | None) -> None:
    graphdb.run(cypher.MESSAGE_EXTRACTION_STATUS,
                {"uid": message_uid, "user_id": user_id, "status": status, "error": error})


def message_extraction_failed(*, message_uid: str, user_id: str, error: str) -> None:
    _set_status(message_uid, user_id, "failed", error[:2000])


def messages_reextract(*, user_id: str | None, statuses: list[str]) -> tuple[int, int]:
    """Mark the messages of these statuses (one subject's, or everyone's) pending and queue their extraction
    again; return how many were queued and how many were marked. With the broker down the rest stay
    pending, and the Beat re-dispatch queues them once it is back."""
    marked = graphdb.rows(cypher.MESSAGES_REEXTRACT, {"user_id": user_id, "statuses": statuses})
    queued = work_enqueue(kind="extractions", entries=[(m["uid"], (m["uid"], m["user_id"])) for m in marked])
    return queued, len(marked)


def extraction_from_explicit(data: dict) -> Extraction:
    """Build an Extraction from what an agent sent with the message (it skips the extractor)."""
    preferences = []
    for p in data.get("preferences", []):
        topic, negative = preference_topic_split(p["preference"])
        preferences.append(ExtractedPreference(category=p["category"], preference=p["preference"], confidence=1.0,
                                               topic=topic, polarity="negative" if negative else "positive"))
    return Extraction(
        entities=[ExtractedEntity(name=e["name"], type=e["type"], aliases=list(e.get("aliases", [])))
                  for e in data.get("entities", [])],
        facts=[
            ExtractedFact(
                subject=f["subject"], predicate=f["predicate"], object=f["object"],
                cardinality=f.get("cardinality") or predicate_cardinality(f["predicate"]),
                confidence=f.get("confidence", 1.0),
                valid_from=date.fromisoformat(f["valid_from"]) if f.get("valid_from") else None,
            )
            for f in data.get("facts", [])
        ],
        preferences=preferences,
        extractor="explicit",
    )


def _embed(extraction: Extraction) -> dict[str, list]:
    """Embed every entity name, fact and preference of one message in one call, before any lock is taken."""
    texts = {"entities": [e.name for e in extraction.entities],
             "facts": [fact_line(subject=f.subject, predicate=f.predicate, object=f.object) for f in extraction.facts],
             "preferences": [p.preference for p in extraction.preferences]}
    flat = [text for group in texts.values() for text in group]
    vectors = iter(get_embedder().embed(flat) if flat else [])
    return {kind: [next(vectors).tolist() for _ in group] for kind, group in texts.items()}


def memory_write(*, user_id: str, statement: Statement, text: str, extraction: Extraction,
                 vectors: dict[str, list]) -> None:
    """Write one message's entities, relations, facts and preferences, then resolve and supersede.

    The person's write lock comes first: their writes are serialised, so resolution and supersession
    always read everything committed before them.
    """
    graphdb.run(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
    entity_uids = _entities_write(user_id=user_id, statement=statement, entities=extraction.entities,
                                  vectors=vectors["entities"])
    _relations_write(user_id=user_id, statement=statement, extraction=extraction, entity_uids=entity_uids)
    _facts_write(user_id=user_id, statement=statement, facts=extraction.facts, vectors=vectors["facts"],
                 entity_uids=entity_uids)
    _preferences_write(user_id=user_id, statement=statement, preferences=extraction.preferences,
                       vectors=vectors["preferences"])
    entities_resolve(user_id=user_id, statement=statement, text=text, uids=sorted(set(entity_uids.values())))


def _entities_write(*, user_id: str, statement: Statement, entities: list[ExtractedEntity],
                    vectors: list[list]) -> dict[str, str]:
    """Write the message's entities and mentions; return name keys -> entity uids."""
    rows, uids = [], {}
    for entity, vector in zip(entities, vectors):
        uid = entity_uid(user_id=user_id, type=entity.type, name=entity.name)
        mention = entity.mentions[0] if entity.mentions else None
        rows.append({
            "uid": uid, "name": entity.name, "type": entity.type, "key": entity_key(entity.name),
            "aliases": sorted(set(entity.aliases) - {entity.name}), "embedding": vector,
            "confidence": mention.confidence if mention else entity.confidence,
            "start": mention.start if mention else None, "end": mention.end if mention else None,
        })
        for form in entity.surface_forms:
            uids.setdefault(entity_key(form), uid)
    if rows:
        graphdb.run(cypher.ENTITIES_MERGE, {
            "user_id": user_id, "message_uid": statement.message_uid, "statement_key": statement.key(),
            "created_at": statement.created_at, "entities": rows,
        })
    return uids


def _relations_write(*, user_id: str, statement: Statement, extraction: Extraction, entity_uids: dict) -> None:
    rows = []
    for relation in extraction.relations:
        source, target = entity_uids.get(entity_key(relation.source)), entity_uids.get(entity_key(relation.target))
        if source and target:
            rows.append({"source": source, "target": target, "type": relation.type,
                         "confidence": relation.confidence, "valid_from": relation.valid_from or statement.created_at,
                         "statement_key": statement.key(relation.valid_from)})
    if rows:
        graphdb.run(cypher.RELATIONS_MERGE, {"user_id": user_id, "message_uid": statement.message_uid,
                                             "relations": rows})


def _facts_write(*, user_id: str, statement: Statement, facts: list[ExtractedFact], vectors: list[list],
                 entity_uids: dict) -> None:
    """Link each fact to the message as one statement of it, then settle which of its kind is current."""
    rows, groups = [], {}
    for index, (fact, vector) in enumerate(zip(facts, vectors)):
        subject_key = fact.subject.lower()
        rows.append({
            "uid": fact_uid(user_id=user_id, subject=fact.subject, predicate=fact.predicate, object=fact.object),
            "subject": fact.subject, "predicate": fact.predicate, "object": fact.object, "embedding": vector,
            "confidence": fact.confidence, "valid_from": fact.valid_from or statement.created_at,
            "statement_key": statement.key(fact.valid_from, index), "cardinality": fact.cardinality,
            "about": [entity_uids[k] for k in (entity_key(fact.subject), entity_key(fact.object)) if k in entity_uids],
        })
        groups[(subject_key, fact.predicate)] = fact.cardinality == "single" or groups.get((subject_key, fact.predicate))
    if not rows:
        return
    graphdb.run(cypher.FACTS_MERGE, {"user_id": user_id, "message_uid": statement.message_uid, "facts": rows})
    corrections_follow(label="Fact", user_id=user_id, message_uid=statement.message_uid, rows=rows)
    for (subject_key, predicate), single in sorted(groups.items()):
        group_settle(user_id=user_id, group=StatementGroup("Fact", subject_key, predicate, bool(single)))


def _preferences_write(*, user_id: str, statement: Statement, preferences: list[ExtractedPreference],
                       vectors: list[list]) -> None:
    """Link each preference to the message; the same topic in other words (preference_topic_key) and polarity is
    one node; then settle the person's preferences by meaning (preferences_settle)."""
    rows = []
    for index, (preference, vector) in enumerate(zip(preferences, vectors)):
        topic = _topic(preference)
        rows.append({
            "uid": preference_uid(user_id=user_id, topic=topic, polarity=preference.polarity), "topic": topic,
            "topic_key": preference_topic_key(topic),
            "polarity": preference.polarity, "category": preference.category, "preference": preference.preference,
            "embedding": vector, "confidence": preference.confidence, "statement_key": statement.key(None, index),
            "valid_from": statement.created_at,
        })
    if not rows:
        return
    graphdb.run(cypher.PREFERENCES_MERGE, {"user_id": user_id, "message_uid": statement.message_uid,
                                           "preferences": rows})
    corrections_follow(label="Preference", user_id=user_id, message_uid=statement.message_uid, rows=rows)
    preferences_settle(user_id=user_id)
