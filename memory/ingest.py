"""Turn one stored message into long-term memory: extraction, resolution, supersession.

What a message states is keyed by what it is about, not by the message: an entity by its person,
type and normal name, a fact by its subject, predicate and object, a preference by its topic key
(the stems of its topic's words: "dancing" and "all dances" are one) and polarity. Each statement links its node to the message (EXTRACTED_FROM, MENTIONS) with the time it
was said, and every property that several statements could set comes from the earliest of them.
Which fact or preference is current is then worked out from all statements in the order they were
said (a stated valid_from, then the message's created_at, then its seq), so the graph is a function
of the messages and their order, never of the order extraction ran in. Running it twice changes
nothing.

A person's (or a reviewer's) correction is the other input: the wrong node is retracted and a new
version takes over its statements, and every later statement of the wrong value is written to that
version too (corrections_follow), so the graph is a function of the messages and the corrections,
whichever came first.
"""

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from datetime import date, datetime, time, timezone

from neo4j.exceptions import ClientError
from neomodel import db

from memory import cypher
from memory.embeddings import get_embedder
from memory.extraction import ExtractedEntity, ExtractedFact, ExtractedPreference, Extraction, Turn, get_extractor
from memory.extraction.names import name_core, name_tokens
from memory.extraction.rules import predicate_cardinality, preference_topic, preference_topic_key
from memory.extraction.speakers import speaker_split
from memory.models import Agent, Subject
from memory.preference_meanings import Meaning, meanings
from memory.resolution.scoring import Candidate, score_pair
from memory.selectors import consented_categories, subject_is_erased
from memory.wording import fact_line
from portal.graphdb import rows
from portal.outbox import work_enqueue

ENTITY_NOT_FOUND = "Neo.ClientError.Statement.EntityNotFound"
TIME_KEY = "%Y-%m-%dT%H:%M:%S.%f"
CANDIDATE_LIMIT = 5000
NEGATIVE = re.compile(r"^(?:dis|does not |doesn't |do not |don't |never |hates? |avoids? )", re.IGNORECASE)
POLARITY_WORDS = re.compile(
    r"^(?:(?:does not|doesn't|do not|don't|never)\s+)?"
    r"(?:likes?|loves?|enjoys?|prefers?|dislikes?|hates?|avoids?|wants?|is into|favou?rs?)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Statement:
    """When a message was said: its own time, its place in the conversation, when it was stored."""

    message_uid: str
    created_at: datetime
    seq: int
    stored_at: datetime

    def key(self, valid_from: date | None = None, index: int = 0) -> str:
        """Return a string that sorts statements in the order they were said; a stated valid_from comes first.

        `index` orders the statements of one message (a later one in the same message wins).
        """
        said = _utc(self.created_at).strftime(TIME_KEY)
        stated = _utc(datetime.combine(valid_from, time(), self.created_at.tzinfo)).strftime(TIME_KEY) if valid_from \
            else said
        return f"{stated}|{said}|{self.seq:012d}|{self.message_uid}|{index:04d}"


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


def _moment(value) -> datetime:
    """Return a stated date (as the start of its day, UTC) or a moment as a moment, so that they compare."""
    value = getattr(value, "to_native", lambda: value)()
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return datetime.combine(value, time(), timezone.utc)


def derived_uid(*parts: str) -> str:
    """Return a stable uuid for what several messages may state, so every statement finds the same node."""
    return str(uuid.UUID(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]))


def message_extract(*, message_uid: str, user_id: str) -> str:
    """Embed one message (an append stores it without its vector), then extract, resolve and supersede for
    it; return what happened.

    A message erased in the meantime (or whose subject is being erased), already extracted, or whose
    subject withdrew long-term consent (checked now, not when the task was queued) is left alone.
    """
    if subject_is_erased(user_id=user_id):
        return "gone"
    rows, columns = db.cypher_query(cypher.MESSAGE_FOR_EXTRACTION, {"uid": message_uid, "user_id": user_id})
    if not rows:
        return "gone"
    row = dict(zip(columns, rows[0]))
    if row["unembedded"]:
        said = speaker_split(row["content"])[1]  # a speaker's label says who, not what
        db.cypher_query(cypher.MESSAGE_EMBEDDING_SET, {"uid": message_uid, "user_id": user_id,
                                                       "embedding": get_embedder().embed([said])[0].tolist()})
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
    if row["explicit"]:
        extraction = extraction_from_explicit(json.loads(row["explicit"]))
    else:
        extraction = get_extractor().extract(
            text=row["content"], role=row["role"], reference_date=created_at.date(),
            context=[Turn(role=t["role"], content=t["content"]) for t in row["earlier"]],
        )
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


