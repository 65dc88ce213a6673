"""Supersession: which fact or preference of a group holds, and from when until when, worked out from all its
statements in the order they were said."""

from dataclasses import dataclass
from datetime import datetime, time, timezone

from memory import cypher
from memory.extraction.rules import preference_topic
from memory.ingest.keys import preference_topic_split
from memory.preference_meanings import Meaning, meanings
from portal import graphdb

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
    nodes = graphdb.rows(cypher.FACT_STATEMENTS, {
        "user_id": user_id, "subject_key": group.key, "predicate": group.predicate}, as_stored=True)
    timeline_settle(label=group.label, user_id=user_id, nodes=nodes, exclusive=group.exclusive)


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
        graphdb.run(cypher.PREFERENCES_SETTLE, {"user_id": user_id, "rows": settled})


def preferences_read(*, user_id: str) -> list[dict]:
    """Return the person's preferences that take part in settling, with their own statements (not carried ones);
    one written before topics and polarities were kept is read from its words."""
    found = graphdb.rows(cypher.PREFERENCES_TO_SETTLE, {"user_id": user_id}, as_stored=True)
    for preference in found:
        topic, negative = preference_topic_split(preference["preference"] or "")
        preference["topic"] = preference["topic"] or preference_topic(topic) or preference["uid"]
        preference["polarity"] = preference["polarity"] or ("negative" if negative else "positive")
    return found


def _duplicate_row(node: dict, *, into: str) -> dict:
    first = min(node["statements"], key=lambda s: s["key"]) if node["statements"] else None
    return {"uid": node["uid"], "status": "superseded", "timeline": first is not None, "superseded_by": into,
            "reason": "duplicate", "via": [], "valid_from": first and first["valid_from"],
            "recorded_at": first and first["stored_at"], "valid_until": None, "expired_at": None}


def _carried(meaning: Meaning) -> list[dict]:
    """Return the statements of a meaning's duplicates that its node carries: one per message it does not state
    itself."""
    own = {s["message_uid"] for s in meaning.node["statements"]}
    carried = {}
    for duplicate in meaning.duplicates:
        for s in duplicate["statements"]:
            if s["message_uid"] not in own and (s["message_uid"] not in carried
                                                or s["key"] < carried[s["message_uid"]]["key"]):
                carried[s["message_uid"]] = {"message_uid": s["message_uid"], "key": s["key"],
                                             "valid_from": s["valid_from"], "via": duplicate["uid"]}
    return [carried[uid] for uid in sorted(carried)]


def node_statement_groups(*, user_id: str, uids: list[str]) -> list[StatementGroup]:
    """Return the groups facts or preferences are settled in, to settle them again after a correction."""
    return [StatementGroup(**row) for row in
            graphdb.rows(cypher.NODE_STATEMENT_GROUPS, {"user_id": user_id, "uids": uids}, as_stored=True)]


def message_statement_groups(*, user_id: str, message_uid: str) -> list[StatementGroup]:
    """Return the groups a message states something in, to settle them again once the message is forgotten."""
    found = graphdb.rows(cypher.MESSAGE_STATEMENT_GROUPS, {"user_id": user_id, "uid": message_uid}, as_stored=True)
    return sorted({StatementGroup(**row) for row in found}, key=lambda g: (g.label, g.key))


def timeline_settle(*, label: str, user_id: str, nodes: list[dict], exclusive: bool) -> None:
    """Set validity and status of the nodes of one kind from their statements, in the order they were said."""
    rows = timeline_rows(nodes, exclusive=exclusive)
    if rows:
        graphdb.run(cypher.TIMELINE_SETTLE[label], {"user_id": user_id, "rows": rows})


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


def _moment(value) -> datetime:
    """Return a stated date (as the start of its day, UTC) or a moment as a moment, so that they compare."""
    value = getattr(value, "to_native", lambda: value)()
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return datetime.combine(value, time(), timezone.utc)
