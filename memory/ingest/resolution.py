"""Resolution: the merges of a message's entities with the person's others of the same type, proposed or applied."""

import json

from memory import cypher
from memory.extraction.names import name_tokens
from memory.ingest.keys import Statement
from memory.resolution.scoring import Candidate, score_pair
from portal import graphdb

CANDIDATE_LIMIT = 5000


def entities_resolve(*, user_id: str, statement: Statement, text: str, uids: list[str]) -> None:
    """Propose or apply merges of the message's entities with the person's others of the same type.

    A pair is scored from the entities as stored (names, their own aliases, embeddings), with the
    message's text as evidence when the message names both. A pair already linked keeps the
    strongest score it ever had (ties: the earliest evidence); a decided pair (rejected, confirmed,
    undone) is never touched. The evidence shown to reviewers is the message naming both, else the
    earliest message naming the entity that would merge away.
    """
    if not uids:
        return
    pairs = graphdb.rows(cypher.ENTITY_PAIRS, {"user_id": user_id, "uids": uids, "limit": CANDIDATE_LIMIT}, as_stored=True)
    mine, links, seen = set(uids), [], set()
    for row in pairs:
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
        graphdb.run(cypher.SAME_AS_UPSERT, {"user_id": user_id, "links": links})


def _mention_samples(*, user_id: str, wanted: list[dict]) -> dict[tuple[str, str], dict]:
    """Return, per (entity, message), the message's text and where in it the entity is mentioned."""
    samples = {}
    for row in graphdb.rows(cypher.MENTION_SAMPLES, {"user_id": user_id, "wanted": wanted}, as_stored=True):
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