def _set_status(message_uid: str, user_id: str, status: str, error: str | None) -> None:
    db.cypher_query(cypher.MESSAGE_EXTRACTION_STATUS,
                    {"uid": message_uid, "user_id": user_id, "status": status, "error": error})


def message_extraction_failed(*, message_uid: str, user_id: str, error: str) -> None:
    _set_status(message_uid, user_id, "failed", error[:2000])


def messages_reextract(*, user_id: str | None, statuses: list[str]) -> tuple[int, int]:
    """Mark the messages of these statuses (one subject's, or everyone's) pending and queue their extraction
    again; return how many were queued and how many were marked. With the broker down the rest stay
    pending, and the Beat re-dispatch queues them once it is back."""
    marked = rows(cypher.MESSAGES_REEXTRACT, {"user_id": user_id, "statuses": statuses})
    queued = work_enqueue(kind="extractions", entries=[(m["uid"], (m["uid"], m["user_id"])) for m in marked])
    return queued, len(marked)


def extraction_from_explicit(data: dict) -> Extraction:
    """Build an Extraction from what an agent sent with the message (it skips the extractor)."""
    preferences = []
    for p in data.get("preferences", []):
        topic, negative = _preference_topic(p["preference"])
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
    db.cypher_query(cypher.PERSON_WRITE_LOCK, {"user_id": user_id})
    entity_uids = _entities_write(user_id=user_id, statement=statement, entities=extraction.entities,
                                  vectors=vectors["entities"])
    _relations_write(user_id=user_id, statement=statement, extraction=extraction, entity_uids=entity_uids)
    _facts_write(user_id=user_id, statement=statement, facts=extraction.facts, vectors=vectors["facts"],
                 entity_uids=entity_uids)
    _preferences_write(user_id=user_id, statement=statement, preferences=extraction.preferences,
                       vectors=vectors["preferences"])
    _entities_resolve(user_id=user_id, statement=statement, text=text, uids=sorted(set(entity_uids.values())))


def entity_key(name: str) -> str:
    """Return an entity name's normal form, the key that makes one entity per person and type."""
    return name_core(name) or name.lower()


