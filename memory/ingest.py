"""Turn one stored message into long-term memory: extraction, resolution, supersession.

Every write is keyed by ids derived from the message, so running it twice changes nothing.
"""

import hashlib
import json
import re
import uuid
from dataclasses import asdict
from datetime import date

import numpy as np
from neo4j.exceptions import ClientError
from neomodel import db
from rapidfuzz import fuzz

from governance.selectors import subject_is_erased
from memory import cypher
from memory.embeddings import get_embedder
from memory.extraction import ExtractedEntity, ExtractedFact, ExtractedPreference, ExtractedRelation, Extraction
from memory.extraction import Turn, get_extractor
from memory.extraction.names import name_core
from memory.extraction.rules import predicate_cardinality
from memory.models import Agent, Subject
from memory.resolution.scoring import Candidate, score_pairs
from memory.selectors import consented_categories

ENTITY_NOT_FOUND = "Neo.ClientError.Statement.EntityNotFound"
CANDIDATE_LIMIT = 2000
NEGATIVE = re.compile(r"^(?:dis|does not |doesn't |do not |don't |never |hates? |avoids? )", re.IGNORECASE)
POLARITY_WORDS = re.compile(
    r"^(?:(?:does not|doesn't|do not|don't|never)\s+)?"
    r"(?:likes?|loves?|enjoys?|prefers?|dislikes?|hates?|avoids?|wants?|is into|favou?rs?)\s+", re.IGNORECASE)


def derived_uid(*parts: str) -> str:
    """Return a stable uuid for something derived from a message, so re-runs find it again."""
    return str(uuid.UUID(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]))


def message_extract(*, message_uid: str, user_id: str) -> str:
    """Extract, resolve and supersede for one message; return what happened.

    A message erased in the meantime (or whose subject is being erased), already extracted, or whose
    subject withdrew long-term consent (checked now, not when the task was queued) is left alone.
    """
    if subject_is_erased(user_id=user_id):
        return "gone"
    rows, _ = db.cypher_query(cypher.MESSAGE_FOR_EXTRACTION, {"uid": message_uid, "user_id": user_id})
    if not rows:
        return "gone"
    content, role, agent_id, status, explicit, created_at, earlier = rows[0]
    if status == "done":
        return "done"
    subject = Subject.objects.filter(user_id=user_id).first()
    agent = Agent.objects.filter(agent_id=agent_id).first()
    if subject is None or "long_term" not in consented_categories(subject=subject, agent=agent):
        _set_status(message_uid, user_id, "skipped", "No consent for long-term memory when extraction ran.")
        return "skipped"
    if explicit:
        extraction = extraction_from_explicit(json.loads(explicit))
    else:
        extraction = get_extractor().extract(
            text=content, role=role, context=[Turn(role=t["role"], content=t["content"]) for t in earlier],
            reference_date=created_at.to_native().date(),
        )
    try:
        with db.transaction:
            memory_write(user_id=user_id, message_uid=message_uid, text=content, extraction=extraction)
            _set_status(message_uid, user_id, "done", None)
    except ClientError as exc:
        if exc.code == ENTITY_NOT_FOUND:  # deleted while we wrote: the transaction rolled back
            return "gone"
        raise
    return "done"


def _set_status(message_uid: str, user_id: str, status: str, error: str | None) -> None:
    db.cypher_query(cypher.MESSAGE_EXTRACTION_STATUS,
                    {"uid": message_uid, "user_id": user_id, "status": status, "error": error})


def message_extraction_failed(*, message_uid: str, user_id: str, error: str) -> None:
    _set_status(message_uid, user_id, "failed", error[:2000])


def extraction_from_explicit(data: dict) -> Extraction:
    """Build an Extraction from what an agent sent with the message (it skips the extractor)."""
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
        preferences=[ExtractedPreference(category=p["category"], preference=p["preference"], confidence=1.0,
                                         topic=_preference_topic(p["preference"])[0],
                                         polarity="negative" if _preference_topic(p["preference"])[1] else "positive")
                     for p in data.get("preferences", [])],
        extractor="explicit",
    )


def memory_write(*, user_id: str, message_uid: str, text: str, extraction: Extraction) -> None:
    """Write an extraction's entities, relations, facts and preferences for one message."""
    entity_uids = _entities_write(user_id=user_id, message_uid=message_uid, text=text,
                                  entities=extraction.entities)
    for relation in extraction.relations:
        _relation_write(user_id=user_id, message_uid=message_uid, relation=relation, entity_uids=entity_uids)
    facts = extraction.facts
    fact_vectors = get_embedder().embed([_fact_text(f) for f in facts]) if facts else []
    for i, (fact, vector) in enumerate(zip(facts, fact_vectors)):
        uid = derived_uid(user_id, message_uid, "fact", str(i), fact.subject, fact.predicate, fact.object)
        about = [entity_uids[k] for k in (_key(fact.subject), _key(fact.object)) if k in entity_uids]
        rows, _ = db.cypher_query(cypher.FACT_MERGE, {
            "uid": uid, "user_id": user_id, "message_uid": message_uid, "subject": fact.subject,
            "predicate": fact.predicate, "object": fact.object, "embedding": vector.tolist(),
            "confidence": fact.confidence, "valid_from": fact.valid_from, "about": about,
        })
        if fact.cardinality == "single" and rows and rows[0][0] == uid:
            db.cypher_query(cypher.FACT_SUPERSEDE, {"uid": uid, "user_id": user_id})
    preferences = extraction.preferences
    vectors = get_embedder().embed([p.preference for p in preferences]) if preferences else []
    for i, (preference, vector) in enumerate(zip(preferences, vectors)):
        _preference_write(user_id=user_id, message_uid=message_uid, index=i, preference=preference, vector=vector)


