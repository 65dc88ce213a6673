"""Duplicates that extraction before keyed nodes could leave, found and merged reversibly (`manage.py dedupe_memory`).

Entities that share a normal name and type are merged by SAME_AS; preferences that say one liking are settled as
preferences_settle settles them at every write, which a graph written before it never was.
"""

import json
from dataclasses import dataclass

from memory import cypher
from memory.ingest.keys import entity_key, entity_uid
from memory.ingest.resolution import entity_candidate
from memory.ingest.supersession import preferences_read, preferences_settle
from memory.preference_meanings import meanings
from memory.resolution.scoring import score_pair
from portal import graphdb


@dataclass
class Duplicates:
    """Same-key entities, and current preferences of one meaning and polarity: (user_id, canonical, others)."""

    entities: list[tuple[str, dict, list[dict]]]
    preferences: list[tuple[str, dict, list[dict]]]


def duplicates_find(*, user_id: str | None = None) -> Duplicates:
    """Return the duplicates of one person (or everyone).

    The canonical entity of a group is the one today's writes use (its derived uid), else the earliest; the canonical
    preference of a meaning is the one said first. Entity pairs already linked by SAME_AS, in either direction and
    whatever its status, are left out, and so are preferences already merged.
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
    preferences = []
    for owner in [row["user_id"] for row in graphdb.rows(cypher.PREFERENCE_OWNERS, {"user_id": user_id})]:
        for group in meanings(preferences_read(user_id=owner)):
            preferences += [(owner, m.node, others) for m in group
                            if (others := [d for d in m.duplicates if d["status"] == "current"])]
    return Duplicates(entities=entities, preferences=preferences)


def _canonical(members: list[dict], uid: str) -> dict:
    keyed = [m for m in members if m["uid"] == uid]
    return keyed[0] if keyed else min(members, key=lambda m: (m["since"] or "", m["uid"]))


def duplicates_merge(*, duplicates: Duplicates, review: bool) -> dict:
    """Merge duplicates reversibly; return how many of each were merged.

    Entities merge by SAME_AS, automatically (their names become aliases, a reviewer can undo it) or,
    with `review`, as pending proposals. A duplicate preference is superseded by its canonical one
    with `reason: duplicate` (preferences_settle), which preference_duplicates_restore takes back.
    """
    counts = {"entities": 0, "preferences": 0}
    for owner, canonical, others in duplicates.entities:
        links = []
        for other in others:
            score = score_pair(left=entity_candidate(other, ""), right=entity_candidate(canonical, ""),
                               embedding_similarity=1.0)
            links.append({
                "from_uid": other["uid"], "into_uid": canonical["uid"], "from_aliases": other["aliases"] or [],
                "status": "pending" if review else "auto", "confidence": score.combined,
                "scores": json.dumps(score.evidence(), sort_keys=True), "evidence_key": "",
                "evidence": json.dumps({"mention": other["name"], "into": canonical["name"],
                                        "reason": "same normal name and type"}, sort_keys=True),
            })
        counts["entities"] += graphdb.scalar(cypher.SAME_AS_UPSERT, {"user_id": owner, "links": links})
    for owner in sorted({owner for owner, _, _ in duplicates.preferences}):
        preferences_settle(user_id=owner)
    counts["preferences"] = sum(len(others) for _, _, others in duplicates.preferences)
    return counts


def preference_duplicates_restore(*, user_id: str | None = None) -> int:
    """Make every preference merged as a duplicate current again, and keep it apart from then on; return how many."""
    restored = graphdb.rows(cypher.PREFERENCE_DUPLICATES_RESTORE, {"user_id": user_id})
    for owner in sorted({row["user_id"] for row in restored}):
        preferences_settle(user_id=owner)
    return len(restored)