def entity_uid(*, user_id: str, type: str, name: str) -> str:
    """Return the one uid an entity of this person, type and normal name has, whoever writes it first."""
    return derived_uid(user_id, "entity", type, entity_key(name))


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
        db.cypher_query(cypher.ENTITIES_MERGE, {
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
        db.cypher_query(cypher.RELATIONS_MERGE, {"user_id": user_id, "message_uid": statement.message_uid,
                                                 "relations": rows})


def _facts_write(*, user_id: str, statement: Statement, facts: list[ExtractedFact], vectors: list[list],
                 entity_uids: dict) -> None:
    """Link each fact to the message as one statement of it, then settle which of its kind is current."""
    rows, groups = [], {}
    for index, (fact, vector) in enumerate(zip(facts, vectors)):
        subject_key, object_key = fact.subject.lower(), fact.object.lower()
        rows.append({
            "uid": derived_uid(user_id, "fact", subject_key, fact.predicate, object_key),
            "subject": fact.subject, "predicate": fact.predicate, "object": fact.object, "embedding": vector,
            "confidence": fact.confidence, "valid_from": fact.valid_from or statement.created_at,
            "statement_key": statement.key(fact.valid_from, index), "cardinality": fact.cardinality,
            "about": [entity_uids[k] for k in (entity_key(fact.subject), entity_key(fact.object)) if k in entity_uids],
        })
        groups[(subject_key, fact.predicate)] = fact.cardinality == "single" or groups.get((subject_key, fact.predicate))
    if not rows:
        return
    db.cypher_query(cypher.FACTS_MERGE, {"user_id": user_id, "message_uid": statement.message_uid, "facts": rows})
    corrections_follow(label="Fact", user_id=user_id, message_uid=statement.message_uid, rows=rows)
    for (subject_key, predicate), single in sorted(groups.items()):
        group_settle(user_id=user_id, group=StatementGroup("Fact", subject_key, predicate, bool(single)))


def _preferences_write(*, user_id: str, statement: Statement, preferences: list[ExtractedPreference],
                       vectors: list[list]) -> None:
    """Link each preference to the message; the same topic in other words (preference_topic_key) and polarity is
    one node; then settle the person's preferences by meaning (preferences_settle)."""
    rows = []
    for index, (preference, vector) in enumerate(zip(preferences, vectors)):
        topic = preference_topic(preference.topic) or preference_topic(preference.preference)
        rows.append({
            "uid": preference_uid(user_id=user_id, topic=topic, polarity=preference.polarity), "topic": topic,
            "topic_key": preference_topic_key(topic),
            "polarity": preference.polarity, "category": preference.category, "preference": preference.preference,
            "embedding": vector, "confidence": preference.confidence, "statement_key": statement.key(None, index),
            "valid_from": statement.created_at,
        })
    if not rows:
        return
    db.cypher_query(cypher.PREFERENCES_MERGE, {"user_id": user_id, "message_uid": statement.message_uid,
                                               "preferences": rows})
    corrections_follow(label="Preference", user_id=user_id, message_uid=statement.message_uid, rows=rows)
    preferences_settle(user_id=user_id)


def preference_uid(*, user_id: str, topic: str, polarity: str) -> str:
    """Return the one uid of a person's preference on a topic, said in whichever words, and of one polarity."""
    return derived_uid(user_id, "preference", preference_topic_key(topic), polarity)


def corrections_follow(*, label: str, user_id: str, message_uid: str, rows: list[dict]) -> set[str]:
    """Write each statement of a corrected node to the newest version correcting it; return their topics.

    The wrong node keeps the statement too (it stays retracted), so undoing the correction needs no
    extraction. A version with a corrected valid_from takes it for every statement it is given.
    """
    heads, columns = db.cypher_query(cypher.CORRECTION_HEADS[label],
                                     {"user_id": user_id, "uids": [row["uid"] for row in rows]})
    heads = {head["wrong"]: head for head in (dict(zip(columns, h)) for h in heads)}
    redirected = [
        {"version_uid": heads[row["uid"]]["version_uid"],
         "statement_key": statement_key_restated(key=row["statement_key"], valid_from=heads[row["uid"]]["stated_from"]),
         "valid_from": heads[row["uid"]]["stated_from"] or row["valid_from"]}
        for row in rows if row["uid"] in heads
    ]
    if redirected:
        db.cypher_query(cypher.CORRECTED_STATEMENTS_MERGE[label],
                        {"user_id": user_id, "message_uid": message_uid, "rows": redirected})
    return {head["topic"] for head in heads.values() if head["topic"]}


def statement_key_restated(*, key: str, valid_from: date | None) -> str:
    """Return a statement's order key with `valid_from` as its stated time (the key unchanged without one)."""
    if valid_from is None:
        return key
    stated = _utc(datetime.combine(valid_from, time(), timezone.utc)).strftime(TIME_KEY)
    return f"{stated}|{key.split('|', 1)[1]}"


@dataclass(frozen=True)
class StatementGroup:
    """The nodes whose validity is settled together: a fact's subject and predicate, or a preference's topic
    (any of the words it was said in: its preference_topic_key is what they share)."""

    label: str
    key: str
    predicate: str | None
    exclusive: bool


def group_settle(*, user_id: str, group: StatementGroup) -> None:
    """Read every statement of the group's nodes and settle their status and validity (a preference's group is all
    the person's preferences: which say one liking is worked out from all of them)."""
    if group.label == "Preference":
        preferences_settle(user_id=user_id)
        return
    nodes, columns = db.cypher_query(cypher.FACT_STATEMENTS, {
        "user_id": user_id, "subject_key": group.key, "predicate": group.predicate})
    timeline_settle(label=group.label, user_id=user_id, nodes=[dict(zip(columns, n)) for n in nodes],
                    exclusive=group.exclusive)


def preferences_settle(*, user_id: str) -> None:
    """Settle all the person's preferences: within each meaning (memory.preference_meanings) the polarity said last is
    current, the node said first of each polarity stands for it, and the others are its duplicates (superseded by
    it, `reason: duplicate`), their statements its provenance too (EXTRACTED_FROM with `via`)."""
    settled = []
    for group in meanings(preferences_read(user_id=user_id)):
        stated = [meaning for meaning in group if meaning.statements]
        timeline = timeline_rows([{**m.node, "statements": m.statements} for m in stated], exclusive=True)
        settled += [{**row, "timeline": True, "reason": None, "via": _carried(m)} for m, row in zip(stated, timeline)]
        settled += [{"uid": m.node["uid"], "status": "current", "timeline": False, "superseded_by": None, "reason": None,
                     "via": []} for m in group if not m.statements]
        settled += [_duplicate_row(duplicate, into=m.node["uid"]) for m in group for duplicate in m.duplicates]
    if settled:
        db.cypher_query(cypher.PREFERENCES_SETTLE, {"user_id": user_id, "rows": settled})


def preferences_read(*, user_id: str) -> list[dict]:
    """Return the person's preferences that take part in settling, with their own statements (not carried ones);
    one written before topics and polarities were kept is read from its words."""
    found = rows(cypher.PREFERENCES_TO_SETTLE, {"user_id": user_id})
    for preference in found:
        topic, negative = _preference_topic(preference["preference"] or "")
        preference["topic"] = preference["topic"] or preference_topic(topic) or preference["uid"]
        preference["polarity"] = preference["polarity"] or ("negative" if negative else "positive")
    return found


def _duplicate_row(node: dict, *, into: str) -> dict:
    first = min(node["statements"], key=lambda s: s["key"]) if node["statements"] else None
    return {"uid": node["uid"], "status": "superseded", "timeline": first is not None, "superseded_by": into,
            "reason": "duplicate", "via": [], "valid_from": first and first["valid_from"],
            "recorded_at": first and first["stored_at"], "valid_until": None, "expired_at": None}


def _carried(meaning: Meaning) -> list[dict]:
    """Return the statements of a meaning's duplicates that its node carries: one per message it does not state itself."""
    own = {s["message_uid"] for s in meaning.node["statements"]}
    carried = {}
    for duplicate in meaning.duplicates:
        for s in duplicate["statements"]:
            if s["message_uid"] not in own and (s["message_uid"] not in carried or s["key"] < carried[s["message_uid"]]["key"]):
                carried[s["message_uid"]] = {"message_uid": s["message_uid"], "key": s["key"],
                                             "valid_from": s["valid_from"], "via": duplicate["uid"]}
    return [carried[uid] for uid in sorted(carried)]


def node_statement_groups(*, user_id: str, uids: list[str]) -> list[StatementGroup]:
    """Return the groups facts or preferences are settled in, to settle them again after a correction."""
    rows, columns = db.cypher_query(cypher.NODE_STATEMENT_GROUPS, {"user_id": user_id, "uids": uids})
    return [StatementGroup(**dict(zip(columns, row))) for row in rows]


def preference_key(text: str) -> tuple[str, str]:
    """Return the topic and polarity a preference's text is keyed by, as extraction keys it."""
    topic, negative = _preference_topic(text)
    return preference_topic(topic) or preference_topic(text), "negative" if negative else "positive"


def message_statement_groups(*, user_id: str, message_uid: str) -> list[StatementGroup]:
    """Return the groups a message states something in, to settle them again once the message is forgotten."""
    rows, columns = db.cypher_query(cypher.MESSAGE_STATEMENT_GROUPS, {"user_id": user_id, "uid": message_uid})
    return sorted({StatementGroup(**dict(zip(columns, row))) for row in rows}, key=lambda g: (g.label, g.key))


def timeline_settle(*, label: str, user_id: str, nodes: list[dict], exclusive: bool) -> None:
    """Set validity and status of the nodes of one kind from their statements, in the order they were said."""
    rows = timeline_rows(nodes, exclusive=exclusive)
    if rows:
        db.cypher_query(cypher.TIMELINE_SETTLE[label], {"user_id": user_id, "rows": rows})


def timeline_rows(nodes: list[dict], *, exclusive: bool) -> list[dict]:
    """Return each node's status and validity from their statements, in the order they were said.

    Each node is valid from its earliest statement. When only one value holds at a time (`exclusive`),
    the node stated last is current, and every other node is superseded by the first statement of
    another value after its own last one: valid until that statement's time, expired when it was stored.
    """
    for node in nodes:
        node["statements"].sort(key=lambda s: s["key"])
        for s in node["statements"]:
            s["node_uid"] = node["uid"]
    timeline = sorted(((s["key"], node["uid"], s) for node in nodes for s in node["statements"]),
                      key=lambda item: item[0])
    rows = []
    for node in nodes:
        first = node["statements"][0]
        row = {"uid": node["uid"], "valid_from": first["valid_from"], "recorded_at": first["stored_at"],
               "status": "current", "valid_until": None, "expired_at": None, "superseded_by": None}
        if exclusive:
            last = node["statements"][-1]["key"]
            after = next((s for key, uid, s in timeline if key > last and uid != node["uid"]), None)
            if after is not None:
                row.update(status="superseded", valid_until=after["valid_from"], expired_at=after["stored_at"],
                           superseded_by=after["node_uid"])
        stated_until = node.get("stated_until")
        if stated_until is not None and (row["valid_until"] is None
                                         or _moment(stated_until) < _moment(row["valid_until"])):
            # The person said when it stopped holding: it ended then, whatever came after it.
            row.update(status="superseded", valid_until=stated_until,
                       expired_at=row["expired_at"] or node["corrected_at"])
        rows.append(row)
    return rows


def _entities_resolve(*, user_id: str, statement: Statement, text: str, uids: list[str]) -> None:
    """Propose or apply merges of the message's entities with the person's others of the same type.

    A pair is scored from the entities as stored (names, their own aliases, embeddings), with the
    message's text as evidence when the message names both. A pair already linked keeps the
    strongest score it ever had (ties: the earliest evidence); a decided pair (rejected, confirmed,
    undone) is never touched. The evidence shown to reviewers is the message naming both, else the
    earliest message naming the entity that would merge away.
    """
    if not uids:
        return
    rows, columns = db.cypher_query(cypher.ENTITY_PAIRS, {"user_id": user_id, "uids": uids, "limit": CANDIDATE_LIMIT})
    mine, links, seen = set(uids), [], set()
    for row in (dict(zip(columns, r)) for r in rows):
        source, into = sorted((row["mine"], row["other"]), key=_merge_rank)
        if (source["uid"], into["uid"]) in seen:
            continue  # a pair within the message comes twice
        seen.add((source["uid"], into["uid"]))
        shared = source["uid"] in mine and into["uid"] in mine
        context = text if shared else ""
        score = score_pair(left=entity_candidate(source, context), right=entity_candidate(into, context),
                           embedding_similarity=round(row["similarity"], 6))
        if score.band in ("auto", "review"):
            evidence_key = statement.key() if shared else source["first_key"] or ""
            links.append({
                "from_uid": source["uid"], "into_uid": into["uid"], "from_aliases": source["aliases"],
                "status": "auto" if score.band == "auto" else "pending", "confidence": score.combined,
                "scores": json.dumps(score.evidence(), sort_keys=True), "evidence_key": evidence_key,
                "evidence": {"mention": source["name"], "into": into["name"],
                             "message_uid": evidence_key.split("|")[3] if evidence_key else None},
            })
    if links:
        samples = _mention_samples(user_id=user_id, wanted=[
            {"entity_uid": link["from_uid"], "message_uid": link["evidence"]["message_uid"]} for link in links])
        for link in links:
            link["evidence"] = json.dumps(
                {**link["evidence"], **samples.get((link["from_uid"], link["evidence"]["message_uid"]), {})},
                sort_keys=True)
        db.cypher_query(cypher.SAME_AS_UPSERT, {"user_id": user_id, "links": links})


def _mention_samples(*, user_id: str, wanted: list[dict]) -> dict[tuple[str, str], dict]:
    """Return, per (entity, message), the message's text and where in it the entity is mentioned."""
    rows, columns = db.cypher_query(cypher.MENTION_SAMPLES, {"user_id": user_id, "wanted": wanted})
    samples = {}
    for row in (dict(zip(columns, r)) for r in rows):
        start, end = row["start"], row["end"]
        mention = {"text": row["content"][start:end] if start is not None else row["name"], "start": start, "end": end}
        samples[(row["entity_uid"], row["message_uid"])] = {"sample": row["content"][:500], "mentions": [mention]}
    return samples


def _merge_rank(entity: dict) -> tuple:
    """Order two entities so the one the other merges into comes last, by their names alone.

    More words win ("Kestrel" into "Kestrel Robotics"); among as many words the shorter, the common
    stem ("Anna Berger" into "Anna Berg"), then the first in alphabetical order.
    """
    name = entity["name"]
    return len(name_tokens(name)), -len(name), tuple(-ord(ch) for ch in name.lower()), entity["uid"]


def entity_candidate(entity: dict, context: str) -> Candidate:
    return Candidate(key=entity["uid"], name=entity["name"], type=entity["type"],
                     aliases=tuple(entity["aliases"] or ()), context=context)


def _preference_topic(text: str) -> tuple[str, bool]:
    """Split "doesn't like cilantro" into ("cilantro", True)."""
    return POLARITY_WORDS.sub("", text.strip()).lower(), bool(NEGATIVE.match(text.strip()))
