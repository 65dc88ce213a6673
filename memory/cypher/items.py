"""Cypher of any kind of memory item, by its label (memory.kinds builds each kind's queries once): listed a page at a
time, read, shown as text, forgotten one at a time or past retention, erased by label.

Items past their retention are left out of every read, whether or not the periodic job has deleted them yet
(clauses.kept).
"""

from memory.cypher.clauses import (NODES_DELETE, expired, kept, kept_since, reason_add, retention_cutoff,
                                   stated_by, statement_group)
from memory.cypher.messages import EXPIRED_MESSAGES_FORGET, MESSAGE_FORGET
from portal.graphdb import quoted


# The messages that state a derived item n, as m.
_STATED_IN = {"Fact": "(n)-[:EXTRACTED_FROM]->(m:Message)", "Preference": "(n)-[:EXTRACTED_FROM]->(m:Message)",
              "Entity": "(m:Message)-[:MENTIONS]->(n)"}
# Whose words each statement of a derived item is (trust.item_source reads them), and what a turn relaying the
# person's words names.
_SUPPORTS = {label: "[" + _STATED_IN[label] + " | " + stated_by("m", *said) + "]"
             for label, said in (("Fact", ("n.subject", "n.object")), ("Preference", ("n.topic",)),
                                 ("Entity", ("n.name",)))}


def _projection(label: str, fields: tuple[str, ...]) -> str:
    supports = [f"supports: {_SUPPORTS[label]}"] if label in _SUPPORTS else []
    return "{" + ", ".join([*(field + ": n." + field for field in fields), *supports]) + "}"


def item_list(*, label: str, order: str, fields: tuple[str, ...]) -> str:
    """Return the query of a page of one kind, newest first; the cursor is the last row's (sort time, uid), so pages
    never overlap.

    Sort times are compared at offset Z, as the cursor's is: a time written back through the driver carries the
    zone id UTC, which Cypher orders apart from the same instant at Z, so a cursor on a tie skipped the rest of it.
    Retracted versions (a fact or preference a correction or a revert replaced) are left out unless history is
    asked for.
    """
    return """
MATCH (n:""" + quoted(label) + """ {user_id: $user_id})
WHERE $include_retracted OR coalesce(n.status, '') <> 'retracted'
WITH n, CASE WHEN n.""" + order + """ IS :: ZONED DATETIME NOT NULL THEN datetime({datetime: n.""" + order + """, timezone: 'Z'})
            ELSE n.""" + order + """ END AS t
WHERE $after_t IS NULL OR t < $after_t OR (t = $after_t AND n.uid < $after_uid)
WITH n, t, """ + kept_since(label=label, node="n") + """ AS kept_since
WHERE """ + retention_cutoff(label=label) + """ IS NULL OR coalesce(kept_since >= """ + retention_cutoff(label=label) + """, true)
RETURN n.uid AS uid, t AS sort_key, kept_since, """ + _projection(label, fields) + """ AS item
ORDER BY t DESC, n.uid DESC LIMIT $limit
"""


def item_get(*, label: str, fields: tuple[str, ...]) -> str:
    """Return the query of one item of a kind by uid, within retention."""
    return """
MATCH (n:""" + quoted(label) + """ {uid: $uid, user_id: $user_id})
WITH n, """ + kept_since(label=label, node="n") + """ AS kept_since
WHERE """ + retention_cutoff(label=label) + """ IS NULL OR coalesce(kept_since >= """ + retention_cutoff(label=label) + """, true)
RETURN n.uid AS uid, kept_since, """ + _projection(label, fields) + """ AS item
"""


# What a page shows of items named by uid (what a context gave an agent), within retention: the text, and
# the parts a sentence is made of (a message's speaker, a fact's subject, predicate, object and validity).
_ITEM_TEXT = {"Message": "n.content", "Fact": "n.object", "Preference": "n.preference", "Entity": "n.name",
              "ReasoningTrace": "n.task"}
