"""Duplicates that extraction before keyed nodes could leave, merged reversibly (dedupe_memory)."""

import json
from dataclasses import dataclass

from memory import cypher
from memory.extraction.rules import preference_topic, preference_topic_key
from memory.ingest.keys import entity_key, entity_uid, preference_topic_split, preference_uid
from memory.ingest.resolution import entity_candidate
from memory.resolution.scoring import score_pair
from portal import graphdb

@dataclass
class Duplicates:
    """Same-key entities and current same-topic, same-polarity preferences: (user_id, canonical, others)."""

    entities: list[tuple[str, dict, list[dict]]]
    preferences: list[tuple[str, dict, list[dict]]]


def duplicates_find(*, user_id: str | None = None) -> Duplicates:
    """Return the duplicates of one person (or everyone) that extraction before keyed nodes could leave.

    The canonical node of a group is the one today's writes use (its derived uid), else the earliest.
    Entity pairs already linked by SAME_AS, in either direction and whatever its status, are left out.
    """
    groups: dict[tuple, list[dict]] = {}
    for entity in graphdb.rows(cypher.ENTITIES_FOR_DEDUPE, {"user_id": user_id}, as_stored=True):
        groups.setdefault((entity["user_id"], entity["type"], entity_key(entity["name"])), []).append(entity)
    entities = []
    for (owner, kind, _), members in sorted(groups.items()):
        if len(members) > 1:
            canonical = _canonical(members, entity_uid(user_id=owner, type=kind, name=members[0]["name"]))
            others = [m for m in members if m is not canonical and canonical["uid"] not in m["linked"]]
            if others:
                entities.append((owner, canonical, others))
    groups = {}
    for preference in graphdb.rows(cypher.PREFERENCES_FOR_DEDUPE, {"user_id": user_id}, as_stored=True):
        topic, negative = preference_topic_split(preference["preference"])
        topic = preference["topic"] or preference_topic(topic)
        polarity = preference["polarity"] or ("negative" if negative else "positive")
        groups.setdefault((preference["user_id"], preference_topic_key(topic), polarity), []).append(preference)
    preferences = []
    for (owner, key, polarity), members in sorted(groups.items()):
        if len(members) > 1:
            canonical = _canonical(members, preference_uid(user_id=owner, topic=key, polarity=polarity))
            preferences.append((owner, canonical, [m for m in members if m is not canonical]))
    return Duplicates(entities=entities, preferences=preferences)


def _canonical(members: list[dict], uid: str) -> dict:
    keyed = [m for m in members if m["uid"] == uid]
    return keyed[0] if keyed else min(members, key=lambda m: (m["since"] or "", m["uid"]))


def duplicates_merge(*, duplicates: Duplicates, review: bool) -> dict:
    """Merge duplicates reversibly; return how many of each were merged.

    Entities merge by SAME_AS, automatically (their names become aliases, a reviewer can undo it) or,
    with `review`, as pending proposals. A duplicate preference is superseded by its canonical one
    with `reason: duplicate`, which preference_duplicates_restore takes back.
    """
    counts = {"entities": 0, "preferences": 0}
    for owner, canonical, others in duplicates.entities:
        links = []
        for other in others:
            score = score_pair(left=entity_candidate(other, ""), right=entity_candidate(canonical, ""), embedding_similarity=1.0)
            links.append({
                "from_uid": other["uid"], "into_uid": canonical["uid"], "from_aliases": other["aliases"] or [],
                "status": "pending" if review else "auto", "confidence": score.combined,
                "scores": json.dumps(score.evidence(), sort_keys=True), "evidence_key": "",
                "evidence": json.dumps({"mention": other["name"], "into": canonical["name"],
                                        "reason": "same normal name and type"}, sort_keys=True),
            })
        counts["entities"] += graphdb.scalar(cypher.SAME_AS_UPSERT, {"user_id": owner, "links": links})
    for owner, canonical, others in duplicates.preferences:
        counts["preferences"] += graphdb.scalar(cypher.PREFERENCE_DUPLICATES_MERGE, {
            "user_id": owner, "into_uid": canonical["uid"], "uids": [o["uid"] for o in others]})
    return counts


def preference_duplicates_restore(*, user_id: str | None = None) -> int:
    """Make every preference merged as a duplicate current again; return how many."""
    return graphdb.scalar(cypher.PREFERENCE_DUPLICATES_RESTORE, {"user_id": user_id})