def _key(name: str) -> str:
    return name_core(name) or name.lower()


def _fact_text(fact: ExtractedFact) -> str:
    return f"{fact.subject} {fact.predicate.replace('_', ' ').lower()} {fact.object}"


def _entities_write(*, user_id: str, message_uid: str, text: str, entities: list[ExtractedEntity]) -> dict[str, str]:
    """Resolve each entity against the subject's graph and write it; return name keys -> entity uids."""
    if not entities:
        return {}
    rows, _ = db.cypher_query(cypher.ENTITIES_CANONICAL, {"user_id": user_id, "limit": CANDIDATE_LIMIT})
    existing = [Candidate(key=uid, name=name, type=kind, aliases=tuple(aliases or ()), embedding=_array(vector))
                for uid, name, kind, aliases, vector in rows]
    vectors = get_embedder().embed([e.name for e in entities])
    fresh = [Candidate(key=str(i), name=e.name, type=e.type, aliases=tuple(e.aliases), context=text,
                       embedding=vectors[i]) for i, e in enumerate(entities)]
    best: dict[str, object] = {}
    if existing:
        for pair in score_pairs(candidates=fresh, against=existing):
            current = best.get(pair.left)
            if current is None or pair.combined > current.combined:
                best[pair.left] = pair
    uids: dict[str, str] = {}
    for i, entity in enumerate(entities):
        pair = best.get(str(i))
        mention = entity.mentions[0] if entity.mentions else None
        if pair is not None and pair.exact >= 1.0:
            uid = pair.right  # the same name: this is the entity we already know
        else:
            uid = derived_uid(user_id, message_uid, "entity", entity.type, _key(entity.name))
        db.cypher_query(cypher.ENTITY_MERGE, {
            "uid": uid, "user_id": user_id, "name": entity.name, "type": entity.type, "aliases": entity.aliases,
            "embedding": vectors[i].tolist(), "message_uid": message_uid,
            "confidence": mention.confidence if mention else entity.confidence,
            "start": mention.start if mention else None, "end": mention.end if mention else None,
        })
        if pair is not None and uid != pair.right and pair.band in ("auto", "review"):
            decided, _ = db.cypher_query(cypher.SAME_AS_DECIDED, {"a": uid, "b": pair.right, "user_id": user_id})
            if not decided:
                db.cypher_query(cypher.SAME_AS_CREATE, {
                    "from_uid": uid, "into_uid": pair.right, "user_id": user_id,
                    "status": "auto" if pair.band == "auto" else "pending", "confidence": pair.combined,
                    "scores": json.dumps(pair.evidence()),
                    "evidence": json.dumps({"message_uid": message_uid, "mention": entity.name,
                                            "sample": text[:500], "mentions": [asdict(m) for m in entity.mentions]}),
                })
        for form in entity.surface_forms:
            uids[_key(form)] = uid
    return uids


def _array(vector):
    return np.asarray(vector, dtype=np.float32) if vector is not None else None


def _relation_write(*, user_id: str, message_uid: str, relation: ExtractedRelation, entity_uids: dict) -> None:
    source, target = entity_uids.get(_key(relation.source)), entity_uids.get(_key(relation.target))
    if source and target:
        db.cypher_query(cypher.RELATION_MERGE, {
            "source": source, "target": target, "user_id": user_id, "type": relation.type,
            "confidence": relation.confidence, "valid_from": relation.valid_from, "message_uid": message_uid,
        })


def _preference_write(*, user_id: str, message_uid: str, index: int, preference: ExtractedPreference,
                      vector) -> None:
    """Write a preference; one on the same topic with the other polarity is superseded by it."""
    topic, negative = preference.topic, preference.polarity == "negative"
    rows, _ = db.cypher_query(cypher.PREFERENCES_CURRENT, {"user_id": user_id, "category": preference.category})
    uid = derived_uid(user_id, message_uid, "preference", str(index), preference.preference)
    supersedes = []
    for old_uid, text in rows:
        old_topic, old_negative = _preference_topic(text)
        if old_uid != uid and fuzz.token_set_ratio(topic, old_topic) >= 90 and old_negative != negative:
            supersedes.append(old_uid)
    db.cypher_query(cypher.PREFERENCE_MERGE, {
        "uid": uid, "user_id": user_id, "message_uid": message_uid, "category": preference.category,
        "preference": preference.preference, "embedding": vector.tolist(), "confidence": preference.confidence,
        "supersedes": supersedes,
    })


def _preference_topic(text: str) -> tuple[str, bool]:
    """Split "doesn't like cilantro" into ("cilantro", True)."""
    return POLARITY_WORDS.sub("", text.strip()).lower(), bool(NEGATIVE.match(text.strip()))