ITEMS_TEXT = {label: """
MATCH (n:""" + quoted(label) + """ {user_id: $user_id}) WHERE n.uid IN $uids AND """ + kept(label=label, node="n") + """
RETURN n.uid AS uid, """ + text + """ AS text,
       n {.role, .subject, .predicate, .object, .valid_from, .valid_until, .status} AS parts
""" for label, text in _ITEM_TEXT.items()}


# --- forgetting ---------------------------------------------------------------------------------------

def _forget(label: str) -> str:
    """Return the rest of a query that forgets the nodes `batch` of a label other than Message (whose own way
    is in messages.py): the groups its facts or preferences are settled in, then the nodes with their parts.
    Its row is the one every forgetting query returns."""
    groups = ("CALL (batch) {\n  UNWIND batch AS n\n  WITH n WHERE (n:Fact OR n:Preference) AND n.first_key IS NOT NULL\n"
              "  RETURN collect(DISTINCT " + statement_group("n") + ") AS groups\n}\n")
    return ("WITH batch, [n IN batch | n.uid] AS uids\n" + groups + NODES_DELETE
            + "RETURN size(batch) AS nodes, parts, 0 AS facts, 0 AS preferences, 0 AS entities, groups, uids\n")


def node_forget(*, label: str) -> str:
    """Return the query that forgets one item of a label by uid, with what exists only for it.

    The messages that stated a derived item are withheld from agents from then on ($withheld: why, in the person's
    words; $revoked for a standing instruction), though the person still sees them, and remember its uid, so
    extracting them again leaves it out: what the person forgot is served in no section of a later context. An
    entity goes with the facts about it.
    """
    if label == "Message":
        return MESSAGE_FORGET
    match = "MATCH (n:" + quoted(label) + " {uid: $uid, user_id: $user_id})\n"
    if label not in _STATED_IN:
        return match + "WITH collect(n) AS batch\n" + _forget(label)
    if label == "Entity":  # a fact naming a forgotten entity would serve its name: it goes with it
        match = ("OPTIONAL " + match + "OPTIONAL MATCH (f:Fact {user_id: $user_id})-[:ABOUT]->(n)\n"
                 "WITH collect(DISTINCT n) + collect(DISTINCT f) AS batch\n")
    else:
        match += "WITH collect(n) AS batch\n"
    reason = "CASE WHEN n.category = $instruction THEN $revoked ELSE $withheld END"
    return (match + "CALL (batch) {\n  UNWIND batch AS n\n  CALL (n) {\n    MATCH " + _STATED_IN["Fact"] + " RETURN m\n"
            "    UNION\n    MATCH " + _STATED_IN["Entity"] + " RETURN m\n  }\n  WITH n, m WHERE m.user_id = $user_id\n  "
            + reason_add(node="m", field="withheld", reason=reason) + "  "
            + reason_add(node="m", field="forgotten", reason="n.uid") + "}\n" + _forget(label))


def expired_forget(*, label: str) -> str:
    """Return the query that forgets a batch of a person's items of a label that are past retention ($cutoffs)."""
    if label == "Message":
        return EXPIRED_MESSAGES_FORGET
    return ("MATCH (n:" + quoted(label) + " {user_id: $user_id}) WHERE " + expired(label=label, node="n")
            + "\nWITH n LIMIT $batch\nWITH collect(n) AS batch\n" + _forget(label))


def expired_count(*, label: str) -> str:
    """Return the query of how many of a person's items of a label are past retention: the dry run, and the
    residue check."""
    return ("MATCH (n:" + quoted(label) + " {user_id: $user_id}) WHERE " + expired(label=label, node="n")
            + " RETURN count(n) AS n")


def label_erase(label: str) -> str:
    """Return the query that deletes one batch of a person's nodes of any label (erasure), each batch its own
    transaction, so other people's reads and writes interleave with a large erasure."""

    return ("MATCH (n:" + quoted(label) + " {user_id: $user_id})\nWITH n LIMIT $batch\nDETACH DELETE n\n"
            "RETURN count(*) AS deleted\n")
