"""Supersession: which fact or preference of a group holds, and from when until when, worked out from all its
statements in the order they were said."""

from dataclasses import dataclass
from datetime import datetime, time, timezone

from memory import cypher
from memory.extraction.rules import preference_topic_key
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
    """Read every statement of the group's nodes and settle their status and validity."""
    if group.label == "Fact":
        nodes = graphdb.rows(cypher.FACT_STATEMENTS, {
            "user_id": user_id, "subject_key": group.key, "predicate": group.predicate}, as_stored=True)
    else:
        nodes = graphdb.rows(cypher.PREFERENCE_STATEMENTS, {
            "user_id": user_id, "topic": group.key, "topic_key": preference_topic_key(group.key)}, as_stored=True)
    timeline_settle(label=group.label, user_id=user_id, nodes=nodes,
                    exclusive=group.exclusive)


def node_statement_groups(*, user_id: str, uids: list[str]) -> list[StatementGroup]:
    """Return the groups facts or preferences are settled in, to settle them again after a correction."""
    return [StatementGroup(**row) for row in
            graphdb.rows(cypher.NODE_STATEMENT_GROUPS, {"user_id": user_id, "uids": uids}, as_stored=True)]


def message_statement_groups(*, user_id: str, message_uid: str) -> list[StatementGroup]:
    """Return the groups a message states something in, to settle them again once the message is forgotten."""
    found = graphdb.rows(cypher.MESSAGE_STATEMENT_GROUPS, {"user_id": user_id, "uid": message_uid}, as_stored=True)
    return sorted({StatementGroup(**row) for row in found}, key=lambda g: (g.label, g.key))


def timeline_settle(*, label: str, user_id: str, nodes: list[dict], exclusive: bool) -> None:
    """Set validity and status of the nodes of one kind from their statements, in the order they were said.

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
    if rows:
        graphdb.run(cypher.TIMELINE_SETTLE[label], {"user_id": user_id, "rows": rows})


def _moment(value) -> datetime:
    """Return a stated date (as the start of its day, UTC) or a moment as a moment, so that they compare."""
    value = getattr(value, "to_native", lambda: value)()
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return datetime.combine(value, time(), timezone.utc)
